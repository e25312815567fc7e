// The "Dataplane Trace" view: outcomes with their share, then the path step by step, each step clickable.
import * as vscode from 'vscode';
import type { Outcome, PathStep, TraceResult } from '../../core/trace';
import { toRange } from '../convert';
import { core } from '../loadCore';
import { plainLabel } from '../../core/explain/label';

export interface ShownTrace {
  result: TraceResult;
  /** Document URIs by the steps' fileIndex. */
  uris: vscode.Uri[];
}

export type TraceNode =
  | { type: 'packet'; trace: ShownTrace }
  | { type: 'warning'; text: string }
  | { type: 'outcome'; outcome: Outcome; trace: ShownTrace }
  | { type: 'assumption'; text: string }
  | { type: 'note'; text: string }
  | { type: 'more'; count: number }
  | { type: 'step'; step: PathStep; index: number; trace: ShownTrace };

/** A line of text with an icon (a warning, an assumption, a note); `tooltip`: the whole text on hover. */
function textItem(text: string, icon: string, tooltip: boolean): vscode.TreeItem {
  const item = new vscode.TreeItem(plainLabel(text));
  item.iconPath = new vscode.ThemeIcon(icon);
  if (tooltip) item.tooltip = text;
  return item;
}

export class TraceTreeProvider implements vscode.TreeDataProvider<TraceNode> {
  private trace: ShownTrace | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  show(trace: ShownTrace | undefined): void {
    this.trace = trace;
    this.changed.fire();
  }

  get current(): ShownTrace | undefined {
    return this.trace;
  }

  getChildren(node?: TraceNode): TraceNode[] {
    const trace = this.trace;
    if (!trace) return [];
    if (!node) {
      const { shown, more } = core().shownOutcomes(trace.result);
      return [
        { type: 'packet', trace },
        // Where a packet from this node gets its source (a stand-in is among the warnings).
        ...(trace.result.source && trace.result.source.origin !== 'stand-in' ? [{ type: 'note' as const, text: trace.result.source.text }] : []),
        ...trace.result.warnings.map((text) => ({ type: 'warning' as const, text })),
        ...shown.map((outcome) => ({ type: 'outcome' as const, outcome, trace })),
        ...(more > 0 ? [{ type: 'more' as const, count: more }] : []),
      ];
    }
    if (node.type === 'outcome') {
      return [
        ...node.outcome.assumptions.map((text) => ({ type: 'assumption' as const, text })),
        ...node.outcome.path.map((step, index) => ({ type: 'step' as const, step, index, trace: node.trace })),
        ...node.outcome.notes.map((text) => ({ type: 'note' as const, text })),
      ];
    }
    return [];
  }

  getTreeItem(node: TraceNode): vscode.TreeItem {
    switch (node.type) {
      case 'packet': {
        const p = node.trace.result.packet;
        const from = { pod: vscode.l10n.t('from a pod on this node'), node: vscode.l10n.t('from this node'), external: vscode.l10n.t('from outside the cluster') }[p.entry];
        const item = new vscode.TreeItem(plainLabel(`${p.protocol.toUpperCase()} ${p.src} → ${core().hostPort(p.dst, p.dport)}`));
        // The header names the Service the destination belongs to, when it is one's frontend.
        item.description = node.trace.result.service ? vscode.l10n.t('{0} · Service {1}', from, node.trace.result.service) : from;
        item.iconPath = new vscode.ThemeIcon('arrow-right');
        item.tooltip = vscode.l10n.t('The first packet of a new connection {0}.', from);
        return item;
      }
      case 'warning':
        return textItem(node.text, 'warning', true);
      case 'outcome': {
        const o = node.outcome;
        const what = o.verdict === 'dnat' ? `DNAT → ${o.destination}` : o.verdict.toUpperCase();
        // With several outcomes they start collapsed, so all of them (and their shares) are visible at once.
        const single = node.trace.result.outcomes.length === 1;
        const item = new vscode.TreeItem(plainLabel(`${core().formatShare(o.probability)}  ${what}`), single ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        // The conditions are part of what the outcome says: its share is of new connections under them.
        // The cluster state names the endpoint (its pod, else its Service) and says when the API does not offer it.
        const api = o.endpoint ? (o.endpoint.note ? vscode.l10n.t('⚠ {0}: {1}', o.endpoint.pod ?? o.endpoint.service, o.endpoint.note) : (o.endpoint.pod ?? vscode.l10n.t('Service {0}', o.endpoint.service))) : '';
        item.description = plainLabel([api, o.masquerade ? vscode.l10n.t('masqueraded') : '', o.assumptions.length ? vscode.l10n.t('if: {0}', o.assumptions.join('; ')) : ''].filter(Boolean).join(' · ')) || undefined;
        item.iconPath = new vscode.ThemeIcon(o.endpoint?.note ? 'warning' : o.verdict === 'dnat' || o.verdict === 'accept' ? 'pass' : 'error');
        const endpointLines = o.endpoint ? [vscode.l10n.t('Endpoint: {0}', core().endpointLine(o.endpoint)), ...(o.endpoint.note ? [vscode.l10n.t('API: {0}', o.endpoint.note)] : [])] : [];
        const tooltip = [...endpointLines, ...(o.assumptions.length ? [vscode.l10n.t('The share of new connections under these assumptions:'), ...o.assumptions] : [])];
        item.tooltip = tooltip.length ? tooltip.join('\n') : undefined;
        // A screen reader hears the outcome first, then what the tooltip adds (VS Code reads the tooltip instead of the label).
        item.accessibilityInformation = { label: [item.label as string, item.description, ...tooltip].filter(Boolean).join(', ') };
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem(vscode.l10n.t('{0} more outcomes (not shown)', node.count));
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.tooltip = vscode.l10n.t('Only the first outcomes are listed: the largest shares under the fewest assumptions.');
        return item;
      }
      case 'assumption':
        return textItem(node.text, 'question', false);
      case 'note':
        return textItem(node.text, 'info', true);
      case 'step': {
        const s = node.step;
        const item = new vscode.TreeItem(plainLabel(s.note || `${s.table}/${s.chain}`));
        item.description = plainLabel(vscode.l10n.t('{0}/{1}, line {2}', s.table, s.chain, s.line + 1));
        // A code block of one line: the rule's text cannot close its fence.
        item.tooltip = new vscode.MarkdownString().appendCodeblock(s.text.replace(/[\r\n]+/g, ' '), 'iptables');
        item.iconPath = new vscode.ThemeIcon('arrow-small-right');
        item.contextValue = 'traceStep';
        const uri = node.trace.uris[s.fileIndex];
        if (uri) item.command = { command: 'dataplane.revealTraceStep', title: vscode.l10n.t('Reveal Rule'), arguments: [uri, toRange(s.range)] };
        return item;
      }
    }
  }
}
