// The iptables packet simulator: a general netfilter evaluator over the iptables model (DESIGN §5), not a
// kube-proxy pattern matcher. It follows the first packet of a new connection through the hooks in the
// kernel's order, branching with probabilities on random matches and with labelled assumptions on
// conditions the packet does not decide.
import type { Chain, IptablesRuleset, Match, Option, Rule, Table } from '../model/iptables';
import type { IpSet } from '../model/ipset';
import type { RealServer, VirtualService } from '../model/ipvs';
import { plainParam, ruleComment } from '../model/iptables';
import { t } from '../l10n';
import { MissingOnPath } from './missing';
import { addressText, formatAddress, formatHostPort, isIpv4, isLoopback, parseAddress, parsePrefix, prefixContains, type Address, type Prefix } from '../model/address';
import type { Condition, Entry, Outcome, Packet, PathStep, TraceContext, TraceResult, Verdict } from './types';
import { coveredShare, entryFacts, factOf, known, mergeAlike, type Assumption, type Fact } from './facts';
import { appendAll } from '../model/append';
import { inferredMember, inferredNote, type InferredIpsets } from './ipvs-sets';
import { recentMatch } from './recent';

/** A `-m recent` match, evaluated per branch (it reads and records what the path did to its list). */
type RecentMatch = { kind: 'recent'; m: Match };

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
    const covered = coveredShare(outcomes);
    // A share too small to print (2^-40 of a diamond of random matches) still must not read as 0 % or 100 %.
    const percent = covered * 100;
    const share = percent > 0 && percent < 0.01 ? '< 0.01%' : percent > 99.99 && percent < 100 ? '> 99.99%' : `${Number(percent.toPrecision(4))}%`;
    return this.stopped === 'states'
      ? t('The trace stopped after creating {0} branches (random choices and undecided conditions multiply the paths): the outcomes shown are incomplete. Together they cover {1} of new connections, not 100%; the rest was not traced.', this.maxStates, share)
      : t('The trace stopped after {0} rule visits: the outcomes shown are incomplete. Together they cover {1} of new connections, not 100%; the rest was not traced.', this.maxVisits, share);
  }
}

/** One condition's verdict for a state: certain, a random split with the probability of matching, or undecided. */
export type Cond =
  | { kind: 'certain'; value: boolean }
  | { kind: 'random'; p: number; label: string }
  | ({ kind: 'assume' } & Assumption);

/** An undecided condition; `key` names what is tested, the same for both polarities. */
export const assume = (key: string, label: string, labelNot: string, iface?: Assumption['iface']): Cond =>
  iface ? { kind: 'assume', key, label, labelNot, iface } : { kind: 'assume', key, label, labelNot };

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

export const yes: Cond = { kind: 'certain', value: true };
export const no: Cond = { kind: 'certain', value: false };
export const certain = (v: boolean): Cond => (v ? yes : no);

/** Names iptables resolves when it loads the rule (not numbers, prefixes or IPv6 text). */
const isHostName = (text: string) => /^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?$/.test(text) && !/^[\d.]+$/.test(text);

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

/** `PORT`, `LOW:HIGH`, `:HIGH`, `LOW:` lists; a reversed or malformed range (iptables refuses it) matches nothing. */
function portMatches(spec: string, port: number): boolean {
  return spec.split(',').some((part) => {
    const [lo, hi] = part.split(':');
    const low = lo === '' ? 0 : Number(lo);
    const high = hi === undefined ? low : hi === '' ? 65535 : Number(hi);
    return port >= low && port <= high;
  });
}

const PROTOCOL_NUMBERS: Record<string, string> = { '6': 'tcp', '17': 'udp', '132': 'sctp', '1': 'icmp', '58': 'ipv6-icmp', '0': 'all' };

export interface IptablesTraceInput {
  ruleset: IptablesRuleset;
  fileIndex: number;
}

/**
 * The virtual services (in IPVS mode they take over after INPUT; none outside it) and the ipsets the rules match
 * against.
 */
export interface IpvsTraceInput {
  services: { vs: VirtualService; fileIndex: number }[];
  sets: Map<string, IpSet>;
  /** Without an ipset dump: kube-proxy's set memberships the virtual services imply. */
  inferred?: InferredIpsets;
}

class Tracer {
  readonly budget = new Budget();
  readonly warnings: string[] = [];
  readonly missing = new MissingOnPath();
  private splitBudget = MAX_BRANCHES;
  readonly canSplit = () => this.splitBudget-- > 0;
  /** Addresses bound on kube-ipvs0 (every virtual service address) are local to the node. */
  private readonly ipvsLocal: Set<string>;
  /** Where the traced packet comes from (set before the first hook). */
  entry: Entry = 'pod';

  constructor(
    private readonly ruleset: IptablesRuleset,
    private readonly fileIndex: number,
    private readonly context: TraceContext,
    private readonly family: 'ipv4' | 'ipv6',
    readonly ipvs?: IpvsTraceInput,
  ) {
    this.ipvsLocal = ipvs ? ipvsIndex(ipvs).local : new Set();
  }

  private table(name: string): Table | undefined {
    return this.ruleset.tables.find((tb) => tb.name === name && tb.family === this.family);
  }

  isLocal(a: Address): boolean {
    if (isLoopback(a)) return true;
    if (this.ipvsLocal.has(addressKey(a))) return true;
    return this.context.nodeIPs.some((ip) => {
      const n = parseAddress(ip);
      return n !== undefined && n.family === a.family && n.value === a.value;
    });
  }

  private step(state: State, table: Table, rule: Rule, note: string): void {
    state.afterMiss = undefined;
    state.path.push({ fileIndex: this.fileIndex, line: rule.range.start.line, range: rule.range, table: table.name, chain: rule.chain, text: rule.raw.trim(), note });
  }

  /** The hook being run (REDIRECT's new address depends on it). */
  private hook = '';

