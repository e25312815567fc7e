// What the Service catalog reads from a rule (its address matches, final verdict, numgen vmaps, DNAT target and
// set updates), taken straight from the rule's line when the rule has one of kube-proxy's regular shapes
// (docs/performance.md#memory). A LazyRule's statements are read again from its line on every request, lexing and building
// expressions the catalog then drops: for 10,000 Services that was some 300,000 readings. The shapes below are
// strict (single spaces, plain names and addresses, nothing else on the rule), so the statement reader would
// read them in exactly one way; anything else, and every rule that is not a LazyRule, is read through its
// statements. test/unit/nft-peek.test.ts compares both ways on generated dumps and randomised lines.
import type { NftElement, NftExpression, NftStatement, NftRule, NftVerdictKind } from '../../model/nft';
import { lineRange, type Range } from '../../model/range';
import { LazyRule } from './nodes';

/** An `ip|ip6 saddr|daddr` match. */
export interface AddressMatchFact {
  field: 'saddr' | 'daddr';
  negated: boolean;
  /** The right side as text (addressText); undefined for sets and other expressions. */
  address: string | undefined;
  /** The name of a `@set` on the right side. */
  set: string | undefined;
}

/** One element of a numgen vmap: its key (`0`, `1-2`), verdict and range. */
export interface VmapTargetFact {
  key: string;
  kind: NftVerdictKind | undefined;
  chain: string | undefined;
  range: Range;
}

/** `numgen random mod N [offset M] vmap …`. */
export interface NumgenVmapFact {
  mod: number;
  offset: number;
  /** The elements of an anonymous map; undefined for `vmap @name` (see mapName). */
  targets: VmapTargetFact[] | undefined;
  mapName: string | undefined;
}

export interface RuleFacts {
  /** The last statement other than a comment, when it is a verdict. */
  verdict: { kind: NftVerdictKind; chain: string | undefined } | undefined;
  /** Every `ip|ip6 saddr|daddr` match, in order. */
  addressMatches: readonly AddressMatchFact[];
  /** Some match on `fib saddr …`. */
  fibSaddr: boolean;
  numgenVmaps: readonly NumgenVmapFact[];
  /** The first DNAT whose target reads as an address (and port; 0 when it does not read as a number). */
  dnat: { address: string; port: number } | undefined;
  /** Sets named by `add|update|delete @set { … }`. */
  setUpdates: readonly string[];
}

/** What the catalog reads from a rule: from its line when peekRuleFacts knows the shape, else from its statements. */
export function ruleFacts(rule: NftRule): RuleFacts {
  return (rule instanceof LazyRule && peekRuleFacts(rule.raw, rule)) || ruleFactsFromStatements(rule.statements);
}

// ---------------------------------------------------------------------------------------------------------
// From statements

/** The text of an address-like expression: "10.0.0.0/8", "1.2.3.4", "1.0.0.0-3.255.255.255". */
export function addressText(e: NftExpression): string | undefined {
  if (e.kind === 'prefix') return `${e.address}/${e.length}`;
  if (e.kind === 'value') return e.value;
  if (e.kind === 'range') return `${e.from}-${e.to}`;
  return undefined;
}

function stripBrackets(text: string): string {
  return text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
}

/** A DNAT's address and port, when its target reads as one. */
function dnatTarget(st: Extract<NftStatement, { kind: 'nat' }>): { address: string; port: number } | undefined {
  const address = st.addr ? stripBrackets(addressText(st.addr) ?? st.addr.text) : undefined;
  const port = st.port ? Number(addressText(st.port) ?? st.port.text.replace(/^:/, '')) : 0;
  if (address) return { address, port: Number.isInteger(port) ? port : 0 };
  const to = st.to?.text;
  const m = to ? /^\[([^\]]+)\](?::(\d+))?$|^([^:]+)(?::(\d+))?$/.exec(to) : undefined;
  return m ? { address: m[1] ?? m[3]!, port: Number(m[2] ?? m[4] ?? 0) } : undefined;
}

