import { defineConfig } from 'vitest/config';
import { shellText } from './test/helpers/text-loader.mjs';

export default defineConfig({
  plugins: [shellText()],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/corpus/**/*.test.ts'],
    testTimeout: 60_000,
    setupFiles: ['test/helpers/equality.ts'],
  },
});
