// The nftables packet simulator (DESIGN §5): every base chain of a hook, across the tables of the packet's
// family, in priority order; statements evaluated left to right, verdict maps looked up with concatenated
// keys, `numgen random mod N` branching by the map's elements (1/N for each value an element has), sets and maps by
// their elements. The engine (engine.ts) walks the hooks and chains; this file evaluates nft's rules.
import type { NftChain, NftElement, NftExpression, NftHashExpression, NftMap, NftNatStatement, NftNumgenExpression, NftRule, NftRuleset, NftSet, NftStatement, NftTable, NftVerdictValue } from '../model/nft';
import { known } from './facts';
import { t } from '../l10n';
import {
  applyDnat,
  assume,
  assumeLimit,
  assumeMatch,
  branchOn,
  certain,
  hostPort,
  ifaceCond,
  negate,
  no,
  shareChain,
  targetParts,
  traceWith,
  Walker,
  yes,
  type Cond,
  type End,
  type Final,
  type Flow,
  type Frame,
  type Hook,
  type State,
} from './engine';
import { formatAddress, isIpv4, parseAddress, parsePrefix, prefixContains, type Address } from '../model/address';
import type { Packet, PathStep, TraceContext, TraceResult } from './types';

/** What an expression evaluates to for a packet. */
type Value =
  | { kind: 'addr'; addr: Address }
  | { kind: 'num'; n: number }
  | { kind: 'word'; w: string }
  | { kind: 'words'; ws: string[] }
  | { kind: 'concat'; parts: Value[] }
  /** `source`: the expression that set a mark at run time. */
  | { kind: 'unknown'; label: string; source?: string };

const PROTO_NUM: Record<string, number> = { tcp: 6, udp: 17, sctp: 132, icmp: 1, 'ipv6-icmp': 58, icmpv6: 58, udplite: 136, dccp: 33 };

function parseNumber(text: string): number | undefined {
  if (/^0x[0-9a-f]+$/i.test(text)) return parseInt(text, 16);
  if (/^\d+$/.test(text)) return Number(text);
  return undefined;
}

/**
 * `0x80000000/1` on a 32-bit value (a mark): its top bits equal those of the number; nft writes it for
 * `mark and 0x80000000 == 0x80000000`. Undefined when the text is no such prefix.
 */
function numericPrefix(text: string): ((n: number) => boolean) | undefined {
  const m = /^(\S+)\/(\d+)$/.exec(text);
  const base = m ? parseNumber(m[1]) : undefined;
  if (!m || base === undefined || Number(m[2]) > 32) return undefined;
  const bits = Number(m[2]);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (n) => (n & mask) >>> 0 === (base & mask) >>> 0;
}

/** Does one element key part (as written in the dump) contain the value? */
function partMatches(part: string, v: Value): boolean | undefined {
  const text = part.trim();
  switch (v.kind) {
    case 'addr': {
      if (text.includes('-') && !text.includes('/')) {
        const [a, b] = text.split('-').map((x) => parseAddress(x.trim()));
        if (a && b && a.family === v.addr.family) return v.addr.value >= a.value && v.addr.value <= b.value;
      }
      const p = parsePrefix(text);
      return p ? prefixContains(p, v.addr) : false;
    }
    case 'num': {
      const prefixed = numericPrefix(text);
      if (prefixed) return prefixed(v.n);
      const range = /^(\S+)\s*-\s*(\S+)$/.exec(text);
      if (range) {
        const lo = parseNumber(range[1]);
        const hi = parseNumber(range[2]);
        if (lo !== undefined && hi !== undefined) return v.n >= lo && v.n <= hi;
      }
      const n = parseNumber(text) ?? PROTO_NUM[text];
      return n !== undefined ? n === v.n : false;
    }
    case 'word':
      return text === v.w || (PROTO_NUM[text] !== undefined && String(PROTO_NUM[text]) === v.w) || (PROTO_NUM[v.w] !== undefined && String(PROTO_NUM[v.w]) === text);
    case 'words':
      return text.split(',').some((x) => v.ws.includes(x.trim()));
    default:
      return undefined;
  }
}

/** Does an element key (its parts, or one text `a . b`) match the value? A key of another shape never does. */
function keyMatches(key: string[], v: Value): boolean | undefined {
  if (v.kind === 'concat') {
    const parts = key.length === 1 && v.parts.length > 1 ? key[0].split(/\s+\.\s+/) : key;
    if (parts.length !== v.parts.length) return false;
    let unknown = false;
    for (let i = 0; i < parts.length; i++) {
      const m = partMatches(parts[i], v.parts[i]);
      if (m === false) return false;
      if (m === undefined) unknown = true;
    }
    return unknown ? undefined : true;
  }
  return key.length === 1 ? partMatches(key[0], v) : undefined;
}

/** Canonical text of a packet value, comparable with canonical element keys. */
function valueKey(v: Value): string {
  switch (v.kind) {
    case 'addr':
      return formatAddress(v.addr);
    case 'num':
      return String(v.n);
    case 'word':
      return v.w;
    case 'concat':
      return v.parts.map(valueKey).join(' . ');
    default:
      return '\u0000';
  }
}

/** Canonical text of an element key part, or undefined when it is an interval or prefix. */
function partKey(part: string): string | undefined {
  const text = part.trim();
  if (isIpv4(text)) return text; // most keys of a Service map: already what formatAddress writes
  if (text.includes('/') || /\s-\s|^\S+-\S+$/.test(text)) return undefined;
  const a = parseAddress(text);
  if (a) return formatAddress(a);
  const n = parseNumber(text) ?? PROTO_NUM[text];
  if (n !== undefined) return String(n);
  return text;
}

