// "Show in Graph" CodeLens above each Service's object (KUBE-SVC chain, nft service chain / map element, IPVS
// virtual service). Off with `dataplane.graph.codeLens`.
import * as vscode from 'vscode';
import type { ServiceLens } from '../analysis/queries';
import { toRange } from '../convert';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { readSettings } from '../settings';
/** More lenses than this in one document would only add noise (and cost): the graph's list finds the rest. */
const MAX_LENSES = 5_000;

export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('dataplane.graph.codeLens')) changed.fire();
    }),
    vscode.languages.registerCodeLensProvider(DUMP_SELECTOR, {
      onDidChangeCodeLenses: changed.event,
      async provideCodeLenses(document, token) {
        if (!readSettings().graphCodeLens) return [];
        const analysis = await cache.get(document);
        if (!analysis || token.isCancellationRequested) return [];
        // Where the analysis lives (the worker for large dumps), only what the lenses need comes back.
        const found = ((await analysis.queryWith(token, 'serviceLenses', MAX_LENSES)) ?? []) as ServiceLens[];
        return found.map(
          (lens) =>
            new vscode.CodeLens(toRange(lens.range), {
              title: `$(type-hierarchy) ${lens.label}`,
              tooltip: vscode.l10n.t('Draw {0} in the Service graph', lens.title),
              command: 'dataplane.showGraph',
              arguments: [document.uri, { title: lens.title, family: lens.family }],
            }),
        );
      },
    }),
  );
}
