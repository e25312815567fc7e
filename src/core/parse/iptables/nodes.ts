// The lean iptables model: rules, options, matches and targets keep token indexes instead of Range objects
// and create the ranges (plain `{ start, end }` objects, as everywhere else) only when a feature asks.
// A 400,000-line dump would otherwise hold tens of millions of small objects (docs/performance.md#memory).
//
// Token offsets of a line come from `scanLine` (the fast path's lexer, re-run on demand from `raw`), or, for
// lines the Chevrotain lexer read, from an explicit offsets array kept for the rule (ruleOffsets).
import { findMatchOption, type Chain, type Counters, type Match, type Option, type Rule, type RuleOperation, type Target, type TargetKind } from '../../model/iptables';
import type { Range } from '../../model/range';
import { DeclarationRanges } from '../../model/compact/declarations';
import { doubledTo } from '../../model/compact/typed-arrays';
import { defineRareFields } from '../../model/compact/rare-fields';
import type { RuleFactRows } from '../../model/compact/rule-facts';
import type { ReferenceRole, SymbolReference } from '../../model/symbols';

/**
 * The chains whose rules' facts the parser keeps for the Service catalog: kube-proxy's, but for the endpoint chains
 * (half of a large dump's rules), of which the catalog reads one rule only for a Service without a protocol.
 */
export const hasRuleFacts = (chain: string): boolean => chain.startsWith('KUBE-') && !chain.startsWith('KUBE-SEP-');

export const K_VALUE = 0;
export const K_LONG = 1;
export const K_SHORT = 2;
export const K_BANG = 3;

/** Reusable token table of one line: start and end (exclusive) column and kind of each token. */
export class TokenTable {
  start = new Int32Array(256);
  end = new Int32Array(256);
  kind = new Uint8Array(256);
  /** A token contains a double quote (its value must be unquoted). */
  quoted = new Uint8Array(256);
  count = 0;

