// Statements and expressions of nft rules, read from the ordered items the grammar produced for a unit.
// nft tells its statements apart by keywords (`ip daddr …`, `ct state …`, `dnat to …`, `jump x`), so this is a
// small recursive-descent reader over those items with nft's keyword tables. What it does not know it keeps
// verbatim as a `raw` statement that runs to the next statement keyword: a rule is never dropped.
import type { CstNode, IToken } from 'chevrotain';
import type { Severity } from '../../model/diagnostics';
import type { NftBinaryOperator, NftElement, NftExpression, NftMatchStatement, NftNatStatement, NftRelationalOperator, NftSetExpression, NftSetRefExpression, NftStatement, NftVerdictValue } from '../../model/nft';
import type { Range } from '../../model/range';
import { defineRareFields } from '../../model/compact/rare-fields';
import { readRange, storeRange, storeRangeOn } from '../../model/compact/ranges';
import { t } from '../../l10n';
import { groupTokens, isBraceGroup, isGroup, isParenGroup, itemsOf, type Item } from './grammar';
import { emptyNameTable } from '../../model/name-table';
import {
  Amp,
  Bang,
  Caret,
  Colon,
  Comma,
  Dot,
  EqEq,
  Greater,
  GreaterEq,
  Less,
  LessEq,
  lineOf,
  Minus,
  NotEq,
  Pipe,
  Plus,
  RawPayload,
  SetRef,
  ShiftLeft,
  ShiftRight,
  Slash,
  StringTok,
  unquote,
  Variable,
  Word,
  isWordy,
} from './lexer';
import { isWordAt, setRefEnd } from './accelerators/fast-lex';
import { appendAll } from '../../model/append';
import { ExpansionBudget } from './expansion';
import type { LineScratch } from './scratch';

/** What the statement reader needs from the document builder. */
export interface StatementHost {
  /** Source text of a range (lines joined with `\n`). */
  text(range: Range): string;
  chainReference(name: string, range: Range, role: 'jump' | 'goto'): void;
  setReference(name: string, range: Range): void;
  /** The value of `$name` at this point of the file, reporting an undefined variable. */
  variable(name: string, range: Range): NftExpression | undefined;
  diag(range: Range, severity: Severity, code: string, message: string): void;
}

const words = (s: string) => new Set(s.split(/\s+/).filter(Boolean));

export const PAYLOAD_PROTOCOLS = words('ether vlan arp ip ip6 icmp icmpv6 igmp tcp udp udplite sctp dccp th ah esp comp gre gretap geneve vxlan mh hbh dst frag srh rt0 rt2 rt4 auth');
/** nft's meta_key_unqualified: meta keys written without `meta`. */
export const BARE_META_KEYS = words(
  'mark iif iifname iiftype oif oifname oiftype skuid skgid nftrace rtclassid ibriport obriport ibrname obrname ibridgename obridgename pkttype cpu iifgroup oifgroup cgroup time day hour',
);
const EXPRESSION_KEYWORDS = words('meta ct fib numgen jhash symhash rt socket osf ipsec exthdr');
const STATEMENT_KEYWORDS = words(
  'accept drop continue return jump goto queue counter log limit quota comment reject dnat snat masquerade redirect notrack xt add update delete meter tproxy dup fwd synproxy flow last reset',
);
const SIMPLE_VERDICTS = words('accept drop continue return');
const RELATIONAL_WORDS = new Map<string, NftRelationalOperator>([
  ['eq', '=='],
  ['ne', '!='],
  ['lt', '<'],
  ['gt', '>'],
  ['le', '<='],
  ['ge', '>='],
]);
const BINOP_WORDS = new Map<string, NftBinaryOperator>([
  ['and', '&'],
  ['or', '|'],
  ['xor', '^'],
  ['lshift', '<<'],
  ['rshift', '>>'],
]);
const BINOP_PRECEDENCE: Record<NftBinaryOperator, number> = { '|': 1, '^': 2, '&': 3, '<<': 4, '>>': 4 };
const NAT_FLAGS = words('random fully-random persistent netmap');
const NAT_TYPE_FLAGS = words('addr port prefix interval');
const LOG_FLAG_WORDS = words('tcp ip sequence options skuid ether all');
const FIB_FLAGS = words('saddr daddr mark iif oif');
const RT_KEYS = words('classid nexthop mtu ipsec');
const TCP_OPTION_FIELDS = words('kind length size count left right tsval tsecr subtype value');
const IP_OPTION_FIELDS = words('type length value ptr addr');
/** Keys whose values are bit flags: an implicit operator tests the flag (`nft -j` prints `in`). */
const BITMASK_KEYS = words('ct:state ct:status ct:event tcp:flags');
const ELEMENT_OPTIONS = words('timeout expires comment counter limit quota last');

function isStatementStartWord(w: string): boolean {
  return STATEMENT_KEYWORDS.has(w) || EXPRESSION_KEYWORDS.has(w) || PAYLOAD_PROTOCOLS.has(w) || BARE_META_KEYS.has(w);
}

