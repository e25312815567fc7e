// Property tests for the nft parsers: random and mutated inputs never make them throw, every diagnostic and
// every statement range points into the text, and the work grows linearly with the input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';
import type { NftRuleset } from '../../src/core/model/nft';
import type { Range } from '../../src/core/model/range';
import { generateNftDump, randomServices } from '../../tools/generate/nft';
import { parseNftJson } from '../../src/core/parse/nft/json';
import { parseNft } from '../../src/core/parse/nft/parser';
import { splitLines } from '../../src/core/parse/lines';
import { mutate, mutationOf } from '../helpers/mutate';

const SERVICES = randomServices(10, 3, 5);
const SEED_LIST = generateNftDump({ services: SERVICES, style: 'nft-list-ruleset' });
const SEED_CMDS = generateNftDump({ services: SERVICES, style: 'nft-cmds' });
const SEED_JSON = generateNftDump({ services: SERVICES, style: 'nft-json' });
const SEED_SCRIPT = `#!/usr/sbin/nft -f
flush ruleset
define wan = "eth0"
define ok = { 10.0.0.0/8, 192.168.1.1 }
include "extra.nft"
table inet filter {
\tset blocked { type ipv4_addr; flags interval; elements = { 1.2.3.0/24, 5.6.7.8 } }
\tmap ports { type inet_service : verdict; elements = { 22 : jump ssh, 80 : accept } }
\tchain input { type filter hook input priority filter; policy drop;
\t\tct state established,related accept
\t\tiifname $wan ip saddr $ok tcp dport vmap @ports
\t\tip saddr @blocked counter packets 0 bytes 0 drop comment "bad # guys"
\t\ttcp flags & (syn | ack) == syn limit rate over 10/second burst 5 packets log prefix "syn: " level info
\t\tmeta mark set meta mark | 0x00004000
\t\tnumgen random mod 2 vmap { 0 : goto a, 1 : goto b }
\t}
\tchain ssh { reject with tcp reset; }
\tchain a { dnat ip to 10.0.0.1:8080; }
\tchain b { masquerade fully-random; }
}
add rule inet filter input update @blocked { ip saddr timeout 10s }
`;
const SEED_LINES = [...splitLines(SEED_LIST), ...splitLines(SEED_SCRIPT)];
const ALPHABET = [
  '{',
  '}',
  '(',
  ')',
  ';',
  ',',
  '.',
  ':',
  '-',
  '/',
  '"',
  '#',
  '@',
  '$',
  '=',
  '!=',
  '\n',
  '\r\n',
  '\t',
  ' ',
  'table',
  'chain',
  'vmap',
  'map',
  'set',
  'add',
  'jump',
  'goto',
  'elements',
  'type',
  'hook',
  'priority',
  'define',
  '\u0000',
  '中',
  '😀',
];

function before(a: Range['start'], b: Range['start']): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** The invariants every parse must keep, whatever the input (plain checks: `expect` per range is too slow here). */
function checkText(text: string): NftRuleset {
  const r = parseNft(text);
  const lines = splitLines(text);
  const bad: string[] = [];
  const inText = (range: Range, what: string) => {
    const ok =
      range.start.line >= 0 &&
      range.end.line < Math.max(lines.length, 1) &&
      range.start.character >= 0 &&
      range.start.character <= (lines[range.start.line]?.length ?? 0) &&
      range.end.character <= Math.max(lines[range.end.line]?.length ?? 0, 200) &&
      before(range.start, range.end);
    if (!ok) bad.push(`${what} ${JSON.stringify(range)}`);
  };
  for (const d of r.diagnostics) {
    inText(d.range, d.code);
    if (d.message.length === 0 || d.code === 'internal-error') bad.push(`${d.code}: ${d.message}`);
  }
  for (const table of r.tables) {
    for (const chain of table.chains) {
      for (const rule of chain.rules) {
        inText(rule.range, 'rule');
        if (rule.statements.length === 0) bad.push(`empty rule ${rule.raw}`);
        for (const st of rule.statements) {
          inText(st.range, st.kind);
          if (st.range.start.line === st.range.end.line && lines[st.range.start.line].slice(st.range.start.character, st.range.end.character) !== st.text) bad.push(`text of ${st.kind}`);
        }
      }
    }
  }
  for (const def of r.symbols.definitions) inText(def.range, 'definition');
  for (const ref of r.symbols.references) inText(ref.range, 'reference');
  if (bad.length > 0) expect(bad, text.slice(0, 300)).toEqual([]);
  return r;
}