  ensure(capacity: number): void {
    if (capacity <= this.start.length) return;
    const size = doubledTo(this.start.length, capacity);
    this.start = new Int32Array(size);
    this.end = new Int32Array(size);
    this.kind = new Uint8Array(size);
    this.quoted = new Uint8Array(size);
  }
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 12 || c === 11 || c === 13;
const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** A word starting like a `[packets:bytes]` prefix: only the whole word may be one (see scanLine). */
export const COUNTERS_PREFIX = /^\[\d+:\d+\]/;
/** A whole `[packets:bytes]` token. */
export const FULL_COUNTERS = /^\[\d+:\d+\]$/;

/**
 * Splits a well-formed line into tokens exactly as the Chevrotain lexer (lexer.ts) would, and classifies them
 * as options, `!` or values. Returns the token count, or -1 when the line holds anything whose lexing is not
 * plain (comments, unterminated quotes, non-ASCII token starts, quotes after `*`/`:`, glued counters): such
 * lines go to the Chevrotain lexer and parser, which also produce the diagnostics.
 */
export function scanLine(text: string, out: TokenTable): number {
  // Most lines separate tokens by single spaces and hold no tab, form feed, vertical tab, CR or NUL: in those,
  // the native indexOf finds the end of a token without a quote far faster than a loop over its characters.
  const plain = text.indexOf('\t') < 0 && text.indexOf('\r') < 0 && text.indexOf('\f') < 0 && text.indexOf('\v') < 0 && text.indexOf('\u0000') < 0;
  const length = text.length;
  out.ensure((length >> 1) + 2);
  const starts = out.start;
  const ends = out.end;
  const kinds = out.kind;
  const quotedFlags = out.quoted;
  let n = 0;
  let p = 0;
  let quote = plain ? text.indexOf('"') : 0;
  for (;;) {
    while (p < length && isSpace(text.charCodeAt(p))) p++;
    if (p >= length) break;
    const start = p;
    const first = text.charCodeAt(p);
    if (first < 33 || first > 126 || first === 35 /* # */) return -1;
    let quoted = 0;
    let end = plain ? text.indexOf(' ', p) : -1;
    if (plain && end < 0) end = length;
    if (plain && (quote < 0 || quote >= end)) {
      p = end;
    } else {
      while (p < length) {
        const c = text.charCodeAt(p);
        if (isSpace(c)) break;
        if (c === 0) return -1; // binary data: reported by the full path
        if (c === 34 /* " */) {
          quoted = 1;
          p++;
          for (;;) {
            if (p >= length) return -1; // never closed
            const q = text.charCodeAt(p);
            if (q === 0) return -1;
            if (q === 92 /* \ */) {
              // `\\.` in the lexer: `.` stops at line terminators.
              const next = text.charCodeAt(p + 1);
              if (p + 1 >= length || next === 10 || next === 13 || next === 0x2028 || next === 0x2029) return -1;
              p += 2;
            } else if (q === 34) {
              p++;
              break;
            } else {
              p++;
            }
          }
        } else {
          p++;
        }
      }
      if (plain) quote = text.indexOf('"', p);
    }
    let kind = K_VALUE;
    const len = p - start;
    if (quoted) {
      if (first === 42 /* * */ || first === 58 /* : */ || first === 91 /* [ */) return -1;
    } else if (first === 33 /* ! */) {
      if (len === 1) kind = K_BANG;
    } else if (first === 45 /* - */) {
      if (len === 2 && isAlnum(text.charCodeAt(start + 1))) kind = K_SHORT;
      else if (len >= 3 && text.charCodeAt(start + 1) === 45 && isAlnum(text.charCodeAt(start + 2))) {
        kind = K_LONG;
        for (let k = start + 3; k < p; k++) {
          const c = text.charCodeAt(k);
          if (!(isAlnum(c) || c === 95 || c === 46 || c === 45)) {
            kind = K_VALUE;
            break;
          }
        }
      }
    } else if (first === 91 /* [ */) {
      const m = COUNTERS_PREFIX.exec(text.slice(start, p));
      if (m && m[0].length !== len) return -1;
    }
    starts[n] = start;
    ends[n] = p;
    kinds[n] = kind;
    quotedFlags[n] = quoted;
    n++;
  }
  out.count = n;
  return n;
}

const rescanTable = new TokenTable();

/** Flattened [start0, end0, start1, end1, …] of the tokens of a line the fast path read. */
function rescan(raw: string): number[] {
  const n = scanLine(raw, rescanTable);
  const out = new Array<number>(Math.max(0, n) * 2);
  for (let k = 0; k < n; k++) {
    out[2 * k] = rescanTable.start[k];
    out[2 * k + 1] = rescanTable.end[k];
  }
  return out;
}

// Peeks: a few options of kube-proxy's rule shapes read straight from the line for the Service catalog, which
// asks them of every endpoint (200,000 rules in a 10,000-service dump): a scan of the line instead of building
// all its details. A peek answers only when the line leaves no doubt about what the details would say (one
// owner, no abbreviation or second spelling of the option, a plain unquoted value); otherwise it returns
// undefined and the caller asks the details.
const peekTable = new TokenTable();
const PEEK_ITEMS = 128;
const peekOpt = new Int32Array(PEEK_ITEMS);
const peekValue = new Int32Array(PEEK_ITEMS);
/** The item's option is negated (`! --opt`). */
const peekNegated = new Uint8Array(PEEK_ITEMS);
let peekCount = 0;

/** Splits `raw` into items (option token, first value token or -1, negated) in the peek arrays; false if unusual. */
function peekItems(raw: string): boolean {
  const n = scanLine(raw, peekTable);
  if (n <= 0) return false;
  const kinds = peekTable.kind;
  let k = raw.charCodeAt(peekTable.start[0]) === 91 /* [ */ ? 1 : 0;
  let m = 0;
  while (k < n) {
    const negated = kinds[k] === K_BANG;
    if (negated) k++;
    if (k >= n || (kinds[k] !== K_LONG && kinds[k] !== K_SHORT) || m >= PEEK_ITEMS) return false;
    peekNegated[m] = negated ? 1 : 0;
    peekOpt[m] = k++;
    if (k < n && kinds[k] === K_BANG) return false; // `--opt ! value`: the old negation, read by the full path
    peekValue[m] = k < n && kinds[k] === K_VALUE ? k : -1;
    while (k < n && kinds[k] === K_VALUE) k++;
    m++;
  }
  peekCount = m;
  return true;
}

function peekImageIs(raw: string, token: number, image: string): boolean {
  const start = peekTable.start[token];
  return peekTable.end[token] - start === image.length && raw.startsWith(image, start);
}

/** Item j's option could be `option` written in full or abbreviated (as iptables' option parser allows). */
function peekMaySpell(raw: string, j: number, option: string): boolean {
  const token = peekOpt[j];
  const start = peekTable.start[token];
  const length = peekTable.end[token] - start;
  if (peekTable.kind[token] !== K_LONG || length > option.length) return false;
  for (let i = 0; i < length; i++) if (raw.charCodeAt(start + i) !== option.charCodeAt(i)) return false;
  return true;
}

/** The plain value of item j, or undefined when it has none or it is quoted. */
function peekPlainValue(raw: string, j: number): string | undefined {
  const v = peekValue[j];
  if (v < 0 || peekTable.quoted[v]) return undefined;
  return raw.slice(peekTable.start[v], peekTable.end[v]);
}

const isMatchItem = (raw: string, j: number) => peekImageIs(raw, peekOpt[j], '-m') || peekImageIs(raw, peekOpt[j], '--match');
const isTargetItem = (raw: string, j: number) => peekImageIs(raw, peekOpt[j], '-j') || peekImageIs(raw, peekOpt[j], '--jump') || peekImageIs(raw, peekOpt[j], '-g') || peekImageIs(raw, peekOpt[j], '--goto');

const lr = (line: number, start: number, end: number): Range => ({ start: { line, character: start }, end: { line, character: end } });

// RuleNode's packed number (a small integer: < 2^30): bits 0-1 the operation, 2-9 the chain name's token (at most 4:
// counters, `!` and the command come before it), then what the parser noted of kube-proxy's rule shapes.
const CHAIN_TOKEN_SHIFT = 2;
const CHAIN_TOKEN_MASK = 0xff;
const NOTED_COLUMN_SHIFT = 10;
/** Columns fit in 17 bits: longer lines are not read (MAX_LINE_LENGTH). */
const NOTED_COLUMN_MASK = 0x1ffff;
const NOTED_PROBABILITY = 1 << 27;
/** The line was read as one of kube-proxy's shapes: an option without a noted column is absent. */
const NOTED_SHAPE = 1 << 28;

/**
 * The bits of a rule the parser read as one of kube-proxy's shapes (see RuleNode.notedValue): where the value of
 * its `option` starts (`column` > 0), or that it has neither option (`column` 0).
 */
export function notedBits(option: '--to-destination' | '--probability', column: number): number {
  return NOTED_SHAPE | (column << NOTED_COLUMN_SHIFT) | (option === '--probability' ? NOTED_PROBABILITY : 0);
}

/** What a rule holds beyond its line, chain and target name: built when first asked for (see RuleNode). */
export interface RuleDetails {
  params: Option[];
  matches: Match[];
  target: Target | undefined;
  counters: Counters | undefined;
}

/** Re-reads a rule's line into its details (the parser that read the file, kept for this). */
export interface RuleReader {
  details(rule: RuleNode): RuleDetails;
  /** The text of line `line` (a rule's, when asked for). */
  lineText(line: number): string;
  /** The facts the Service catalog reads of the rules of `KUBE-*` chains (rule-facts.ts). */
  readonly ruleFacts: RuleFactRows;
}

// Details read while `transientDepth` > 0 are not kept on the rule: a pass over every rule of a large dump (the
// Service catalog) would otherwise keep the options of all of them. The last few are remembered, because such a
// pass asks a rule, or a chain's rules, for their target, matches and params one after the other.
let transientDepth = 0;
const RECENT = 32;
const recentRules: (RuleNode | undefined)[] = new Array(RECENT).fill(undefined);
const recentDetails: (RuleDetails | undefined)[] = new Array(RECENT).fill(undefined);
let recentNext = 0;

/** Runs `fn` with rule details read on demand but not kept (a pass over many rules that reads each once). */
export function withTransientRuleDetails<T>(fn: () => T): T {
  transientDepth++;
  try {
    return fn();
  } finally {
    if (--transientDepth === 0) {
      recentRules.fill(undefined);
      recentDetails.fill(undefined);
    }
  }
}

/**
 * Token offsets of the rules that have them: lines the Chevrotain lexer read, and those whose tokens' ranges were
 * asked for (rescanned). Few rules of a large dump: a map instead of a field in each of 300,000 (docs/performance.md#memory).
 */
const ruleOffsets = new WeakMap<RuleNode, number[]>();

/**
 * A rule. The parser validates every line but keeps only what every feature needs of every rule (chain, line,
 * target name, operation); params, matches, target and counters are read again from the line when first asked for
 * and kept from then on. A 400,000-line dump would otherwise keep tens of millions of small objects (docs/performance.md#memory).
 */
export class RuleNode implements Rule {
  index = 0;
  // The `-j`/`-g` target: its name, or the chain of that name when the parser found it (the catalog follows 100,000
  // jumps to endpoint chains without looking each one up by name, docs/performance.md#memory). The table's map of chains keeps the
  // chain it first made for a name, so a chain found here is the one a lookup would find later.
  #target: string | ChainNode | undefined = undefined;
  /** The first `-d`'s value unless negated, else null: the trace indexes KUBE-SERVICES' 10,000 rules by it. */
  plainDestination: string | null = null;
  private kept: RuleDetails | undefined = undefined;
  /** The rule number of `-I CHAIN N` / `-R CHAIN N`, else undefined. */
  declare readonly position: number | undefined;
  // The chain (its name, table and the parser that reads details again) and, packed in one number, the operation
  // and the chain name's token: three fewer fields on each of 400,000 rules.
  readonly #chain: ChainNode;
  readonly #packed: number;

