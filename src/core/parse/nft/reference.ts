// The nft text reference reader: what `nft list ruleset` output and `nft -f` scripts mean, read the plain way.
// Start here to learn the dialect.
//
// 1. Tokens (lexer.ts): each line is lexed on its own by Chevrotain's lexer.
// 2. Units (units.ts): the token stream is cut at `;`, at newlines and at block braces (a newline inside `{ … }` of
//    an anonymous set or element list does not end a unit); `table … {`, `chain … {`, `set … {` open blocks.
// 3. Grammar (grammar.ts, a Chevrotain CstParser): each unit is parsed with the rule of the block it is in (top
//    level, table, chain, set/map, object).
// 4. The units are applied by the visitor of their block: commands.ts the top-level commands (and the include and
//    define units every block allows), table-units.ts the units of table and chain blocks, declaration-units.ts
//    those of chain properties, sets, flowtables and objects; statements.ts reads a rule's statements (a rule that
//    can be read again from its line is kept as a LazyRule, nodes.ts). The visitors see this reader as a ReaderHost
//    (reader-host.ts); it keeps the open blocks, the rules' line index and the names the model shares. Everything
//    goes through the one nft sink (sink.ts) that the JSON front end shares. References are resolved at the end
//    (references.ts).
//
// Below, in reading order: a line (step 1), a unit and its visitor (steps 2–3), blocks opened and closed, the end of
// the text (build), then what the visitors, the statement reader and the accelerators call.
//
// The accelerators (ParseOptions.accelerators 'on') make the same model faster (test/unit/parse-accelerators.test.ts):
// accelerators/fast-units.ts replaces steps 1 and 3 for the lines and units it can (fastLexLine, the CST of plain
// units built directly), and the line accelerators (accelerators/*.ts, through NftTextSink, text-sink.ts) read the
// commonest lines without tokens. With 'off' every line takes steps 1–4. Memory stays proportional to the model,
// not to the token count. Errors are diagnostics with a range; a bad unit is skipped and reading resumes at the
// next line, `;` or `}`. Nothing here throws. Everything a parse changes is its builder's: parses may interleave.
import { StoredDefinition } from '../../model/compact/declarations';
import { LineStarts } from '../lines';
import { SortedLineMap } from '../../model/line-map';
import type { CstNode, IToken } from 'chevrotain';
import type { Severity } from '../../model/diagnostics';
import { PlaceholderTally, placeholderIn } from '../placeholders';
import {
  isNftFamily,
  type NftChain,
  type NftCommand,
  type NftCommentLine,
  type NftDefine,
  type NftExpression,
  type NftFamily,
  type NftInclude,
  type NftMap,
  type NftRule,
  type NftRuleset,
  type NftSet,
  type NftStatement,
  type NftTable,
} from '../../model/nft';
import { lineRange, type Range } from '../../model/range';
import { Symbols, type ReferenceRole, type SymbolDefinition } from '../../model/symbols';
import { t } from '../../l10n';
import { giveBackUnitParser, groupTokens, isGroup, takeUnitParser, type Item, type NftUnitParser } from './grammar';
import { isWordy, lineLexer, lineOf, StringTok, unquote, Variable } from './lexer';
import { MAX_INTERNED } from './accelerators/fast-lex';
import { FastUnits } from './accelerators/fast-units';
import { isKnownStatementWord, reportPlainRuleReferences, SHORT_LIVED_RANGES, StatementReader, type RangeSites, type StatementHost } from './statements';
import { ChainDefinition, ChainNode, isLazyRuleSpan, LazyRule, RereadCheck, RereadDocument } from './nodes';
import { ElementDeletions } from './elementDeletions';
import { PendingReferences } from './references';
import { UnitCutter } from './units';
import { wordOf } from './declaration-units';
import { topUnit } from './commands';
import { chainItems, chainUnit, declarationUnit, openDeclaration as openDeclarationBlock, openTable as openTableBlock, tableUnit } from './table-units';
import { CT_OBJECTS, TABLE_CHILDREN, VERBS, type ReaderHost, type Spec } from './reader-host';
import { NftSink } from './sink';
import { LINE_LIMITS, lineProblem, readLines, type Accelerator } from '../pipeline';
import { LineScratch } from './scratch';
import { LINE_START_DECLARATIONS, type Block, type BlockKind, type NftTextSink } from './text-sink';

/** What the first reading of a lazy rule of a plain shape looks at (nothing: see reportPlainRuleReferences); never kept. */
const NO_STATEMENTS: NftStatement[] = [];

/** Lines longer than this are not lexed (a 1,000-endpoint vmap on one line is about 90 KB). */
export const MAX_LINE_LENGTH = LINE_LIMITS.nftables.maxLength;

const BLOCK_OBJECTS = new Set(['table', 'chain', 'set', 'map', 'flowtable', 'counter', 'quota', 'limit', 'secmark', 'synproxy', 'ct', 'meter']);

