// Where the walkthrough's buttons put what they open, decided from a plain description of the editor groups (no
// vscode import, so it is unit-tested): beside the walkthrough, in the group already there, never over it.

export interface GroupView {
  /** The group's view column (1-based). */
  column: number;
  active: boolean;
  /** Its active tab is the walkthrough (a tab of no text, webview or other known kind). */
  showsWalkthrough: boolean;
}

/**
 * The column a button of the walkthrough opens its editor in: the group beside the walkthrough that is active (VS
 * Code activates it for `command:toSide:` links), else the first group right of the walkthrough, else any other
 * group; 'beside' when the walkthrough is alone (a narrow window: a new group beside it rather than over it);
 * undefined when no walkthrough is shown (the caller's own default).
 */
export function columnBesideWalkthrough(groups: readonly GroupView[]): number | 'beside' | undefined {
  const walkthrough = groups.find((g) => g.showsWalkthrough);
  if (!walkthrough) return undefined;
  const others = groups.filter((g) => !g.showsWalkthrough);
  if (!others.length) return 'beside';
  return (others.find((g) => g.active) ?? others.find((g) => g.column > walkthrough.column) ?? others[0]).column;
}

export interface TabView {
  /** The file the tab shows (a path), undefined for tabs that show no file. */
  path?: string;
  dirty: boolean;
}

/**
 * Indexes of the tabs to close before the sample `keep` opens in a group beside the walkthrough: earlier sample
 * copies (files under one of `roots`) the new sample does not include. A modified copy stays open: closing it would
 * ask the user or lose the edit.
 */
export function staleSampleTabs(tabs: readonly TabView[], roots: readonly string[], keep: readonly string[]): number[] {
  const under = (p: string) => roots.some((r) => p.startsWith(r.endsWith('/') ? r : `${r}/`));
  const stale: number[] = [];
  tabs.forEach((t, i) => {
    if (t.path && !t.dirty && under(t.path) && !keep.includes(t.path)) stale.push(i);
  });
  return stale;
}
