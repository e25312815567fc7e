// Collects every localizable message (core `t('…')` and `vscode.l10n.t('…')`) into l10n/bundle.l10n.json,
// the file translators copy to bundle.l10n.<locale>.json. `--check` fails when the bundle is out of date.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const CALL = /(?:\bvscode\.l10n\.t|(?<![.\w])t)\(\s*'((?:[^'\\]|\\.)*)'/g;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function unescape(literal) {
  return literal.replace(/\\(.)/g, (_, c) => ({ n: '\n', t: '\t' })[c] ?? c);
}

export function collectMessages() {
  const messages = new Set();
  for (const file of files(join(root, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(CALL)) messages.add(unescape(m[1]));
  }
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
