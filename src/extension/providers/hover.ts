import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toMarkdown, toPosition, toRange } from '../convert';

/** Explains chains, kube-proxy's Services, probabilities, affinity, DNAT, masquerade and the header. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerHoverProvider(DUMP_SELECTOR, {
      provideHover(document, position) {
        const entry = cache.get(document);
        if (!entry) return undefined;
        const hover = entry.features.hoverAt(entry.analysis, toPosition(position));
        return hover ? new vscode.Hover(toMarkdown(hover.markdown, hover.commands), toRange(hover.range)) : undefined;
      },
    }),
  );
}
