// Comparing the tracer's outcomes for one packet with what the kernel did to many such packets.
import type { Condition, Outcome, TraceResult } from '../../../src/core/trace';
import type { Via } from './scenarios';
import { chiSquare, type ChiSquare } from './stats';
import { NODE_LOCAL, OUTSIDE, type AttemptResult, type CtEntry } from './topology';

/**
 * One observable outcome: `dnat 10.244.1.1:8080` (+ ` masquerade` when the endpoint saw another source than
 * the client's own), `accept` (left the node unchanged: the world namespace answered; or delivered to the node
 * itself unchanged: its listener, where the topology has one, answered), `reject`
 * (ECONNREFUSED), `drop` (timeout; EPERM for a packet the node's own OUTPUT chain dropped), or `error CODE`
 * (never expected).
 */
export function outcomeKey(o: Outcome): string {
  if (o.verdict === 'dnat') return `dnat ${o.destination}${o.masquerade ? ' masquerade' : ''}`;
  return o.verdict;
}

export function observedKey(r: AttemptResult): string {
  switch (r.outcome) {
    case 'answer':
      if (r.name === OUTSIDE || r.name === NODE_LOCAL) return 'accept';
      return `dnat ${r.endpoint}${r.seen !== r.src ? ' masquerade' : ''}`;
    case 'refused':
      return 'reject';
    case 'timeout':
      return 'drop';
    case 'error':
      // A datagram dropped by the sender's own OUTPUT chain fails at once with EPERM (and no ICMP error follows).
      return r.code === 'EPERM' ? 'drop' : `error ${r.code ?? '?'}`;
  }
}

/** Whether an interface condition holds for the interfaces the packet really takes (undefined: not an interface condition). */
export function holdsVia(c: Condition, via: Via): boolean | undefined {
  if (!c.iface) return undefined;
  const name = c.iface.dir === 'in' ? via.in : via.out;
  const matches = (c.iface.anyOf ?? [c.iface.name]).some((n) => (/[+*]$/.test(n) ? name.startsWith(n.slice(0, -1)) : name === n));
  return matches === c.holds;
}

/**
 * The trace as it applies to a packet taking `via`: the outcomes whose conditions all hold there. Problems:
 * a condition that is not about an interface (the kernel tests decide only those), or shares that do not sum to 1.
 */
export function underInterfaces(result: TraceResult, via: Via): { result: TraceResult; problems: string[] } {
  const problems: string[] = [];
  for (const o of result.outcomes) for (const c of o.conditions) if (holdsVia(c, via) === undefined) problems.push(`condition not about an interface: ${c.label}`);
  const outcomes = result.outcomes.filter((o) => o.conditions.every((c) => holdsVia(c, via) === true));
  const total = outcomes.reduce((s, o) => s + o.probability, 0);
  if (Math.abs(total - 1) > 1e-6) problems.push(`the outcomes for in ${via.in}, out ${via.out} sum to ${total}, not 1`);
  return { result: { ...result, outcomes }, problems };
}

/** What the kernel's conntrack entry says it did to a connection: the same key as outcomeKey (DNAT, and SNAT as masquerade). */
export function conntrackKey(e: CtEntry): string {
  if (e.reply.src === e.orig.dst && e.reply.sport === e.orig.dport) return 'accept';
  return `dnat ${e.reply.src}:${e.reply.sport}${e.reply.dst !== e.orig.src ? ' masquerade' : ''}`;
}

/** observedKey, with a TCP attempt that connected but got no answer told apart from a drop (it never is one). */
export function attemptKey(r: AttemptResult): string {
  return r.outcome === 'timeout' && r.connected ? 'connected but no answer (a slow listener?)' : observedKey(r);
}

export function predicted(result: TraceResult): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of result.outcomes) out.set(outcomeKey(o), (out.get(outcomeKey(o)) ?? 0) + o.probability);
  return out;
}

export function tally(keys: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of keys) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

export interface Verdict {
  ok: boolean;
  problems: string[];
  chi?: ChiSquare;
}

/**
 * The observations agree with the prediction when: every observed outcome is predicted (probability > 0);
 * every predicted outcome was observed at least once, as long as missing it had a chance below 1e-9; and,
 * with two or more predicted outcomes, the counts pass a chi-square test at level alpha.
 */
export function judge(pred: Map<string, number>, observed: Map<string, number>, alpha: number): Verdict {
  const problems: string[] = [];
  const n = [...observed.values()].reduce((s, x) => s + x, 0);
  const expected = [...pred.entries()].filter(([, p]) => p > 0);
  for (const [k, c] of observed) {
    if (!expected.some(([e]) => e === k)) problems.push(`kernel did "${k}" ${c}×, which the trace does not predict`);
  }
  for (const [k, p] of expected) {
    if (!observed.has(k) && Math.pow(1 - p, n) < 1e-9) problems.push(`trace predicts "${k}" with probability ${p.toFixed(4)}, never seen in ${n} attempts`);
  }
  let chi: ChiSquare | undefined;
  if (problems.length === 0 && expected.length >= 2) {
    const total = expected.reduce((s, [, p]) => s + p, 0);
    chi = chiSquare(
      expected.map(([k]) => observed.get(k) ?? 0),
      expected.map(([, p]) => p / total),
    );
    if (chi.p < alpha) problems.push(`frequencies differ from the trace: chi² = ${chi.statistic.toFixed(2)}, df ${chi.df}, p = ${chi.p.toExponential(2)} < ${alpha}`);
  }
  return { ok: problems.length === 0, problems, chi };
}

export function describeTrace(result: TraceResult): string {
  const lines = result.outcomes.map((o) => {
    const steps = o.path.map((s) => `      ${s.table}/${s.chain}: ${s.text}`).join('\n');
    return `  ${(o.probability * 100).toFixed(3)}% ${outcomeKey(o)}${o.assumptions.length ? ` [${o.assumptions.join('; ')}]` : ''}\n${steps}`;
  });
  if (result.warnings.length) lines.push(`  warnings: ${result.warnings.join(' | ')}`);
  return lines.join('\n');
}

export function describeCounts(observed: Map<string, number>): string {
  return [...observed.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([k, c]) => `  ${c}× ${k}`)
    .join('\n');
}

/**
 * The kernel's own record of what it did to each answered attempt (its conntrack entry, by source address and
 * port) must say what the listener saw: the same endpoint, masqueraded or not.
 */
export function conntrackProblems(entries: CtEntry[], to: { protocol: string; address: string; port: number }, results: AttemptResult[]): string[] {
  const byFlow = new Map(entries.filter((e) => e.protocol === to.protocol && e.orig.dst === to.address && e.orig.dport === to.port).map((e) => [`${e.orig.src}:${e.orig.sport}`, e]));
  const problems: string[] = [];
  for (const r of results) {
    if (r.outcome !== 'answer' || r.src === null) continue;
    const e = byFlow.get(`${r.src}:${r.sport}`);
    if (!e) problems.push(`no conntrack entry for ${r.src}:${r.sport} → ${to.address}:${to.port}`);
    else if (conntrackKey(e) !== observedKey(r)) problems.push(`conntrack says "${conntrackKey(e)}" for ${r.src}:${r.sport}, the listener saw "${observedKey(r)}"`);
  }
  return problems;
}
