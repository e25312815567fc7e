// The Service graph webview in a real VS Code: the command opens it for the active dump's snapshot, the side list
// filters the Services, the selected Service is drawn with its endpoints and shares, hovering a node shows the
// editor's explanation, "Trace from here" highlights the path with its shares, "Save as SVG" writes a file, and
// clicking an endpoint node reveals its DNAT rule. A dump whose comments are hostile HTML/script executes nothing.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const NODE1 = readFileSync(path.join(FIXTURES, 'node1.txt'), 'utf8').replace(/\r\n/g, '\n').split('\n');
const SEP1 = 'KUBE-SEP-SXIVWICOYRO3J4NJ';
const SEP2 = 'KUBE-SEP-LXVODXWDISEETFEF';
const SEP1_DNAT = NODE1.findIndex((l) => l.startsWith(`-A ${SEP1} `) && l.includes('DNAT')) + 1;
const HOSTILE = 'hostile-comments.iptables';
const HOSTILE_LINES = readFileSync(path.join(FIXTURES, 'hostile', HOSTILE), 'utf8').split('\n');
const EVIL_TITLE = 'ns1/evil:x"\'`<img/src=x/onerror=alert(1)></script><script>alert(2)</script>/tcp';

/** The graph webview's document (the inner frame of the webview whose panel is active). */
export function webview(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** Closes every editor and panel, so exactly one webview (ours) is in the page, and none is left for later steps. */
export async function closeAll(page, vscode) {
  await vscode.resetUi(page);
  await vscode.runCommand(page, 'View: Close All Editors');
  await vscode.poll(async () => (await page.locator('iframe.webview').count()) === 0, { what: 'no webview left', timeout: 10_000 }).catch(() => {});
}

/** Opens the graph for the active editor and waits for the filter field. */
export async function openGraph(page, vscode, command = 'Dataplane Explorer: Show Service Graph') {
  await vscode.runCommand(page, command);
  const view = webview(page);
  const filter = view.locator('vscode-textfield#filter input');
  await filter.waitFor({ state: 'visible', timeout: 30_000 });
  return { view, filter };
}

/**
 * What hostile text could have left behind in any frame of the page (workbench, webview host, webview):
 * elements it names, event-handler attributes, inline scripts that are not VS Code's or ours.
 */
async function injected(page) {
  const found = [];
  for (const frame of page.frames()) {
    try {
      found.push(
        ...(await frame.evaluate(() => {
          const out = [];
          for (const e of document.querySelectorAll('*')) {
            for (const a of e.getAttributeNames()) if (/^on/i.test(a) && /alert|\bx\b/.test(e.getAttribute(a) ?? '')) out.push(`${e.tagName}[${a}]`);
            if (e.tagName === 'IMG' && e.getAttribute('src') === 'x') out.push('IMG src=x');
            if (e.tagName === 'SCRIPT' && /alert\(/.test(e.textContent ?? '')) out.push('SCRIPT alert(');
          }
          return out.map((x) => `${location.pathname.slice(-40)}: ${x}`);
        })),
      );
    } catch {
      // a frame navigating away
    }
  }
  return found;
}

export default [
  {
    name: 'Service graph: search ns1/svc1, 50% shares, hover, Trace from here, Save as SVG, click an endpoint to reveal its DNAT rule',
    timeout: 180_000,
    async run({ page, vscode, log, workspace }) {
      if (SEP1_DNAT <= 0) throw new Error(`fixture: no DNAT rule for ${SEP1}`);
      const svgFile = path.join(workspace, 'ns1_svc1_p80_tcp.svg');
      rmSync(svgFile, { force: true });
      await closeAll(page, vscode);
      try {
        await graphSteps({ page, vscode, log, svgFile });
      } finally {
        await closeAll(page, vscode);
      }
    },
  },
  {
    name: 'Service graph: hostile comments (<img onerror>, </script>, quotes, backticks, 10 kB) stay inert text in the graph and the hover',
    timeout: 180_000,
    async run({ page, vscode, log }) {
      const dialogs = [];
      const onDialog = (d) => {
        dialogs.push(`${d.type()}: ${d.message()}`);
        void d.dismiss().catch(() => {});
      };
      page.on('dialog', onDialog);
      await closeAll(page, vscode);
      try {
        await hostileSteps({ page, vscode, log, dialogs });
      } finally {
        page.off('dialog', onDialog);
        await closeAll(page, vscode);
      }
    },
  },
];

async function graphSteps({ page, vscode, log, svgFile }) {
  await vscode.openFile(page, 'node1.txt');
  await vscode.ensureLanguageMode(page, 'iptables', log);
  const { view, filter } = await openGraph(page, vscode);
  await filter.fill('ns1/svc1');
  // broken.iptables in the same folder names ns1/svc1 too (without its chains): pick node1.txt's.
  const row = view.locator('.services .service:not([hidden])', { hasText: 'ns1/svc1:p80/tcp' }).filter({ hasText: 'node1.txt' }).first();
  await row.waitFor({ state: 'visible' });
  const rows = await view.locator('.services .service:not([hidden])').allInnerTexts();
  if (!rows.every((r) => r.includes('ns1/svc1'))) throw new Error(`the filter left other Services: ${JSON.stringify(rows)}`);
  const count = await view.locator('.count').innerText();
  log(`  list: ${count.replace(/\s+/g, ' ')}`);
  await row.click();
  await vscode.poll(async () => (await row.getAttribute('aria-selected')) === 'true', { what: 'ns1/svc1:p80 selected' });
  const graph = view.locator('svg.graph');
  // Fit: the whole graph in the (half-width) panel, so every node is drawn.
  await graph.waitFor({ state: 'visible', timeout: 30_000 });
  await view.locator('vscode-button#fit').click();
  await vscode.poll(
    async () => {
      const text = (await graph.count()) > 0 ? await graph.textContent() : '';
      return text.includes('ns1/svc1:p80/tcp') && text.includes(SEP1) && text.includes(SEP2) && text.includes('10.180.0.1:80') && text.includes('10.180.0.2:80');
    },
    { timeout: 30_000, what: 'ns1/svc1:p80 with both endpoints and pods in the graph' },
  );
  const shares = await view.locator('svg.graph text.share').allTextContents();
  if (shares.length !== 2 || !shares.every((s) => s === '50%')) throw new Error(`expected two 50% edges, got ${JSON.stringify(shares)}`);
  log(`  ${(await view.locator('.status').innerText()).split('·')[0].trim()}`);

  // Hover: the editor's explanation of the node's rule, as text.
  const sepNode = view.locator('svg.graph g.node.endpoint', { hasText: SEP1 }).first();
  await sepNode.hover();
  const hover = view.locator('#node-hover');
  await vscode.poll(async () => (await hover.isVisible()) && (await hover.innerText()).includes('10.180.0.1:80'), { timeout: 15_000, what: 'the hover of the endpoint node' });
  log(`  hover: ${(await hover.innerText()).split('\n').slice(0, 2).join(' | ')}`);

  // Trace from here on the ClusterIP frontend: the path lights up, each endpoint with 50%.
  const frontend = view.locator('svg.graph g.node.frontend', { hasText: '172.30.0.41:80' }).first();
  await frontend.locator('.trace-action').click();
  await vscode.poll(async () => (await view.locator('svg.graph g.node.pod.on').count()) === 2, { timeout: 20_000, what: 'both pods highlighted by the trace' });
  const lit = await view.locator('svg.graph g.node.on').evaluateAll((gs) => gs.map((g) => `${g.classList[1]}:${g.querySelector('text.label')?.textContent}:${g.querySelector('text.node-share')?.textContent}`));
  log(`  traced: ${lit.join(', ')}`);
  for (const want of ['frontend:172.30.0.41:80:100%', `endpoint:${SEP1}:50%`, `endpoint:${SEP2}:50%`, 'pod:10.180.0.1:80:50%', 'pod:10.180.0.2:80:50%']) {
    if (!lit.includes(want)) throw new Error(`trace highlight misses ${want}: ${JSON.stringify(lit)}`);
  }
  if (!(await view.locator('.trace-label').innerText()).includes('172.30.0.41:80')) throw new Error('the toolbar does not name the traced connection');

  // Save as SVG: VS Code's save dialog proposes <folder>/<service>.svg; accept it.
  await view.locator('vscode-button#save-svg').click();
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await vscode.poll(async () => (await input.inputValue()).endsWith('ns1_svc1_p80_tcp.svg'), { what: 'the proposed file name' });
  await page.keyboard.press('Enter');
  const svg = await vscode.poll(async () => (existsSync(svgFile) ? readFileSync(svgFile, 'utf8') : undefined), { timeout: 15_000, what: `${svgFile} written` });
  for (const want of ['<?xml', '<svg xmlns="http://www.w3.org/2000/svg"', SEP1, SEP2, '10.180.0.1:80', '>50%</text>', 'class="node pod on"']) {
    if (!svg.includes(want)) throw new Error(`the saved SVG lacks ${JSON.stringify(want)}`);
  }
  if (/<script|href=/.test(svg)) throw new Error('the saved SVG is not standalone and inert');
  log(`  saved ${path.basename(svgFile)} (${svg.length} characters)`);

  // Click an endpoint node: the editor's cursor goes to its DNAT rule.
  await sepNode.click();
  const pos = await vscode
    .poll(
      async () => {
        const p = await vscode.cursorPosition(page);
        return p.line === SEP1_DNAT ? p : undefined;
      },
      { what: `the cursor on the DNAT rule of ${SEP1} (line ${SEP1_DNAT})` },
    )
    .catch(async (e) => {
      throw new Error(`${e.message}; status bar: ${(await vscode.cursorPosition(page)).text}`);
    });
  log(`  endpoint node revealed ${pos.text}`);
}

async function hostileSteps({ page, vscode, log, dialogs }) {
  await vscode.openFile(page, HOSTILE);
  await vscode.ensureLanguageMode(page, 'iptables', log);
  const { view, filter } = await openGraph(page, vscode);
  await filter.fill('evil');
  const row = view.locator('.services .service:not([hidden])', { hasText: 'ns1/evil' }).first();
  await row.waitFor({ state: 'visible' });
  const rowText = await row.locator('.title').textContent();
  if (rowText !== EVIL_TITLE) throw new Error(`the list shows ${JSON.stringify(rowText)}, not the text ${JSON.stringify(EVIL_TITLE)}`);
  await row.click();
  const title = view.locator('svg.graph text.service-title');
  await vscode.poll(async () => (await title.count()) > 0 && (await title.first().textContent()) === EVIL_TITLE, { timeout: 30_000, what: 'the hostile Service title drawn as text' });
  await view.locator('vscode-button#fit').click();
  // Hover the endpoint node: the rule's hover quotes the comment, as text.
  await view.locator('svg.graph g.node.endpoint').first().hover();
  const hover = view.locator('#node-hover');
  // It describes the endpoint's Service, whose name is the hostile text.
  let hoverText = '';
  await vscode
    .poll(async () => (await hover.isVisible()) && (hoverText = await hover.innerText()).includes('<img/src=x/onerror=alert(1)></script><script>alert(2)</script>'), {
      timeout: 15_000,
      what: 'the hostile Service name as text in the node hover',
    })
    .catch((e) => {
      throw new Error(`${e.message}; hover: ${JSON.stringify(hoverText.slice(0, 600))}`);
    });
  log(`  node hover: ${hoverText.split('\n')[0].slice(0, 140)}`);
  if ((await hover.locator('img, script').count()) > 0) throw new Error('the node hover holds an element from the dump');
  // The 10 kB name: drawn clipped, as text.
  await filter.fill('ns1/long');
  const longRow = view.locator('.services .service:not([hidden])', { hasText: 'ns1/long' }).first();
  await longRow.click();
  await vscode.poll(async () => ((await title.first().textContent()) ?? '').startsWith('ns1/long:LLLL'), { timeout: 30_000, what: 'the 10 kB Service drawn' });
  const longTitle = (await title.first().textContent()) ?? '';
  if (longTitle.length > 200) throw new Error(`the 10 kB title is drawn unclipped (${longTitle.length} characters)`);
  const verdict = await view.locator('svg.graph g.node.verdict').allTextContents();
  log(`  10 kB Service: ${longTitle.length}-character title, verdict ${JSON.stringify(verdict)}`);

  const inGraph = await injected(page);
  if (inGraph.length > 0) throw new Error(`injected elements: ${inGraph.join('; ')}`);
  if (dialogs.length > 0) throw new Error(`dialogs fired: ${dialogs.join('; ')}`);

  // The editor hover over the evil Service's jump target: inert text too.
  const line = HOSTILE_LINES.findIndex((l) => l.startsWith('-A KUBE-SERVICES -d 172.30.0.66/32')) + 1;
  await vscode.resetUi(page);
  // Back to the dump's editor group; the key goes through the graph's webview when it has the focus: again until the
  // focus has left it.
  await page.keyboard.press('Control+1');
  await vscode.poll(
    async () => {
      const inWebview = await page.evaluate(() => document.activeElement?.tagName === 'IFRAME');
      if (inWebview) await page.keyboard.press('Control+1');
      return !inWebview;
    },
    { what: 'the focus back in the editor, out of the graph', timeout: 15_000, interval: 1000 },
  );
  // The jump target ends a long line: put the cursor after it, which scrolls all of it into view.
  await vscode.gotoLine(page, line, HOSTILE_LINES[line - 1].length + 1);
  const text = await vscode.hoverUntil(page, HOSTILE_LINES[line - 1], 'KUBE-SVC-EVIL', 'ns1/evil', { what: 'the editor hover over the evil Service' }).catch(async (e) => {
    const shot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-output', 'e2e', 'graph-hostile-editor-hover.png');
    await page.screenshot({ path: shot }).catch(() => {});
    throw new Error(`${e.message}; screenshot ${shot}`);
  });
  if (!text.includes('<img/src=x/onerror=alert(1)>')) throw new Error(`the editor hover does not show the name as text: ${text.slice(0, 400)}`);
  if ((await page.locator('.monaco-hover img, .monaco-hover script').count()) > 0) throw new Error('the editor hover holds an element from the dump');
  log(`  editor hover: ${text.split('\n')[0].slice(0, 120)}`);
  await vscode.sleep(500);
  const left = await injected(page);
  if (left.length > 0) throw new Error(`injected elements: ${left.join('; ')}`);
  if (dialogs.length > 0) throw new Error(`dialogs fired: ${dialogs.join('; ')}`);
  log(`  no dialog, no injected element in ${page.frames().length} frames`);
}