/** An element of a verdict map as a numgen target. */
export function vmapTargetOf(e: NftElement): VmapTargetFact {
  const v = e.value && typeof e.value !== 'string' ? e.value : undefined;
  return { key: e.key[0] ?? '', kind: v?.kind, chain: v?.chain, range: e.range };
}

export function ruleFactsFromStatements(statements: readonly NftStatement[]): RuleFacts {
  const facts = {
    verdict: undefined as RuleFacts['verdict'],
    addressMatches: [] as AddressMatchFact[],
    fibSaddr: false,
    numgenVmaps: [] as NumgenVmapFact[],
    dnat: undefined as RuleFacts['dnat'],
    setUpdates: [] as string[],
  };
  for (let i = statements.length - 1; i >= 0; i--) {
    const s = statements[i]!;
    if (s.kind === 'comment') continue;
    if (s.kind === 'verdict') facts.verdict = { kind: s.verdict, chain: s.chain };
    break;
  }
  for (const s of statements) {
    if (s.kind === 'match') {
      const left = s.left;
      if (left.kind === 'payload' && (left.protocol === 'ip' || left.protocol === 'ip6') && (left.field === 'saddr' || left.field === 'daddr')) {
        facts.addressMatches.push({ field: left.field, negated: s.negated, address: addressText(s.right), set: s.right.kind === 'setRef' ? s.right.name : undefined });
      } else if (left.kind === 'fib' && left.flags.includes('saddr')) facts.fibSaddr = true;
    } else if (s.kind === 'vmap' && s.key.kind === 'numgen') {
      const map = s.map;
      facts.numgenVmaps.push({
        mod: s.key.mod,
        offset: s.key.offset ?? 0,
        targets: map.kind === 'set' ? map.elements.map(vmapTargetOf) : undefined,
        mapName: map.kind === 'setRef' ? map.name : undefined,
      });
    } else if (s.kind === 'nat' && s.type === 'dnat') {
      facts.dnat ??= dnatTarget(s);
    } else if (s.kind === 'setUpdate') facts.setUpdates.push(s.set.replace(/^@/, ''));
  }
  return facts;
}

// ---------------------------------------------------------------------------------------------------------
// From the line

// A name the lexer reads as one word (and, after `@`, as one set reference): word characters joined by
// `-`, `.` and `/`, possibly ending in `-` or `/` (`service-…/ns/svc/tcp/`). The word ends at a space or comma.
const NAME = String.raw`[A-Za-z0-9_]+(?:[-./]+[A-Za-z0-9_]+)*[-/]*`;
// Addresses the reader classifies as a value or a prefix whose text is the word itself (no leading zeros in
// the prefix length, where `/08` would read as 8). IPv6 has at least one colon and no single trailing colon.
const IPV4 = String.raw`\d{1,3}(?:\.\d{1,3}){3}`;
const IPV6 = String.raw`(?:[0-9A-Fa-f]+(?:::?[0-9A-Fa-f]+)+(?:::)?|[0-9A-Fa-f]+::)`;
const ADDRESS = String.raw`(?:${IPV4}|${IPV6})(?:/(?:0|[1-9]\d{0,2}))?`;

