// What the Service catalog reads of an iptables rule — its comment, protocol, first source, destination port and
// session-affinity check — read from the line in one scan while the parser adds the rule (for rules of `KUBE-*`
// chains but `KUBE-SEP-*`, the ones the catalog reads: see hasRuleFacts), kept as columns in RuleFactRows, instead of building the rule's details (a
// full re-parse into objects) for each of the 30,000 rules a 10,000-Service dump makes it read
// (docs/performance.md#memory). The accelerators and the reference reader both add rules through the sink, which
// fills the facts: the same facts whichever read the line.
//
// The scan answers only when the line leaves no doubt about what the details would hold: every option the catalog
// reads (or an abbreviation of one) sits in the run of a `-m` match that knows it, so it cannot belong to anything
// else; any other doubt (an unusual line, such an option before any match or after the target, two destination
// ports) marks the row DOUBT, and the accessors then read the details instead.
import { findAnyMatchOption, findMatchOption, findParam, ruleComment, type Rule } from '../../model/iptables';
import { packColumns, fitsColumns, endColumn, startColumn } from '../../model/compact/columns';
import {
  AFFINITY,
  COMMENT_WORDS,
  DOUBT,
  FACT_COMMENT,
  FACT_FLAGS,
  FACT_PORT,
  FACT_PROTOCOL,
  FACT_SECONDS,
  FACT_SOURCE,
  HAS_PORT,
  HAS_SOURCE,
  PORT_NEGATED,
  QUOTED,
  RuleFactRows,
  SOURCE_NEGATED,
} from '../../model/compact/rule-facts';
export { hasRuleFacts } from './nodes';
import { FULL_COUNTERS, K_BANG, K_LONG, K_SHORT, K_VALUE, RuleNode, scanLine, TokenTable } from './nodes';
import { lookupMatchOption } from './extensions';
import { unquote } from './lexer';
/** Options the catalog reads, in every spelling the details may store under these names (abbreviations are prefixes). */
const READ_OPTIONS = ['--comment', '--dport', '--destination-port', '--dports', '--destination-ports', '--rcheck', '--update', '--seconds'];
const DESTINATION_PORT_NAMES: readonly string[] = ['--dport', '--destination-port', '--dports', '--destination-ports'];
/** The parameters the catalog reads by any spelling (see the parser's PARAM_ALIASES), and `-d`'s, which a read option's abbreviation would otherwise look like. */
const SOURCE_SPELLINGS = ['--source', '--src'];
const PROTOCOL_SPELLINGS = ['--protocol'];
const DESTINATION_SPELLINGS = ['--destination', '--dst'];
const PROTOCOL_NAMES = ['tcp', 'udp', 'sctp'];

// What an option token is to the scan (the parser's `current` container is NONE, MATCH or TARGET).
const NONE = -1;
const MATCH = 0;
const TARGET = 1;
const PROTOCOL = 2;
const SOURCE = 3;
const READ = 4;
const OTHER = 5;

/** Options whose exact spelling their module stores under that name (see the unit test). */
const CANONICAL_OPTIONS: readonly [string, string][] = [
  ['comment', '--comment'],
  ['tcp', '--dport'],
  ['udp', '--dport'],
  ['sctp', '--dport'],
  ['multiport', '--dports'],
  ['recent', '--rcheck'],
  ['recent', '--update'],
  ['recent', '--seconds'],
];

/** The slots of a row that hold value columns. */
const VALUE_SLOTS = [FACT_PROTOCOL, FACT_SOURCE, FACT_PORT, FACT_SECONDS, FACT_COMMENT];

/**
 * What a reader found of a rule's facts, as columns of its line: what the scanner below finds in its tokens, or the
 * kube-rule accelerator in the shape it just read (the same answers, without tokenising the line again).
 */
