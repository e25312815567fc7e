// The iptables packet simulator: a general netfilter evaluator over the iptables model (DESIGN §5), not a
// kube-proxy pattern matcher. The engine (engine.ts) walks the hooks and chains; this file is iptables' part:
// tables per hook, rules matched option by option (branching with probabilities on random matches and with
// labelled assumptions on conditions the packet does not decide), targets, and IPVS at LOCAL_IN.
import type { Chain, IptablesRuleset, Match, Option, Rule, Table, Target } from '../model/iptables';
import { plainParam } from '../model/iptables';
import { t } from '../l10n';
import { formatAddress, parseAddress, parsePrefix, prefixContains, type Address } from '../model/address';
import type { Packet, PathStep, TraceContext, TraceResult } from './types';
import {
  applyDnat,
  assume,
  assumeMatch,
  branchOn,
  certain,
  hostPort,
  ifaceCond,
  negate,
  no,
  shareChain,
  shareText,
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
  type HookWalk,
  type State,
} from './engine';
import { inferredMember, inferredNote } from './ipvs-sets';
import { hostOf, ipsetContains } from './ipset';
import { ipvsAddresses, ipvsSelect, type IpvsTraceInput } from './ipvs';
import { recentMatch } from './recent';

export type { IpvsTraceInput } from './ipvs';

/** A `-m recent` match, evaluated per branch (it reads and records what the path did to its list). */
type RecentMatch = { kind: 'recent'; m: Match };

/** Names iptables resolves when it loads the rule (not numbers, prefixes or IPv6 text). */
const isHostName = (text: string) => /^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?$/.test(text) && !/^[\d.]+$/.test(text);

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

/** The tables on each hook, in the kernel's order (INPUT's nat runs after IPVS: localIn). */
const HOOK_TABLES: Record<Hook, [string, string[]]> = {
  prerouting: ['PREROUTING', ['raw', 'mangle', 'nat']],
  input: ['INPUT', ['mangle', 'filter', 'security', 'nat']],
  forward: ['FORWARD', ['mangle', 'filter', 'security']],
  output: ['OUTPUT', ['raw', 'mangle', 'nat', 'filter', 'security']],
  postrouting: ['POSTROUTING', ['mangle', 'nat']],
};

// Hook order at LOCAL_IN: mangle (-150), filter (0), security (50), IPVS (99), nat (100, source NAT).
const INPUT_BEFORE_IPVS = ['mangle', 'filter', 'security'];

/** The iptables dialect of the walker: tables by name, rules matched option by option, targets. */
class Tracer extends Walker<Table, Chain, Rule> {
  constructor(
    private readonly ruleset: IptablesRuleset,
    fileIndex: number,
    context: TraceContext,
    private readonly family: 'ipv4' | 'ipv6',
    readonly ipvs?: IpvsTraceInput,
  ) {
    // Addresses bound on kube-ipvs0 (every virtual service address) are local to the node.
    super(fileIndex, context, ipvs ? ipvsAddresses(ipvs) : undefined);
    if (!ruleset.tables.some((tb) => tb.family === family)) {
      this.lead.push(t('The dump has no {0} tables: nothing filters or rewrites this packet.', family === 'ipv4' ? 'IPv4' : 'IPv6'));
    }
  }

  private table(name: string): Table | undefined {
    return this.ruleset.tables.find((tb) => tb.name === name && tb.family === this.family);
  }

  // In a big chain (KUBE-SERVICES, KUBE-NODEPORTS of a large cluster) visit only the rules that can match this
  // packet's destination (see candidateRules).
  protected rulesOf(chain: Chain, states: readonly State[]): readonly Rule[] {
    return states.length === 1 && chain.rules.length > 256 ? candidateRules(chain, states[0].dst, states[0].protocol, states[0].dport) : chain.rules;
  }

  // Most rules of a big KUBE-SERVICES chain fail on the destination: decide that without the full evaluation.
  protected override prefilter(rule: Rule): ((s: State) => boolean) | null {
    return quickFilter(rule);
  }

  private step(state: State, table: Table, rule: Rule, note: string): void {
    state.afterMiss = undefined;
    state.path.push({ fileIndex: this.fileIndex, line: rule.range.start.line, range: rule.range, table: table.name, chain: rule.chain, text: rule.raw.trim(), note });
  }

