// Copy Trace as Text / Markdown / JSON (the CLI's own formats, from the pure core) and Ctrl+C on a step.
import * as vscode from 'vscode';
import { core } from '../loadCore';
import type { ShownTrace, TraceNode, TraceTreeProvider } from './traceView';

/** The files of the trace as the user sees them: relative to the workspace, like the CLI's arguments. */
const names = (shown: ShownTrace) => shown.uris.map((u) => vscode.workspace.asRelativePath(u, false));

/** What Ctrl+C copies of one item: a step with its rule, else the item's own text. */
function nodeText(node: TraceNode): string | undefined {
  switch (node.type) {
    case 'step':
      return core().stepText(node.step, names(node.trace));
    case 'packet':
      return core().packetLine(node.trace.result);
    case 'outcome':
      return `${core().formatShare(node.outcome.probability)}  ${node.outcome.verdict === 'dnat' ? `DNAT → ${node.outcome.destination}` : node.outcome.verdict.toUpperCase()}`;
    case 'more':
      return undefined;
    default:
      return node.text;
  }
}

export function registerTraceCopy(context: vscode.ExtensionContext, tree: TraceTreeProvider, view: vscode.TreeView<TraceNode>): void {
  const copy = async (format: (shown: ShownTrace) => string) => {
    const shown = tree.current;
    if (!shown) return;
    await vscode.env.clipboard.writeText(format(shown));
    vscode.window.setStatusBarMessage(vscode.l10n.t('Trace copied.'), 3000);
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('dataplane.copyTraceText', () => copy((s) => core().traceToText(s.result, names(s)).join('\n'))),
    vscode.commands.registerCommand('dataplane.copyTraceMarkdown', () => copy((s) => core().traceToMarkdown(s.result, names(s)))),
    vscode.commands.registerCommand('dataplane.copyTraceJson', () => copy((s) => core().traceToJsonText(s.result, names(s)))),
    // From the context menu the item comes as the argument; from Ctrl+C, the view's selection.
    vscode.commands.registerCommand('dataplane.copyTraceStep', async (node?: TraceNode) => {
      const picked = node ? [node] : view.selection;
      const texts = picked.map(nodeText).filter((x): x is string => x !== undefined);
      if (texts.length) await vscode.env.clipboard.writeText(texts.join('\n'));
    }),
  );
}
