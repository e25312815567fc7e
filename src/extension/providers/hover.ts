import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toMarkdown, toPosition, toRange } from '../convert';
import type { Snapshots } from '../snapshots';

/**
 * Explains chains, kube-proxy's Services, probabilities, affinity, DNAT, masquerade and the header; a Service's hover
 * also shows the API side when the snapshot has a cluster state.
 */
export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots): void {
  context.subscriptions.push(
    vscode.languages.registerHoverProvider(DUMP_SELECTOR, {
      async provideHover(document, position) {
        const hover = await (await cache.get(document))?.query('hoverAt', toPosition(position));
        if (!hover) return undefined;
        const api = hover.service ? (await snapshots.query(document, 'clusterHover', hover.service).catch(() => undefined))?.value : undefined;
        const markdown = api ? `${hover.markdown}\n\n---\n\n${api}` : hover.markdown;
        return new vscode.Hover(toMarkdown(markdown, hover.commands), toRange(hover.range));
      },
    }),
  );
}
