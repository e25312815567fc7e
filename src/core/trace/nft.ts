// The nftables packet simulator (DESIGN §5): every base chain of a hook, across the tables of the packet's
// family, in priority order; statements evaluated left to right, verdict maps looked up with concatenated
// keys, `numgen random mod N` branching by the map's elements (1/N for each value an element has), sets and maps by
// their elements.
import type { NftChain, NftElement, NftExpression, NftRule, NftRuleset, NftStatement, NftTable, NftVerdictValue } from '../model/nft';
import { t } from '../l10n';
import { applyDnat, assume, branchOn, Budget, certain, hostPort, ifaceCond, initialState, mergeOutcomes, negate, no, yes, type Cond, type End, type Ended, type State } from './iptables';
import { formatAddress, isIpv4, isLoopback, parseAddress, parsePrefix, prefixContains, type Address } from './addr';
import type { Entry, Packet, TraceContext, TraceResult, Verdict } from './types';
import { appendAll } from '../model/append';

const MAX_DEPTH = 64;
const MAX_ASSUMPTION_SPLITS = 4096;

/** What an expression evaluates to for a packet. */
type Value =
  | { kind: 'addr'; addr: Address }
  | { kind: 'num'; n: number }
  | { kind: 'word'; w: string }
  | { kind: 'words'; ws: string[] }
  | { kind: 'concat'; parts: Value[] }
  | { kind: 'unknown'; label: string };

const PROTO_NUM: Record<string, number> = { tcp: 6, udp: 17, sctp: 132, icmp: 1, 'ipv6-icmp': 58, icmpv6: 58, udplite: 136, dccp: 33 };

function parseNumber(text: string): number | undefined {
  if (/^0x[0-9a-f]+$/i.test(text)) return parseInt(text, 16);
  if (/^\d+$/.test(text)) return Number(text);
  return undefined;
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
  /** Exact keys of set (or map) elements. */
  members: Set<string>;
  /** Intervals, prefixes and anything else: matched by a scan. */
  rest: NftElement[];
}

const elementIndexes = new WeakMap<NftElement[], ElementIndex>();