  /** Runs one hook (e.g. PREROUTING) through every table that has it, in the kernel's table order. */
  runHook(hook: string, tables: string[], states: State[]): { passed: State[]; ended: { state: State; verdict: Verdict }[] } {
    let live = states;
    const ended: { state: State; verdict: Verdict }[] = [];
    for (const name of tables) {
      const table = this.table(name);
      const chain = table?.chainByName.get(hook);
      if (!table || !chain) {
        if (live.length > 0) this.missing.iptables(name, hook, table !== undefined);
        continue;
      }
      const next: State[] = [];
      this.hook = hook;
      const result = this.runChain(table, hook, live, 0, []);
      for (const e of [...result.ended, ...result.fallthrough.map((state) => ({ state, end: 'return' as End }))]) {
        if (e.end === 'drop' || e.end === 'reject') {
          ended.push({ state: e.state, verdict: e.end });
        } else if (e.end === 'return') {
          // End of a built-in chain: its policy decides.
          const policy = chain.policy ?? 'ACCEPT';
          if (policy === 'DROP') {
            e.state.path.push({ fileIndex: this.fileIndex, line: chain.range.start.line, range: chain.range, table: table.name, chain: hook, text: chain.range.start.line >= 0 ? `:${hook} ${policy}` : hook, note: t('No rule decided: the policy of {0} drops the packet.', hook) });
            ended.push({ state: e.state, verdict: 'drop' });
          } else next.push(e.state);
        } else next.push(e.state);
      }
      live = next;
    }
    return { passed: live, ended };
  }

  private runChain(table: Table, chainName: string, states: State[], depth: number, stack: string[]): { ended: Ended[]; fallthrough: State[] } {
    const ended: Ended[] = [];
    const chain = table.chainByName.get(chainName);
    if (!chain) {
      this.warnings.push(t('Chain {0} is not in table {1} of this dump: treated as empty.', chainName, table.name));
      return { ended, fallthrough: states };
    }
    if (depth > MAX_DEPTH || stack.includes(chainName)) {
      this.warnings.push(t('Loop or runaway depth at chain {0} ({1}): the trace stops there and drops the packet.', chainName, [...stack, chainName].join(' → ')));
      return { ended: states.map((state) => ({ state, end: 'drop' as End })), fallthrough: [] };
    }
    const inner = [...stack, chainName];
    let live = states;
    // In a big chain (KUBE-SERVICES, KUBE-NODEPORTS of a large cluster) visit only the rules that can match this
    // packet's destination (see candidateRules).
    const rules = states.length === 1 && chain.rules.length > 256 ? candidateRules(chain, states[0].dst, states[0].protocol, states[0].dport) : chain.rules;
    for (const rule of rules) {
      if (live.length === 0) break;
      const quick = quickFilter(rule);
      const next: State[] = [];
      for (const state of live) {
        // A stopped trace (Budget) drops the states under way; traceIptables says the outcomes are incomplete.
        if (this.budget.stopped) return { ended, fallthrough: [] };
        // Most rules of a big KUBE-SERVICES chain fail on the destination: decide that without the full evaluation.
        if (quick && !quick(state)) {
          next.push(state);
          continue;
        }
        if (!this.budget.visit()) return { ended, fallthrough: [] };
        for (const { state: s, matched, note } of this.matchRule(rule, state)) {
          if (!matched) {
            // A random rule not taken is a step: the share that goes on is part of the path.
            if (note) {
              this.step(s, table, rule, note);
              s.afterMiss = rule.chain;
            }
            next.push(s);
            continue;
          }
          this.applyTarget(table, rule, s, note, depth, inner, next, ended);
        }
      }
      live = next;
    }
    return { ended, fallthrough: live };
  }

  private applyTarget(table: Table, rule: Rule, s: State, matchNote: string, depth: number, stack: string[], next: State[], ended: Ended[]): void {
    const target = rule.target;
    const note = (text: string) => [matchNote, text].filter(Boolean).join(' ');
    if (!target) {
      this.step(s, table, rule, note(t('No target: the rule only counts the packet.')));
      next.push(s);
      return;
    }
    switch (target.kind) {
      case 'jump':
      case 'goto': {
        this.step(s, table, rule, note(target.kind === 'jump' ? t('Jump to {0}.', target.name) : t('Go to {0} (no return here).', target.name)));
        const result = this.runChain(table, target.name, [s], depth + 1, stack);
        for (const e of result.ended) {
          if (e.end === 'return') {
            if (target.kind === 'jump') next.push(e.state);
            else ended.push(e);
          } else ended.push(e);
        }
        for (const f of result.fallthrough) {
          if (target.kind === 'jump') next.push(f);
          else ended.push({ state: f, end: 'return' });
        }
        return;
      }
      case 'return':
        this.step(s, table, rule, note(t('RETURN to the calling chain.')));
        ended.push({ state: s, end: 'return' });
        return;
      case 'verdict':
        if (target.name === 'ACCEPT') {
          this.step(s, table, rule, note(t('ACCEPT: this table lets the packet through.')));
          ended.push({ state: s, end: 'accept' });
        } else if (target.name === 'DROP') {
          this.step(s, table, rule, note(t('DROP: the packet is discarded; the client times out.')));
          ended.push({ state: s, end: 'drop' });
        } else {
          this.step(s, table, rule, note(t('{0}: handed to user space; treated as accepted.', target.name)));
          ended.push({ state: s, end: 'accept' });
        }
        return;
      case 'reject':
        this.step(s, table, rule, note(t('REJECT: the client gets an error at once.')));
        ended.push({ state: s, end: 'reject' });
        return;
      case 'dnat': {
        const to = target.options.find((o) => o.name === '--to-destination')?.values[0];
        const rewritten = to ? this.rewrite(s, to) : false;
        this.step(s, table, rule, note(rewritten ? t('DNAT: the destination becomes {0}.', `${hostPort(s.dstText, s.dport)}`) : t('DNAT without a usable --to-destination.')));
        ended.push({ state: s, end: 'accept' });
        return;
      }
      case 'redirect': {
        const ports = target.options.find((o) => o.name === '--to-ports')?.values[0];
        // The kernel (nf_nat_redirect) sends a locally generated packet to loopback, others to the incoming interface's address.
        const loopback = s.dst.family === 4 ? '127.0.0.1' : '::1';
        const local = this.hook === 'OUTPUT' ? loopback : (this.context.nodeIPs.find((ip) => parseAddress(ip)?.family === s.dst.family) ?? loopback);
        this.rewrite(s, ports ? `${local}:${ports.split(/[-:]/)[0]}` : local);
        this.step(s, table, rule, note(t('REDIRECT to this node, port {0}.', s.dport)));
        ended.push({ state: s, end: 'accept' });
        return;
      }
      case 'snat':
      case 'masquerade':
        s.masquerade = true;
        this.step(s, table, rule, note(target.kind === 'masquerade' ? t('MASQUERADE: the source becomes the outgoing interface\'s address.') : t('SNAT: the source address is rewritten.')));
        ended.push({ state: s, end: 'accept' });
        return;
      case 'mark': {
        const before = s.mark;
        if (target.name === 'MARK') s.mark = applyMark(s.mark, target.options);
        this.step(s, table, rule, note(target.name === 'MARK' ? t('MARK: packet mark {0} → {1}.', hex(before), hex(s.mark)) : t('{0}: non-terminating, continues.', target.name)));
        next.push(s);
        return;
      }
      default:
        if (target.name === 'CT' || target.name === 'NOTRACK') {
          this.step(s, table, rule, note(t('{0}: connection tracking settings; continues.', target.name)));
        } else {
          this.step(s, table, rule, note(t('{0}: non-terminating target; continues.', target.name)));
        }
        next.push(s);
    }
  }