export class NftTextBuilder implements StatementHost, NftTextSink, ReaderHost {
  /** Where the model is built (the JSON reader builds through one too). */
  readonly sink: NftSink;
  readonly symbols: Symbols;
  readonly tables: NftTable[];
  readonly tableById: Map<string, NftTable>;
  readonly defines: NftDefine[] = [];
  readonly defineByName = new Map<string, NftDefine>();
  readonly includes: NftInclude[] = [];
  readonly commands: NftCommand[] = [];
  readonly comments: NftCommentLine[] = [];
  readonly ruleByLine: Map<number, NftRule> = new SortedLineMap<NftRule>();
  /** The line of the last rule put in ruleByLine (rules come in line order), or -1 once it was taken out again. */
  private lastRuleLine = -1;
  readonly reader = new StatementReader(this);
  /** Short strings of the model, shared (see fastLexLine). */
  private readonly interned = new Map<string, string>();
  private readonly names = new Map<string, string>();
  /** Reading statements that are not kept (the first reading of a LazyRule). */
  private discarding = false;

  readonly stack: Block[] = [];
  /** Step 2: the token stream cut into units (units.ts). */
  private readonly units = new UnitCutter(this);
  private lineComment: IToken | undefined;
  private currentLine = 0;
  /** Whether a rule can be read again from its line (the reference path without the fast scanner asks it). */
  private readonly rereadCheck = new RereadCheck();
  /** The per-parse scratch state of the accelerators. */
  readonly scratch = new LineScratch();
  /** Lines up to this one were read with an earlier line (see NftTextSink.readThrough). */
  readThrough = -1;
  /** The line lineText made last, and where it starts and ends. */
  private cachedLine = '';
  private cachedLineStart = -1;
  private cachedLineEnd = -1;
  /** The token-level accelerators (accelerators/fast-units.ts), when they are on. */
  private readonly fastUnits: FastUnits | undefined;

  /** Sequence number of the current top-level command (a table block counts as one). */
  seq = 0;
  currentTable: NftTable | undefined;
  /** The chain and set references, resolved at the end (names may be defined later), and the definitions' commands. */
  private readonly references = new PendingReferences();
  readonly tableDefinitions = new Map<string, SymbolDefinition>();
  /** Whether a chain left a table's chainByName (deleted, renamed, or its table removed): see ensureChain. */
  chainsForgotten = false;
  /** `delete element` commands, applied at the end. */
  readonly deletedElements = new ElementDeletions();

  /** Where the current line starts in the text. */
  private lineStart = 0;
  /** What this parse's LazyRules share (the text, and their statement reader). */
  private readonly rereadDocument: RereadDocument;
  /** The Chevrotain parser this parse took (takeUnitParser), until release(). */
  private parser: NftUnitParser | undefined;
  /** Whether some line may hold a NUL (one search of the whole text spares one per line). */
  readonly mayHoldNul: boolean;

  constructor(
    /** The whole text (lazy rules read their line from it). */
    readonly document: string,
    readonly lines: LineStarts,
    /** Whether the token-level accelerators are used (FastUnits). */
    fast: boolean,
    readonly lazyRules: boolean,
  ) {
    this.sink = new NftSink(lines.count, true, { problems: (count) => t('{0} more problems were not reported; is this really nft syntax?', count) });
    this.symbols = this.sink.symbols;
    this.tables = this.sink.tables;
    this.tableById = this.sink.tableById;
    this.mayHoldNul = document.includes('\u0000');
    this.rereadDocument = new RereadDocument(document);
    this.fastUnits = fast ? new FastUnits() : undefined;
    this.reader.expansions.allowFor(document.length);
  }

  /** Where what the reader makes now is allocated (see RangeSites): KEPT_RANGES unless a reading is dropped soon. */
  get sites(): RangeSites {
    return this.reader.sites;
  }

  set sites(sites: RangeSites) {
    this.reader.sites = sites;
  }

  /** Gives back what the parse took (its Chevrotain parser); called once the parse is over, also after a throw. */
  release(): void {
    if (this.parser !== undefined) giveBackUnitParser(this.parser);
    this.parser = undefined;
  }

  // ---------------------------------------------------------------------------------------------------
  // Step 1: the line loop, lexed

  /** The number of the line being read; a new line forgets the last one's comment and tokens. */
  get line(): number {
    return this.currentLine;
  }

  set line(i: number) {
    this.currentLine = i;
    this.lineComment = undefined;
    this.fastUnits?.newLine();
  }

