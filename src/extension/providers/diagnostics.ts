import * as vscode from 'vscode';
import { featuresFor } from '../../core/language';
import type { DocumentCache } from '../documentCache';
import { toDiagnostic } from '../convert';
import { readSettings } from '../settings';

/** Publishes parse errors and kube-proxy hints for open dumps, debounced while typing. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
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
    collection.set(document.uri, entry.analysis.diagnostics.filter((d) => reportUnreferenced || d.code !== 'unreferenced-chain').map(toDiagnostic));
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
