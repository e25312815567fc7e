// Lists what the Simplified Chinese translation lacks: keys of l10n/bundle.l10n.json (and package.nls.json)
// missing from the zh-cn files, and zh-cn keys that the English files no longer have (stale).
// It does not translate anything and contacts no service: translations are written by hand.
//
//   node scripts/l10n-zh-cn-todo.mjs          human-readable report; exit 1 when anything is missing or stale
//   node scripts/l10n-zh-cn-todo.mjs --json   the missing bundle entries as a JSON object ("English": "") to fill in
//
// Run `npm run l10n` first so that l10n/bundle.l10n.json reflects the current sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function load(relative) {
  const path = join(root, relative);
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
}

function compare(enFile, zhFile) {
  const en = load(enFile);
  const zh = load(zhFile);
  const missing = Object.keys(en).filter((k) => typeof zh[k] !== 'string' || zh[k].trim() === '');
  const stale = Object.keys(zh).filter((k) => !Object.hasOwn(en, k));
  return { enFile, zhFile, total: Object.keys(en).length, missing, stale };
}

const results = [compare('l10n/bundle.l10n.json', 'l10n/bundle.l10n.zh-cn.json'), compare('package.nls.json', 'package.nls.zh-cn.json')];

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(Object.fromEntries(results[0].missing.map((k) => [k, ''])), null, 2));
  process.exit(0);
}

const exported = spawnSync(process.execPath, [join(root, 'scripts', 'l10n-export.mjs'), '--check'], { encoding: 'utf8' });
if (exported.status !== 0) console.log('Note: l10n/bundle.l10n.json is out of date with the sources; run `npm run l10n` first.\n');

let todo = 0;
for (const r of results) {
  console.log(`${r.zhFile}: ${r.total - r.missing.length} of ${r.total} translated, ${r.missing.length} missing, ${r.stale.length} stale`);
  for (const k of r.missing) console.log(`  missing: ${JSON.stringify(k)}`);
  for (const k of r.stale) console.log(`  stale:   ${JSON.stringify(k)}`);
  todo += r.missing.length + r.stale.length;
}
process.exit(todo === 0 ? 0 : 1);