  private readLine(i: number, text: string): void {
    this.line = i;
    if (text.length === 0) {
      this.units.endOfLine();
      return;
    }
    // (One search of the whole text for a NUL spares one per line.)
    const problem = text.length > MAX_LINE_LENGTH || this.mayHoldNul ? lineProblem(i, text, LINE_LIMITS.nftables) : undefined;
    if (problem !== undefined) {
      this.diag(problem.range, problem.severity, problem.code, problem.message);
      this.units.markBroken();
      this.units.endOfLine();
      return;
    }
    let tokens: IToken[];
    let comment: IToken | undefined;
    // Inside a `{` left open on an earlier line (an element list), the unit keeps its tokens until it is closed.
    // Words of a chain's lines are not interned: they are rules, nearly all lazy, whose tokens are garbage after
    // the line (interning them kept a map of every address in the dump until the end of the parse).
    const intern = this.lazyRules && !this.units.inGroup && this.contextKind() === 'chain' ? undefined : this.interned;
    const fast = this.fastUnits?.lexLine(text, intern, i, this.units.inGroup);
    if (fast) {
      tokens = fast.tokens;
      comment = fast.comment;
    } else {
      const lexed = lineLexer.tokenize(text);
      for (const e of lexed.errors) {
        this.diag(lineRange(i, e.offset, e.offset + Math.max(1, e.length)), 'error', 'syntax', t('Unexpected character {0}.', JSON.stringify(text.substr(e.offset, 1))));
      }
      comment = lexed.groups.comments?.[0];
      tokens = lexed.tokens;
      for (let k = 0; k < tokens.length; k++) tokens[k].startLine = i;
    }
    if (comment) {
      comment.startLine = i;
      this.lineComment = comment;
      if (tokens.length === 0) this.commentLine(i, comment.image, comment.startOffset);
    }
    if (this.units.inGroup && tokens.length >= 2 && isWordy(tokens[0]) && LINE_START_DECLARATIONS.has(tokens[0].image) && (isWordy(tokens[1]) || tokens[1].tokenType === StringTok)) {
      // A declaration while `{` of an anonymous set is still open: that `{` was never closed.
      this.units.abandonOpenGroup();
    }
    // Most lines are one whole unit (a rule) with nothing for the cutter to act on: the line's token array is the unit.
    if (!(fast && this.fastUnits!.isWholeUnit(tokens) && this.units.takeLine(tokens))) {
      for (let k = 0; k < tokens.length; k++) this.units.feed(tokens[k]);
    }
    this.units.endOfLine();
  }

  private commentLine(i: number, text: string, start: number): void {
    const range = lineRange(i, start, start + text.length);
    const kind: NftCommentLine['kind'] = /^#\s*Warning:/.test(text) ? 'warning' : i === 0 && text.startsWith('#!') ? 'shebang' : 'comment';
    this.comments.push({ text, range, kind });
  }

  // ---------------------------------------------------------------------------------------------------
  // Step 2 hands over units; step 3 parses each with the grammar of its block and gives it to its visitor

  private contextKind(): BlockKind | 'top' {
    return this.stack.length === 0 ? 'top' : this.stack[this.stack.length - 1].kind;
  }

  private unitWord(unit: readonly IToken[], k: number): string | undefined {
    const tok = unit[k];
    return tok && isWordy(tok) ? tok.image : undefined;
  }

  /** Whether `{` after `unit` opens a block (rather than an anonymous set or element list). */
  opensBlock(unit: readonly IToken[]): boolean {
    const ctx = this.contextKind();
    const w0 = this.unitWord(unit, 0);
    if (w0 === undefined) return false;
    if (ctx === 'top') {
      let k = 0;
      if (w0 === 'add' || w0 === 'create') k = 1;
      else if (VERBS.has(w0)) return false;
      const obj = this.unitWord(unit, k);
      if (obj === 'ct') return CT_OBJECTS.has(this.unitWord(unit, k + 1) ?? '');
      return obj !== undefined && BLOCK_OBJECTS.has(obj);
    }
    if (ctx === 'table') {
      if (w0 === 'table') {
        this.recoverTo('top', unit[0]);
        return true;
      }
      if (w0 === 'ct') return CT_OBJECTS.has(this.unitWord(unit, 1) ?? '');
      return TABLE_CHILDREN.has(w0);
    }
    if (ctx === 'broken') return false;
    // Inside a chain, set or object: `chain x {` or `table ip t {` means the block before was not closed.
    const n = unit.length;
    if (w0 === 'table' && n >= 2 && n <= 3) {
      this.recoverTo('top', unit[0]);
      return true;
    }
    if ((w0 === 'chain' || w0 === 'set' || w0 === 'map' || w0 === 'flowtable') && n === 2 && this.stack.some((b) => b.kind === 'table')) {
      this.recoverTo('table', unit[0]);
      return true;
    }
    return false;
  }

