// Property tests for parseIpvsadm and the ipvsadm language features: random and mutated inputs never
// throw, every diagnostic, symbol, outline item, folding range and hover range lies inside the text,
// weight shares add up, and the work grows linearly with the input.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';
import { analyzeIpvsadm, foldingRanges, hoverAt, outline, type IpvsadmAnalysis } from '../../src/core/language/ipvsadm';
import { weightShares } from '../../src/core/model/ipvs';
import type { Range } from '../../src/core/model/range';
import { splitLines } from '../../src/core/parse/lines';
import { mutate, mutationOf } from '../helpers/mutate';

const FIXTURES = resolve(__dirname, '../grammar/ipvs/fixtures');
const SEEDS = [
  'kube-proxy-node.ipvsadm',
  'kube-proxy-node.save.ipvsadm',
  'director.ipvsadm',
  'director.save.ipvsadm',
  'kube-proxy-node.stats.ipvsadm',
  'kube-proxy-node.persistent-conn.ipvsadm',
  'kube-proxy-node.connections.ipvsadm',
].map((f) => readFileSync(resolve(FIXTURES, f), 'utf8'));
const SEED_DUMP = ['[root@node1 ~]# ipvsadm -Ln', SEEDS[0], 'some prose', SEEDS[6], '# ipvsadm -Sn', SEEDS[3]].join('\n');
const SEED_LINES = SEED_DUMP.split('\n');
const ALPHABET = ['-', '->', ' ', '\t', '\r', ':', '[', ']', '(', ')', ',', '0', '65535', 'TCP', 'UDP', 'FWM', 'rr', 'persistent', 'mask', 'Masq', '-A', '-a', '-t', '-w', '#', '\u0000', '中', '😀', '\n'];

function inside(r: Range, lines: string[]): void {
  expect(r.start.line).toBeGreaterThanOrEqual(0);
  expect(r.end.line).toBeLessThan(Math.max(lines.length, 1));
  expect(r.start.character).toBeGreaterThanOrEqual(0);
  expect(r.end.line * 1e7 + r.end.character).toBeGreaterThanOrEqual(r.start.line * 1e7 + r.start.character);
  expect(r.end.character).toBeLessThanOrEqual(Math.max(lines[r.end.line]?.length ?? 0, 200));
}

/** Checks the invariants every analysis must keep, whatever the input. */
function checkInvariants(text: string): IpvsadmAnalysis {
  const a = analyzeIpvsadm(text);
  const lines = splitLines(text);
  for (const d of a.diagnostics) {
    inside(d.range, lines);
    expect(d.message.length).toBeGreaterThan(0);
  }
  for (const def of a.dump.symbols.definitions) inside(def.range, lines);
  for (const ref of a.dump.symbols.references) inside(ref.range, lines);
  for (const svc of a.dump.services) {
    inside(svc.fullRange, lines);
    const shares = weightShares(svc);
    if (shares && shares.some((s) => s > 0)) expect(Math.abs(shares.reduce((n, s) => n + s, 0) - 1)).toBeLessThan(1e-9);
  }
  for (const item of outline(a)) {
    inside(item.range, lines);
    for (const child of item.children) inside(child.range, lines);
  }
  for (const f of foldingRanges(a)) expect(f.end).toBeGreaterThan(f.start);
  for (const line of [0, Math.floor(lines.length / 2), lines.length - 1]) {
    const h = hoverAt(a, { line: Math.max(0, line), character: 6 });
    if (h) {
      inside(h.range, lines);
      expect(h.markdown.length).toBeGreaterThan(0);
    }
  }
  return a;
}

const mutation = mutationOf(ALPHABET);

