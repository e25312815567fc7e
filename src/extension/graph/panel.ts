// The Service graph webview (DESIGN §7): one panel per node snapshot, restored by a serializer.
// Data travels only in typed messages checked on receipt; the HTML is a fixed shell with a nonce'd script.
//
// Following the active editor: when the active editor shows a dump of another snapshot (another folder) that has
// no panel yet, the graph panel that is visible switches to that snapshot (keeping one panel per snapshot);
// a snapshot that already has its own panel keeps it. Edits to the snapshot's dumps redraw the graph.
import * as vscode from 'vscode';
import { createPanelBeside } from '../besideWalkthrough';
import { activeDumpDocument } from '../activeDump';
import type { GraphModel, GraphNode, ServiceGraph, ServiceSelector, ServiceSummary } from '../../core/graph/model';
import { parseFromWebview, parseGraphPanelState, type GraphStrings, type ToWebview } from '../../core/graph/protocol';
import type { GraphLayout } from '../../core/graph/svg';
import type { TraceHighlight } from '../../core/graph/trace';
import type { Entry, Protocol, TraceResult } from '../../core/trace';
import { plainLabel } from '../../core/explain/label';
import { snapshotName } from '../../core/graph/title';
import type { DocumentCache } from '../documentCache';
import { core } from '../loadCore';
import type { Log } from '../log';
import { readSettings } from '../settings';
import type { Snapshots } from '../snapshots';
import { askNodeAddress, offerToSave } from '../trace/nodeAddress';
import { revealBeside, webviewShell } from '../webviewShell';
import { withSlowProgress } from '../slowProgress';

export const GRAPH_VIEW_TYPE = 'dataplane.graph';
/** Beyond this many Services the panel draws the selected ones before it gets the whole list. */
const LIST_AFTER_DRAWING = 2_000;
/** How long that list waits at most for the page to say it painted its first drawing (ms). */
const LIST_WAITS_FOR_PAINT = 3_000;
const DUMP_LANGUAGES = new Set(['iptables', 'nftables', 'ipvsadm']);

function strings(): GraphStrings {
  return {
    filterPlaceholder: vscode.l10n.t('Filter by namespace, name, address, port or chain'),
    filterLabel: vscode.l10n.t('Filter Services'),
    servicesLabel: vscode.l10n.t('Services'),
    copyMermaid: vscode.l10n.t('Copy as Mermaid'),
    noSelection: vscode.l10n.t('Select one or more Services in the list to draw them.'),
    noEndpoints: vscode.l10n.t('no endpoints'),
    endpoints: vscode.l10n.t('endpoints'),
    count: vscode.l10n.t('{0} of {1} Services'),
    graphLabel: vscode.l10n.t('Service graph'),
    saveSvg: vscode.l10n.t('Save as SVG'),
    fit: vscode.l10n.t('Fit'),
    zoomIn: vscode.l10n.t('Zoom in'),
    zoomOut: vscode.l10n.t('Zoom out'),
    namespaceLabel: vscode.l10n.t('Namespace'),
    allNamespaces: vscode.l10n.t('All namespaces'),
    onlyNoEndpoints: vscode.l10n.t('Only Services without endpoints'),
    traceFromHere: vscode.l10n.t('Trace from here'),
    clearTrace: vscode.l10n.t('Clear Trace'),
    traced: vscode.l10n.t('Trace {0}'),
    keys: vscode.l10n.t('Keys: arrows move between nodes, Enter reveals the rule, T traces from a frontend, +/− zoom, 0 resets, F fits; drag or wheel to pan, Ctrl+wheel to zoom.'),
    layoutTime: vscode.l10n.t('{0} nodes laid out in {1} ms'),
  };
}

/** The snapshot a panel shows: every dump in the folder of `document`. */
function snapshotId(uri: vscode.Uri): string {
  return vscode.Uri.joinPath(uri, '..').toString();
}

/** What `dataplane.showGraph` accepts after the URI: a Service key, or a selector (hover links, CodeLenses). */
function parseSelector(v: unknown): ServiceSelector | string | undefined {
  if (typeof v === 'string' && v.length <= 2_000) return v;
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.title !== 'string' || o.title.length > 2_000) return undefined;
  const family = o.family === 'ipv4' || o.family === 'ipv6' ? o.family : undefined;
  const fileIndex = typeof o.fileIndex === 'number' && Number.isInteger(o.fileIndex) ? o.fileIndex : undefined;
  return { title: o.title, family, fileIndex };
}

