// The golden harness: every feature's output for every corpus dump, sample folder and a few generated dumps, as
// one JSON file per input (test/golden/golden.ts). A refactoring that keeps behaviour keeps these byte-identical.
//   npm run golden -- --out DIR          write the golden files to DIR
//   npm run golden -- --compare DIR      write them to a temporary folder and compare with DIR (exit 1 on a difference)
//   GOLDEN_CORPUS=DIR                    the corpus when ../shared/corpus is not beside this tree
//   [--only REGEX]                       only the inputs whose id matches; [--jobs N] processes (default 2)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** ../shared/corpus beside the repository, or GOLDEN_CORPUS (a tree checked out elsewhere, e.g. for a baseline). */
const CORPUS = resolve(process.env.GOLDEN_CORPUS ?? join(ROOT, '../shared/corpus'));
const SKIP = /(^README\.md$|\.md$|\.tsv$)/;

/** Small generated dumps of each mode and style (`node dist/generate.js` arguments), beside the shipped samples. */
const GENERATED = {
  'iptables-nft': ['--mode', 'iptables', '--services', '12', '--endpoints', '3', '--seed', '7'],
  'iptables-legacy-nocomments': ['--mode', 'iptables', '--services', '10', '--endpoints', '2', '--seed', '3', '--style', 'iptables-legacy-save', '--no-comments'],
  'iptables-restore-ipv6': ['--mode', 'iptables', '--services', '8', '--endpoints', '3', '--seed', '5', '--style', 'restore-input', '--family', 'ipv6'],
  'iptables-cluster-drift': ['--mode', 'iptables', '--services', '10', '--endpoints', '3', '--seed', '11', '--drift', 'all'],
  'nft-text': ['--mode', 'nftables', '--services', '12', '--endpoints', '3', '--seed', '7'],
  'nft-cmds': ['--mode', 'nftables', '--services', '8', '--endpoints', '2', '--seed', '9', '--style', 'nft-cmds'],
  'nft-json-ipv6': ['--mode', 'nftables', '--services', '8', '--endpoints', '3', '--seed', '4', '--style', 'nft-json', '--family', 'ipv6'],
  'nft-cluster-json': ['--mode', 'nftables', '--services', '8', '--endpoints', '3', '--seed', '6', '--cluster', 'json'],
  ipvs: ['--mode', 'ipvs', '--services', '12', '--endpoints', '3', '--seed', '7'],
  'ipvs-save-list-ipv6': ['--mode', 'ipvs', '--services', '8', '--endpoints', '2', '--seed', '8', '--ipvsadm', 'save', '--ipset', 'list', '--family', 'ipv6'],
};

function parseArgs(argv) {
  const o = { jobs: 2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out' || a === '--compare' || a === '--only' || a === '--jobs') o[a.slice(2)] = argv[++i];
    else throw new Error(`unknown argument ${a} (expected --out DIR | --compare DIR [--only REGEX] [--jobs N])`);
  }
  if (!o.out === !o.compare) throw new Error('give exactly one of --out DIR and --compare DIR');
  return o;
}

function walk(dir) {
  return readdirSync(dir).sort().flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : SKIP.test(f) ? [] : [p];
  });
}

const folderGroup = (id, dir) => ({ id, dir, files: readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile() && !SKIP.test(f)).sort() });

async function bundle(work) {
  const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning', absWorkingDir: ROOT, loader: { '.sh': 'text' } };
  await esbuild.build({ ...common, entryPoints: [join(ROOT, 'test/golden/golden.ts')], outfile: join(work, 'golden.cjs') });
  await esbuild.build({ ...common, entryPoints: [join(ROOT, 'scripts/generate.ts')], outfile: join(work, 'generate.cjs') });
}

