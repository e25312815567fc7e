import * as vscode from 'vscode';
import { snapshotReferences } from '../../core/crossref';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toPosition, toRange } from '../convert';
import type { Snapshots } from '../snapshots';

/** Shift+F12: jumps, gotos and chain commands in the file, plus ipset members and rules across the snapshot. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots): void {
  context.subscriptions.push(
    vscode.languages.registerReferenceProvider(DUMP_SELECTOR, {
      async provideReferences(document, position, ctx) {
        const entry = cache.get(document);
        if (!entry) return [];
        const local = entry.features.referencesAt(entry.analysis, toPosition(position), ctx.includeDeclaration).map((r) => new vscode.Location(document.uri, toRange(r)));
        const { snapshot, uris } = await snapshots.forDocument(document);
        const across = snapshotReferences(snapshot, 0, toPosition(position)).map((l) => new vscode.Location(uris[l.fileIndex], toRange(l.range)));
        return [...local, ...across];
      },
    }),
  );
}
