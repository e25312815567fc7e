import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toMarkdown, toPosition, toRange } from '../convert';
import type { HoverService } from '../../core/explain/markdown';
import type { Snapshots } from '../snapshots';

/**
 * Explains chains, kube-proxy's Services, probabilities, affinity, DNAT, masquerade and the header; a Service's hover
 * also shows the API side when the snapshot has a cluster state.
 */
export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots): void {
  context.subscriptions.push(
    vscode.languages.registerHoverProvider(DUMP_SELECTOR, {
      async provideHover(document, position, token) {
        const hover = await (await cache.get(document))?.queryWith(token, 'hoverAt', toPosition(position));
        if (!hover) return undefined;
        const api = (await apiSide(snapshots, document, hover.service, position, token))?.value;
        if (token.isCancellationRequested) return undefined;
        const markdown = api ? `${hover.markdown}\n\n---\n\n${api}` : hover.markdown;
        return new vscode.Hover(toMarkdown(markdown, hover.commands), toRange(hover.range));
      },
    }),
  );
}

/** A Service's API side: by the Service port the hover names, or (ipvsadm) by the virtual service on the line. */
function apiSide(snapshots: Snapshots, document: vscode.TextDocument, service: HoverService | undefined, position: vscode.Position, token: vscode.CancellationToken) {
  const asked = service ? snapshots.queryWith(token, document, 'clusterHover', service) : document.languageId === 'ipvsadm' ? snapshots.queryWith(token, document, 'clusterHoverAt', 0, toPosition(position)) : undefined;
  return asked?.catch(() => undefined);
}
