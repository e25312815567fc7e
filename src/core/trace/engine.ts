// The trace engine (DESIGN §5), shared by the iptables and nft tracers: a packet's state and the budget a trace may
// spend, the conditions a rule tests (certain, random, or undecided: facts.ts), the walk through the hooks in the
// kernel's order and through a table's chains (jump, goto, return, loops, a base chain's policy), and the merging of
// the states that come out into outcomes. A dialect gives only its rule evaluation (its Walker subclass) and, where it
// differs, what runs at LOCAL_IN (IPVS).
import { t } from '../l10n';
import { MissingOnPath } from './missing';
import { formatAddress, formatHostPort, isLoopback, parseAddress, type Address } from '../model/address';
import type { Condition, Entry, Outcome, Packet, PathStep, TraceContext, TraceResult, Verdict } from './types';
import { coveredShare, entryFacts, factOf, known, mergeAlike, type Assumption, type Fact } from './facts';
import { appendAll } from '../model/append';

/** Past this many live branches, undecided conditions are no longer split (they take the "no match" side). */
const MAX_BRANCHES = 4096;
const MAX_DEPTH = 64;
const MAX_RULE_VISITS = 1_000_000;
/**
 * States one trace may create. Every branch copies the state and its path, so rules whose splits multiply (59 chains of
 * 50 % random matches, one after the other: 2^59 paths) would take minutes and gigabytes. kube-proxy's largest (a Service of 1,000
 * endpoints: ~2,000 states; undecided conditions: at most 2 × MAX_BRANCHES) stay well below it.
 */
const MAX_STATES = 25_000;

export interface State {
  src: Address;
  srcText: string;
  dst: Address;
  dstText: string;
  dport: number;
  sport: number;
  protocol: string;
  mark: number;
  /** The connection's mark (nft `ct mark`); a new connection's starts at 0. */
  ctMark?: number;
  /** Marks set at run time from what the dump cannot know (`meta mark set ip dscp map …`): the expression that set each. */
  markFrom?: { meta?: string; ct?: string };
  /** Set once a DNAT (or REDIRECT) rewrote the destination. */
  dnat: boolean;
  masquerade: boolean;
  probability: number;
  path: PathStep[];
  /** Conditions the dumps do not decide, as this path took them (facts.ts). */
  facts: Fact[];
  /** Other labelled assumptions (a scheduler whose choice depends on live state). */
  assumptions: string[];
  notes: string[];
  /** What this connection did to `-m recent` lists along the path, in order (replaced, never changed in place). */
  recent?: RecentOp[];
  /** The chain where a random rule was just not taken: the next rule taken there gets the share left. */
  afterMiss?: string;
}

/** xt_recent on the path: `stamp` (--set, a matching --update) records the address now; `remove` forgets it. */
export interface RecentOp {
  list: string;
  op: 'stamp' | 'remove';
}

export type End = 'accept' | 'drop' | 'reject' | 'return';

export interface Ended {
  state: State;
  end: End;
}

export function clone(s: State): State {
  return { ...s, path: [...s.path], facts: [...s.facts], assumptions: [...s.assumptions], notes: [...s.notes] };
}

/**
 * What one trace may spend (rule visits, states created by branching), shared by the iptables and nft tracers. Past a
 * cap the trace stops: the states still under way are dropped, so the outcomes found so far cover less than 100 %.
 */
export class Budget {
  private states = 0;
  private visits = 0;
  /** Why the trace stopped, once it has. */
  stopped: 'states' | 'visits' | undefined;

  constructor(
    private readonly maxStates = MAX_STATES,
    private readonly maxVisits = MAX_RULE_VISITS,
  ) {}

  /** A copy of the state for a new branch, or undefined once the trace has created too many (it stops then). */
  branch(s: State): State | undefined {
    if (this.stopped) return undefined;
    if (++this.states > this.maxStates) {
      this.stopped = 'states';
      return undefined;
    }
    return clone(s);
  }

