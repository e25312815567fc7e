// Bundles the extension host code (dist/extension.js, which loads dist/core.js on demand) and the CLI with esbuild
// (both for Node, CommonJS, `vscode` external), and the graph webview for the browser (dist/webview.js + .css).
import * as esbuild from 'esbuild';
import { coreOnDemand } from './core-on-demand.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: production ? false : 'linked',
  minify: production,
  legalComments: 'none',
  // src/core/collect/collect.sh is bundled as a string.
  loader: { '.sh': 'text' },
  logLevel: 'warning',
};

// dist/extension.js holds the adapters only and requires dist/core.js (the parsers and the rest of the pure core,
// src/extension/core.ts) the first time it needs it (src/extension/loadCore.ts; see scripts/core-on-demand.mjs).
const builds = [
  { ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: [coreOnDemand] },
  { ...common, entryPoints: ['src/extension/core.ts'], outfile: 'dist/core.js' },
  // The analysis worker (worker_threads) that parses large dumps off the extension host's thread; no `vscode`.
  { ...common, entryPoints: ['src/extension/worker.ts'], outfile: 'dist/worker.js' },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // The dump generator (samples, benchmarks); not part of the VSIX.
  { ...common, entryPoints: ['scripts/generate.ts'], outfile: 'dist/generate.js' },
  { ...common, entryPoints: ['scripts/bench.ts'], outfile: 'dist/bench.js' },
  // The Service graph webview: a browser bundle, loaded by nonce under a strict CSP.
  {
    ...common,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    entryPoints: ['webview/main.ts'],
    outfile: 'dist/webview.js',
    // When the bundle starts to run (webview/timing.ts reports it).
    banner: { js: "performance.mark('bundleStart');" },
  },
  // ELK alone: the graph webview loads it after its first drawing (webview/elkLoader.ts).
  { ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: ['webview/elk.ts'], outfile: 'dist/elk.js' },
  { ...common, platform: 'browser', entryPoints: ['webview/graph.css'], outfile: 'dist/webview.css' },
  // The "Explain This Node" webview: same rules, its own small bundle.
  { ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: ['webview/explain/main.ts'], outfile: 'dist/explain.js' },
  { ...common, platform: 'browser', entryPoints: ['webview/explain/explain.css'], outfile: 'dist/explain.css' },
];

if (watch) {
  for (const options of builds) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  }
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