  /** The hook being run (REDIRECT's new address depends on it). */
  private hookName = '';

  override hook(name: Hook, states: State[]): { passed: State[]; ended: Final[] } {
    const [chain, tables] = HOOK_TABLES[name];
    return this.runTables(chain, tables, states);
  }

  /** Runs one hook (e.g. PREROUTING) through the given tables that have it, in the kernel's table order. */
  private runTables(hook: string, tables: string[], states: State[]): { passed: State[]; ended: Final[] } {
    let live = states;
    const ended: Final[] = [];
    for (const name of tables) {
      const table = this.table(name);
      const chain = table?.chainByName.get(hook);
      if (!table || !chain) {
        if (live.length > 0) this.missing.iptables(name, hook, table !== undefined);
        continue;
      }
      this.hookName = hook;
      // End of a built-in chain: its policy decides.
      const policy = chain.policy ?? 'ACCEPT';
      const drop =
        policy === 'DROP'
          ? (): PathStep => ({
              fileIndex: this.fileIndex,
              line: chain.range.start.line,
              range: chain.range,
              table: table.name,
              chain: hook,
              text: chain.range.start.line >= 0 ? `:${hook} ${policy}` : hook,
              note: t('No rule decided: the policy of {0} drops the packet.', hook),
            })
          : undefined;
      live = this.runBase(table, chain, live, drop, ended);
    }
    return { passed: live, ended };
  }

  /**
   * INPUT up to IPVS, then without IPVS its nat table (from the node: none, the connection's NAT was decided on the
   * way out) and the packet is delivered; with IPVS the virtual service picks a real server (ipvsThen).
   */
  override localIn(walk: HookWalk, states: State[], fromNode: boolean): void {
    const input = walk.take(this.runTables('INPUT', INPUT_BEFORE_IPVS, states));
    if (this.ipvs?.services.length) this.ipvsThen(walk, input, fromNode);
    else walk.deliver(fromNode ? input : walk.take(this.runTables('INPUT', ['nat'], input)));
  }

  /**
   * IPVS at LOCAL_IN: the virtual service picks a real server. A local one takes the packet on through LOCAL_IN;
   * any other gets it re-injected at LOCAL_OUT (ip_vs_nat_send_or_cont, ip_vs_send_or_cont): the OUTPUT chains see
   * it, except nat's (the connection's destination NAT was decided when it began), then POSTROUTING, where nat runs
   * only if no source NAT was decided yet (`natDone`: a packet from this node passed nat POSTROUTING on its way out).
   */
  private ipvsThen(walk: HookWalk, states: State[], natDone: boolean): void {
    const picked = states.map((s) => ipvsSelect(this.ipvs, this.budget, this.warnings, s));
    for (const p of picked) for (const r of p.rejected) walk.finals.push({ state: r, verdict: 'reject' });
    const chosen = picked.flatMap((p) => (p.passthrough ? [] : p.states));
    const local = [...picked.flatMap((p) => (p.passthrough ? p.states : [])), ...chosen.filter((s) => this.isLocal(s.dst))];
    walk.deliver(natDone ? local : walk.take(this.runTables('INPUT', ['nat'], local)));
    const sent = chosen.filter((s) => !this.isLocal(s.dst));
    for (const s of sent) {
      const last = s.path[s.path.length - 1];
      if (last)
        s.path[s.path.length - 1] = {
          ...last,
          note: `${last.note} ${t("IPVS sends it on through LOCAL_OUT: the OUTPUT chains of raw, mangle and filter see it (nat OUTPUT does not: the connection's NAT was decided when it began).")}`,
        };
    }
    const out = walk.take(this.runTables('OUTPUT', ['raw', 'mangle', 'filter', 'security'], sent));
    walk.deliver(walk.take(this.runTables('POSTROUTING', natDone ? ['mangle'] : ['mangle', 'nat'], out)));
  }

  protected runRule(frame: Frame<Table, Chain>, rule: Rule, state: State, flow: Flow): void {
    for (const { state: s, matched, note } of this.matchRule(rule, state)) {
      if (!matched) {
        // A random rule not taken is a step: the share that goes on is part of the path.
        if (note) {
          this.step(s, frame.table, rule, note);
          s.afterMiss = rule.chain;
        }
        flow.next.push(s);
        continue;
      }
      this.applyTarget(frame, rule, s, note, flow);
    }
  }

