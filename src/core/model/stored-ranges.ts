// Ranges kept as numbers and made into `{ start, end }` objects when read (issue #8): a kube-proxy dump of
// 10,000 Services declares some 100,000 chains, and three Range objects (nine small objects) for each were a
// good part of what a parser kept. The base class of the iptables and nft chain nodes, their definitions, and the
// packing of one-line ranges into a number that the nft nodes and catalog share.
import { lineRange, type Range } from './range';
import type { SymbolDefinition, SymbolKind } from './symbol-types';

/** Whether a range is [startLine:startCharacter, endLine:endCharacter) (stored ranges compare by value). */
export function rangeIs(r: Range, startLine: number, startCharacter: number, endLine: number, endCharacter: number): boolean {
  return r.start.line === startLine && r.start.character === startCharacter && r.end.line === endLine && r.end.character === endCharacter;
}

/** Columns below this fit twice in one small integer (a 31-bit Smi): start * COLUMNS + end. */
const COLUMNS = 1 << 15;

/** Whether two columns fit packColumns. */
export function fitsColumns(start: number, end: number): boolean {
  return Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start < COLUMNS && end >= 0 && end < COLUMNS;
}

export const packColumns = (start: number, end: number): number => start * COLUMNS + end;
export const startColumn = (packed: number): number => Math.floor(packed / COLUMNS);
export const endColumn = (packed: number): number => packed % COLUMNS;
export const copyRange = (r: Range): Range => ({ start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } });
/** The range on `line` between packed columns. */
export const columnsRange = (line: number, packed: number): Range => lineRange(line, startColumn(packed), endColumn(packed));

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

const make = (startLine: number, startCharacter: number, endLine: number, endCharacter: number): Range => ({
  start: { line: startLine, character: startCharacter },
  end: { line: endLine, character: endCharacter },
});

/**
 * A `range` and a `fullRange` as numbers. Reading one makes a new object each time (equal, not the same: compare
 * ranges by value); assigning one stores its numbers.
 */
class RangeAndFullRange {
  // Start line, start character, end line, end character of range (r) and fullRange (f).
  private r0 = 0;
  private r1 = 0;
  private r2 = 0;
  private r3 = 0;
  private f0 = 0;
  private f1 = 0;
  private f2 = 0;
  private f3 = 0;

  get range(): Range {
    return make(this.r0, this.r1, this.r2, this.r3);
  }

  set range(r: Range) {
    this.r0 = r.start.line;
    this.r1 = r.start.character;
    this.r2 = r.end.line;
    this.r3 = r.end.character;
  }

  get fullRange(): Range {
    return make(this.f0, this.f1, this.f2, this.f3);
  }

  set fullRange(r: Range) {
    this.f0 = r.start.line;
    this.f1 = r.start.character;
    this.f2 = r.end.line;
    this.f3 = r.end.character;
  }

  /** Whether fullRange is `r` (by value). */
  fullRangeIs(r: Range): boolean {
    return rangeIs(r, this.f0, this.f1, this.f2, this.f3);
  }
}

/** A declaration's `range`, `nameRange` and `fullRange` as numbers (the base of the iptables and nft chains). */
export class DeclarationRanges extends RangeAndFullRange {
  private n0 = 0;
  private n1 = 0;
  private n2 = 0;
  private n3 = 0;

  get nameRange(): Range {
    return make(this.n0, this.n1, this.n2, this.n3);
  }

  set nameRange(r: Range) {
    this.n0 = r.start.line;
    this.n1 = r.start.character;
    this.n2 = r.end.line;
    this.n3 = r.end.character;
  }
}

/** A symbol definition whose `range` (the name) and `fullRange` are kept as numbers. */
export class StoredDefinition extends RangeAndFullRange implements SymbolDefinition {
  declare readonly builtin?: boolean;

  constructor(
    readonly kind: SymbolKind,
    readonly name: string,
    readonly scope: string,
    range: Range,
    fullRange: Range,
    builtin?: boolean,
  ) {
    super();
    this.range = range;
    this.fullRange = fullRange;
    // Only when given: definitions of other kinds have no such property at all.
    if (builtin !== undefined) (this as { builtin?: boolean }).builtin = builtin;
  }
}

/**
 * A chain definition on one line (an iptables `:NAME` or `-N NAME` line): its line and two pairs of packed columns
 * instead of eight numbers (a dump of 10,000 Services declares some 100,000 chains). chainDefinition makes one when
 * the ranges fit, else a StoredDefinition.
 */
class ChainLineDefinition implements SymbolDefinition {
  // On the prototype rather than a field: one slot fewer in each of 100,000 definitions.
  get kind(): 'chain' {
    return 'chain';
  }

  constructor(
    readonly name: string,
    readonly scope: string,
    private readonly line: number,
    /** packColumns of range and of fullRange. */
    private readonly columns: number,
    private readonly fullColumns: number,
    readonly builtin: boolean,
  ) {}

  get range(): Range {
    return columnsRange(this.line, this.columns);
  }

  get fullRange(): Range {
    return columnsRange(this.line, this.fullColumns);
  }
}

/** A chain's definition, kept as small as its ranges allow (see ChainLineDefinition). */
export function chainDefinition(name: string, scope: string, range: Range, fullRange: Range, builtin: boolean): SymbolDefinition {
  const line = range.start.line;
  const onLine = (r: Range) => r.start.line === line && r.end.line === line && fitsColumns(r.start.character, r.end.character);
  if (Number.isInteger(line) && line >= 0 && line <= 0x7fffffff && onLine(range) && onLine(fullRange)) {
    return new ChainLineDefinition(name, scope, line, packColumns(range.start.character, range.end.character), packColumns(fullRange.start.character, fullRange.end.character), builtin);
  }
  return new StoredDefinition('chain', name, scope, range, fullRange, builtin);
}
