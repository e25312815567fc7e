// Compact nodes of the nft text model (docs/performance.md#memory): they keep positions as numbers and make their ranges (plain
// `{ start, end }` objects, equal to what the parser used to store) when asked, so a 29 MB kube-proxy dump does
// not keep millions of Range and Position objects.
//
// LazyRule: a rule whose statements are read again when asked instead of being kept. A kube-proxy dump of
// 10,000 Services holds some 215,000 rules; their statements, expressions and ranges were most of the heap
// the analysis kept. A rule on one line that the fast line scanner reads, without `$variables` (their value
// depends on where the rule is) and without `;` inside it, ending before column 32,768, keeps only the document,
// where its line starts, its columns and what its first reading found (comment, handle); `statements`, `raw` and
// `range` are made from the line on demand and
// equal what the first reading gave (test/unit/nft-fast-path.test.ts compares them with eager rules). The
// first reading reported the diagnostics and recorded the symbol references; reading again does neither.
//
// ChainNode: chains with numeric ranges; ChainDefinition: a chain's definition, whose ranges are its chain's (other
// definitions: StoredDefinition). The parser's symbol references are columns (model/compact/references.ts).
import type { IToken } from 'chevrotain';
import type { CstNode } from 'chevrotain';
import type { NftChain, NftChainPriority, NftExpression, NftRule, NftStatement } from '../../model/nft';
import type { SymbolDefinition } from '../../model/symbols';
import type { Range } from '../../model/range';
import { defineRareFields } from '../../model/compact/rare-fields';
import { columnsRange, endColumn, fitsColumns, packColumns, startColumn } from '../../model/compact/columns';
import { copyRange, rangeIs } from '../../model/compact/ranges';
import type { Item } from './grammar';
import { LBrace, LParen, RBrace, RParen, Semicolon, Variable } from './lexer';
import { fastLexLine } from './accelerators/fast-lex';
import { SHORT_LIVED_RANGES, StatementReader, type StatementHost } from './statements';

/** The items of a token list as the grammar groups them (`{ … }` and `( … )`), or undefined when unbalanced. */
export function groupItems(tokens: readonly IToken[], from = 0, to = tokens.length): Item[] | undefined {
  // Most rules have no group: their items are their tokens.
  let plain = true;
  for (let k = from; k < to; k++) {
    const type = tokens[k].tokenType;
    if (type === LBrace || type === LParen || type === RBrace || type === RParen || type === Semicolon) {
      plain = false;
      break;
    }
  }
  if (plain) return from === 0 && to === tokens.length ? (tokens as Item[]) : tokens.slice(from, to);
  const top: Item[] = [];
  const lists: Item[][] = [top];
  const opens: IToken[] = [];
  for (let k = from; k < to; k++) {
    const token = tokens[k];
    const type = token.tokenType;
    if (type === LBrace || type === LParen) {
      opens.push(token);
      lists.push([]);
    } else if (type === RBrace || type === RParen) {
      const open = opens.pop();
      if (!open || (open.tokenType === LBrace) !== (type === RBrace)) return undefined;
      const items = lists.pop()!;
      const children: CstNode['children'] = type === RBrace ? { LBrace: [open] } : { LParen: [open] };
      if (items.length > 0) children.item = items;
      if (type === RBrace) children.RBrace = [token];
      else children.RParen = [token];
      lists[lists.length - 1].push({ name: type === RBrace ? 'braceGroup' : 'parenGroup', children });
    } else if (type === Semicolon) {
      return undefined;
    } else {
      lists[lists.length - 1].push(token);
    }
  }
  return opens.length > 0 ? undefined : top;
}

/** Reading again: text from the rule's line; no diagnostics, no references (the first reading made them). */
class RereadHost implements StatementHost {
  line = '';
  text(range: Range): string {
    return this.line.slice(range.start.character, range.end.character);
  }
  chainReference(): void {}
  setReference(): void {}
  variable(): NftExpression | undefined {
    return undefined;
  }
  diag(): void {}
}

/**
 * Whether the rule spanning columns [start, end) of `line` can be read again from the line alone: the fast
 * scanner reads the line, and the rule has no variable and no `;`. Both parser paths decide it the same way
 * (the fast path knows it from the tokens it has; the full path, test-only, asks here). One per parse: it
 * remembers the last line it lexed whole (a line may hold many rules).
 */
export class RereadCheck {
  private lastLine: string | undefined;
  private lastLineLexes = false;

  canReread(text: string, line: number, start: number, end: number): boolean {
    if (text !== this.lastLine) {
      this.lastLine = text;
      this.lastLineLexes = fastLexLine(text, undefined, line) !== undefined;
    }
    if (!this.lastLineLexes) return false;
    const lexed = fastLexLine(text, undefined, line, start, end)!;
    for (const token of lexed.tokens) if (token.tokenType === Variable || token.tokenType === Semicolon) return false;
    return true;
  }
}

