import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toMarkdown, toPosition, toRange } from '../convert';

/** Explains chains, kube-proxy's Services, probabilities, affinity, DNAT, masquerade and the header. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerHoverProvider(DUMP_SELECTOR, {
      async provideHover(document, position) {
        const hover = await (await cache.get(document))?.query('hoverAt', toPosition(position));
        return hover ? new vscode.Hover(toMarkdown(hover.markdown, hover.commands), toRange(hover.range)) : undefined;
      },
    }),
  );
}
