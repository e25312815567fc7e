// The unit tier (`npm test`): deterministic and quick (under 2 minutes on two cores). Properties run capped
// (test/helpers/unit-tier.ts); cost and memory checks (perfIt) run in the perf tier, test/perf/vitest.config.mts.
import { defineConfig } from 'vitest/config';
import { shellText } from './test/helpers/text-loader.mjs';

export default defineConfig({
  plugins: [shellText()],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/corpus/**/*.test.ts'],
    testTimeout: 60_000,
    env: { DATAPLANE_TEST_TIER: 'unit' },
    setupFiles: ['test/helpers/equality.ts', 'test/helpers/unit-tier.ts'],
  },
});