/**
 * The statements of the rules read last: consumers go over the few rules of a chain several times in a row
 * (the Service catalog does). A ring of CACHE_SIZE entries per document.
 */
const CACHE_SIZE = 64;

/**
 * What the LazyRules of one parsed text share: the text, a statement reader of their own and the ring of their
 * last readings. One per parse, so reading a document's rules again never touches another document's state (and
 * the ring goes with the document's model).
 */
export class RereadDocument {
  private readonly host = new RereadHost();
  private readonly reader = new StatementReader(this.host);
  private readonly cachedRules: (LazyRule | undefined)[] = new Array<LazyRule | undefined>(CACHE_SIZE).fill(undefined);
  private readonly cachedStatements: NftStatement[][] = new Array<NftStatement[]>(CACHE_SIZE).fill([]);
  private cacheNext = 0;

  constructor(
    /** The whole document. */
    readonly text: string,
  ) {
    // Most readings are dropped once looked at (the ring holds the last few).
    this.reader.sites = SHORT_LIVED_RANGES;
  }

  /** The statements of `rule`, which spans columns [start, end) of its line (starting at lineStart). */
  statements(rule: LazyRule, lineStart: number, start: number, end: number): NftStatement[] {
    const cachedRules = this.cachedRules;
    for (let k = 0; k < CACHE_SIZE; k++) if (cachedRules[k] === rule) return this.cachedStatements[k];
    // The line up to the rule's end lexes the rule's tokens as the whole line does (the scanner stops at `end`, and
    // a token it ended there did not depend on what follows). Only the rule's part is read (a line may hold
    // thousands of `;`-separated rules).
    const lineText = this.text.slice(lineStart, lineStart + end);
    const items = groupItems(fastLexLine(lineText, undefined, rule.line, start, end)!.tokens)!;
    this.host.line = lineText;
    let statements: NftStatement[];
    try {
      statements = this.reader.readRule(items);
    } finally {
      this.host.line = '';
    }
    cachedRules[this.cacheNext] = rule;
    this.cachedStatements[this.cacheNext] = statements;
    this.cacheNext = (this.cacheNext + 1) % CACHE_SIZE;
    return statements;
  }
}

export class LazyRule implements NftRule {
  index = 0;
  // The whole document rather than the rule's line: a line string per rule (a slice of the document) was 32 more
  // bytes each. Private fields: answers sent to the extension host carry the rule's raw text and range, not these.
  readonly #document: RereadDocument;
  /** Where the rule's line starts in the document. */
  readonly #lineStart: number;
  /** startCharacter * COLUMNS + endCharacter (see isLazyRuleSpan). */
  readonly #columns: number;
  constructor(
    public tableId: string,
    public chain: string,
    /** The document the rule is in. */
    document: RereadDocument,
    /** 0-based line. */
    readonly line: number,
    /** Where the line starts in `text`. */
    lineStart: number,
    start: number,
    end: number,
  ) {
    this.#document = document;
    this.#lineStart = lineStart;
    this.#columns = packColumns(start, end);
  }

  get raw(): string {
    const from = this.#lineStart;
    const columns = this.#columns;
    return this.#document.text.slice(from + startColumn(columns), from + endColumn(columns));
  }

  get range(): Range {
    return columnsRange(this.line, this.#columns);
  }

  get statements(): NftStatement[] {
    return this.#document.statements(this, this.#lineStart, startColumn(this.#columns), endColumn(this.#columns));
  }
}

/** Whether a rule in columns [start, end) can be a LazyRule, which keeps both columns in one small integer. */
export function isLazyRuleSpan(start: number, end: number): boolean {
  return start <= end && fitsColumns(start, end);
}

/** The flags of a chain without any: one frozen array for all of them (the parser replaces it, never adds to it). */
const NO_FLAGS: string[] = Object.freeze([]) as unknown as string[];

/** The three ranges of a chain that do not fit ChainNode's packed form. */
interface WideChainRanges {
  range: Range;
  nameRange: Range;
  fullRange: Range;
}

/**
 * A chain keeping its three ranges as five numbers (a kube-proxy dump of 10,000 Services has some 110,000 chains):
 * the declaration (`chain x {`) and the name are on one line, and the block starts where the declaration does.
 * Other ranges are kept as copies. Reading a range makes a new object each time (compare ranges by value).
 * The fields of base chains are rare fields (defineRareFields): kube-proxy declares its base chains first, and
 * V8 would otherwise have given every chain a slot for each, 40 bytes in each of 100,000 chains.
 */
export class ChainNode implements NftChain {
  flags: string[] = NO_FLAGS;
  rules: NftRule[] = [];
  declared = false;
  declare type: string | undefined;
  declare hook: string | undefined;
  declare device: string | undefined;
  declare devices: string[] | undefined;
  declare priority: NftChainPriority | undefined;
  declare policy: string | undefined;
  declare comment: string | undefined;
  declare handle: number | undefined;
  /** The declaration's line, or -1 when #range holds the wide form. */
  #line = 0;
  /** The declaration's columns (packColumns), or the three ranges when they do not fit. */
  #range: number | WideChainRanges = 0;
  /** The name's columns. */
  #name = 0;
  /** Where the block ends: packColumns(lines after the declaration's, character). */
  #fullEnd = 0;
  constructor(
    public name: string,
    readonly tableId: string,
    nameRange: Range,
    declRange: Range,
  ) {
    this.#store(declRange, nameRange, declRange);
  }

