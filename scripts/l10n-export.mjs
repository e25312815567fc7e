// Collects every localizable message (core `t('…')` and `vscode.l10n.t('…')`) into l10n/bundle.l10n.json,
// the file translators copy to bundle.l10n.<locale>.json. `--check` fails when the bundle is out of date.
// The iptables extension tables (src/core/parse/iptables/extensions.ts) are data: their English summaries are
// translated where they are shown (t(summary)), so they are read from the tables themselves (bundled with esbuild).
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
// Single or double quotes: Prettier writes a message that contains ' in double quotes.
const CALL = /(?:\bvscode\.l10n\.t|(?<![.\w])(?:t|mdT))\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function unescape(literal) {
  return literal.replace(/\\(.)/g, (_, c) => ({ n: '\n', t: '\t' })[c] ?? c);
}

/** Every summary of the iptables extension tables, except an alias's "Same as …" (shown as t('Same as {0}: {1}', …)). */
export function extensionSummaries() {
  const { outputFiles } = buildSync({ entryPoints: [join(root, 'src/core/parse/iptables/extensions.ts')], bundle: true, write: false, format: 'cjs', platform: 'node', logLevel: 'error' });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', outputFiles[0].text)(module, module.exports, createRequire(import.meta.url));
  const { MATCH_EXTENSIONS, TARGET_EXTENSIONS, BASIC_OPTIONS } = module.exports;
  const summaries = new Set();
  const option = (o) => o.canonicalSummary === undefined && summaries.add(o.summary);
  for (const ext of [...Object.values(MATCH_EXTENSIONS), ...Object.values(TARGET_EXTENSIONS)]) {
    summaries.add(ext.summary);
    Object.values(ext.options).forEach(option);
  }
  Object.values(BASIC_OPTIONS).forEach(option);
  return summaries;
}

export function collectMessages() {
  const messages = new Set();
  for (const file of files(join(root, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(CALL)) messages.add(unescape(m[1] ?? m[2]));
  }
  for (const summary of extensionSummaries()) messages.add(summary);
  return Object.fromEntries([...messages].sort().map((m) => [m, m]));
}

const bundlePath = join(root, 'l10n', 'bundle.l10n.json');
const wanted = JSON.stringify(collectMessages(), null, 2) + '\n';
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(bundlePath, 'utf8');
  } catch {}
  if (current !== wanted) {
    console.error('l10n/bundle.l10n.json is out of date: run npm run l10n');
    process.exit(1);
  }
} else {
  writeFileSync(bundlePath, wanted);
  console.log(`${Object.keys(JSON.parse(wanted)).length} messages → l10n/bundle.l10n.json`);
}
