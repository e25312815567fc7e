import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toPosition, toRange } from '../convert';
import type { Snapshots } from '../snapshots';

/**
 * F12: a jump target (or any chain name) goes to its `:CHAIN` line; across the node snapshot, an iptables
 * `--match-set NAME` goes to the ipset and an ipset member to its IPVS virtual service.
 */
export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots): void {
  context.subscriptions.push(
    vscode.languages.registerDefinitionProvider(DUMP_SELECTOR, {
      async provideDefinition(document, position, token) {
        const entry = await cache.get(document);
        if (!entry) return undefined;
        const def = await entry.queryWith(token, 'definitionAt', toPosition(position));
        if (def) {
          return [{ targetUri: document.uri, targetRange: toRange(def.fullRange), targetSelectionRange: toRange(def.range) } satisfies vscode.LocationLink];
        }
        const across = await snapshots.queryWith(token, document, 'definitions', 0, toPosition(position));
        return across?.value.map((l) => new vscode.Location(across.uris[l.fileIndex], toRange(l.range)));
      },
    }),
  );
}