  /** Counts one rule visit; false once the trace has stopped. */
  visit(): boolean {
    if (this.stopped) return false;
    if (++this.visits > this.maxVisits) {
      this.stopped = 'visits';
      return false;
    }
    return true;
  }

  /** For a trace that stopped: says that its outcomes are incomplete and how much of the traffic they cover. */
  warning(outcomes: Outcome[]): string | undefined {
    if (!this.stopped) return undefined;
    const share = percentText(coveredShare(outcomes));
    return this.stopped === 'states'
      ? t(
          'The trace stopped after creating {0} branches (random choices and undecided conditions multiply the paths): the outcomes shown are incomplete. Together they cover {1} of new connections, not 100%; the rest was not traced.',
          this.maxStates,
          share,
        )
      : t('The trace stopped after {0} rule visits: the outcomes shown are incomplete. Together they cover {1} of new connections, not 100%; the rest was not traced.', this.maxVisits, share);
  }
}

/** One condition's verdict for a state: certain, a random split with the probability of matching, or undecided. */
export type Cond = { kind: 'certain'; value: boolean } | { kind: 'random'; p: number; label: string } | ({ kind: 'assume' } & Assumption);

/** An undecided condition; `key` names what is tested, the same for both polarities. */
/** An undecided condition (facts.ts). */
export type Assume = Extract<Cond, { kind: 'assume' }>;

export const assume = (key: string, label: string, labelNot: string, iface?: Assumption['iface']): Assume => (iface ? { kind: 'assume', key, label, labelNot, iface } : { kind: 'assume', key, label, labelNot });

/**
 * The branches a condition makes of a state: the one where it matches (hit) and the other (miss), either absent
 * when impossible; `stop` once the trace stopped (Budget). An undecided condition is decided by the path's facts
 * when they can, else splits into two facts without a share (or, once `canSplit` says no more, takes the miss).
 */
export function branchOn(c: Cond, s: State, budget: Budget, canSplit: () => boolean): { hit?: State; miss?: State; stop?: true } {
  if (c.kind === 'certain') return c.value ? { hit: s } : { miss: s };
  if (c.kind === 'assume') {
    const decided = known(s.facts, c);
    if (decided !== undefined) return decided ? { hit: s } : { miss: s };
    if (!canSplit()) {
      s.facts.push(factOf(c, false));
      return { miss: s };
    }
    const hit = budget.branch(s);
    const miss = hit && budget.branch(s);
    if (!hit || !miss) return { stop: true };
    hit.facts.push(factOf(c, true));
    miss.facts.push(factOf(c, false));
    return { hit, miss };
  }
  const out: { hit?: State; miss?: State; stop?: true } = {};
  // A branch with no chance is not created.
  if (c.p > 0) {
    if (!(out.hit = budget.branch(s))) return { stop: true };
    out.hit.probability *= c.p;
  }
  if (c.p < 1) {
    if (!(out.miss = budget.branch(s))) return { stop: true };
    out.miss.probability *= 1 - c.p;
  }
  return out;
}

/** An undecided test the trace words as "assuming TEXT matches" (or not), keyed by `key` (TEXT unless said). */
export const assumeMatch = (text: string, key = text): Assume => assume(key, t('assuming {0} matches', text), t('assuming {0} does not match', text));

/** A rate limit or quota: the state of this rule's own counter (the rule at `line`), a condition of its own. */
export const assumeLimit = (line: number, what: string): Cond => assume(`${line} ${what}`, t('assuming {0} lets the packet through', what), t('assuming {0} holds the packet back', what));

export const yes: Cond = { kind: 'certain', value: true };
export const no: Cond = { kind: 'certain', value: false };
export const certain = (v: boolean): Cond => (v ? yes : no);

