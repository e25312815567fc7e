import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toPosition, toRange } from '../convert';

/** Shift+F12: every -j / -g / chain command naming the chain. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerReferenceProvider(DUMP_SELECTOR, {
      provideReferences(document, position, ctx) {
        const entry = cache.get(document);
        if (!entry) return [];
        return entry.features.referencesAt(entry.analysis, toPosition(position), ctx.includeDeclaration).map((r) => new vscode.Location(document.uri, toRange(r)));
      },
    }),
  );
}
