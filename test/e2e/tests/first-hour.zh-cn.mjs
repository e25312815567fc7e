// The first hour in Simplified Chinese (`--locale zh-cn`): Ctrl+T, the language status, the Trace view's header and
// cumulative shares, Copy Trace as Text, a trace to no Service and the picker of a dump without Services. Expected
// texts come from l10n/bundle.l10n.zh-cn.json and package.nls.zh-cn.json (see first-hour.mjs for the English twin).
import * as wt from '../lib/walkthrough.mjs';
import { copyFromTitleMenu, copyStepWithCtrlC, expandLastTwo, noServicesPicker, panelRowWith, SAMPLE, STAT, statisticSteps, traceShopWeb } from './first-hour.mjs';

const ZH = wt.nls('zh-cn');
const CATEGORY = ZH.category;
const msg = (english, ...args) => wt.message('zh-cn', english, ...args);
const TRACE = `${CATEGORY}: ${ZH['command.traceClusterIP']}`;
const FROM_POD = msg('From a pod on this node');

export default [
  {
    name: 'zh-cn: first hour: Ctrl+T finds a Service by name',
    timeout: 90_000,
    async run({ page, vscode }) {
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await vscode.openRelative(page, 'samples/ipvs/node1.iptables');
      await page.keyboard.press('Control+P');
      const input = await vscode.fillQuickInput(page, '#kube-system/kube-dns:dns');
      // The first query reads every snapshot folder of the workspace: on a loaded machine it may answer before they
      // are all read, and quick open asks again only when the text changes. Type it again, as a person would.
      let asked = Date.now();
      await vscode.poll(
        async () => {
          if ((await vscode.quickInputRows(page)).some((r) => r.includes('kube-system/kube-dns:dns/udp'))) return true;
          if (Date.now() - asked > 5_000) {
            await input.fill('#kube-system/kube-dns');
            await input.fill('#kube-system/kube-dns:dns');
            asked = Date.now();
          }
          return false;
        },
        { what: 'kube-system/kube-dns:dns/udp among the workspace symbols', timeout: 60_000 },
      );
    },
  },
  {
    name: 'zh-cn: first hour: the language status is short and in Chinese, with the counts in its detail',
    timeout: 120_000,
    async run({ page, vscode }) {
      const cases = [
        {
          file: SAMPLE,
          mode: 'iptables',
          text: `iptables-nft · ${msg('kube-proxy {0}', 'iptables')} · ${msg('{0} Services', 6)}`,
          detail: `${msg('{0} tables, {1} chains, {2} rules', 3, 48, 82)} · ${msg('{0} errors, {1} warnings', 0, 0)}`,
        },
        { file: 'samples/ipvs/node1.ipvsadm', mode: 'ipvsadm', text: `ipvsadm · ${msg('{0} virtual services', 9)} · ${msg('{0} real servers', 16)}`, detail: msg('{0} errors, {1} warnings', 0, 1) },
      ];
      for (const c of cases) {
        await vscode.runCommand(page, 'View: Close All Editor Groups');
        await vscode.openRelative(page, c.file);
        await vscode.ensureLanguageMode(page, c.mode);
        await vscode
          .poll(
            async () => {
              const s = await vscode.languageStatusHover(page);
              return s.includes(c.text) && s.includes(c.detail);
            },
            { what: `the language status of ${c.file}: "${c.text}" and "${c.detail}"` },
          )
          .catch(async (e) => {
            throw new Error(`${e.message}; shown: ${await vscode.languageStatusHover(page)}`);
          });
        await vscode.resetUi(page);
      }
    },
  },
  {
    name: 'zh-cn: first hour: the Trace view names the Service, shows cumulative shares, and copies them (text, Markdown, Ctrl+C)',
    timeout: 240_000,
    async run({ page, vscode, log }) {
      await traceShopWeb(page, vscode, { command: TRACE, fromPod: FROM_POD });
      const header = await panelRowWith(page, vscode, ['→ 10.96.12.40:80', msg('{0} · Service {1}', msg('from a pod on this node'), 'shop/web:http')], 'the packet row naming the Service in Chinese');
      log(`  header: ${header}`);
      await expandLastTwo(page, vscode);
      const steps = statisticSteps('zh-cn');
      for (const step of steps) await panelRowWith(page, vscode, [step], `the step "${step}"`);
      const text = await vscode.copied(page, () => vscode.runCommand(page, `${CATEGORY}: ${ZH['command.copyTraceText']}`), 'the trace as text');
      for (const s of ['· Service shop/web:http', ...steps]) if (!text.includes(s)) throw new Error(`the copied trace misses ${JSON.stringify(s)}:\n${text.slice(0, 3000)}`);
      // The title bar menu and Ctrl+C on a step (VS Code's own words stay English: the language pack translates none).
      const markdown = await copyFromTitleMenu(page, vscode, ZH['command.copyTraceMarkdown']);
      for (const s of ['Service `shop/web:http`', steps[3]]) if (!markdown.includes(s)) throw new Error(`the Markdown misses ${JSON.stringify(s)}:\n${markdown.slice(0, 3000)}`);
      const step = await copyStepWithCtrlC(page, vscode, steps[1], `${ZH['view.container']}: Focus on ${ZH['view.trace']} View`);
      if (!step.startsWith(`node1.iptables:${STAT[1]}  nat/KUBE-SVC-67NZLRHBNDSAWJRO  `) || !step.includes(steps[1]) || !step.endsWith('-j KUBE-SEP-OOU4MFCTGRJM4IXC'))
        throw new Error(`Ctrl+C on the step copied:\n${step}`);
    },
  },
  {
    name: 'zh-cn: first hour: a trace to no Service says so; a dump without Services says so in the picker',
    timeout: 120_000,
    async run({ page, vscode }) {
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await vscode.openFile(page, 'node1.txt');
      await vscode.ensureLanguageMode(page, 'iptables');
      await vscode.runCommand(page, TRACE);
      await vscode.fillQuickInput(page, '172.30.0.99:80');
      await vscode.acceptQuickInputWhenShown(page, '172.30.0.99:80/tcp', 'the typed address in the picker');
      await vscode.acceptQuickInputWhenShown(page, FROM_POD, `"${FROM_POD}" in the where-from picker`);
      const note = msg('No Service matches {0}: not translated, routed as is.', '172.30.0.99:80');
      await panelRowWith(page, vscode, [note], `"${note}" in the Trace view`);

      await noServicesPicker(page, vscode, TRACE, msg('No Services here — type ADDRESS:PORT[/tcp|udp|sctp]'));
      await vscode.resetUi(page);
    },
  },
];
