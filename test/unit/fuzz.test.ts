// Property tests: random and mutated inputs never make the parser throw, every diagnostic points into
// the text, and the work grows linearly with the input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';
import { analyzeIptables } from '../../src/core/language/iptables';
import { splitLines } from '../../src/core/parse/lines';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { mutate, mutationOf } from '../helpers/mutate';

const SEED_DUMP = generateIptablesDump({ services: randomServices(12, 3, 5), style: 'iptables-nft-save', counters: true });
const SEED_LINES = SEED_DUMP.split('\n');
const ALPHABET = ['-', '--', '!', '"', '\\', ' ', '\t', '\r', ':', '*', '#', '[', ']', '0', 'COMMIT', '-A', '-j', '-m', '\u0000', '中', '😀', '\n'];

/** Checks the invariants every analysis must keep, whatever the input. */
function checkInvariants(text: string): void {
  const a = analyzeIptables(text);
  const lines = splitLines(text);
  for (const d of a.diagnostics) {
    expect(d.range.start.line).toBeGreaterThanOrEqual(0);
    expect(d.range.start.line).toBeLessThan(Math.max(lines.length, 1));
    expect(d.range.start.character).toBeGreaterThanOrEqual(0);
    expect(d.range.end.line * 1e7 + d.range.end.character).toBeGreaterThanOrEqual(d.range.start.line * 1e7 + d.range.start.character);
    expect(d.message.length).toBeGreaterThan(0);
  }
  for (const s of a.catalog.services) {
    const total = s.endpoints.reduce((sum, e) => sum + e.probability, 0);
    expect(total).toBeLessThanOrEqual(1 + 1e-9);
  }
}

const mutation = mutationOf(ALPHABET);

describe('parser robustness (10,000+ generated inputs)', () => {
  it('mutated real-shaped dumps: 4,000 inputs', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: SEED_LINES.length - 1 }), fc.integer({ min: 1, max: 60 }), (ms, start, count) => {
        const base = SEED_LINES.slice(start, start + count).join('\n');
        checkInvariants(mutate(base, ms));
      }),
      { numRuns: 4000, seed: 20261129 },
    );
  });

  it('whole mutated dump: 500 inputs', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 30 }), (ms) => checkInvariants(mutate(SEED_DUMP, ms))),
      { numRuns: 500, seed: 7 },
    );
  });

  it('random lines built from iptables-ish tokens: 3,000 inputs', () => {
    const token = fc.oneof(
      fc.constantFrom(
        '-A',
        '-I',
        '-N',
        '-X',
        '-P',
        '-j',
        '-g',
        '-m',
        '-p',
        '-s',
        '-d',
        '!',
        '--dport',
        '--comment',
        '--probability',
        '--to-destination',
        'KUBE-SVC-X',
        'tcp',
        'ACCEPT',
        'DNAT',
        'statistic',
        'comment',
        'recent',
        '"a b"',
        '"unterminated',
        '[1:2]',
        ':CHAIN',
        '*nat',
        'COMMIT',
        '#',
        '10.0.0.1:80',
        '::1/128',
        '0x4000/0x4000',
      ),
      fc.string({ maxLength: 6 }),
    );
    const line = fc.array(token, { maxLength: 14 }).map((ts) => ts.join(' '));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (ls) => checkInvariants(ls.join('\n'))),
      { numRuns: 3000, seed: 11 },
    );
  });

  it('arbitrary strings and bytes: 3,000 inputs', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 400 }),
          fc.string({ unit: 'binary', maxLength: 400 }),
          fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('latin1')),
        ),
        (s) => checkInvariants(s),
      ),
      { numRuns: 3000, seed: 3 },
    );
  });

  it('does not hang on pathological lines (one huge line, endless quotes, thousands of options)', () => {
    checkInvariants('"'.repeat(60_000));
    checkInvariants('-A X ' + '! '.repeat(20_000));
    checkInvariants('*filter\n-A INPUT ' + '--dport 1 '.repeat(5_000) + '-j ACCEPT\nCOMMIT');
    checkInvariants('*filter\n' + '-A INPUT -m comment --comment "x\\"'.repeat(1000));
  });
});

describe('parser cost is linear in the input size', () => {
  perfIt('8× the rules cost at most half what a quadratic parser would (64×) (mutated dumps, garbage)', () => {
    const small = generateIptablesDump({ services: randomServices(300, 4, 1), style: 'iptables-nft-save' });
    const large = generateIptablesDump({ services: randomServices(2400, 4, 1), style: 'iptables-nft-save' });
    expect(costRatio(analyzeIptables, small, large)).toBeLessThan(MAX_COST_RATIO_8X);
    const garbageSmall = Array.from({ length: 2_000 }, (_, i) => `-A X "${i} -j ! -- ${'q'.repeat(i % 50)}`).join('\n');
    const garbageLarge = Array.from({ length: 16_000 }, (_, i) => `-A X "${i} -j ! -- ${'q'.repeat(i % 50)}`).join('\n');
    expect(costRatio(analyzeIptables, garbageSmall, garbageLarge)).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