function checkJson(text: string): void {
  const r = parseNftJson(text);
  const lines = splitLines(text);
  const bad: string[] = [];
  for (const range of [...r.diagnostics.map((x) => x.range), ...r.symbols.references.map((x) => x.range), ...r.symbols.definitions.map((x) => x.range)]) {
    if (range.start.line >= Math.max(lines.length, 1) || range.end.line >= Math.max(lines.length, 1) || !before(range.start, range.end)) bad.push(JSON.stringify(range));
  }
  for (const d of r.diagnostics) if (d.code === 'internal-error') bad.push(d.message);
  if (r.diagnostics.filter((d) => d.code === 'bad-json').length > 1) bad.push('more than one bad-json');
  if (bad.length > 0) expect(bad, text.slice(0, 300)).toEqual([]);
}

const mutation = mutationOf(ALPHABET);

describe('nft parser robustness (10,600 generated inputs)', () => {
  it('the seeds themselves parse without errors', () => {
    for (const seed of [SEED_LIST, SEED_CMDS, SEED_SCRIPT]) {
      const r = checkText(seed);
      expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    }
    expect(parseNftJson(SEED_JSON).diagnostics).toEqual([]);
  });

  it('mutated excerpts of real-shaped dumps and scripts: 4,000 inputs', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: SEED_LINES.length - 1 }), fc.integer({ min: 1, max: 60 }), (ms, start, count) => {
        checkText(mutate(SEED_LINES.slice(start, start + count).join('\n'), ms));
      }),
      { numRuns: 4000, seed: 20261130 },
    );
  });

  it('whole mutated dumps (list, commands, script): 600 inputs', () => {
    fc.assert(
      fc.property(fc.constantFrom(SEED_LIST, SEED_CMDS, SEED_SCRIPT), fc.array(mutation, { minLength: 1, maxLength: 30 }), (seed, ms) => {
        checkText(mutate(seed, ms));
      }),
      { numRuns: 600, seed: 8 },
    );
  });

  it('random lines of nft-ish tokens: 2,500 inputs', () => {
    const token = fc.oneof(
      fc.constantFrom(
        'table',
        'ip',
        'inet',
        'chain',
        'set',
        'map',
        'add',
        'rule',
        'element',
        'flush',
        'ruleset',
        'delete',
        'define',
        'include',
        'type',
        'filter',
        'hook',
        'input',
        'priority',
        'dstnat',
        '-',
        '+',
        '10',
        'policy',
        'accept',
        'drop',
        'jump',
        'goto',
        'vmap',
        'numgen',
        'random',
        'mod',
        'ip daddr',
        'meta',
        'mark',
        'set',
        'ct',
        'state',
        'established,related',
        'dnat',
        'to',
        '10.0.0.1:80',
        'masquerade',
        'counter',
        'packets',
        'bytes',
        '{',
        '}',
        '(',
        ')',
        ';',
        ',',
        '.',
        ':',
        '@s',
        '$v',
        '"str"',
        '"unterminated',
        '#',
        '# handle 3',
        '10.0.0.0/8',
        '1-2',
        '[::1]:80',
        '==',
        '!=',
        '&',
        '|',
        'elements',
        '=',
      ),
      fc.string({ maxLength: 6 }),
    );
    const line = fc.array(token, { maxLength: 16 }).map((ts) => ts.join(' '));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (ls) => void checkText(ls.join('\n'))),
      { numRuns: 2500, seed: 12 },
    );
  });

  it('arbitrary strings and bytes: 1,500 inputs', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 400 }),
          fc.string({ unit: 'binary', maxLength: 400 }),
          fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('latin1')),
        ),
        (s) => {
          checkText(s);
          checkJson(s);
        },
      ),
      { numRuns: 1500, seed: 4 },
    );
  });

  it('mutated nft -j JSON: 1,500 inputs', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 10 }), (ms) => checkJson(mutate(SEED_JSON, ms))),
      { numRuns: 1500, seed: 5 },
    );
  });

  it('random JSON values in place of nft objects: 500 inputs', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 6 }), fc.constantFrom('table', 'chain', 'rule', 'set', 'map', 'element', 'add', 'metainfo'), (values, key) => {
        const body = values.map((v) => ({ [key]: v }));
        checkJson(JSON.stringify({ nftables: body }));
        checkJson(JSON.stringify({ nftables: [{ rule: { family: 'ip', table: 't', chain: 'c', expr: values } }] }));
      }),
      { numRuns: 500, seed: 6 },
    );
  });

  it('does not hang or overflow on pathological input', () => {
    checkText('{'.repeat(100_000));
    checkText('table ip t { chain c { ' + '('.repeat(100_000) + ' } }');
    checkText('table ip t { chain c { ip saddr ' + '{ '.repeat(50_000) + '} }');
    checkText('"'.repeat(60_000));
    checkText('table ip t {\n' + '\tchain c {\n'.repeat(5_000));
    checkText('table ip t { chain c { ' + 'ip saddr 1.2.3.4 '.repeat(20_000) + '} }');
    checkText('table ip t { set s { type ipv4_addr; elements = { ' + Array.from({ length: 20_000 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.1`).join(',\n') + ' } } }');
    checkText('}'.repeat(20_000));
    checkJson('['.repeat(100_000));
    checkJson(
      '{"nftables": [' + '{"rule": {"family": "ip", "table": "t", "chain": "c", "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "daddr"}}, "right": "1.2.3.4"}}]}},'.repeat(2_000) + '{}]}',
    );
  });
});

describe('nft parser cost is linear in the input size', () => {
  perfIt('8× the services cost at most half what a quadratic parser would (64×) (text, commands, JSON, garbage)', () => {
    const small = randomServices(60, 4, 1);
    const large = randomServices(480, 4, 1);
    for (const style of ['nft-list-ruleset', 'nft-cmds', 'nft-json'] as const) {
      const parse = style === 'nft-json' ? parseNftJson : parseNft;
      const a = generateNftDump({ services: small, style });
      const b = generateNftDump({ services: large, style });
      expect(costRatio(parse, a, b), style).toBeLessThan(MAX_COST_RATIO_8X);
    }
    const garbageSmall = Array.from({ length: 2_000 }, (_, i) => `add rule ip t c { ( "${i} vmap ! -- ${'q'.repeat(i % 50)}`).join('\n');
    const garbageLarge = Array.from({ length: 16_000 }, (_, i) => `add rule ip t c { ( "${i} vmap ! -- ${'q'.repeat(i % 50)}`).join('\n');
    expect(costRatio(parseNft, garbageSmall, garbageLarge)).toBeLessThan(MAX_COST_RATIO_8X);
  });

  // Many rules placed in one chain by position: each must cost what it changes, not the chain's length.
  const chain = 'table ip t {\n\tchain c {\n\t\tcounter # handle 3\n\t}\n}';
  const lines = (n: number, line: string) => [chain, ...Array.from({ length: n }, () => line)].join('\n');
  const placed = {
    'insert rule': (n: number) => lines(n, 'insert rule ip t c accept'),
    'add rule … position': (n: number) => lines(n, 'add rule ip t c position 3 accept'),
    'add rule … index': (n: number) => lines(n, 'add rule ip t c index 0 accept'),
    'JSON rules': (n: number) =>
      JSON.stringify({
        nftables: [
          { table: { family: 'ip', name: 't' } },
          { chain: { family: 'ip', table: 't', name: 'c' } },
          ...Array.from({ length: n }, (_, i) => ({ rule: { family: 'ip', table: 't', chain: 'c', handle: i + 3, expr: [{ accept: null }] } })),
        ],
      }),
    'JSON insert': (n: number) =>
      JSON.stringify({
        nftables: [
          { table: { family: 'ip', name: 't' } },
          { chain: { family: 'ip', table: 't', name: 'c' } },
          ...Array.from({ length: n }, () => ({ insert: { rule: { family: 'ip', table: 't', chain: 'c', expr: [{ accept: null }] } } })),
        ],
      }),
  };
  perfIt('8× the elements added and deleted one by one cost at most half what a quadratic parser would', () => {
    const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const make = (n: number) =>
      [
        'table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t}\n}',
        ...Array.from({ length: n }, (_, i) => `add element ip t s { ${ip(i)} }`),
        ...Array.from({ length: n }, (_, i) => `delete element ip t s { ${ip(n - 1 - i)} }`),
      ].join('\n');
    expect(costRatio(parseNft, make(2000), make(16000))).toBeLessThan(MAX_COST_RATIO_8X);
  });
  perfIt.each(Object.entries(placed))('8× the rules of one chain (%s) cost at most half what a quadratic parser would', (name, make) => {
    expect(costRatio(name.startsWith('JSON') ? parseNftJson : parseNft, make(4000), make(32000))).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
