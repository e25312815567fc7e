// "Show in Graph" CodeLens above each Service's object (KUBE-SVC chain, nft service chain / map element, IPVS
// virtual service). Off with `dataplane.graph.codeLens`.
import * as vscode from 'vscode';
import type { ObjectRef, Service } from '../../core/kube/catalog';
import { toRange } from '../convert';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { core } from '../loadCore';
import { readSettings } from '../settings';

const MAIN_ROLES: ObjectRef['role'][] = ['service-chain', 'service-local-chain', 'virtual-service', 'map-element', 'external-chain', 'firewall-chain'];
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
        const services = ((await analysis.query('services')) ?? []) as Service[];
        const { serviceTitle } = core();
        const lenses: vscode.CodeLens[] = [];
        const lines = new Set<number>();
        for (const s of services) {
          if (lenses.length >= MAX_LENSES) break;
          const object = MAIN_ROLES.map((role) => s.objects.find((o) => o.role === role)).find((o) => o !== undefined);
          if (!object || lines.has(object.range.start.line)) continue;
          lines.add(object.range.start.line);
          lenses.push(
            new vscode.CodeLens(toRange(object.range), {
              title: `$(type-hierarchy) ${vscode.l10n.t('Show in Graph')}`,
              tooltip: vscode.l10n.t('Draw {0} in the Service graph', serviceTitle(s)),
              command: 'dataplane.showGraph',
              arguments: [document.uri, { title: serviceTitle(s), family: s.family }],
            }),
          );
        }
        return lenses;
      },
    }),
  );
}
