// The Service graph webview (issue 7, DESIGN §7): one panel per node snapshot, restored by a serializer.
// Data travels only in typed messages checked on receipt; the HTML is a fixed shell with a nonce'd script.
import * as vscode from 'vscode';
import { graphOfSnapshot } from '../../core/graph/snapshot';
import { toMermaid, type GraphModel, type ServiceGraph } from '../../core/graph/model';
import { parseFromWebview, parseGraphPanelState, type GraphStrings, type ToWebview } from '../../core/graph/protocol';
import type { Log } from '../log';
import type { Snapshots } from '../snapshots';

export const GRAPH_VIEW_TYPE = 'dataplane.graph';

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
  };
}

function nonce(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

/** The snapshot a panel shows: every dump in the folder of `document`. */
function snapshotId(uri: vscode.Uri): string {
  return vscode.Uri.joinPath(uri, '..').toString();
}

class GraphPanel {
  private model: GraphModel | undefined;
  private uris: vscode.Uri[] = [];
  private selected: string[];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    private document: vscode.Uri,
    selected: string[],
    private readonly extensionUri: vscode.Uri,
    private readonly snapshots: Snapshots,
    private readonly log: Log,
    onDispose: () => void,
  ) {
    this.selected = selected;
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      panel.onDidDispose(() => {
        for (const d of this.disposables) d.dispose();
        onDispose();
      }),
    );
  }

  private post(message: ToWebview): void {
    void this.panel.webview.postMessage(message);
  }

  async load(): Promise<void> {
    try {
      const doc = await vscode.workspace.openTextDocument(this.document);
      const loaded = await this.snapshots.forDocument(doc);
      this.model = graphOfSnapshot(loaded.snapshot);
      this.uris = loaded.uris;
      this.selected = this.selected.filter((k) => this.model!.graphs.has(k));
      if (this.selected.length === 0 && this.model.services.length > 0) this.selected = [this.model.services[0].key];
      const folder = vscode.workspace.asRelativePath(vscode.Uri.joinPath(this.document, '..'));
      this.panel.title = vscode.l10n.t('Service Graph: {0}', folder);
      this.post({ type: 'init', title: this.panel.title, strings: strings(), files: this.uris.map((u) => u.path.slice(u.path.lastIndexOf('/') + 1)), services: this.model.services, selected: this.selected });
      this.sendGraphs();
    } catch (e) {
      this.log.error(`graph: ${(e as Error).message}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Cannot draw the Service graph: {0}', (e as Error).message));
    }
  }

  show(selectKey?: string): void {
    if (selectKey && this.model?.graphs.has(selectKey) && !this.selected.includes(selectKey)) {
      this.selected = [...this.selected, selectKey];
      this.sendGraphs();
    }
    this.panel.reveal();
  }

  private graphs(keys: string[]): ServiceGraph[] {
    return keys.flatMap((k) => {
      const g = this.model?.graphs.get(k);
      return g ? [g] : [];
    });
  }

  private sendGraphs(): void {
    this.post({ type: 'graph', graphs: this.graphs(this.selected) });
  }

  private async receive(raw: unknown): Promise<void> {
    const message = parseFromWebview(raw);
    if (!message) {
      this.log.warn('graph: ignored a malformed message from the webview');
      return;
    }
    switch (message.type) {
      case 'ready':
        await this.load();
        return;
      case 'select':
        this.selected = message.keys.filter((k) => this.model?.graphs.has(k));
        this.sendGraphs();
        return;
      case 'copyMermaid': {
        const graphs = this.graphs(message.keys.length > 0 ? message.keys : this.selected);
        await vscode.env.clipboard.writeText(toMermaid(graphs));
        void vscode.window.showInformationMessage(vscode.l10n.t('Copied the graph of {0} Services as Mermaid.', graphs.length));
        return;
      }
      case 'reveal':
        await this.reveal(message.nodeId);
        return;
    }
  }

  private async reveal(nodeId: string): Promise<void> {
    // The key is everything before the last '#'; the node is looked up, never trusted from the webview.
    const key = nodeId.slice(0, Math.max(0, nodeId.lastIndexOf('#')));
    const node = this.model?.graphs.get(key)?.nodes.find((n) => n.id === nodeId);
    const uri = node?.source ? this.uris[node.source.fileIndex] : undefined;
    if (!node?.source || !uri) return;
    const r = node.source.range;
    const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
    const existing = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    await vscode.window.showTextDocument(uri, {
      selection: range,
      viewColumn: existing?.viewColumn ?? (this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One),
      preserveFocus: false,
    });
  }

  private html(): string {
    const webview = this.panel.webview;
    const n = nonce();
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css'));
    const state = JSON.stringify({ document: this.document.toString(), selected: this.selected });
    // Only our own URIs, the nonce and a JSON state in a data attribute (HTML-escaped) go into the shell.
    const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    return `<!DOCTYPE html>
<html lang="${attr(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; img-src ${webview.cspSource}; font-src ${webview.cspSource}; script-src 'nonce-${n}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(style.toString())}">
</head>
<body data-state="${attr(state)}">
<div id="app"></div>
<script nonce="${n}" src="${attr(script.toString())}"></script>
</body>
</html>`;
  }

  /** Restores the panel's state in the webview after a reload (the serializer reuses the panel). */
  static revive(
    panel: vscode.WebviewPanel,
    state: unknown,
    extensionUri: vscode.Uri,
    snapshots: Snapshots,
    log: Log,
    onDispose: () => void,
  ): GraphPanel | undefined {
    const parsed = parseGraphPanelState(state);
    if (!parsed) {
      panel.dispose();
      return undefined;
    }
    return new GraphPanel(panel, vscode.Uri.parse(parsed.document), parsed.selected, extensionUri, snapshots, log, onDispose);
  }

  get documentUri(): vscode.Uri {
    return this.document;
  }
}

export function register(context: vscode.ExtensionContext, snapshots: Snapshots, log: Log): void {
  const panels = new Map<string, GraphPanel>();
  const track = (p: GraphPanel) => {
    const id = snapshotId(p.documentUri);
    panels.set(id, p);
  };
  const forget = (uri: vscode.Uri) => () => panels.delete(snapshotId(uri));
  context.subscriptions.push(
    vscode.commands.registerCommand('dataplane.showGraph', async (uri?: vscode.Uri, selectKey?: string) => {
      const document = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      if (!document) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Open a dump file to show its Service graph.'));
        return;
      }
      const existing = panels.get(snapshotId(document));
      if (existing) {
        existing.show(typeof selectKey === 'string' ? selectKey : undefined);
        return;
      }
      const panel = vscode.window.createWebviewPanel(GRAPH_VIEW_TYPE, vscode.l10n.t('Service Graph'), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
        enableScripts: true,
        retainContextWhenHidden: false,
        localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist')],
      });
      track(new GraphPanel(panel, document, typeof selectKey === 'string' ? [selectKey] : [], context.extensionUri, snapshots, log, forget(document)));
    }),
    vscode.window.registerWebviewPanelSerializer(GRAPH_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        const parsed = parseGraphPanelState(state);
        const revived = GraphPanel.revive(panel, state, context.extensionUri, snapshots, log, parsed ? forget(vscode.Uri.parse(parsed.document)) : () => undefined);
        if (revived) track(revived);
      },
    }),
  );
}
