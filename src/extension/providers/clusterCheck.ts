import * as vscode from 'vscode';
import type { Diagnostic } from '../../core/model/diagnostics';
import { toDiagnostic } from '../convert';
import { perDocumentDebounce } from '../debounce';
import { isDumpLanguage } from '../dumpLanguages';
import { core } from '../loadCore';
import type { Log } from '../log';
import type { Snapshots } from '../snapshots';

const PICKED_KEY = 'dataplane.clusterState:';
const NODE_KEY = 'dataplane.snapshotNode:';
const DOCS = ['docs', 'cluster-check.md'];

/**
 * The cluster check in Problems: each finding on the dump line (stale rules) or the cluster file's object (what the
 * rules lack), with a link to its explanation; the cluster files' reading problems on their lines. Kept per snapshot
 * folder, updated when a dump or a file of the folder changes, cleared when the folder has no open dump left.
 */
export function register(context: vscode.ExtensionContext, snapshots: Snapshots, log: Log): void {
  const check = new ClusterCheck(context, snapshots, log);
  snapshots.pickedCluster = (folder) => {
    const picked = context.workspaceState.get<string>(PICKED_KEY + folder.toString());
    return picked ? vscode.Uri.parse(picked) : undefined;
  };
  snapshots.pickedNode = (folder) => context.workspaceState.get<string>(NODE_KEY + folder.toString());
  const { schedule, dispose } = perDocumentDebounce(500, (d: vscode.TextDocument) => check.update(d));
  /** Re-checks the open dumps of a folder (a file in it changed, appeared or went), or clears it. */
  const folderChanged = (uri: vscode.Uri) => {
    if (uri.scheme !== 'file' && uri.scheme !== 'vscode-remote') return; // output channels, untitled editors
    const folder = folderOf(uri).toString();
    const dumps = vscode.workspace.textDocuments.filter((d) => isDumpLanguage(d.languageId) && folderOf(d.uri).toString() === folder);
    if (dumps.length > 0) schedule(dumps[0]);
    else check.replace(folder, new Map());
  };
  const watcher = vscode.workspace.createFileSystemWatcher('**/*');
  context.subscriptions.push(
    check,
    watcher,
    watcher.onDidChange(folderChanged),
    watcher.onDidCreate(folderChanged),
    watcher.onDidDelete(folderChanged),
    vscode.workspace.onDidOpenTextDocument((d) => isDumpLanguage(d.languageId) && schedule(d)),
    vscode.workspace.onDidChangeTextDocument((e) => (isDumpLanguage(e.document.languageId) ? schedule(e.document) : e.contentChanges.length > 0 && folderChanged(e.document.uri))),
    vscode.workspace.onDidCloseTextDocument((d) => {
      snapshots.forget(d.uri);
      if (isDumpLanguage(d.languageId)) setTimeout(() => folderChanged(d.uri), 0);
    }),
    { dispose },
    vscode.commands.registerCommand('dataplane.chooseSnapshotNode', () => check.chooseNodeCommand()),
    vscode.commands.registerCommand('dataplane.checkAgainstClusterState', (file?: vscode.Uri | string) => check.checkAgainstCommand(file)),
  );
  // Dumps already open are checked after activation, not during it.
  const initial = setTimeout(() => vscode.workspace.textDocuments.forEach((d) => isDumpLanguage(d.languageId) && schedule(d)), 0);
  context.subscriptions.push({ dispose: () => clearTimeout(initial) });
}