export class FoundFacts {
  /** By slot: the value's start and end column (-1: absent) and whether it is quoted. */
  private readonly start = new Int32Array(FACT_FLAGS).fill(-1);
  private readonly end = new Int32Array(FACT_FLAGS);
  private readonly quoted = new Uint8Array(FACT_FLAGS);
  /** AFFINITY, HAS_SOURCE, SOURCE_NEGATED, HAS_PORT and PORT_NEGATED. */
  flags = 0;
  /** The comment when it is several words. */
  commentWords: string | undefined;
  /** Whether the rule has any of the facts (a `-p` without a value is one). */
  any = false;
  /** The line could not be read with certainty: the rule's details tell. */
  doubt = false;

  clear(): void {
    this.start.fill(-1);
    this.flags = 0;
    this.commentWords = undefined;
    this.any = false;
    this.doubt = false;
  }

  set(slot: number, start: number, end: number, quoted: boolean): void {
    this.start[slot] = start;
    this.end[slot] = end;
    this.quoted[slot] = quoted ? 1 : 0;
  }

  /** Adds the row of the rule on `line` to `rows` (DOUBT when a column does not fit), unless it has none of the facts. */
  addTo(rows: RuleFactRows, line: number): void {
    const row = rows.add(line);
    if (this.doubt || !this.store(rows, row)) rows.set(row, FACT_FLAGS, DOUBT);
    else if (!this.any) rows.dropLast();
  }

  private store(rows: RuleFactRows, row: number): boolean {
    let flags = this.flags;
    for (const slot of VALUE_SLOTS) {
      const start = this.start[slot];
      if (start < 0) continue;
      const end = this.end[slot];
      if (!fitsColumns(start, end)) return false;
      rows.set(row, slot, packColumns(start, end));
      if (this.quoted[slot]) flags |= QUOTED << slot;
    }
    if (this.commentWords !== undefined) {
      rows.commentWords.set(rows.get(row, 0), this.commentWords);
      flags |= COMMENT_WORDS;
    }
    rows.set(row, FACT_FLAGS, flags);
    return true;
  }
}

/** Reads a rule's line into a row of RuleFactRows (one scanner per parse: it keeps a token table). */
export class RuleFactScanner {
  private readonly tokens = new TokenTable();
  private readonly found = new FoundFacts();
  private raw = '';
  // What the scan found (token indexes into `tokens`, -1 when absent).
  private protocolToken = -1;
  private hasProtocol = false;
  private hasSource = false;
  private sourceToken = -1;
  private sourceNegated = false;
  private commentToken = -1;
  private commentCount = 0;
  private portToken = -1;
  private hasPort = false;
  private portNegated = false;
  private affinity = false;
  private hasSeconds = false;
  private secondsToken = -1;

  /** Adds the row of the rule on `line` (its text `raw`) to `rows`, unless the rule has none of the facts. */
  fill(rows: RuleFactRows, line: number, raw: string): void {
    this.raw = raw;
    this.collect(this.scan()).addTo(rows, line);
    this.raw = '';
  }

  /** The scan's findings as columns (`read`: the scan read the line). */
  private collect(read: boolean): FoundFacts {
    const found = this.found;
    found.clear();
    found.doubt = !read;
    if (!read) return found;
    found.any = this.commentToken >= 0 || this.hasProtocol || this.hasSource || this.hasPort || this.affinity || this.hasSeconds;
    found.flags = (this.affinity ? AFFINITY : 0) | (this.hasSource ? HAS_SOURCE : 0) | (this.sourceNegated ? SOURCE_NEGATED : 0);
    found.flags |= (this.hasPort ? HAS_PORT : 0) | (this.portNegated ? PORT_NEGATED : 0);
    this.setToken(FACT_PROTOCOL, this.protocolToken);
    this.setToken(FACT_SOURCE, this.sourceToken);
    this.setToken(FACT_PORT, this.portToken);
    this.setToken(FACT_SECONDS, this.secondsToken);
    this.setToken(FACT_COMMENT, this.commentCount === 1 ? this.commentToken : -1);
    if (this.commentCount > 1) {
      const words: string[] = [];
      for (let k = 0; k < this.commentCount; k++) words.push(this.value(this.commentToken + k));
      found.commentWords = words.join(' ');
    }
    return found;
  }