interface ElementIndex {
  /** Exact keys of verdict-map elements → their verdict. */
  exact: Map<string, NftVerdictValue>;
  /** Exact keys of map elements (any data) → the first element with that key. */
  byKey: Map<string, NftElement>;
  /** Exact keys of set (or map) elements. */
  members: Set<string>;
  /** Intervals, prefixes and anything else: matched by a scan. */
  rest: NftElement[];
}

const elementIndexes = new WeakMap<NftElement[], ElementIndex>();

function exactIndex(elements: NftElement[]): ElementIndex {
  let index = elementIndexes.get(elements);
  if (index) return index;
  index = { exact: new Map(), byKey: new Map(), members: new Set(), rest: [] };
  for (const e of elements) {
    const parts = e.key.length === 1 ? e.key[0].split(/\s+\.\s+/) : e.key;
    const keys = parts.map(partKey);
    if (keys.every((k) => k !== undefined)) {
      const k = keys.join(' . ');
      index.members.add(k);
      if (e.value && typeof e.value !== 'string' && !index.exact.has(k)) index.exact.set(k, e.value);
      if (e.value !== undefined && !index.byKey.has(k)) index.byKey.set(k, e);
    } else index.rest.push(e);
  }
  elementIndexes.set(elements, index);
  return index;
}

/** The elements of a verdict map written in the rule or named (`@name`). */
function mapElements(table: NftTable, map: NftExpression): NftElement[] {
  return map.kind === 'set' ? map.elements : map.kind === 'setRef' ? (table.mapByName.get(map.name)?.elements ?? []) : [];
}

/** The numbers an element key part written in the dump stands for, as partMatches reads it for a number. */
function numericInterval(key: string[]): [number, number] | undefined {
  if (key.length !== 1) return undefined; // a concatenated key never matches a plain number
  const text = key[0].trim();
  const range = /^(\S+)\s*-\s*(\S+)$/.exec(text);
  if (range) {
    const lo = parseNumber(range[1]);
    const hi = parseNumber(range[2]);
    if (lo !== undefined && hi !== undefined) return [lo, hi];
  }
  const n = parseNumber(text) ?? PROTO_NUM[text];
  return n !== undefined ? [n, n] : undefined;
}

/** The values of `numgen … mod N offset O` (O + k for 0 ≤ k < N) that one element of the map decides, or that none does. */
interface NumgenShare {
  /** The element that decides these values (none: no element has them). */
  element?: NftElement;
  /** How many of the N values. */
  count: number;
  /** Runs of values (inclusive), in ascending order. */
  runs: [number, number][];
}

const numgenShareCache = new WeakMap<NftElement[], Map<string, NumgenShare[]>>();

/**
 * Splits the N values of a numgen by the map's elements, not value by value (`mod 4294967295` would be four billion
 * states): each element gets the values its key covers that no element before it (in lookupVerdict's order: exact keys,
 * then the others in dump order) took; the values no element covers are one share without a verdict. Shares come in
 * the order of their smallest value, as a walk over the values would meet them.
 */
function numgenShares(elements: NftElement[], mod: number, offset: number): NumgenShare[] {
  let byKey = numgenShareCache.get(elements);
  if (!byKey) numgenShareCache.set(elements, (byKey = new Map()));
  const cacheKey = `${mod}/${offset}`;
  const cached = byKey.get(cacheKey);
  if (cached) return cached;
  // Values are k + offset for the integers 0 ≤ k < mod (the loop this replaces); worked on in k.
  const size = Number.isFinite(mod) && mod > 0 ? Math.ceil(mod) : 0;
  type Item = { lo: number; hi: number; prio: number; share: NumgenShare };
  const items: Item[] = [];
  const add = (lo: number, hi: number, element: NftElement) => {
    const a = Math.max(0, Math.ceil(lo - offset));
    const b = Math.min(size - 1, Math.floor(hi - offset));
    if (a <= b) items.push({ lo: a, hi: b, prio: items.length, share: { element, count: 0, runs: [] } });
  };
  const index = exactIndex(elements);
  // Exact keys win over the scanned ones (lookupElement): they come first, so their priority is higher.
  for (const [k, element] of index.byKey) {
    const n = Number(k);
    if (String(n) === k) add(n, n, element);
  }
  for (const e of index.rest) {
    if (e.value === undefined) continue;
    const interval = numericInterval(e.key);
    if (interval) add(interval[0], interval[1], e);
  }
  // A sweep over k: the live item of highest priority (lowest prio) owns each stretch.
  const none: NumgenShare = { count: 0, runs: [] };
  const give = (share: NumgenShare, a: number, b: number) => {
    share.count += b - a + 1;
    const last = share.runs[share.runs.length - 1];
    if (last && last[1] === a - 1) last[1] = b;
    else share.runs.push([a, b]);
  };
  const starts = [...items].sort((x, y) => x.lo - y.lo || x.prio - y.prio);
  const heap: Item[] = [];
  const heapPush = (item: Item) => {
    heap.push(item);
    for (let i = heap.length - 1; i > 0;) {
      const up = (i - 1) >> 1;
      if (heap[up].prio <= heap[i].prio) break;
      [heap[up], heap[i]] = [heap[i], heap[up]];
      i = up;
    }
  };
  const heapPop = () => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && heap[l].prio < heap[m].prio) m = l;
        if (r < heap.length && heap[r].prio < heap[m].prio) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
    return top;
  };
  let pos = 0;
  let next = 0;
  while (pos < size) {
    while (next < starts.length && starts[next].lo <= pos) heapPush(starts[next++]);
    while (heap.length > 0 && heap[0].hi < pos) heapPop();
    const nextStart = next < starts.length ? starts[next].lo : size;
    if (heap.length === 0) {
      give(none, pos, nextStart - 1);
      pos = nextStart;
      continue;
    }
    const end = Math.min(heap[0].hi, nextStart - 1);
    give(heap[0].share, pos, end);
    pos = end + 1;
  }
  const shares = [...items.map((i) => i.share), none].filter((x) => x.count > 0).sort((x, y) => x.runs[0][0] - y.runs[0][0]);
  for (const share of shares) for (const run of share.runs) ((run[0] += offset), (run[1] += offset));
  byKey.set(cacheKey, shares);
  return shares;
}

