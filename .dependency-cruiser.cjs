// The layers of the code base (docs/ARCHITECTURE.md), checked by `npm run lint:layers` in CI.
// Type-only imports count: a cycle through types is still a knot a reader has to untie.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only ones included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-pure',
      comment: 'src/core runs in the extension, the worker, the CLI and the webview: no VS Code, no adapters.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: ['^src/extension/', '^src/cli/', '^webview/', '^vscode$', '(^|/)node_modules/@types/vscode/'] },
    },
    {
      name: 'core-no-vscode-module',
      comment: 'The vscode module is only there at run time inside VS Code.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'unknown', 'undetermined'], path: '^vscode$' },
    },
    {
      name: 'model-is-the-bottom',
      comment: 'src/core/model imports only model/ and the l10n leaf.',
      severity: 'error',
      from: { path: '^src/core/model/' },
      to: { path: '^src/', pathNot: ['^src/core/model/', '^src/core/l10n\\.ts$'] },
    },
    {
      name: 'parse-below-features',
      comment: 'Parsers build the model; the features read it, never the other way round.',
      severity: 'error',
      from: { path: '^src/core/parse/' },
      to: { path: ['^src/core/(trace|explain|language|graph)/', '^src/extension/'] },
    },
    {
      name: 'webview-not-extension',
      comment: 'The webview runs in a browser sandbox and talks to the extension by messages only.',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: '^src/extension/' },
    },
    {
      name: 'product-not-tools-or-tests',
      comment: 'Nothing shipped imports the generator or the tests.',
      severity: 'error',
      from: { path: '^(src|webview)/' },
      to: { path: '^(tools|test|scripts|bench)/' },
    },
    {
      name: 'generator-is-an-oracle',
      comment: 'tools/generate shares only kube-proxy name hashing with the product (tools/generate/README.md).',
      severity: 'error',
      from: { path: '^tools/generate/' },
      to: { path: '^(src|webview)/', pathNot: '^src/core/kube/(hash|nft-hash)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
  },
};