/** Words nft knows as the start of something; a raw statement starting with any other word is worth a warning. */
export function isKnownStatementWord(w: string): boolean {
  return isStatementStartWord(w) || words('set tproxy osf').has(w);
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const IPV6 = /^\[?[0-9A-Fa-f]*:[0-9A-Fa-f:.]*\]?$/;
const NUMBER = /^(?:0x[0-9A-Fa-f]+|\d+)$/;
const BYTES_UNIT = /^[kmg]?bytes$/;
const BURST_UNIT = /^(packets|[kmg]?bytes)$/;

function isAddress(s: string): boolean {
  return IPV4.test(s) || IPV6.test(s);
}

function isRangeEnd(s: string): boolean {
  return NUMBER.test(s) || isAddress(s);
}

/** Tokens and groups cache their range: the model shares these objects instead of allocating copies. */
type WithRange = { r?: Range };

// V8 pretenuring (docs/performance.md#memory): each object literal in the source is one allocation site, and once most objects of
// a site outlive a young-generation GC, V8 allocates all later ones straight in the old generation. The element
// lists at the top of a kube-proxy dump keep what they read (ranges, elements); the 200,000 rules after them
// (LazyRules, read once and dropped) make the same objects as garbage. Sharing one site, that garbage filled the
// old generation (with the tokens, see lexer.ts: 25× the file in peak memory for 10,000 Services instead of
// 13×). So what a reading only looks at is made at sites of its own: same objects, other literal.
// A reader's current RangeSites is KEPT_RANGES or SHORT_LIVED_RANGES (two stateless objects; which one is in use is
// the reader's, per parse): the same values, made at different literals.

/** Makes the ranges of tokens and groups, and simple verdicts, at the allocation sites of one lifetime. */
export abstract class RangeSites {
  /** `{ start: { line, character: start }, end: { line, character: end } }`. */
  protected abstract lineRange(line: number, start: number, end: number): Range;
  /** `{ start, end }`. */
  abstract between(start: Range['start'], end: Range['end']): Range;
  /** `{ kind }` of `accept`, `drop`, `continue`, `return`. */
  abstract simpleVerdict(kind: NftVerdictValue['kind']): NftVerdictValue;

  /** The range of a token or group, cached on it: the model shares these objects instead of allocating copies. */
  item(item: Item): Range {
    const cached = (item as WithRange).r;
    if (cached) return cached;
    let r: Range;
    if (isGroup(item)) {
      const { open, close } = groupTokens(item);
      r = this.between(this.item(open).start, this.item(close).end);
    } else {
      r = this.lineRange(lineOf(item), item.startOffset, item.startOffset + item.image.length);
    }
    (item as WithRange).r = r;
    return r;
  }

  /** From items[from] to items[to - 1]. */
  items(items: readonly Item[], from = 0, to = items.length): Range {
    const first = this.item(items[from]);
    const last = to - 1 === from ? first : this.item(items[to - 1]);
    return this.between(first.start, last.end);
  }
}

class KeptRanges extends RangeSites {
  protected lineRange(line: number, start: number, end: number): Range {
    return { start: { line, character: start }, end: { line, character: end } };
  }
  between(start: Range['start'], end: Range['end']): Range {
    return { start, end };
  }
  simpleVerdict(kind: NftVerdictValue['kind']): NftVerdictValue {
    return { kind };
  }
}

/** KeptRanges' objects from literals of their own (the repetition is the point: one literal is one site). */
class ShortLivedRanges extends RangeSites {
  simpleVerdict(kind: NftVerdictValue['kind']): NftVerdictValue {
    return { kind };
  }
  between(start: Range['start'], end: Range['end']): Range {
    return { start, end };
  }
  protected lineRange(line: number, start: number, end: number): Range {
    return { start: { line, character: start }, end: { line, character: end } };
  }
}

/** What the reader keeps (the model's ranges). */
export const KEPT_RANGES: RangeSites = new KeptRanges();
/** What a reading only looks at and drops (a LazyRule's readings, a chain's closing `}`). */
export const SHORT_LIVED_RANGES: RangeSites = new ShortLivedRanges();

// Elements and verdicts are kept in sets and maps, and dropped in the anonymous `vmap { … }` of lazy rules: both
// are the classes below (objects made by a constructor have no allocation site that V8 pretenures), so a reading
// gives the same objects whether it is kept or not.
function newElement(key: string[], range: Range, keyRange: Range): NftElement {
  return new ElementNode(key, range, keyRange);
}

/**
 * An element of a named set or map, its ranges kept as numbers and made when read (compare them by value). A
 * kube-proxy dump of 10,000 Services has some 28,000 such elements, and their ranges, verdicts and the positions
 * in them (ten small objects each) were some 12 MB of what the analysis kept (docs/performance.md#memory).
 */
export class ElementNode implements NftElement {
  value: string | NftVerdictValue | undefined = undefined;
  comment: string | undefined = undefined;
  /** The line the element starts on; the ranges on it are kept as packed columns (storeRangeOn). */
  readonly #line: number;
  readonly #range: number | Range;
  readonly #keyRange: number | Range;
  #valueRange: number | Range | undefined = undefined;
  // Few elements have these (defineRareFields).
  declare timeout: string | undefined;
  declare expires: string | undefined;
  declare statements: string[] | undefined;
  constructor(
    public key: string[],
    range: Range,
    keyRange: Range,
  ) {
    this.#line = range.start.line;
    this.#range = storeRange(range);
    this.#keyRange = storeRangeOn(this.#line, keyRange);
  }

  get range(): Range {
    return readRange(this.#line, this.#range);
  }

  get keyRange(): Range {
    return readRange(this.#line, this.#keyRange);
  }

  get valueRange(): Range | undefined {
    const stored = this.#valueRange;
    return stored === undefined ? undefined : readRange(this.#line, stored);
  }

  set valueRange(range: Range | undefined) {
    this.#valueRange = range === undefined ? undefined : storeRangeOn(this.#line, range);
  }
}

defineRareFields(ElementNode.prototype, ['timeout', 'expires', 'statements']);

/** A `jump` / `goto` verdict a model keeps (map data, rules read once), its chain's range kept as numbers. */
export class VerdictNode implements NftVerdictValue {
  readonly #line: number;
  readonly #chainRange: number | Range;
  constructor(
    readonly kind: 'jump' | 'goto',
    readonly chain: string,
    chainRange: Range,
  ) {
    this.#line = chainRange.start.line;
    this.#chainRange = storeRange(chainRange);
  }

  get chainRange(): Range {
    return readRange(this.#line, this.#chainRange);
  }
}

function newVerdictValue(kind: 'jump' | 'goto', chain: string, chainRange: Range): NftVerdictValue {
  return new VerdictNode(kind, chain, chainRange);
}

/** What nft says of `ADDRESS/LENGTH` when the length is longer than the address (undefined: fine). */
export function prefixProblem(address: string, length: number): string | undefined {
  const v6 = address.includes(':');
  if (length <= (v6 ? 128 : 32)) return undefined;
  return v6 ? t('Prefix length /{0} is not 0–128.', length) : t('Prefix length /{0} is more than 32.', length);
}

/** A value from its written form: prefixes and ranges of numbers and addresses get their own kinds. */
export function classifyValue(image: string, text: string, range: Range, quoted = false): NftExpression {
  if (!quoted) {
    const slash = image.lastIndexOf('/');
    if (slash > 0 && /^\d{1,3}$/.test(image.slice(slash + 1)) && isAddress(image.slice(0, slash))) {
      return { kind: 'prefix', address: image.slice(0, slash), length: Number(image.slice(slash + 1)), text, range };
    }
    const dash = image.indexOf('-', 1);
    if (dash > 0 && image.indexOf('-', dash + 1) < 0) {
      const from = image.slice(0, dash);
      const to = image.slice(dash + 1);
      if (isRangeEnd(from) && isRangeEnd(to)) return { kind: 'range', from, to, text, range };
    }
  }
  return quoted ? { kind: 'value', value: image, quoted: true, text, range } : { kind: 'value', value: image, text, range };
}

/** Splits a NAT target `addr:port`, `[v6]:port`, `a-b:p-q` or `:port` into its parts (IPv6 needs brackets for a port). */
export function splitAddressPort(value: string): { addr?: string; port?: string } {
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}(?:-\d{1,3}(?:\.\d{1,3}){3}|\/\d{1,2})?)(?::(.+))?$/.exec(value);
  if (v4) return v4[2] !== undefined ? { addr: v4[1], port: v4[2] } : { addr: v4[1] };
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close > 0) {
      const addr = value.slice(1, close);
      const rest = value.slice(close + 1);
      if (rest.startsWith(':')) return { addr, port: rest.slice(1) };
      // `[a]-[b]:port`
      const m = /^-\[([^\]]*)\](?::(.+))?$/.exec(rest);
      if (m) return { addr: `${addr}-${m[1]}`, port: m[2] };
      return { addr };
    }
  }
  if (value.startsWith(':')) return { port: value.slice(1) };
  const colons = value.split(':').length - 1;
  if (colons === 1) {
    const [addr, port] = value.split(':');
    return { addr, port };
  }
  return { addr: value };
}

type Bare<T> = T extends unknown ? Omit<T, 'text' | 'range'> : never;

interface RhsResult {
  expr: NftExpression;
  /** `tcp flags syn / syn,ack`: the mask after the slash. */
  mask?: NftExpression;
}

export class StatementReader {
  private items: Item[] = [];
  private pos = 0;
  /** The document's copies of set elements from variables (the document builder's named sets count too). */
  readonly expansions = new ExpansionBudget();

  /**
   * Where what the reader makes is allocated: SHORT_LIVED_RANGES while a reading is dropped soon (a LazyRule's),
   * else KEPT_RANGES (see RangeSites). The builder switches it around such readings.
   */
  sites: RangeSites = KEPT_RANGES;

  constructor(private readonly host: StatementHost) {}

  // ---------------------------------------------------------------------------------------------------
  // Entry points

  /** The statements of a rule. `items` must not be empty. */
  readRule(items: Item[]): NftStatement[] {
    return this.with(items, () => {
      const out: NftStatement[] = [];
      while (this.pos < this.items.length) out.push(this.statementOrRaw());
      // A pushed-to array keeps spare capacity; the copy is exact (large dumps hold millions of these).
      return out.slice();
    });
  }

  /** A value as `define` and element lists use it. */
  readValue(items: Item[]): NftExpression | undefined {
    if (items.length === 0) return undefined;
    return this.with(items, () => {
      try {
        const e = this.fullExpr();
        if (this.pos < this.items.length) return this.rawExpr(0, this.items.length);
        return e;
      } catch (e) {
        if (!(e instanceof Stop)) throw e;
        return this.rawExpr(0, this.items.length);
      }
    });
  }