  /** Step 3: a unit parsed with the grammar rule of the block it is in, then applied (step 4). */
  unit(tokens: IToken[], broken: boolean, blockOpen: IToken | undefined): void {
    if (broken || tokens.length === 0) {
      // A `{` opening a block after nothing (or after a broken unit): keep the braces balanced.
      if (!broken) this.diag(this.sites.item(blockOpen!), 'error', 'syntax', t('A block needs a header such as "chain NAME" before {.'));
      this.pushBroken(this.sites.item(blockOpen!));
      return;
    }
    const ctx = this.contextKind();
    const fast = this.fastUnits;
    if (fast !== undefined && ctx === 'chain' && blockOpen === undefined) {
      // A rule (or a chain's comment or flags): what the grammar and applyUnit come to, without the CST.
      const items = fast.chainItems(tokens);
      if (items !== undefined) {
        chainItems(this, items, tokens);
        return;
      }
    }
    const fastCst = fast?.plainUnit(tokens, ctx);
    if (fastCst) {
      this.applyUnit(ctx, fastCst, tokens, blockOpen);
      return;
    }
    const parser = (this.parser ??= takeUnitParser());
    parser.input = tokens;
    let cst: CstNode;
    switch (ctx) {
      case 'top':
        cst = parser.topUnit();
        break;
      case 'chain':
        cst = parser.chainUnit();
        break;
      case 'set':
      case 'map':
        cst = parser.setUnit();
        break;
      default:
        cst = parser.plainUnit();
    }
    if (parser.errors.length > 0) {
      const err = parser.errors[0];
      const token = err.token && !Number.isNaN(err.token.startOffset) && err.token.image ? err.token : tokens[tokens.length - 1];
      if (!err.token || Number.isNaN(err.token.startOffset)) {
        this.diag(this.sites.item(token), 'error', 'syntax', t('Incomplete: the line ends after {0}.', JSON.stringify(token.image)));
      } else {
        this.diag(this.sites.item(token), 'error', 'syntax', t('Unexpected {0}.', JSON.stringify(token.image)));
      }
      if (blockOpen) this.pushBroken(this.sites.item(blockOpen));
      return;
    }
    this.applyUnit(ctx, cst, tokens, blockOpen);
  }

  private applyUnit(ctx: BlockKind | 'top', cst: CstNode, tokens: IToken[], blockOpen: IToken | undefined): void {
    const depthBefore = this.stack.length;
    if (ctx === 'chain') {
      // Rules keep ranges of their own (lazy ones none): a chain unit makes its range only when it needs it.
      chainUnit(this, cst, tokens);
      if (blockOpen && this.stack.length === depthBefore) this.pushBroken(this.sites.item(blockOpen));
      return;
    }
    // The ranges of chain headers (chains keep their positions as numbers) are garbage once read: they are made at
    // their own allocation sites. Not those of set and map headers: sets keep them (a kube-proxy dump declares
    // thousands of affinity sets).
    const chainHeader = ctx === 'table' && tokens[0].image === 'chain';
    const sites = this.sites;
    if (chainHeader) this.sites = SHORT_LIVED_RANGES;
    const range = this.unitRange(tokens, blockOpen);
    if (!chainHeader) this.sites = sites;
    switch (ctx) {
      case 'top':
        topUnit(this, cst, range, blockOpen);
        break;
      case 'table':
        try {
          tableUnit(this, cst, range, blockOpen);
        } finally {
          this.sites = sites;
        }
        break;
      case 'set':
      case 'map':
      case 'flowtable':
      case 'object':
        declarationUnit(this, cst, range);
        break;
      case 'broken':
        break;
    }
    if (blockOpen && this.stack.length === depthBefore) {
      // A header that did not open anything (reported already): keep the braces balanced.
      this.pushBroken(this.sites.item(blockOpen));
    }
  }

  /** From the unit's first token to its last, or to the `{` after it that opens a block. */
  unitRange(tokens: IToken[], blockOpen: IToken | undefined): Range {
    return this.sites.between(this.sites.item(tokens[0]).start, this.sites.item(blockOpen ?? tokens[tokens.length - 1]).end);
  }

  // ---------------------------------------------------------------------------------------------------
  // Blocks: opened by the visitors, closed by `}` or by a header that cannot be inside them

  push(block: Block): void {
    this.stack.push(block);
  }

  private pushBroken(header: Range): void {
    this.stack.push({ kind: 'broken', header });
  }

  /** A `table … {` header: its block opens (table-units.ts). */
  openTable(table: NftTable, header: Range): void {
    openTableBlock(this, table, header);
  }

  openDeclaration(table: NftTable, object: string, name: string, nameRange: Range, header: Range, block: boolean): void {
    openDeclarationBlock(this, table, object, name, nameRange, header, block);
  }

  /** A `}` outside any group: it closes the innermost block. */
  closeBrace(token: IToken): void {
    if (this.stack.length === 0) {
      this.diag(this.sites.item(token), 'error', 'unexpected-brace', t('This } closes nothing.'));
      return;
    }
    // A chain keeps its full range as numbers: the ranges made to close it are garbage.
    const sites = this.sites;
    if (this.stack[this.stack.length - 1].kind === 'chain') this.sites = SHORT_LIVED_RANGES;
    this.closeBlock(this.sites.item(token));
    this.sites = sites;
  }