  /** Applies `--to-destination ADDR[-ADDR][:PORT[-PORT]]` (IPv6 in brackets); ranges take their first value. */
  private rewrite(s: State, to: string): boolean {
    let addrText: string;
    let portText: string | undefined;
    const bracket = /^\[([^\]]+)\](?::(.+))?$/.exec(to);
    if (bracket) [, addrText, portText] = bracket;
    else if ((to.match(/:/g)?.length ?? 0) > 1) addrText = to;
    else [addrText, portText] = to.split(':');
    return applyDnat(s, addrText, portText);
  }

  /** Evaluates all conditions of a rule in the kernel's order; returns one entry per branch. */
  private matchRule(rule: Rule, state: State): { state: State; matched: boolean; note: string }[] {
    const conds: (Cond | RecentMatch)[] = [];
    for (const p of rule.params) conds.push(this.param(p, state));
    for (const m of rule.matches) {
      if (m.module === 'recent') conds.push({ kind: 'recent', m });
      else for (const c of this.match(m, state, rule)) conds.push(c);
    }
    let branches: { state: State; matched: boolean; notes: string[] }[] = [{ state, matched: true, notes: [] }];
    let random = false;
    for (const rc of conds) {
      if (rc.kind === 'certain') {
        if (!rc.value) {
          // Deterministic miss: every still-matching branch misses, and no random choice was made after all.
          branches = branches.map((b) => ({ ...b, matched: false, notes: [] }));
          break;
        }
        continue;
      }
      const out: typeof branches = [];
      for (const b of branches) {
        if (!b.matched) {
          out.push(b);
          continue;
        }
        // A recent list reads what the path did to it so far and records what this match does (xt_recent).
        const { cond: c, record } = rc.kind === 'recent' ? recentMatch(rc.m, b.state, rule) : { cond: rc, record: undefined };
        const { hit, miss, stop } = branchOn(c, b.state, this.budget, this.canSplit);
        if (stop) return []; // the trace stops (runChain)
        random ||= c.kind === 'random';
        if (hit) {
          record?.(hit, true);
          const share = c.kind === 'random' ? `${c.label} ${t('Share of new connections: {0}.', shareChain(b.state.probability, c.p))}` : '';
          out.push({ state: hit, matched: true, notes: [...b.notes, share] });
        }
        if (miss) {
          record?.(miss, false);
          const share = c.kind === 'random' ? t('Not taken with probability {0}; share of new connections going on: {1}.', shareText(1 - c.p), shareChain(b.state.probability, 1 - c.p)) : '';
          out.push({ state: miss, matched: false, notes: [share] });
        }
      }
      branches = out;
    }
    return branches.map((b) => {
      const notes = b.notes.filter(Boolean);
      // The rule after the random ones not taken (kube-proxy's last endpoint) takes the share they left.
      if (b.matched && !random && b.state.afterMiss === rule.chain) notes.unshift(t('Taken by what the rules not taken left; share of new connections: {0}.', shareText(b.state.probability)));
      return { state: b.state, matched: b.matched, note: notes.join(' ') };
    });
  }

  private param(o: Option, s: State): Cond {
    const v = o.values[0] ?? '';
    const neg = (c: Cond): Cond => (o.negated ? negate(c) : c);
    switch (o.name) {
      case '-s':
      case '-d': {
        const addr = o.name === '-s' ? s.src : s.dst;
        const prefixes = v.split(',').map(parsePrefix);
        if (prefixes.some((p) => p === undefined)) {
          // A host name is resolved when the rule is loaded; anything else iptables refuses (a parser diagnostic).
          if (!v.split(',').every(isHostName)) return no;
          return neg(assume(`${o.name} ${v}`, t('assuming host name {0} matches {1}', v, o.name), t('assuming host name {0} does not match {1}', v, o.name)));
        }
        return neg(certain(prefixes.some((p) => prefixContains(p!, addr))));
      }
      case '-p': {
        const proto = PROTOCOL_NUMBERS[v] ?? v.toLowerCase();
        return neg(certain(proto === 'all' || proto === s.protocol));
      }
      case '-i':
      case '-o':
        return neg(ifaceCond(o.name === '-i' ? 'in' : 'out', v));
      case '-f':
        return neg(no); // the first packet of a connection is never a later fragment
      default:
        return yes;
    }
  }

  private match(m: Match, s: State, rule: Rule): Cond[] {
    const out: Cond[] = [];
    const opt = (...names: string[]) => m.options.find((o) => names.includes(o.name));
    const neg = (o: Option, c: Cond): Cond => (o.negated ? negate(c) : c);
    switch (m.module) {
      case 'comment':
      case 'nfacct':
        return [yes];
      case 'tcp':
      case 'udp':
      case 'sctp':
      case 'udplite':
      case 'dccp': {
        if (m.module !== s.protocol) return [no];
        for (const o of m.options) {
          if (o.name === '--dport') out.push(neg(o, certain(portMatches(o.values[0] ?? '', s.dport))));
          else if (o.name === '--sport') out.push(neg(o, certain(portMatches(o.values[0] ?? '', s.sport))));
          else if (o.name === '--syn') out.push(neg(o, yes));
          else if (o.name === '--tcp-flags') out.push(neg(o, certain(tcpFlagsMatchSyn(o.values))));
        }
        return out;
      }
      case 'multiport':
        for (const o of m.options) {
          if (o.name === '--dports') out.push(neg(o, certain(portMatches(o.values[0] ?? '', s.dport))));
          else if (o.name === '--sports') out.push(neg(o, certain(portMatches(o.values[0] ?? '', s.sport))));
          else if (o.name === '--ports') out.push(neg(o, certain(portMatches(o.values[0] ?? '', s.dport) || portMatches(o.values[0] ?? '', s.sport))));
        }
        return out;
      case 'addrtype':
        for (const o of m.options) {
          if (o.name !== '--src-type' && o.name !== '--dst-type') continue;
          const addr = o.name === '--src-type' ? s.src : s.dst;
          const types = (o.values[0] ?? '').split(',');
          let c: Cond;
          if (types.every((x) => x === 'LOCAL')) c = certain(this.isLocal(addr));
          else if (types.includes('LOCAL') && this.isLocal(addr)) c = yes;
          else c = assume(`addrtype ${formatAddress(addr)} ${o.values[0] ?? ''}`, t('assuming {0} is of type {1}', formatAddress(addr), o.values[0] ?? ''), t('assuming {0} is not of type {1}', formatAddress(addr), o.values[0] ?? ''));
          out.push(neg(o, c));
        }
        return out;
      case 'mark':
        for (const o of m.options) {
          if (o.name !== '--mark') continue;
          const vm = markValue(o.values[0] ?? '');
          out.push(vm ? neg(o, certain(((s.mark & vm.mask) >>> 0) === ((vm.value & vm.mask) >>> 0))) : this.refused(rule, `--mark ${o.values[0] ?? ''}`));
        }
        return out;
      case 'conntrack':
      case 'state':
        for (const o of m.options) {
          if (o.name === '--ctstate' || o.name === '--state') {
            const states = (o.values[0] ?? '').split(',');
            // The first packet of a new connection: NEW, plus DNAT once a DNAT rewrote it.
            const has = states.includes('NEW') || (states.includes('DNAT') && s.dnat) || (states.includes('SNAT') && false);
            out.push(neg(o, certain(has)));
          } else if (o.name === '--ctstatus') {
            out.push(neg(o, certain(false)));
          } else if (o.name === '--ctorigdst' || o.name === '--ctorigsrc' || o.name === '--ctreplsrc' || o.name === '--ctrepldst') {
            out.push(neg(o, assume(`${o.name} ${o.values[0] ?? ''}`, t('assuming {0} {1} matches', o.name, o.values[0] ?? ''), t('assuming {0} {1} does not match', o.name, o.values[0] ?? ''))));
          } else if (o.name === '--ctproto') {
            out.push(neg(o, certain((PROTOCOL_NUMBERS[o.values[0] ?? ''] ?? o.values[0]) === s.protocol)));
          }
        }
        return out;
      case 'statistic': {
        const mode = opt('--mode')?.values[0];
        // Values iptables refuses (a parser diagnostic) match nothing here, and say so.
        if (mode === 'random') {
          const o = opt('--probability');
          const text = o ? (o.values[0] ?? '') : '1';
          const p = Number(text);
          if (!(p >= 0 && p <= 1)) return [this.refused(rule, `--probability ${text}`)];
          return [{ kind: 'random', p, label: t('Taken with probability {0} (--probability).', fmtP(p)) }];
        }
        if (mode === 'nth') {
          const o = opt('--every');
          const text = o ? (o.values[0] ?? '') : '1';
          const every = Number(text);
          if (!(Number.isInteger(every) && every >= 1)) return [this.refused(rule, `--every ${text}`)];
          return [{ kind: 'random', p: 1 / every, label: t('Taken by 1 in {0} new connections (--mode nth).', every) }];
        }
        return [yes];
      }
      case 'icmp':
      case 'icmp6':
        return [no];
      case 'limit':
      case 'hashlimit':
      case 'connlimit':
        // A rate limit is the state of this rule's own counter: each rule is a condition of its own.
        return [assume(`${rule.range.start.line} -m ${m.module}`, t('assuming -m {0} lets the packet through', m.module), t('assuming -m {0} holds the packet back', m.module))];
      case 'set': {
        const o = opt('--match-set');
        const name = o?.values[0] ?? '?';
        const set = this.ipvs?.sets.get(name);
        if (set && o) return [neg(o, certain(ipsetContains(set, (o.values[1] ?? 'src').split(','), s)))];
        const inferred = o && this.ipvs?.inferred ? inferredMember(this.ipvs.inferred, name, o.values[1] ?? 'src', s) : undefined;
        if (inferred !== undefined) {
          this.warnings.push(inferredNote());
          return [neg(o!, certain(inferred))];
        }
        const c = assume(`ipset ${name} ${o?.values[1] ?? 'src'}`, t('assuming the packet is in ipset {0}', name), t('assuming the packet is not in ipset {0}', name));
        return [o ? neg(o, c) : c];
      }
      default: {
        if (m.options.length === 0) return [assume(`-m ${m.module}`, t('assuming {0} matches', `-m ${m.module}`), t('assuming {0} does not match', `-m ${m.module}`))];
        // One fact per option, whatever its negation: `--uid-owner 1337` and `! --uid-owner 1337` test the same thing.
        return m.options.map((o) => {
          const label = `-m ${m.module} ${o.name} ${o.values.join(' ')}`.trim();
          return neg(o, assume(label, t('assuming {0} matches', label), t('assuming {0} does not match', label)));
        });
      }
    }
  }

  /** A match whose value the kernel would not load: no match, with a warning naming the rule. */
  private refused(rule: Rule, what: string): Cond {
    this.warnings.push(t('{0} at line {1} is not a valid value: the rule is taken not to match.', what, rule.range.start.line + 1));
    return no;
  }

  initialState(packet: Packet): State {
    return initialState(packet, parseAddress(packet.src)!, parseAddress(packet.dst)!);
  }
}

