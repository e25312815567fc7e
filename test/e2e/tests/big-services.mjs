// A 10,000-Service dump, once its parse has finished: Ctrl+T finds a Service by name, the Service graph opens and
// the first Trace ClusterIP answers, each timed and logged (the analysis worker prepares all three right after the
// parse). The polls' bound is loose on purpose (a loaded 2-core machine runs the browser, code-server and the
// worker); the log shows the real times. The dump is generated at run time into bigsvc/ of the test workspace (a folder of
// its own: a node snapshot of one file) with the project's generator (dist/generate.js, built by npm run package).
// Each time runs from when the request reached VS Code (the query typed, the command's row clicked), and the same
// requests on the 6-Service sample in the same session are logged beside them: what the editor and the browser take
// whatever the dump: Ctrl+T and the graph are held to their targets, scaled by how much slower than an idle machine
// the sample was served (see overTarget): strictly with DATAPLANE_E2E_STRICT_TIMING=1, else at REGRESSION times. The graph's first drawing is logged step by step (the webview's and the
// extension's marks on one time line). DATAPLANE_E2E_CPU_PROFILE=DIR also saves a CPU profile of the workbench page meanwhile.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { extensionLog } from '../lib/vscode.mjs';
import { closeAll, webview } from './graph.mjs';
import { generateDump } from './large.mjs';

const NAME = 'big-services.iptables';
/**
 * What each answer may take at most after the parse (ms). The targets are 1 s (Ctrl+T) and 2 s (graph, trace) on an
 * idle machine; right after the parse the worker also answers the editor's outline, folding, tokens and lenses of
 * 409,000 lines, and a CI machine (or one running several such jobs) may be many times slower: the log shows the times.
 */
const BOUND = 30_000;
/** The targets after the parse (ms): Ctrl+T finds the Service, the graph draws it. */
const TARGET = { symbols: 1_000, graph: 2_000 };
/**
 * The same requests on the 6-Service sample on an idle CI machine (ms): a run whose sample took longer is on a
 * slower (or busier) machine, and its targets grow by that factor (never shrink): the machine's noise, not the dump's.
 */
const IDLE_FLOOR = { symbols: 585, graph: 1_898 };

/** Beyond this multiple of its scaled target an answer has regressed, whatever the machine's noise. */
const REGRESSION = 3;

/** The answers beyond their targets (× `times`), each scaled by how much slower than idle this machine served the sample. */
function overTarget(big, small, times = 1) {
  return Object.keys(TARGET).flatMap((k) => {
    const allowed = Math.round(times * TARGET[k] * Math.max(1, small[k] / IDLE_FLOOR[k]));
    return big[k] > allowed ? [`${k} ${big[k]} ms > ${allowed} ms (${times > 1 ? `${times} × ` : ''}target ${TARGET[k]} ms × the machine's ${(small[k] / IDLE_FLOOR[k]).toFixed(2)})`] : [];
  });
}

/** Generates the dump once; returns a Service halfway down KUBE-SERVICES: its name, ClusterIP and port. */
function generate(workspace, log) {
  const dir = path.join(workspace, 'bigsvc');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, NAME);
  generateDump(workspace, file, 2, log);
  const rules = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /^-A KUBE-SERVICES -d \S+\/32 -p tcp -m comment --comment "[^"]+ cluster IP" -m tcp --dport \d+ -j KUBE-SVC-/.test(l));
  const m = /-d (\S+)\/32 .*--comment "([^" ]+) cluster IP" .*--dport (\d+)/.exec(rules[rules.length >> 1]);
  const service = { name: m[2], address: m[1], port: Number(m[3]) };
  log(`  ${NAME}: ${rules.length} ClusterIP rules; timing ${service.name} at ${service.address}:${service.port}`);
  return service;
}

