// The one packing scheme for two columns of a line in one number: start * COLUMNS + end, a small integer (a 31-bit
// Smi) while both are below COLUMNS. Ranges, references, chain definitions and the parsers' nodes all use it.
import { lineRange, type Range } from '../range';

/** Columns below this fit twice in one small integer. */
export const COLUMNS = 1 << 15;
/** The longest line whose columns always fit (a parser's accelerators read only lines shorter than this). */
export const MAX_PACKED_COLUMN = COLUMNS - 1;

/** Whether two columns fit packColumns. */
export function fitsColumns(start: number, end: number): boolean {
  return Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start < COLUMNS && end >= 0 && end < COLUMNS;
}

export const packColumns = (start: number, end: number): number => start * COLUMNS + end;
export const startColumn = (packed: number): number => Math.floor(packed / COLUMNS);
export const endColumn = (packed: number): number => packed % COLUMNS;
/** The range on `line` between packed columns. */
export const columnsRange = (line: number, packed: number): Range => lineRange(line, startColumn(packed), endColumn(packed));
