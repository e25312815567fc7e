// What the unit visitors of the nft text reference reader (commands.ts, table-units.ts) need of the reader
// (reference.ts, NftTextBuilder): its model under construction, its open blocks and the helpers that make tables,
// chains and sets and their references. An interface of its own so that the visitors do not import the reader.
import type { NftChain, NftCommand, NftDefine, NftFamily, NftInclude, NftMap, NftRule, NftSet, NftTable } from '../../model/nft';
import type { Range } from '../../model/range';
import type { ReferenceRole, SymbolDefinition, Symbols } from '../../model/symbols';
import type { IToken } from 'chevrotain';
import type { UnitHost } from './declaration-units';
import type { ElementDeletions } from './elementDeletions';
import type { Item } from './grammar';
import type { NftSink } from './sink';
import type { Block } from './text-sink';

export const VERBS = new Set(['add', 'create', 'insert', 'replace', 'delete', 'destroy', 'flush', 'list', 'reset', 'rename', 'describe', 'monitor', 'get', 'export', 'import']);
export const TABLE_CHILDREN = new Set(['chain', 'set', 'map', 'flowtable', 'counter', 'quota', 'limit', 'secmark', 'synproxy', 'ct']);
export const CT_OBJECTS = new Set(['helper', 'timeout', 'expectation']);

/** `[family] name…` of a command, as spec() reads it. */
export interface Spec {
  family: NftFamily;
  familyGiven: boolean;
  names: string[];
  ranges: Range[];
  next: number;
}

export interface ReaderHost extends UnitHost {
  /** Where the model is built, and its tables and symbols (the sink's). */
  readonly sink: NftSink;
  readonly symbols: Symbols;
  readonly tables: NftTable[];
  readonly tableById: Map<string, NftTable>;
  readonly defines: NftDefine[];
  readonly defineByName: Map<string, NftDefine>;
  readonly includes: NftInclude[];
  readonly commands: NftCommand[];
  /** `delete element` commands, applied at the end. */
  readonly deletedElements: ElementDeletions;
  /** The definition of each declared table, by id. */
  readonly tableDefinitions: Map<string, SymbolDefinition>;
  /** The open blocks, innermost last. */
  readonly stack: readonly Block[];
  /** The table the references of the unit are in. */
  currentTable: NftTable | undefined;
  /** Sequence number of the current top-level command (a table block counts as one). */
  seq: number;
  /** Whether a chain left a table's chainByName (see NftTextBuilder.ensureChain). */
  chainsForgotten: boolean;

  push(block: Block): void;
  /** From the unit's first token to its last, or to the `{` after it that opens a block. */
  unitRange(tokens: IToken[], blockOpen: IToken | undefined): Range;
  /** The handle in the comment of the current line, when the range ends on that line. */
  handleOf(range: Range): number | undefined;
  nameOf(item: Item | undefined): string | undefined;
  spec(items: Item[], from: number, count: number): Spec | undefined;
  missing(range: Range, what: string): void;
  /** The shared string of a chain or set name. */
  name(kind: 'chain' | 'set', table: NftTable, name: string): string;
  pend(kind: 'chain' | 'set', table: NftTable, name: string, range: Range, role: ReferenceRole): void;
  ensureTable(family: NftFamily, name: string, nameRange: Range, declRange: Range, declare: boolean): NftTable;
  ensureChain(table: NftTable, name: string, nameRange: Range, declRange: Range, declare: boolean, role: ReferenceRole): { chain: NftChain; definition?: SymbolDefinition };
  ensureSet(table: NftTable, kind: 'set' | 'map', name: string, nameRange: Range, declRange: Range): { set: NftSet | NftMap; definition?: SymbolDefinition };
  makeRule(table: NftTable, chain: NftChain, items: Item[]): NftRule;
  /** Takes a rule out of ruleByLine (deleted, replaced, its chain flushed). */
  forgetRule(rule: NftRule): void;
  openTable(table: NftTable, header: Range): void;
  openDeclaration(table: NftTable, object: string, name: string, nameRange: Range, header: Range, block: boolean): void;
}