// Addresses in indexes: their canonical text (IPv4 and IPv6 texts never collide), made without parsing for
// the dotted quads of a dump.
const addressKey = (a: Address) => formatAddress(a);

/** What a trace looks up in an IPVS snapshot, indexed once per snapshot (the input object's identity). */
interface IpvsIndex {
  /** Addresses of the virtual services (bound on kube-ipvs0), as addressKey. */
  local: Set<string>;
  /** The first virtual service for protocol|addressKey|port, as a linear search in dump order finds it. */
  byTuple: Map<string, { vs: VirtualService; fileIndex: number }>;
}

const ipvsIndexes = new WeakMap<IpvsTraceInput, IpvsIndex>();

function ipvsIndex(ipvs: IpvsTraceInput): IpvsIndex {
  let index = ipvsIndexes.get(ipvs);
  if (index) return index;
  index = { local: new Set(), byTuple: new Map() };
  for (const entry of ipvs.services) {
    const a = entry.vs.address !== undefined ? addressText(entry.vs.address) : undefined;
    if (a === undefined) continue;
    index.local.add(a);
    const k = `${entry.vs.protocol}|${a}|${entry.vs.port}`;
    if (!index.byTuple.has(k)) index.byTuple.set(k, entry);
  }
  ipvsIndexes.set(ipvs, index);
  return index;
}

