// What the nft text reader's accelerators (accelerators/*.ts) may call: the same operations the reference reader
// (parser.ts) performs for the lines they read, on the reader's state between units. The reader implements it; the
// model objects themselves are made through the one nft sink (sink.ts).
import type { NftChain, NftFlowtable, NftMap, NftObject, NftSet, NftTable } from '../../model/nft';
import type { Range } from '../../model/range';
import type { SymbolDefinition } from '../../model/symbols';
import type { LineStarts } from '../lines';
import type { LineSink } from '../pipeline';
import type { LineScratch } from './scratch';
import type { RangeSites } from './statements';

/** Words that start a declaration: one starting a line ends an element list or anonymous set left open. */
export const LINE_START_DECLARATIONS = new Set(['table', 'chain', 'add', 'insert', 'create', 'replace', 'delete', 'destroy', 'flush', 'define', 'redefine', 'include']);

export type BlockKind = 'table' | 'chain' | 'set' | 'map' | 'flowtable' | 'object' | 'broken';

/** A block open in the text (`table ip t {`, `chain c {`, `set s {`, …). */
export interface Block {
  kind: BlockKind;
  table?: NftTable;
  chain?: NftChain;
  set?: NftSet | NftMap;
  flowtable?: NftFlowtable;
  object?: NftObject;
  /** The header (`chain x {`). */
  header: Range;
  definition?: SymbolDefinition;
}

export interface NftTextSink extends LineSink {
  /** The whole text (lazy rules read their line from it) and where its lines start. */
  readonly document: string;
  readonly lines: LineStarts;
  readonly scratch: LineScratch;
  /** Where what the reader makes now is allocated (set SHORT_LIVED_RANGES around what is garbage once read). */
  sites: RangeSites;
  /** Whether rules are kept as LazyRules (read again on demand). */
  readonly lazyRules: boolean;
  /** Whether some line may hold a NUL. */
  readonly mayHoldNul: boolean;
  /**
   * The innermost open block when the line at [start, end) of the document can be read on its own (no unit, group
   * or broken unit pending; within the line limits); undefined otherwise.
   */
  lineBlock(start: number, end: number): Block | undefined;
  /** The line at [start, end) as a string (made once per line, shared with the reference reader). */
  lineText(start: number, end: number): string;
  /** The table the references of the line are in. */
  currentTable: NftTable | undefined;
  /** The last chainReference's table and shared name string. */
  readonly lastTargetTable: NftTable | undefined;
  readonly lastTarget: string;
  chainReference(name: string, range: Range, role: 'jump' | 'goto'): void;
  setReference(name: string, range: Range): void;
  /** A short word shared with the equal words read before. */
  intern(word: string): string;
  /** The lazy rule of line `line` (starting at `lineStart` in the document), columns [start, end), in the open chain. */
  addLazyRule(line: number, lineStart: number, start: number, end: number): void;
  /** A declaration inside a table block (opening its block when `block`). */
  openDeclaration(table: NftTable, object: string, name: string, nameRange: Range, header: Range, block: boolean): void;
  /** The innermost block closed by a `}` at `closing`. */
  closeBlock(closing: Range): void;
  /** Lines up to `last` are read already (an element list read whole): the loop skips them. */
  readThrough: number;
}