  /** Token `token`'s columns (none when it is -1) as the found value of `slot`. */
  private setToken(slot: number, token: number): void {
    if (token >= 0) this.found.set(slot, this.tokens.start[token], this.tokens.end[token], this.tokens.quoted[token] === 1);
  }

  private value(token: number): string {
    const raw = this.raw;
    const image = raw.slice(this.tokens.start[token], this.tokens.end[token]);
    return this.tokens.quoted[token] ? unquote(image) : image;
  }

  private is(token: number, image: string): boolean {
    const start = this.tokens.start[token];
    return this.tokens.end[token] - start === image.length && this.raw.startsWith(image, start);
  }

  private isAny(token: number, images: readonly string[]): boolean {
    for (const image of images) if (this.is(token, image)) return true;
    return false;
  }

  /** What the option token is to the parser, as far as the catalog cares (see the parser's rule()). */
  private roleOf(option: number): number {
    const raw = this.raw;
    const start = this.tokens.start[option];
    if (this.tokens.kind[option] === K_SHORT) {
      switch (raw.charCodeAt(start + 1)) {
        case 112 /* p */:
          return PROTOCOL;
        case 115 /* s */:
          return SOURCE;
        case 109 /* m */:
          return MATCH;
        case 106 /* j */:
        case 103 /* g */:
          return TARGET;
        default:
          return OTHER;
      }
    }
    // Long spellings of the parameters first: `--destination` is also an abbreviation of `--destination-port`.
    if (this.isAny(option, PROTOCOL_SPELLINGS)) return PROTOCOL;
    if (this.isAny(option, SOURCE_SPELLINGS)) return SOURCE;
    if (this.isAny(option, DESTINATION_SPELLINGS)) return OTHER;
    if (this.is(option, '--match')) return MATCH;
    if (this.is(option, '--jump') || this.is(option, '--goto')) return TARGET;
    return this.mayBeRead(option) ? READ : OTHER;
  }

  /** The module (a `-m` value token) is `name`. */
  private moduleIs(token: number, name: string): boolean {
    return this.tokens.quoted[token] ? this.value(token) === name : this.is(token, name);
  }

  /** The name the details store `option` under in the match of `module` (a token), or undefined if it does not know it. */
  private optionOf(moduleToken: number, option: number): string | undefined {
    // kube-proxy's spellings, known to be their own canonical names (tested), without slicing the line.
    for (const [module, name] of CANONICAL_OPTIONS) if (this.is(option, name) && this.is(moduleToken, module)) return name;
    const raw = this.raw;
    return lookupMatchOption(this.value(moduleToken), raw.slice(this.tokens.start[option], this.tokens.end[option]))?.name;
  }

  /** The option token is one of READ_OPTIONS or an abbreviation of one. */
  private mayBeRead(token: number): boolean {
    const raw = this.raw;
    const start = this.tokens.start[token];
    const length = this.tokens.end[token] - start;
    for (const name of READ_OPTIONS) {
      if (length > name.length) continue;
      let k = 2; // both start with `--`
      while (k < length && raw.charCodeAt(start + k) === name.charCodeAt(k)) k++;
      if (k === length) return true;
    }
    return false;
  }