/** The worker's log line for version 1 of the dump ("… v1 (iptables, worker): … in N ms"): its parse time, once written. */
function parsed(workspace) {
  const m = new RegExp(`\\S*${NAME.replace(/[.-]/g, '\\$&')} v1 \\(iptables, worker\\):.* in (\\d+) ms`, 'm').exec(extensionLog(workspace));
  return m ? Number(m[1]) : undefined;
}

/** The extension's log lines written since `from` (a length of the log) that match `pattern`, without their stamps. */
function logSince(workspace, from, pattern) {
  return extensionLog(workspace)
    .slice(from)
    .split('\n')
    .filter((l) => pattern.test(l))
    .map((l) => l.replace(/^\S+ \S+ \[\w+\] /, ''));
}

/** Runs `work`, then polls `done` until true; returns the ms from the end of `work` (the request reached VS Code). */
async function timed(vscode, what, work, done) {
  await work();
  const started = Date.now();
  await vscode.poll(done, { what, timeout: BOUND, interval: 50 });
  return Date.now() - started;
}

/** The graph webview's own measures of its last drawing (layout engine, layout and render ms). */
async function drawn(page) {
  const d = await webview(page)
    .locator('body')
    .evaluate((b) => ({ ...b.dataset }))
    .catch(() => ({}));
  return `${d.engine ?? '?'} layout ${d.layoutMs ?? '?'} ms, drawn ${d.renderMs ?? '?'} ms`;
}

/**
 * Ctrl+T, the graph and the first trace of one dump, each timed from the moment the request reached VS Code (the
 * query typed, the command's row clicked): the palette and the typing are the test's own cost, not the product's.
 * Run on a tiny dump in the same session too, as the floor of what the editor and the browser take.
 */
async function measure(ctx, open, service) {
  const { page, vscode, workspace } = ctx;
  const t = {};
  let mark = extensionLog(workspace).length;
  t.symbols = await timed(
    vscode,
    `${service.name} among the workspace symbols`,
    async () => {
      await page.keyboard.press('Control+P');
      await vscode.fillQuickInput(page, `#${service.name}`);
    },
    async () => (await vscode.quickInputRows(page)).some((r) => r.includes(service.name)),
  );
  await vscode.resetUi(page);
  t.symbolsLog = logSince(workspace, mark, /workspace symbols:/);
  mark = extensionLog(workspace).length;

  t.graph = await timed(
    vscode,
    'a Service drawn in the graph',
    () => vscode.runCommand(page, 'Dataplane Explorer: Show Service Graph'),
    async () => (await webview(page).locator('svg.graph g.node').count()) > 0,
  );
  t.drawn = await drawn(page);
  // The panel's first drawing step by step (the webview's marks and the extension's, one time line).
  await vscode.poll(async () => logSince(workspace, mark, /graph: first drawing/).length > 0, { what: "the graph's timing line", timeout: 10_000 }).catch(() => {});
  t.graphLog = logSince(workspace, mark, /graph: (first drawing|\d+ Services from|the list of)/);

  await open();
  const target = `${service.address}:${service.port}`;
  t.picker = await timed(
    vscode,
    'the Trace ClusterIP picker',
    () => vscode.runCommand(page, 'Dataplane Explorer: Trace ClusterIP'),
    async () => (await vscode.quickInputRows(page)).length > 0,
  );
  t.typed = await timed(
    vscode,
    `${target} in the Trace ClusterIP picker`,
    () => vscode.fillQuickInput(page, target),
    async () => (await vscode.quickInputRows(page)).some((r) => r.includes(target)),
  );
  await page.keyboard.press('Enter');
  await vscode.acceptQuickInputWhenShown(page, 'From a pod on this node', 'the "where from" picker');
  t.trace = await timed(
    vscode,
    'the trace in the Dataplane Trace view',
    async () => {},
    async () => (await vscode.panelRows(page)).some((r) => r.includes('DNAT →')),
  );
  await vscode.runCommand(page, 'Dataplane Explorer: Clear Trace');
  await closeAll(page, vscode);
  return t;
}

