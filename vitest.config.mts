// The unit tier (`npm test`): deterministic and quick (under 2 minutes on two cores). Properties run capped
// (test/helpers/unit-tier.ts); cost and memory checks (perfIt) run in the perf tier, test/perf/vitest.config.mts.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { shellText } from './test/helpers/text-loader.mjs';

/**
 * Files that run in a module registry of their own: cli.test.ts replaces modules (vi.resetModules, vi.doMock); the
 * others parse the corpus or large generated dumps many times, and in a shared worker (whose heap holds what the
 * files before them left) their corpus passes ran 3–12× longer than alone and timed out at load average 15–24.
 */
const ISOLATED = [
  'test/unit/cli.test.ts',
  'test/unit/parse-accelerators.test.ts',
  'test/unit/nft-fast-path.test.ts',
  'test/unit/iptables-kube-shapes.test.ts',
  'test/unit/iptables-fastpath.test.ts',
  'test/unit/ipvs-ipset-fastpath.test.ts',
];

export default defineConfig({
  plugins: [shellText()],
  test: {
    // Vitest's default is one worker fewer than the cores: on two cores, one worker ran every file in turn while
    // the other core idled. Its main process only collects results, so every core runs a worker.
    maxWorkers: availableParallelism(),
    testTimeout: 60_000,
    // A worker bundle built with esbuild in beforeAll took over 10 s at load average 25.
    hookTimeout: 60_000,
    env: { DATAPLANE_TEST_TIER: 'unit' },
    setupFiles: ['test/helpers/equality.ts', 'test/helpers/unit-tier.ts'],
    projects: [
      {
        extends: true,
        // The other files share each worker's modules: importing the parsers and the language layer (Chevrotain
        // grammars, catalogs) once per worker instead of once per file halved the CPU time of 23 trace and wild
        // files (60 s → 25 s). Every file that changes shared state (the translator) puts it back after itself.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/corpus/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
      // Named to sort before 'unit' (projects run in name order): the longest files start first and the short
      // shared-worker files fill in after them, instead of a long isolated file running alone at the end.
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