  private applyTarget(frame: Frame<Table, Chain>, rule: Rule, s: State, matchNote: string, flow: Flow): void {
    const { table } = frame;
    const target = rule.target;
    const note = (text: string) => [matchNote, text].filter(Boolean).join(' ');
    if (target?.kind === 'jump' || target?.kind === 'goto') {
      this.step(s, table, rule, note(target.kind === 'jump' ? t('Jump to {0}.', target.name) : t('Go to {0} (no return here).', target.name)));
      this.call(frame, target.kind, table.chainByName.get(target.name), target.name, s, flow);
      return;
    }
    const [text, end] = this.targetEffect(target, s);
    this.step(s, table, rule, note(text));
    if (end) flow.ended.push({ state: s, end });
    else flow.next.push(s);
  }

  /** What a target (not a jump) does to the state: what its step says, and how the chain ends (none: it goes on). */
  private targetEffect(target: Target | undefined, s: State): [string, End | undefined] {
    if (!target) return [t('No target: the rule only counts the packet.'), undefined];
    switch (target.kind) {
      case 'return':
        return [t('RETURN to the calling chain.'), 'return'];
      case 'verdict':
        if (target.name === 'ACCEPT') return [t('ACCEPT: this table lets the packet through.'), 'accept'];
        if (target.name === 'DROP') return [t('DROP: the packet is discarded; the client times out.'), 'drop'];
        return [t('{0}: handed to user space; treated as accepted.', target.name), 'accept'];
      case 'reject':
        return [t('REJECT: the client gets an error at once.'), 'reject'];
      case 'dnat': {
        const to = target.options.find((o) => o.name === '--to-destination')?.values[0];
        const rewritten = to ? this.rewrite(s, to) : false;
        return [rewritten ? t('DNAT: the destination becomes {0}.', `${hostPort(s.dstText, s.dport)}`) : t('DNAT without a usable --to-destination.'), 'accept'];
      }
      case 'redirect': {
        const ports = target.options.find((o) => o.name === '--to-ports')?.values[0];
        // The kernel (nf_nat_redirect) sends a locally generated packet to loopback, others to the incoming interface's address.
        const loopback = s.dst.family === 4 ? '127.0.0.1' : '::1';
        const local = this.hookName === 'OUTPUT' ? loopback : (this.context.nodeIPs.find((ip) => parseAddress(ip)?.family === s.dst.family) ?? loopback);
        this.rewrite(s, ports ? `${local}:${ports.split(/[-:]/)[0]}` : local);
        return [t('REDIRECT to this node, port {0}.', s.dport), 'accept'];
      }
      case 'snat':
      case 'masquerade':
        s.masquerade = true;
        return [target.kind === 'masquerade' ? t("MASQUERADE: the source becomes the outgoing interface's address.") : t('SNAT: the source address is rewritten.'), 'accept'];
      case 'mark': {
        const before = s.mark;
        if (target.name === 'MARK') s.mark = applyMark(s.mark, target.options);
        return [target.name === 'MARK' ? t('MARK: packet mark {0} → {1}.', hex(before), hex(s.mark)) : t('{0}: non-terminating, continues.', target.name), undefined];
      }
      default:
        if (target.name === 'CT' || target.name === 'NOTRACK') return [t('{0}: connection tracking settings; continues.', target.name), undefined];
        return [t('{0}: non-terminating target; continues.', target.name), undefined];
    }
  }

  /** Applies `--to-destination ADDR[-ADDR][:PORT[-PORT]]` (IPv6 in brackets); ranges take their first value. */
  private rewrite(s: State, to: string): boolean {
    return applyDnat(s, ...targetParts(to, 'any'));
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
    switch (o.name) {
      case '-s':
      case '-d': {
        const addr = o.name === '-s' ? s.src : s.dst;
        const prefixes = v.split(',').map(parsePrefix);
        if (prefixes.some((p) => p === undefined)) {
          // A host name is resolved when the rule is loaded; anything else iptables refuses (a parser diagnostic).
          if (!v.split(',').every(isHostName)) return no;
          return neg(o, assume(`${o.name} ${v}`, t('assuming host name {0} matches {1}', v, o.name), t('assuming host name {0} does not match {1}', v, o.name)));
        }
        return neg(o, certain(prefixes.some((p) => prefixContains(p!, addr))));
      }
      case '-p': {
        const proto = PROTOCOL_NUMBERS[v] ?? v.toLowerCase();
        return neg(o, certain(proto === 'all' || proto === s.protocol));
      }
      case '-i':
      case '-o':
        return neg(o, ifaceCond(o.name === '-i' ? 'in' : 'out', v));
      case '-f':
        return neg(o, no); // the first packet of a connection is never a later fragment
      default:
        return yes;
    }
  }

