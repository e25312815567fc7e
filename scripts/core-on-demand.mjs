// esbuild plugin for dist/extension.js (docs/performance.md#budgets: activation ≤ 50 ms). The adapters reach the parsers and the rest
// of the pure core through src/extension/loadCore.ts, which requires `./core.js` (dist/core.js, built from
// src/extension/core.ts) the first time one needs it. This plugin keeps that require a require of the sibling
// file at run time instead of bundling core.ts into extension.js. Used by scripts/build.mjs and its unit test.

/** @type {import('esbuild').Plugin} */
export const coreOnDemand = {
  name: 'core-on-demand',
  setup(build) {
    build.onResolve({ filter: /^\.\/core\.js$/ }, (args) => (/[\\/]src[\\/]extension[\\/]loadCore\.ts$/.test(args.importer) ? { path: './core.js', external: true } : undefined));
  },
};
