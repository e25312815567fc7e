// Filtering a pick's rows by what the user typed, where the rows live (the worker for a large snapshot) and on the
// extension host alike. No imports: the extension's own bundle uses it without loading the analysis code.

/** Rows one pick shows at most at a time (a pick of 10,000 rows was megabytes to the window, filtered there per keystroke). */
export const MAX_PICK_ROWS = 1_000;

/** The first rows that hold a filter, how many hold it, and how many rows there are. */
export interface FilteredRows<T> {
  rows: T[];
  matched: number;
  total: number;
}

/** The rows that hold `filter` in a field (as the pick's own matching would), the first `limit` of them, and how many. */
export function filterRows<T extends { label: string; description?: string; detail?: string }>(rows: readonly T[], filter: string, limit: number): FilteredRows<T> {
  const needle = filter.trim().toLowerCase();
  const max = Math.max(0, Math.min(limit, MAX_PICK_ROWS));
  const out: T[] = [];
  let matched = 0;
  for (const r of rows) {
    if (needle && !r.label.toLowerCase().includes(needle) && !r.description?.toLowerCase().includes(needle) && !r.detail?.toLowerCase().includes(needle)) continue;
    if (matched++ < max) out.push(r);
  }
  return { rows: out, matched, total: rows.length };
}
