// How far the parse of a large dump has come, for whoever shows it: the analysis worker tells the extension host,
// whose language status item shows it (docs/performance.md#memory). Parsers report as they go; nothing is done unless someone listens.

/** Told the share of the text read so far, from 0 to 1 (1 once every line is read; the catalog comes after). */
export type ProgressListener = (share: number) => void;

let listener: ProgressListener | undefined;

/** Runs `fn` (a parse) with `report` told how far it has come. */
export function withProgress<T>(report: ProgressListener, fn: () => T): T {
  const outer = listener;
  listener = report;
  try {
    return fn();
  } finally {
    listener = outer;
  }
}

/** How many lines a parser reads between two reports (a power of two: `(i & PROGRESS_MASK) === 0`). */
export const PROGRESS_MASK = 0x3fff;

/** A parser is at line `line` of `total` lines: reported every PROGRESS_MASK + 1 lines. */
export function reportLine(line: number, total: number): void {
  if ((line & PROGRESS_MASK) === 0 && line > 0) reportProgress(line, total);
}

/** A parser has read `done` of `total` (lines or characters). */
export function reportProgress(done: number, total: number): void {
  if (listener !== undefined && total > 0) listener(Math.min(1, done / total));
}