  constructor(
    chain: ChainNode,
    operation: RuleOperation,
    position: number | undefined,
    /** 0-based line. */
    readonly line: number,
    /** Index of the chain name token. */
    chainToken: number,
    offsets: number[] | undefined,
    /** notedBits, or 0. */
    noted = 0,
  ) {
    if (offsets !== undefined) ruleOffsets.set(this, offsets);
    // `-I CHAIN N` and `-R CHAIN N` only: a rare field (see defineRareFields).
    if (position !== undefined) (this as { position?: number }).position = position;
    this.#chain = chain;
    this.#packed = OPERATIONS.indexOf(operation) | (chainToken << CHAIN_TOKEN_SHIFT) | noted;
  }

  get tableId(): string {
    return this.#chain.tableId;
  }

  /**
   * The rule's line, cut from the document when asked: a string of its own for each of 300,000 rules, and an array
   * of all lines kept for them, were some 17 MB of a large dump's analysis (docs/performance.md#memory).
   */
  get raw(): string {
    return this.#chain.lineText(this.line);
  }

  /** The rows holding this rule's facts for the Service catalog, if the parser kept them (see rule-facts.ts). */
  factRows(): RuleFactRows | undefined {
    return this.#chain.factRows();
  }

  /** The `-j`/`-g` value (the target's name), or undefined: read by catalogs for every rule. */
  get targetName(): string | undefined {
    const target = this.#target;
    return typeof target === 'object' ? target.name : target;
  }

