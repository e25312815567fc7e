// Conditions the dumps cannot decide (an interface, ipset membership without the ipset dump, a module whose state
// lives elsewhere) are facts about the packet: decided once on a path, where the path first tests them, and then
// carried along it. A later test of the same condition follows the branch already taken, so no outcome assumes a
// condition and its negation. Facts split outcomes but carry no probability: an outcome's share is its share of new
// connections under its conditions (statistic, numgen and IPVS weights only).
import { t } from '../l10n';
import type { Condition, IfaceTest, Outcome, RecentTest } from './types';

export type Fact = Condition;

/** An undecided condition (Cond's 'assume'): `negated` when the rule tests its negation. */
export interface Assumption {
  key: string;
  label: string;
  labelNot: string;
  negated?: boolean;
  iface?: IfaceTest;
  recent?: RecentTest;
}

const namesOf = (test: IfaceTest): string[] => test.anyOf ?? [test.name];

/** Does an interface named `name` meet the condition? */
function ifaceHolds(name: string, c: Condition): boolean {
  const matches = namesOf(c.iface!).some((n) => (n.endsWith('+') || n.endsWith('*') ? name.startsWith(n.slice(0, -1)) : name === n));
  return matches === c.holds;
}

/**
 * What the path's facts already say about a condition (true: it holds, false: it does not, undefined: not decided).
 * An interface is one name each way: arriving on eth0 decides every other `-i` test too (checked on every class of
 * names the conditions tell apart).
 */
export function known(facts: readonly Fact[], a: Assumption): boolean | undefined {
  let holds: boolean | undefined = facts.find((f) => f.key === a.key)?.holds;
  if (holds === undefined && a.iface) {
    const same = facts.filter((f) => f.iface?.dir === a.iface!.dir);
    const test: Condition = { key: a.key, holds: true, label: '', iface: a.iface };
    const results = new Set(
      nameClasses([...same, test])
        .filter((n) => same.every((f) => ifaceHolds(n, f)))
        .map((n) => ifaceHolds(n, test)),
    );
    if (same.length > 0 && results.size === 1) holds = [...results][0];
  }
  if (holds === undefined && a.recent) holds = recentKnown(facts, a.recent);
  return holds === undefined ? undefined : holds !== Boolean(a.negated);
}

const window = (r: RecentTest): number => r.seconds || Infinity;

/**
 * A recent list's history as the path's facts imply it: seen N times in S seconds implies fewer times in a longer
 * window; not seen N times implies not more times in a shorter one.
 */
function recentKnown(facts: readonly Fact[], r: RecentTest): boolean | undefined {
  for (const f of facts) {
    const g = f.recent;
    if (!g || g.list !== r.list) continue;
    if (f.holds && g.hits >= r.hits && window(g) <= window(r)) return true;
    if (!f.holds && g.hits <= r.hits && window(g) >= window(r)) return false;
  }
  return undefined;
}

/** Does one recent-list fact deny what another implies? */
function recentContradiction(all: readonly Condition[]): boolean {
  const recent = all.filter((c) => c.recent);
  return recent.some((y) => y.holds && recent.some((n) => !n.holds && n.recent!.list === y.recent!.list && n.recent!.hits <= y.recent!.hits && window(n.recent!) >= window(y.recent!)));
}

/** Interfaces of pods and containers on a node (bridges, veths of the common CNIs). */
const POD_INTERFACES = ['docker0', 'cni0', 'cbr0', 'cali+', 'veth+', 'lxc+', 'weave', 'kube-bridge', 'azv+'];

/**
 * What the entry point fixes about the input interface: a process on the node sends through lo (its packets to a
 * local address come back in on lo); a packet from a pod does not come from lo; one from outside neither from lo
 * nor from a pod's or container's interface.
 */