/** An ipset member with its address dimensions parsed when first compared (undefined: unparsable, never matches). */
interface ParsedMember {
  member: IpSet['members'][number];
  prefixes: (Prefix | undefined)[] | undefined;
}

function memberPrefixes(set: IpSet, parsed: ParsedMember): (Prefix | undefined)[] {
  const m = parsed.member;
  return (parsed.prefixes ??= set.dimensions.map((dim, i) => {
    if (dim !== 'ip' && dim !== 'net') return undefined;
    const text = i === 0 ? m.address : m.address2;
    const prefixLen = i === 0 ? m.prefix : m.prefix2;
    return text ? parsePrefix(prefixLen !== undefined ? `${text}/${prefixLen}` : text) : undefined;
  }));
}

/**
 * An ipset's members indexed by the first dimension when it is one host address or one port: a lookup reads
 * that bucket plus the members the index cannot key (networks, port ranges), not the whole set. Building it
 * parses no address of the usual dotted quads; a member's addresses are parsed when a lookup compares it.
 */
interface IpsetIndex {
  byFirst: Map<string, ParsedMember[]>;
  rest: ParsedMember[];
}

const ipsetIndexes = new WeakMap<IpSet, IpsetIndex>();

function ipsetIndex(set: IpSet): IpsetIndex {
  let index = ipsetIndexes.get(set);
  if (index) return index;
  index = { byFirst: new Map(), rest: [] };
  const dims = set.dimensions;
  for (const m of set.members) {
    if (m.options.nomatch) continue; // never a match (as the linear search has it)
    const parsed: ParsedMember = { member: m, prefixes: undefined };
    let k: string | undefined;
    if (dims[0] === 'ip' || dims[0] === 'net') {
      const host = m.address ? hostOf(m.address, m.prefix) : undefined;
      if (host !== undefined) k = `a|${host}`;
    } else if (dims[0] === 'port' && m.port !== undefined && (m.portTo ?? m.port) === m.port) k = `p|${m.port}`;
    if (k === undefined) index.rest.push(parsed);
    else {
      const list = index.byFirst.get(k);
      if (list) list.push(parsed);
      else index.byFirst.set(k, [parsed]);
    }
  }
  ipsetIndexes.set(set, index);
  return index;
}

/** Whether the packet's tuple (per --match-set flags, one per set dimension) is a member of the ipset. */
export function ipsetContains(set: IpSet, flags: string[], s: State): boolean {
  const dims = set.dimensions;
  const pick = (i: number) => (flags[i] ?? flags[flags.length - 1]) === 'dst';
  const matches = (parsed: ParsedMember): boolean => {
    const m = parsed.member;
    const prefixes = memberPrefixes(set, parsed);
    for (let i = 0; i < dims.length; i++) {
      const dst = pick(i);
      const addr = dst ? s.dst : s.src;
      const port = dst ? s.dport : s.sport;
      const dim = dims[i];
      if (dim === 'ip' || dim === 'net') {
        const p = prefixes[i];
        if (!p || !prefixContains(p, addr)) return false;
      } else if (dim === 'port') {
        if (m.port === undefined || port < m.port || port > (m.portTo ?? m.port)) return false;
        if (m.protocol && m.protocol.toLowerCase() !== s.protocol && set.type !== 'bitmap:port') return false;
      } else {
        return false; // mac, iface, mark, set: not decided here
      }
    }
    return true;
  };
  const index = ipsetIndex(set);
  const dst0 = pick(0);
  const first = dims[0] === 'ip' || dims[0] === 'net' ? `a|${addressKey(dst0 ? s.dst : s.src)}` : dims[0] === 'port' ? `p|${dst0 ? s.dport : s.sport}` : undefined;
  const bucket = first !== undefined ? index.byFirst.get(first) : undefined;
  return (bucket?.some(matches) ?? false) || index.rest.some(matches);
}