  set targetName(name: string | undefined) {
    this.#target = name;
  }

  /** Sets the target to a chain of the rule's table, found by the target's name. */
  targetsChain(chain: ChainNode): void {
    this.#target = chain;
  }

  /** The chain the target names when the parser found it while reading the line, else undefined (ask the table). */
  knownTargetChain(): Chain | undefined {
    const target = this.#target;
    return typeof target === 'object' ? target : undefined;
  }

  get chain(): string {
    return this.#chain.name;
  }

  get operation(): RuleOperation {
    return OPERATIONS[this.#packed & 3];
  }

  private details(): RuleDetails {
    const kept = this.kept;
    if (kept !== undefined) return kept;
    if (transientDepth === 0) return (this.kept = this.#chain.readDetails(this));
    for (let k = 0; k < RECENT; k++) if (recentRules[k] === this) return recentDetails[k]!;
    const details = this.#chain.readDetails(this);
    recentRules[recentNext] = this;
    recentDetails[recentNext] = details;
    recentNext = (recentNext + 1) % RECENT;
    return details;
  }

  get params(): Option[] {
    return this.details().params;
  }

  get matches(): Match[] {
    return this.details().matches;
  }

  /**
   * The values of `options` (each an option `module` knows, given once, not negated) of the rule's one
   * `-m module`, read from the line: what findMatchOption would give, or undefined when only the details can tell
   * (see the peeks).
   */
  peekMatchOptions(module: string, options: readonly string[]): (string | undefined)[] | undefined {
    if (this.kept !== undefined) {
      // Already read: the same answer from the details, as cheap as the line's.
      const found = options.map((option) => findMatchOption(this, module, option));
      return found.some((o) => o?.negated) ? undefined : found.map((o) => o?.values[0]);
    }
    // A random statistic the parser noted (100,000 endpoint rules in a large dump): no scan of the line.
    if (module === 'statistic') {
      const probability = this.notedValue('--probability');
      if (typeof probability === 'string' && options.every((o) => o === '--mode' || o === '--probability')) {
        return options.map((o) => (o === '--mode' ? 'random' : probability));
      }
    }
    const raw = this.raw;
    if (!peekItems(raw)) return undefined;
    let owner = -1;
    for (let j = 1; j < peekCount; j++) {
      if (!isMatchItem(raw, j) || peekValue[j] < 0) continue;
      if (peekTable.quoted[peekValue[j]]) return undefined; // `-m "name"`: the details unquote it
      if (!peekImageIs(raw, peekValue[j], module)) continue;
      if (owner >= 0) return undefined;
      owner = j;
    }
    // No such match at all (the last rule of a KUBE-SVC chain has no statistic): none of its options either.
    if (owner < 0) return options.map(() => undefined);
    // The module's own run of options: up to the next match or target.
    let end = owner + 1;
    while (end < peekCount && !isMatchItem(raw, end) && !isTargetItem(raw, end)) end++;
    const out: (string | undefined)[] = [];
    for (const option of options) {
      let at = -1;
      for (let j = 1; j < peekCount; j++) {
        if (!peekMaySpell(raw, j, option)) continue;
        if (at >= 0 || j <= owner || j >= end || !peekImageIs(raw, peekOpt[j], option)) return undefined;
        at = j;
      }
      if (at < 0) {
        out.push(undefined);
        continue;
      }
      if (peekNegated[at]) return undefined;
      const value = peekPlainValue(raw, at);
      if (value === undefined) return undefined;
      out.push(value);
    }
    return out;
  }

  /** The value of the target's `option` (written in full, once, in the target's run), read from the line; or undefined. */
  peekTargetOption(option: string): string | undefined {
    if (this.kept !== undefined || this.targetName === undefined) return undefined;
    if (option === '--to-destination') {
      const noted = this.notedValue(option);
      if (typeof noted === 'string') return noted;
    }
    const raw = this.raw;
    if (!peekItems(raw)) return undefined;
    let target = -1;
    for (let j = 1; j < peekCount && target < 0; j++) if (isTargetItem(raw, j)) target = j;
    if (target < 0 || peekValue[target] < 0 || !peekImageIs(raw, peekValue[target], this.targetName)) return undefined;
    // The target's own run of options: after a later `-m`, an option may belong elsewhere, or to nothing.
    let end = target + 1;
    while (end < peekCount && !isMatchItem(raw, end) && !isTargetItem(raw, end)) end++;
    let at = -1;
    for (let j = target + 1; j < peekCount; j++) {
      if (!peekMaySpell(raw, j, option)) continue;
      if (at >= 0 || j >= end || !peekImageIs(raw, peekOpt[j], option)) return undefined;
      at = j;
    }
    return at < 0 ? undefined : peekPlainValue(raw, at);
  }

  get target(): Target | undefined {
    return this.targetName === undefined ? undefined : this.details().target;
  }

  get counters(): Counters | undefined {
    return this.details().counters;
  }

  /** Range of tokens `first` through `last` of the line. */
  tokenSpan(first: number, last: number): Range {
    let o = ruleOffsets.get(this);
    if (o === undefined) ruleOffsets.set(this, (o = rescan(this.raw)));
    return lr(this.line, o[2 * first], o[2 * last + 1]);
  }

  get range(): Range {
    const raw = this.raw;
    const first = raw.charCodeAt(0);
    const last = raw.charCodeAt(raw.length - 1);
    // Nearly every line starts and ends with a printable ASCII character: no trimmed copies to make.
    if (first > 32 && first < 127 && last > 32 && last < 127) return lr(this.line, 0, raw.length);
    return lr(this.line, raw.length - raw.trimStart().length, raw.trimEnd().length);
  }

  /**
   * The first value of the `-j DNAT` target's `--to-destination`, or of the statistic match's `--probability` (the
   * match then has `--mode random`), as the details would give it, read from the line at the column the parser
   * noted. null: the rule has no such option. undefined: the parser did not note it (the rule is not one of the
   * kube-proxy shapes it recognises); only the details, or a peek, can tell.
   */
  notedValue(option: '--to-destination' | '--probability'): string | null | undefined {
    const packed = this.#packed;
    if ((packed & NOTED_SHAPE) === 0) return undefined;
    const column = (packed >> NOTED_COLUMN_SHIFT) & NOTED_COLUMN_MASK;
    if (column === 0 || ((packed & NOTED_PROBABILITY) !== 0) !== (option === '--probability')) return null;
    const raw = this.raw;
    const end = raw.indexOf(' ', column);
    return raw.slice(column, end < 0 ? raw.length : end);
  }

  /**
   * The parser read the line as one of kube-proxy's usual shapes, whose only matches are tcp, udp, sctp, comment and
   * statistic (so, for one, it has no `-m recent`).
   */
  isKubeShape(): boolean {
    return (this.#packed & NOTED_SHAPE) !== 0;
  }

  get chainRange(): Range {
    const chainToken = (this.#packed >> CHAIN_TOKEN_SHIFT) & CHAIN_TOKEN_MASK;
    return this.tokenSpan(chainToken, chainToken);
  }
}

defineRareFields(RuleNode.prototype, ['position']);

export const NEGATED_BEFORE = 1;
export const NEGATED_AFTER = 2;

export class OptionNode implements Option {
  /** The value of a one-value option as it is (no array per option), else the array. */
  private readonly stored: string | string[];
  constructor(
    readonly name: string,
    readonly negated: boolean,
    values: string[],
    private readonly rule: RuleNode,
    /** The option's own token. */
    private readonly token: number,
    /** The last token of the option as written (its last value, even one that was not taken). */
    readonly lastToken: number,
    /** NEGATED_BEFORE | NEGATED_AFTER. */
    private readonly flags: number,
  ) {
    this.stored = values.length === 1 ? values[0] : values;
  }

  /** Unquoted values; a one-value option makes its array when asked. */
  get values(): string[] {
    const stored = this.stored;
    return typeof stored === 'string' ? [stored] : stored;
  }

  get firstToken(): number {
    return this.flags & NEGATED_BEFORE ? this.token - 1 : this.token;
  }

  get range(): Range {
    return this.rule.tokenSpan(this.firstToken, this.lastToken);
  }

  get nameRange(): Range {
    return this.rule.tokenSpan(this.token, this.token);
  }

  get valueRanges(): Range[] {
    const first = this.token + (this.flags & NEGATED_AFTER ? 2 : 1);
    const count = typeof this.stored === 'string' ? 1 : this.stored.length;
    const out: Range[] = [];
    for (let k = 0; k < count; k++) out.push(this.rule.tokenSpan(first + k, first + k));
    return out;
  }
}

export class MatchNode implements Match {
  options: Option[] = [];
  constructor(
    readonly module: string,
    private readonly rule: RuleNode,
    /** First token of the range: `-m`, or the `-p` option of an implicit match. */
    private firstToken: number,
    /** Last token of the range (grows with the options). */
    public lastToken: number,
    /** The module name token, -1 for implicit matches. */
    private readonly moduleToken: number,
    readonly implicit: boolean,
  ) {}

  /** An implicit match starts where the rule's `-p` option does. */
  startAt(token: number): void {
    this.firstToken = token;
  }

  get range(): Range {
    return this.rule.tokenSpan(this.firstToken, this.lastToken);
  }

  get moduleRange(): Range | undefined {
    return this.moduleToken < 0 ? undefined : this.rule.tokenSpan(this.moduleToken, this.moduleToken);
  }
}

export class TargetNode implements Target {
  options: Option[] = [];
  constructor(
    readonly kind: TargetKind,
    readonly name: string,
    private readonly rule: RuleNode,
    private readonly firstToken: number,
    private readonly nameToken: number,
    public lastToken: number,
  ) {}

  get range(): Range {
    return this.rule.tokenSpan(this.firstToken, this.lastToken);
  }

  get nameRange(): Range {
    return this.rule.tokenSpan(this.nameToken, this.nameToken);
  }
}

/** A chain: its ranges (see DeclarationRanges) and counters are kept as numbers and made into objects when read. */
const OPERATIONS: readonly RuleOperation[] = ['append', 'insert', 'delete', 'replace'];

const HAS_COUNTERS = 1;
const JUMPED_TO = 2;
/** Above the bits: 1 + the index of the chain's first `-j DNAT` rule, or 0. */
const FIRST_DNAT_SHIFT = 2;

export class ChainNode extends DeclarationRanges implements Chain {
  declared = false;
  policy: string | undefined = undefined;
  rules: Rule[] = [];
  deletedAt: Range | undefined = undefined;
  /** HAS_COUNTERS and JUMPED_TO bits, and where the first DNAT rule is (one field: each of 100,000 chains would carry more). */
  private flags = 0;
  // Counters: packets, bytes, and the line and columns of their token.
  private packets = 0;
  private bytes = 0;
  private c0 = 0;
  private c1 = 0;
  private c2 = 0;

  // A private field, not a property: the parser (and through it the whole document) must never travel with a chain.
  readonly #reader: RuleReader;

  constructor(
    readonly name: string,
    readonly tableId: string,
    readonly builtin: boolean,
    range: Range,
    reader: RuleReader,
  ) {
    super();
    this.range = range;
    this.nameRange = range;
    this.fullRange = range;
    this.#reader = reader;
  }

  /** Notes that a jump or goto names the chain (the parser's unreferenced-chain hints; methods, not getters, stay out of answers). */
  markJumpedTo(): void {
    this.flags |= JUMPED_TO;
  }

  isJumpedTo(): boolean {
    return (this.flags & JUMPED_TO) !== 0;
  }

  /** Adds a rule the parser read: the chain's rules are the file's, in its order (none is ever taken out). */
  addRule(rule: RuleNode): void {
    const rules = this.rules;
    rules.push(rule);
    rule.index = rules.length;
    // The catalog reads each endpoint chain's DNAT rule (100,000 of them), the second of kube-proxy's two.
    if (this.flags >> FIRST_DNAT_SHIFT === 0 && rule.targetName === 'DNAT' && rules.length < 1 << 27) this.flags |= rules.length << FIRST_DNAT_SHIFT;
  }

  /** The first of the chain's rules whose target is DNAT, or undefined. */
  firstDnatRule(): Rule | undefined {
    const at = this.flags >> FIRST_DNAT_SHIFT;
    if (at > 0) return this.rules[at - 1];
    // Past the noted range (a chain of 2^27 rules), look.
    return this.rules.length >= 1 << 27 ? this.rules.find((r) => r.targetName === 'DNAT') : undefined;
  }

  /** One of its rules' line read again, into objects (see RuleNode). */
  readDetails(rule: RuleNode): RuleDetails {
    return this.#reader.details(rule);
  }

  /** The text of one of its rules' line. */
  lineText(line: number): string {
    return this.#reader.lineText(line);
  }

  /** The rows of its rules' facts for the Service catalog, if the parser kept them for this chain. */
  factRows(): RuleFactRows | undefined {
    return hasRuleFacts(this.name) ? this.#reader.ruleFacts : undefined;
  }

  get counters(): Counters | undefined {
    if ((this.flags & HAS_COUNTERS) === 0) return undefined;
    return { packets: this.packets, bytes: this.bytes, range: lr(this.c0, this.c1, this.c2) };
  }

  set counters(c: Counters | undefined) {
    if (c === undefined) {
      this.flags &= ~HAS_COUNTERS;
      return;
    }
    this.flags |= HAS_COUNTERS;
    this.packets = c.packets;
    this.bytes = c.bytes;
    this.c0 = c.range.start.line;
    this.c1 = c.range.start.character;
    this.c2 = c.range.end.character;
  }
}

/** The `-A CHAIN` of a rule as a reference: everything comes from the rule. */
export class RuleOwnerReference implements SymbolReference {
  constructor(private readonly rule: RuleNode) {}

  get kind(): 'chain' {
    return 'chain';
  }

  get role(): ReferenceRole {
    return 'rule-owner';
  }

  get name(): string {
    return this.rule.chain;
  }

  get scope(): string {
    return this.rule.tableId;
  }

  get range(): Range {
    return this.rule.chainRange;
  }
}
