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
  const tree = new TraceTreeProvider();
  const view = vscode.window.createTreeView('dataplane.trace', { treeDataProvider: tree, showCollapseAll: true });
  registerTraceCopy(context, tree, view);
  const decoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.wordHighlightStrongBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.wordHighlightStrongForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
    isWholeLine: true,
  });

  const decorate = () => {
    const shown = tree.current;
    for (const editor of vscode.window.visibleTextEditors) {
      if (!shown) {
        editor.setDecorations(decoration, []);
        continue;
      }
      const index = shown.uris.findIndex((u) => u.toString() === editor.document.uri.toString());
      const lines = new Set(index < 0 ? [] : shown.result.outcomes.flatMap((o) => o.path.filter((s) => s.fileIndex === index).map((s) => s.line)));
      editor.setDecorations(
        decoration,
        [...lines].map((line) => new vscode.Range(line, 0, line, 0)),
      );
    }
  };

  /** The node snapshot of the active editor (its dump and the dumps beside it): its files and Services. */
  const activeSnapshot = async (): Promise<{ document: vscode.TextDocument } | undefined> => {
    const document = activeDumpDocument();
    const entry = document ? await cache.get(document) : undefined;
    const files = document && entry ? await snapshots.query(document, 'files') : undefined;
    if (!document || !files) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a dump first: the trace follows its rules.'));
      return undefined;
    }
    if (!files.value.some((f) => f.languageId === 'iptables' || f.languageId === 'nftables')) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No iptables-save or nft dump in this node snapshot: nothing to trace through.'));
      return undefined;
    }
    return { document };
  };

  const askEntry = async (defaultEntry: Entry): Promise<Entry | undefined> => {
    const items: (vscode.QuickPickItem & { entry: Entry })[] = [
      { entry: 'pod', label: vscode.l10n.t('From a pod on this node'), description: 'PREROUTING', detail: vscode.l10n.t('The connection arrives from a pod network interface.') },
      { entry: 'node', label: vscode.l10n.t('From this node'), description: 'OUTPUT', detail: vscode.l10n.t('A process on the node (or a hostNetwork pod) opens the connection.') },
      { entry: 'external', label: vscode.l10n.t('From outside the cluster'), description: 'PREROUTING', detail: vscode.l10n.t('A client outside the cluster reaches this node.') },
    ];
    items.sort((a, b) => (a.entry === defaultEntry ? -1 : b.entry === defaultEntry ? 1 : 0));
    const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Where does the packet come from?') });
    return picked?.entry;
  };

  /** given: the node's addresses the user just typed for this trace (they win over the setting). */
  const run = async (target: Target, entry: Entry | undefined, snapshot: Awaited<ReturnType<typeof activeSnapshot>>, given?: string[]) => {
    if (!snapshot) return;
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
    const answer = await withSlowProgress(vscode.l10n.t('Tracing {0}…', `${target.protocol} ${core().hostPort(target.address, target.port)}`), () => snapshots.query(snapshot.document, 'trace', request));
    if (!answer) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The dump changed while it was traced; trace again.'));
      return;
    }
    const result = answer.value;
    log.info(
      `trace ${target.protocol} ${core().hostPort(target.address, target.port)} from ${from} (${answer.where}): ${result.outcomes.map((o) => `${core().formatShare(o.probability)} ${o.verdict} ${o.destination ?? ''}`).join(', ')}`,
    );
    tree.show({ result, uris: answer.uris });
    // Also ticks the walkthrough's trace step: done once a trace has run, not when its button was clicked. The
    // step listens for the key to change, so a trace shown over an earlier one (key already set) sets it anew.
    await vscode.commands.executeCommand('setContext', 'dataplane.hasTrace', false);
    await vscode.commands.executeCommand('setContext', 'dataplane.hasTrace', true);
    decorate();
    view.description = [result.service, `${target.protocol} ${core().hostPort(target.address, target.port)}`].filter(Boolean).join(' · ');
    await vscode.commands.executeCommand('dataplane.trace.focus');
    // The node's address was guessed: the editor's way to give it (the CLI names its flag), then the trace again.
    // Not awaited: the command is done once the trace is shown.
    void adviseNodeAddress(result.advice).then((better) => (better ? run(target, from, snapshot, better) : undefined));
  };

  /** The Services' frontends to pick from, or an address typed. */
  const pickFrontend = async (document: vscode.TextDocument, kind: 'clusterIP' | 'nodePort'): Promise<Target | undefined> => {
    type Item = vscode.QuickPickItem & { target?: Target };
    const picked = await showFilteredPick<Item>({
      title: kind === 'clusterIP' ? vscode.l10n.t('Trace ClusterIP') : vscode.l10n.t('Trace NodePort'),
      placeholder: kind === 'clusterIP' ? vscode.l10n.t('Pick a Service or type ADDRESS:PORT[/tcp|udp|sctp]') : vscode.l10n.t('Pick a NodePort Service'),
      none: vscode.l10n.t('No Services here — type ADDRESS:PORT[/tcp|udp|sctp]'),
      rows: async (value) => (await snapshots.query(document, 'frontendRows', kind, value, PICK_ROWS))?.value,
      typed: (value) => {
        const d = core().parseDestination(value);
        return d
          ? [{ label: `${core().hostPort(d.address, d.port)}/${d.protocol}`, description: vscode.l10n.t('trace this address'), target: { address: d.address, port: d.port, protocol: d.protocol }, alwaysShow: true }]
          : [];
      },
    });
    return picked?.target;
  };

  context.subscriptions.push(
    view,
    decoration,
    vscode.window.onDidChangeVisibleTextEditors(decorate),

    vscode.commands.registerCommand('dataplane.traceClusterIP', async () => {
      const snapshot = await activeSnapshot();
      if (!snapshot) return;
      const target = await pickFrontend(snapshot.document, 'clusterIP');
      if (target) await run(target, undefined, snapshot);
    }),

    vscode.commands.registerCommand('dataplane.traceNodePort', async () => {
      const snapshot = await activeSnapshot();
      if (!snapshot) return;
      const target = await pickFrontend(snapshot.document, 'nodePort');
      if (!target) return;
      const configured = readSettings().nodeIPs;
      const nodeIP = await askNodeAddress(vscode.l10n.t('Trace NodePort'), configured[0] ?? '192.168.0.10');
      if (!nodeIP?.length) return;
      // The address typed is this node's: the trace must not call it a guess a moment later.
      await run({ ...target, address: nodeIP[0] }, await askEntry('external'), snapshot, nodeIP);
    }),

    vscode.commands.registerCommand('dataplane.tracePacket', async (destination?: string, entry?: Entry) => {
      const snapshot = await activeSnapshot();
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
      if (d) await run({ address: d.address, port: d.port, protocol: d.protocol }, entry, snapshot);
    }),

    vscode.commands.registerCommand('dataplane.revealTraceStep', async (uri: vscode.Uri, range: vscode.Range) => {
      const editor = await vscode.window.showTextDocument(uri, { preserveFocus: false, preview: true });
      editor.selection = new vscode.Selection(range.start, range.end);
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }),

    // "Show in Graph" in the trace view's title: the graph of the traced snapshot with the path highlighted.
    vscode.commands.registerCommand('dataplane.showTraceInGraph', async () => {
      const shown = tree.current;
      if (shown) await vscode.commands.executeCommand('dataplane.graph.showTrace', shown.uris, shown.result);
    }),

    vscode.commands.registerCommand('dataplane.clearTrace', async () => {
      tree.show(undefined);
      decorate();
      await vscode.commands.executeCommand('setContext', 'dataplane.hasTrace', false);
    }),
  );
}
