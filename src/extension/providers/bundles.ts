// "Open Support Bundle…": a folder or an archive (sosreport, Rancher logs collector, cilium sysdump, antctl
// supportbundle, Retina capture, a folder of dumps) becomes one node snapshot folder per node, shown in the
// Explorer. The dumps are copies on disk (file: URIs), so every snapshot feature reads them as it reads any folder
// of dumps; they open read-only for the session (and are read-only on disk). Each bundle's copies are removed when
// it is closed or the window closes, and a crashed window's on the next activation.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import * as vscode from 'vscode';
import { BundleTree, OPEN_DUMP_COMMAND, type BundleTreeItem, type OpenBundle } from '../bundles/tree';
import { core } from '../loadCore';
import type { Log } from '../log';

const VIEW = 'dataplane.bundles';
const ARCHIVES = ['tar', 'gz', 'tgz', 'xz', 'txz', 'zip'];

export function register(context: vscode.ExtensionContext, log: Log): void {
  // The storage may be missing (a test host) or not on disk (a web host): then the system's temporary folder.
  const parent = context.globalStorageUri?.scheme === 'file' ? join(context.globalStorageUri.fsPath, 'bundles') : join(tmpdir(), 'dataplane-explorer-bundles');
  const tree = new BundleTree();
  const setContext = () => vscode.commands.executeCommand('setContext', 'dataplane.hasBundles', tree.bundles.length > 0);
  const close = (bundle: OpenBundle) => {
    tree.remove(bundle);
    void closeEditorsUnder(bundle.snapshots.folder);
    core().removeBundleSnapshots(bundle.snapshots.folder);
    setContext().then(undefined, () => undefined);
  };
  context.subscriptions.push(
    // The window closes: the copies go (its editors go with the window).
    { dispose: () => tree.bundles.forEach((b) => core().removeBundleSnapshots(b.snapshots.folder)) },
    tree,
    vscode.window.registerTreeDataProvider(VIEW, tree),
    vscode.commands.registerCommand('dataplane.openSupportBundle', async (uri?: vscode.Uri) => {
      const source = uri instanceof vscode.Uri ? uri : await pickBundle();
      if (!source) return;
      const bundle = await openBundle(source, parent, log);
      if (!bundle) return;
      tree.add(bundle);
      await setContext();
      await vscode.commands.executeCommand(`${VIEW}.focus`).then(undefined, (e: Error) => log.warn(`cannot show the support bundles view: ${e.message}`));
    }),
    vscode.commands.registerCommand('dataplane.closeSupportBundle', (item?: BundleTreeItem) => {
      for (const bundle of item?.kind === 'bundle' ? [item.bundle] : [...tree.bundles]) close(bundle);
    }),
    vscode.commands.registerCommand(OPEN_DUMP_COMMAND, (file: string) => openReadOnly(file)),
    vscode.commands.registerCommand('dataplane.explainBundleNode', async (item?: BundleTreeItem) => {
      if (item?.kind !== 'node' || item.node.dumps.length === 0) return;
      await openReadOnly(item.node.dumps[0].file);
      await vscode.commands.executeCommand('dataplane.explainNode');
    }),
  );
  // Left by a window that crashed: only looked for when some bundle was ever opened (activation stays light).
  if (existsSync(parent)) setTimeout(() => removeStale(parent, log), 2000).unref?.();
}

function removeStale(parent: string, log: Log): void {
  try {
    const removed = core().removeStaleBundleSnapshots(parent);
    if (removed.length) log.info(`removed ${removed.length} support bundle copies left by closed windows`);
  } catch (e) {
    log.warn(`cannot remove old support bundle copies: ${(e as Error).message}`);
  }
}

/** An archive or a folder: the open dialog cannot offer both at once on every platform. */
async function pickBundle(): Promise<vscode.Uri | undefined> {
  const archive = { label: vscode.l10n.t('An archive…'), detail: '.tar, .tar.gz, .tgz, .tar.xz, .zip', folders: false };
  const folder = { label: vscode.l10n.t('A folder…'), detail: vscode.l10n.t('an unpacked bundle, or any folder of dumps'), folders: true };
  const kind = await vscode.window.showQuickPick([archive, folder], { title: vscode.l10n.t('Open Support Bundle'), placeHolder: vscode.l10n.t('What was sent to you?') });
  if (!kind) return undefined;
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: !kind.folders,
    canSelectFolders: kind.folders,
    canSelectMany: false,
    openLabel: vscode.l10n.t('Open Support Bundle'),
    filters: kind.folders ? undefined : { [vscode.l10n.t('Support bundles')]: ARCHIVES },
  });
  return picked?.[0];
}

async function openBundle(source: vscode.Uri, parent: string, log: Log): Promise<OpenBundle | undefined> {
  const name = source.path.split('/').filter(Boolean).pop() ?? source.fsPath;
  if (source.scheme !== 'file') {
    void vscode.window.showErrorMessage(vscode.l10n.t('Cannot open the support bundle {0}: only files on this machine can be opened', name));
    return undefined;
  }
  try {
    const title = vscode.l10n.t('Opening the support bundle {0}…', name);
    const snapshots = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, () => core().openBundleSnapshots(source.fsPath, parent));
    log.info(`support bundle ${source.fsPath}: ${snapshots.nodes.map((n) => `${n.name} (${n.dumps.length} dumps)`).join(', ') || 'no dumps'}; ${snapshots.skipped.length} entries left out`);
    if (snapshots.nodes.length === 0) {
      core().removeBundleSnapshots(snapshots.folder);
      void vscode.window.showWarningMessage(vscode.l10n.t('No iptables, nft, ipvsadm or ipset dump found in the support bundle {0}.', name));
      return undefined;
    }
    return { source, snapshots };
  } catch (e) {
    if (!core().isBundleError(e)) log.error(`support bundle ${source.fsPath}: ${(e as Error).stack ?? e}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Cannot open the support bundle {0}: {1}', name, (e as Error).message));
    return undefined;
  }
}

/** Closes the tabs of a bundle's copies before they are removed (an editor of a deleted file helps no one). */
async function closeEditorsUnder(folder: string): Promise<void> {
  try {
    const inside = (tab: vscode.Tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === 'file' && tab.input.uri.fsPath.startsWith(folder + sep);
    await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs.filter(inside)));
  } catch {
    // The window is closing: its tabs go with it.
  }
}

/** Opens a bundle's dump: a copy, read-only in the editor for the session (its file is read-only too). */
async function openReadOnly(file: string): Promise<void> {
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
  await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
}