  /** Reads the line into the fields above, the way the parser groups it; false when in doubt. */
  private scan(): boolean {
    const raw = this.raw;
    const tokens = this.tokens;
    const n = scanLine(raw, tokens);
    // The parser's fast path reads only lines that start at column 0: others go through its other lexer.
    if (n <= 0 || tokens.start[0] !== 0) return false;
    const kinds = tokens.kind;
    this.protocolToken = this.sourceToken = this.commentToken = this.portToken = this.secondsToken = -1;
    this.hasProtocol = this.hasSource = this.sourceNegated = this.hasPort = this.portNegated = this.affinity = this.hasSeconds = false;
    this.commentCount = 0;
    let k = 0;
    if (raw.charCodeAt(0) === 91 /* [ */) {
      if (tokens.quoted[0] || !FULL_COUNTERS.test(raw.slice(0, tokens.end[0]))) return false;
      k = 1;
    }
    // The container the next long option belongs to (the parser's `current`), and its module's value token.
    let current = NONE;
    let moduleToken = -1;
    let hasTarget = false;
    let recentMatches = 0;
    let item = 0;
    while (k < n) {
      const negated = kinds[k] === K_BANG;
      if (negated) k++;
      if (k >= n || (kinds[k] !== K_LONG && kinds[k] !== K_SHORT)) return false;
      const option = k++;
      if (k < n && kinds[k] === K_BANG) return false; // `--opt !`: the old negation, or a `!` the parser may read either way
      const first = k;
      while (k < n && kinds[k] === K_VALUE) k++;
      const count = k - first;
      if (item++ === 0) continue; // the command and its chain
      const valueToken = count > 0 ? first : -1;
      const role = this.roleOf(option);
      if (role === PROTOCOL) {
        if (!this.hasProtocol) {
          this.hasProtocol = true;
          this.protocolToken = valueToken;
        }
      } else if (role === SOURCE) {
        if (!this.hasSource) {
          this.hasSource = true;
          this.sourceNegated = negated;
          this.sourceToken = valueToken;
        }
      } else if (role === MATCH) {
        if (count === 0) continue;
        current = MATCH;
        moduleToken = first;
        if (this.moduleIs(first, 'recent')) recentMatches++;
      } else if (role === TARGET) {
        if (count === 0 || hasTarget) continue; // a second target is ignored
        hasTarget = true;
        current = TARGET;
      } else if (role === READ) {
        // Owned by the current match only if it knows the option: otherwise the parser looks further.
        if (current !== MATCH) return false;
        const name = this.optionOf(moduleToken, option);
        if (name === undefined) return false;
        if (name === '--comment') {
          if (this.moduleIs(moduleToken, 'comment') && this.commentToken < 0 && this.commentCount === 0) {
            this.commentToken = valueToken;
            this.commentCount = count;
            if (count === 0) return false; // an empty comment: rare, the details tell
          }
        } else if (DESTINATION_PORT_NAMES.includes(name)) {
          // Several could be found in another order than the line's (implicit matches): the details tell.
          if (this.hasPort) return false;
          this.hasPort = true;
          this.portNegated = negated;
          this.portToken = valueToken;
        } else if (this.moduleIs(moduleToken, 'recent')) {
          if ((name === '--rcheck' || name === '--update') && recentMatches === 1) this.affinity = true;
          if (name === '--seconds' && !this.hasSeconds) {
            this.hasSeconds = true;
            this.secondsToken = valueToken;
          }
        }
      }
      // Anything else (-d, other parameters, counters, unknown options) cannot hold what the catalog reads.
    }
    return true;
  }
}

/**
 * One rule's facts for the catalog, valid until the next `read`. Each accessor answers what the rule's details
 * would (the same helpers' results): from the row the parser filled, else from the details.
 */
export class RuleFacts {
  /** Rules without stored facts (outside `KUBE-*` chains) are read into this one row when asked. */
  private readonly scratch = new RuleFactRows();
  private readonly scanner = new RuleFactScanner();
  private rule: Rule | undefined = undefined;
  private rows: RuleFactRows = this.scratch;
  /** The rule's row, or -1 when it has none of the facts. */
  private row = -1;
  private flags = 0;

