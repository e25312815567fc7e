import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toPosition, toRange } from '../convert';
import type { Snapshots } from '../snapshots';

/** Shift+F12: jumps, gotos and chain commands in the file, plus ipset members and rules across the snapshot. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots): void {
  context.subscriptions.push(
    vscode.languages.registerReferenceProvider(DUMP_SELECTOR, {
      async provideReferences(document, position, ctx, token) {
        const entry = await cache.get(document);
        if (!entry) return [];
        const local = ((await entry.queryWith(token, 'referencesAt', toPosition(position), ctx.includeDeclaration)) ?? []).map((r) => new vscode.Location(document.uri, toRange(r)));
        const across = await snapshots.queryWith(token, document, 'references', 0, toPosition(position));
        return [...local, ...(across?.value.map((l) => new vscode.Location(across.uris[l.fileIndex], toRange(l.range))) ?? [])];
      },
    }),
  );
}