function groups(work) {
  const out = [];
  if (existsSync(CORPUS)) {
    for (const sub of ['iptables', 'nft', 'ipvs']) {
      for (const p of walk(join(CORPUS, sub))) out.push({ id: `corpus/${relative(CORPUS, p)}`, dir: dirname(p), files: [relative(dirname(p), p)] });
    }
  } else console.error(`golden: no corpus at ${CORPUS} (../shared/corpus beside the repository): corpus inputs skipped`);
  const samples = join(ROOT, 'samples');
  for (const mode of readdirSync(samples).sort()) if (statSync(join(samples, mode)).isDirectory()) out.push(folderGroup(`samples/${mode}`, join(samples, mode)));
  for (const [name, args] of Object.entries(GENERATED)) {
    const dir = join(work, 'gen', name);
    const r = spawnSync(process.execPath, [join(work, 'generate.cjs'), ...args, '--out', dir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`generate ${args.join(' ')}: ${r.stderr}`);
    out.push(folderGroup(`generated/${name}`, dir));
  }
  return out;
}

function runJobs(work, list, outDir, jobs) {
  const chunks = Array.from({ length: jobs }, (_, k) => list.filter((_, i) => i % jobs === k)).filter((c) => c.length);
  return Promise.all(
    chunks.map(
      (chunk, k) =>
        new Promise((done, fail) => {
          const file = join(work, `groups-${k}.json`);
          writeFileSync(file, JSON.stringify(chunk));
          const child = spawn(process.execPath, ['-e', 'require(process.argv[1]).main(process.argv.slice(2))', join(work, 'golden.cjs'), file, outDir, `${CORPUS}=<corpus>`, `${ROOT}=<root>`, `${work}=<work>`], { stdio: 'inherit' });
          child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`golden worker ${k} exited with ${code}`))));
        }),
    ),
  );
}

/** The first differing lines of two texts, with two lines of context. */
function shortDiff(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const from = Math.max(0, i - 2);
  const clip = (s) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);
  return [`  @@ line ${i + 1}`, ...x.slice(from, i).map((l) => `    ${clip(l)}`), ...x.slice(i, i + 4).map((l) => `  - ${clip(l)}`), ...y.slice(i, i + 4).map((l) => `  + ${clip(l)}`)].join('\n');
}

function compare(baseline, fresh, only) {
  const names = (d) => new Set(readdirSync(d).filter((f) => f.endsWith('.json')));
  const [want, got] = [names(baseline), names(fresh)];
  const onlyRe = only ? new RegExp(only) : undefined;
  const missing = [...want].filter((f) => !got.has(f) && (!onlyRe || onlyRe.test(JSON.parse(readFileSync(join(baseline, f), 'utf8')).id)));
  const extra = [...got].filter((f) => !want.has(f));
  const differ = [...got].filter((f) => want.has(f) && readFileSync(join(baseline, f), 'utf8') !== readFileSync(join(fresh, f), 'utf8'));
  for (const f of missing) console.log(`missing (in the baseline, not produced now): ${f}`);
  for (const f of extra) console.log(`extra (produced now, not in the baseline): ${f}`);
  for (const f of differ.slice(0, 10)) console.log(`differs: ${f}\n${shortDiff(readFileSync(join(baseline, f), 'utf8'), readFileSync(join(fresh, f), 'utf8'))}`);
  if (differ.length > 10) console.log(`… and ${differ.length - 10} more differing inputs`);
  console.log(`golden: ${got.size} inputs compared, ${differ.length} differ, ${missing.length} missing, ${extra.length} extra (fresh output kept in ${fresh})`);
  return differ.length + missing.length + extra.length === 0;
}

const opts = parseArgs(process.argv.slice(2));
const work = mkdtempSync(join(tmpdir(), 'golden-'));
const started = Date.now();
await bundle(work);
let list = groups(work);
if (opts.only) list = list.filter((g) => new RegExp(opts.only).test(g.id));
const outDir = opts.out ? resolve(opts.out) : join(work, 'out');
if (opts.out) rmSync(outDir, { recursive: true, force: true });
await runJobs(work, list, outDir, Math.max(1, Number(opts.jobs)));
console.log(`golden: ${list.length} inputs in ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (opts.out) {
  rmSync(work, { recursive: true, force: true });
} else {
  const same = compare(resolve(opts.compare), outDir, opts.only);
  if (same) rmSync(work, { recursive: true, force: true });
  process.exitCode = same ? 0 : 1;
}