  #store(range: Range, nameRange: Range, fullRange: Range): void {
    const line = range.start.line;
    if (
      Number.isInteger(line) &&
      line >= 0 &&
      range.end.line === line &&
      nameRange.start.line === line &&
      nameRange.end.line === line &&
      fullRange.start.line === line &&
      fullRange.start.character === range.start.character &&
      fitsColumns(range.start.character, range.end.character) &&
      fitsColumns(nameRange.start.character, nameRange.end.character) &&
      fitsColumns(fullRange.end.line - line, fullRange.end.character)
    ) {
      this.#line = line;
      this.#range = packColumns(range.start.character, range.end.character);
      this.#name = packColumns(nameRange.start.character, nameRange.end.character);
      this.#fullEnd = packColumns(fullRange.end.line - line, fullRange.end.character);
    } else {
      this.#line = -1;
      this.#range = { range: copyRange(range), nameRange: copyRange(nameRange), fullRange: copyRange(fullRange) };
    }
  }

  get range(): Range {
    const packed = this.#range;
    return typeof packed === 'number' ? columnsRange(this.#line, packed) : copyRange(packed.range);
  }

  set range(r: Range) {
    this.#store(r, this.nameRange, this.fullRange);
  }

  get nameRange(): Range {
    const packed = this.#range;
    return typeof packed === 'number' ? columnsRange(this.#line, this.#name) : copyRange(packed.nameRange);
  }

  set nameRange(r: Range) {
    this.#store(this.range, r, this.fullRange);
  }

  get fullRange(): Range {
    const packed = this.#range;
    if (typeof packed !== 'number') return copyRange(packed.fullRange);
    const fullEnd = this.#fullEnd;
    return { start: { line: this.#line, character: startColumn(packed) }, end: { line: this.#line + startColumn(fullEnd), character: endColumn(fullEnd) } };
  }

  set fullRange(r: Range) {
    const packed = this.#range;
    const line = this.#line;
    // What #store keeps of the packed range and name (unchanged), without making them: closing each of 100,000 chains.
    if (typeof packed === 'number' && r.start.line === line && r.start.character === startColumn(packed) && fitsColumns(r.end.line - line, r.end.character)) {
      this.#fullEnd = packColumns(r.end.line - line, r.end.character);
      return;
    }
    this.#store(this.range, this.nameRange, r);
  }

  /** Whether fullRange is `r` (by value). */
  fullRangeIs(r: Range): boolean {
    const packed = this.#range;
    if (typeof packed !== 'number') return rangeIs(r, packed.fullRange.start.line, packed.fullRange.start.character, packed.fullRange.end.line, packed.fullRange.end.character);
    return rangeIs(r, this.#line, startColumn(packed), this.#line + startColumn(this.#fullEnd), endColumn(this.#fullEnd));
  }
}

defineRareFields(ChainNode.prototype, ['type', 'hook', 'device', 'devices', 'priority', 'policy', 'comment', 'handle']);

/**
 * The symbol definition of a chain. Its `range` (the name) and `fullRange` are the chain's nameRange and fullRange,
 * which the parser sets together with the definition's: it keeps the chain rather than eight more numbers (a dump
 * of 10,000 Services defines some 100,000 chains). The name is its own (a renamed chain keeps its definition).
 */
export class ChainDefinition implements SymbolDefinition {
  // On the prototype rather than a field: one slot fewer in each of 100,000 definitions.
  get kind(): 'chain' {
    return 'chain';
  }

  // A private field, not a property: answers sent to the extension host carry the ranges, not the chain.
  readonly #chain: ChainNode;
  constructor(
    readonly name: string,
    readonly scope: string,
    chain: ChainNode,
  ) {
    this.#chain = chain;
  }

  get range(): Range {
    return this.#chain.nameRange;
  }

  get fullRange(): Range {
    return this.#chain.fullRange;
  }

  set fullRange(r: Range) {
    this.#chain.fullRange = r;
  }

  /** Whether fullRange is `r` (by value). */
  fullRangeIs(r: Range): boolean {
    return this.#chain.fullRangeIs(r);
  }
}