/** `-i`/`-o` NAME, `iifname`/`oifname` NAME: the packet's one interface each way (facts.ts). */
export function ifaceCond(dir: 'in' | 'out', name: string): Cond {
  return dir === 'in'
    ? assume(`iface in ${name}`, t('assuming the packet {0} interface {1}', t('arrives on'), name), t('assuming the packet does not {0} interface {1}', t('arrive on'), name), { dir, name })
    : assume(`iface out ${name}`, t('assuming the packet {0} interface {1}', t('leaves through'), name), t('assuming the packet does not {0} interface {1}', t('leave through'), name), { dir, name });
}

/**
 * Rewrites the destination to ADDRESS[-…] and PORT[-…] (a range's first value); false, changing nothing, when either
 * is no address or port (the NAT statement is then unusable).
 */
export function applyDnat(s: State, addrText: string | undefined, portText: string | undefined): boolean {
  const addr = addrText ? parseAddress(addrText.split('-')[0]) : undefined;
  const port = portText ? Number(portText.split('-')[0]) : s.dport;
  if (!addr || !(Number.isInteger(port) && port >= 1 && port <= 65535)) return false;
  s.dst = addr;
  s.dstText = formatAddress(addr);
  s.dport = port;
  s.dnat = true;
  return true;
}

const BRACKET_ANY = /^\[([^\]]+)\](?::(.+))?$/;
const BRACKET_DIGITS = /^\[([^\]]+)\](?::(\d+))?$/;

/**
 * The address and port of a NAT target as written: `ADDR`, `ADDR:PORT`, `[IPv6]`, `[IPv6]:PORT` or a bare IPv6
 * address (no port); `port` says what may follow the brackets (iptables' `--to-destination` allows a range).
 */
export function targetParts(text: string, port: 'digits' | 'any'): [string | undefined, string | undefined] {
  const bracket = (port === 'digits' ? BRACKET_DIGITS : BRACKET_ANY).exec(text);
  if (bracket) return [bracket[1], bracket[2]];
  if ((text.match(/:/g)?.length ?? 0) > 1) return [text, undefined];
  const [addr, p] = text.split(':');
  return [addr, p];
}

export function negate(c: Cond): Cond {
  if (c.kind === 'certain') return certain(!c.value);
  if (c.kind === 'random') return { kind: 'random', p: 1 - c.p, label: c.label };
  return { ...c, label: c.labelNot, labelNot: c.label, negated: !c.negated };
}

/**
 * A share as people say it: a small fraction when it is one (kube-proxy writes 1/3 as 0.33333333349), else a
 * percentage that never reads 0 % or 100 % when it is not.
 */
export function shareText(p: number): string {
  if (p >= 1) return '100%';
  if (p <= 0) return '0%';
  for (let d = 2; d <= 1000; d++) {
    const k = Math.round(p * d);
    if (k > 0 && Math.abs(k / d - p) < 1e-8) return `${k}/${d}`;
  }
  return percentText(p);
}

/** A share in percent; one too small to print (2^-40 of a diamond of random matches) never reads 0 % or 100 %. */
export function percentText(p: number): string {
  if (p >= 1) return '100%';
  if (p <= 0) return '0%';
  const percent = p * 100;
  return percent < 0.01 ? '< 0.01%' : percent > 99.99 ? '> 99.99%' : `${Number(percent.toPrecision(4))}%`;
}

/** How a share came about: what reached the rule times the rule's own chance, when something came before. */
export const shareChain = (before: number, p: number): string => (before < 1 ? `${shareText(before)} × ${shareText(p)} = ${shareText(before * p)}` : shareText(p));

/** `ip:port` (IPv6 in brackets): the one formatter, under the name the trace modules use. */
export const hostPort = formatHostPort;

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}

/** The facts none of the others implies (arriving on eth1 says the packet did not arrive on eth0), each once. */
function essential(facts: Fact[]): Condition[] {
  return facts.filter((f, i) => {
    const others = facts.filter((g, j) => j !== i && g.key !== f.key);
    return facts.findIndex((g) => g.key === f.key) === i && known(others, { key: f.key, label: '', labelNot: '', iface: f.iface, recent: f.recent }) !== f.holds;
  });
}

type Merged = Outcome & { best: number; others: string[] };

