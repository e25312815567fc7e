// The perf tier's property runs, the same for every input kind: mutated slices of generated dumps, whole mutated
// dumps, random lines of the dialect's tokens and arbitrary strings, each through the whole pipeline (harness.ts).
// Seeds are fixed; fast-check prints seed and path of a failure. PERF_SCALE (default 1) scales every count.
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { GROSS_HANG_MS, newStats, runInput, summary, type InputKind, type KindStats } from './harness';
import { applyMutations, ARBITRARY, hostileMutation, ipvsCompanions, SEEDS, tokenLines } from './inputs';

export const SCALE = Number(process.env.PERF_SCALE ?? '1');
export const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

/** One stats record per kind, printed (one line) and checked for gross hangs after the file's tests. */
export function kindStats(kind: InputKind): KindStats {
  const stats = newStats();
  const cpu = process.cpuUsage();
  afterAll(() => {
    // CPU time, which a busy machine inflates less than wall time: what the tier costs on an idle CI core.
    const used = process.cpuUsage(cpu);
    console.log(`${summary(kind, stats)}; ${((used.user + used.system) / 1e6).toFixed(0)} s CPU`);
    expect(stats.slowestMs, `${kind}: slowest input ${JSON.stringify(stats.slowestInput.slice(0, 2000))}`).toBeLessThan(GROSS_HANG_MS);
  });
  return stats;
}

/** Mutated slices (a few dozen lines), whole mutated seeds, token lines, arbitrary strings: 101,000 inputs at scale 1. */
export function textProperties(kind: InputKind, seed: number): void {
  const stats = kindStats(kind);
  const companions = ipvsCompanions(kind);
  const seeds = SEEDS[kind].map((s) => s.split('\n'));
  const run = (text: string, salt: number) => runInput(kind, text, salt, stats, companions);
  const mutation = hostileMutation(kind);

  it(`mutated slices of generated dumps: ${runs(80_000)} inputs`, () => {
    const slice = fc.tuple(fc.nat(seeds.length - 1), fc.nat(), fc.integer({ min: 1, max: 30 })).map(([s, start, count]) => {
      const lines = seeds[s];
      const from = start % lines.length;
      return lines.slice(from, from + count).join('\n');
    });
    fc.assert(
      fc.property(slice, fc.array(mutation, { minLength: 1, maxLength: 8 }), fc.nat(), (base, ms, salt) => run(applyMutations(base, ms), salt)),
      { numRuns: runs(80_000), seed },
    );
  });

  it(`whole mutated dumps: ${runs(1_000)} inputs`, () => {
    fc.assert(
      fc.property(fc.nat(seeds.length - 1), fc.array(mutation, { minLength: 1, maxLength: 20 }), fc.nat(), (s, ms, salt) => run(applyMutations(SEEDS[kind][s], ms), salt)),
      { numRuns: runs(1_000), seed: seed + 1 },
    );
  });

  it(`random lines of the dialect's tokens and payloads: ${runs(15_000)} inputs`, () => {
    fc.assert(
      fc.property(tokenLines(kind), fc.nat(), (text, salt) => run(text, salt)),
      { numRuns: runs(15_000), seed: seed + 2 },
    );
  });

  it(`arbitrary strings and bytes: ${runs(5_000)} inputs`, () => {
    fc.assert(
      fc.property(ARBITRARY, fc.nat(), (text, salt) => run(text, salt)),
      { numRuns: runs(5_000), seed: seed + 3 },
    );
  });
}