  private match(m: Match, s: State, rule: Rule): Cond[] {
    switch (m.module) {
      case 'comment':
      case 'nfacct':
        return [yes];
      case 'tcp':
      case 'udp':
      case 'sctp':
      case 'udplite':
      case 'dccp':
        return m.module === s.protocol ? portConds(m.options, s, false) : [no];
      case 'multiport':
        return portConds(m.options, s, true);
      case 'addrtype':
        return this.addrtype(m, s);
      case 'mark':
        return m.options
          .filter((o) => o.name === '--mark')
          .map((o) => {
            const vm = markValue(o.values[0] ?? '');
            return vm ? neg(o, certain((s.mark & vm.mask) >>> 0 === (vm.value & vm.mask) >>> 0)) : this.refused(rule, `--mark ${o.values[0] ?? ''}`);
          });
      case 'conntrack':
      case 'state':
        return conntrackConds(m.options, s);
      case 'statistic':
        return [this.statistic(m, rule)];
      case 'icmp':
      case 'icmp6':
        return [no];
      case 'limit':
      case 'hashlimit':
      case 'connlimit':
        // A rate limit is the state of this rule's own counter: each rule is a condition of its own.
        return [assume(`${rule.range.start.line} -m ${m.module}`, t('assuming -m {0} lets the packet through', m.module), t('assuming -m {0} holds the packet back', m.module))];
      case 'set':
        return [this.matchSet(m, s)];
      default: {
        if (m.options.length === 0) return [assumeMatch(`-m ${m.module}`)];
        // One fact per option, whatever its negation: `--uid-owner 1337` and `! --uid-owner 1337` test the same thing.
        return m.options.map((o) => {
          const label = `-m ${m.module} ${o.name} ${o.values.join(' ')}`.trim();
          return neg(o, assumeMatch(label));
        });
      }
    }
  }

  /** `-m addrtype --src-type/--dst-type`: LOCAL is what the trace knows (the node's addresses); other types are conditions. */
  private addrtype(m: Match, s: State): Cond[] {
    return m.options
      .filter((o) => o.name === '--src-type' || o.name === '--dst-type')
      .map((o) => {
        const addr = o.name === '--src-type' ? s.src : s.dst;
        const types = (o.values[0] ?? '').split(',');
        let c: Cond;
        if (types.every((x) => x === 'LOCAL')) c = certain(this.isLocal(addr));
        else if (types.includes('LOCAL') && this.isLocal(addr)) c = yes;
        else
          c = assume(
            `addrtype ${formatAddress(addr)} ${o.values[0] ?? ''}`,
            t('assuming {0} is of type {1}', formatAddress(addr), o.values[0] ?? ''),
            t('assuming {0} is not of type {1}', formatAddress(addr), o.values[0] ?? ''),
          );
        return neg(o, c);
      });
  }

  /** `-m statistic`: random and nth are shares of new connections; values iptables refuses match nothing, and say so. */
  private statistic(m: Match, rule: Rule): Cond {
    const opt = (name: string) => m.options.find((o) => o.name === name);
    const mode = opt('--mode')?.values[0];
    if (mode === 'random') {
      const o = opt('--probability');
      const text = o ? (o.values[0] ?? '') : '1';
      const p = Number(text);
      if (!(p >= 0 && p <= 1)) return this.refused(rule, `--probability ${text}`);
      return { kind: 'random', p, label: t('Taken with probability {0} (--probability).', fmtP(p)) };
    }
    if (mode === 'nth') {
      const o = opt('--every');
      const text = o ? (o.values[0] ?? '') : '1';
      const every = Number(text);
      if (!(Number.isInteger(every) && every >= 1)) return this.refused(rule, `--every ${text}`);
      return { kind: 'random', p: 1 / every, label: t('Taken by 1 in {0} new connections (--mode nth).', every) };
    }
    return yes;
  }