/**
 * Outcomes alike (verdict, destination, masquerade) under equal conditions merge, their shares adding up; so do
 * those that differ only in a condition taken both ways (it does not change what happens: facts.ts).
 */
export function mergeOutcomes(finals: { state: State; verdict: Verdict }[]): Outcome[] {
  const items = finals.map(({ state, verdict }): Merged => {
    const destination = verdict === 'dnat' ? hostPort(state.dstText, state.dport) : undefined;
    const outcome: Merged = {
      verdict,
      probability: state.probability,
      masquerade: state.masquerade,
      assumptions: [],
      conditions: state.facts,
      path: state.path,
      notes: [...new Set(state.notes)],
      best: state.probability,
      others: [...new Set(state.assumptions)],
    };
    if (destination) outcome.destination = destination;
    return outcome;
  });
  const alike = (o: Merged) => JSON.stringify([o.verdict, o.destination ?? '', o.masquerade, o.others]);
  const join = (into: Merged, from: Merged) => {
    into.probability += from.probability;
    // The path shown is the most likely one's.
    if (from.best > into.best) {
      into.best = from.best;
      into.path = from.path;
    }
    into.notes = [...new Set([...into.notes, ...from.notes])];
  };
  // What the entry point fixes is no assumption: it is not listed.
  return mergeAlike(
    items.map((o) => ({ ...o, conditions: essential(o.conditions.filter((c) => !c.given)) })),
    alike,
    join,
  )
    .map(({ best: _best, others, ...o }) => ({ ...o, assumptions: [...o.conditions.map((c) => c.label), ...others] }))
    .sort((a, b) => b.probability - a.probability || a.conditions.length - b.conditions.length || (a.destination ?? a.verdict).localeCompare(b.destination ?? b.verdict));
}

/** A new connection's state before the first hook: no mark, no NAT, the whole probability. */
export function initialState(packet: Packet, src: Address, dst: Address): State {
  return {
    src,
    srcText: formatAddress(src),
    dst,
    dstText: formatAddress(dst),
    dport: packet.dport,
    sport: packet.sport ?? 40000,
    protocol: packet.protocol,
    mark: 0,
    dnat: false,
    masquerade: false,
    probability: 1,
    path: [],
    facts: entryFacts(packet.entry),
    assumptions: [],
    notes: [],
  };
}
/** Addresses in indexes: their canonical text (IPv4 and IPv6 texts never collide). */
export const addressKey = (a: Address): string => formatAddress(a);

/** A state that left the hook walk: dropped or rejected on the way, or delivered (accepted, maybe DNATed). */
export interface Final {
  state: State;
  verdict: Verdict;
}

/** Where the states of one rule go: on to the next rule of the chain, or out of the chain (a verdict, a return). */
export interface Flow {
  next: State[];
  ended: Ended[];
}

/** The chain a rule is evaluated in: its table, how deep in jumps and which chains called it (loops). */
export interface Frame<T, C> {
  table: T;
  chain: C;
  depth: number;
  stack: string[];
}

/** The netfilter hooks, as nft names them. */
export type Hook = 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';

/**
 * The generic chain walker: a dialect says what a table's chains and rules are and evaluates one rule for one state
 * (pushing what goes on to `flow.next`, what ends the chain to `flow.ended`, and entering other chains with `call`);
 * the walker runs chains rule by rule over every live state within the budget, follows jumps and gotos, stops
 * loops, and applies a base chain's policy.
 */
export abstract class Walker<T extends { name: string }, C extends { name: string }, R> {
  readonly budget = new Budget();
  /** Problems of the trace itself, each said once. */
  readonly warnings: string[] = [];
  readonly missing = new MissingOnPath();
  /** Said before everything else but a stopped trace's warning (iptables: no table of the family). */
  readonly lead: string[] = [];
  private splits = MAX_BRANCHES;
  /** Past MAX_BRANCHES splits, undecided conditions are no longer split (they take the "no match" side). */
  readonly canSplit = (): boolean => this.splits-- > 0;

