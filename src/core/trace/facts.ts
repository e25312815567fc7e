// Conditions the dumps cannot decide (an interface, ipset membership without the ipset dump, a module whose state
// lives elsewhere) are facts about the packet: decided once on a path, where the path first tests them, and then
// carried along it. A later test of the same condition follows the branch already taken, so no outcome assumes a
// condition and its negation. Facts split outcomes but carry no probability: an outcome's share is its share of new
// connections under its conditions (statistic, numgen and IPVS weights only).
import type { Condition, IfaceTest, Outcome } from './types';

export type Fact = Condition;

/** An undecided condition (Cond's 'assume'): `negated` when the rule tests its negation. */
export interface Assumption {
  key: string;
  label: string;
  labelNot: string;
  negated?: boolean;
  iface?: IfaceTest;
}

type Names = { exact: string } | { prefix: string };

function names(name: string): Names {
  return name.endsWith('+') || name.endsWith('*') ? { prefix: name.slice(0, -1) } : { exact: name };
}

/** How the names `a` stands for relate to those of `b`: 'sub' (a ⊆ b), 'super' (a ⊇ b), 'same', 'apart' or 'overlap'. */
function relation(a: string, b: string): 'same' | 'sub' | 'super' | 'apart' {
  const x = names(a);
  const y = names(b);
  if ('exact' in x && 'exact' in y) return x.exact === y.exact ? 'same' : 'apart';
  if ('exact' in x && 'prefix' in y) return x.exact.startsWith(y.prefix) ? 'sub' : 'apart';
  if ('prefix' in x && 'exact' in y) return y.exact.startsWith(x.prefix) ? 'super' : 'apart';
  const p = (x as { prefix: string }).prefix;
  const q = (y as { prefix: string }).prefix;
  return p === q ? 'same' : q.startsWith(p) ? 'super' : p.startsWith(q) ? 'sub' : 'apart';
}

/**
 * What the path's facts already say about a condition (true: it holds, false: it does not, undefined: not decided).
 * An interface is one name: arriving on eth0 decides every other `-i` test too.
 */
export function known(facts: readonly Fact[], a: Assumption): boolean | undefined {
  let holds: boolean | undefined;
  for (const f of facts) {
    if (f.key === a.key) holds = f.holds;
    else if (a.iface && f.iface && f.iface.dir === a.iface.dir) {
      const r = relation(f.iface.name, a.iface.name);
      if (f.holds && (r === 'same' || r === 'sub')) holds = true;
      else if (f.holds && r === 'apart') holds = false;
      else if (!f.holds && (r === 'same' || r === 'super')) holds = false;
    }
    if (holds !== undefined) return holds !== Boolean(a.negated);
  }
  return undefined;
}

/** The fact a branch takes on: the rule's test matched (`matched`) or not. */
export function factOf(a: Assumption, matched: boolean): Fact {
  const fact: Fact = { key: a.key, holds: matched !== Boolean(a.negated), label: matched ? a.label : a.labelNot };
  if (a.iface) fact.iface = a.iface;
  return fact;
}

const conditionKey = (c: Condition) => `${c.holds ? '+' : '-'}${c.key}`;

/** The canonical text of a set of conditions (order does not matter). */
export function conditionsKey(conditions: readonly Condition[]): string {
  return conditions.map(conditionKey).sort().join('\u0000');
}

/** Can one packet meet both sets of conditions? (An interface is one name: arriving on eth0 and on eth1 cannot.) */
export function compatible(a: readonly Condition[], b: readonly Condition[]): boolean {
  if (a.length === 0 || b.length === 0) return true;
  return b.every((c) => known(a, { key: c.key, label: '', labelNot: '', iface: c.iface }) !== !c.holds);
}

/**
 * Merges outcomes that differ only in one condition taken both ways and are otherwise `alike` (verdict,
 * destination, masquerade, share): that condition does not change what happens, so it is dropped. Repeated until
 * nothing merges.
 */
export function mergeComplements<T extends { conditions: Condition[]; probability: number }>(items: T[], alike: (a: T, b: T) => boolean): T[] {
  let list = items;
  for (let merged = true; merged; ) {
    merged = false;
    const byKey = new Map<string, number>();
    list.forEach((o, i) => byKey.set(conditionsKey(o.conditions), i));
    const used = new Set<number>();
    const next: T[] = [];
    list.forEach((o, i) => {
      if (used.has(i)) return;
      for (const c of o.conditions) {
        const j = byKey.get(conditionsKey(o.conditions.map((x) => (x === c ? { ...x, holds: !x.holds } : x))));
        if (j === undefined || j === i || used.has(j) || Math.abs(list[j].probability - o.probability) > 1e-12 || !alike(o, list[j])) continue;
        used.add(i).add(j);
        next.push({ ...o, conditions: o.conditions.filter((x) => x !== c) });
        merged = true;
        return;
      }
      used.add(i);
      next.push(o);
    });
    list = next;
  }
  return list;
}

/**
 * Groups of outcomes that can happen together: for each distinct set of conditions among the outcomes, the outcomes
 * compatible with it (their shares sum to 1 in a complete trace). At most `max` groups (the first ones).
 */
export function assumptionGroups(outcomes: readonly Outcome[], max = 256): number[][] {
  const seen = new Set<string>();
  const groups: number[][] = [];
  for (const o of outcomes) {
    const key = conditionsKey(o.conditions);
    if (seen.has(key)) continue;
    seen.add(key);
    groups.push(outcomes.flatMap((x, i) => (compatible(o.conditions, x.conditions) ? [i] : [])));
    if (groups.length >= max) break;
  }
  return groups;
}

/** The share of new connections the outcomes `pick` selects, under the assumptions that give them the most. */
export function largestShare(outcomes: readonly Outcome[], pick: (o: Outcome) => boolean, groups = assumptionGroups(outcomes)): number {
  let best = 0;
  for (const g of groups) {
    let sum = 0;
    for (const i of g) if (pick(outcomes[i])) sum += outcomes[i].probability;
    best = Math.max(best, sum);
  }
  return best;
}

/** The share of new connections the outcomes cover under the assumptions that give them the least (1 when complete). */
export function coveredShare(outcomes: readonly Outcome[]): number {
  const groups = assumptionGroups(outcomes);
  if (groups.length === 0) return 0;
  return Math.min(...groups.map((g) => g.reduce((s, i) => s + outcomes[i].probability, 0)));
}
