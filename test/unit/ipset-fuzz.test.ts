// Property tests for parseIpset and the ipset language features: random and mutated inputs never throw,
// every diagnostic, symbol, outline item, folding range and hover range lies inside the text, and the
// work grows linearly with the input.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';
import { analyzeIpset, foldingRanges, hoverAt, outline, type IpsetAnalysis } from '../../src/core/language/ipset';
import type { Range } from '../../src/core/model/range';
import { splitLines } from '../../src/core/parse/lines';
import { mutate, mutationOf } from '../helpers/mutate';

const FIXTURES = resolve(__dirname, '../grammar/ipvs/fixtures');
const SEEDS = ['kube-proxy-node.ipset', 'kube-proxy-node.list.ipset', 'misc.ipset', 'misc.list.ipset'].map((f) => readFileSync(resolve(FIXTURES, f), 'utf8'));
const SEED_DUMP = ['[root@node1 ~]# ipset save', SEEDS[0], 'some prose', '# ipset list', SEEDS[3]].join('\n');
const SEED_LINES = SEED_DUMP.split('\n');
const ALPHABET = ['-', ' ', '\t', '\r', ':', ',', '/', '"', '\\', '0', '65535', 'add', 'create', 'Name:', 'Members:', 'hash:ip,port', 'timeout', 'comment', '#', '\u0000', '中', '😀', '\n'];

function inside(r: Range, lines: string[]): void {
  expect(r.start.line).toBeGreaterThanOrEqual(0);
  expect(r.end.line).toBeLessThan(Math.max(lines.length, 1));
  expect(r.start.character).toBeGreaterThanOrEqual(0);
  expect(r.end.line * 1e7 + r.end.character).toBeGreaterThanOrEqual(r.start.line * 1e7 + r.start.character);
  expect(r.end.character).toBeLessThanOrEqual(Math.max(lines[r.end.line]?.length ?? 0, 200));
}

function checkInvariants(text: string): IpsetAnalysis {
  const a = analyzeIpset(text);
  const lines = splitLines(text);
  for (const d of a.diagnostics) {
    inside(d.range, lines);
    expect(d.message.length).toBeGreaterThan(0);
  }
  for (const def of a.dump.symbols.definitions) inside(def.range, lines);
  for (const ref of a.dump.symbols.references) inside(ref.range, lines);
  for (const set of a.dump.sets) {
    inside(set.fullRange, lines);
    for (const m of set.members) {
      inside(m.textRange, lines);
      for (const p of m.parts) inside(p.range, lines);
    }
  }
  for (const item of outline(a)) {
    inside(item.range, lines);
    for (const child of item.children) inside(child.range, lines);
  }
  for (const f of foldingRanges(a)) expect(f.end).toBeGreaterThan(f.start);
  for (const line of [0, Math.floor(lines.length / 2), lines.length - 1]) {
    for (const character of [0, 8, 25]) {
      const h = hoverAt(a, { line: Math.max(0, line), character });
      if (h) {
        inside(h.range, lines);
        expect(h.markdown.length).toBeGreaterThan(0);
      }
    }
  }
  return a;
}

const mutation = mutationOf(ALPHABET);

describe('parseIpset robustness (6,500 generated inputs)', () => {
  it('the fixtures themselves keep every invariant', () => {
    for (const seed of SEEDS) checkInvariants(seed);
    checkInvariants(SEED_DUMP);
  });

  it('mutated real output: 3,000 inputs', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: SEED_LINES.length - 1 }), fc.integer({ min: 1, max: 50 }), (ms, start, count) => {
        checkInvariants(mutate(SEED_LINES.slice(start, start + count).join('\n'), ms));
      }),
      { numRuns: 3000, seed: 20261130 },
    );
  });

  it('random lines built from ipset tokens: 2,000 inputs', () => {
    const token = fc.oneof(
      fc.constantFrom(
        'create',
        'add',
        'del',
        'test',
        'flush',
        'destroy',
        'rename',
        'swap',
        '-A',
        '-N',
        'Name:',
        'Type:',
        'Header:',
        'Members:',
        'Number of entries:',
        'References:',
        'KUBE-CLUSTER-IP',
        'KUBE-6-LOOP-BACK',
        's',
        'hash:ip,port',
        'hash:net',
        'bitmap:port',
        'list:set',
        'hash:ip,port,ip',
        'family',
        'inet6',
        'range',
        '0-65535',
        'timeout',
        'comment',
        '"a b"',
        '"open',
        'nomatch',
        'packets',
        '10.0.0.1,tcp:80',
        '10.0.0.0/8',
        'fd00::1,udp:53,fd00::2',
        '80',
        'before',
        '#',
        '$',
      ),
      fc.string({ maxLength: 6 }),
    );
    const line = fc.array(token, { maxLength: 10 }).map((ts) => ts.join(' '));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (ls) => {
        checkInvariants(ls.join('\n'));
      }),
      { numRuns: 2000, seed: 13 },
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
          checkInvariants(s);
        },
      ),
      { numRuns: 1500, seed: 5 },
    );
  });

  it('does not hang on pathological lines', () => {
    checkInvariants('create a hash:ip ' + 'family inet '.repeat(5_000));
    checkInvariants('create a hash:ip comment\n' + 'add a 10.0.0.1 comment "x\\"'.repeat(2_000));
    checkInvariants('create a hash:ip,port\nadd a ' + '10.0.0.1,'.repeat(10_000));
    checkInvariants('"'.repeat(60_000));
  });
});

describe('parseIpset cost is linear in the input size', () => {
  const save = (n: number) =>
    ['create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536', ...Array.from({ length: n }, (_, i) => `add KUBE-CLUSTER-IP 10.${(i >> 8) & 255}.${i & 255}.1,tcp:${1 + (i % 60000)}`)].join('\n');
  const list = (n: number) =>
    ['Name: KUBE-LOOP-BACK', 'Type: hash:ip,port,ip', 'Members:', ...Array.from({ length: n }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.1,udp:53,10.${(i >> 8) & 255}.${i & 255}.1`)].join('\n');
  perfIt('8× the members cost at most half what a quadratic parser would (64×)', () => {
    for (const make of [save, list]) expect(costRatio(analyzeIpset, make(8000), make(64000))).toBeLessThan(MAX_COST_RATIO_8X);
  });

  // A restore file that deletes what it added (last first), or flushes every set once per set: each command
  // must not search or touch everything before it.
  const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255},tcp:80`;
  const adds = (n: number) => Array.from({ length: n }, (_, i) => `add S ${ip(i)}`);
  const dels = (n: number) => Array.from({ length: n }, (_, i) => `del S ${ip(n - 1 - i)}`);
  const creates = (n: number) => Array.from({ length: n }, (_, i) => `create S${i} hash:ip`);
  const edits = {
    del: (n: number) => ['create S hash:ip,port', ...adds(n), ...dels(n)].join('\n'),
    flush: (n: number) => [...creates(n), ...Array.from({ length: n }, () => 'flush')].join('\n'),
  };
  perfIt.each(Object.entries(edits))('8× the %s commands cost at most half what a quadratic parser would', (_, make) => {
    expect(costRatio(analyzeIpset, make(2000), make(16000))).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
