// Kernel differential tests (test/kernel/README.md): real namespaces, real iptables, real packets.
// Not part of `npm test`; run with `npm run test:kernel` (as root).
import { defineConfig } from 'vitest/config';
import { shellText } from '../helpers/text-loader.mjs';

export default defineConfig({
  plugins: [shellText()],
  test: {
    include: ['test/kernel/**/*.test.ts'],
    // One file; its topologies run one after another (each is a handful of processes on a 2-core machine).
    fileParallelism: false,
    pool: 'forks',
    testTimeout: 180_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
  },
});