describe('parseIpvsadm robustness (6,500 generated inputs)', () => {
  it('the fixtures themselves keep every invariant', () => {
    for (const seed of SEEDS) checkInvariants(seed);
    checkInvariants(SEED_DUMP);
  });

  it('mutated real-shaped output: 3,000 inputs', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: SEED_LINES.length - 1 }), fc.integer({ min: 1, max: 40 }), (ms, start, count) => {
        checkInvariants(mutate(SEED_LINES.slice(start, start + count).join('\n'), ms));
      }),
      { numRuns: 3000, seed: 20261130 },
    );
  });

  it('random lines built from ipvsadm tokens: 2,000 inputs', () => {
    const token = fc.oneof(
      fc.constantFrom(
        'TCP',
        'UDP',
        'SCTP',
        'FWM',
        'IPv6',
        '->',
        'Masq',
        'Route',
        'Tunnel',
        'Local',
        'rr',
        'wrr',
        'sh',
        'persistent',
        'mask',
        'pe',
        'ops',
        '(sh-port)',
        '10.0.0.1:80',
        '[fd00::1]:53',
        'web:http',
        '0',
        '1',
        '65536',
        '12:34',
        'NONE',
        'ESTABLISHED',
        '-A',
        '-a',
        '-E',
        '-e',
        '-D',
        '-d',
        '-C',
        '-t',
        '-u',
        '-f',
        '-6',
        '-s',
        '-p',
        '-M',
        '-b',
        '-r',
        '-g',
        '-m',
        '-i',
        '-w',
        '-x',
        '--tun-type',
        'Prot',
        'pro',
        'IP Virtual Server version',
        'IPVS connection entries',
        '#',
        '$',
      ),
      fc.string({ maxLength: 6 }),
    );
    const line = fc.tuple(fc.constantFrom('', '  ', '\t'), fc.array(token, { maxLength: 10 })).map(([indent, ts]) => indent + ts.join(' '));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (ls) => {
        checkInvariants(ls.join('\n'));
      }),
      { numRuns: 2000, seed: 12 },
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
      { numRuns: 1500, seed: 4 },
    );
  });

  it('does not hang on pathological lines', () => {
    checkInvariants('TCP  10.0.0.1:80 rr ' + 'persistent 1 '.repeat(5_000));
    checkInvariants('TCP  10.0.0.1:80 rr\n' + '  -> 10.0.0.2:80 Masq 1 0 0\n'.repeat(5_000));
    checkInvariants('-A -t 10.0.0.1:80 ' + '-s rr '.repeat(5_000));
    checkInvariants('['.repeat(60_000));
  });
});

describe('parseIpvsadm cost is linear in the input size', () => {
  const listing = (n: number) =>
    [
      'IP Virtual Server version 1.2.1 (size=4096)',
      ...Array.from({ length: n }, (_, i) => `TCP  10.${(i >> 8) & 255}.${i & 255}.1:80 rr\n  -> 10.244.${(i >> 8) & 255}.${i & 255}:8080 Masq 1 0 0\n  -> 10.245.${(i >> 8) & 255}.${i & 255}:8080 Masq 1 0 0`),
    ].join('\n');
  const save = (n: number) => Array.from({ length: n }, (_, i) => `-A -t 10.${(i >> 8) & 255}.${i & 255}.1:80 -s rr\n-a -t 10.${(i >> 8) & 255}.${i & 255}.1:80 -r 10.244.0.1:80 -m -w 1`).join('\n');
  perfIt('8× the services cost at most half what a quadratic parser would (64×)', () => {
    for (const make of [listing, save]) expect(costRatio(analyzeIpvsadm, make(2000), make(16000))).toBeLessThan(MAX_COST_RATIO_8X);
  });

  // Many real servers under one service: each -a, -d or second listing of a server must not scan those before it.
  const server = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:6443`;
  const servers = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i));
  const listed = (n: number) => ['TCP  10.96.0.1:443 rr', ...servers(n, (i) => `  -> ${server(i)} Masq 1 0 0`)];
  const oneService = {
    // Each -a and -d line is read the slow way: its own cost hides the scans at these sizes (40,000: 145 s before).
    '-a then -d': (n: number) => ['-A -t 10.96.0.1:443 -s rr', ...servers(n, (i) => `-a -t 10.96.0.1:443 -r ${server(i)} -m`), ...servers(n, (i) => `-d -t 10.96.0.1:443 -r ${server(n - 1 - i)}`)].join('\n'),
    'a second listing': (n: number) => ['IP Virtual Server version 1.2.1 (size=4096)', ...listed(n), ...listed(n)].join('\n'),
  };
  perfIt.each(Object.entries(oneService))('8× the real servers of one service (%s) cost at most half what a quadratic parser would', (_, make) => {
    expect(costRatio(analyzeIpvsadm, make(1000), make(8000))).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
