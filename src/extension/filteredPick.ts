// A pick over rows that live where the snapshot does (the worker for a large dump): it shows the rows that hold
// what is typed, asked again at each keystroke, at most PICK_ROWS of them, and a separator says how many there are.
// Giving a pick 10,000 rows was megabytes sent to the window and filtered there at every keystroke.
import * as vscode from 'vscode';
import { filterRows, type FilteredRows } from './analysis/pickRows';

/** Rows a pick shows at a time; typing finds the others. */
export const PICK_ROWS = 200;

export interface FilteredPick<T extends vscode.QuickPickItem> {
  title: string;
  placeholder: string;
  /** The rows that hold `value` (undefined: none to tell, e.g. the dump changed meanwhile). */
  rows(value: string): Promise<FilteredRows<T> | undefined>;
  /** Rows of their own for what is typed (an address), shown first whatever the filter. */
  typed?(value: string): T[];
  /** The placeholder once the snapshot turned out to have no rows at all. */
  none?: string;
}

/** Shows the pick (with `first`, the rows for an empty query, when already known); resolves to the row accepted. */
export async function showFilteredPick<T extends vscode.QuickPickItem>(o: FilteredPick<T>, first?: FilteredRows<T>): Promise<T | undefined> {
  const quickPick = vscode.window.createQuickPick<T>();
  quickPick.title = o.title;
  quickPick.placeholder = o.placeholder;
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  const typed = (value: string): T[] => o.typed?.(value) ?? [];
  const fill = (value: string, answer: FilteredRows<T> | undefined) => {
    quickPick.busy = false;
    if (answer?.total === 0 && o.none) quickPick.placeholder = o.none;
    const rows = answer?.rows ?? [];
    const more = answer && answer.matched > rows.length ? [{ kind: vscode.QuickPickItemKind.Separator, label: vscode.l10n.t('{0} of {1} shown: type more of a name or address', rows.length, answer.matched) } as T] : [];
    quickPick.items = [...typed(value), ...more, ...rows];
  };
  // Only the answer to the latest keystroke is shown. Meanwhile the rows shown that still hold what is typed stay,
  // after the address typed: a row left in the list, even hidden by the pick's own filter, could be the one Enter
  // took (the trace of another Service).
  let asked = 0;
  const ask = async (value: string): Promise<void> => {
    const mine = ++asked;
    quickPick.items = [
      ...typed(value),
      ...filterRows(
        quickPick.items.filter((i) => !i.alwaysShow && i.kind !== vscode.QuickPickItemKind.Separator),
        value,
        PICK_ROWS,
      ).rows,
    ];
    const answer = await o.rows(value).catch(() => undefined);
    if (mine === asked) fill(value, answer);
  };
  const disposables = [quickPick.onDidChangeValue((value) => void ask(value))];
  const picked = await new Promise<T | undefined>((resolve) => {
    // Enter before the rows arrived (an address just typed) has no row selected: the address typed is meant.
    disposables.push(
      quickPick.onDidAccept(() => resolve(quickPick.selectedItems[0] ?? quickPick.activeItems[0] ?? typed(quickPick.value)[0])),
      quickPick.onDidHide(() => resolve(undefined)),
    );
    if (first) fill('', first);
    else quickPick.busy = true;
    quickPick.show();
    if (!first) void ask('');
  });
  quickPick.dispose();
  disposables.forEach((d) => d.dispose());
  return picked;
}
