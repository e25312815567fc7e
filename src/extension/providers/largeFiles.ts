import * as vscode from 'vscode';
import type * as fsPromises from 'node:fs/promises';
import { detectDialect } from '../../core/detect';
import type { Log } from '../log';
import { cliRoute, formatSize } from './languageStatus';

/** VS Code hands no text of a file above this many characters to extensions (TextModel._MODEL_SYNC_LIMIT). */
const SYNC_LIMIT = 50 * 1024 * 1024;
/** How long the document may take to reach the extension host after its tab opened. */
const SYNC_GRACE_MS = 2000;

async function head(uri: vscode.Uri): Promise<string | undefined> {
  if (uri.scheme !== 'file') return undefined;
  // Loaded here, not at activation (docs/performance.md#budgets: a Node built-in module costs about a millisecond to load).
  const { open } = require('node:fs/promises') as typeof fsPromises;
  const file = await open(uri.fsPath, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await file.close();
  }
}

/**
 * A dump above 50 MB opens in the editor but never reaches the extension (VS Code syncs no text model that large),
 * so no provider is ever asked about it: say so once per file, with the command line route.
 */
export function register(context: vscode.ExtensionContext, log: Log): void {
  const told = new Set<string>();
  const synced = (uri: vscode.Uri) => vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
  const check = async () => {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    if (!(tab?.input instanceof vscode.TabInputText)) return;
    const uri = tab.input.uri;
    const key = uri.toString();
    if (told.has(key) || synced(uri)) return;
    await new Promise((resolve) => setTimeout(resolve, SYNC_GRACE_MS));
    if (told.has(key) || synced(uri) || vscode.window.tabGroups.activeTabGroup.activeTab !== tab) return;
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size <= SYNC_LIMIT) return;
      const text = await head(uri);
      const dialect = detectDialect(text ?? '', uri.path);
      if (!dialect) return;
      told.add(key);
      log.warn(`${uri.fsPath}: ${stat.size} bytes, above the ${SYNC_LIMIT} characters VS Code passes to extensions; not analysed (${dialect})`);
      const copy = vscode.l10n.t('Copy Command');
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t(
          '{0} ({1}) is larger than VS Code passes to extensions (50 MB): no hovers, F12, outline or trace for it in the editor. Use the command line instead: {2}',
          vscode.workspace.asRelativePath(uri),
          formatSize(stat.size),
          cliRoute(uri.fsPath),
        ),
        copy,
      );
      if (choice === copy) await vscode.env.clipboard.writeText(cliRoute(uri.fsPath));
    } catch (e) {
      log.warn(`cannot look at ${uri.fsPath}: ${(e as Error).message}`);
    }
  };
  context.subscriptions.push(
    vscode.window.tabGroups.onDidChangeTabs(() => void check()),
    vscode.window.tabGroups.onDidChangeTabGroups(() => void check()),
  );
  void check();
}