  constructor(
    protected readonly fileIndex: number,
    protected readonly context: TraceContext,
    /** Addresses local to the node besides its own and loopback (IPVS binds every virtual service's on kube-ipvs0). */
    private readonly alsoLocal: ReadonlySet<string> = new Set(),
  ) {}

  /** Whether splits are left (a lookup that splits per element stops splitting once none are). */
  protected get maySplit(): boolean {
    return this.splits > 0;
  }

  isLocal(a: Address): boolean {
    if (isLoopback(a)) return true;
    if (this.alsoLocal.has(addressKey(a))) return true;
    return this.context.nodeIPs.some((ip) => {
      const n = parseAddress(ip);
      return n !== undefined && n.family === a.family && n.value === a.value;
    });
  }

  /** Runs every base chain of a hook in the kernel's order; drops and rejects end there. */
  abstract hook(name: Hook, states: State[]): { passed: State[]; ended: Final[] };

  /** The rules of a chain worth visiting for these states, in rule order. */
  protected abstract rulesOf(chain: C, states: readonly State[]): readonly R[];
  /** Evaluates one rule for one state. */
  protected abstract runRule(frame: Frame<T, C>, rule: R, state: State, flow: Flow): void;

  /** A cheap necessary condition of a rule (null: none): a state that fails it goes on without the full evaluation. */
  protected prefilter(_rule: R): ((s: State) => boolean) | null {
    return null;
  }

  /** Runs a chain over the states: what ended in it (verdicts, returns) and what fell through its end. */
  protected runChain(table: T, chain: C, states: State[], depth: number, stack: string[]): { ended: Ended[]; fallthrough: State[] } {
    const ended: Ended[] = [];
    const name = chain.name;
    if (depth > MAX_DEPTH || stack.includes(name)) {
      this.warnings.push(t('Loop or runaway depth at chain {0} ({1}): the trace stops there and drops the packet.', name, [...stack, name].join(' → ')));
      return { ended: states.map((state) => ({ state, end: 'drop' as End })), fallthrough: [] };
    }
    const frame: Frame<T, C> = { table, chain, depth, stack: [...stack, name] };
    let live = states;
    for (const rule of this.rulesOf(chain, states)) {
      if (live.length === 0) break;
      const quick = this.prefilter(rule);
      const flow: Flow = { next: [], ended };
      for (const state of live) {
        // A stopped trace (Budget) drops the states under way; the result says the outcomes are incomplete.
        if (this.budget.stopped) return { ended, fallthrough: [] };
        if (quick && !quick(state)) {
          flow.next.push(state);
          continue;
        }
        if (!this.budget.visit()) return { ended, fallthrough: [] };
        this.runRule(frame, rule, state, flow);
      }
      live = flow.next;
    }
    return { ended, fallthrough: live };
  }

  /**
   * A jump (comes back on return or at the chain's end) or a goto (a return there returns from the caller) to
   * `target`; a chain the dump lacks is taken as empty.
   */
  protected call(frame: Frame<T, C>, kind: 'jump' | 'goto', target: C | undefined, name: string, s: State, flow: Flow): void {
    if (!target) {
      this.warnings.push(t('Chain {0} is not in table {1} of this dump: treated as empty.', name, frame.table.name));
      if (kind === 'jump') flow.next.push(s);
      else flow.ended.push({ state: s, end: 'return' });
      return;
    }
    const result = this.runChain(frame.table, target, [s], frame.depth + 1, frame.stack);
    for (const e of result.ended) {
      if (e.end === 'return' && kind === 'jump') flow.next.push(e.state);
      else flow.ended.push(e);
    }
    for (const f of result.fallthrough) {
      if (kind === 'jump') flow.next.push(f);
      else flow.ended.push({ state: f, end: 'return' });
    }
  }

