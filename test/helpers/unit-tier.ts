// Setup of the unit tier (vitest.config.mts, `npm test`): every fast-check property runs at most UNIT_RUNS cases,
// from a fixed seed unless the test names one, so that `npm test` is deterministic and quick. The perf tier
// (test/perf/vitest.config.mts) runs the same files with the counts the tests ask for, and the checks marked
// perfIt (test/helpers/linear.ts): linear cost, heap kept, allocation sites.
import { expect, vi } from 'vitest';

const UNIT_RUNS = 60;
const UNIT_SEED = 20261207;
/** Files whose properties count how many cases reached a path (at least 200 of 5,000): they keep their numbers. */
const FULL_RUNS = /(nft-peek|nft-plain-line|nft-plain-rules)\.test\.ts$/;

vi.mock('fast-check', async (importOriginal) => {
  const fc = await importOriginal<typeof import('fast-check')>();
  type Params = Parameters<typeof fc.assert>[1];
  const capped = (params: Params): Params => (FULL_RUNS.test(expect.getState().testPath ?? '') ? params : { ...params, numRuns: Math.min(params?.numRuns ?? UNIT_RUNS, UNIT_RUNS), seed: params?.seed ?? UNIT_SEED });
  const assert = ((property: Parameters<typeof fc.assert>[0], params?: Params) => fc.assert(property, capped(params))) as typeof fc.assert;
  const check = ((property: Parameters<typeof fc.check>[0], params?: Params) => fc.check(property, capped(params))) as typeof fc.check;
  return { ...fc, assert, check, default: { ...fc, assert, check } };
});
