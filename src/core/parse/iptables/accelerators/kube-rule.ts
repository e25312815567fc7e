// The accelerator of kube-proxy's usual rule lines (about 95% of the lines of a large dump), read straight from the
// text: the sink calls the reference reader makes on their first reading, without its tokens and option lookups.
// See docs/performance.md.
import type { Chain } from '../../../model/iptables';
import { lookupMatchOption, lookupTargetOption } from '../extensions';
import { COUNTERS_PREFIX, notedBits } from '../nodes';
import { addressProblem } from '../address-problem';
import { TARGET_EXTENSION_NAMES, VERDICTS } from '../vocabulary';
import type { IptablesSink } from '../sink';
import { FoundFacts } from '../rule-facts';
import { FACT_COMMENT, FACT_PORT, FACT_PROTOCOL, FACT_SOURCE, HAS_PORT, HAS_SOURCE, SOURCE_NEGATED } from '../../../model/compact/rule-facts';
import { LINE_LIMITS } from '../../pipeline';
import { isDigit, textIs, wordEnd } from './text';

// The vocabulary of kubeRule: matches (M_, below T_DNAT) and targets (T_); long options (O_ bits) and the other
// options (SEEN_ bits) of a line.
const M_COMMENT = 0;
const M_TCP = 1;
const M_UDP = 2;
const M_SCTP = 3;
const M_STATISTIC = 4;
const T_DNAT = 5;
/** `-j CHAIN`: a user-defined chain, which knows no option. */
const T_CHAIN = 6;
const KUBE_MATCHES = ['comment', 'tcp', 'udp', 'sctp', 'statistic'];
const O_COMMENT = 1;
const O_DPORT = 2;
const O_SPORT = 4;
const O_MODE = 8;
const O_PROBABILITY = 16;
const O_TO_DESTINATION = 32;
const KUBE_OPTIONS: [string, number][] = [
  ['--comment', O_COMMENT],
  ['--dport', O_DPORT],
  ['--sport', O_SPORT],
  ['--mode', O_MODE],
  ['--probability', O_PROBABILITY],
  ['--to-destination', O_TO_DESTINATION],
];
const SEEN_SOURCE = 64;
const SEEN_DESTINATION = 128;
const SEEN_PROTOCOL = 256;
const SEEN_TARGET = 512;

/** The long options each match or target of the vocabulary knows (O_ bits), from the extension tables. */
let kubeKnowsTable: Uint8Array | null | undefined;

/**
 * The tables' answer, once; null (kubeRule off) if one of the options would not take exactly one value or would
 * have its value checked in a way kubeRule does not repeat.
 */
function kubeKnows(): Uint8Array | null {
  if (kubeKnowsTable !== undefined) return kubeKnowsTable;
  const knows = new Uint8Array(T_CHAIN + 1);
  for (let module = 0; module <= T_DNAT; module++) {
    for (const [option, bit] of KUBE_OPTIONS) {
      const spec = module === T_DNAT ? lookupTargetOption('DNAT', option) : lookupMatchOption(KUBE_MATCHES[module], option);
      if (spec === undefined) continue;
      if (spec.arity !== 1 || spec.valueKind === 'mac' || (spec.valueKind === 'probability' && bit !== O_PROBABILITY)) return (kubeKnowsTable = null);
      knows[module] |= bit;
    }
  }
  return (kubeKnowsTable = knows);
}

function kubeModuleAt(text: string, start: number, end: number): number {
  switch (end - start) {
    case 3:
      return textIs(text, start, end, 'tcp') ? M_TCP : textIs(text, start, end, 'udp') ? M_UDP : -1;
    case 4:
      return textIs(text, start, end, 'sctp') ? M_SCTP : -1;
    case 7:
      return textIs(text, start, end, 'comment') ? M_COMMENT : -1;
    case 9:
      return textIs(text, start, end, 'statistic') ? M_STATISTIC : -1;
    default:
      return -1;
  }
}