/** `1-5, 9` (at most a few runs). */
function runsText(runs: [number, number][]): string {
  const shown = runs.slice(0, 3).map(([a, b]) => (a === b ? String(a) : `${a}-${b}`));
  return runs.length > 3 ? `${shown.join(', ')}, …` : shown.join(', ');
}

/** A branch of a map lookup and the element it found (none: a miss). */
type Found = { b: Branch; element?: NftElement };

/** Numgen and hash values taken one by one when they stand for themselves (`meta mark set jhash … mod 4`). */
const MAX_OWN_VALUES = 256;
/** Results of a map lookup on a key the dump does not give that the trace follows, each under its own condition. */
const MAX_MAP_BRANCHES = 32;
const ownElements = new WeakMap<NftExpression, NftElement[]>();

const isUnknown = (v: Value): boolean => v.kind === 'unknown' || (v.kind === 'concat' && v.parts.some(isUnknown));

/** A set or map that the rules fill at run time (`update @m`): `nft list` prints dynamic,timeout, `nft -j` only timeout. */
const isDynamic = (set: NftSet | NftMap): boolean => set.flags.includes('dynamic') || set.flags.includes('timeout') || set.timeout !== undefined;

/** A value computed when the packet passes: a map lookup, numgen or a hash. */
const isComputed = (e: NftExpression | undefined): boolean => e?.kind === 'map' || e?.kind === 'numgen' || e?.kind === 'hash';

/** A map element's data as written (`0x80000001`, `192.168.0.10 . 10`). */
function dataValue(text: string): Value {
  const parts = text.split(/\s+\.\s+/);
  if (parts.length > 1) return { kind: 'concat', parts: parts.map(dataValue) };
  const n = parseNumber(text.trim());
  if (n !== undefined) return { kind: 'num', n };
  const a = parseAddress(text.trim());
  return a ? { kind: 'addr', addr: a } : { kind: 'word', w: text.trim() };
}

/** Address and port of NAT data from a map: `192.168.0.10`, `192.168.0.10 . 10` (`dnat ip addr . port to …`). */
function splitTarget(text: string): [string | undefined, string | undefined] {
  const [addr, port] = text.split(/\s+\.\s+/);
  return [addr?.trim() || undefined, port?.trim()];
}

/** Address and port of a literal NAT target: `10.0.0.1:80`, `[fd00::1]:80`, `fd00::1`, `10.0.0.1 . 80` (JSON). */
function literalTarget(to: NftExpression): [string | undefined, string | undefined] {
  if (to.kind === 'value' || to.kind === 'raw') {
    return targetParts(to.kind === 'value' ? to.value : to.text, 'digits');
  }
  if (to.kind === 'concat' && to.parts.length === 2 && to.parts[0].kind === 'value' && to.parts[1].kind === 'value') return [to.parts[0].value, to.parts[1].value];
  return [undefined, undefined];
}

/** Sets the packet's or the connection's mark; a value the dump cannot know makes later tests of it conditions. */
function setMark(s: State, target: 'meta mark' | 'ct mark', v: Value, source: string): string {
  const key = target === 'meta mark' ? 'meta' : 'ct';
  if (v.kind !== 'num') {
    s.markFrom = { ...s.markFrom, [key]: source };
    return t('{0} is now set at run time from {1}.', target, source);
  }
  const n = v.n >>> 0;
  if (s.markFrom?.[key]) s.markFrom = { ...s.markFrom, [key]: undefined };
  if (key === 'meta') s.mark = n;
  else s.ctMark = n;
  return key === 'meta' ? t('Packet mark is now {0}.', `0x${n.toString(16)}`) : t('Connection mark is now {0}.', `0x${n.toString(16)}`);
}

const baseChainCache = new WeakMap<NftRuleset, Map<4 | 6, Map<string, { table: NftTable; chain: NftChain }[]>>>();

/** The verdicts that end a chain: how, and what their step says. */
const VERDICT_ENDS: Record<'accept' | 'drop' | 'return' | 'queue', [End, () => string]> = {
  accept: ['accept', () => t('accept: this base chain lets the packet through.')],
  drop: ['drop', () => t('drop: the packet is discarded; the client times out.')],
  return: ['return', () => t('return to the calling chain.')],
  queue: ['accept', () => t('queue: handed to user space; treated as accepted.')],
};

/** A branch of one rule's evaluation: its state and what the statements so far said about it. */
type Branch = { s: State; notes: string[] };