/** The check's diagnostics per snapshot folder, and the node and cluster-file choices it keeps per folder. */
class ClusterCheck implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('dataplane check');
  /** Per snapshot folder: the URIs it set diagnostics on. */
  private readonly byFolder = new Map<string, Set<string>>();
  private readonly docs: DocsLinks;
  /** Folders whose "which node?" question was offered in this session (offered once, then left to the command). */
  private readonly asked = new Set<string>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly snapshots: Snapshots,
    private readonly log: Log,
  ) {
    this.docs = new DocsLinks(vscode.Uri.joinPath(context.extensionUri, ...DOCS));
  }

  dispose(): void {
    this.collection.dispose();
  }

  replace(folder: string, next: Map<string, vscode.Diagnostic[]>): void {
    for (const uri of this.byFolder.get(folder) ?? []) if (!next.has(uri)) this.collection.delete(vscode.Uri.parse(uri));
    for (const [uri, list] of next) this.collection.set(vscode.Uri.parse(uri), list);
    if (next.size > 0) this.byFolder.set(folder, new Set(next.keys()));
    else this.byFolder.delete(folder);
  }

  async update(document: vscode.TextDocument): Promise<void> {
    const folder = folderOf(document.uri).toString();
    if (!isDumpLanguage(document.languageId) || document.isClosed) return;
    const answer = await this.snapshots.query(document, 'clusterDiagnostics').catch((e: Error) => {
      this.log.warn(`cluster check of ${document.uri.fsPath}: ${e.message}`);
      return undefined;
    });
    if (!answer || document.isClosed) return;
    const uriOf = new Map<string, vscode.Uri>();
    for (const uri of [...answer.uris, ...answer.clusterUris]) uriOf.set(uri.fsPath, uri);
    const next = new Map<string, vscode.Diagnostic[]>();
    for (const f of answer.value) {
      const uri = uriOf.get(f.file);
      if (uri) next.set(uri.toString(), await Promise.all(f.diagnostics.map((d) => this.docs.diagnostic(d))));
    }
    this.replace(folder, next);
    if (!this.asked.has(folder)) void this.offerNodeChoice(document, folder);
  }

  /** When the dumps do not show their node and several fit, offers to say which one (once per folder and session). */
  private async offerNodeChoice(document: vscode.TextDocument, folder: string): Promise<void> {
    const node = (await this.snapshots.query(document, 'clusterNode').catch(() => undefined))?.value;
    if (!node || node.name !== undefined || (node.candidates?.length ?? 0) < 2 || this.asked.has(folder)) return;
    this.asked.add(folder);
    const choose = vscode.l10n.t('Choose the Node…');
    const answer = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        'The dumps in {0} do not show which node they come from; {1} nodes fit. Local traffic policies and topology are judged without a node until you choose one.',
        vscode.workspace.asRelativePath(vscode.Uri.parse(folder)),
        node.candidates!.length,
      ),
      choose,
    );
    if (answer === choose) await this.chooseNode(document, node.candidates!);
  }

  /** Asks which node the dumps of `document`'s folder come from, keeps the answer for the folder, re-checks. */
  private async chooseNode(document: vscode.TextDocument, candidates: string[] | undefined): Promise<void> {
    const names = candidates ?? [];
    if (names.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The cluster state of this folder names no nodes to choose from.'));
      return;
    }
    const key = NODE_KEY + folderOf(document.uri).toString();
    const current = this.context.workspaceState.get<string>(key);
    const picked = await vscode.window.showQuickPick(
      names.map((label) => ({ label, description: label === current ? vscode.l10n.t('chosen') : undefined })),
      {
        title: vscode.l10n.t('Which node do these dumps come from?'),
        placeHolder: vscode.l10n.t('A node of the cluster state'),
      },
    );
    if (!picked) return;
    await this.context.workspaceState.update(key, picked.label);
    this.log.info(`cluster check: ${folderOf(document.uri).fsPath} is node ${picked.label}`);
    await this.update(document);
  }

  async chooseNodeCommand(): Promise<void> {
    const dump = dumpForCommand();
    if (!dump) return;
    const node = (await this.snapshots.query(dump, 'clusterNode').catch(() => undefined))?.value;
    if (!node) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No cluster state beside this dump: put one in its folder or use Check Against Cluster State… first.'));
      return;
    }
    // The likely nodes when the dumps narrowed them down, else every node of the cluster state.
    await this.chooseNode(dump, node.candidates?.length ? node.candidates : node.known);
  }

  async checkAgainstCommand(file?: vscode.Uri | string): Promise<void> {
    const dump = dumpForCommand();
    if (!dump) return;
    const picked = typeof file === 'string' ? vscode.Uri.file(file) : (file ?? (await pickClusterFile(dump.uri)));
    if (!picked) return;
    await this.context.workspaceState.update(PICKED_KEY + folderOf(dump.uri).toString(), picked.toString());
    await this.update(dump);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
  }
}

/** The dump a command works on: the active editor's, else any open one; says so when there is none. */
function dumpForCommand(): vscode.TextDocument | undefined {
  const editor = vscode.window.activeTextEditor;
  const dump = editor && isDumpLanguage(editor.document.languageId) ? editor.document : vscode.workspace.textDocuments.find((d) => isDumpLanguage(d.languageId));
  if (!dump) void vscode.window.showInformationMessage(vscode.l10n.t('Open a dump first: the cluster state is checked against the dumps of its folder.'));
  return dump;
}

function folderOf(uri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(uri, '..');
}

async function pickClusterFile(dump: vscode.Uri): Promise<vscode.Uri | undefined> {
  const chosen = await vscode.window.showOpenDialog({
    defaultUri: folderOf(dump),
    canSelectMany: false,
    openLabel: vscode.l10n.t('Check Against This File'),
    title: vscode.l10n.t('The cluster state: kubectl get services,endpointslices -A -o yaml (or -o json)'),
    filters: { [vscode.l10n.t('Kubernetes objects')]: ['yaml', 'yml', 'json'], [vscode.l10n.t('All files')]: ['*'] },
  });
  return chosen?.[0];
}

/** Diagnostics whose code links to the line of docs/cluster-check.md that explains it (read once, when first needed). */
class DocsLinks {
  private text?: Promise<string>;

  constructor(private readonly doc: vscode.Uri) {}

  async diagnostic(d: Diagnostic): Promise<vscode.Diagnostic> {
    const out = toDiagnostic(d);
    out.source = 'dataplane check';
    out.code = { value: d.code, target: this.doc.with({ fragment: `L${await this.lineOf(d.code)}` }) };
    return out;
  }

  private async lineOf(code: string): Promise<number> {
    this.text ??= Promise.resolve(vscode.workspace.fs.readFile(this.doc)).then(
      (b) => new TextDecoder().decode(b),
      () => '',
    );
    return core().docsLineOf(await this.text, code);
  }
}