  /** Closes blocks (reporting each as unclosed) until `kind` is on top. */
  private recoverTo(kind: 'top' | 'table', first: IToken): void {
    const at = this.sites.item(first);
    while (this.stack.length > 0 && !(kind === 'table' && this.contextKind() === 'table')) {
      const block = this.stack[this.stack.length - 1];
      if (block.kind !== 'broken') this.diag(block.header, 'error', 'missing-brace', t('This block is not closed: a } is missing before line {0}.', at.start.line + 1));
      // At the end of the line before the unit; where the block opened on the unit's own line, right before it.
      const prev = at.start.line - 1;
      if (block.header.start.line < at.start.line) this.closeBlock(lineRange(prev, this.lineLength(prev), this.lineLength(prev)));
      else this.closeBlock(lineRange(at.start.line, at.start.character, at.start.character));
    }
  }

  closeBlock(closing: Range): void {
    const block = this.stack.pop();
    if (!block) return;
    const full = this.sites.between(block.header.start, closing.end);
    switch (block.kind) {
      case 'table':
        if (block.table && block.table.range === block.header) block.table.range = full;
        break;
      case 'chain':
        if (block.chain && (block.chain instanceof ChainNode ? block.chain.fullRangeIs(block.header) : block.chain.fullRange === block.header)) block.chain.fullRange = full;
        // exact capacity: see StatementReader.readRule
        if (block.chain && block.chain.rules.length < 32) block.chain.rules = block.chain.rules.slice();
        break;
      case 'set':
      case 'map':
        if (block.set && block.set.fullRange === block.header) block.set.fullRange = full;
        break;
      case 'flowtable':
        if (block.flowtable) block.flowtable.fullRange = full;
        break;
      case 'object':
        if (block.object) block.object.fullRange = full;
        break;
    }
    const definition = block.definition;
    if (definition && (definition instanceof StoredDefinition || definition instanceof ChainDefinition ? definition.fullRangeIs(block.header) : definition.fullRange === block.header)) definition.fullRange = full;
    if (this.stack.length === 0) this.currentTable = undefined;
  }

  // ---------------------------------------------------------------------------------------------------
  // The end of the text

  /** Reads the text, each line by the first of `accelerators` that takes it, else the reference way. */
  build(accelerators: readonly Accelerator<NftTextSink>[]): NftRuleset {
    const lines = this.lines;
    const text = this.document;
    // Each line goes to the first accelerator that takes it, else to the reference reader (made a string there).
    const reference = (i: number, start: number, end: number) => {
      this.lineStart = start;
      this.readLine(i, this.lineText(start, end));
    };
    readLines(text, { sink: this as NftTextSink, accelerators, reference });
    this.units.flush();
    const lastLine = Math.max(0, lines.count - 1);
    const eof = lineRange(lastLine, this.lineLength(lastLine), this.lineLength(lastLine));
    while (this.stack.length > 0) {
      const block = this.stack[this.stack.length - 1];
      if (block.kind !== 'broken') this.diag(block.header, 'error', 'missing-brace', t('This block is not closed: a } is missing at the end of the file.'));
      this.closeBlock(eof);
    }
    this.sink.edited.settleAll();
    this.deletedElements.apply();
    this.sink.deletedChains.apply();
    this.references.resolve(this.symbols, this.sink.declaredTables, (...d) => this.diag(...d));
    this.applyWarnings();
    const placeholders = this.placeholders.diagnostic();
    if (placeholders) this.sink.append(placeholders);
    const managed = this.tables.length > 0 && this.tables.every((tb) => tb.managedBy === 'iptables-nft');
    return {
      dialect: 'nftables',
      producer: managed ? 'iptables-nft' : undefined,
      format: 'text',
      tables: this.tables,
      tableById: this.tableById,
      diagnostics: this.sink.closeDiagnostics(),
      symbols: this.symbols,
      lineCount: lines.count,
      defines: this.defines,
      includes: this.includes,
      commands: this.commands,
      comments: this.comments,
      ruleByLine: this.ruleByLine,
    };
  }