/** A step's note: what the rule's statements said on the way, then what this one does. */
const noteOf = (b: Branch, text: string): string => [...b.notes, text].filter(Boolean).join(' ');

/** The nftables dialect of the walker: base chains by hook and priority, statements left to right, maps. */
class NftTracer extends Walker<NftTable, NftChain, NftRule> {
  constructor(
    private readonly ruleset: NftRuleset,
    fileIndex: number,
    context: TraceContext,
    private readonly family: 4 | 6,
  ) {
    super(fileIndex, context);
  }

  private tables(): NftTable[] {
    return this.ruleset.tables.filter((tb) => tb.family === 'inet' || tb.family === (this.family === 4 ? 'ip' : 'ip6'));
  }

  /** Every base chain on `hook`, across tables, in priority order (nat chains only see new connections, which these are). */
  private baseChains(hook: string): { table: NftTable; chain: NftChain }[] {
    // Base chains are few among thousands of Service chains: find them in one pass per ruleset and family.
    let byFamily = baseChainCache.get(this.ruleset);
    if (!byFamily) baseChainCache.set(this.ruleset, (byFamily = new Map()));
    let byHook = byFamily.get(this.family);
    if (!byHook) byFamily.set(this.family, (byHook = this.findBaseChains()));
    return byHook.get(hook) ?? [];
  }

  private findBaseChains(): Map<string, { table: NftTable; chain: NftChain }[]> {
    const byHook = new Map<string, { table: NftTable; chain: NftChain; prio: number; order: number }[]>();
    let order = 0;
    for (const table of this.tables()) {
      for (const chain of table.chains) {
        const hook = chain.hook;
        if (hook === undefined || !chain.type) continue;
        let list = byHook.get(hook);
        if (!list) byHook.set(hook, (list = []));
        list.push({ table, chain, prio: chain.priority?.value ?? 0, order: order++ });
      }
    }
    for (const list of byHook.values()) list.sort((a, b) => a.prio - b.prio || a.order - b.order);
    return byHook;
  }

  private step(s: State, { table, chain }: Frame<NftTable, NftChain>, rule: NftRule, note: string): void {
    s.path.push({ fileIndex: this.fileIndex, line: rule.range.start.line, range: rule.range, table: `${table.family} ${table.name}`, chain: chain.name, text: rule.raw.trim(), note });
  }

  hook(hook: Hook, states: State[]): { passed: State[]; ended: Final[] } {
    let live = states;
    const ended: Final[] = [];
    if (states.length > 0)
      this.missing.nft(
        hook,
        this.baseChains(hook).map((c) => c.chain.type),
      );
    for (const { table, chain } of this.baseChains(hook)) {
      const drop =
        chain.policy === 'drop'
          ? (): PathStep => ({
              fileIndex: this.fileIndex,
              line: chain.range.start.line,
              range: chain.nameRange,
              table: `${table.family} ${table.name}`,
              chain: chain.name,
              text: `chain ${chain.name}`,
              note: t('No rule decided: the policy of {0} drops the packet.', chain.name),
            })
          : undefined;
      live = this.runBase(table, chain, live, drop, ended);
    }
    return { passed: live, ended };
  }

  protected rulesOf(chain: NftChain): readonly NftRule[] {
    return chain.rules;
  }

  /** Evaluates one rule's statements left to right; a branch ends at a verdict or falls through to the next rule. */
  protected runRule(frame: Frame<NftTable, NftChain>, rule: NftRule, start: State, flow: Flow): void {
    let live: Branch[] = [{ s: start, notes: [] }];
    for (const st of rule.statements) {
      const out: Branch[] = [];
      for (const b of live) this.statement(frame, rule, st, b, out, flow);
      live = out;
      if (live.length === 0) return;
    }
    // Matched every condition and no verdict: the rule only counted or changed things; go on.
    for (const b of live) {
      if (b.notes.length > 0 || rule.statements.some((x) => x.kind === 'mark' || x.kind === 'setUpdate')) this.step(b.s, frame, rule, noteOf(b, ''));
      flow.next.push(b.s);
    }
  }

