import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/corpus/**/*.test.ts'],
    testTimeout: 60_000,
    setupFiles: ['test/helpers/equality.ts'],
  },
});
