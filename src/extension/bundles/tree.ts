// The Explorer's "Support Bundles" view: each open bundle, its nodes, and each node's dumps (read-only copies).
import * as vscode from 'vscode';
import type { BundleSnapshots, SnapshotDump, SnapshotNode } from '../../bundle/snapshots';

export interface OpenBundle {
  /** The file or folder the user opened. */
  source: vscode.Uri;
  snapshots: BundleSnapshots;
}

export type BundleTreeItem = { kind: 'bundle'; bundle: OpenBundle } | { kind: 'node'; bundle: OpenBundle; node: SnapshotNode } | { kind: 'dump'; node: SnapshotNode; dump: SnapshotDump };

/** The command a dump row runs: opens the copy read-only. */
export const OPEN_DUMP_COMMAND = 'dataplane.openBundleDump';

export class BundleTree implements vscode.TreeDataProvider<BundleTreeItem> {
  private readonly changed = new vscode.EventEmitter<BundleTreeItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly bundles: OpenBundle[] = [];

  add(bundle: OpenBundle): void {
    this.bundles.push(bundle);
    this.changed.fire(undefined);
  }

  remove(bundle: OpenBundle): void {
    const i = this.bundles.indexOf(bundle);
    if (i >= 0) this.bundles.splice(i, 1);
    this.changed.fire(undefined);
  }

  getChildren(item?: BundleTreeItem): BundleTreeItem[] {
    if (!item) return this.bundles.map((bundle) => ({ kind: 'bundle', bundle }));
    if (item.kind === 'bundle') return item.bundle.snapshots.nodes.map((node) => ({ kind: 'node', bundle: item.bundle, node }));
    if (item.kind === 'node') return item.node.dumps.map((dump) => ({ kind: 'dump', node: item.node, dump }));
    return [];
  }

  getTreeItem(item: BundleTreeItem): vscode.TreeItem {
    if (item.kind === 'bundle') return bundleRow(item.bundle);
    if (item.kind === 'node') return nodeRow(item.node);
    const row = new vscode.TreeItem(vscode.Uri.file(item.dump.file), vscode.TreeItemCollapsibleState.None);
    row.description = item.dump.source;
    row.tooltip = vscode.l10n.t('{0} in the bundle (a read-only copy)', item.dump.source);
    row.contextValue = 'bundleDump';
    row.command = { command: OPEN_DUMP_COMMAND, title: vscode.l10n.t('Open'), arguments: [item.dump.file] };
    return row;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function bundleRow(bundle: OpenBundle): vscode.TreeItem {
  const name = bundle.source.path.split('/').filter(Boolean).pop() ?? bundle.source.fsPath;
  const row = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.Expanded);
  const count = bundle.snapshots.nodes.length;
  row.description = count === 1 ? vscode.l10n.t('1 node') : vscode.l10n.t('{0} nodes', count);
  const skipped = bundle.snapshots.skipped.length;
  row.tooltip = skipped ? vscode.l10n.t('{0}; {1} entries left out (links, special files)', bundle.source.fsPath, skipped) : bundle.source.fsPath;
  row.iconPath = new vscode.ThemeIcon('package');
  row.contextValue = 'bundle';
  return row;
}

function nodeRow(node: SnapshotNode): vscode.TreeItem {
  const row = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Expanded);
  row.description = vscode.l10n.t('{0} dumps', node.dumps.length);
  row.tooltip = vscode.l10n.t('Node {0} (name from {1})', node.name, node.nameFrom);
  row.iconPath = new vscode.ThemeIcon('server');
  row.contextValue = 'bundleNode';
  return row;
}
