// What a new user meets in the first hour, in the real editor: the language status's short text and its detail,
// breadcrumbs that follow the chain the cursor is in, the Trace view's header, cumulative shares on kube-proxy's
// statistic steps, Copy Trace as Text / Markdown / JSON (the CLI's own output) and Ctrl+C on a step, and the Trace
// ClusterIP picker on a dump without Services. The zh-cn twin is first-hour.zh-cn.mjs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as wt from '../lib/walkthrough.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SAMPLE = 'samples/iptables-nft/node1.iptables';
const LINES = wt.sampleLines('iptables-nft', 'node1.iptables');
/** kube-proxy's three statistic rules of shop/web:http (1/3, 1/2, then the rest), 1-based. */
export const STAT = [0, 1, 2].map((k) => LINES.findIndex((l) => l.includes(`"shop/web:http -> 10.244.${k + 1}.${k + 7}:8080"`)) + 1);

const PANEL = '[id="workbench.parts.panel"]';

/**
 * Scrolls the panel's tree (the visible list that has rows) by `deltaY` pixels, or to its top (`'top'`) or one page
 * down (`'page'`), with a wheel event sent to the list itself: a wheel at the mouse goes to whatever is on top there
 * (a row's hover, a notification) and the panel keeps other lists hidden. Returns whether there was a list; without
 * `how`, the index of its first rendered row instead (0 at the top).
 */
export async function scrollPanelTree(page, how) {
  return page.evaluate(
    ({ panel, how }) => {
      const list = [...document.querySelectorAll(`${panel} .monaco-list`)].find((l) => l.getClientRects().length && l.getBoundingClientRect().height > 0 && l.querySelector('.monaco-list-row'));
      if (!list) return false;
      if (how === undefined) return Math.min(...[...list.querySelectorAll('.monaco-list-row')].map((r) => Number(r.dataset.index)));
      const deltaY = how === 'top' ? -1e7 : how === 'page' ? Math.max(20, list.getBoundingClientRect().height - 44) : how;
      // Chromium's legacy wheelDelta is what VS Code's wheel handler reads first.
      const init = { deltaY, deltaMode: 0, wheelDeltaX: 0, wheelDeltaY: -deltaY, bubbles: true, cancelable: true };
      (list.querySelector('.monaco-scrollable-element') ?? list).dispatchEvent(new WheelEvent('wheel', init));
      return true;
    },
    { panel: PANEL, how },
  );
}

const nextFrame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/**
 * The row of the panel's tree that contains all of `parts`, polled until there is one. The tree renders only the
 * rows in view: each try walks it from its top a page at a time down to its bottom (where the rows stop changing).
 */
export async function panelRowWith(page, vscode, parts, what) {
  const has = (r) => parts.every((p) => r.includes(p));
  let rows = [];
  let first;
  const seen = new Set();
  const found = await vscode
    .poll(
      async () => {
        rows = await vscode.panelTexts(page);
        if (rows.some(has)) return rows.find(has);
        if (!(await scrollPanelTree(page, 'top'))) return undefined;
        await nextFrame(page);
        // The walk proves nothing unless it starts at the first row.
        if ((first = await scrollPanelTree(page)) !== 0) return undefined;
        for (let before = ''; ;) {
          await nextFrame(page);
          rows = await vscode.panelTexts(page);
          rows.forEach((r) => seen.add(r));
          if (rows.some(has)) return rows.find(has);
          if (JSON.stringify(rows) === before) return undefined;
          before = JSON.stringify(rows);
          await scrollPanelTree(page, 'page');
        }
      },
      { timeout: 20_000, what },
    )
    .catch((e) => {
      throw new Error(`${e.message}\nfirst row at the top: ${first}; rows seen: ${JSON.stringify([...seen], null, 1)}`);
    });
  return found;
}

/** Trace ClusterIP shop/web:http (10.96.12.40:80) of the iptables-nft sample from a pod; waits for its three outcomes. */
export async function traceShopWeb(page, vscode, { command, fromPod }) {
  await vscode.runCommand(page, 'View: Close All Editor Groups');
  await vscode.openRelative(page, SAMPLE);
  await vscode.ensureLanguageMode(page, 'iptables');
  await vscode.runCommand(page, command);
  await vscode.fillQuickInput(page, 'shop/web');
  await vscode.acceptQuickInputWhenShown(page, '10.96.12.40:80', 'the ClusterIP 10.96.12.40:80 in the picker');
  // The where-from picker follows the Service's analysis in the worker, which may still be reading the workspace's
  // other folders ahead on a loaded machine.
  await vscode.acceptQuickInputWhenShown(page, fromPod, `"${fromPod}" in the where-from picker`, 30_000);
  for (const ep of ['10.244.1.7:8080', '10.244.2.8:8080', '10.244.3.9:8080']) await panelRowWith(page, vscode, [`DNAT → ${ep}`], `the outcome DNAT → ${ep}`);
}