  /** One statement for one branch: matching branches go on to `out`, the rest to the next rule or out of the chain. */
  private statement(frame: Frame<NftTable, NftChain>, rule: NftRule, st: NftStatement, b: Branch, out: Branch[], flow: Flow): void {
    const { table } = frame;
    const s = b.s;
    switch (st.kind) {
      case 'match': {
        // `negated` mirrors `op === '!='` in the model; the condition applies the operator once.
        let c = this.condition(table, st.left, st.op, st.right, s);
        if (st.negated && st.op !== '!=') c = negate(c);
        this.split(c, b, out, flow);
        return;
      }
      case 'verdict':
        this.verdict(frame, rule, { kind: st.verdict, chain: st.chain }, b, flow);
        return;
      case 'vmap': {
        // A numgen value no element has ends the rule; any other miss does nothing.
        const viaNumgen = st.key.kind === 'numgen';
        for (const { b: b2, element } of this.lookup(table, rule, st.key, st.map, b)) {
          const verdict = element && typeof element.value === 'object' ? element.value : undefined;
          if (!verdict) {
            if (viaNumgen) flow.next.push(b2.s);
            else out.push(b2);
            continue;
          }
          const sent = viaNumgen ? b2 : { s: b2.s, notes: [...b2.notes, t('The verdict map sends it on.')] };
          this.verdict(frame, rule, verdict, sent, flow);
        }
        return;
      }
      case 'nat': {
        const target = st.to ?? st.addr;
        if (isComputed(target) || isComputed(st.port)) {
          this.natFromMap(frame, rule, st, b, flow);
          return;
        }
        if (st.type === 'masquerade' || st.type === 'snat') {
          s.masquerade = true;
          this.step(s, frame, rule, noteOf(b, st.type === 'masquerade' ? t("masquerade: the source becomes the outgoing interface's address.") : t('snat: the source address is rewritten.')));
        } else {
          const rewritten = target ? this.rewrite(s, target, st.port) : false;
          this.step(s, frame, rule, noteOf(b, rewritten ? t('dnat: the destination becomes {0}.', hostPort(s.dstText, s.dport)) : t('{0} to an address the dump computes at run time (a map lookup).', st.type)));
        }
        flow.ended.push({ state: s, end: 'accept' });
        return;
      }
      case 'mark': {
        for (const d of this.data(table, rule, st.value, b)) {
          // A map that has no element for the packet ends the rule (the kernel's lookup breaks it).
          if (!d.v) flow.next.push(d.b.s);
          else out.push({ s: d.b.s, notes: [...d.b.notes, setMark(d.b.s, st.target, d.v, d.v.kind === 'unknown' && d.v.source ? d.v.source : st.value.text)] });
        }
        return;
      }
      case 'reject':
        this.step(s, frame, rule, noteOf(b, t('reject: the client gets an error at once.')));
        flow.ended.push({ state: s, end: 'reject' });
        return;
      case 'limit':
      case 'quota':
        // A rate limit is the state of this rule's own counter: each rule is a condition of its own.
        this.split(assumeLimit(rule.range.start.line, st.text), b, out, flow);
        return;
      case 'xt':
        if (st.type === 'match') this.split(assumeMatch(st.text), b, out, flow);
        else out.push(b);
        return;
      case 'setUpdate': {
        const recorded = { s, notes: [...b.notes, t('Records the client in set {0}.', st.set)] };
        // A limit or quota on the element (a meter) goes on only while it holds: like a rule's own limit, a condition.
        const gate = st.statements.find((x) => /^(limit|quota|ct count)\b/.test(x.trim()));
        if (gate) this.split(assumeLimit(rule.range.start.line, gate), recorded, out, flow);
        else out.push(recorded);
        return;
      }
      default:
        out.push(b); // counter, log, comment, and statements kept verbatim do not decide anything here
    }
  }

  /** A matching branch goes on with the rule's next statement, the other to the next rule (the trace stops: neither). */
  private split(c: Cond, b: Branch, out: Branch[], flow: Flow): void {
    const { hit, miss } = branchOn(c, b.s, this.budget, this.canSplit);
    if (hit) out.push({ s: hit, notes: b.notes });
    if (miss) flow.next.push(miss);
  }

  private verdict(frame: Frame<NftTable, NftChain>, rule: NftRule, v: NftVerdictValue, b: Branch, flow: Flow): void {
    const s = b.s;
    if (v.kind === 'continue') {
      flow.next.push(s);
    } else if (v.kind === 'jump' || v.kind === 'goto') {
      this.step(s, frame, rule, noteOf(b, v.kind === 'jump' ? t('Jump to {0}.', v.chain ?? '?') : t('Go to {0} (no return here).', v.chain ?? '?')));
      this.call(frame, v.kind, v.chain ? frame.table.chainByName.get(v.chain) : undefined, v.chain ?? '?', s, flow);
    } else {
      const [end, text] = VERDICT_ENDS[v.kind];
      this.step(s, frame, rule, noteOf(b, text()));
      flow.ended.push({ state: s, end });
    }
  }

  /** The element a known key finds: exact keys through a hash index, as the kernel does; intervals and prefixes by a scan. */
  private lookupElement(elements: NftElement[], key: Value): NftElement | undefined {
    const index = exactIndex(elements);
    return index.byKey.get(valueKey(key)) ?? index.rest.find((e) => e.value !== undefined && keyMatches(e.key, key) === true);
  }

  /**
   * A map lookup's branches, each with the element it finds (none: a miss): numgen's values by their shares, a key the
   * dump cannot know (a flow's hash, a header it does not give) by one fact per element, a known key by the element.
   */
  private lookup(table: NftTable, rule: NftRule, key: NftExpression, map: NftExpression, b: Branch): Found[] {
    const elements = mapElements(table, map);
    if (key.kind === 'numgen') return this.numgenLookup(rule, key, elements, b);
    const v = this.value(key, b.s);
    if (isUnknown(v)) return this.unknownLookup(rule, key, elements, b);
    const named = map.kind === 'setRef' ? table.mapByName.get(map.name) : undefined;
    if (named && named.elements.length === 0 && isDynamic(named)) {
      // Filled at run time (`update @map`), empty in the dump: a new client is not in it.
      b.s.notes.push(t('Session affinity: a returning client found in map {0} gets what it got the first time.', named.name));
    }
    return [{ b, element: this.lookupElement(elements, v) }];
  }

