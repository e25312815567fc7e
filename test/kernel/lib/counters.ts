// Rule counters of the node namespace, to confirm a timeout: a connection that timed out twice is a drop only
// when the rule the trace names for it counted its packets while the same flow was sent again (lib/topology.ts).
import type { TraceResult } from '../../../src/core/trace';
import type { AttemptResult } from './topology';

/** A line without its counters: iptables-save -c's `[p:b]` (rules and chains), nft's `counter packets p bytes b`. */
function withoutCounters(line: string): string {
  return line
    .replace(/\[\d+:\d+\]/g, '')
    .replace(/counter packets \d+ bytes \d+/g, 'counter')
    .trim();
}

function packets(line: string): number | undefined {
  const m = /\[(\d+):\d+\]|counter packets (\d+) bytes/.exec(line);
  return m ? Number(m[1] ?? m[2]) : undefined;
}

/**
 * Packets counted per line of `saved` (the dump the tracer reads), from `counted` (the same ruleset listed with
 * counters): the n-th line of a text in one is the n-th line of that text in the other. Comments and lines
 * without a counter are left out.
 */
export function countersByLine(saved: string, counted: string): Map<number, number> {
  const seen = new Map<string, number[]>();
  for (const line of counted.split('\n')) {
    const n = packets(line);
    if (n === undefined || line.startsWith('#')) continue;
    const key = withoutCounters(line);
    seen.set(key, [...(seen.get(key) ?? []), n]);
  }
  const out = new Map<number, number>();
  const used = new Map<string, number>();
  saved.split('\n').forEach((line, i) => {
    const key = withoutCounters(line);
    const k = used.get(key) ?? 0;
    const n = line.startsWith('#') ? undefined : seen.get(key)?.[k];
    used.set(key, k + 1);
    if (n !== undefined) out.set(i, n);
  });
  return out;
}

/** What each counted line gained from `before` to `after`. */
export function countedBetween(before: Map<number, number>, after: Map<number, number>): Map<number, number> {
  return new Map([...after].map(([line, n]) => [line, n - (before.get(line) ?? 0)]));
}

/** The lines of the dump where the trace says a packet is dropped or accepted (the last step of each such path). */
export function verdictLines(trace: TraceResult): number[] {
  const lines = trace.outcomes.filter((o) => o.verdict === 'drop' || o.verdict === 'accept').map((o) => o.path.at(-1)?.line);
  return [...new Set(lines.filter((l): l is number => l !== undefined))];
}

/**
 * Problems with the attempts that timed out even when sent again: the rules the trace names for a drop or an
 * accept (where they carry counters) must have counted at least one packet per such attempt during the retry.
 * Without counters on those rules (nft rules without `counter`) nothing can be confirmed and nothing is said.
 */
export function unconfirmedTimeouts(trace: TraceResult, results: AttemptResult[], counted: Map<number, number> | undefined): string[] {
  const timeouts = results.filter((r) => r.outcome === 'timeout' && !r.connected).length;
  if (timeouts === 0 || !counted) return [];
  const lines = verdictLines(trace).filter((l) => counted.has(l));
  if (lines.length === 0) return [];
  const hits = lines.reduce((s, l) => s + counted.get(l)!, 0);
  if (hits >= timeouts) return [];
  return [
    `${timeouts} attempts timed out twice, but the rules the trace names (lines ${lines.map((l) => l + 1).join(', ')}) counted ${hits} packets while they were sent again: not a drop by those rules (a busy machine?)`,
  ];
}