/**
 * IPVS after INPUT: the virtual service for the destination picks a real server (weight shares for rr/wrr;
 * for the other schedulers the same shares are shown, labelled) and forwards the connection there.
 */
function ipvsSelect(tracer: Tracer, s: State): { states: State[]; rejected: State[]; passthrough: boolean } {
  const found = tracer.ipvs ? ipvsIndex(tracer.ipvs).byTuple.get(`${s.protocol}|${addressKey(s.dst)}|${s.dport}`) : undefined;
  if (!found) return { states: [s], rejected: [], passthrough: true };
  const { vs, fileIndex } = found;
  const step = (st: State, note: string) =>
    st.path.push({ fileIndex, line: vs.range.start.line, range: vs.range, table: 'ipvs', chain: vs.name, text: vs.name, note });
  if (vs.realServers.length === 0) {
    step(s, t('IPVS: the virtual service has no real servers; the client gets ICMP port unreachable.'));
    return { states: [], rejected: [s], passthrough: false };
  }
  // A server the dump does not spell an address for (a broken line) cannot take connections: its share would vanish.
  const eligible: { r: RealServer; addr: Address }[] = [];
  for (const r of vs.realServers) {
    const addr = r.weight > 0 ? parseAddress(r.address) : undefined;
    if (addr) eligible.push({ r, addr });
    else if (r.weight > 0) tracer.warnings.push(t('IPVS: real server {0} of {1} has no address the trace can read: left out of the shares.', r.address, vs.name));
  }
  if (eligible.length === 0) {
    step(s, t('IPVS: no real server of the virtual service takes new connections; the client gets ICMP port unreachable.'));
    return { states: [], rejected: [s], passthrough: false };
  }
  const total = eligible.reduce((n, { r }) => n + (vs.scheduler === 'rr' ? 1 : r.weight), 0);
  const states: State[] = [];
  const predictable = vs.scheduler === 'rr' || vs.scheduler === 'wrr';
  for (const { r, addr } of eligible) {
    const share = (vs.scheduler === 'rr' ? 1 : r.weight) / total;
    const st = tracer.budget.branch(s);
    if (!st) break; // the trace stopped: traceIptables says so
    st.probability *= share;
    st.dst = addr;
    st.dstText = formatAddress(addr);
    if (r.port !== undefined) st.dport = r.port;
    st.dnat = true;
    if (!predictable) st.assumptions.push(t('IPVS scheduler {0} decides by live state; shown: the weight shares', vs.scheduler ?? 'wlc'));
    if (vs.persistent) st.notes.push(t('Persistence {0} s: a returning client goes back to the real server it used before.', vs.persistent.timeout));
    step(st, t('IPVS {0}: real server {1} ({2} of new connections).', vs.scheduler ?? 'wlc', hostPort(st.dstText, st.dport), `${Number((share * 100).toPrecision(4))}%`));
    states.push(st);
  }
  return { states, rejected: [], passthrough: false };
}

interface ChainIndex {
  /** Rule positions by their host destination (`-d A/32`). */
  byHost: Map<string, number[]>;
  /** Positions of the other rules with a protocol and one destination port (KUBE-NODEPORTS), by `proto/port`. */
  byPort: Map<string, number[]>;
  /** Positions of the remaining rules: always candidates. */
  other: number[];
}

const chainIndexes = new WeakMap<Chain, ChainIndex>();

/**
 * The address as formatAddress writes it when `address` (with prefix length `bits`, when given apart) is one host:
 * `-d A/32` or `A/128`, an ipset member; undefined for networks, lists and anything else.
 */
function hostOf(address: string, bits?: number): string | undefined {
  // kube-proxy's `-d 10.96.0.10/32`: already canonical, no number to build.
  if (bits === undefined && address.endsWith('/32')) return hostOf(address.slice(0, -3), 32);
  if ((bits === undefined || bits === 32) && isIpv4(address)) return address;
  const prefix = address.includes(',') ? undefined : parsePrefix(bits !== undefined ? `${address}/${bits}` : address);
  return prefix && prefix.bits === (prefix.family === 4 ? 32 : 128) ? formatAddress({ family: prefix.family, value: prefix.network }) : undefined;
}

/**
 * The rules of a big chain (KUBE-SERVICES, KUBE-NODEPORTS of a large cluster) that can match a packet to `dst`,
 * `protocol`/`dport`, in rule order: those whose host `-d` is `dst`, those whose protocol and `--dport` are the
 * packet's, and every rule that says neither. Exact while the packet stays in the chain: its destination does not
 * change there (DNAT ends it).
 */
function candidateRules(chain: Chain, dst: Address, protocol: string, dport: number): Rule[] {
  let index = chainIndexes.get(chain);
  if (!index) {
    index = { byHost: new Map(), byPort: new Map(), other: [] };
    const add = (map: Map<string, number[]>, key: string, i: number) => {
      const list = map.get(key);
      if (list) list.push(i);
      else map.set(key, [i]);
    };
    chain.rules.forEach((rule, i) => {
      const d = plainParam(rule, '-d');
      const host = d === undefined ? undefined : hostOf(d);
      if (host !== undefined) return add(index!.byHost, host, i);
      // A network `-d` is left to quickFilter: the rule is a candidate for its port or in `other`.
      const { proto, port } = protocolAndPort(rule);
      if (proto !== undefined && port !== undefined) add(index!.byPort, `${proto}/${port}`, i);
      else index!.other.push(i);
    });
    chainIndexes.set(chain, index);
  }
  const lists = [index.byHost.get(formatAddress(dst)), index.byPort.get(`${protocol}/${dport}`), index.other].filter((l): l is number[] => l !== undefined && l.length > 0);
  if (lists.length === 1) return lists[0].map((i) => chain.rules[i]);
  // Merge ascending position lists: rule order is what iptables evaluates.
  const positions = lists.flat().sort((a, b) => a - b);
  return positions.map((i) => chain.rules[i]);
}