  /** The elements of `{ … }` (anonymous sets and maps, `elements = { … }`, `add element … { … }`). */
  readElements(group: CstNode): NftElement[] {
    const inner = itemsOf(group);
    const out: NftElement[] = [];
    let start = 0;
    for (let i = 0; i <= inner.length; i++) {
      if (i === inner.length || isCommaItem(inner[i])) {
        if (i > start) this.element(inner.slice(start, i), out);
        start = i + 1;
      }
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------------
  // Item helpers

  private with<T>(items: Item[], fn: () => T): T {
    const savedItems = this.items;
    const savedPos = this.pos;
    this.items = items;
    this.pos = 0;
    try {
      return fn();
    } finally {
      this.items = savedItems;
      this.pos = savedPos;
    }
  }

  private peek(k = 0): Item | undefined {
    return this.items[this.pos + k];
  }

  private isToken(item: Item | undefined, type: IToken['tokenType']): boolean {
    return item !== undefined && !isGroup(item) && item.tokenType === type;
  }

  private at(type: IToken['tokenType'], k = 0): boolean {
    return this.isToken(this.peek(k), type);
  }

  /** The image of a word (Word or keyword) at k, else undefined. */
  private word(k = 0): string | undefined {
    const item = this.peek(k);
    return item !== undefined && !isGroup(item) && isWordy(item) ? item.image : undefined;
  }

  private next(): Item {
    const item = this.items[this.pos++];
    if (item === undefined) throw Stop.instance;
    return item;
  }

  private expectWord(): IToken {
    const item = this.peek();
    if (item === undefined || isGroup(item) || !isWordy(item)) throw Stop.instance;
    this.pos++;
    return item;
  }

  private expectNumber(): number {
    const w = this.word();
    if (w === undefined || !NUMBER.test(w)) throw Stop.instance;
    this.pos++;
    return Number(w);
  }

  private span(from: number, to = this.pos): Range {
    return this.sites.items(this.items, from, to);
  }

  private textOf(range: Range): string {
    return this.host.text(range);
  }

  private rawExpr(from: number, to: number): NftExpression {
    const range = this.span(from, to);
    return { kind: 'raw', text: this.textOf(range), range };
  }

  // ---------------------------------------------------------------------------------------------------
  // Statements

  private statement(): NftStatement | undefined {
    const item = this.peek();
    if (item === undefined) return undefined;
    if (isParenGroup(item) || this.isToken(item, RawPayload)) return this.expressionStatement();
    const w = this.word();
    if (w === undefined) return undefined;
    const start = this.pos;
    if (SIMPLE_VERDICTS.has(w)) {
      this.pos++;
      return { kind: 'verdict', verdict: w as 'accept', text: w, range: this.span(start) };
    }
    switch (w) {
      case 'jump':
      case 'goto':
        return this.jumpStatement(w, start);
      case 'counter':
        return this.counter();
      case 'log':
        return this.log();
      case 'limit':
        return this.limit();
      case 'quota':
        return this.quota();
      case 'comment':
        return this.commentStatement(start);
      case 'reject':
        return this.reject();
      case 'dnat':
      case 'snat':
      case 'masquerade':
      case 'redirect':
        return this.nat(w);
      case 'xt':
        return this.xtStatement(start);
      case 'add':
      case 'update':
      case 'delete':
        if (this.at(SetRef, 1)) return this.setUpdate();
        return undefined;
      case 'set':
        if (['add', 'update', 'delete'].includes(this.word(1) ?? '')) return this.legacySetStatement();
        return undefined;
      case 'notrack':
        this.pos++;
        return this.raw(start);
      case 'reset':
        // `reset tcp option mss` (nft 1.0.8)
        if (this.word(1) === 'tcp' && this.word(2) === 'option' && this.peek(3) !== undefined) {
          this.pos += 4;
          return this.raw(start);
        }
        return undefined;
      case 'queue':
        return this.queue();
      case 'meter':
        return this.meter();
      case 'tproxy':
      case 'dup':
      case 'fwd':
        return this.forwardLike();
      case 'synproxy':
        return this.synproxy();
      case 'flow':
        // `flow add @ft`: @ft names a flowtable, not a set.
        if ((this.word(1) === 'add' || this.word(1) === 'offload') && this.at(SetRef, 2)) {
          this.pos += 3;
          return this.raw(start);
        }
        return undefined;
      case 'last':
        this.pos++;
        if (this.word() === 'used') {
          this.pos++;
          if (this.word() !== undefined) this.pos++;
        }
        return this.raw(start);
      case 'ct':
        if (this.word(1) === 'count') {
          this.pos += 2;
          if (this.word() === 'over') this.pos++;
          this.expectWord();
          return this.raw(start);
        }
        return this.expressionStatement();
      default:
        if (EXPRESSION_KEYWORDS.has(w) || PAYLOAD_PROTOCOLS.has(w) || BARE_META_KEYS.has(w)) return this.expressionStatement();
        return undefined;
    }
  }

  private jumpStatement(w: 'jump' | 'goto', start: number): NftStatement | undefined {
    this.pos++;
    const target = this.next();
    if (isGroup(target)) throw Stop.instance;
    let chain: string;
    if (target.tokenType === Variable) {
      const v = this.host.variable(target.image.slice(1), this.sites.item(target));
      chain = v && v.kind === 'value' ? v.value : target.image;
    } else if (isWordy(target) || target.tokenType === StringTok) {
      chain = unquote(target.image);
    } else throw Stop.instance;
    const chainRange = this.sites.item(target);
    if (target.tokenType !== Variable) this.host.chainReference(chain, chainRange, w);
    const range = this.span(start);
    return { kind: 'verdict', verdict: w, chain, chainRange, text: this.textOf(range), range };
  }

  private commentStatement(start: number): NftStatement | undefined {
    if (!this.at(StringTok, 1)) return undefined;
    this.pos += 2;
    const range = this.span(start);
    return { kind: 'comment', comment: unquote((this.items[start + 1] as IToken).image), text: this.textOf(range), range };
  }

  private xtStatement(start: number): NftStatement | undefined {
    this.pos++;
    const type = this.expectWord().image;
    if (type !== 'match' && type !== 'target' && type !== 'watcher') throw Stop.instance;
    const name = this.next();
    if (isGroup(name)) throw Stop.instance;
    const range = this.span(start);
    return { kind: 'xt', type, name: unquote(name.image), text: this.textOf(range), range };
  }

  private raw(start: number): NftStatement {
    const range = this.span(start);
    return { kind: 'raw', text: this.textOf(range), range };
  }

  /** Something unknown at `start`: it runs to the next word that starts a statement. */
  private rawStatement(start: number): NftStatement {
    this.pos = start + 1;
    while (this.pos < this.items.length) {
      const item = this.items[this.pos];
      if (this.isToken(item, RawPayload)) break;
      const w = this.word();
      if (w !== undefined && isStatementStartWord(w)) break;
      this.pos++;
    }
    return this.raw(start);
  }

  private nameRangeOfSetRef(token: IToken): Range {
    return setRefNameRange(token, this.sites);
  }

  /** The statement at the cursor, or its raw text when it is not one the reader knows. */
  private statementOrRaw(): NftStatement {
    const start = this.pos;
    let statement: NftStatement | undefined;
    try {
      statement = this.statement();
    } catch (e) {
      if (!(e instanceof Stop)) throw e;
      statement = undefined;
    }
    if (statement && this.pos !== start) return statement;
    this.pos = start;
    return this.rawStatement(start);
  }

  /** The object a stateful statement names (`counter name "x"`), or undefined when it names none. */
  private objectName(): string | undefined {
    if (this.word() !== 'name') return undefined;
    this.pos++;
    const target = this.fullExpr();
    return target.kind === 'value' ? target.value : target.text;
  }

  /** An amount and its unit when one follows (`5 mbytes`, `10 packets`). */
  private amountWithUnit(unit: RegExp): string {
    const amount = this.expectWord().image;
    const u = this.word();
    if (u === undefined || !unit.test(u)) return amount;
    this.pos++;
    return amount + ' ' + u;
  }

  /** Reads an optional `over` or `until`; true for `over`. */
  private overOrUntil(): boolean {
    const w = this.word();
    if (w !== 'over' && w !== 'until') return false;
    this.pos++;
    return w === 'over';
  }

  private counter(): NftStatement {
    const start = this.pos++;
    let packets: number | undefined;
    let bytes: number | undefined;
    const name = this.objectName();
    if (name === undefined) {
      for (;;) {
        const w = this.word();
        if (w === 'packets' && this.word(1) !== undefined && NUMBER.test(this.word(1)!)) {
          this.pos++;
          packets = this.expectNumber();
        } else if (w === 'bytes' && this.word(1) !== undefined && NUMBER.test(this.word(1)!)) {
          this.pos++;
          bytes = this.expectNumber();
        } else break;
      }
    }
    const range = this.span(start);
    const out: NftStatement = { kind: 'counter', text: this.textOf(range), range };
    if (packets !== undefined) out.packets = packets;
    if (bytes !== undefined) out.bytes = bytes;
    if (name !== undefined) out.name = name;
    return out;
  }

  private log(): NftStatement {
    const start = this.pos++;
    const options = emptyNameTable<string>();
    let prefix: string | undefined;
    let level: string | undefined;
    let group: number | undefined;
    for (;;) {
      const w = this.word();
      if (w === 'prefix' || w === 'level' || w === 'group' || w === 'snaplen' || w === 'queue-threshold') {
        this.pos++;
        const v = this.next();
        if (isGroup(v)) throw Stop.instance;
        let value = unquote(v.image);
        if (v.tokenType === Variable) {
          const resolved = this.host.variable(v.image.slice(1), this.sites.item(v));
          if (resolved && resolved.kind === 'value') value = resolved.value;
        }
        options[w] = value;
        if (w === 'prefix') prefix = value;
        else if (w === 'level') level = value;
        else if (w === 'group') group = Number(value);
      } else if (w === 'flags') {
        this.pos++;
        const parts: string[] = [];
        while (this.word() !== undefined && LOG_FLAG_WORDS.has(this.word()!)) {
          parts.push(this.word()!);
          this.pos++;
          if (this.at(Comma) && this.word(1) !== undefined && LOG_FLAG_WORDS.has(this.word(1)!)) {
            this.pos++;
            parts.push(',');
          }
        }
        options.flags = parts.join(' ').replace(/ , /g, ',');
      } else break;
    }
    const range = this.span(start);
    const out: NftStatement = { kind: 'log', options, text: this.textOf(range), range };
    if (prefix !== undefined) out.prefix = prefix;
    if (level !== undefined) out.level = level;
    if (group !== undefined) out.group = group;
    return out;
  }

  private limit(): NftStatement {
    const start = this.pos++;
    let over = false;
    let rate: string | undefined;
    let burst: string | undefined;
    const name = this.objectName();
    if (name === undefined) {
      if (this.word() !== 'rate') throw Stop.instance;
      this.pos++;
      over = this.overOrUntil();
      const amount = this.expectWord().image;
      rate = amount;
      // `2000 kbytes/second`, `1 mbytes / second`
      const unit = this.word();
      if (unit !== undefined && /^[kmg]?bytes(\/\w+)?$/.test(unit)) {
        this.pos++;
        rate += ' ' + unit;
        if (this.at(Slash) && this.word(1) !== undefined) {
          rate += '/' + this.word(1);
          this.pos += 2;
        }
      } else if (this.at(Slash) && this.word(1) !== undefined) {
        rate += '/' + this.word(1);
        this.pos += 2;
      }
      if (this.word() === 'burst') {
        this.pos++;
        burst = this.amountWithUnit(BURST_UNIT);
      }
    }
    const range = this.span(start);
    const out: NftStatement = { kind: 'limit', over, text: this.textOf(range), range };
    if (rate !== undefined) out.rate = rate;
    if (burst !== undefined) out.burst = burst;
    if (name !== undefined) out.name = name;
    return out;
  }

  private quota(): NftStatement {
    const start = this.pos++;
    let over = false;
    let amount: string | undefined;
    let used: string | undefined;
    const name = this.objectName();
    if (name === undefined) {
      over = this.overOrUntil();
      amount = this.amountWithUnit(BYTES_UNIT);
      if (this.word() === 'used') {
        this.pos++;
        used = this.amountWithUnit(BYTES_UNIT);
      }
    }
    const range = this.span(start);
    const out: NftStatement = { kind: 'quota', over, text: this.textOf(range), range };
    if (amount !== undefined) out.amount = amount;
    if (used !== undefined) out.used = used;
    if (name !== undefined) out.name = name;
    return out;
  }

  private reject(): NftStatement {
    const start = this.pos++;
    let withText: string | undefined;
    let type: string | undefined;
    let code: string | undefined;
    if (this.word() === 'with') {
      this.pos++;
      const from = this.pos;
      const kind = this.expectWord().image;
      if (kind === 'tcp') {
        if (this.word() !== 'reset' && this.word() !== 'rst') throw Stop.instance;
        this.pos++;
        type = 'tcp reset';
      } else if (kind === 'icmp' || kind === 'icmpv6' || kind === 'icmpx' || kind === 'icmp6') {
        type = kind;
        if (this.word() === 'type' || this.word() === 'code') this.pos++;
        const c = this.next();
        if (isGroup(c)) throw Stop.instance;
        code = c.image;
      } else throw Stop.instance;
      withText = this.textOf(this.span(from));
    }
    const range = this.span(start);
    const out: NftStatement = { kind: 'reject', text: this.textOf(range), range };
    if (withText !== undefined) out.with = withText;
    if (type !== undefined) out.type = type;
    if (code !== undefined) out.code = code;
    return out;
  }

  private nat(type: NftNatStatement['type']): NftStatement {
    const start = this.pos++;
    const out: NftNatStatement = { kind: 'nat', type, flags: [], text: '', range: this.span(start) };
    const fam = this.word();
    if ((fam === 'ip' || fam === 'ip6') && (type === 'dnat' || type === 'snat')) {
      const after = this.word(1);
      if (after === 'to' || (after !== undefined && NAT_TYPE_FLAGS.has(after))) {
        out.family = fam;
        this.pos++;
      }
    }
    const typeFlags: string[] = [];
    while (this.word() !== undefined && NAT_TYPE_FLAGS.has(this.word()!) && (this.word(1) === 'to' || this.at(Dot, 1) || (this.word(1) !== undefined && NAT_TYPE_FLAGS.has(this.word(1)!)))) {
      typeFlags.push(this.word()!);
      this.pos++;
      if (this.at(Dot)) this.pos++;
    }
    if (typeFlags.length > 0) out.typeFlags = typeFlags;
    let hasTarget = false;
    if (this.word() === 'to' && this.at(Colon, 1)) {
      // `redirect to :tcp dport map { 83 : 8083 }`: a port computed by an expression
      this.pos += 2;
      out.port = this.fullExpr();
      out.to = out.port;
    } else if (this.word() === 'to') {
      this.pos++;
      hasTarget = true;
    } else if ((type === 'dnat' || type === 'snat') && this.peek() !== undefined && !this.natFlagAhead()) {
      // Before nft 0.9 the target followed without `to`: `dnat 10.0.0.1`.
      const w = this.word();
      if (w === undefined || !isStatementStartWord(w)) hasTarget = true;
    }
    if (hasTarget) {
      const from = this.pos;
      const target = this.fullExpr();
      out.to = target;
      if ((target.kind === 'value' && !target.quoted) || target.kind === 'range' || target.kind === 'prefix') {
        // one word: `10.0.0.1:80`, `[dead::beef]:4443`, `:8080`, `10.0.0.1-10.0.0.5:80-90`, `10.0.0.0/24`
        const { addr, port } = splitAddressPort(target.text);
        const r = target.range;
        if (addr !== undefined) out.addr = classifyValue(addr, addr, r);
        if (port !== undefined) out.port = classifyValue(port, port, r);
      } else {
        out.addr = target;
      }
      if (from === this.pos) throw Stop.instance;
    }
    while (this.natFlagAhead()) {
      out.flags.push(this.word()!);
      this.pos++;
      if (this.at(Comma) && this.word(1) !== undefined && NAT_FLAGS.has(this.word(1)!)) this.pos++;
    }
    out.range = this.span(start);
    out.text = this.textOf(out.range);
    return out;
  }

  private natFlagAhead(): boolean {
    const w = this.word();
    return w !== undefined && NAT_FLAGS.has(w);
  }

  private setUpdate(): NftStatement {
    const start = this.pos;
    const op = this.expectWord().image as 'add' | 'update' | 'delete';
    const ref = this.next() as IToken;
    const set = ref.image.slice(1);
    const setRange = this.nameRangeOfSetRef(ref);
    this.host.setReference(set, setRange);
    const group = this.next();
    if (!isBraceGroup(group)) throw Stop.instance;
    const { key, data, timeout, statements } = this.with(itemsOf(group), () => this.keyWithStatements());
    const range = this.span(start);
    const out: NftStatement = { kind: 'setUpdate', op, set, setRange, key, statements, text: this.textOf(range), range };
    if (data !== undefined) out.data = data;
    if (timeout !== undefined) out.timeout = timeout;
    return out;
  }

  /** `set add ip saddr @s`, `set update ip saddr timeout 10s @s` (the syntax before nft 0.9). */
  private legacySetStatement(): NftStatement {
    const start = this.pos++;
    const op = this.expectWord().image as 'add' | 'update' | 'delete';
    const key = this.lhs();
    if (!key) throw Stop.instance;
    let timeout: string | undefined;
    if (this.word() === 'timeout') {
      this.pos++;
      timeout = this.expectWord().image;
    }
    const next = this.next();
    if (!this.isToken(next, SetRef)) throw Stop.instance;
    const ref = next as IToken;
    const set = ref.image.slice(1);
    const setRange = this.nameRangeOfSetRef(ref);
    this.host.setReference(set, setRange);
    const range = this.span(start);
    const out: NftStatement = { kind: 'setUpdate', op, set, setRange, key, statements: [], text: this.textOf(range), range };
    if (timeout !== undefined) out.timeout = timeout;
    return out;
  }

  /** Inside `{ … }` of a set statement or meter: the key, then `timeout T` and per-element statements. */
  private keyWithStatements(): { key: NftExpression; data?: NftExpression; timeout?: string; statements: string[] } {
    const key = this.lhs();
    if (!key) throw Stop.instance;
    let timeout: string | undefined;
    let data: NftExpression | undefined;
    const statements: string[] = [];
    while (this.pos < this.items.length) {
      if (this.at(Colon) && data === undefined) {
        this.pos++;
        data = this.fullExpr();
        continue;
      }
      if (this.word() === 'timeout') {
        this.pos++;
        timeout = this.expectWord().image;
        continue;
      }
      statements.push(this.statementOrRaw().text);
    }
    return { key, data, timeout, statements };
  }

  private queue(): NftStatement {
    const start = this.pos++;
    for (;;) {
      const w = this.word();
      if (w === 'num' || w === 'to') {
        this.pos++;
        this.fullExpr();
      } else if (w === 'flags') {
        this.pos++;
        this.next();
        while (this.at(Comma)) this.pos += 2;
      } else if (w === 'bypass' || w === 'fanout') {
        this.pos++;
        while (this.at(Comma)) this.pos += 2;
      } else break;
    }
    return this.raw(start);
  }

  private meter(): NftStatement {
    const start = this.pos++;
    this.expectWord();
    if (this.word() === 'size') {
      this.pos++;
      this.expectWord();
    }
    const group = this.next();
    if (!isBraceGroup(group)) throw Stop.instance;
    return this.raw(start);
  }

  /** `tproxy [ip|ip6] to addr`, `dup to addr [device dev]`, `fwd [ip|ip6] to addr [device dev]`, `fwd to dev`. */
  private forwardLike(): NftStatement {
    const start = this.pos++;
    if (this.word() === 'ip' || this.word() === 'ip6') this.pos++;
    if (this.word() !== 'to') throw Stop.instance;
    this.pos++;
    this.fullExpr();
    if (this.word() === 'device') {
      this.pos++;
      this.fullExpr();
    }
    return this.raw(start);
  }

  private synproxy(): NftStatement {
    const start = this.pos++;
    if (this.word() === 'name') {
      this.pos++;
      this.fullExpr();
      return this.raw(start);
    }
    for (;;) {
      const w = this.word();
      if (w === 'mss' || w === 'wscale') {
        this.pos++;
        this.expectWord();
      } else if (w === 'timestamp' || w === 'sack-perm') this.pos++;
      else break;
    }
    return this.raw(start);
  }

  // ---------------------------------------------------------------------------------------------------
  // Expression statements: matches, vmaps, `… set …`

  private expressionStatement(): NftStatement | undefined {
    const start = this.pos;
    const left = this.lhs();
    if (!left) return undefined;
    const w = this.word();
    if (w === 'vmap') {
      this.pos++;
      const map = this.mapTarget();
      const range = this.span(start);
      return { kind: 'vmap', key: left, map, text: this.textOf(range), range };
    }
    if (w === 'set') {
      this.pos++;
      const value = this.fullExpr();
      const range = this.span(start);
      const text = this.textOf(range);
      if ((left.kind === 'meta' || left.kind === 'ct') && left.key === 'mark' && !(left.kind === 'ct' && left.direction)) {
        return { kind: 'mark', target: left.kind === 'meta' ? 'meta mark' : 'ct mark', value, text, range };
      }
      return { kind: 'mangle', key: left, value, text, range };
    }
    let op: NftRelationalOperator | '!' | undefined;
    const item = this.peek();
    if (item !== undefined && !isGroup(item)) {
      switch (item.tokenType) {
        case EqEq:
          op = '==';
          break;
        case NotEq:
          op = '!=';
          break;
        case Less:
          op = '<';
          break;
        case Greater:
          op = '>';
          break;
        case LessEq:
          op = '<=';
          break;
        case GreaterEq:
          op = '>=';
          break;
        case Bang:
          op = '!';
          break;
        default:
          if (w !== undefined && RELATIONAL_WORDS.has(w) && this.peek(1) !== undefined) op = RELATIONAL_WORDS.get(w);
      }
    }
    if (op) this.pos++;
    if (this.peek() === undefined) {
      if (op) throw Stop.instance;
      // An expression alone (`tcp option mss exists` spelled without a value): keep as written.
      return this.raw(start);
    }
    const rhs = this.rhs();
    const range = this.span(start);
    return this.match(left, op, rhs, this.textOf(range), range);
  }

  private match(left: NftExpression, written: NftRelationalOperator | '!' | undefined, rhs: RhsResult, text: string, range: Range): NftMatchStatement {
    let right = rhs.expr;
    let lhs = left;
    if (rhs.mask) {
      // `tcp flags syn / syn,ack` means (tcp flags & (syn|ack)) == syn
      lhs = { kind: 'binop', op: '&', left, right: rhs.mask, text: `${left.text} & ${rhs.mask.text}`, range: { start: left.range.start, end: rhs.mask.range.end } };
    }
    const setLike = right.kind === 'set' || right.kind === 'setRef' || right.kind === 'list' || (right.kind === 'variable' && right.resolved?.kind === 'set');
    let op: NftRelationalOperator;
    let negated = false;
    if (written === undefined) {
      const bitmask = (left.kind === 'ct' || left.kind === 'payload') && BITMASK_KEYS.has(`${left.kind === 'ct' ? 'ct' : left.protocol}:${left.kind === 'ct' ? left.key : left.field}`) && !rhs.mask;
      op = setLike || bitmask ? 'in' : '==';
    } else if (written === '==' && setLike) {
      op = 'in';
    } else if ((written === '!=' && setLike) || written === '!') {
      // `tcp flags ! syn,ack`: none of the flags is set
      op = 'in';
      negated = true;
    } else {
      op = written;
      negated = written === '!=';
    }
    return { kind: 'match', left: lhs, op, right, negated, implicit: written === undefined, text, range };
  }

  /** `{ … }` (anonymous map), `@name` or `$var` after `vmap` / `map`. */
  private mapTarget(): NftSetExpression | NftSetRefExpression {
    const item = this.next();
    if (isBraceGroup(item)) return this.setLiteral(item);
    if (this.isToken(item, SetRef)) return this.setRefExpr(item as IToken);
    if (this.isToken(item, Variable)) {
      const tok = item as IToken;
      const resolved = this.host.variable(tok.image.slice(1), this.sites.item(tok));
      if (resolved && (resolved.kind === 'set' || resolved.kind === 'setRef')) return resolved;
      return { kind: 'set', elements: [], text: tok.image, range: this.sites.item(tok) };
    }
    throw Stop.instance;
  }

  private setLiteral(group: CstNode): NftSetExpression {
    const range = this.sites.item(group);
    return { kind: 'set', elements: exact(this.readElements(group)), text: this.textOf(range), range };
  }

  private setRefExpr(token: IToken): NftSetRefExpression {
    const nameRange = this.nameRangeOfSetRef(token);
    const name = token.image.slice(1);
    this.host.setReference(name, nameRange);
    return { kind: 'setRef', name, nameRange, text: token.image, range: this.sites.item(token) };
  }

  // ---------------------------------------------------------------------------------------------------
  // Left-hand expressions: selectors (`ip daddr`, `meta l4proto`, …), binary operations and concatenations

  private lhs(): NftExpression | undefined {
    const start = this.pos;
    const first = this.lhsBinop();
    if (!first) return undefined;
    if (!this.at(Dot)) return first;
    const parts = [first];
    while (this.at(Dot)) {
      this.pos++;
      // a constant may be part of the key: `ip saddr . "lo" @s`
      const part = this.lhsBinop() ?? (this.at(SetRef) ? undefined : this.rhsTerm());
      if (!part) throw Stop.instance;
      parts.push(part);
    }
    const range = this.span(start);
    return { kind: 'concat', parts: exact(parts), text: this.textOf(range), range };
  }

  private binopAhead(): NftBinaryOperator | undefined {
    const item = this.peek();
    if (item === undefined || isGroup(item)) return undefined;
    switch (item.tokenType) {
      case Amp:
        return '&';
      case Pipe:
        return '|';
      case Caret:
        return '^';
      case ShiftLeft:
        return '<<';
      case ShiftRight:
        return '>>';
    }
    const w = isWordy(item) ? item.image : undefined;
    return w !== undefined && this.peek(1) !== undefined ? BINOP_WORDS.get(w) : undefined;
  }

  private lhsBinop(): NftExpression | undefined {
    const first = this.selector();
    if (!first) return undefined;
    return this.binopTail(first, 1, () => this.operand());
  }

  /** Precedence climbing over `|`, `^`, `&`, `<<`/`>>` (nft's order, loosest first). */
  private binopTail(left: NftExpression, minPrecedence: number, operand: () => NftExpression): NftExpression {
    for (;;) {
      const op = this.binopAhead();
      if (!op || BINOP_PRECEDENCE[op] < minPrecedence) return left;
      this.pos++;
      let right = operand();
      for (;;) {
        const next = this.binopAhead();
        if (!next || BINOP_PRECEDENCE[next] <= BINOP_PRECEDENCE[op]) break;
        right = this.binopTail(right, BINOP_PRECEDENCE[next], operand);
      }
      const range = { start: left.range.start, end: right.range.end };
      left = { kind: 'binop', op, left, right, text: this.textOf(range), range };
    }
  }

  /** The right operand of a binary operation: a selector or a value. */
  private operand(): NftExpression {
    const s = this.selector();
    if (s) return s;
    const v = this.rhsTerm();
    if (!v) throw Stop.instance;
    return v;
  }

  /** A keyword-led expression; undefined (position unchanged) when the next item does not start one. */
  private selector(): NftExpression | undefined {
    const start = this.pos;
    const item = this.peek();
    if (item === undefined) return undefined;
    if (isParenGroup(item)) {
      this.pos++;
      const inner = this.with(itemsOf(item), () => {
        const e = this.fullExpr();
        if (this.pos < this.items.length) throw Stop.instance;
        return e;
      });
      return { ...inner, text: this.textOf(this.sites.item(item)), range: this.sites.item(item) };
    }
    if (this.isToken(item, RawPayload)) {
      this.pos++;
      const range = this.sites.item(item);
      return { kind: 'payload', protocol: 'raw', field: item.image, text: item.image, range };
    }
    const w = this.word();
    if (w === undefined) return undefined;
    if (w === 'meta') {
      const key = this.fieldWord(1);
      if (!key) return undefined;
      this.pos += 2;
      return this.finish(start, { kind: 'meta', key });
    }
    if (BARE_META_KEYS.has(w)) {
      this.pos++;
      return this.finish(start, { kind: 'meta', key: w });
    }
    if (w === 'ct') return this.ctSelector(start);
    if (w === 'fib') return this.fibSelector(start);
    if (w === 'numgen') return this.numgenSelector(start);
    if (w === 'jhash' || w === 'symhash') return this.hashSelector(w, start);
    const other = this.otherSelector(w, start);
    if (other) return other;
    if (PAYLOAD_PROTOCOLS.has(w)) {
      const field = this.fieldWord(1);
      if (!field) return undefined;
      this.pos += 2;
      if (w === 'arp' && (field === 'saddr' || field === 'daddr') && (this.word() === 'ip' || this.word() === 'ether') && this.peek(1) !== undefined) {
        // `arp saddr ip 1.2.3.4`, `arp daddr ether aa:bb:cc:dd:ee:ff`
        const sub = this.word()!;
        this.pos++;
        return this.finish(start, { kind: 'payload', protocol: w, field: `${field} ${sub}` });
      }
      return this.finish(start, { kind: 'payload', protocol: w, field });
    }
    if (w === 'rt') {
      // routing extension header: `rt type 0`, `rt nexthdr`
      const field = this.fieldWord(1);
      if (!field) return undefined;
      this.pos += 2;
      return this.finish(start, { kind: 'payload', protocol: 'rt', field });
    }
    return undefined;
  }

  /** The selector read from token `start` on, with its range and text. */
  private finish(start: number, e: Bare<NftExpression>): NftExpression {
    const out = e as NftExpression;
    out.range = this.span(start);
    out.text = this.textOf(out.range);
    return out;
  }

  /** Word `k` ahead when it can be a field or key name (`saddr`, `mark`, `sack[1]`). */
  private fieldWord(k = 0): string | undefined {
    const f = this.word(k);
    return f !== undefined && /^[a-z][a-z0-9-]*(?:\[\d+\])?$/.test(f) && !STATEMENT_KEYWORDS.has(f) && f !== 'vmap' && f !== 'set' && f !== 'map' ? f : undefined;
  }

  /** `ct [original|reply] [ip|ip6] key`. */
  private ctSelector(start: number): NftExpression | undefined {
    this.pos++;
    let direction: 'original' | 'reply' | undefined;
    let family: 'ip' | 'ip6' | undefined;
    if (this.word() === 'original' || this.word() === 'reply') {
      direction = this.word() as 'original' | 'reply';
      this.pos++;
    }
    if ((this.word() === 'ip' || this.word() === 'ip6') && this.fieldWord(1)) {
      family = this.word() as 'ip' | 'ip6';
      this.pos++;
    }
    const key = this.fieldWord();
    if (!key) {
      this.pos = start;
      return undefined;
    }
    this.pos++;
    const e: { kind: 'ct'; key: string; direction?: 'original' | 'reply'; family?: 'ip' | 'ip6' } = { kind: 'ct', key };
    if (direction) e.direction = direction;
    if (family) e.family = family;
    return this.finish(start, e);
  }

  /** `fib saddr . iif type`. */
  private fibSelector(start: number): NftExpression | undefined {
    this.pos++;
    const flags: string[] = [];
    while (this.word() !== undefined && FIB_FLAGS.has(this.word()!)) {
      flags.push(this.word()!);
      this.pos++;
      if (this.at(Dot) && this.word(1) !== undefined && FIB_FLAGS.has(this.word(1)!)) this.pos++;
      else break;
    }
    const result = this.fieldWord();
    if (flags.length === 0 || !result) {
      this.pos = start;
      return undefined;
    }
    this.pos++;
    return this.finish(start, { kind: 'fib', flags: exact(flags), result });
  }

  /** `numgen random|inc mod N [offset M]`. */
  private numgenSelector(start: number): NftExpression {
    this.pos++;
    const mode = this.expectWord().image;
    if (mode !== 'random' && mode !== 'inc') throw Stop.instance;
    if (this.word() !== 'mod') throw Stop.instance;
    this.pos++;
    const mod = this.expectNumber();
    let offset: number | undefined;
    if (this.word() === 'offset') {
      this.pos++;
      offset = this.expectNumber();
    }
    return this.finish(start, offset === undefined ? { kind: 'numgen', mode: mode as 'random', mod } : { kind: 'numgen', mode: mode as 'random', mod, offset });
  }

  /** `jhash expr mod N [seed S] [offset M]`, `symhash mod N …`. */
  private hashSelector(w: 'jhash' | 'symhash', start: number): NftExpression {
    this.pos++;
    let expr: NftExpression | undefined;
    if (w === 'jhash') {
      expr = this.lhs();
      if (!expr) throw Stop.instance;
    }
    if (this.word() !== 'mod') throw Stop.instance;
    this.pos++;
    const mod = this.expectNumber();
    const e: { kind: 'hash'; function: 'jhash' | 'symhash'; expr?: NftExpression; mod: number; seed?: number; offset?: number } = { kind: 'hash', function: w, mod };
    if (expr) e.expr = expr;
    for (;;) {
      if (this.word() === 'seed') {
        this.pos++;
        e.seed = this.expectNumber();
      } else if (this.word() === 'offset') {
        this.pos++;
        e.offset = this.expectNumber();
      } else break;
    }
    return this.finish(start, e);
  }

  /** The selectors kept raw (`rt`, `socket`, `osf`, `ipsec`, `exthdr`, options, `sctp chunk`, inner headers); undefined when `w` starts none. */
  private otherSelector(w: string, start: number): NftExpression | undefined {
    if (w === 'rt' && (this.word(1) === 'ip' || this.word(1) === 'ip6' || RT_KEYS.has(this.word(1) ?? ''))) {
      this.pos++;
      if (this.word() === 'ip' || this.word() === 'ip6') this.pos++;
      this.expectWord();
      return this.finish(start, { kind: 'raw' });
    }
    if (w === 'socket') {
      this.pos++;
      const key = this.expectWord().image;
      if (key === 'cgroupv2' && this.word() === 'level') {
        this.pos++;
        this.expectWord();
      }
      return this.finish(start, { kind: 'raw' });
    }
    if (w === 'osf') {
      this.pos++;
      if (this.word() === 'ttl') {
        this.pos++;
        this.expectWord();
      }
      this.expectWord();
      return this.finish(start, { kind: 'raw' });
    }
    if (w === 'ipsec' && (this.word(1) === 'in' || this.word(1) === 'out')) {
      this.pos += 2;
      if (this.word() === 'spnum') {
        this.pos++;
        this.expectWord();
      }
      if ((this.word() === 'ip' || this.word() === 'ip6') && this.fieldWord(1)) this.pos++;
      this.expectWord();
      return this.finish(start, { kind: 'raw' });
    }
    if (w === 'exthdr') {
      this.pos++;
      this.expectWord();
      if (this.fieldWord() && this.fieldWord() !== 'exists' && this.fieldWord() !== 'missing') this.pos++;
      return this.finish(start, { kind: 'raw' });
    }
    if ((w === 'tcp' || w === 'ip' || w === 'dccp') && this.word(1) === 'option') {
      this.pos += 2;
      const opt = this.next();
      if (isGroup(opt)) throw Stop.instance;
      const fields = w === 'ip' ? IP_OPTION_FIELDS : TCP_OPTION_FIELDS;
      if (this.word() !== undefined && fields.has(this.word()!)) this.pos++;
      return this.finish(start, { kind: 'raw' });
    }
    if (w === 'sctp' && this.word(1) === 'chunk') {
      this.pos += 2;
      this.expectWord();
      const f = this.fieldWord();
      if (f && f !== 'exists' && f !== 'missing') this.pos++;
      return this.finish(start, { kind: 'raw' });
    }
    if ((w === 'vxlan' || w === 'geneve' || w === 'gretap' || w === 'gre') && PAYLOAD_PROTOCOLS.has(this.word(1) ?? '') && this.fieldWord(2)) {
      // An inner header: `vxlan ip saddr`.
      this.pos++;
      const inner = this.selector();
      if (!inner) throw Stop.instance;
      return this.finish(start, { kind: 'raw' });
    }
    return undefined;
  }

  // ---------------------------------------------------------------------------------------------------
  // Right-hand sides

  /** The value a match compares with: a value, set, `@set`, concatenation, flag list or `value / mask`. */
  private rhs(): RhsResult {
    const start = this.pos;
    const first = this.rhsTerm();
    if (!first) throw Stop.instance;
    let value = first;
    if (this.at(Comma) && this.isListable(first)) {
      value = this.listFrom(first, start);
      if (!this.at(Slash)) return { expr: value };
    }
    if (this.at(Slash)) {
      // tcp flags syn / syn,ack
      this.pos++;
      const maskStart = this.pos;
      const m = this.rhsTerm();
      if (!m) throw Stop.instance;
      const mask = this.at(Comma) ? this.listFrom(m, maskStart) : m;
      return { expr: value, mask };
    }
    let expr = this.binopTail(first, 1, () => {
      const v = this.rhsTerm();
      if (!v) throw Stop.instance;
      return v;
    });
    if (this.at(Dot)) {
      const parts = [expr];
      while (this.at(Dot)) {
        this.pos++;
        const p = this.rhsTerm();
        if (!p) throw Stop.instance;
        parts.push(p);
      }
      const range = this.span(start);
      expr = { kind: 'concat', parts: exact(parts), text: this.textOf(range), range };
    }
    return { expr };
  }

  /** `first, b, c`: the words after `first` joined by commas, from token `start` on. */
  private listFrom(first: NftExpression, start: number): NftExpression {
    const values = [this.valueText(first)];
    while (this.at(Comma) && this.word(1) !== undefined) {
      this.pos++;
      values.push(this.expectWord().image);
    }
    const range = this.span(start);
    return { kind: 'list', values: exact(values), text: this.textOf(range), range };
  }

  private isListable(e: NftExpression): boolean {
    return e.kind === 'value' && !e.quoted;
  }

  private valueText(e: NftExpression): string {
    return e.kind === 'value' ? e.value : e.text;
  }

  /** One constant: word, string, `@set`, `$var`, `{ … }`, `( … )`, `a - b`. */
  private rhsTerm(): NftExpression | undefined {
    const item = this.peek();
    if (item === undefined) return undefined;
    if (isBraceGroup(item)) {
      this.pos++;
      return this.setLiteral(item);
    }
    if (isParenGroup(item)) {
      this.pos++;
      const range = this.sites.item(item);
      const inner = this.with(itemsOf(item), () => {
        const e = this.fullExpr();
        if (this.pos < this.items.length) throw Stop.instance;
        return e;
      });
      return { ...inner, text: this.textOf(range), range };
    }
    if (isGroup(item)) return undefined;
    const range = this.sites.item(item);
    let term: NftExpression;
    if (item.tokenType === SetRef) {
      this.pos++;
      return this.setRefExpr(item);
    } else if (item.tokenType === Variable) {
      this.pos++;
      const name = item.image.slice(1);
      const resolved = this.host.variable(name, range);
      term = resolved ? { kind: 'variable', name, resolved, text: item.image, range } : { kind: 'variable', name, text: item.image, range };
    } else if (item.tokenType === StringTok) {
      this.pos++;
      term = classifyValue(unquote(item.image), item.image, range, true);
    } else if (isWordy(item)) {
      this.pos++;
      term = classifyValue(item.image, item.image, range);
    } else if ((item.tokenType === Minus || item.tokenType === Plus) && this.word(1) !== undefined) {
      // `- 10` written apart
      this.pos += 2;
      const image = item.image + this.word(-1)!;
      const r = this.span(this.pos - 2);
      return classifyValue(image, this.textOf(r), r);
    } else {
      return undefined;
    }
    // `"17:00"-"19:00"`, `1 - 5`: a range written with a separate dash
    if (this.at(Minus) && this.peek(1) !== undefined && !isGroup(this.peek(1)!) && (isWordy(this.peek(1) as IToken) || this.at(StringTok, 1))) {
      const toItem = this.peek(1) as IToken;
      this.pos += 2;
      const r = { start: range.start, end: this.sites.item(toItem).end };
      const from = term.kind === 'value' ? term.value : term.text;
      return { kind: 'range', from, to: unquote(toItem.image), text: this.textOf(r), range: r };
    }
    if (term.kind === 'prefix') {
      const problem = prefixProblem(term.address, term.length);
      if (problem) this.host.diag(term.range, 'error', 'bad-prefix', problem);
    }
    return term;
  }

  /** A full expression (values of `set`, NAT targets, defines): selectors or values, binops, concatenations, `map`. */
  private fullExpr(): NftExpression {
    const start = this.pos;
    const first = this.fullBinop();
    let expr = first;
    if (this.at(Dot)) {
      const parts = [first];
      while (this.at(Dot)) {
        this.pos++;
        parts.push(this.fullBinop());
      }
      const range = this.span(start);
      expr = { kind: 'concat', parts: exact(parts), text: this.textOf(range), range };
    } else if (this.at(Comma) && this.isListable(first) && this.word(1) !== undefined) {
      expr = this.listFrom(first, start);
    }
    if (this.word() === 'map') {
      this.pos++;
      const map = this.mapTarget();
      const range = this.span(start);
      expr = { kind: 'map', key: expr, map, text: this.textOf(range), range };
    }
    return expr;
  }

  private fullBinop(): NftExpression {
    const first = this.fullTerm();
    return this.binopTail(first, 1, () => this.fullTerm());
  }

  private fullTerm(): NftExpression {
    const w = this.word();
    if (w !== undefined && (EXPRESSION_KEYWORDS.has(w) || PAYLOAD_PROTOCOLS.has(w) || BARE_META_KEYS.has(w))) {
      const saved = this.pos;
      try {
        const s = this.selector();
        if (s) return s;
      } catch (e) {
        if (!(e instanceof Stop)) throw e;
      }
      this.pos = saved;
    }
    const v = this.rhsTerm();
    if (!v) throw Stop.instance;
    return v;
  }

  // ---------------------------------------------------------------------------------------------------
  // Elements

  private element(items: Item[], out: NftElement[]): void {
    // No closure here: this runs once per element of lists with 100k elements, and V8 kept deoptimizing the
    // closure form ("insufficient type feedback") on large kube-proxy maps.
    const savedItems = this.items;
    const savedPos = this.pos;
    this.items = items;
    this.pos = 0;
    try {
      this.elementBody(items, out);
    } finally {
      this.items = savedItems;
      this.pos = savedPos;
    }
  }

  private elementBody(items: Item[], out: NftElement[]): void {
    // `{ { a, b }, c }`: a nested set literal contributes its elements.
    if (items.length === 1 && isBraceGroup(items[0])) {
      appendAll(out, this.readElements(items[0]));
      return;
    }
    // `{ $set, 3 }`: a variable holding a set literal contributes its elements.
    if (items.length === 1 && this.isToken(items[0], Variable)) {
      const name = (items[0] as IToken).image.slice(1);
      const range = this.sites.item(items[0]);
      const resolved = this.host.variable(name, range);
      if (resolved && resolved.kind === 'set') {
        if (this.expansions.admit(out.length, resolved.elements.length, name, range, (...d) => this.host.diag(...d))) appendAll(out, resolved.elements);
        return;
      }
    }
    const key: string[] = [];
    try {
      key.push(this.elementPart());
      while (this.at(Dot)) {
        this.pos++;
        key.push(this.elementPart());
      }
    } catch (e) {
      if (!(e instanceof Stop)) throw e;
      this.host.diag(this.sites.items(items), 'error', 'bad-element', t('This set element is not understood: {0}', this.textOf(this.sites.items(items))));
      return;
    }
    const keyRange = this.span(0);
    const element = newElement(exact(key), this.sites.items(items), keyRange);
    const statements: string[] = [];
    while (this.pos < this.items.length && !this.at(Colon)) {
      const w = this.word();
      if (w === 'timeout' || w === 'expires') {
        this.pos++;
        const v = this.expectWord().image;
        if (w === 'timeout') element.timeout = v;
        else element.expires = v;
      } else if (w === 'comment' && this.at(StringTok, 1)) {
        element.comment = unquote((this.items[this.pos + 1] as IToken).image);
        this.pos += 2;
      } else if (w !== undefined && ELEMENT_OPTIONS.has(w)) {
        statements.push(this.statementOrRaw().text);
      } else {
        const r = this.sites.item(this.items[this.pos]);
        this.host.diag(r, 'error', 'bad-element', t('Unexpected {0} in a set element.', JSON.stringify(this.textOf(r))));
        return;
      }
    }
    if (statements.length > 0) element.statements = statements;
    if (this.at(Colon)) {
      this.pos++;
      const from = this.pos;
      try {
        element.value = this.elementValue();
      } catch (e) {
        if (!(e instanceof Stop)) throw e;
        const r = from < this.items.length ? this.sites.items(this.items, from) : this.sites.item(this.items[from - 1]);
        this.host.diag(r, 'error', 'bad-element', t('The value of this map element is missing or not understood.'));
        return;
      }
      if (this.pos < this.items.length) {
        const r = this.sites.item(this.items[this.pos]);
        this.host.diag(r, 'error', 'bad-element', t('Unexpected {0} in a set element.', JSON.stringify(this.textOf(r))));
        return;
      }
      element.valueRange = this.span(from);
    }
    out.push(element);
  }

  /** One component of an element key or value. */
  private elementPart(): string {
    const item = this.next();
    if (isGroup(item)) throw Stop.instance;
    let text: string;
    if (item.tokenType === StringTok) text = unquote(item.image);
    else if (item.tokenType === Variable) {
      const resolved = this.host.variable(item.image.slice(1), this.sites.item(item));
      text = resolved ? (resolved.kind === 'value' ? resolved.value : resolved.text) : item.image;
    } else if (isWordy(item)) text = item.image;
    else if ((item.tokenType === Minus || item.tokenType === Plus) && this.word() !== undefined) text = item.image + this.expectWord().image;
    else throw Stop.instance;
    // `fin | ack` in a set of tcp flags
    while ((this.at(Pipe) || this.at(Amp) || this.at(Caret)) && this.word(1) !== undefined) {
      text += ` ${(this.next() as IToken).image} ${this.expectWord().image}`;
    }
    if (this.at(Minus) && this.peek(1) !== undefined && !isGroup(this.peek(1)!) && (isWordy(this.peek(1) as IToken) || this.at(StringTok, 1))) {
      this.pos++;
      text += '-' + unquote((this.next() as IToken).image);
    }
    return text;
  }

  private elementValue(): string | NftVerdictValue {
    const w = this.word();
    if (w !== undefined && (SIMPLE_VERDICTS.has(w) || w === 'jump' || w === 'goto' || w === 'queue')) {
      this.pos++;
      if (w === 'jump' || w === 'goto') {
        const target = this.next();
        if (isGroup(target)) throw Stop.instance;
        const chainRange = this.sites.item(target);
        let chain = unquote(target.image);
        if (target.tokenType === Variable) {
          const v = this.host.variable(target.image.slice(1), chainRange);
          chain = v && v.kind === 'value' ? v.value : target.image;
        } else {
          this.host.chainReference(chain, chainRange, w);
        }
        return newVerdictValue(w === 'jump' ? 'jump' : 'goto', chain, chainRange);
      }
      return this.sites.simpleVerdict(w as NftVerdictValue['kind']);
    }
    const parts = [this.elementPart()];
    while (this.at(Dot)) {
      this.pos++;
      parts.push(this.elementPart());
    }
    return parts.join(' . ');
  }
}

/** The name of `@name` (without the `@`). */
function setRefNameRange(token: IToken, sites: RangeSites): Range {
  const r = sites.item(token);
  return { start: { line: r.start.line, character: r.start.character + 1 }, end: r.end };
}

// ---------------------------------------------------------------------------------------------------------
// Plain rules (docs/performance.md#accelerators). The first reading of a LazyRule only matters for what it reports: references (and
// diagnostics, comments, unknown statements, which the shapes below never have). For the shapes kube-proxy writes
// hundreds of thousands of times, these are found without building statements:
//   SELECTOR [!=] VALUE      `ip saddr 10.0.0.1`, `meta l4proto tcp`, `ip saddr != 10.0.0.0/8`, `ip saddr @set`
//   accept | drop | continue | return | jump NAME | goto NAME
//   dnat to TARGET | snat to TARGET
//   numgen random mod N vmap { KEY : VERDICT, … }
// VALUE, TARGET and KEY are numbers and addresses (words that start with a digit or `[`, or hold a `:`: no keyword
// table of the reader has one) or, except for TARGET (which the reader would try as a selector), tcp/udp/sctp. So the
// reader takes each statement exactly as written and ends it where the next one starts, and reports the `@set` and
// the jump and goto targets in this order. test/unit/nft-plain-rules.test.ts compares this with the reader.

/** `ip saddr`, `meta l4proto`, `th dport`: payload and meta selectors of one protocol word and one field word. */
const PLAIN_SELECTORS = new Map<string, Set<string>>([
  ['ip', words('saddr daddr')],
  ['ip6', words('saddr daddr')],
  ['meta', words('l4proto')],
  ['th', words('sport dport')],
  ['tcp', words('sport dport')],
  ['udp', words('sport dport')],
  ['sctp', words('sport dport')],
]);
const L4_PROTOCOLS = words('tcp udp sctp');

/** The image of a Word token (not a keyword, string, group…). */
function plainWordOf(item: Item | undefined): string | undefined {
  return item !== undefined && !isGroup(item) && item.tokenType === Word ? item.image : undefined;
}

/** A number or an address (`10.0.0.1:80`, `[fd00::1]:80`, `fd00::/64`), or tcp/udp/sctp. */
export function isPlainConstant(image: string | undefined): boolean {
  if (image === undefined) return false;
  const c = image.charCodeAt(0);
  if (!((c >= 48 && c <= 57) || c === 91 || image.includes(':') || L4_PROTOCOLS.has(image))) return false;
  // A prefix longer than its address is the reader's to report.
  const slash = image.indexOf('/');
  return slash < 0 || Number(image.slice(slash + 1)) <= (image.includes(':') ? 128 : 32);
}

/**
 * When the rule's items have one of the plain shapes above: reports its references to `host` in the order the
 * reader would, and answers true (its statements hold no comment and no raw statement). Otherwise reports
 * nothing and answers false: the reader is needed.
 */
export function reportPlainRuleReferences(items: readonly Item[], host: StatementHost, sites: RangeSites = KEPT_RANGES): boolean {
  if (!walkPlainRule(items, undefined, sites)) return false;
  walkPlainRule(items, host, sites);
  return true;
}

/** Whether the items are a plain rule; with a host, reports the references too (called again once the answer is yes). */
function walkPlainRule(items: readonly Item[], host: StatementHost | undefined, sites: RangeSites): boolean {
  const n = items.length;
  let k = 0;
  while (k < n) {
    const w = plainWordOf(items[k]);
    if (w === undefined) return false;
    if (SIMPLE_VERDICTS.has(w)) k++;
    else if (w === 'jump' || w === 'goto') {
      if (!plainVerdictTarget(items, k + 1, w, host, sites)) return false;
      k += 2;
    } else if (w === 'dnat' || w === 'snat') {
      const target = plainWordOf(items[k + 2]);
      if (plainWordOf(items[k + 1]) !== 'to' || !isPlainConstant(target) || L4_PROTOCOLS.has(target!)) return false;
      k += 3;
    } else if (w === 'numgen') {
      if (plainWordOf(items[k + 1]) !== 'random' || plainWordOf(items[k + 2]) !== 'mod' || !/^\d+$/.test(plainWordOf(items[k + 3]) ?? '')) return false;
      if (plainWordOf(items[k + 4]) !== 'vmap' || !plainVerdictMap(items[k + 5], host, sites)) return false;
      k += 6;
    } else {
      const fields = PLAIN_SELECTORS.get(w);
      if (fields === undefined || !fields.has(plainWordOf(items[k + 1]) ?? '')) return false;
      k += 2;
      if (isTokenOf(items[k], NotEq)) k++;
      const value = items[k];
      if (isTokenOf(value, SetRef)) host?.setReference((value as IToken).image.slice(1), setRefNameRange(value as IToken, sites));
      else if (!isPlainConstant(plainWordOf(value))) return false;
      k++;
    }
  }
  return true;
}

/** The NAME of `jump NAME` / `goto NAME` at k: whether it is a word (reported to the host when there is one). */
function plainVerdictTarget(items: readonly Item[], k: number, verdict: 'jump' | 'goto', host: StatementHost | undefined, sites: RangeSites): boolean {
  const name = plainWordOf(items[k]);
  if (name === undefined) return false;
  host?.chainReference(name, sites.item(items[k]), verdict);
  return true;
}

const LINE_WORD = 0;
const LINE_NOT_EQ = 1;
const LINE_SET_REF = 2;
/** Longer lines (numgen vmaps, anonymous sets) are not plain rules, or are rare: not split further. */
const MAX_LINE_WORDS = 16;

/** The kinds of the references plainRuleLine finds. */
export const PLAIN_GOTO = 1;
export const PLAIN_JUMP = 2;
export const PLAIN_SET = 3;

/**
 * A rule alone on its line (from `start`, the end of its indentation, to the line's end) read without tokens when
 * it is one walkPlainRule takes (`ip saddr 10.244.0.5 jump mark-for-masquerade`, `ip daddr 10.96.0.1 ip saddr !=
 * 10.244.0.0/16 jump mark-for-masquerade`, `ip saddr @affinity-… goto endpoint-…`, `meta l4proto tcp dnat to
 * 10.244.0.5:80`, `goto service-…`) with single spaces between words, numgen aside (readNumgenLine). Answers how
 * many references it has (in the scratch's ref* columns), or -1 for any other line. Exactly the lines whose tokens walkPlainRule
 * takes, with the same references (test/unit/nft-plain-line.test.ts).
 */
export function plainRuleLine(text: string, start: number, scratch: LineScratch): number {
  const n = text.length;
  const { wordStarts: lineWordStarts, wordEnds: lineWordEnds, wordTypes: lineWordTypes, refStarts, refEnds, refKinds } = scratch;
  let words = 0;
  let from = start;
  while (from < n) {
    if (words === MAX_LINE_WORDS) return -1;
    let to = text.indexOf(' ', from);
    if (to < 0) to = n;
    let type = LINE_WORD;
    if (isWordAt(text, from, to)) type = LINE_WORD;
    else if (to - from === 2 && text.charCodeAt(from) === 33 && text.charCodeAt(from + 1) === 61) type = LINE_NOT_EQ;
    else if (text.charCodeAt(from) === 64 && setRefEnd(text, from) === to) type = LINE_SET_REF;
    else return -1;
    lineWordStarts[words] = from;
    lineWordEnds[words] = to;
    lineWordTypes[words++] = type;
    from = to + 1;
  }
  if (from !== n + 1) return -1; // empty, or a space at the end
  const word = (k: number) => (k < words && lineWordTypes[k] === LINE_WORD ? text.slice(lineWordStarts[k], lineWordEnds[k]) : undefined);
  let refs = 0;
  let k = 0;
  while (k < words) {
    // As walkPlainRule reads the items.
    const w = word(k);
    if (w === undefined) return -1;
    if (SIMPLE_VERDICTS.has(w)) k++;
    else if (w === 'jump' || w === 'goto') {
      if (word(k + 1) === undefined) return -1;
      refStarts[refs] = lineWordStarts[k + 1];
      refEnds[refs] = lineWordEnds[k + 1];
      refKinds[refs++] = w === 'jump' ? PLAIN_JUMP : PLAIN_GOTO;
      k += 2;
    } else if (w === 'dnat' || w === 'snat') {
      const target = word(k + 2);
      if (word(k + 1) !== 'to' || !isPlainConstant(target) || L4_PROTOCOLS.has(target!)) return -1;
      k += 3;
    } else if (w === 'numgen') return -1;
    else {
      const fields = PLAIN_SELECTORS.get(w);
      if (fields === undefined || !fields.has(word(k + 1) ?? '')) return -1;
      k += 2;
      if (k < words && lineWordTypes[k] === LINE_NOT_EQ) k++;
      if (k < words && lineWordTypes[k] === LINE_SET_REF) {
        refStarts[refs] = lineWordStarts[k] + 1;
        refEnds[refs] = lineWordEnds[k];
        refKinds[refs++] = PLAIN_SET;
      } else if (!isPlainConstant(word(k))) return -1;
      k++;
    }
  }
  return refs;
}

/** `{ KEY : goto NAME, KEY : drop, … }` with plain keys (its references reported to the host when there is one). */
function plainVerdictMap(group: Item | undefined, host: StatementHost | undefined, sites: RangeSites): boolean {
  if (group === undefined || !isBraceGroup(group)) return false;
  const inner = itemsOf(group);
  let k = 0;
  for (;;) {
    if (!isPlainConstant(plainWordOf(inner[k])) || !isTokenOf(inner[k + 1], Colon)) return false;
    const verdict = plainWordOf(inner[k + 2]);
    if (verdict === 'jump' || verdict === 'goto') {
      if (!plainVerdictTarget(inner, k + 3, verdict, host, sites)) return false;
      k += 4;
    } else if (verdict !== undefined && SIMPLE_VERDICTS.has(verdict)) k += 3;
    else return false;
    if (k === inner.length) return true;
    if (!isTokenOf(inner[k], Comma)) return false;
    k++;
  }
}

function isTokenOf(item: Item | undefined, type: IToken['tokenType']): boolean {
  return item !== undefined && !isGroup(item) && item.tokenType === type;
}

/** A copy without the spare capacity a pushed-to array keeps (large dumps hold millions of small arrays). */
function exact<T>(a: T[]): T[] {
  return a.slice();
}

function isCommaItem(item: Item): boolean {
  return !isGroup(item) && item.tokenType === Comma;
}

/** Thrown inside the reader when the items do not fit; the caller falls back to a raw statement. */
class Stop {
  static readonly instance = new Stop();
}