/** The O_ bit of the long option from start to end, or -1. */
function kubeOptionAt(text: string, start: number, end: number): number {
  switch (end - start) {
    case 6:
      return text.startsWith('--mode', start) ? O_MODE : -1;
    case 7:
      return text.startsWith('--dport', start) ? O_DPORT : text.startsWith('--sport', start) ? O_SPORT : -1;
    case 9:
      return text.startsWith('--comment', start) ? O_COMMENT : -1;
    case 13:
      return text.startsWith('--probability', start) ? O_PROBABILITY : -1;
    case 16:
      return text.startsWith('--to-destination', start) ? O_TO_DESTINATION : -1;
    default:
      return -1;
  }
}
/**
 * The end of a `--comment` value: a word of printable ASCII, or a quoted text of printable ASCII without quotes
 * or backslashes inside; -1 for anything else (escapes, tabs, control characters, non-ASCII: the generic path).
 */
function commentEnd(text: string, start: number, length: number): number {
  const first = text.charCodeAt(start);
  if (first === 34 /* " */) {
    for (let p = start + 1; p < length; p++) {
      const c = text.charCodeAt(p);
      if (c === 34) return p + 1;
      if (c < 32 || c > 126 || c === 92 /* \ */) return -1;
    }
    return -1;
  }
  // Not what scanLine reads as an option, `!`, counters or a comment, nor what the Chevrotain lexer reads as a table or chain.
  if (first === 45 || first === 33 || first === 91 || first === 35 || first === 42 || first === 58) return -1;
  let p = start;
  for (; p < length; p++) {
    const c = text.charCodeAt(p);
    if (c === 32) break;
    if (c < 33 || c > 126 || c === 34 || c === 92) return -1;
  }
  return p > start ? p : -1;
}

/** 1 to 5 digits. */
function isPort(text: string, start: number, end: number): boolean {
  if (end - start < 1 || end - start > 5) return false;
  for (let p = start; p < end; p++) if (!isDigit(text.charCodeAt(p))) return false;
  return true;
}

/** `0`, `0.DIGITS`, `1` or `1.000…`: a number from 0 to 1 as checkValue wants it. */
function isProbability(text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start);
  if (end - start > 24 || (first !== 48 && first !== 49)) return false;
  if (end === start + 1) return true;
  if (text.charCodeAt(start + 1) !== 46 || end === start + 2) return false;
  for (let p = start + 2; p < end; p++) {
    const c = text.charCodeAt(p);
    if (first === 49 ? c !== 48 : !isDigit(c)) return false;
  }
  return true;
}

/**
 * An IPv4 address with an optional prefix length, octets and prefix without leading zeros; or an IPv6 one
 * addressProblem finds fine: values of -s and -d that checkParam accepts without a word.
 */
function isPlainAddress(text: string, start: number, end: number): boolean {
  let octets = 0;
  let digits = 0;
  let value = 0;
  let p = start;
  for (; p <= end; p++) {
    const c = p < end ? text.charCodeAt(p) : 46;
    if (isDigit(c)) {
      if (digits === 1 && value === 0) return false;
      value = value * 10 + c - 48;
      if (++digits > 3) return isPlainIpv6(text, start, end); // `2001:db8::1`
    } else if (c === 46 /* . */ || c === 47 /* / */) {
      if (digits === 0 || value > 255 || ++octets > 4 || (c === 47 && octets !== 4) || (c === 46 && octets === 4 && p < end)) return false;
      if (c === 47) break;
      digits = 0;
      value = 0;
    } else if (c === 58 /* : */ || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)) {
      return isPlainIpv6(text, start, end);
    } else {
      return false;
    }
  }
  if (octets !== 4) return false;
  if (p === end + 1) return true; // no prefix length
  const length = end - p - 1;
  if (length < 1 || length > 2) return false;
  const a = text.charCodeAt(p + 1);
  if (!isDigit(a)) return false;
  if (length === 1) return true;
  const b = text.charCodeAt(p + 2);
  return a !== 48 && isDigit(b) && (a - 48) * 10 + b - 48 <= 32;
}