  /** One branch per element of the map (each with the share of numgen's values it decides) and one for the values none has. */
  private numgenLookup(rule: NftRule, key: NftNumgenExpression, elements: NftElement[], b: Branch): Found[] {
    const mod = key.mod;
    if (!(Number.isInteger(mod) && mod >= 1)) {
      // nft refuses `mod 0` (the kernel answers ERANGE): the rule cannot be there; taken not to match.
      this.warnings.push(t('{0} at line {1} is not a valid value: the rule is taken not to match.', `numgen mod ${mod}`, rule.range.start.line + 1));
      return [{ b }];
    }
    // numgen's register has 32 bits: a larger mod (hostile text) is cut there, where k + 1 is still exact.
    const n = Math.min(mod, 2 ** 32);
    const found: Found[] = [];
    for (const share of numgenShares(elements, n, key.offset ?? 0)) {
      const s2 = this.budget.branch(b.s);
      if (!s2) return found; // the trace stops (runChain)
      const before = s2.probability;
      s2.probability *= share.count / n;
      if (!share.element) {
        found.push({ b: { s: s2, notes: b.notes } });
        continue;
      }
      const [from, to] = share.runs[0];
      const picked = share.runs.length === 1 && from === to ? t('numgen picked {0} of {1} (1/{1}).', from, n) : t('numgen picked a value in {0} ({1} of its {2} values).', runsText(share.runs), share.count, n);
      found.push({ b: { s: s2, notes: [...b.notes, `${picked} ${t('Share of new connections: {0}.', shareChain(before, share.count / n))}`] }, element: share.element });
    }
    return found;
  }

  /**
   * A key the dump does not decide: which element it finds is a fact about the flow (a hash of its addresses is the
   * same for every packet of it), one condition per element in turn, never a share. A hash's values are known, so
   * when the elements cover them all the last one needs no assumption of its own.
   */
  private unknownLookup(rule: NftRule, key: NftExpression, elements: NftElement[], b: Branch): Found[] {
    const shares = key.kind === 'hash' && Number.isInteger(key.mod) && key.mod >= 1 ? numgenShares(elements, Math.min(key.mod, 2 ** 32), key.offset ?? 0) : undefined;
    const picks = shares ? shares.flatMap((x) => (x.element ? [x.element] : [])) : elements.filter((e) => e.value !== undefined);
    // Elements with the same data lead to the same place: one condition for all their keys.
    const byData = new Map<string, NftElement[]>();
    for (const e of picks) {
      const k = typeof e.value === 'string' ? e.value : JSON.stringify(e.value);
      const group = byData.get(k);
      if (group) group.push(e);
      else byData.set(k, [e]);
    }
    let groups = [...byData.values()];
    let covered = shares !== undefined && shares.every((x) => x.element);
    if (groups.length > MAX_MAP_BRANCHES) {
      // Each result is an outcome of its own, under conditions that grow with each: a few dozen say what there is.
      this.warnings.push(
        t('The map lookup on {0} at line {1} has {2} results that depend on what the dump does not show; the trace follows the first {3}.', key.text, rule.range.start.line + 1, groups.length, MAX_MAP_BRANCHES),
      );
      groups = groups.slice(0, MAX_MAP_BRANCHES);
      covered = false;
    }
    const found: Found[] = [];
    let s: State | undefined = b.s;
    // Once the trace may split no more, the rest is one miss.
    for (let i = 0; i < groups.length && s && this.maySplit; i++) {
      const keys = groups[i].map((e) => e.key.join(' . '));
      const text = `${key.text} ${keys.length === 1 ? keys[0] : `{ ${keys.join(', ')} }`}`.replace(/\s+/g, ' ');
      const c = assumeMatch(text);
      if (covered && i === groups.length - 1) {
        // The facts that no element before matched already say it.
        if (known(s.facts, c) === false) return found;
        found.push({ b: { s, notes: b.notes }, element: groups[i][0] });
        return found;
      }
      const { hit, miss, stop } = branchOn(c, s, this.budget, this.canSplit);
      if (stop) return found;
      if (hit) found.push({ b: { s: hit, notes: b.notes }, element: groups[i][0] });
      s = miss;
    }
    if (s) found.push({ b: { s, notes: b.notes } });
    return found;
  }

  /**
   * The data an expression gives the packet (a map's value as written, a numgen or hash value, a constant), per branch;
   * no value on a branch where a map lookup finds nothing.
   */
  private data(table: NftTable, rule: NftRule, e: NftExpression, b: Branch): { b: Branch; v?: Value; text?: string }[] {
    const lookup = e.kind === 'map' ? this.lookup(table, rule, e.key, e.map, b) : e.kind === 'numgen' || e.kind === 'hash' ? this.ownValues(rule, e, b) : undefined;
    if (!lookup) return [{ b, v: this.value(e, b.s), text: e.kind === 'value' ? e.value : undefined }];
    return lookup.map(({ b, element }) => (element && typeof element.value === 'string' ? { b, v: dataValue(element.value), text: element.value } : { b }));
  }

  /** `numgen random mod 4` or `jhash ip saddr mod 4` as a value of its own: each of its values, as a map onto itself would give. */
  private ownValues(rule: NftRule, e: NftNumgenExpression | NftHashExpression, b: Branch): Found[] {
    const mod = Number.isInteger(e.mod) && e.mod >= 1 && e.mod <= MAX_OWN_VALUES ? e.mod : 0;
    if (mod === 0)
      return e.kind === 'numgen'
        ? this.numgenLookup(rule, e, [], b).map(({ b }) => ({ b, element: { key: [], value: e.text, range: e.range, keyRange: e.range } }))
        : [{ b, element: { key: [], value: e.text, range: e.range, keyRange: e.range } }];
    let elements = ownElements.get(e);
    if (!elements) {
      const offset = e.offset ?? 0;
      ownElements.set(e, (elements = Array.from({ length: mod }, (_, k) => ({ key: [String(offset + k)], value: String(offset + k), range: e.range, keyRange: e.range }))));
    }
    return e.kind === 'numgen' ? this.numgenLookup(rule, e, elements, b) : this.unknownLookup(rule, e, elements, b);
  }

