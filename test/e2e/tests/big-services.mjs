// A 10,000-Service dump, once its parse has finished: Ctrl+T finds a Service by name, the Service graph opens and
// the first Trace ClusterIP answers, each timed and logged (the analysis worker prepares all three right after the
// parse). The bounds are loose on purpose (a loaded 2-core machine runs the browser, code-server and the worker);
// the log shows the real times. The dump is generated at run time into bigsvc/ of the test workspace (a folder of
// its own: a node snapshot of one file) with the project's generator (dist/generate.js, built by npm run package).

import { mkdirSync, readFileSync } from 'node:fs';
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

/** Generates the dump once; returns a Service halfway down KUBE-SERVICES: its name, ClusterIP and port. */
function generate(workspace, log) {
  const dir = path.join(workspace, 'bigsvc');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, NAME);
  generateDump(workspace, file, 2, log);
  const rules = readFileSync(file, 'utf8').split('\n').filter((l) => /^-A KUBE-SERVICES -d \S+\/32 -p tcp -m comment --comment "[^"]+ cluster IP" -m tcp --dport \d+ -j KUBE-SVC-/.test(l));
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

/** Runs `work`, then polls `done` until true; returns the ms from the start of `work`, failing beyond BOUND. */
async function timed(vscode, what, work, done) {
  const started = Date.now();
  await work();
  await vscode.poll(done, { what, timeout: BOUND, interval: 50 });
  return Date.now() - started;
}

export default [
  {
    name: 'big Services dump: after the parse, Ctrl+T, the graph and the first trace answer promptly (times logged)',
    timeout: 480_000,
    async run(ctx) {
      const { page, vscode, log, workspace } = ctx;
      const service = generate(workspace, log);
      await closeAll(page, vscode);
      await vscode.openFile(page, NAME, { tabTimeout: 120_000, lines: false });
      const anyway = page.getByRole('button', { name: /Open Anyway/i });
      await vscode.poll(async () => {
        if (await anyway.count()) await anyway.first().click().catch(() => {});
        return (await page.locator('.editor-instance .monaco-editor .view-lines .view-line').count()) > 0;
      }, { what: `${NAME} rendered`, timeout: 120_000 });
      await vscode.ensureLanguageMode(page, 'iptables', log);
      const parseMs = await vscode.poll(async () => parsed(workspace), { what: `the worker's parse of ${NAME}`, timeout: 300_000, interval: 250 });
      log(`  parsed in the worker in ${parseMs} ms`);

      // Ctrl+T (quick open's # is the same workspace symbol search): the Service by its namespace/name.
      const symbols = await timed(vscode, `${service.name} among the workspace symbols`, async () => {
        await page.keyboard.press('Control+P');
        await vscode.fillQuickInput(page, `#${service.name}`);
      }, async () => (await vscode.quickInputRows(page)).some((r) => r.includes(service.name)));
      log(`  Ctrl+T found ${service.name} in ${symbols} ms`);
      await vscode.resetUi(page);

      // The Service graph: from the command until the first Service is drawn.
      const graph = await timed(vscode, 'a Service drawn in the graph', () => vscode.runCommand(page, 'Dataplane Explorer: Show Service Graph'), async () => (await webview(page).locator('svg.graph g.node').count()) > 0);
      log(`  the Service graph drew its first Service ${graph} ms after the command`);

      // The first trace, from the dump's editor: the picker's rows, then the trace once the packet's origin is picked.
      await vscode.openFile(page, NAME, { lines: false });
      const target = `${service.address}:${service.port}`;
      const picker = await timed(vscode, `${target} in the Trace ClusterIP picker`, async () => {
        await vscode.runCommand(page, 'Dataplane Explorer: Trace ClusterIP');
        await vscode.fillQuickInput(page, target);
      }, async () => (await vscode.quickInputRows(page)).some((r) => r.includes(target)));
      await page.keyboard.press('Enter');
      await vscode.acceptQuickInputWhenShown(page, 'From a pod on this node', 'the "where from" picker');
      const trace = await timed(vscode, 'the trace in the Dataplane Trace view', async () => {}, async () => (await vscode.panelRows(page)).some((r) => r.includes('DNAT →')));
      log(`  Trace ClusterIP: the picker listed ${target} after ${picker} ms, the trace showed ${trace} ms after the origin was picked`);
      log(`  after the parse: Ctrl+T ${symbols} ms, graph ${graph} ms, first trace ${picker} + ${trace} ms (targets 1 s, 2 s, 2 s; bound ${BOUND} ms)`);
      await vscode.runCommand(page, 'Dataplane Explorer: Clear Trace');
      await closeAll(page, vscode);
    },
  },
];
