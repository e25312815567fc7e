// A declaration's ranges kept as numbers (the base of the iptables and nft chains) and chain definitions of one
// line kept as a line and two packed columns: a dump of 10,000 Services declares some 100,000 chains (see
// docs/performance.md).
import type { Range } from '../range';
import type { SymbolDefinition, SymbolKind } from '../symbol-types';
import { columnsRange, fitsColumns, packColumns } from './columns';
import { fitsLine, rangeIs } from './ranges';

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
  if (fitsLine(line) && onLine(range) && onLine(fullRange)) {
    return new ChainLineDefinition(name, scope, line, packColumns(range.start.character, range.end.character), packColumns(fullRange.start.character, fullRange.end.character), builtin);
  }
  return new StoredDefinition('chain', name, scope, range, fullRange, builtin);
}
