// The editor groups as placement.ts sees them. The walkthrough's tab is of a kind the API does not describe (no
// text, webview, custom, notebook or terminal input): its group is the one whose active tab is such a tab.
import * as vscode from 'vscode';
import { columnBesideWalkthrough, staleSampleTabs } from './placement';

function showsWalkthrough(group: vscode.TabGroup): boolean {
  const tab = group.activeTab;
  const known = [vscode.TabInputText, vscode.TabInputTextDiff, vscode.TabInputCustom, vscode.TabInputWebview, vscode.TabInputNotebook, vscode.TabInputNotebookDiff, vscode.TabInputTerminal];
  return !!tab && !known.some((k) => typeof k === 'function' && tab.input instanceof k);
}

/** The view column beside the shown walkthrough (see columnBesideWalkthrough); undefined when none is shown. */
export function columnBeside(): vscode.ViewColumn | undefined {
  const groups = vscode.window.tabGroups.all.map((g) => ({ column: g.viewColumn, active: g.isActive, showsWalkthrough: showsWalkthrough(g) }));
  const column = columnBesideWalkthrough(groups);
  return column === 'beside' ? vscode.ViewColumn.Beside : column;
}

/** A webview panel beside the walkthrough (else beside the active editor) that runs scripts from `dist/` only. */
export function createPanelBeside(viewType: string, title: string, extensionUri: vscode.Uri): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(
    viewType,
    title,
    { viewColumn: columnBeside() ?? vscode.ViewColumn.Beside, preserveFocus: false },
    {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')],
    },
  );
}

/** Closes the sample copies (under `roots`) in group `column` that `keep` does not include, unmodified ones only. */
export async function closeStaleSamples(column: vscode.ViewColumn, roots: readonly vscode.Uri[], keep: readonly vscode.Uri[]): Promise<void> {
  const group = vscode.window.tabGroups.all.find((g) => g.viewColumn === column);
  if (!group) return;
  const tabs = group.tabs.map((t) => ({ path: t.input instanceof vscode.TabInputText ? t.input.uri.path : undefined, dirty: t.isDirty }));
  const stale = staleSampleTabs(
    tabs,
    roots.map((r) => r.path),
    keep.map((k) => k.path),
  ).map((i) => group.tabs[i]);
  if (stale.length) await vscode.window.tabGroups.close(stale, true);
}