  /** `-m set --match-set NAME FLAGS`: decided by the ipset dump, else by what the IPVS table implies, else a condition. */
  private matchSet(m: Match, s: State): Cond {
    const o = m.options.find((x) => x.name === '--match-set');
    const name = o?.values[0] ?? '?';
    const set = this.ipvs?.sets.get(name);
    if (set && o) return neg(o, certain(ipsetContains(set, (o.values[1] ?? 'src').split(','), s)));
    const inferred = o && this.ipvs?.inferred ? inferredMember(this.ipvs.inferred, name, o.values[1] ?? 'src', s) : undefined;
    if (inferred !== undefined) {
      this.warnings.push(inferredNote());
      return neg(o!, certain(inferred));
    }
    const c = assume(`ipset ${name} ${o?.values[1] ?? 'src'}`, t('assuming the packet is in ipset {0}', name), t('assuming the packet is not in ipset {0}', name));
    return o ? neg(o, c) : c;
  }

  /** A match whose value the kernel would not load: no match, with a warning naming the rule. */
  private refused(rule: Rule, what: string): Cond {
    this.warnings.push(t('{0} at line {1} is not a valid value: the rule is taken not to match.', what, rule.range.start.line + 1));
    return no;
  }
}

/** An option's condition, inverted when the option is (`! --dport 80`). */
const neg = (o: Option, c: Cond): Cond => (o.negated ? negate(c) : c);

/** The port options of `-m tcp` (udp, sctp …) or, `multi`, of `-m multiport` for the first packet of a connection. */
function portConds(options: Option[], s: State, multi: boolean): Cond[] {
  const out: Cond[] = [];
  for (const o of options) {
    const spec = o.values[0] ?? '';
    let c: Cond | undefined;
    switch (multi ? `multiport ${o.name}` : o.name) {
      case '--dport':
      case 'multiport --dports':
        c = certain(portMatches(spec, s.dport));
        break;
      case '--sport':
      case 'multiport --sports':
        c = certain(portMatches(spec, s.sport));
        break;
      case 'multiport --ports':
        c = certain(portMatches(spec, s.dport) || portMatches(spec, s.sport));
        break;
      case '--syn':
        c = yes;
        break;
      case '--tcp-flags':
        c = certain(tcpFlagsMatchSyn(o.values));
        break;
    }
    if (c) out.push(neg(o, c));
  }
  return out;
}

/** `-m conntrack` / `-m state` for the first packet of a new connection (NEW, and DNAT once a DNAT rewrote it). */
function conntrackConds(options: Option[], s: State): Cond[] {
  const out: Cond[] = [];
  for (const o of options) {
    if (o.name === '--ctstate' || o.name === '--state') {
      const states = (o.values[0] ?? '').split(',');
      out.push(neg(o, certain(states.includes('NEW') || (states.includes('DNAT') && s.dnat))));
    } else if (o.name === '--ctstatus') {
      out.push(neg(o, no));
    } else if (o.name === '--ctorigdst' || o.name === '--ctorigsrc' || o.name === '--ctreplsrc' || o.name === '--ctrepldst') {
      out.push(neg(o, assume(`${o.name} ${o.values[0] ?? ''}`, t('assuming {0} {1} matches', o.name, o.values[0] ?? ''), t('assuming {0} {1} does not match', o.name, o.values[0] ?? ''))));
    } else if (o.name === '--ctproto') {
      out.push(neg(o, certain((PROTOCOL_NUMBERS[o.values[0] ?? ''] ?? o.values[0]) === s.protocol)));
    }
  }
  return out;
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
    f = host !== undefined ? (s: State) => protoOk(s) && s.dst.value === host && s.dst.family === prefix!.family : (s: State) => protoOk(s) && (!prefix || prefixContains(prefix, s.dst));
  } else if (sourceOk !== undefined) f = sourceOk;
  quickFilters.set(rule, f);
  return f;
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

/** Traces the first packet of a new connection through one iptables ruleset (and the IPVS table, in IPVS mode). */
export function traceIptables(ruleset: IptablesRuleset, packet: Packet, context: TraceContext, fileIndex = 0, ipvs?: IpvsTraceInput): TraceResult {
  return traceWith(packet, context, (family) => new Tracer(ruleset, fileIndex, context, family === 4 ? 'ipv4' : 'ipv6', ipvs));
}
