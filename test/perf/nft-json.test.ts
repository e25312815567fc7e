// Perf tier: `nft -j` JSON through the whole pipeline (harness.ts). Most inputs are mutated as JSON values (a leaf
// replaced by a payload, an element dropped or doubled, a key renamed) so that they stay JSON and reach the model;
// the rest are mutated as text, random JSON in place of nft objects, and arbitrary text after the JSON header.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { runInput } from './harness';
import { ARBITRARY, HOSTILE, SEEDS, hostileMutation, applyMutations } from './inputs';
import { kindStats, runs } from './properties';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMutation = { kind: 'leaf' | 'drop' | 'dup' | 'key'; at: number; value: Json };

const SEED: { nftables: Json[] } = JSON.parse(SEEDS['nft-json'][0]);
const KEYS = [
  'family',
  'table',
  'chain',
  'name',
  'handle',
  'expr',
  'type',
  'hook',
  'prio',
  'policy',
  'elem',
  'map',
  'set',
  'match',
  'left',
  'right',
  'op',
  'payload',
  'meta',
  'concat',
  'vmap',
  'jump',
  'goto',
  'dnat',
  'addr',
  'port',
  'numgen',
  'mod',
  'prefix',
  'len',
  'comment',
];

const jsonMutation: fc.Arbitrary<JsonMutation> = fc.record({
  kind: fc.constantFrom('leaf', 'leaf', 'drop', 'dup', 'key'),
  at: fc.nat(),
  value: fc.oneof(
    fc.constantFrom<Json>(
      ...HOSTILE,
      1e308,
      -1,
      4294967296,
      99,
      0.5,
      null,
      true,
      [],
      {},
      { prefix: { addr: '10.0.0.0', len: 99 } },
      { concat: [{ payload: { protocol: 'ip', field: 'daddr' } }, { payload: { protocol: 'tcp', field: 'dport' } }] },
    ),
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  ),
});

/** The containers of a value, depth first (the mutation's `at` picks one). */
function containers(v: Json, out: (Json[] | { [key: string]: Json })[] = []): (Json[] | { [key: string]: Json })[] {
  if (v !== null && typeof v === 'object') {
    out.push(v);
    for (const child of Array.isArray(v) ? v : Object.values(v)) containers(child, out);
  }
  return out;
}

function applyJson(root: Json, m: JsonMutation): void {
  const all = containers(root);
  const c = all[m.at % all.length];
  const keys = Array.isArray(c) ? c.map((_, i) => i) : Object.keys(c);
  if (keys.length === 0) return;
  const k = keys[(m.at >>> 3) % keys.length];
  if (Array.isArray(c)) {
    const i = k as number;
    if (m.kind === 'drop') c.splice(i, 1);
    else if (m.kind === 'dup') c.splice(i, 0, structuredClone(c[i]));
    else c[i] = m.value;
  } else {
    const key = k as string;
    if (m.kind === 'drop') delete c[key];
    else if (m.kind === 'key') {
      c[KEYS[m.at % KEYS.length]] = c[key];
      delete c[key];
    } else if (m.kind === 'dup') c[KEYS[(m.at >>> 5) % KEYS.length]] = structuredClone(c[key]);
    else c[key] = m.value;
  }
}

const slice = fc.tuple(fc.nat(), fc.integer({ min: 1, max: 30 })).map(([start, count]) => {
  const items = SEED.nftables;
  const from = start % items.length;
  // The metainfo object first, as nft writes it, then a run of objects.
  return { nftables: [items[0], ...items.slice(Math.max(1, from), Math.max(1, from) + count)] } as Json;
});

const layout = fc.constantFrom<number | string | undefined>(undefined, 2, '\t');

describe('nft-json: hostile and mutated inputs through analyze, features, snapshot, graph, explain and trace', () => {
  const stats = kindStats('nft-json');
  const run = (text: string, salt: number) => runInput('nft-json', text, salt, stats);

  it(`slices mutated as JSON values: ${runs(80_000)} inputs`, () => {
    fc.assert(
      fc.property(slice, fc.array(jsonMutation, { minLength: 1, maxLength: 6 }), layout, fc.nat(), (base, ms, indent, salt) => {
        const doc = structuredClone(base);
        for (const m of ms) applyJson(doc, m);
        run(JSON.stringify(doc, null, indent), salt);
      }),
      { numRuns: runs(80_000), seed: 5001 },
    );
  });

  it(`slices mutated as text: ${runs(15_000)} inputs`, () => {
    fc.assert(
      fc.property(slice, layout, fc.array(hostileMutation('nft-json'), { minLength: 1, maxLength: 4 }), fc.nat(), (base, indent, ms, salt) => run(applyMutations(JSON.stringify(base, null, indent), ms), salt)),
      { numRuns: runs(15_000), seed: 5002 },
    );
  });

  it(`random JSON values in place of nft objects: ${runs(5_000)} inputs`, () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 6 }), fc.constantFrom('table', 'chain', 'rule', 'set', 'map', 'element', 'add', 'metainfo'), fc.nat(), (values, key, salt) => {
        run(JSON.stringify({ nftables: values.map((v) => ({ [key]: v })) }), salt);
        run(JSON.stringify({ nftables: [{ rule: { family: 'ip', table: 't', chain: 'c', expr: values } }] }), salt);
      }),
      { numRuns: runs(5_000), seed: 5003 },
    );
  });

  it(`arbitrary text after the JSON header: ${runs(1_000)} inputs`, () => {
    fc.assert(
      fc.property(ARBITRARY, fc.nat(), (text, salt) => run(`{"nftables": [${text}`, salt)),
      { numRuns: runs(1_000), seed: 5004 },
    );
  });
});
