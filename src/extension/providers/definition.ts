import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toPosition, toRange } from '../convert';

/** F12 on a jump target (or any chain name) goes to its `:CHAIN` declaration line. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerDefinitionProvider(DUMP_SELECTOR, {
      provideDefinition(document, position) {
        const entry = cache.get(document);
        if (!entry) return undefined;
        const def = entry.features.definitionAt(entry.analysis, toPosition(position));
        if (!def) return undefined;
        return [{ targetUri: document.uri, targetRange: toRange(def.fullRange), targetSelectionRange: toRange(def.range), originSelectionRange: undefined } satisfies vscode.LocationLink];
      },
    }),
  );
}