const quickFilters = new WeakMap<Rule, ((s: State) => boolean) | null>();
const DPORT = ['--dport'] as const;

/**
 * A rule's plain `-p` (its name in lower case) and, for tcp / udp / sctp, the `-m tcp --dport N` of kube-proxy's
 * NodePort rules when the line tells it without reading the rule's details: necessary conditions of the rule.
 */
function protocolAndPort(rule: Rule): { proto?: string; port?: number } {
  const p = plainParam(rule, '-p');
  const proto = p !== undefined ? (PROTOCOL_NUMBERS[p] ?? p.toLowerCase()) : undefined;
  const dport = proto === 'tcp' || proto === 'udp' || proto === 'sctp' ? rule.peekMatchOptions?.(proto, DPORT)?.[0] : undefined;
  const port = dport !== undefined && /^\d{1,5}$/.test(dport) ? Number(dport) : undefined;
  return { proto, port };
}

/**
 * A cheap necessary condition of a rule (its plain `-d` prefix, `-p` and `--dport`, and a plain `-s` host), compiled
 * once per rule.
 */
function quickFilter(rule: Rule): ((s: State) => boolean) | null {
  let f = quickFilters.get(rule);
  if (f !== undefined) return f;
  f = null;
  const d = plainParam(rule, '-d');
  const prefix = d !== undefined && !d.includes(',') ? parsePrefix(d) : undefined;
  const { proto, port } = protocolAndPort(rule);
  // A source host (IPVS mode's KUBE-IPVS-OUT-FILTER: one `-s IP/32 … -j DROP` per load-balancer IP, hundreds
  // visited by every state of a trace from the node).
  const sv = plainParam(rule, '-s');
  const source = sv !== undefined && !sv.includes(',') ? parsePrefix(sv) : undefined;
  const sourceHost = source && source.bits === (source.family === 4 ? 32 : 128) ? source : undefined;
  const sourceOk = sourceHost === undefined ? undefined : (s: State) => s.src.value === sourceHost.network && s.src.family === sourceHost.family;
  if (prefix || (proto && proto !== 'all')) {
    const host = prefix && prefix.bits === (prefix.family === 4 ? 32 : 128) ? prefix.network : undefined;
    const protoOk = (s: State) => (!proto || proto === 'all' || proto === s.protocol) && (port === undefined || port === s.dport) && (sourceOk === undefined || sourceOk(s));
    // A host address (kube-proxy's `-d VIP/32`) is one bigint comparison, no shifting.
    f = host !== undefined
      ? (s: State) => protoOk(s) && s.dst.value === host && s.dst.family === prefix!.family
      : (s: State) => protoOk(s) && (!prefix || prefixContains(prefix, s.dst));
  } else if (sourceOk !== undefined) f = sourceOk;
  quickFilters.set(rule, f);
  return f;
}

export function negate(c: Cond): Cond {
  if (c.kind === 'certain') return certain(!c.value);
  if (c.kind === 'random') return { kind: 'random', p: 1 - c.p, label: c.label };
  return { ...c, label: c.labelNot, labelNot: c.label, negated: !c.negated };
}

/** --tcp-flags MASK COMP for the first packet of a connection (SYN only). */
function tcpFlagsMatchSyn(values: string[]): boolean {
  const flags = (s: string) => new Set(s === 'ALL' ? ['SYN', 'ACK', 'FIN', 'RST', 'URG', 'PSH'] : s === 'NONE' ? [] : s.split(','));
  const mask = flags(values[0] ?? 'NONE');
  const comp = flags(values[1] ?? 'NONE');
  for (const f of mask) if ((f === 'SYN') !== comp.has(f)) return false;
  return true;
}

/** `VALUE[/MASK]` (decimal or 0x hex, 32 bits), or undefined when iptables would refuse it. */
export function markValue(text: string): { value: number; mask: number } | undefined {
  const [v, m, extra] = text.split('/');
  const num = (x: string) => (/^(0x[0-9a-f]{1,8}|\d{1,10})$/i.test(x) && Number(x) <= 0xffffffff ? Number(x) : undefined);
  const value = num(v);
  const mask = m === undefined ? 0xffffffff : num(m);
  return value === undefined || mask === undefined || extra !== undefined ? undefined : { value, mask };
}

/** MARK's options; a value iptables would refuse changes nothing. */
export function applyMark(mark: number, options: Option[]): number {
  for (const o of options) {
    const vm = markValue(o.values[0] ?? '');
    if (!vm) continue;
    const { value, mask } = vm;
    switch (o.name) {
      case '--set-xmark':
        mark = ((mark & ~mask) ^ value) >>> 0;
        break;
      case '--set-mark':
        mark = ((mark & ~mask) | value) >>> 0;
        break;
      case '--or-mark':
        mark = (mark | value) >>> 0;
        break;
      case '--and-mark':
        mark = (mark & value) >>> 0;
        break;
      case '--xor-mark':
        mark = (mark ^ value) >>> 0;
        break;
    }
  }
  return mark;
}

const hex = (n: number) => `0x${n.toString(16)}`;
const fmtP = (p: number) => `${Number((p * 100).toPrecision(6))}%`;

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
  const percent = p * 100;
  return percent < 0.01 ? '< 0.01%' : percent > 99.99 ? '> 99.99%' : `${Number(percent.toPrecision(4))}%`;
}

/** How a share came about: what reached the rule times the rule's own chance, when something came before. */
export const shareChain = (before: number, p: number): string =>
  before < 1 ? `${shareText(before)} × ${shareText(p)} = ${shareText(before * p)}` : shareText(p);

/** `ip:port` (IPv6 in brackets): the one formatter, under the name the trace modules use. */
export const hostPort = formatHostPort;

