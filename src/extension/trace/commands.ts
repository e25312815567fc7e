// Trace ClusterIP / Trace NodePort / Trace Packet…: ask what to trace, run the core tracer on the active
// node snapshot, show the result in the trace view and mark the path's rules in the editor.
import * as vscode from 'vscode';
import { activeDumpDocument } from '../activeDump';
import type { Entry, Protocol } from '../../core/trace';
import type { DocumentCache } from '../documentCache';
import { core } from '../loadCore';
import type { Log } from '../log';
import type { Snapshots } from '../snapshots';
import { readSettings } from '../settings';
import { destinationInputProblem } from './addressInput';
import { adviseNodeAddress, askNodeAddress, offerToSave } from './nodeAddress';
import { TraceTreeProvider } from './traceView';
import { registerTraceCopy } from './copy';
import { withSlowProgress } from '../slowProgress';
import { PICK_ROWS, showFilteredPick } from '../filteredPick';

interface Target {
  address: string;
  port: number;
  protocol: Protocol;
}

export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots, log: Log): void {
  const trace = new TraceCommands(cache, snapshots, log);
  registerTraceCopy(context, trace.tree, trace.view);
  context.subscriptions.push(
    trace,
    vscode.window.onDidChangeVisibleTextEditors(() => trace.decorate()),
    vscode.commands.registerCommand('dataplane.traceClusterIP', () => trace.traceClusterIP()),
    vscode.commands.registerCommand('dataplane.traceNodePort', () => trace.traceNodePort()),
    vscode.commands.registerCommand('dataplane.tracePacket', (destination?: string, entry?: Entry) => trace.tracePacket(destination, entry)),
    vscode.commands.registerCommand('dataplane.revealTraceStep', revealTraceStep),
    // "Show in Graph" in the trace view's title: the graph of the traced snapshot with the path highlighted.
    vscode.commands.registerCommand('dataplane.showTraceInGraph', () => trace.showInGraph()),
    vscode.commands.registerCommand('dataplane.clearTrace', () => trace.clear()),
  );
}

type ActiveSnapshot = { document: vscode.TextDocument };