/** `ip daddr 10.96.0.1 `, `ip6 saddr != fd00::/64 `, `ip saddr @affinity-… ` */
const ADDRESS_MATCH_AT = new RegExp(String.raw`(ip6?) (saddr|daddr) (!= )?(?:@(${NAME})|(${ADDRESS})) `, 'y');
/** `jump mark-for-masquerade`, `goto service-… comment "short-circuit pod traffic"` (then the end). */
const JUMP_AT = new RegExp(String.raw`(jump|goto) (${NAME})(?: comment "[^"]*")?$`, 'y');
/** `meta l4proto tcp dnat to 10.244.0.5:8080`, `… dnat to [fd00:10:244::5]:8080`. */
const DNAT_RULE = new RegExp(String.raw`^meta l4proto (?:tcp|udp|sctp) dnat (?:ip6? )?to (?:(${IPV4})|\[([0-9A-Fa-f:.]+)\]):(\d+)$`);
/** `update @affinity-… { ip saddr }` */
const SET_UPDATE_RULE = new RegExp(String.raw`^(?:add|update) @(${NAME}) \{ ip6? saddr \}$`);
/** `numgen random mod 3 vmap { ` */
const NUMGEN_VMAP_START = /^numgen (?:random|inc) mod (\d+)(?: offset (\d+))? vmap \{ /;
/** `0 : goto endpoint-…, ` (nft -f input writes ` , `), the last one ` }`. */
const VMAP_ELEMENT_AT = new RegExp(String.raw`(\d+(?:-\d+)?) : (goto|jump) (${NAME})(, | , | \}$)`, 'y');

/** The lists of facts without entries (peeked facts are read once and dropped: no need for lists of their own). */
const NONE: readonly never[] = Object.freeze([]);

/**
 * The facts of a rule written as `text` (a LazyRule's own text, on one line) when it has one of kube-proxy's
 * regular shapes, else undefined. `rule` gives the line and column for the ranges of numgen vmap elements.
 */
export function peekRuleFacts(text: string, rule: Pick<NftRule, 'range'>): RuleFacts | undefined {
  const first = text.charCodeAt(0);
  if (first === 105 /* i */ || first === 106 /* j */ || first === 103 /* g */) return peekMatchesAndJump(text);
  if (first === 109 /* m */) {
    const m = DNAT_RULE.exec(text);
    if (!m) return undefined;
    const port = Number(m[3]);
    return { verdict: undefined, addressMatches: NONE, fibSaddr: false, numgenVmaps: NONE, dnat: { address: m[1] ?? m[2]!, port: Number.isInteger(port) ? port : 0 }, setUpdates: NONE };
  }
  if (first === 117 /* u */ || first === 97 /* a */) {
    const m = SET_UPDATE_RULE.exec(text);
    if (!m) return undefined;
    return { verdict: undefined, addressMatches: NONE, fibSaddr: false, numgenVmaps: NONE, dnat: undefined, setUpdates: [m[1]!] };
  }
  if (first === 110 /* n */) return peekNumgenVmap(text, rule);
  return undefined;
}

/** `ip|ip6 saddr|daddr [!=] address|@set` … then `jump|goto name [comment "…"]`. */
function peekMatchesAndJump(text: string): RuleFacts | undefined {
  let addressMatches: AddressMatchFact[] | undefined;
  let at = 0;
  for (;;) {
    ADDRESS_MATCH_AT.lastIndex = at;
    const m = ADDRESS_MATCH_AT.exec(text);
    if (!m) break;
    (addressMatches ??= []).push({ field: m[2] as 'saddr' | 'daddr', negated: m[3] !== undefined, address: m[5], set: m[4] });
    at = ADDRESS_MATCH_AT.lastIndex;
  }
  JUMP_AT.lastIndex = at;
  const v = JUMP_AT.exec(text);
  if (!v) return undefined;
  const verdict = { kind: v[1] as 'jump' | 'goto', chain: v[2]! };
  return { verdict, addressMatches: addressMatches ?? NONE, fibSaddr: false, numgenVmaps: NONE, dnat: undefined, setUpdates: NONE };
}

function peekNumgenVmap(text: string, rule: Pick<NftRule, 'range'>): RuleFacts | undefined {
  const start = NUMGEN_VMAP_START.exec(text);
  if (!start) return undefined;
  const { line, character } = rule.range.start;
  const targets: VmapTargetFact[] = [];
  let at = start[0].length;
  while (at < text.length) {
    VMAP_ELEMENT_AT.lastIndex = at;
    const m = VMAP_ELEMENT_AT.exec(text);
    if (!m) return undefined;
    const end = VMAP_ELEMENT_AT.lastIndex - m[4]!.length;
    targets.push({ key: m[1]!, kind: m[2] as 'goto' | 'jump', chain: m[3]!, range: lineRange(line, character + at, character + end) });
    at = VMAP_ELEMENT_AT.lastIndex;
  }
  const numgenVmap: NumgenVmapFact = { mod: Number(start[1]), offset: start[2] === undefined ? 0 : Number(start[2]), targets, mapName: undefined };
  return { verdict: undefined, addressMatches: NONE, fibSaddr: false, numgenVmaps: [numgenVmap], dnat: undefined, setUpdates: NONE };
}
