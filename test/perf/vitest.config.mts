// The perf tier (`npm run test:perf`): property tests of 10⁵ inputs per input kind through the whole pipeline.
// Not part of `npm test`: several minutes on two cores.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/perf/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 60_000,
    setupFiles: ['test/helpers/equality.ts'],
  },
});