function exactIndex(elements: NftElement[]): ElementIndex {
  let index = elementIndexes.get(elements);
  if (index) return index;
  index = { exact: new Map(), members: new Set(), rest: [] };
  for (const e of elements) {
    const parts = e.key.length === 1 ? e.key[0].split(/\s+\.\s+/) : e.key;
    const keys = parts.map(partKey);
    if (keys.every((k) => k !== undefined)) {
      const k = keys.join(' . ');
      index.members.add(k);
      if (e.value && typeof e.value !== 'string' && !index.exact.has(k)) index.exact.set(k, e.value);
      if (e.value !== undefined && typeof e.value === 'string') index.rest.push(e);
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
  verdict?: NftVerdictValue;
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
  const add = (lo: number, hi: number, verdict: NftVerdictValue) => {
    const a = Math.max(0, Math.ceil(lo - offset));
    const b = Math.min(size - 1, Math.floor(hi - offset));
    if (a <= b) items.push({ lo: a, hi: b, prio: items.length, share: { verdict, count: 0, runs: [] } });
  };
  const index = exactIndex(elements);
  // Exact keys win over the scanned ones (lookupVerdict): they come first, so their priority is higher.
  for (const [k, verdict] of index.exact) {
    const n = Number(k);
    if (String(n) === k) add(n, n, verdict);
  }
  for (const e of index.rest) {
    if (!e.value || typeof e.value === 'string') continue;
    const interval = numericInterval(e.key);
    if (interval) add(interval[0], interval[1], e.value);
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
    for (let i = heap.length - 1; i > 0; ) {
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
      for (let i = 0; ; ) {
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
  for (const share of shares) for (const run of share.runs) (run[0] += offset), (run[1] += offset);
  byKey.set(cacheKey, shares);
  return shares;
}

/** `1-5, 9` (at most a few runs). */
function runsText(runs: [number, number][]): string {
  const shown = runs.slice(0, 3).map(([a, b]) => (a === b ? String(a) : `${a}-${b}`));
  return runs.length > 3 ? `${shown.join(', ')}, …` : shown.join(', ');
}

const baseChainCache = new WeakMap<NftRuleset, Map<4 | 6, Map<string, { table: NftTable; chain: NftChain }[]>>>();

class NftTracer {
  readonly budget = new Budget();
  private splits = MAX_ASSUMPTION_SPLITS;
  readonly warnings: string[] = [];

  constructor(
    private readonly ruleset: NftRuleset,
    private readonly fileIndex: number,
    private readonly context: TraceContext,
    private readonly family: 4 | 6,
  ) {}

  private tables(): NftTable[] {
    return this.ruleset.tables.filter((tb) => tb.family === 'inet' || tb.family === (this.family === 4 ? 'ip' : 'ip6'));
  }

  isLocal(a: Address): boolean {
    if (isLoopback(a)) return true;
    return this.context.nodeIPs.some((ip) => {
      const n = parseAddress(ip);
      return n !== undefined && n.family === a.family && n.value === a.value;
    });
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

  private step(s: State, table: NftTable, chain: string, rule: NftRule, note: string): void {
    s.path.push({ fileIndex: this.fileIndex, line: rule.range.start.line, range: rule.range, table: `${table.family} ${table.name}`, chain, text: rule.raw.trim(), note });
  }

  runHook(hook: string, states: State[]): { passed: State[]; ended: { state: State; verdict: Verdict }[] } {
    let live = states;
    const ended: { state: State; verdict: Verdict }[] = [];
    for (const { table, chain } of this.baseChains(hook)) {
      const next: State[] = [];
      const result = this.runChain(table, chain, live, 0, []);
      for (const e of [...result.ended, ...result.fallthrough.map((state) => ({ state, end: 'return' as End }))]) {
        if (e.end === 'drop' || e.end === 'reject') ended.push({ state: e.state, verdict: e.end });
        else if (e.end === 'return' && chain.policy === 'drop') {
          e.state.path.push({ fileIndex: this.fileIndex, line: chain.range.start.line, range: chain.nameRange, table: `${table.family} ${table.name}`, chain: chain.name, text: `chain ${chain.name}`, note: t('No rule decided: the policy of {0} drops the packet.', chain.name) });
          ended.push({ state: e.state, verdict: 'drop' });
        } else next.push(e.state); // accept ends this base chain only; the next one still sees the packet
      }
      live = next;
    }
    return { passed: live, ended };
  }

  private runChain(table: NftTable, chain: NftChain, states: State[], depth: number, stack: string[]): { ended: Ended[]; fallthrough: State[] } {
    const ended: Ended[] = [];
    if (depth > MAX_DEPTH || stack.includes(chain.name)) {
      this.warnings.push(t('Loop or runaway depth at chain {0} ({1}): the trace stops there and drops the packet.', chain.name, [...stack, chain.name].join(' → ')));
      return { ended: states.map((state) => ({ state, end: 'drop' as End })), fallthrough: [] };
    }
    const inner = [...stack, chain.name];
    let live = states;
    for (const rule of chain.rules) {
      if (live.length === 0) break;
      const next: State[] = [];
      for (const state of live) {
        // A stopped trace (Budget) drops the states under way; traceNft says the outcomes are incomplete.
        if (!this.budget.visit()) return { ended, fallthrough: [] };
        this.runRule(table, chain, rule, state, depth, inner, next, ended);
      }
      live = next;
    }
    return { ended, fallthrough: live };
  }

  /** Evaluates one rule's statements left to right; a branch ends at a verdict or falls through to the next rule. */
  private runRule(table: NftTable, chain: NftChain, rule: NftRule, start: State, depth: number, stack: string[], next: State[], ended: Ended[]): void {
    type Branch = { s: State; notes: string[] };
    let live: Branch[] = [{ s: start, notes: [] }];
    const note = (b: Branch, text: string) => [...b.notes, text].filter(Boolean).join(' ');
    for (const st of rule.statements) {
      const out: Branch[] = [];
      for (const b of live) {
        this.statement(table, chain, rule, st, b, depth, stack, out, next, ended, note);
      }
      live = out;
      if (live.length === 0) return;
    }
    // Matched every condition and no verdict: the rule only counted or changed things; go on.
    for (const b of live) {
      if (b.notes.length > 0 || rule.statements.some((x) => x.kind === 'mark' || x.kind === 'setUpdate')) this.step(b.s, table, chain.name, rule, note(b, ''));
      next.push(b.s);
    }
  }

  private statement(
    table: NftTable,
    chain: NftChain,
    rule: NftRule,
    st: NftStatement,
    b: { s: State; notes: string[] },
    depth: number,
    stack: string[],
    out: { s: State; notes: string[] }[],
    next: State[],
    ended: Ended[],
    note: (b: { s: State; notes: string[] }, text: string) => string,
  ): void {
    const s = b.s;
    switch (st.kind) {
      case 'match': {
        // `negated` mirrors `op === '!='` in the model; the condition applies the operator once.
        let c = this.condition(table, st.left, st.op, st.right, s);
        if (st.negated && st.op !== '!=') c = negate(c);
        this.split(c, b, out, next);
        return;
      }
      case 'verdict':
        this.verdict(table, chain, rule, { kind: st.verdict, chain: st.chain }, b, depth, stack, next, ended, note);
        return;
      case 'vmap': {
        if (st.key.kind === 'numgen') {
          // One branch per element of the map (each with the share of values it decides) and one for the values no
          // element has (they go on to the next rule), as a branch per value would give, merged.
          const mod = st.key.mod;
          if (!(Number.isInteger(mod) && mod >= 1)) {
            // nft refuses `mod 0` (the kernel answers ERANGE): the rule cannot be there; taken not to match.
            this.warnings.push(t('{0} at line {1} is not a valid value: the rule is taken not to match.', `numgen mod ${mod}`, rule.range.start.line + 1));
            next.push(s);
            return;
          }
          // numgen's register has 32 bits: a larger mod (hostile text) is cut there, where k + 1 is still exact
          // (above 2^53 the sweep over the values stood still).
          const n = Math.min(mod, 2 ** 32);
          for (const share of numgenShares(mapElements(table, st.map), n, st.key.offset ?? 0)) {
            const s2 = this.budget.branch(s);
            if (!s2) return; // the trace stops (runChain)
            s2.probability *= share.count / n;
            if (!share.verdict) {
              next.push(s2);
              continue;
            }
            const [from, to] = share.runs[0];
            const picked = share.runs.length === 1 && from === to ? t('numgen picked {0} of {1} (1/{1}).', from, n) : t('numgen picked a value in {0} ({1} of its {2} values).', runsText(share.runs), share.count, n);
            this.verdict(table, chain, rule, share.verdict, { s: s2, notes: [...b.notes, picked] }, depth, stack, next, ended, note);
          }
          return;
        }
        const key = this.value(st.key, s);
        const verdict = this.lookupVerdict(table, st.map, key);
        if (verdict === undefined) {
          out.push(b); // a miss does nothing
          return;
        }
        this.verdict(table, chain, rule, verdict, { s, notes: [...b.notes, t('The verdict map sends it on.')] }, depth, stack, next, ended, note);
        return;
      }
      case 'nat': {
        if (st.type === 'masquerade' || st.type === 'snat') {
          s.masquerade = true;
          this.step(s, table, chain.name, rule, note(b, st.type === 'masquerade' ? t('masquerade: the source becomes the outgoing interface\'s address.') : t('snat: the source address is rewritten.')));
        } else {
          const target = st.to ?? st.addr;
          const rewritten = target ? this.rewrite(s, target, st.port) : false;
          this.step(s, table, chain.name, rule, note(b, rewritten ? t('dnat: the destination becomes {0}.', hostPort(s.dstText, s.dport)) : t('{0} to an address the dump computes at run time (a map lookup).', st.type)));
        }
        ended.push({ state: s, end: 'accept' });
        return;
      }
      case 'mark': {
        if (st.target === 'meta mark') {
          const v = this.value(st.value, s);
          if (v.kind === 'num') s.mark = v.n >>> 0;
        }
        out.push({ s, notes: [...b.notes, t('Packet mark is now {0}.', `0x${s.mark.toString(16)}`)] });
        return;
      }
      case 'reject':
        this.step(s, table, chain.name, rule, note(b, t('reject: the client gets an error at once.')));
        ended.push({ state: s, end: 'reject' });
        return;
      case 'limit':
      case 'quota':
        // A rate limit is the state of this rule's own counter: each rule is a condition of its own.
        this.split(assume(`${rule.range.start.line} ${st.text}`, t('assuming {0} lets the packet through', st.text), t('assuming {0} holds the packet back', st.text)), b, out, next);
        return;
      case 'xt':
        if (st.type === 'match') this.split(assume(st.text, t('assuming {0} matches', st.text), t('assuming {0} does not match', st.text)), b, out, next);
        else out.push(b);
        return;
      case 'setUpdate': {
        const recorded = { s, notes: [...b.notes, t('Records the client in set {0}.', st.set)] };
        // A limit or quota on the element (a meter) goes on only while it holds: like a rule's own limit, a condition.
        const gate = st.statements.find((x) => /^(limit|quota|ct count)\b/.test(x.trim()));
        if (gate) this.split(assume(`${rule.range.start.line} ${gate}`, t('assuming {0} lets the packet through', gate), t('assuming {0} holds the packet back', gate)), recorded, out, next);
        else out.push(recorded);
        return;
      }
      default:
        out.push(b); // counter, log, comment, and statements kept verbatim do not decide anything here
    }
  }

  private readonly canSplit = () => this.splits-- > 0;

  /** A matching branch goes on with the rule's next statement, the other to the next rule (the trace stops: neither). */
  private split(c: Cond, b: { s: State; notes: string[] }, out: { s: State; notes: string[] }[], next: State[]): void {
    const { hit, miss } = branchOn(c, b.s, this.budget, this.canSplit);
    if (hit) out.push({ s: hit, notes: b.notes });
    if (miss) next.push(miss);
  }

  private verdict(
    table: NftTable,
    chain: NftChain,
    rule: NftRule,
    v: NftVerdictValue,
    b: { s: State; notes: string[] },
    depth: number,
    stack: string[],
    next: State[],
    ended: Ended[],
    note: (b: { s: State; notes: string[] }, text: string) => string,
  ): void {
    const s = b.s;
    switch (v.kind) {
      case 'accept':
        this.step(s, table, chain.name, rule, note(b, t('accept: this base chain lets the packet through.')));
        ended.push({ state: s, end: 'accept' });
        return;
      case 'drop':
        this.step(s, table, chain.name, rule, note(b, t('drop: the packet is discarded; the client times out.')));
        ended.push({ state: s, end: 'drop' });
        return;
      case 'return':
        this.step(s, table, chain.name, rule, note(b, t('return to the calling chain.')));
        ended.push({ state: s, end: 'return' });
        return;
      case 'continue':
        next.push(s);
        return;
      case 'queue':
        this.step(s, table, chain.name, rule, note(b, t('queue: handed to user space; treated as accepted.')));
        ended.push({ state: s, end: 'accept' });
        return;
      case 'jump':
      case 'goto': {
        const target = v.chain ? table.chainByName.get(v.chain) : undefined;
        this.step(s, table, chain.name, rule, note(b, v.kind === 'jump' ? t('Jump to {0}.', v.chain ?? '?') : t('Go to {0} (no return here).', v.chain ?? '?')));
        if (!target) {
          this.warnings.push(t('Chain {0} is not in table {1} of this dump: treated as empty.', v.chain ?? '?', table.name));
          if (v.kind === 'jump') next.push(s);
          else ended.push({ state: s, end: 'return' });
          return;
        }
        const result = this.runChain(table, target, [s], depth + 1, stack);
        for (const e of result.ended) {
          if (e.end === 'return' && v.kind === 'jump') next.push(e.state);
          else ended.push(e);
        }
        for (const f of result.fallthrough) {
          if (v.kind === 'jump') next.push(f);
          else ended.push({ state: f, end: 'return' });
        }
        return;
      }
    }
  }

  private lookupVerdict(table: NftTable, map: NftExpression, key: Value): NftVerdictValue | undefined {
    const elements = mapElements(table, map);
    // Exact keys are found through a hash index, as the kernel does; intervals and prefixes by a scan.
    const index = exactIndex(elements);
    const exact = index.exact.get(valueKey(key));
    if (exact) return exact;
    for (const e of index.rest) {
      if (keyMatches(e.key, key) && e.value && typeof e.value !== 'string') return e.value;
    }
    return undefined;
  }

  private rewrite(s: State, to: NftExpression, port?: NftExpression): boolean {
    let addrText: string | undefined;
    let portText: string | undefined;
    if (to.kind === 'value' || to.kind === 'raw') {
      const text = to.kind === 'value' ? to.value : to.text;
      const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
      if (bracket) [, addrText, portText] = bracket;
      else if ((text.match(/:/g)?.length ?? 0) > 1) addrText = text;
      else [addrText, portText] = text.split(':');
    } else if (to.kind === 'concat' && to.parts.length === 2 && to.parts[0].kind === 'value' && to.parts[1].kind === 'value') {
      addrText = to.parts[0].value;
      portText = to.parts[1].value;
    }
    if (port?.kind === 'value') portText = port.value;
    return applyDnat(s, addrText, portText);
  }

  /** The packet's value for an expression (or a constant's value). */
  private value(e: NftExpression, s: State): Value {
    switch (e.kind) {
      case 'payload': {
        const f = e.field;
        if (f === 'saddr' || f === 'daddr') {
          // The other family's field: nft's implied family check fails, as a port of another protocol does.
          if ((e.protocol === 'ip' && this.family !== 4) || (e.protocol === 'ip6' && this.family !== 6)) return { kind: 'word', w: '<other family>' };
          return { kind: 'addr', addr: f === 'saddr' ? s.src : s.dst };
        }
        if (f === 'dport' || f === 'sport') {
          if (e.protocol !== 'th' && e.protocol !== s.protocol) return { kind: 'word', w: '<other protocol>' };
          return { kind: 'num', n: f === 'dport' ? s.dport : s.sport };
        }
        if ((e.protocol === 'ip' && f === 'protocol') || (e.protocol === 'ip6' && f === 'nexthdr')) return { kind: 'num', n: PROTO_NUM[s.protocol] ?? -1 };
        return { kind: 'unknown', label: e.text };
      }
      case 'meta':
        if (e.key === 'l4proto') return { kind: 'num', n: PROTO_NUM[s.protocol] ?? -1 };
        if (e.key === 'mark') return { kind: 'num', n: s.mark };
        if (e.key === 'nfproto') return { kind: 'word', w: this.family === 4 ? 'ipv4' : 'ipv6' };
        return { kind: 'unknown', label: e.text };
      case 'ct':
        if (e.key === 'state') return { kind: 'words', ws: ['new'] };
        if (e.key === 'status') return { kind: 'words', ws: s.dnat ? ['dnat'] : [] };
        if (e.key === 'mark') return { kind: 'num', n: 0 };
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
      const c = unknownCond(left, op, right);
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
        if ((set.flags.includes('dynamic') || set.flags.includes('timeout') || set.timeout !== undefined) && set.elements.length === 0) {
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
        hit = v.kind === 'addr' && prefix !== undefined && prefixContains(prefix, v.addr);
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
        const c = assume(`${left.text} ${right.text}`, t('assuming {0} matches', `${left.text} ${right.text}`), t('assuming {0} does not match', `${left.text} ${right.text}`));
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
function unknownCond(left: NftExpression, op: string, right: NftExpression): Cond {
  const compare = op === '<' || op === '>' || op === '<=' || op === '>=';
  const key = `${left.text} ${compare ? `${op} ` : ''}${right.text}`.replace(/\s+/g, ' ');
  if (left.kind === 'meta' && (left.key === 'iifname' || left.key === 'oifname') && right.kind === 'value' && !compare) {
    return ifaceCond(left.key === 'iifname' ? 'in' : 'out', right.value);
  }
  const text = `${left.text} ${op === 'in' || op === '!=' ? '' : `${op} `}${right.text}`.replace(/\s+/g, ' ');
  return assume(key, t('assuming {0} matches', text), t('assuming {0} does not match', text));
}

/** Traces the first packet of a new connection through an nftables ruleset. */
export function traceNft(ruleset: NftRuleset, packet: Packet, context: TraceContext, fileIndex = 0): TraceResult {
  const src = parseAddress(packet.src);
  const dst = parseAddress(packet.dst);
  if (!src || !dst || src.family !== dst.family) {
    return { packet, outcomes: [], warnings: [t('Source and destination must be addresses of the same family.')], context };
  }
  const tracer = new NftTracer(ruleset, fileIndex, context, dst.family);
  const start = initialState(packet, src, dst);
  const finals: { state: State; verdict: Verdict }[] = [];
  const deliver = (states: State[]) => {
    for (const s of states) finals.push({ state: s, verdict: s.dnat ? 'dnat' : 'accept' });
  };
  const run = (entry: Entry) => {
    if (entry === 'node') {
      const out = tracer.runHook('output', [start]);
      appendAll(finals, out.ended);
      const post = tracer.runHook('postrouting', out.passed);
      appendAll(finals, post.ended);
      const local = post.passed.filter((s) => tracer.isLocal(s.dst));
      const input = tracer.runHook('input', local);
      appendAll(finals, input.ended);
      deliver([...input.passed, ...post.passed.filter((s) => !tracer.isLocal(s.dst))]);
      return;
    }
    const pre = tracer.runHook('prerouting', [start]);
    appendAll(finals, pre.ended);
    const input = tracer.runHook('input', pre.passed.filter((s) => tracer.isLocal(s.dst)));
    appendAll(finals, input.ended);
    deliver(input.passed);
    const fwd = tracer.runHook('forward', pre.passed.filter((s) => !tracer.isLocal(s.dst)));
    appendAll(finals, fwd.ended);
    const post = tracer.runHook('postrouting', fwd.passed);
    appendAll(finals, post.ended);
    deliver(post.passed);
  };
  run(packet.entry);
  const outcomes = mergeOutcomes(finals);
  // A trace that hit a cap must not read as a complete answer: its warning comes first.
  const stopped = tracer.budget.warning(outcomes);
  return { packet, outcomes, warnings: [...(stopped ? [stopped] : []), ...new Set(tracer.warnings)], context };
}