class GraphPanel {
  private model: GraphModel | undefined;
  /** The keys of every Service of the model (its graphs may be built only when selected). */
  private keys = new Set<string>();
  private uris: vscode.Uri[] = [];
  private selected: string[];
  private trace: TraceResult | undefined;
  private highlight: TraceHighlight | null = null;
  private pending: ServiceSelector | string | undefined;
  private pendingTrace: TraceResult | undefined;
  private pendingUris: readonly vscode.Uri[] | undefined;
  private ready = false;
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** The first drawing's clock on this side (epoch ms), logged with the webview's marks. */
  private clock = new FirstDrawingClock();

  constructor(
    readonly panel: vscode.WebviewPanel,
    private document: vscode.Uri,
    selected: string[],
    private readonly extensionUri: vscode.Uri,
    private readonly cache: DocumentCache,
    private readonly snapshots: Snapshots,
    private readonly log: Log,
    private readonly onDispose: (p: GraphPanel) => void,
  ) {
    this.selected = selected;
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && this.uris.some((u) => u.toString() === e.document.uri.toString())) this.scheduleReload();
      }),
      panel.onDidDispose(() => {
        clearTimeout(this.reloadTimer);
        for (const d of this.disposables) d.dispose();
        this.onDispose(this);
      }),
    );
  }

  get documentUri(): vscode.Uri {
    return this.document;
  }

  /** Whether the model holds only the first drawing's Services (the whole list follows it). */
  private partial = false;

  private postInit(services: ServiceSummary[]): void {
    this.post({ type: 'init', title: this.panel.title, strings: strings(), files: this.uris.map((u) => u.path.slice(u.path.lastIndexOf('/') + 1)), services, selected: this.selected });
    this.clock.mark('initPosted');
  }

  private post(message: ToWebview): void {
    void this.panel.webview.postMessage(message);
  }

  private scheduleReload(): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.load(), 700);
  }

  /** Shows another snapshot in this panel (the panel follows the active editor). */
  retarget(document: vscode.Uri): void {
    this.document = document;
    this.selected = [];
    this.trace = undefined;
    this.highlight = null;
    // The state the serializer restores names the new document.
    this.panel.webview.html = this.html();
    this.ready = false;
    this.clock = new FirstDrawingClock();
  }

  async load(): Promise<void> {
    try {
      const doc = await vscode.workspace.openTextDocument(this.document);
      // Built wherever the snapshot's analyses live (the extension host, or the worker for large dumps).
      const asked = performance.now();
      this.clock.mark('modelAsked');
      // The first drawing's Services only when the list is long: the whole list follows the drawing.
      const wanted = typeof this.pending === 'string' ? [...this.selected, this.pending] : this.selected;
      const selector = typeof this.pending === 'object' ? this.pending : undefined;
      const answer = await withSlowProgress(vscode.l10n.t('Building the Service graph…'), () => this.snapshots.query(doc, 'graphStart', wanted, selector, LIST_AFTER_DRAWING));
      const answered = performance.now();
      this.clock.mark('modelAnswered');
      if (!answer) {
        // Not analysed (yet): changed meanwhile, too large or not a dump. A later edit or reload redraws.
        if (!doc.isClosed && DUMP_LANGUAGES.has(doc.languageId)) this.scheduleReload();
        return;
      }
      const { model, count } = answer.value;
      this.setModel(model);
      this.uris = answer.uris;
      this.selected = this.selected.filter((k) => this.keys.has(k));
      const key = this.pending === undefined ? undefined : typeof this.pending === 'string' ? (this.keys.has(this.pending) ? this.pending : undefined) : core().findService(model, this.pending);
      const later = count > model.services.length;
      this.partial = later;
      // A selector not found in the first drawing's Services is looked for again in the whole list.
      this.pending = later && !key ? this.pending : undefined;
      if (key && !this.selected.includes(key)) this.selected = [key];
      if (this.selected.length === 0 && model.services.length > 0) this.selected = [model.services[0].key];
      this.panel.title = vscode.l10n.t('Service Graph: {0}', snapshotName(this.document.path));
      this.postInit(model.services);
      // The walkthrough's graph step is done once a graph was drawn (package.json completionEvents).
      void vscode.commands.executeCommand('setContext', 'dataplane.graphShown', true);
      if (this.pendingTrace) {
        const result = this.pendingTrace;
        this.pendingTrace = undefined;
        await this.showTrace(result);
      } else {
        await this.drawSelection();
      }
      // After the page painted its first drawing: posted with it, the list held up the drawing's messages.
      if (later) await this.clock.afterPaint(LIST_WAITS_FOR_PAINT);
      if (later && this.model === model) await this.listAll(doc, model);
      this.log.info(`graph: ${count} Services from the ${answer.where}: first drawing's model in ${Math.round(answered - asked)} ms, sent to the panel in ${Math.round(performance.now() - answered)} ms`);
    } catch (e) {
      this.log.error(`graph: ${(e as Error).message}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Cannot draw the Service graph: {0}', plainLabel((e as Error).message)));
    }
  }

  private setModel(model: GraphModel): void {
    this.model = model;
    this.keys = new Set(model.services.map((s) => s.key));
  }

  /** The whole list after the first drawing (its graphs kept), and the Service a Show in Graph asked for meanwhile. */
  private async listAll(doc: vscode.TextDocument, first: GraphModel): Promise<void> {
    const started = performance.now();
    const answer = await this.snapshots.query(doc, 'graph');
    if (!answer || this.model !== first) return;
    for (const [key, graph] of first.graphs) if (!answer.value.graphs.has(key)) answer.value.graphs.set(key, graph);
    this.setModel(answer.value);
    const pending = this.pending;
    this.pending = undefined;
    this.partial = false;
    this.log.info(`graph: the list of ${answer.value.services.length} Services in ${Math.round(performance.now() - started)} ms`);
    const key = pending === undefined ? undefined : typeof pending === 'string' ? (this.keys.has(pending) ? pending : undefined) : core().findService(answer.value, pending);
    if (key) this.selected = [key];
    this.postInit(answer.value.services);
    if (key) await this.drawSelection();
  }

  /** Brings the panel forward, drawing the Service a key or selector names. */
  show(select?: ServiceSelector | string): void {
    if (select !== undefined) {
      const key = !this.model ? undefined : typeof select === 'string' ? (this.keys.has(select) ? select : undefined) : core().findService(this.model, select);
      if (!this.ready || !this.model || this.partial) this.pending = select;
      else if (key) {
        this.selected = [key];
        this.postInit(this.model.services);
        void this.drawSelection();
      } else {
        void vscode.window.showInformationMessage(vscode.l10n.t('This Service is not in the graph of this snapshot.'));
      }
    }
    this.panel.reveal(undefined, false);
  }

  /** Draws the Services a trace reaches and highlights its path. */
  async showTrace(result: TraceResult, uris?: readonly vscode.Uri[]): Promise<void> {
    if (uris) {
      // Steps name files of the trace's snapshot; rewrite them to this panel's files once they are known.
      this.pendingUris = uris;
    }
    if (!this.ready || !this.model) {
      this.pendingTrace = result;
      this.panel.reveal(undefined, false);
      return;
    }
    const trace = this.pendingUris ? remapTrace(result, this.pendingUris, this.uris) : result;
    this.pendingUris = undefined;
    const keep = await this.tracedServices(trace, 20);
    if (!this.model) return;
    if (keep.length > 0) {
      if (keep.join('\n') !== this.selected.join('\n')) {
        this.selected = keep;
        this.postInit(this.model.services);
      }
    } else {
      void vscode.window.showInformationMessage(vscode.l10n.t('The traced connection reaches no Service of this snapshot.'));
    }
    this.trace = trace;
    await this.drawSelection();
    this.panel.reveal(undefined, false);
  }

  /** The first `max` Services the trace reaches (asked of the snapshot when not every graph is built here). */
  private async tracedServices(trace: TraceResult, max: number): Promise<string[]> {
    if (!this.model) return [];
    if (this.model.complete)
      return [...this.model.graphs.values()]
        .filter((g) => core().traceHighlight([g], trace).nodes.length > 0)
        .slice(0, max)
        .map((g) => g.key);
    const answer = await this.snapshots.query(await vscode.workspace.openTextDocument(this.document), 'tracedServices', trace, max);
    return answer?.value.filter((k) => this.keys.has(k)) ?? [];
  }

  /** Builds the graphs of these Services where the model left them out (a very large snapshot). */
  private async ensureGraphs(keys: readonly string[]): Promise<void> {
    const model = this.model;
    const missing = !model || model.complete ? [] : keys.filter((k) => !model.graphs.has(k));
    if (!model || missing.length === 0) return;
    const answer = await this.snapshots.query(await vscode.workspace.openTextDocument(this.document), 'serviceGraphs', missing);
    for (const g of answer?.value ?? []) model.graphs.set(g.key, g);
  }

  /** Draws the selected Services and the trace's highlight on them. */
  private async drawSelection(): Promise<void> {
    await this.ensureGraphs(this.selected);
    this.sendGraphs();
    this.sendHighlight();
  }

  private graphs(keys: string[]): ServiceGraph[] {
    return keys.flatMap((k) => {
      const g = this.model?.graphs.get(k);
      return g ? [g] : [];
    });
  }

  private sendGraphs(): void {
    this.post({ type: 'graph', graphs: this.graphs(this.selected) });
    this.clock.mark('graphPosted');
  }

  private sendHighlight(): void {
    this.highlight = this.trace ? core().traceHighlight(this.graphs(this.selected), this.trace) : null;
    this.post({ type: 'highlight', highlight: this.highlight });
  }

  private node(nodeId: string): GraphNode | undefined {
    // The key is everything before the last '#'; the node is looked up, never trusted from the webview.
    const key = nodeId.slice(0, Math.max(0, nodeId.lastIndexOf('#')));
    return this.model?.graphs.get(key)?.nodes.find((n) => n.id === nodeId);
  }

  private async receive(raw: unknown): Promise<void> {
    const message = parseFromWebview(raw);
    if (!message) {
      this.log.warn('graph: ignored a malformed message from the webview');
      return;
    }
    switch (message.type) {
      case 'ready':
        this.clock.mark('readyReceived');
        this.ready = true;
        await this.load();
        return;
      case 'timing':
        this.clock.painted();
        this.log.info(`graph: first drawing, ms after the panel was created: ${this.clock.report(message.timeOrigin, message.marks)}`);
        return;
      case 'select':
        this.selected = message.keys.filter((k) => this.keys.has(k));
        await this.drawSelection();
        return;
      case 'copyMermaid': {
        const keys = message.keys.length > 0 ? message.keys : this.selected;
        await this.ensureGraphs(keys);
        const graphs = this.graphs(keys);
        await vscode.env.clipboard.writeText(core().toMermaid(graphs));
        void vscode.window.showInformationMessage(vscode.l10n.t('Copied the graph of {0} Services as Mermaid.', graphs.length));
        return;
      }
      case 'reveal':
        await this.reveal(message.nodeId);
        return;
      case 'hover':
        await this.hover(message.nodeId);
        return;
      case 'trace':
        await this.traceFrom(message.nodeId);
        return;
      case 'clearTrace':
        this.trace = undefined;
        this.sendHighlight();
        return;
      case 'saveSvg':
        await this.saveSvg(message.layout);
        return;
    }
  }

  /** The editor hover of the node's rule or element, computed by the core (Markdown with escaped dump text). */
  private async hover(nodeId: string): Promise<void> {
    const node = this.node(nodeId);
    if (!node) return;
    const uri = node.source ? this.uris[node.source.fileIndex] : undefined;
    let markdown: string | undefined;
    if (uri && node.source) {
      try {
        const doc = await vscode.workspace.openTextDocument(uri);
        const analysis = await this.cache.get(doc);
        const at = node.source.range.start;
        const line = at.line < doc.lineCount ? doc.lineAt(at.line).text : '';
        // Where the editor hover says most: on an iptables rule, the jump target of a frontend rule (its Service)
        // or the rule's own chain (an endpoint and its share); elsewhere the name the range starts with.
        const positions: number[] = [];
        if (line.startsWith('-A ') || line.startsWith('-I ')) {
          const jump = / -[jg] (\S+)/.exec(line);
          if (node.kind === 'frontend' && jump) positions.push(jump.index + 4);
          positions.push(3);
        }
        positions.push(at.character + 1, at.character);
        for (const character of positions) {
          markdown = (await analysis?.query('hoverAt', { line: at.line, character }))?.markdown;
          if (markdown) break;
        }
      } catch (e) {
        this.log.warn(`graph: hover failed: ${(e as Error).message}`);
      }
    }
    // Plain text: the webview renders this with text nodes only.
    markdown ??= [node.label, node.detail, ...node.badges].filter(Boolean).join('\n\n');
    // The cluster state's word on the node, with its reason, after what the rules say.
    if (node.mark) markdown = `${markdown}\n\n**${escapeMarkdown(node.mark.label)}**: ${escapeMarkdown(node.mark.reason)}`;
    this.post({ type: 'hover', nodeId, markdown });
  }

  private async traceFrom(nodeId: string): Promise<void> {
    const node = this.node(nodeId);
    const target = node?.target;
    if (!node || !target) return;
    let nodeIPs = readSettings().nodeIPs;
    let nodeIPsOrigin: 'given' | 'configured' = 'configured';
    let address = target.address;
    if (address === undefined) {
      if (nodeIPs.length === 0) {
        // Typed for this trace: the node's address as given, not one the trace then calls a guess.
        nodeIPs = (await askNodeAddress(vscode.l10n.t('Trace NodePort'), '192.168.0.10')) ?? [];
        nodeIPsOrigin = 'given';
        offerToSave(nodeIPs);
      }
      address = nodeIPs[0];
      if (!address) return;
    }
    const entry: Entry = target.frontend === 'clusterIP' ? 'pod' : 'external';
    const protocol = (['tcp', 'udp', 'sctp'].includes(target.protocol) ? target.protocol : 'tcp') as Protocol;
    const document = await vscode.workspace.openTextDocument(this.document);
    const title = vscode.l10n.t('Tracing {0}…', `${protocol} ${core().hostPort(address, target.port)}`);
    const answer = await withSlowProgress(title, () => this.snapshots.query(document, 'trace', { to: address, dport: target.port, protocol, entry, nodeIPs, nodeIPsOrigin }));
    if (!answer) return;
    const result = remapTrace(answer.value, answer.uris, this.uris);
    this.log.info(`graph: trace ${protocol} ${core().hostPort(address, target.port)} from ${entry}: ${result.outcomes.length} outcomes`);
    if (result.outcomes.length === 0) void vscode.window.showInformationMessage(vscode.l10n.t('The trace found no path for this frontend.'));
    this.trace = result;
    this.sendHighlight();
  }

  private async saveSvg(layout: GraphLayout): Promise<void> {
    const graphs = this.graphs(this.selected);
    if (graphs.length === 0) return;
    const name = graphs.length === 1 ? graphs[0].title.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) : 'service-graph';
    const folder = vscode.Uri.joinPath(this.document, '..');
    const uri = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.joinPath(folder, `${name}.svg`), filters: { SVG: ['svg'] }, title: vscode.l10n.t('Save as SVG') });
    if (!uri) return;
    const text = core().toSvg(graphs, layout, this.highlight ?? undefined);
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    this.log.info(`graph: saved ${uri.toString()} (${text.length} characters)`);
    void vscode.window.showInformationMessage(vscode.l10n.t('Saved the Service graph to {0}.', plainLabel(vscode.workspace.asRelativePath(uri))));
  }

  private async reveal(nodeId: string): Promise<void> {
    const node = this.node(nodeId);
    const uri = node?.source ? this.uris[node.source.fileIndex] : undefined;
    if (!node?.source || !uri) return;
    const r = node.source.range;
    await revealBeside(this.panel, uri, new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character));
  }

  private html(): string {
    return webviewShell({
      webview: this.panel.webview,
      extensionUri: this.extensionUri,
      script: 'webview.js',
      style: 'webview.css',
      state: { document: this.document.toString(), selected: this.selected },
      root: 'div',
      images: true,
      later: { elk: 'elk.js' },
    });
  }

  /** Restores the panel's state in the webview after a reload (the serializer reuses the panel). */
  static revive(panel: vscode.WebviewPanel, state: unknown, extensionUri: vscode.Uri, cache: DocumentCache, snapshots: Snapshots, log: Log, onDispose: (p: GraphPanel) => void): GraphPanel | undefined {
    const parsed = parseGraphPanelState(state);
    if (!parsed) {
      panel.dispose();
      return undefined;
    }
    return new GraphPanel(panel, vscode.Uri.parse(parsed.document), parsed.selected, extensionUri, cache, snapshots, log, onDispose);
  }
}

/** Marks of the extension's side of a panel's first drawing, reported with the webview's marks in one time line. */
class FirstDrawingClock {
  private readonly created = Date.now();
  private readonly marks: Record<string, number> = {};
  private resolvePaint = () => {};
  private readonly paint = new Promise<void>((resolve) => (this.resolvePaint = resolve));
  /** The page painted its first drawing (its timing message came). */
  painted(): void {
    this.resolvePaint();
  }
  /** Resolves once the page painted its first drawing, or after `ms`. */
  afterPaint(ms: number): Promise<void> {
    return Promise.race([this.paint, new Promise<void>((resolve) => setTimeout(resolve, ms))]);
  }
  mark(name: string): void {
    this.marks[name] ??= Date.now() - this.created;
  }
  /** Both sides' marks, in order: `name +ms` each, the webview's relative to its timeOrigin (the same clock). */
  report(timeOrigin: number, webview: Record<string, number>): string {
    const page = timeOrigin - this.created;
    const all = [['pageStart', page], ...Object.entries(this.marks), ...Object.entries(webview).map(([k, v]) => [k, page + v] as const)] as [string, number][];
    return all
      .sort((a, b) => a[1] - b[1])
      .map(([k, v]) => `${k} +${Math.round(v)}`)
      .join(', ');
  }
}

/** A trace's file indexes (into `from`) rewritten to the panel's files (`to`); steps in other files are dropped. */
function remapTrace(result: TraceResult, from: readonly vscode.Uri[], to: readonly vscode.Uri[]): TraceResult {
  const index = from.map((u) => to.findIndex((v) => v.toString() === u.toString()));
  return {
    ...result,
    outcomes: result.outcomes.map((o) => ({ ...o, path: o.path.filter((s) => (index[s.fileIndex] ?? -1) >= 0).map((s) => ({ ...s, fileIndex: index[s.fileIndex] })) })),
  };
}

export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots, log: Log): void {
  const panels = new Map<string, GraphPanel>();
  let lastActive: GraphPanel | undefined;
  const watched = new WeakSet<GraphPanel>();
  const track = (p: GraphPanel) => {
    panels.set(snapshotId(p.documentUri), p);
    lastActive = p;
    if (watched.has(p)) return;
    watched.add(p);
    const listener = p.panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) lastActive = p;
    });
    context.subscriptions.push(
      listener,
      p.panel.onDidDispose(() => listener.dispose()),
    );
  };
  const forget = (p: GraphPanel) => {
    for (const [id, q] of panels) if (q === p) panels.delete(id);
    if (lastActive === p) lastActive = [...panels.values()].at(-1);
  };
  const open = (document: vscode.Uri): GraphPanel => {
    const existing = panels.get(snapshotId(document));
    if (existing) return existing;
    const panel = createPanelBeside(GRAPH_VIEW_TYPE, vscode.l10n.t('Service Graph'), context.extensionUri);
    const p = new GraphPanel(panel, document, [], context.extensionUri, cache, snapshots, log, forget);
    track(p);
    return p;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('dataplane.showGraph', async (uri?: unknown, select?: unknown) => {
      const document = uri instanceof vscode.Uri ? uri : activeDumpDocument()?.uri;
      if (!document) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Open a dump file to show its Service graph.'));
        return;
      }
      open(document).show(parseSelector(select));
    }),
    // The trace view's "Show in Graph": the URIs and result of the trace it shows.
    vscode.commands.registerCommand('dataplane.graph.showTrace', async (uris?: unknown, result?: TraceResult) => {
      if (!Array.isArray(uris) || !(uris[0] instanceof vscode.Uri) || !result || !Array.isArray(result.outcomes)) return;
      void open(uris[0]).showTrace(result, uris as vscode.Uri[]);
    }),
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      const doc = editor?.document;
      if (!doc || !DUMP_LANGUAGES.has(doc.languageId) || panels.has(snapshotId(doc.uri))) return;
      const follower = lastActive && lastActive.panel.visible ? lastActive : undefined;
      if (!follower) return;
      forget(follower);
      follower.retarget(doc.uri);
      track(follower);
      log.info(`graph: the panel follows the active editor to ${snapshotId(doc.uri)}`);
    }),
    vscode.window.registerWebviewPanelSerializer(GRAPH_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        const parsed = parseGraphPanelState(state);
        if (parsed && panels.has(snapshotId(vscode.Uri.parse(parsed.document)))) {
          // Two restored panels of one snapshot: keep the first.
          panel.dispose();
          return;
        }
        const revived = GraphPanel.revive(panel, state, context.extensionUri, cache, snapshots, log, forget);
        if (revived) track(revived);
      },
    }),
  );
}

/** API text in the hover's Markdown: every punctuation the webview's renderer reads is escaped. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]()<>#!|~]/g, '\\$&');
}