/**
 * Clicks the panel row that shows `text` once it is inside the tree's viewport (a row half under the view's title
 * bar gets no click): scrolls it in first.
 */
export async function clickPanelRow(page, vscode, text) {
  await vscode.poll(
    async () => {
      await panelRowWith(page, vscode, [text], `the row "${text}"`);
      const list = await page
        .locator(`${PANEL} .monaco-list:visible`, { has: page.locator('.monaco-list-row') })
        .first()
        .boundingBox({ timeout: 2000 });
      const box = await page.locator(`${PANEL} .monaco-list-row`, { hasText: text }).first().boundingBox({ timeout: 1000 });
      if (!list || !box) return false;
      if (box.y < list.y || box.y + box.height > list.y + list.height) {
        await scrollPanelTree(page, box.y < list.y ? box.y - list.y - 2 * box.height : box.y + 2 * box.height - (list.y + list.height));
        return false;
      }
      await page.mouse.click(box.x + Math.min(box.width / 2, 200), box.y + box.height / 2);
      return true;
    },
    { what: `a click on the row "${text}"`, timeout: 30_000 },
  );
}

/**
 * Expands the outcome rows of the third and second endpoints (several outcomes start collapsed, and the view may
 * remember an earlier trace's): the third first, so that expanding the second leaves it in the tree's rendered rows.
 */
export async function expandLastTwo(page, vscode) {
  for (const ep of ['10.244.3.9:8080', '10.244.2.8:8080']) {
    await vscode.poll(
      async () => {
        await panelRowWith(page, vscode, [`DNAT → ${ep}`], `the outcome DNAT → ${ep}`);
        const row = page.locator(`${PANEL} .monaco-list-row`, { hasText: `DNAT → ${ep}` }).first();
        if ((await row.getAttribute('aria-expanded', { timeout: 1000 })) === 'true') return true;
        await clickPanelRow(page, vscode, `DNAT → ${ep}`);
        return false;
      },
      { what: `the outcome DNAT → ${ep} expanded`, timeout: 60_000 },
    );
  }
}

/** The steps of kube-proxy's statistic rules as the Trace view words them (see trace-shares.test.ts). */
export function statisticSteps(locale) {
  const m = (english, ...args) => wt.message(locale, english, ...args);
  return [
    m('Not taken with probability {0}; share of new connections going on: {1}.', '2/3', '2/3'),
    m('Share of new connections: {0}.', '2/3 × 1/2 = 1/3'),
    m('Not taken with probability {0}; share of new connections going on: {1}.', '1/2', '2/3 × 1/2 = 1/3'),
    m('Taken by what the rules not taken left; share of new connections: {0}.', '1/3'),
  ];
}

/** Runs a Copy Trace command from the Trace view's title bar menu (…), as a person finds it; returns what it copied. */
export async function copyFromTitleMenu(page, vscode, title) {
  return vscode.copied(
    page,
    async () => {
      await page.locator(`${PANEL} .codicon-toolbar-more`).first().click();
      await page.locator('.monaco-menu .action-item', { hasText: title }).first().click();
    },
    `"${title}"`,
  );
}

/**
 * Ctrl+C on the step whose row shows `note`: select it (which reveals its rule in the editor), give the view the
 * focus back with its Focus command (`focusCommand`), press Ctrl+C; returns what it copied.
 */
export async function copyStepWithCtrlC(page, vscode, note, focusCommand) {
  await clickPanelRow(page, vscode, note);
  await vscode.poll(async () => (await vscode.cursorPosition(page)).line === STAT[1], { what: `the rule of the step on line ${STAT[1]}` });
  await vscode.runCommand(page, focusCommand);
  return vscode.copied(page, () => page.keyboard.press('Control+C'), 'the step');
}