  /** Starts reading `rule`; returns this. */
  read(rule: Rule): this {
    if (rule === this.rule) return this; // the same rule again (a chain's first rule is often its masquerade rule)
    this.rule = rule;
    const stored = rule instanceof RuleNode ? rule.factRows() : undefined;
    if (stored !== undefined) {
      this.rows = stored;
      this.row = stored.find((rule as RuleNode).line);
    } else {
      this.rows = this.scratch;
      this.scratch.count = 0;
      this.scratch.commentWords.clear();
      this.scanner.fill(this.scratch, 0, rule.raw);
      this.row = this.scratch.count - 1;
    }
    this.flags = this.row < 0 ? 0 : this.rows.get(this.row, FACT_FLAGS);
    return this;
  }

  /** The answers can come from the row. */
  private get fromLine(): boolean {
    return (this.flags & DOUBT) === 0;
  }

  /** ruleComment's answer. */
  comment(): string | undefined {
    if (!this.fromLine) return ruleComment(this.rule!);
    if (this.flags & COMMENT_WORDS) return this.rows.commentWords.get(this.rows.get(this.row, 0));
    return this.value(FACT_COMMENT);
  }

  /** The first `-p`'s first value, in lower case (negated or not). */
  protocol(): string | undefined {
    if (!this.fromLine) return findParam(this.rule!, '-p')?.values[0]?.toLowerCase();
    if (this.row < 0 || this.rows.get(this.row, FACT_PROTOCOL) < 0) return undefined;
    // One string for the usual names, as the details' interned values: each Service keeps its protocol.
    for (const name of PROTOCOL_NAMES) if (this.is(FACT_PROTOCOL, name)) return name;
    return this.value(FACT_PROTOCOL)!.toLowerCase();
  }

  /** The first destination port option's value when given, not negated and an integer. */
  destinationPort(): number | undefined {
    let value: string | undefined;
    if (this.fromLine) {
      if (!(this.flags & HAS_PORT) || this.flags & PORT_NEGATED) return undefined;
      value = this.value(FACT_PORT);
      if (value === undefined) return undefined;
    } else {
      const o = findAnyMatchOption(this.rule!, ...DESTINATION_PORT_NAMES);
      if (!o || o.negated) return undefined;
      value = o.values[0];
    }
    const n = Number(value);
    return Number.isInteger(n) ? n : undefined;
  }

  /** The first `-s`: whether there is one, negated, and its value. */
  source(): { negated: boolean; value: string | undefined } | undefined {
    if (!this.fromLine) {
      const o = findParam(this.rule!, '-s');
      return o && { negated: o.negated, value: o.values[0] };
    }
    if (!(this.flags & HAS_SOURCE)) return undefined;
    return { negated: (this.flags & SOURCE_NEGATED) !== 0, value: this.value(FACT_SOURCE) };
  }

  /** The rule's first `-m recent` checks or updates the list (kube-proxy's session affinity rule). */
  isAffinityCheck(): boolean {
    if (this.fromLine) return (this.flags & AFFINITY) !== 0;
    const m = this.rule!.matches.find((x) => x.module === 'recent');
    return Boolean(m && m.options.some((o) => o.name === '--rcheck' || o.name === '--update'));
  }

  /** The first `--seconds` of a `-m recent`, as findMatchOption's first value. */
  affinitySeconds(): string | undefined {
    if (!this.fromLine) return findMatchOption(this.rule!, 'recent', '--seconds')?.values[0];
    return this.value(FACT_SECONDS);
  }

  /** The value in `slot` of the row (unquoted), or undefined. */
  private value(slot: number): string | undefined {
    const packed = this.row < 0 ? -1 : this.rows.get(this.row, slot);
    if (packed < 0) return undefined;
    const image = this.rule!.raw.slice(startColumn(packed), endColumn(packed));
    return this.flags & (QUOTED << slot) ? unquote(image) : image;
  }

  private is(slot: number, image: string): boolean {
    const packed = this.rows.get(this.row, slot);
    const start = startColumn(packed);
    return endColumn(packed) - start === image.length && this.rule!.raw.startsWith(image, start);
  }
}
