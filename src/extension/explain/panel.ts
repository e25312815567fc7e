// "Dataplane Explorer: Explain This Node": one webview panel that explains the node snapshot of a
// dump (its folder). The content comes from core/explain/node; the HTML is a fixed shell with a nonce'd
// script, the data travels in checked messages, evidence links reveal their lines in the right file.
import * as vscode from 'vscode';
import { createPanelBeside } from '../besideWalkthrough';
import type { NodeExplanation } from '../../core/explain/node';
import { parseExplainPanelState, parseFromWebview, toView, type ExplainStrings, type ToWebview } from '../../core/explain/node-protocol';
import { toRange } from '../convert';
import type { Log } from '../log';
import type { Snapshots } from '../snapshots';
import { revealBeside, webviewShell } from '../webviewShell';

export const EXPLAIN_VIEW_TYPE = 'dataplane.explain';
const DUMP_LANGUAGES = new Set(['iptables', 'nftables', 'ipvsadm', 'ipset']);

function strings(): ExplainStrings {
  return {
    refresh: vscode.l10n.t('Refresh'),
    files: vscode.l10n.t('Files:'),
    reveal: vscode.l10n.t('Open {0} at line {1}'),
    pro: vscode.l10n.t('Good:'),
    con: vscode.l10n.t('Bad:'),
    warning: vscode.l10n.t('Note:'),
  };
}

class ExplainPanel {
  private explanation: NodeExplanation | undefined;
  private uris: vscode.Uri[] = [];
  private clusterUris: vscode.Uri[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    private document: vscode.Uri,
    private readonly extensionUri: vscode.Uri,
    private readonly snapshots: Snapshots,
    private readonly log: Log,
    onDispose: () => void,
  ) {
    panel.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')] };
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      panel.onDidDispose(() => {
        for (const d of this.disposables) d.dispose();
        onDispose();
      }),
    );
  }

  /** Shows another dump's snapshot in this panel. */
  show(document: vscode.Uri): void {
    const changed = document.toString() !== this.document.toString();
    this.document = document;
    // The shell carries the document for the serializer: rebuild it when the document changes.
    if (changed) this.panel.webview.html = this.html();
    else void this.load();
    this.panel.reveal(undefined, false);
  }

  private post(message: ToWebview): void {
    void this.panel.webview.postMessage(message);
  }

  private async load(): Promise<void> {
    try {
      const doc = await vscode.workspace.openTextDocument(this.document);
      // Asked where the analyses live: the files beside the dump are read in the worker, never here.
      const answer = await this.snapshots.query(doc, 'explain');
      if (!answer) throw new Error(vscode.l10n.t('the dump is not analysed (too large, or changed meanwhile)'));
      this.explanation = answer.value;
      this.uris = answer.uris;
      // The cluster-state files' URIs, where the snapshot query gives them (parallel to the cluster state's files).
      this.clusterUris = (answer as { clusterUris?: vscode.Uri[] }).clusterUris ?? [];
      this.panel.title = vscode.l10n.t('Explain: {0}', folderLabel(this.document));
      this.post({ type: 'explain', title: this.panel.title, strings: strings(), view: toView(this.explanation) });
      // The walkthrough's backend step is done once a node was explained (package.json completionEvents).
      void vscode.commands.executeCommand('setContext', 'dataplane.nodeExplained', true);
      this.log.info(`explain: ${this.document.fsPath}: ${this.explanation.mode} (${this.explanation.evidence.length} evidence lines)`);
    } catch (e) {
      this.log.error(`explain: ${(e as Error).message}`);
      this.post({ type: 'error', message: vscode.l10n.t('Cannot explain this node: {0}', (e as Error).message) });
    }
  }

  private async receive(raw: unknown): Promise<void> {
    const message = parseFromWebview(raw);
    if (!message) {
      this.log.warn('explain: ignored a malformed message from the webview');
      return;
    }
    if (message.type === 'ready' || message.type === 'refresh') await this.load();
    else await this.reveal(message.evidence);
  }

  private async reveal(id: number): Promise<void> {
    const evidence = this.explanation?.evidence[id];
    const uri = evidence?.path !== undefined ? ((evidence.clusterFile !== undefined ? this.clusterUris[evidence.clusterFile] : undefined) ?? fileUri(evidence.path)) : evidence ? this.uris[evidence.fileIndex] : undefined;
    if (!evidence || !uri) return;
    await revealBeside(this.panel, uri, toRange(evidence.range));
  }

  private html(): string {
    return webviewShell({
      webview: this.panel.webview,
      extensionUri: this.extensionUri,
      script: 'explain.js',
      style: 'explain.css',
      state: { document: this.document.toString() },
      root: 'main',
    });
  }
}

/** The snapshot's folder as the title names it: workspace-relative, else its last two path segments. */
function folderLabel(document: vscode.Uri): string {
  const folder = vscode.Uri.joinPath(document, '..');
  const relative = vscode.workspace.asRelativePath(folder, false);
  return relative !== folder.fsPath ? relative : folder.path.split('/').filter(Boolean).slice(-2).join('/');
}

/** The dump to explain: an explicit URI, the active dump editor, or the first visible one. */
function dumpDocument(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  const active = vscode.window.activeTextEditor?.document;
  if (active && DUMP_LANGUAGES.has(active.languageId)) return active.uri;
  return vscode.window.visibleTextEditors.find((e) => DUMP_LANGUAGES.has(e.document.languageId))?.document.uri;
}

export function register(context: vscode.ExtensionContext, snapshots: Snapshots, log: Log): void {
  let current: ExplainPanel | undefined;
  const create = (panel: vscode.WebviewPanel, document: vscode.Uri) => {
    const p = new ExplainPanel(panel, document, context.extensionUri, snapshots, log, () => {
      if (current === p) current = undefined;
    });
    current = p;
    return p;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('dataplane.explainNode', async (arg?: unknown) => {
      // A sample id (the walkthrough's button): open that sample, then explain it.
      if (typeof arg === 'string' && /^[a-z-]{1,32}$/.test(arg)) await vscode.commands.executeCommand('dataplane.openSamples', arg);
      const document = dumpDocument(arg);
      if (!document) {
        const open = vscode.l10n.t('Open Sample Dumps');
        const pick = await vscode.window.showInformationMessage(vscode.l10n.t('Open a dump (iptables-save, nft list ruleset, ipvsadm or ipset) to explain its node.'), open);
        if (pick === open) await vscode.commands.executeCommand('dataplane.openSamples');
        return;
      }
      if (current) {
        current.show(document);
        return;
      }
      const panel = createPanelBeside(EXPLAIN_VIEW_TYPE, vscode.l10n.t('Explain This Node'), context.extensionUri);
      create(panel, document);
    }),
    vscode.window.registerWebviewPanelSerializer(EXPLAIN_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        const parsed = parseExplainPanelState(state);
        if (!parsed) {
          panel.dispose();
          return;
        }
        create(panel, vscode.Uri.parse(parsed.document));
      },
    }),
    { dispose: () => current?.panel.dispose() },
  );
}

/** A cluster-state file as the snapshot names it: a URI string, or a path. */
function fileUri(path: string): vscode.Uri {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? vscode.Uri.parse(path) : vscode.Uri.file(path);
}