/** Trace ClusterIP (`command`) on a dump without Services: waits for its picker to say `hint`; returns its input. */
export async function noServicesPicker(page, vscode, command, hint) {
  await vscode.runCommand(page, 'View: Close All Editor Groups');
  await vscode.openRelative(page, 'no-services/host.iptables');
  await vscode.ensureLanguageMode(page, 'iptables');
  await vscode.runCommand(page, command);
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await vscode.poll(async () => (await input.getAttribute('placeholder')) === hint, { what: `the picker saying "${hint}"` });
  return input;
}

/** What the CLI prints for the same trace (`dataplane trace FILE --to 10.96.12.40:80 [--json]`), run from the repo. */
function cli(...extra) {
  // The sample's folder holds its cluster state, which the editor reads beside the dump: so does the CLI here.
  const cluster = path.join(path.dirname(SAMPLE), 'cluster-state.yaml');
  return execFileSync(process.execPath, [path.join(REPO, 'dist', 'cli.js'), 'trace', SAMPLE, '--to', '10.96.12.40:80', '--cluster', cluster, ...extra], { cwd: REPO, encoding: 'utf8' });
}

export default [
  {
    name: 'first hour: the language status is short (backend · mode · Services) with the counts in its detail',
    timeout: 150_000,
    async run({ page, vscode }) {
      const cases = [
        { file: SAMPLE, mode: 'iptables', text: 'iptables-nft · kube-proxy iptables · 6 Services', detail: '3 tables, 48 chains, 82 rules · 0 errors, 0 warnings' },
        // IPVS: virtual services and real servers, never "0 Services".
        { file: 'samples/ipvs/node1.ipvsadm', mode: 'ipvsadm', text: 'ipvsadm · 9 virtual services · 16 real servers', detail: '0 errors, 1 warnings' },
        { file: 'samples/ipvs/node1.iptables', mode: 'iptables', text: 'iptables-nft · kube-proxy ipvs', detail: 'the Services are in the ipvsadm dump' },
      ];
      for (const c of cases) {
        await vscode.runCommand(page, 'View: Close All Editor Groups');
        await vscode.openRelative(page, c.file);
        await vscode.ensureLanguageMode(page, c.mode);
        const status = await vscode
          .poll(
            async () => {
              const s = await vscode.languageStatusHover(page);
              return s.includes(c.text) && s.includes(c.detail) ? s : undefined;
            },
            { what: `the language status of ${c.file}: "${c.text}" and "${c.detail}"` },
          )
          .catch(async (e) => {
            throw new Error(`${e.message}; shown: ${await vscode.languageStatusHover(page)}`);
          });
        if (/\b0 Services/.test(status)) throw new Error(`${c.file}: the status counts 0 Services: ${status}`);
        await vscode.resetUi(page);
      }
    },
  },
  {
    name: 'first hour: breadcrumbs name the chain declared on the cursor line, its Service first',
    timeout: 90_000,
    async run({ page, vscode }) {
      const node1 = vscode.fixtureLines(readFileSync(path.join(REPO, 'test/e2e/fixtures/node1.txt'), 'utf8'));
      const decl = (chain) =>
        node1.findIndex(
          (l, i) =>
            l.startsWith(`:${chain} `) &&
            node1
              .slice(0, i)
              .reverse()
              .find((x) => x.startsWith('*')) === '*nat',
        ) + 1;
      const cases = [
        { line: decl('KUBE-SVC-XPGD46QRK7WJZT7O'), last: 'ns1/svc1:p80 · KUBE-SVC-XPGD46QRK7WJZT7O' },
        { line: decl('KUBE-SERVICES'), last: 'KUBE-SERVICES' },
      ];
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await vscode.openFile(page, 'node1.txt');
      await vscode.ensureLanguageMode(page, 'iptables');
      for (const c of cases) {
        if (c.line <= 0) throw new Error(`fixture: no declaration for ${c.last} in *nat`);
        await vscode.gotoLine(page, c.line);
        let crumbs = [];
        await vscode
          .poll(async () => (crumbs = await vscode.breadcrumbs(page)).at(-1) === c.last && crumbs.at(-2) === 'nat', { what: `breadcrumbs "… › nat › ${c.last}" on line ${c.line}` })
          .catch((e) => {
            throw new Error(`${e.message}; breadcrumbs: ${crumbs.join(' › ')}`);
          });
      }
    },
  },
  {
    name: 'first hour: the Trace view names the Service and the packet; statistic steps show cumulative shares',
    timeout: 150_000,
    async run({ page, vscode, log }) {
      await traceShopWeb(page, vscode, { command: 'Dataplane Explorer: Trace ClusterIP', fromPod: 'From a pod on this node' });
      const header = await panelRowWith(page, vscode, ['→ 10.96.12.40:80', 'from a pod on this node · Service shop/web:http'], 'the packet row naming the Service');
      log(`  header: ${header}`);
      await expandLastTwo(page, vscode);
      for (const step of statisticSteps('en')) await panelRowWith(page, vscode, [step], `the step "${step}"`);
    },
  },
  {
    name: "first hour: Copy Trace as Text / Markdown / JSON put the CLI's output on the clipboard; Ctrl+C copies a step",
    timeout: 240_000,
    async run({ page, vscode, log }) {
      await traceShopWeb(page, vscode, { command: 'Dataplane Explorer: Trace ClusterIP', fromPod: 'From a pod on this node' });
      // A tree left at its bottom (an earlier trace's outcomes expanded, as the view remembers): found from its top again.
      await expandLastTwo(page, vscode);
      await scrollPanelTree(page, 1e7);
      await vscode.poll(async () => (await scrollPanelTree(page)) > 0, { what: 'the Trace tree scrolled past its first row' });
      log(`  first row from the bottom: ${await scrollPanelTree(page)}`);
      await panelRowWith(page, vscode, ['→ 10.96.12.40:80', 'Service shop/web:http'], 'the packet row, found again from the bottom');
      const text = await vscode.copied(page, () => vscode.runCommand(page, 'Dataplane Explorer: Copy Trace as Text'), 'the trace as text');
      const expected = cli().trimEnd();
      if (text.trimEnd() !== expected) throw new Error(`Copy Trace as Text differs from the CLI's output:\n--- copied\n${text}\n--- dataplane trace\n${expected}`);
      const json = await vscode.copied(page, () => vscode.runCommand(page, 'Dataplane Explorer: Copy Trace as JSON'), 'the trace as JSON');
      if (JSON.stringify(JSON.parse(json)) !== JSON.stringify(JSON.parse(cli('--json')))) throw new Error(`Copy Trace as JSON differs from dataplane trace --json:\n${json.slice(0, 3000)}`);
      const markdown = await copyFromTitleMenu(page, vscode, 'Copy Trace as Markdown');
      for (const s of ['**tcp ', '→ 10.96.12.40:80 (from a pod on this node)**', 'Service `shop/web:http`', '### 33.3% DNAT → `10.244.3.9:8080`', `\`node1.iptables:${STAT[1]}\` \`nat/KUBE-SVC-67NZLRHBNDSAWJRO\``]) {
        if (!markdown.includes(s)) throw new Error(`the Markdown misses ${JSON.stringify(s)}:\n${markdown.slice(0, 3000)}`);
      }
      await expandLastTwo(page, vscode);
      const [, taken] = statisticSteps('en');
      const step = await copyStepWithCtrlC(page, vscode, taken, 'Dataplane: Focus on Dataplane Trace View');
      const want = `node1.iptables:${STAT[1]}  nat/KUBE-SVC-67NZLRHBNDSAWJRO  Taken with probability 50% (--probability). ${taken} Jump to KUBE-SEP-OOU4MFCTGRJM4IXC.\n${LINES[STAT[1] - 1]}`;
      if (step !== want) throw new Error(`Ctrl+C on the step copied:\n${step}\nexpected:\n${want}`);
    },
  },
  {
    name: 'first hour: Trace ClusterIP on a dump without Services says so in the picker and traces a typed address',
    timeout: 90_000,
    // A host's own firewall (no kube-proxy): nothing to pick, the typed address is traced through its filter rules.
    async run({ page, vscode }) {
      const input = await noServicesPicker(page, vscode, 'Dataplane Explorer: Trace ClusterIP', 'No Services here — type ADDRESS:PORT[/tcp|udp|sctp]');
      await input.fill('10.96.12.99:80');
      await vscode.acceptQuickInputWhenShown(page, '10.96.12.99:80/tcp', 'the typed address in the picker');
      await vscode.acceptQuickInputWhenShown(page, 'From a pod on this node', 'the "where from" picker');
      await panelRowWith(page, vscode, ['100%', 'DROP'], 'the policy of FORWARD dropping the packet');
    },
  },
];