  /** NAT to an address (and port) a map, numgen or hash gives: one outcome per branch; a miss ends the rule. */
  private natFromMap(frame: Frame<NftTable, NftChain>, rule: NftRule, st: NftNatStatement, b: Branch, flow: Flow): void {
    const { table } = frame;
    const target = st.to ?? st.addr;
    const computed = isComputed(target);
    const targets = computed ? this.data(table, rule, target!, b) : [{ b, v: { kind: 'word', w: '' } as Value, text: target?.text }];
    for (const d of targets) {
      if (!d.v) {
        flow.next.push(d.b.s);
        continue;
      }
      const [addrText, portText] = computed ? splitTarget(d.text ?? '') : target ? literalTarget(target) : [];
      const ports = isComputed(st.port) ? this.data(table, rule, st.port!, d.b) : [{ b: d.b, v: d.v, text: st.port?.kind === 'value' ? st.port.value : undefined }];
      // snat's note names what the map gave (or the literal target).
      for (const p of ports) {
        if (!p.v) {
          flow.next.push(p.b.s);
          continue;
        }
        const s = p.b.s;
        let text: string;
        if (st.type === 'snat' || st.type === 'masquerade') {
          s.masquerade = true;
          text = d.text ? t('snat: the source becomes {0}.', d.text) : t('snat: the source address is rewritten.');
        } else {
          const ok = applyDnat(s, addrText, p.text ?? portText);
          text = ok ? t('dnat: the destination becomes {0}.', hostPort(s.dstText, s.dport)) : t('{0} to an address the dump computes at run time (a map lookup).', st.type);
        }
        this.step(s, frame, rule, noteOf(p.b, text));
        flow.ended.push({ state: s, end: 'accept' });
      }
    }
  }

  private rewrite(s: State, to: NftExpression, port?: NftExpression): boolean {
    const [addrText, portText] = literalTarget(to);
    return applyDnat(s, addrText, port?.kind === 'value' ? port.value : portText);
  }

  /** The packet's value for an expression (or a constant's value). */
  private value(e: NftExpression, s: State): Value {
    switch (e.kind) {
      case 'payload': {
        const f = e.field;
        // `ether saddr` and `arp saddr ip` are other addresses: unknown here.
        if ((f === 'saddr' || f === 'daddr') && (e.protocol === 'ip' || e.protocol === 'ip6')) {
          // The other family's field: nft's implied family check fails, as a port of another protocol does.
          if ((e.protocol === 'ip' && this.family !== 4) || (e.protocol === 'ip6' && this.family !== 6)) return { kind: 'word', w: '<other family>' };
          return { kind: 'addr', addr: f === 'saddr' ? s.src : s.dst };
        }
        if (f === 'dport' || f === 'sport') {
          if (e.protocol !== 'th' && e.protocol !== s.protocol) return { kind: 'word', w: '<other protocol>' };
          return { kind: 'num', n: f === 'dport' ? s.dport : s.sport };
        }
        if ((e.protocol === 'ip' && f === 'protocol') || (e.protocol === 'ip6' && f === 'nexthdr')) return { kind: 'num', n: PROTO_NUM[s.protocol] ?? -1 };
        // Any field of another transport header (`icmp type` on a TCP packet): nft's implied l4proto check fails.
        if (e.protocol !== undefined && Object.hasOwn(PROTO_NUM, e.protocol) && e.protocol !== s.protocol) return { kind: 'word', w: '<other protocol>' };
        return { kind: 'unknown', label: e.text };
      }
      case 'meta':
        if (e.key === 'l4proto') return { kind: 'num', n: PROTO_NUM[s.protocol] ?? -1 };
        if (e.key === 'mark') return s.markFrom?.meta ? { kind: 'unknown', label: e.text, source: s.markFrom.meta } : { kind: 'num', n: s.mark };
        if (e.key === 'nfproto') return { kind: 'word', w: this.family === 4 ? 'ipv4' : 'ipv6' };
        return { kind: 'unknown', label: e.text };
      case 'ct':
        if (e.key === 'state') return { kind: 'words', ws: ['new'] };
        if (e.key === 'status') return { kind: 'words', ws: s.dnat ? ['dnat'] : [] };
        // A new connection's mark starts at 0; rules may set it before.
        if (e.key === 'mark') return s.markFrom?.ct ? { kind: 'unknown', label: e.text, source: s.markFrom.ct } : { kind: 'num', n: s.ctMark ?? 0 };
        return { kind: 'unknown', label: e.text };
      case 'fib':
        if (e.result === 'type' && e.flags.includes('daddr')) return { kind: 'word', w: this.isLocal(s.dst) ? 'local' : 'unicast' };
        if (e.result === 'type' && e.flags.includes('saddr')) return { kind: 'word', w: this.isLocal(s.src) ? 'local' : 'unicast' };
        return { kind: 'unknown', label: e.text };
      case 'concat':
        return { kind: 'concat', parts: e.parts.map((p) => this.value(p, s)) };
      case 'binop': {
        const l = this.value(e.left, s);
        const r = this.value(e.right, s);
        if (l.kind !== 'num' || r.kind !== 'num') return { kind: 'unknown', label: e.text };
        const n = e.op === '&' ? l.n & r.n : e.op === '|' ? l.n | r.n : e.op === '^' ? l.n ^ r.n : e.op === '<<' ? l.n << r.n : l.n >>> r.n;
        return { kind: 'num', n: n >>> 0 };
      }
      case 'value': {
        const n = parseNumber(e.value);
        if (n !== undefined) return { kind: 'num', n };
        const a = parseAddress(e.value);
        if (a) return { kind: 'addr', addr: a };
        return { kind: 'word', w: e.value };
      }
      default:
        return { kind: 'unknown', label: e.text };
    }
  }