  /**
   * Runs one base chain: drops and rejects end in `ended`; what reaches its end or a return meets its policy
   * (`policyDrop`: the step that says it drops); an accept ends this base chain only, the next one still sees it.
   */
  protected runBase(table: T, chain: C, states: State[], policyDrop: (() => PathStep) | undefined, ended: Final[]): State[] {
    const next: State[] = [];
    const result = this.runChain(table, chain, states, 0, []);
    for (const e of [...result.ended, ...result.fallthrough.map((state) => ({ state, end: 'return' as End }))]) {
      if (e.end === 'drop' || e.end === 'reject') ended.push({ state: e.state, verdict: e.end });
      else if (e.end === 'return' && policyDrop) {
        e.state.path.push(policyDrop());
        ended.push({ state: e.state, verdict: 'drop' });
      } else next.push(e.state);
    }
    return next;
  }

  /** LOCAL_IN for packets to this node: the input hook, then delivered (iptables with IPVS does more). */
  localIn(walk: HookWalk, states: State[], _fromNode: boolean): void {
    walk.deliver(walk.hook('input', states));
  }
}

type AnyWalker = Walker<{ name: string }, { name: string }, unknown>;

/** One packet's way through the hooks in the kernel's order, gathering the states that leave it. */
export class HookWalk {
  readonly finals: Final[] = [];

  constructor(private readonly walker: AnyWalker) {}

  /** Runs a hook; what ends there is final, what passes is returned. */
  hook(name: Hook, states: State[]): State[] {
    return this.take(this.walker.hook(name, states));
  }

  /** What a hook (or part of one) passed; what ended there is final. */
  take(r: { passed: State[]; ended: Final[] }): State[] {
    appendAll(this.finals, r.ended);
    return r.passed;
  }

  /** States that reach their destination (a local socket, or out of the node). */
  deliver(states: State[]): void {
    for (const s of states) this.finals.push({ state: s, verdict: s.dnat ? 'dnat' : 'accept' });
  }

  /**
   * From a pod or outside: PREROUTING, then LOCAL_IN for a local destination, else FORWARD and POSTROUTING. From
   * the node: OUTPUT and POSTROUTING; a packet to a local address loops back through LOCAL_IN (its NAT was decided
   * on the way out).
   */
  run(entry: Entry, start: State[]): void {
    const local = (s: State) => this.walker.isLocal(s.dst);
    if (entry === 'node') {
      const post = this.hook('postrouting', this.hook('output', start));
      this.deliver(post.filter((s) => !local(s)));
      this.walker.localIn(this, post.filter(local), true);
      return;
    }
    const pre = this.hook('prerouting', start);
    this.walker.localIn(this, pre.filter(local), false);
    this.deliver(
      this.hook(
        'postrouting',
        this.hook(
          'forward',
          pre.filter((s) => !local(s)),
        ),
      ),
    );
  }
}

/**
 * Traces the first packet of a new connection with a dialect's walker (made for the packet's address family):
 * the outcomes, merged, and the warnings (a stopped trace's first, then the walker's lead, what the dump lacked on
 * the way, and the walker's own).
 */
export function traceWith(packet: Packet, context: TraceContext, walker: (family: 4 | 6) => AnyWalker): TraceResult {
  const src = parseAddress(packet.src);
  const dst = parseAddress(packet.dst);
  if (!src || !dst || src.family !== dst.family) {
    return { packet, outcomes: [], warnings: [t('Source and destination must be addresses of the same family.')], context };
  }
  const w = walker(dst.family);
  const walk = new HookWalk(w);
  walk.run(packet.entry, [initialState(packet, src, dst)]);
  const outcomes = mergeOutcomes(walk.finals);
  // A trace that hit a cap must not read as a complete answer: its warning comes first.
  const stopped = w.budget.warning(outcomes);
  // A lead (no table of the family at all) already says what is missing.
  const missing = w.lead.length === 0 ? w.missing.warnings(dst.family === 4 ? 'IPv4' : 'IPv6') : [];
  return { packet, outcomes, warnings: [...(stopped ? [stopped] : []), ...w.lead, ...missing, ...dedupe(w.warnings)], context };
}
