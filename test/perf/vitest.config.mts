// The perf tier (`npm run test:perf`): property tests of 10⁵ inputs per input kind through the whole pipeline,
// the linear-cost checks (test/perf/*-linear.test.ts), and the unit files that hold cost or memory checks
// (perfIt, test/helpers/linear.ts) or ask a property for more cases than the unit tier runs
// (test/helpers/unit-tier.ts): here they run in full. Not part of `npm test`: several minutes on two cores.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { shellText } from '../helpers/text-loader.mjs';

/** The unit tier's cap on a property's cases (test/helpers/unit-tier.ts). */
const UNIT_RUNS = 60;

function heavyUnitFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => {
      const text = readFileSync(join(dir, f), 'utf8');
      return /\bperfIt\b/.test(text) || [...text.matchAll(/numRuns: ([\d_]+)/g)].some((m) => Number(m[1].replace(/_/g, '')) > UNIT_RUNS);
    })
    .map((f) => join(dir, f));
}

export default defineConfig({
  plugins: [shellText()],
  test: {
    include: ['test/perf/**/*.test.ts', ...heavyUnitFiles('test/unit'), ...heavyUnitFiles('test/corpus')],
    env: { DATAPLANE_TEST_TIER: 'perf' },
    testTimeout: 900_000,
    hookTimeout: 60_000,
    setupFiles: ['test/helpers/equality.ts'],
  },
});