  private condition(table: NftTable, left: NftExpression, op: string, right: NftExpression, s: State): Cond {
    const v = this.value(left, s);
    if (v.kind === 'unknown' || (v.kind === 'concat' && v.parts.some((p) => p.kind === 'unknown'))) {
      // One condition for `x y` and `x != y` (its negation): one fact about the packet.
      const c = unknownCond(left, op, right, v.kind === 'unknown' ? v.source : undefined);
      return op === '!=' ? negate(c) : c;
    }
    let hit: boolean | undefined;
    switch (right.kind) {
      case 'setRef': {
        const set = table.setByName.get(right.name) ?? table.mapByName.get(right.name);
        if (!set) {
          const c = assume(`${left.text} @${right.name}`, t('assuming the packet is in set {0}', right.name), t('assuming the packet is not in set {0}', right.name));
          return op === '!=' ? negate(c) : c;
        }
        // An affinity set: filled at run time (`update @set`), empty in the dump. `nft -j` prints such sets
        // with only the timeout flag, `nft list ruleset` with dynamic,timeout.
        if (isDynamic(set) && set.elements.length === 0) {
          // Another set filled at run time (a rate limit's meter, a blocklist): its content is history, unknown here.
          if (!(table.name === 'kube-proxy' && right.name.startsWith('affinity-'))) {
            const c = assume(`${left.text} @${right.name}`, t('assuming the packet is in set {0} (filled at run time)', right.name), t('assuming the packet is not in set {0}', right.name));
            return op === '!=' ? negate(c) : c;
          }
          // kube-proxy's affinity set: a new client is in it only if it connected before.
          s.notes.push(t('Session affinity: a returning client found in set {0} goes back to the endpoint it used before.', right.name));
          hit = false;
        } else {
          const index = exactIndex(set.elements);
          hit = index.members.has(valueKey(v)) || index.rest.some((e) => keyMatches(e.key, v) === true);
        }
        break;
      }
      case 'set':
        hit = right.elements.some((e) => keyMatches(e.key, v) === true);
        break;
      case 'prefix':
        {
          // An invalid prefix (`/99`: a parser diagnostic) contains nothing.
          const prefix = parsePrefix(`${right.address}/${right.length}`);
          const numeric = v.kind === 'num' ? numericPrefix(`${right.address}/${right.length}`) : undefined;
          hit = numeric ? numeric((v as { n: number }).n) : v.kind === 'addr' && prefix !== undefined && prefixContains(prefix, v.addr);
        }
        break;
      case 'range':
        hit = keyMatches([`${right.from}-${right.to}`], v) === true;
        break;
      case 'list':
        hit = right.values.some((x) => keyMatches([x], v) === true);
        break;
      case 'value': {
        if (v.kind === 'num' && (op === '<' || op === '>' || op === '<=' || op === '>=')) {
          const n = parseNumber(right.value) ?? NaN;
          hit = op === '<' ? v.n < n : op === '>' ? v.n > n : op === '<=' ? v.n <= n : v.n >= n;
          return certain(hit);
        }
        hit = keyMatches([right.value], v) === true;
        break;
      }
      default: {
        const c = assumeMatch(`${left.text} ${right.text}`);
        return op === '!=' ? negate(c) : c;
      }
    }
    return op === '!=' ? certain(!hit) : hit ? yes : no;
  }
}

/**
 * A condition the packet does not decide (its key is `left right`, whatever the operator): the interface names of
 * `iifname`/`oifname` (`"eth*"` a prefix) are the packet's one interface each way.
 */
function unknownCond(left: NftExpression, op: string, right: NftExpression, source?: string): Cond {
  const compare = op === '<' || op === '>' || op === '<=' || op === '>=';
  // A mark set at run time: the test is about what set it (a later set makes it another unknown); `meta mark set
  // ct mark` copies the same unknown value, so both marks are one subject.
  const from = source ? ` (${t('set from {0}', source)})` : '';
  const subject = source ? `mark (${source})` : left.text;
  const key = `${subject} ${compare ? `${op} ` : ''}${right.text}`.replace(/\s+/g, ' ');
  if (left.kind === 'meta' && (left.key === 'iifname' || left.key === 'oifname') && right.kind === 'value' && !compare) {
    return ifaceCond(left.key === 'iifname' ? 'in' : 'out', right.value);
  }
  const text = `${left.text} ${op === 'in' || op === '!=' ? '' : `${op} `}${right.text}${from}`.replace(/\s+/g, ' ');
  return assumeMatch(text, key);
}

/** Traces the first packet of a new connection through an nftables ruleset. */
export function traceNft(ruleset: NftRuleset, packet: Packet, context: TraceContext, fileIndex = 0): TraceResult {
  return traceWith(packet, context, (family) => new NftTracer(ruleset, fileIndex, context, family));
}