  private applyWarnings(): void {
    for (const c of this.comments) {
      const m = /^#\s*Warning: table (\S+) (\S+) is managed by iptables-nft/.exec(c.text);
      if (!m) continue;
      const table = this.tableById.get(`${m[1]} ${m[2]}`);
      if (table) table.managedBy = 'iptables-nft';
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // What the visitors use (ReaderHost): names, tables, chains, sets and their references

  /** A name: a word, a quoted string, or a variable holding one. */
  nameOf(item: Item | undefined): string | undefined {
    if (item === undefined || isGroup(item)) return undefined;
    if (isWordy(item)) return item.image;
    if (item.tokenType === StringTok) return unquote(item.image);
    if (item.tokenType === Variable) {
      const v = this.variable(item.image.slice(1), this.sites.item(item));
      if (v && v.kind === 'value') return v.value;
    }
    return undefined;
  }

  /** `[family] name…`: reads `count` names, the family first when it is one and enough names follow. */
  spec(items: Item[], from: number, count: number): Spec | undefined {
    let i = from;
    let family: NftFamily = 'ip';
    let familyGiven = false;
    const first = wordOf(items[i]);
    if (first !== undefined && isNftFamily(first)) {
      let names = 0;
      for (let k = i + 1; k < items.length && names < count && this.nameOf(items[k]) !== undefined; k++) names++;
      if (names >= count) {
        family = first;
        familyGiven = true;
        i++;
      }
    }
    const names: string[] = [];
    const ranges: Range[] = [];
    for (let k = 0; k < count; k++) {
      const item = items[i];
      const name = this.nameOf(item);
      if (name === undefined) return undefined;
      names.push(name);
      ranges.push(this.sites.item(item));
      i++;
    }
    return { family, familyGiven, names, ranges, next: i };
  }

  missing(range: Range, what: string): void {
    this.diag(range, 'error', 'syntax', t('{0} is missing here.', what));
  }

  ensureTable(family: NftFamily, name: string, nameRange: Range, declRange: Range, declare: boolean): NftTable {
    const table = this.sink.table(family, name, nameRange, declRange);
    if (declare) {
      this.sink.declareTable(table, nameRange, declRange);
      // One definition per table id, also when a deleted table is declared again.
      const id = table.id;
      if (!this.tableDefinitions.has(id)) this.tableDefinitions.set(id, this.sink.defineTable(family, name, nameRange, declRange));
    }
    return table;
  }

  /**
   * One string per chain, set or map name: references and definitions share it (as do the lines they are on).
   * A name its table has already is its object's: `names` holds only the names referenced before their table
   * has them (kube-proxy's maps name the service chains listed after them), not all 100,000 chains (docs/performance.md#memory).
   */
  name(kind: 'chain' | 'set', table: NftTable, name: string): string {
    const defined = kind === 'chain' ? table.chainByName.get(name) : (table.setByName.get(name) ?? table.mapByName.get(name));
    if (defined !== undefined) return defined.name;
    const known = this.names.get(name);
    if (known !== undefined) return known;
    this.names.set(name, name);
    return name;
  }

  pend(kind: 'chain' | 'set', table: NftTable, name: string, range: Range, role: ReferenceRole): void {
    this.pendShared(kind, table, this.name(kind, table, name), range, role);
  }

  /** pend() of a name that is the shared string already. */
  private pendShared(kind: 'chain' | 'set', table: NftTable, name: string, range: Range, role: ReferenceRole): void {
    this.references.add(kind, table, name, range, role, this.seq);
  }

  ensureChain(table: NftTable, name: string, nameRange: Range, declRange: Range, declare: boolean, role: ReferenceRole): { chain: NftChain; definition?: SymbolDefinition } {
    let chain = table.chainByName.get(name);
    // A chain made here has the declaration's ranges already.
    let created = false;
    if (chain === undefined) {
      // The string of the references before it, if any (see name()).
      name = this.names.get(name) ?? name;
      chain = this.sink.newChain(table, name, nameRange, declRange);
      created = true;
    } else name = chain.name;
    let definition: SymbolDefinition | undefined;
    // A chain made here has no definition yet unless a table of this id forgot a chain (a declared chain stays in
    // chainByName until then): one lookup fewer in a map of 100,000 names per chain.
    if (declare && ((created && !this.chainsForgotten) || this.symbols.definition('chain', table.id, name) === undefined)) {
      chain.declared = true;
      if (!created) {
        chain.range = declRange;
        chain.nameRange = nameRange;
        chain.fullRange = declRange;
      }
      // A chain made here has no definition (see above): no lookup of its name before storing it.
      definition = this.sink.defineChain(table, chain, nameRange, declRange, created && !this.chainsForgotten);
      const d = this.references.defsOf(table.id);
      if (d.chainSeq < 0) d.chainSeq = this.seq;
      else if (d.chainSeq !== this.seq) d.laterChains.set(name, this.seq);
    } else {
      if (declare) chain.declared = true;
      this.pendShared('chain', table, name, nameRange, declare ? 'command' : role);
    }
    return { chain, definition };
  }

  ensureSet(table: NftTable, kind: 'set' | 'map', name: string, nameRange: Range, declRange: Range): { set: NftSet | NftMap; definition?: SymbolDefinition } {
    const set = (kind === 'map' ? table.mapByName.get(name) : table.setByName.get(name)) ?? this.sink.newSet(table, kind, name, nameRange, declRange);
    const sets = this.references.defsOf(table.id).sets;
    let definition: SymbolDefinition | undefined;
    if (!sets.has(name)) {
      definition = this.sink.defineObject(kind, table, name, nameRange, declRange);
      sets.set(name, { definition, seq: this.seq });
    } else {
      this.pend('set', table, name, nameRange, 'command');
    }
    return { set, definition };
  }

  handleOf(range: Range): number | undefined {
    return this.handleAt(range.end.line);
  }

  /** The handle in the comment of the current line, when `endLine` (where a declaration or rule ends) is that line. */
  private handleAt(endLine: number): number | undefined {
    const c = this.lineComment;
    if (!c || c.startLine !== endLine) return undefined;
    const m = /^#\s*handle\s+(\d+)/.exec(c.image);
    return m ? Number(m[1]) : undefined;
  }

  // ---------------------------------------------------------------------------------------------------
  // Rules: made, indexed by line, forgotten

  makeRule(table: NftTable, chain: NftChain, items: Item[]): NftRule {
    this.currentTable = table;
    // Where the rule is, as numbers: a lazy rule keeps no range object.
    const firstTok = firstToken(items[0]);
    const lastTok = lastToken(items[items.length - 1]);
    const line = lineOf(firstTok);
    const startCharacter = firstTok.startOffset;
    const endCharacter = lastTok.startOffset + lastTok.image.length;
    const lazy = line === lineOf(lastTok) && line === this.line && isLazyRuleSpan(startCharacter, endCharacter) && this.canReread(line, startCharacter, endCharacter);
    // The statements of a lazy rule are garbage after this reading: their texts need not be shared, and they
    // are made at allocation sites of their own (see RangeSites).
    this.discarding = lazy;
    const sites = this.sites;
    if (lazy) this.sites = SHORT_LIVED_RANGES;
    let statements: NftStatement[];
    try {
      // A lazy rule of a plain shape only needs its references reported: its statements are read on demand.
      statements = lazy && reportPlainRuleReferences(items, this, this.sites) ? NO_STATEMENTS : this.reader.readRule(items);
    } finally {
      this.sites = sites;
      this.discarding = false;
    }
    const range = lazy ? undefined : this.sites.items(items);
    const rule: NftRule =
      range === undefined
        ? new LazyRule(table.id, chain.name, this.rereadDocument, line, this.lineStart, startCharacter, endCharacter)
        : { tableId: table.id, chain: chain.name, index: 0, statements, raw: this.text(range), range };
    for (const st of statements) {
      if (st.kind === 'comment') rule.comment = st.comment;
      else if (st.kind === 'raw') {
        const first = /^[^\s]+/.exec(st.text)?.[0] ?? '';
        if (!isKnownStatementWord(first)) {
          this.diag(st.range, 'warning', 'unknown-statement', t('{0} is not an nft statement this extension knows; kept as written.', JSON.stringify(first)));
        }
      }
    }
    this.xtResidue(items);
    const handle = this.handleAt(range === undefined ? line : range.end.line);
    if (handle !== undefined) rule.handle = handle;
    this.indexRule(rule, line);
    return rule;
  }

  /** Whether the rule in columns [start, end) of the current line is kept as a LazyRule (the same on both paths). */
  private canReread(line: number, start: number, end: number): boolean {
    if (!this.lazyRules) return false;
    const fast = this.fastUnits;
    return fast === undefined ? this.rereadCheck.canReread(this.lines.line(line)!, line, start, end) : fast.canReread(start, end);
  }

  /**
   * `xt match "multiport"`, `xt target "TPROXY"`: how nft lists an iptables-nft rule's compat expression. nft
   * itself cannot read it back ("unsupported xtables compat expression"): say where the rule came from.
   */
  private xtResidue(items: Item[]): void {
    for (let k = 0; k + 2 < items.length; k++) {
      if (wordOf(items[k]) !== 'xt') continue;
      const type = wordOf(items[k + 1]);
      if (type !== 'match' && type !== 'target' && type !== 'watcher') continue;
      const name = isGroup(items[k + 2]) ? '' : unquote((items[k + 2] as IToken).image);
      this.diag(
        this.sites.items(items.slice(k, k + 3)),
        'hint',
        'xt-compat',
        t(
          'An iptables-nft rule: nft lists its {0} {1} as "xt", but cannot restore it ("unsupported xtables compat expression"). Save and restore it with iptables-nft-save / iptables-nft-restore.',
          type,
          JSON.stringify(name),
        ),
      );
    }
  }

  private indexRule(rule: NftRule, line: number): void {
    // The first rule of a line is its entry. Rules come in line order: a line has one already only if it was the last.
    if (line !== this.lastRuleLine) {
      this.ruleByLine.set(line, rule);
      this.lastRuleLine = line;
    }
  }

  /** Takes a rule out of ruleByLine (deleted, replaced, its chain flushed or its table removed). */
  forgetRule(rule: NftRule): void {
    const line = rule.range.start.line;
    if (this.ruleByLine.get(line) === rule) {
      this.ruleByLine.delete(line);
      if (line === this.lastRuleLine) this.lastRuleLine = -1;
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // StatementHost

  text(range: Range): string {
    const { start, end } = range;
    if (start.line === end.line) {
      const text = this.lineSlice(start.line, start.character, end.character);
      if (this.fastUnits === undefined || this.discarding || text.length > MAX_INTERNED) return text;
      const known = this.interned.get(text);
      if (known !== undefined) return known;
      this.interned.set(text, text);
      return text;
    }
    const parts = [(this.lines.line(start.line) ?? '').slice(start.character)];
    for (let l = start.line + 1; l < end.line; l++) parts.push(this.lines.line(l) ?? '');
    parts.push((this.lines.line(end.line) ?? '').slice(0, end.character));
    return parts.join('\n');
  }

  /** Line `line` from column `from` to `to` (as the line's slice(from, to); '' past the last line). */
  private lineSlice(line: number, from: number, to: number): string {
    const lines = this.lines;
    if (!(Number.isInteger(line) && line >= 0 && line < lines.count)) return '';
    const start = lines.start(line);
    const length = lines.end(line) - start;
    // Columns as slice() takes them: negative ones count from the end, all are clamped to the line.
    const column = (k: number) => {
      const c = Math.trunc(k) || 0;
      return c < 0 ? Math.max(length + c, 0) : Math.min(c, length);
    };
    return this.document.slice(start + column(from), start + column(to));
  }

  /** The length of line `line` (0 past the last line). */
  private lineLength(line: number): number {
    return Number.isInteger(line) && line >= 0 && line < this.lines.count ? this.lines.end(line) - this.lines.start(line) : 0;
  }

  chainReference(name: string, range: Range, role: 'jump' | 'goto'): void {
    const table = this.currentTable;
    if (!table) return;
    // Most jumps of a dump go to one chain (`jump mark-for-masquerade`): the shared string of the last target,
    // compared by its characters, spares a lookup of the new string in a map of 100,000 names (see name()).
    if (table !== this.lastTargetTable || name !== this.lastTarget) {
      this.lastTarget = this.name('chain', table, name);
      this.lastTargetTable = table;
    }
    this.pendShared('chain', table, this.lastTarget, range, role);
  }

  /** The last chainReference's table and shared name string. */
  lastTargetTable: NftTable | undefined;
  lastTarget = '';

  setReference(name: string, range: Range): void {
    if (this.currentTable) this.pend('set', this.currentTable, name, range, 'lookup');
  }

  variable(name: string, range: Range): NftExpression | undefined {
    const def = this.defineByName.get(name);
    if (!def) {
      this.diag(range, 'error', 'undefined-variable', t('Variable ${0} is not defined (before this line).', name));
      return undefined;
    }
    return def.expression;
  }

  /** Anonymised addresses and MACs: one diagnostic for all of them. */
  private readonly placeholders = new PlaceholderTally();

  /** An element or statement not understood because of a placeholder (`<IP>`, `X.X.X.X`) is counted, not reported. */
  private isPlaceholderProblem(range: Range, code: string): boolean {
    if (code !== 'bad-element' && code !== 'unknown-statement') return false;
    const line = range.start.line;
    const at = placeholderIn(this.document.slice(this.lines.start(line), this.lines.end(line)));
    if (!at) return false;
    this.placeholders.note(lineRange(line, at.start, at.end));
    return true;
  }

  diag(range: Range, severity: Severity, code: string, message: string): void {
    if (!this.isPlaceholderProblem(range, code)) this.sink.diag(range, severity, code, message);
  }

  // ---------------------------------------------------------------------------------------------------
  // What the accelerators call (NftTextSink)

  lineBlock(start: number, end: number): Block | undefined {
    if (!this.units.idle || this.stack.length === 0 || end - start > MAX_LINE_LENGTH) return undefined;
    if (this.mayHoldNul) {
      const nul = this.document.indexOf('\u0000', start);
      if (nul >= 0 && nul < end) return undefined;
    }
    return this.stack[this.stack.length - 1];
  }

  lineText(start: number, end: number): string {
    if (start !== this.cachedLineStart || end !== this.cachedLineEnd) {
      this.cachedLine = this.document.slice(start, end);
      this.cachedLineStart = start;
      this.cachedLineEnd = end;
    }
    return this.cachedLine;
  }

  addLazyRule(i: number, lineStart: number, start: number, end: number): void {
    const block = this.stack[this.stack.length - 1];
    const chain = block.chain!;
    const rule = new LazyRule(block.table!.id, chain.name, this.rereadDocument, i, lineStart, start, end);
    this.indexRule(rule, i);
    this.sink.edited.push(chain, rule);
  }

  /** A word as fastLexLine gives it outside chains: short ones shared. */
  intern(word: string): string {
    if (word.length > MAX_INTERNED) return word;
    const known = this.interned.get(word);
    if (known !== undefined) return known;
    this.interned.set(word, word);
    return word;
  }
}

/** The first token of an item (a group's opening brace or parenthesis). */
function firstToken(item: Item): IToken {
  return isGroup(item) ? groupTokens(item).open : item;
}

/** The last token of an item (a group's closing brace or parenthesis). */
function lastToken(item: Item): IToken {
  return isGroup(item) ? groupTokens(item).close : item;
}