/** Traces the first packet of a new connection through one iptables ruleset. */
export function traceIptables(ruleset: IptablesRuleset, packet: Packet, context: TraceContext, fileIndex = 0, ipvs?: IpvsTraceInput): TraceResult {
  const src = parseAddress(packet.src);
  const dst = parseAddress(packet.dst);
  const warnings: string[] = [];
  if (!src || !dst || src.family !== dst.family) {
    return { packet, outcomes: [], warnings: [t('Source and destination must be addresses of the same family.')], context };
  }
  const family = dst.family === 4 ? 'ipv4' : 'ipv6';
  const tracer = new Tracer(ruleset, fileIndex, context, family, ipvs);
  tracer.entry = packet.entry;
  if (!ruleset.tables.some((tb) => tb.family === family)) {
    warnings.push(t('The dump has no {0} tables: nothing filters or rewrites this packet.', family === 'ipv4' ? 'IPv4' : 'IPv6'));
  }
  const finals: { state: State; verdict: Verdict }[] = [];
  const start = [tracer.initialState(packet)];
  const deliver = (states: State[]) => {
    for (const s of states) finals.push({ state: s, verdict: s.dnat ? 'dnat' : 'accept' });
  };
  // Hook order at LOCAL_IN: mangle (-150), filter (0), security (50), IPVS (99), nat (100, source NAT).
  const INPUT_BEFORE_IPVS = ['mangle', 'filter', 'security'];
  const hook = (name: string, tables: string[], states: State[]) => {
    const r = tracer.runHook(name, tables, states);
    appendAll(finals, r.ended);
    return r.passed;
  };
  /**
   * IPVS at LOCAL_IN: the virtual service picks a real server. A local one takes the packet on through LOCAL_IN;
   * any other gets it re-injected at LOCAL_OUT (ip_vs_nat_send_or_cont, ip_vs_send_or_cont): the OUTPUT chains see
   * it, except nat's (the connection's destination NAT was decided when it began), then POSTROUTING, where nat runs
   * only if no source NAT was decided yet (`natDone`: a packet from this node passed nat POSTROUTING on its way out).
   */
  const ipvsThen = (states: State[], natDone: boolean) => {
    const picked = states.map((s) => ipvsSelect(tracer, s));
    for (const p of picked) for (const r of p.rejected) finals.push({ state: r, verdict: 'reject' });
    const chosen = picked.flatMap((p) => (p.passthrough ? [] : p.states));
    const local = [...picked.flatMap((p) => (p.passthrough ? p.states : [])), ...chosen.filter((s) => tracer.isLocal(s.dst))];
    deliver(natDone ? local : hook('INPUT', ['nat'], local));
    const sent = chosen.filter((s) => !tracer.isLocal(s.dst));
    for (const s of sent) {
      const last = s.path[s.path.length - 1];
      if (last) s.path[s.path.length - 1] = { ...last, note: `${last.note} ${t('IPVS sends it on through LOCAL_OUT: the OUTPUT chains of raw, mangle and filter see it (nat OUTPUT does not: the connection\'s NAT was decided when it began).')}` };
    }
    const out = hook('OUTPUT', ['raw', 'mangle', 'filter', 'security'], sent);
    deliver(hook('POSTROUTING', natDone ? ['mangle'] : ['mangle', 'nat'], out));
  };
  const run = (entry: Entry) => {
    if (entry === 'node') {
      const out = hook('OUTPUT', ['raw', 'mangle', 'nat', 'filter', 'security'], start);
      const post = hook('POSTROUTING', ['mangle', 'nat'], out);
      // A locally generated packet to a local address loops back through INPUT (its NAT was decided on the way out).
      const local = post.filter((s) => tracer.isLocal(s.dst));
      deliver(post.filter((s) => !tracer.isLocal(s.dst)));
      const input = hook('INPUT', INPUT_BEFORE_IPVS, local);
      if (ipvs?.services.length) ipvsThen(input, true);
      else deliver(input);
      return;
    }
    const pre = hook('PREROUTING', ['raw', 'mangle', 'nat'], start);
    const input = hook('INPUT', INPUT_BEFORE_IPVS, pre.filter((s) => tracer.isLocal(s.dst)));
    if (ipvs?.services.length) ipvsThen(input, false);
    else deliver(hook('INPUT', ['nat'], input));
    const fwd = hook('FORWARD', ['mangle', 'filter', 'security'], pre.filter((s) => !tracer.isLocal(s.dst)));
    deliver(hook('POSTROUTING', ['mangle', 'nat'], fwd));
  };
  run(packet.entry);
  const outcomes = mergeOutcomes(finals);
  // A trace that hit a cap must not read as a complete answer: its warning comes first.
  const stopped = tracer.budget.warning(outcomes);
  // With no table of the family at all, the warning above says it once.
  const missing = warnings.length === 0 ? tracer.missing.warnings(family === 'ipv4' ? 'IPv4' : 'IPv6') : [];
  return { packet, outcomes, warnings: [...(stopped ? [stopped] : []), ...warnings, ...missing, ...dedupe(tracer.warnings)], context };
}

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
    const outcome: Merged = { verdict, probability: state.probability, masquerade: state.masquerade, assumptions: [], conditions: state.facts, path: state.path, notes: [...new Set(state.notes)], best: state.probability, others: [...new Set(state.assumptions)] };
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
  return mergeAlike(items.map((o) => ({ ...o, conditions: essential(o.conditions.filter((c) => !c.given)) })), alike, join)
    .map(({ best: _best, others, ...o }) => ({ ...o, assumptions: [...o.conditions.map((c) => c.label), ...others] }))
    .sort((a, b) => b.probability - a.probability || a.conditions.length - b.conditions.length || (a.destination ?? a.verdict).localeCompare(b.destination ?? b.verdict));
}

/** Comments give a step its kube-proxy meaning; used by callers that print paths. */
export function stepComment(rule: Rule): string | undefined {
  return ruleComment(rule);
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