/** The trace view, the path's highlight in the editors, and the three ways to ask for a trace. */
class TraceCommands implements vscode.Disposable {
  readonly tree = new TraceTreeProvider();
  readonly view = vscode.window.createTreeView('dataplane.trace', { treeDataProvider: this.tree, showCollapseAll: true });
  private readonly decoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.wordHighlightStrongBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.wordHighlightStrongForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
    isWholeLine: true,
  });

  constructor(
    private readonly cache: DocumentCache,
    private readonly snapshots: Snapshots,
    private readonly log: Log,
  ) {}

  dispose(): void {
    this.view.dispose();
    this.decoration.dispose();
  }

  /** Highlights the shown trace's path in every visible editor of its files (and nothing without a trace). */
  decorate(): void {
    const shown = this.tree.current;
    for (const editor of vscode.window.visibleTextEditors) {
      if (!shown) {
        editor.setDecorations(this.decoration, []);
        continue;
      }
      const index = shown.uris.findIndex((u) => u.toString() === editor.document.uri.toString());
      const lines = new Set(index < 0 ? [] : shown.result.outcomes.flatMap((o) => o.path.filter((s) => s.fileIndex === index).map((s) => s.line)));
      editor.setDecorations(
        this.decoration,
        [...lines].map((line) => new vscode.Range(line, 0, line, 0)),
      );
    }
  }

  async traceClusterIP(): Promise<void> {
    const snapshot = await this.activeSnapshot();
    if (!snapshot) return;
    const target = await this.pickFrontend(snapshot.document, 'clusterIP');
    if (target) await this.run(target, undefined, snapshot);
  }

  async traceNodePort(): Promise<void> {
    const snapshot = await this.activeSnapshot();
    if (!snapshot) return;
    const target = await this.pickFrontend(snapshot.document, 'nodePort');
    if (!target) return;
    const configured = readSettings().nodeIPs;
    const nodeIP = await askNodeAddress(vscode.l10n.t('Trace NodePort'), configured[0] ?? '192.168.0.10');
    if (!nodeIP?.length) return;
    // The address typed is this node's: the trace must not call it a guess a moment later.
    await this.run({ ...target, address: nodeIP[0] }, await askEntry('external'), snapshot, nodeIP);
  }

  async tracePacket(destination?: string, entry?: Entry): Promise<void> {
    const snapshot = await this.activeSnapshot();
    if (!snapshot) return;
    const text =
      destination ??
      (await vscode.window.showInputBox({
        title: vscode.l10n.t('Trace Packet'),
        prompt: vscode.l10n.t('Destination ADDRESS:PORT[/tcp|udp|sctp]'),
        placeHolder: '10.96.0.10:53/udp',
        validateInput: destinationInputProblem,
      }));
    const d = text ? core().parseDestination(text) : undefined;
    if (d) await this.run({ address: d.address, port: d.port, protocol: d.protocol }, entry, snapshot);
  }

  async showInGraph(): Promise<void> {
    const shown = this.tree.current;
    if (shown) await vscode.commands.executeCommand('dataplane.graph.showTrace', shown.uris, shown.result);
  }

  async clear(): Promise<void> {
    this.tree.show(undefined);
    this.decorate();
    await vscode.commands.executeCommand('setContext', 'dataplane.hasTrace', false);
  }

  /** The node snapshot of the active editor (its dump and the dumps beside it), when it has rules to trace. */
  private async activeSnapshot(): Promise<ActiveSnapshot | undefined> {
    const document = activeDumpDocument();
    const entry = document ? await this.cache.get(document) : undefined;
    const files = document && entry ? await this.snapshots.query(document, 'files') : undefined;
    if (!document || !files) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a dump first: the trace follows its rules.'));
      return undefined;
    }
    if (!files.value.some((f) => f.languageId === 'iptables' || f.languageId === 'nftables')) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No iptables-save or nft dump in this node snapshot: nothing to trace through.'));
      return undefined;
    }
    return { document };
  }

  /** given: the node's addresses the user just typed for this trace (they win over the setting). */
  private async run(target: Target, entry: Entry | undefined, snapshot: ActiveSnapshot, given?: string[]): Promise<void> {
    const from = entry ?? (await askEntry('pod'));
    if (!from) return;
    let nodeIPs = given?.length ? given : readSettings().nodeIPs;
    let nodeIPsOrigin: 'given' | 'configured' = given?.length ? 'given' : 'configured';
    if (from === 'node' && nodeIPs.length === 0) {
      // Its connections leave from the node's address: asked when no setting holds it (empty: the dumps say).
      const asked = await askNodeAddress(vscode.l10n.t('From this node'));
      if (asked === undefined) return;
      nodeIPs = asked;
      nodeIPsOrigin = 'given';
    }
    if (nodeIPsOrigin === 'given') offerToSave(nodeIPs);
    // The trace runs where the analyses live (the worker for large dumps, which may still be preparing it).
    const request = { to: target.address, dport: target.port, protocol: target.protocol, entry: from, nodeIPs, nodeIPsOrigin };
    const where = `${target.protocol} ${core().hostPort(target.address, target.port)}`;
    const answer = await withSlowProgress(vscode.l10n.t('Tracing {0}…', where), () => this.snapshots.query(snapshot.document, 'trace', request));
    if (!answer) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The dump changed while it was traced; trace again.'));
      return;
    }
    const result = answer.value;
    this.log.info(`trace ${where} from ${from} (${answer.where}): ${result.outcomes.map((o) => `${core().formatShare(o.probability)} ${o.verdict} ${o.destination ?? ''}`).join(', ')}`);
    this.tree.show({ result, uris: answer.uris });
    // Also ticks the walkthrough's trace step: done once a trace has run, not when its button was clicked. The
    // step listens for the key to change, so a trace shown over an earlier one (key already set) sets it anew.
    await vscode.commands.executeCommand('setContext', 'dataplane.hasTrace', false);
    await vscode.commands.executeCommand('setContext', 'dataplane.hasTrace', true);
    this.decorate();
    this.view.description = [result.service, where].filter(Boolean).join(' · ');
    await vscode.commands.executeCommand('dataplane.trace.focus');
    // The node's address was guessed: the editor's way to give it (the CLI names its flag), then the trace again.
    // Not awaited: the command is done once the trace is shown.
    void adviseNodeAddress(result.advice).then((better) => (better ? this.run(target, from, snapshot, better) : undefined));
  }

  /** The Services' frontends to pick from, or an address typed. */
  private async pickFrontend(document: vscode.TextDocument, kind: 'clusterIP' | 'nodePort'): Promise<Target | undefined> {
    type Item = vscode.QuickPickItem & { target?: Target };
    const picked = await showFilteredPick<Item>({
      title: kind === 'clusterIP' ? vscode.l10n.t('Trace ClusterIP') : vscode.l10n.t('Trace NodePort'),
      placeholder: kind === 'clusterIP' ? vscode.l10n.t('Pick a Service or type ADDRESS:PORT[/tcp|udp|sctp]') : vscode.l10n.t('Pick a NodePort Service'),
      none: vscode.l10n.t('No Services here — type ADDRESS:PORT[/tcp|udp|sctp]'),
      rows: async (value) => (await this.snapshots.query(document, 'frontendRows', kind, value, PICK_ROWS))?.value,
      typed: (value) => {
        const d = core().parseDestination(value);
        return d
          ? [{ label: `${core().hostPort(d.address, d.port)}/${d.protocol}`, description: vscode.l10n.t('trace this address'), target: { address: d.address, port: d.port, protocol: d.protocol }, alwaysShow: true }]
          : [];
      },
    });
    return picked?.target;
  }
}

/** Where the packet comes from; the default first. */
async function askEntry(defaultEntry: Entry): Promise<Entry | undefined> {
  const items: (vscode.QuickPickItem & { entry: Entry })[] = [
    { entry: 'pod', label: vscode.l10n.t('From a pod on this node'), description: 'PREROUTING', detail: vscode.l10n.t('The connection arrives from a pod network interface.') },
    { entry: 'node', label: vscode.l10n.t('From this node'), description: 'OUTPUT', detail: vscode.l10n.t('A process on the node (or a hostNetwork pod) opens the connection.') },
    { entry: 'external', label: vscode.l10n.t('From outside the cluster'), description: 'PREROUTING', detail: vscode.l10n.t('A client outside the cluster reaches this node.') },
  ];
  items.sort((a, b) => (a.entry === defaultEntry ? -1 : b.entry === defaultEntry ? 1 : 0));
  const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Where does the packet come from?') });
  return picked?.entry;
}

async function revealTraceStep(uri: vscode.Uri, range: vscode.Range): Promise<void> {
  const editor = await vscode.window.showTextDocument(uri, { preserveFocus: false, preview: true });
  editor.selection = new vscode.Selection(range.start, range.end);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