function isPlainIpv6(text: string, start: number, end: number): boolean {
  if (text.charCodeAt(start) === 58 /* : */) return false; // `::1`: a chain declaration to the Chevrotain lexer
  for (let p = start; p < end; p++) {
    const c = text.charCodeAt(p);
    if (!(isDigit(c) || c === 58 || c === 46 || c === 47 || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return addressProblem(text.slice(start, end)) === undefined;
}

/** A DNAT destination `ADDRESS:PORT` or `[ADDRESS]:PORT` (hex digits, dots, colons and brackets: nothing to check). */
function isHostPort(text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start);
  if (end <= start || first === 58 || (first === 91 /* [ */ && COUNTERS_PREFIX.test(text.slice(start, end)))) return false;
  for (let p = start; p < end; p++) {
    const c = text.charCodeAt(p);
    if (!(isDigit(c) || c === 58 || c === 46 || c === 91 || c === 93 || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return true;
}
/**
 * kube-proxy's usual rules: `-A CHAIN` then, each at most once and in any order, `[! ]-s`/`[! ]-d ADDRESS`, `-p
 * tcp|udp|sctp`, `-m comment|tcp|udp|sctp|statistic`, `--comment WORD|"TEXT"`, `--dport`/`--sport PORT`, `--mode
 * random`, `--probability P`, `-j CHAIN`, `-j DNAT`, `--to-destination HOST:PORT`, separated by single spaces. On
 * these the first reading always has the same effects, made here. False, having changed nothing, for anything else
 * (any value the reference reader would have to check, odd spacing, escapes, abbreviations, options owned by no
 * match…) and on a rule's second reading (its details).
 */
export class KubeRuleAccelerator {
  // The matches and targets of the line read, in order.
  private readonly container = new Uint8Array(16);
  private containerCount = 0;

  // Where read found the parts of the line (offsets in the document; -1 when absent).
  /** Where the line read starts and ends. */
  private start = 0;
  private end = 0;
  /** What the Service catalog reads of the rule (see rule-facts.ts), found on the way: no second scan of the line. */
  private readonly facts = new FoundFacts();
  private chainEnd = 0;
  private destinationStart = -1;
  private destinationEnd = -1;
  private destinationNegated = false;
  /** `-j CHAIN`: the chain name's columns. */
  private targetStart = -1;
  private targetEnd = -1;
  /** `-j DNAT`. */
  private isDnat = false;
  /** The option whose value is noted on the rule, and where the value starts. */
  private notedOption: '--to-destination' | '--probability' | undefined;
  private notedStart = 0;

  private push(module: number): number {
    this.container[this.containerCount] = module;
    return this.containerCount++;
  }

  /** The SEEN_* and O_* bits of the options read so far on the line. */
  private seen = 0;
  /** The container entry (match or target) the last -m or -j opened, or -1. */
  private current = -1;
  /** The module -p names (its options may follow without -m), or -1. */
  private implicitModule = -1;

  /**
   * Whether the line at [lineStart, length) of `text` (starting with `-`) is one of kube-proxy's usual rules (see
   * KubeRuleAccelerator); if so, where its parts are, in the shape variables.
   */
  private read(text: string, lineStart: number, length: number): boolean {
    const knows = kubeKnows();
    if (knows === null) return false;
    if (length - lineStart < 4 || text.charCodeAt(lineStart + 1) !== 65 /* A */ || text.charCodeAt(lineStart + 2) !== 32) return false;
    this.start = lineStart;
    this.end = length;
    this.facts.clear();
    const chainEnd = wordEnd(text, lineStart + 3, length);
    if (chainEnd < 0) return false;
    this.chainEnd = chainEnd;
    let p = chainEnd;
    this.seen = 0;
    this.destinationStart = -1;
    this.destinationEnd = -1;
    this.destinationNegated = false;
    this.targetStart = -1;
    this.targetEnd = -1;
    this.notedOption = undefined;
    this.notedStart = 0;
    this.current = -1;
    this.implicitModule = -1;
    this.containerCount = 0;
    while (p < length) {
      let start = p + 1;
      let end = spaceOrEnd(text, start, length);
      let negated = false;
      if (end === start + 1 && text.charCodeAt(start) === 33 /* ! */) {
        negated = true;
        start = end + 1;
        end = spaceOrEnd(text, start, length);
      }
      // Every option here takes one value.
      const valueStart = end + 1;
      if (end - start < 2 || text.charCodeAt(start) !== 45 /* - */ || valueStart >= length) return false;
      const valueEnd = end - start === 2 ? this.shortOption(text, start, valueStart, negated) : negated ? -1 : this.longOption(text, start, end, valueStart, knows);
      if (valueEnd < 0) return false;
      p = valueEnd;
      if (p < length && (text.charCodeAt(p) !== 32 || p + 1 >= length)) return false;
    }
    // `--probability` is noted as the value of a random statistic.
    if (this.notedOption === '--probability' && (this.seen & O_MODE) === 0) return false;
    this.isDnat = (this.seen & SEEN_TARGET) !== 0 && this.targetStart < 0;
    return true;
  }

  /** A fact of the rule: the value from start to end of the text in `slot`, and `flags`. */
  private fact(text: string, slot: number, start: number, end: number, flags: number): void {
    const facts = this.facts;
    facts.set(slot, start - this.start, end - this.start, text.charCodeAt(start) === 34 /* " */);
    facts.flags |= flags;
    facts.any = true;
  }

  /** `-s`, `-d`, `-p`, `-m` or `-j` and its value at `valueStart`: the value's end, or -1 when the line is not usual. */
  private shortOption(text: string, start: number, valueStart: number, negated: boolean): number {
    const valueEnd = spaceOrEnd(text, valueStart, this.end);
    const c = text.charCodeAt(start + 1);
    let bit: number;
    if (c === 115 /* s */ || c === 100 /* d */) {
      if (!isPlainAddress(text, valueStart, valueEnd)) return -1;
      bit = c === 115 ? SEEN_SOURCE : SEEN_DESTINATION;
      if (c === 115) this.fact(text, FACT_SOURCE, valueStart, valueEnd, HAS_SOURCE | (negated ? SOURCE_NEGATED : 0));
      if (c === 100) {
        this.destinationStart = valueStart;
        this.destinationEnd = valueEnd;
        this.destinationNegated = negated;
      }
    } else if (negated) {
      return -1;
    } else if (c === 112 /* p */) {
      this.implicitModule = kubeModuleAt(text, valueStart, valueEnd);
      if (this.implicitModule !== M_TCP && this.implicitModule !== M_UDP && this.implicitModule !== M_SCTP) return -1;
      this.fact(text, FACT_PROTOCOL, valueStart, valueEnd, 0);
      bit = SEEN_PROTOCOL;
    } else if (c === 109 /* m */) {
      const module = kubeModuleAt(text, valueStart, valueEnd);
      if (module < 0) return -1;
      for (let k = 0; k < this.containerCount; k++) if (this.container[k] === module) return -1;
      this.current = this.push(module);
      bit = 0;
    } else if (c === 106 /* j */) {
      if (textIs(text, valueStart, valueEnd, 'DNAT')) {
        this.current = this.push(T_DNAT);
      } else {
        if (wordEnd(text, valueStart, this.end) !== valueEnd) return -1;
        this.targetStart = valueStart;
        this.targetEnd = valueEnd;
        this.current = this.push(T_CHAIN);
      }
      bit = SEEN_TARGET;
    } else {
      return -1;
    }
    if (this.seen & bit) return -1;
    this.seen |= bit;
    return valueEnd;
  }

  /** A `--option` of a match or target and its value: the value's end, or -1 when the line is not usual. */
  private longOption(text: string, start: number, end: number, valueStart: number, knows: Uint8Array): number {
    const option = kubeOptionAt(text, start, end);
    if (option < 0 || this.seen & option) return -1;
    this.seen |= option;
    // The catalog's scan takes --comment and --dport only from the match just opened (-m) that knows them.
    const fromMatch = this.current >= 0 && this.container[this.current] < T_DNAT && (knows[this.container[this.current]] & option) !== 0;
    if ((option === O_COMMENT || option === O_DPORT) && !fromMatch) this.facts.doubt = true;
    // The match or target that owns the option, as ownerOf finds it: the current one, earlier matches, then
    // a new implicit match of -p's protocol. None: the generic path reports it.
    if (!(this.current >= 0 && knows[this.container[this.current]] & option)) {
      let owner = -1;
      for (let k = this.containerCount - 1; k >= 0 && owner < 0; k--) {
        const module = this.container[k];
        if (module < T_DNAT && knows[module] & option) owner = k;
      }
      // (Earlier matches include every one of the protocol's module: this is a new one.)
      if (owner < 0 && this.implicitModule >= 0 && knows[this.implicitModule] & option) owner = this.push(this.implicitModule);
      if (owner < 0) return -1;
    }
    if (option === O_COMMENT) {
      const end = commentEnd(text, valueStart, this.end);
      this.fact(text, FACT_COMMENT, valueStart, end, 0);
      return end;
    }
    const valueEnd = spaceOrEnd(text, valueStart, this.end);
    if (option === O_DPORT) this.fact(text, FACT_PORT, valueStart, valueEnd, HAS_PORT);
    if (
      option === O_DPORT || option === O_SPORT
        ? !isPort(text, valueStart, valueEnd)
        : option === O_MODE
          ? !textIs(text, valueStart, valueEnd, 'random')
          : option === O_PROBABILITY
            ? !isProbability(text, valueStart, valueEnd)
            : !isHostPort(text, valueStart, valueEnd)
    )
      return -1;
    if (option === O_PROBABILITY || option === O_TO_DESTINATION) {
      if (this.notedOption !== undefined) return -1; // one noted value per rule
      this.notedOption = option === O_PROBABILITY ? '--probability' : '--to-destination';
      this.notedStart = valueStart;
    }
    return valueEnd;
  }

  /** An Accelerator of the pipeline: the line is [start, end) of the document `text`, read in place. */
  readonly tryLine = (text: string, start: number, end: number, sink: IptablesSink): boolean => {
    const table = sink.table;
    if (table === undefined || sink.reading !== undefined || end - start > LINE_LIMITS.iptables.maxLength || text.charCodeAt(start) !== 45 /* - */ || !this.read(text, start, end)) return false;
    const i = sink.line;
    const chainStart = start + 3;
    const chainEnd = this.chainEnd;
    const targetStart = this.targetStart;
    const targetEnd = this.targetEnd;
    let jumpChain: Chain | undefined;
    let jumpName: string | undefined;
    if (targetStart >= 0) {
      const last = sink.lastJump;
      if (last !== undefined && last.tableId === table.id && targetEnd - targetStart === last.name.length && text.startsWith(last.name, targetStart)) {
        jumpChain = last;
      } else {
        jumpName = sink.plainValue(text, targetStart, targetEnd);
        jumpChain = table.chainByName.get(jumpName);
      }
      const name = jumpChain ? jumpChain.name : jumpName!;
      if (TARGET_EXTENSION_NAMES.has(name) || VERDICTS.has(name) || name === 'RETURN') return false;
    }

    // The line is one of the shapes: what the reference reader does on its first reading (the model in columns).
    const chain = sink.ruleChain(table, i, text, chainStart, chainEnd, start);
    const noted = notedBits(this.notedOption ?? '--to-destination', this.notedOption === undefined ? 0 : this.notedStart - start);
    const rule = sink.newRule(table, chain, 'append', undefined, i, 1, undefined, noted, 3, chainEnd - start);
    if (this.destinationStart >= 0 && !this.destinationNegated) rule.plainDestination = sink.plainValue(text, this.destinationStart, this.destinationEnd);
    if (targetStart >= 0) {
      const name = jumpChain ? jumpChain.name : sink.intern(jumpName!);
      sink.ruleTarget(table, rule, name, jumpChain, false, false, targetStart - start, targetEnd - start);
      if (jumpChain !== undefined) sink.lastJump = jumpChain;
    } else if (this.isDnat) {
      rule.targetName = 'DNAT';
    }
    sink.ruleWithFacts(table, chain, rule, i, this.facts);
    return true;
  };
}

/** The first space from `start` on, or `end` (the line's end) when there is none before it. */
function spaceOrEnd(text: string, start: number, end: number): number {
  const space = text.indexOf(' ', start);
  return space < 0 || space > end ? end : space;
}