export function entryFacts(entry: 'pod' | 'node' | 'external'): Fact[] {
  const fact = (name: string, holds: boolean): Fact => ({ key: `iface in ${name}`, holds, label: '', iface: { dir: 'in', name }, given: true });
  if (entry === 'node') return [fact('lo', true)];
  if (entry === 'pod') return [fact('lo', false)];
  return ['lo', ...POD_INTERFACES].map((name) => fact(name, false));
}

/** The fact a branch takes on: the rule's test matched (`matched`) or not. */
export function factOf(a: Assumption, matched: boolean): Fact {
  const fact: Fact = { key: a.key, holds: matched !== Boolean(a.negated), label: matched ? a.label : a.labelNot };
  if (a.iface) fact.iface = a.iface;
  if (a.recent) fact.recent = a.recent;
  return fact;
}

const conditionKey = (c: Condition): string => `${c.holds ? '+' : '-'}${c.key}`;

/** The canonical text of a set of conditions (order does not matter). */
export function conditionsKey(conditions: readonly Condition[]): string {
  return conditions.map(conditionKey).sort().join('\u0000');
}

/** Can one packet meet both sets of conditions? (An interface is one name each way: eth0 and eth1 exclude each other.) */
export function compatible(a: readonly Condition[], b: readonly Condition[]): boolean {
  if (a.length === 0 || b.length === 0) return true;
  const all = [...a, ...b];
  const holds = new Map<string, boolean>();
  for (const c of all) {
    if (c.iface) continue;
    if (holds.get(c.key) === !c.holds) return false;
    holds.set(c.key, c.holds);
  }
  if (recentContradiction(all)) return false;
  return (['in', 'out'] as const).every((dir) => {
    const same = all.filter((c) => c.iface?.dir === dir);
    return same.length === 0 || nameClasses(same).some((name) => same.every((c) => ifaceHolds(name, c)));
  });
}

/** The unknown a condition is about: its key, or for interfaces the packet's one interface that way. */
const variableOf = (c: Condition): string => (c.iface ? `iface ${c.iface.dir}` : c.key);

/**
 * Names standing for every class of interface names the conditions tell apart: each name they spell, one name
 * under each prefix they test (it matches exactly the tested prefixes of that prefix), and one that none matches.
 */
function nameClasses(conditions: Condition[]): string[] {
  const out = new Set(['\u0002']);
  for (const c of conditions) for (const name of namesOf(c.iface!)) out.add(name.endsWith('+') || name.endsWith('*') ? `${name.slice(0, -1)}\u0001` : name);
  return [...out];
}

/** Do the parts (each a conjunction of conditions on one unknown) together hold whatever the packet is? */
function covers(parts: Condition[][]): boolean {
  const all = parts.flat();
  if (all.length === 0 || !all[0].iface) return parts.some((p) => p[0]?.holds === true) && parts.some((p) => p[0]?.holds === false);
  return nameClasses(all).every((name) => parts.some((p) => p.every((c) => ifaceHolds(name, c))));
}

/** Interface conditions that each say one interface (or one of several): merged, the packet's is one of all of them. */
function oneOf(parts: Condition[][]): Condition | undefined {
  if (!parts.every((p) => p.length === 1 && p[0].holds && p[0].iface)) return undefined;
  const dir = parts[0][0].iface!.dir;
  const names = [...new Set(parts.flatMap((p) => namesOf(p[0].iface!)))].sort();
  const label = dir === 'in' ? t('assuming the packet arrives on one of the interfaces {0}', names.join(', ')) : t('assuming the packet leaves through one of the interfaces {0}', names.join(', '));
  return { key: `iface ${dir} ${names.join(',')}`, holds: true, label, iface: { dir, name: names.join(','), anyOf: names } };
}

type Join<T> = (into: T, from: T) => void;

