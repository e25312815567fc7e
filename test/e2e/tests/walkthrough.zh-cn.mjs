// VS Code in Simplified Chinese: the walkthrough opens with its Chinese title, steps, text and Markdown panel, its
// first button (in Chinese) opens the iptables-mode sample beside it, and the buttons of the editor steps put the
// cursor on a KUBE-SVC target and show a KUBE-SVC hover in Chinese.
import * as wt from '../lib/walkthrough.mjs';

const TITLE = wt.walkthroughTitle('zh-cn');
const STEPS = wt.walkthroughSteps('zh-cn');
const EN_STEPS = wt.walkthroughSteps('en');
const step = (id) => STEPS.find((s) => s.id === id);
const IPT = wt.sampleLines('iptables-nft', 'node1.iptables');
const SVC = 'KUBE-SVC-67NZLRHBNDSAWJRO'; // shop/web:http, three endpoints
const SERVICES_RULE = IPT.findIndex((l) => l.startsWith('-A KUBE-SERVICES ') && l.endsWith(`-j ${SVC}`)) + 1;
const SVC_PROBABILITY = IPT.findIndex((l) => l.startsWith(`-A ${SVC} `) && / --probability [\d.]+ -j KUBE-SEP-\w+$/.test(l)) + 1;

export default [
  {
    name: 'zh-cn: the walkthrough opens in Chinese and its "打开示例转储" button opens the sample',
    timeout: 90_000,
    async run({ page, vscode, log }) {
      if (TITLE === wt.walkthroughTitle('en')) throw new Error('package.nls.zh-cn.json does not translate the walkthrough title');
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await wt.openWalkthrough(page, TITLE);
      const shown = await wt.shownStepTitles(page);
      const want = STEPS.map((s) => s.title);
      if (JSON.stringify(shown) !== JSON.stringify(want)) throw new Error(`steps shown ${JSON.stringify(shown)}, expected ${JSON.stringify(want)}`);
      if (shown.some((s, i) => s === EN_STEPS[i].title)) throw new Error(`steps in English: ${JSON.stringify(shown)}`);
      // The step's Markdown panel (walkthrough/zh-cn/*.md) is the Chinese one.
      const open = STEPS.find((s) => s.id === 'open');
      await wt.showStep(page, TITLE, open.title);
      const media = page.frameLocator('.gettingStartedContainer iframe.webview.ready').frameLocator('iframe#active-frame');
      await vscode.poll(
        async () =>
          (
            (await media
              .locator('body')
              .innerText()
              .catch(() => '')) ?? ''
          ).includes('示例节点'),
        { timeout: 20_000, what: 'the Chinese Markdown of step "open" (walkthrough/zh-cn/open.md)' },
      );
      await wt.clickStepLink(page, TITLE, open.title, open.links[0].label);
      await wt.waitForEditor(page, 'node1.iptables', 'iptables');
      log(`  ${TITLE}: ${shown.length} steps, button "${open.links[0].label}"`);
    },
  },
  {
    name: 'zh-cn: the walkthrough\'s "转到一个 KUBE-SVC 目标" puts the cursor on the KUBE-SVC target, "显示 KUBE-SVC 的悬停说明" shows a Chinese hover',
    timeout: 90_000,
    async run({ page, vscode, log }) {
      const jump = step('jump');
      const hover = step('hover');
      for (const s of [jump, hover]) {
        if (s.links.length !== 1) throw new Error(`step "${s.title}": expected one button, got ${JSON.stringify(s.links)}`);
        if (!/[\u4e00-\u9fff]/.test(s.links[0].label)) throw new Error(`step "${s.title}": button not in Chinese: ${s.links[0].label}`);
      }
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await wt.clickStepLink(page, TITLE, jump.title, jump.links[0].label);
      await wt.waitForEditor(page, 'node1.iptables', 'iptables');
      const col = IPT[SERVICES_RULE - 1].indexOf(`-j ${SVC}`) + 4;
      let pos;
      await vscode
        .poll(
          async () => {
            pos = await vscode.cursorPosition(page);
            return pos.line === SERVICES_RULE && pos.col === col;
          },
          { what: `the cursor on ${SVC} (Ln ${SERVICES_RULE}, Col ${col})` },
        )
        .catch((e) => {
          throw new Error(`${e.message}; status bar says "${pos?.text}"`);
        });
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await page.mouse.move(1, 1);
      await wt.clickStepLink(page, TITLE, hover.title, hover.links[0].label);
      await wt.waitForEditor(page, 'node1.iptables', 'iptables');
      let text = '';
      const chainFacts = wt.message('zh-cn', 'user chain in table {0}', 'nat');
      await vscode
        .poll(async () => (text = await vscode.hoverText(page)).includes(chainFacts), { timeout: 20_000, what: `a Chinese hover ("${chainFacts}")` })
        .catch((e) => {
          throw new Error(`${e.message}; hover text: ${JSON.stringify(text)}`);
        });
      for (const s of [SVC, 'shop/web:http', '10.244.1.7:8080']) if (!text.includes(s)) throw new Error(`the hover misses ${s}:\n${text}`);
      pos = await vscode.cursorPosition(page);
      if (pos.line !== SVC_PROBABILITY) throw new Error(`cursor at ${pos.text}, expected line ${SVC_PROBABILITY}`);
      log(`  ${jump.links[0].label} → Ln ${SERVICES_RULE}; ${hover.links[0].label} → ${text.split('\n').slice(0, 2).join(' | ')}`);
    },
  },
];
