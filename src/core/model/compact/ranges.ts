// Ranges kept as numbers and made into `{ start, end }` objects when read: a kube-proxy dump of 10,000 Services
// declares some 100,000 chains, and three Range objects (nine small objects) for each were a good part of what a
// parser kept (see docs/performance.md). A one-line range is its line and packColumns of its columns.
import type { Range } from '../range';
import { columnsRange, fitsColumns, packColumns } from './columns';

/** Whether a range is [startLine:startCharacter, endLine:endCharacter) (stored ranges compare by value). */
export function rangeIs(r: Range, startLine: number, startCharacter: number, endLine: number, endCharacter: number): boolean {
  return r.start.line === startLine && r.start.character === startCharacter && r.end.line === endLine && r.end.character === endCharacter;
}

export const copyRange = (r: Range): Range => ({ start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } });

/**
 * A range kept small: its columns packed into one number when it is on one line and they fit (packColumns), else
 * a copy. readRange makes it again from that and the range's start line.
 */
export function storeRange(range: Range): number | Range {
  const { start, end } = range;
  return end.line === start.line && fitsColumns(start.character, end.character) ? packColumns(start.character, end.character) : copyRange(range);
}

/** storeRange for a range read again with readRange(line, …): packed only when it is on that line. */
export function storeRangeOn(line: number, range: Range): number | Range {
  return range.start.line === line ? storeRange(range) : copyRange(range);
}

/** The range storeRange kept (a new object each time). */
export function readRange(startLine: number, stored: number | Range): Range {
  return typeof stored === 'number' ? columnsRange(startLine, stored) : copyRange(stored);
}

/** Whether `line` fits an Int32Array entry (the line columns of packed ranges). */
export const fitsLine = (line: number): boolean => Number.isInteger(line) && line >= 0 && line <= 0x7fffffff;