/** With DATAPLANE_E2E_CPU_PROFILE=DIR: a CPU profile of the workbench's page (its main thread) while `measure` runs. */
async function startProfile(page) {
  const dir = process.env.DATAPLANE_E2E_CPU_PROFILE;
  if (!dir) return undefined;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(path.join(dir, `workbench-${Date.now()}.cpuprofile`), JSON.stringify(profile));
  };
}

const line = (t) => `Ctrl+T ${t.symbols} ms, graph ${t.graph} ms (${t.drawn}), trace picker ${t.picker} ms + address typed ${t.typed} ms + trace ${t.trace} ms`;

export default [
  {
    name: 'big Services dump: after the parse, Ctrl+T, the graph and the first trace answer promptly (times logged)',
    timeout: 600_000,
    async run(ctx) {
      const { page, vscode, log, workspace } = ctx;
      const service = generate(workspace, log);
      await closeAll(page, vscode);
      await vscode.openFile(page, NAME, { tabTimeout: 120_000, lines: false });
      const anyway = page.getByRole('button', { name: /Open Anyway/i });
      await vscode.poll(
        async () => {
          if (await anyway.count())
            await anyway
              .first()
              .click()
              .catch(() => {});
          return (await page.locator('.editor-instance .monaco-editor .view-lines .view-line').count()) > 0;
        },
        { what: `${NAME} rendered`, timeout: 120_000 },
      );
      await vscode.ensureLanguageMode(page, 'iptables', log);
      const parseMs = await vscode.poll(async () => parsed(workspace), { what: `the worker's parse of ${NAME}`, timeout: 300_000, interval: 250 });
      log(`  parsed in the worker in ${parseMs} ms`);
      const profile = await startProfile(page);
      const big = await measure(ctx, () => vscode.openFile(page, NAME, { lines: false }), service);
      await profile?.();
      log(`  10,000 Services: ${line(big)}`);
      for (const l of [...big.symbolsLog, ...big.graphLog]) log(`    ${l}`);
      // What held the worker (≥ 300 ms each) since the parse: what Ctrl+T and the graph waited for.
      for (const l of logSince(workspace, 0, /worker: .* ran \d+ ms/)) log(`    ${l}`);
      // The floor: the same requests on the 6-Service sample in this session, once the big dump is gone (Ctrl+T
      // would read it from disk otherwise).
      rmSync(path.join(workspace, 'bigsvc'), { recursive: true, force: true });
      const tiny = () => vscode.openRelative(page, 'samples/iptables-nft/node1.iptables');
      await tiny();
      const small = await measure(ctx, tiny, { name: 'shop/web:http', address: '10.96.12.40', port: 80 });
      log(`  6-Service sample: ${line(small)}`);
      for (const l of [...small.symbolsLog, ...small.graphLog]) log(`    ${l}`);
      log(
        `  after the parse, beyond the 6-Service floor: Ctrl+T +${big.symbols - small.symbols} ms, graph +${big.graph - small.graph} ms, trace +${big.picker + big.typed + big.trace - small.picker - small.typed - small.trace} ms (targets 1 s, 2 s, 2 s in all; bound ${BOUND} ms each)`,
      );
      const over = overTarget(big, small);
      log(`  targets (scaled by the machine): ${over.length === 0 ? 'met' : `missed: ${over.join('; ')}`}`);
      // A shared CI machine's noise exceeds the targets' margins: the targets fail the run only when asked for
      // (DATAPLANE_E2E_STRICT_TIMING=1); a regression to several times the target always does.
      const failing = process.env.DATAPLANE_E2E_STRICT_TIMING === '1' ? over : overTarget(big, small, REGRESSION);
      if (failing.length > 0) throw new Error(`10,000 Services, after the parse: ${failing.join('; ')}`);
    },
  },
];
