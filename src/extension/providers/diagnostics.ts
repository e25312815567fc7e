import * as vscode from 'vscode';
import type { DocumentCache } from '../documentCache';
import { toDiagnostic } from '../convert';
import { perDocumentDebounce } from '../debounce';
import { isDumpLanguage } from '../dumpLanguages';
import { readSettings } from '../settings';
import type { Snapshots } from '../snapshots';
import { tooLargeMessage } from './languageStatus';

/** Publishes parse errors and kube-proxy hints for open dumps, debounced while typing. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots): void {
  const collection = vscode.languages.createDiagnosticCollection('dataplane');
  const update = async (document: vscode.TextDocument) => {
    if (!isDumpLanguage(document.languageId)) {
      collection.delete(document.uri);
      return;
    }
    const version = document.version;
    const entry = await cache.get(document);
    if (document.isClosed || document.version !== version) return; // a newer version's update follows
    if (!entry) {
      collection.set(document.uri, cache.isTooLarge(document) ? [new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), tooLargeMessage(document, cache.size(document)), vscode.DiagnosticSeverity.Information)] : []);
      return;
    }
    const reportUnreferenced = readSettings().reportUnreferencedChains;
    const own = entry.diagnostics.filter((d) => reportUnreferenced || d.code !== 'unreferenced-chain').map(toDiagnostic);
    collection.set(document.uri, own);
    // Problems that need the other dumps of the node snapshot arrive a moment later.
    const across = await snapshots.query(document, 'diagnostics', 0);
    if (!across || document.isClosed || document.version !== version) return;
    if (across.value.length > 0) collection.set(document.uri, [...own, ...across.value.map(toDiagnostic)]);
  };
  const { schedule, dispose } = perDocumentDebounce(250, update);
  context.subscriptions.push(
    collection,
    vscode.workspace.onDidOpenTextDocument((d) => void update(d)),
    vscode.workspace.onDidChangeTextDocument((e) => schedule(e.document)),
    vscode.workspace.onDidCloseTextDocument((d) => collection.delete(d.uri)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('dataplane')) vscode.workspace.textDocuments.forEach((d) => void update(d));
    }),
    { dispose },
  );
  // The dumps already open are analysed just after activation, not during it (docs/performance.md#budgets: activation ≤ 50 ms; the
  // first analysis loads the parsers, dist/core.js).
  const initial = setTimeout(() => vscode.workspace.textDocuments.forEach((d) => void update(d)), 0);
  context.subscriptions.push({ dispose: () => clearTimeout(initial) });
}
