import * as vscode from 'vscode';
import { featuresFor } from '../../core/language';
import type { DocumentCache } from '../documentCache';
import { toDiagnostic } from '../convert';
import { readSettings } from '../settings';
import type { Snapshots } from '../snapshots';
import { snapshotDiagnostics } from '../../core/crossref';

/** Publishes parse errors and kube-proxy hints for open dumps, debounced while typing. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots): void {
  const collection = vscode.languages.createDiagnosticCollection('dataplane');
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const update = (document: vscode.TextDocument) => {
    if (!featuresFor(document.languageId)) {
      collection.delete(document.uri);
      return;
    }
    const entry = cache.get(document);
    if (!entry) {
      collection.set(document.uri, cache.isTooLarge(document)
        ? [new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), vscode.l10n.t('This dump is larger than dataplane.maxDocumentSize and was not analysed; use the dataplane command line instead.'), vscode.DiagnosticSeverity.Information)]
        : []);
      return;
    }
    const reportUnreferenced = readSettings().reportUnreferencedChains;
    const own = entry.analysis.diagnostics.filter((d) => reportUnreferenced || d.code !== 'unreferenced-chain').map(toDiagnostic);
    collection.set(document.uri, own);
    // Problems that need the other dumps of the node snapshot arrive a moment later.
    const version = document.version;
    void snapshots.forDocument(document).then(({ snapshot }) => {
      if (document.isClosed || document.version !== version) return;
      const across = snapshotDiagnostics(snapshot, 0);
      if (across.length > 0) collection.set(document.uri, [...own, ...across.map(toDiagnostic)]);
    });
  };
  const schedule = (document: vscode.TextDocument) => {
    const key = document.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(key, setTimeout(() => {
      timers.delete(key);
      update(document);
    }, 250));
  };
  context.subscriptions.push(
    collection,
    vscode.workspace.onDidOpenTextDocument(update),
    vscode.workspace.onDidChangeTextDocument((e) => schedule(e.document)),
    vscode.workspace.onDidCloseTextDocument((d) => collection.delete(d.uri)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('dataplane')) vscode.workspace.textDocuments.forEach(update);
    }),
    { dispose: () => timers.forEach((timer) => clearTimeout(timer)) },
  );
  vscode.workspace.textDocuments.forEach(update);
}