/** Outcomes alike under equal conditions are one: their shares add up. */
function addEqual<T extends { conditions: Condition[] }>(list: T[], alike: (o: T) => string, join: Join<T>): T[] {
  const same = new Map<string, T>();
  for (const o of list) {
    const k = `${alike(o)}\u0001${conditionsKey(o.conditions)}`;
    const first = same.get(k);
    if (first) join(first, o);
    else same.set(k, o);
  }
  return [...same.values()];
}

/**
 * Outcomes alike with equal shares whose conditions differ only in the unknown `variable`: merged without it when
 * together they cover every value of it, into "one of" those interfaces when they each name some. Undefined when
 * nothing merges.
 */
function mergeUnknown<T extends { conditions: Condition[]; probability: number }>(list: T[], variable: string, alike: (o: T) => string, join: Join<T>): T[] | undefined {
  const groups = new Map<string, T[]>();
  for (const o of list) {
    if (!o.conditions.some((c) => variableOf(c) === variable)) continue;
    const k = `${alike(o)}\u0001${o.probability.toPrecision(12)}\u0001${conditionsKey(o.conditions.filter((c) => variableOf(c) !== variable))}`;
    groups.set(k, [...(groups.get(k) ?? []), o]);
  }
  const gone = new Set<T>();
  const added: T[] = [];
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const parts = group.map((o) => o.conditions.filter((c) => variableOf(c) === variable));
    const union = covers(parts) ? undefined : oneOf(parts);
    if (!union && !covers(parts)) continue;
    const rest = group[0].conditions.filter((c) => variableOf(c) !== variable);
    const parent = { ...group[0], conditions: union ? [...rest, union] : rest };
    for (const o of group.slice(1)) join(parent, o);
    parent.probability = group[0].probability; // alternatives, not parts: the share stays
    for (const o of group) gone.add(o);
    added.push(parent);
  }
  return added.length === 0 ? undefined : [...list.filter((o) => !gone.has(o)), ...added];
}

/**
 * Merges outcomes alike in what happens (`alike`: verdict, destination, masquerade): equal conditions add up their
 * shares, and an unknown that does not change what happens is dropped (mergeUnknown), until nothing merges. `join`
 * folds the second into the first (its share included).
 */
export function mergeAlike<T extends { conditions: Condition[]; probability: number }>(items: T[], alike: (o: T) => string, join: Join<T>): T[] {
  let list = addEqual(items, alike, join);
  for (let merged = true; merged;) {
    merged = false;
    for (const variable of new Set(list.flatMap((o) => o.conditions.map(variableOf)))) {
      const next = mergeUnknown(list, variable, alike, join);
      if (!next) continue;
      // A merged outcome may equal another one: they add up before anything else merges.
      list = addEqual(next, alike, join);
      merged = true;
    }
  }
  return list;
}

/**
 * Groups of outcomes that happen together: for each distinct set of conditions among the outcomes, a situation
 * that meets it, grown by the conditions of every later outcome compatible with it so far; the group is the outcomes
 * that apply there (their shares sum to 1 in a complete trace). At most `max` groups (the first ones).
 */
export function assumptionGroups(outcomes: readonly Outcome[], max = 256): number[][] {
  const seen = new Set<string>();
  const groups: number[][] = [];
  for (const o of outcomes) {
    const key = conditionsKey(o.conditions);
    if (seen.has(key)) continue;
    seen.add(key);
    const situation: Condition[] = [...o.conditions];
    const group: number[] = [];
    outcomes.forEach((x, i) => {
      if (x !== o && !compatible(situation, x.conditions)) return;
      group.push(i);
      if (x !== o) situation.push(...x.conditions);
    });
    groups.push(group);
    if (groups.length >= max) break;
  }
  return groups;
}

/** The share of new connections the outcomes cover under the assumptions that give them the least (1 when complete). */
export function coveredShare(outcomes: readonly Outcome[]): number {
  const groups = assumptionGroups(outcomes);
  if (groups.length === 0) return 0;
  return Math.min(...groups.map((g) => g.reduce((s, i) => s + outcomes[i].probability, 0)));
}
