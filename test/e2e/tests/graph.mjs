// The Service graph webview: the command opens it for the active dump's snapshot, the side list filters the
// Services, the selected Service is drawn with its endpoints and shares, and clicking an endpoint node reveals
// its DNAT rule in the editor.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const NODE1 = readFileSync(path.join(FIXTURES, 'node1.txt'), 'utf8').replace(/\r\n/g, '\n').split('\n');
const SEP1 = 'KUBE-SEP-SXIVWICOYRO3J4NJ';
const SEP2 = 'KUBE-SEP-LXVODXWDISEETFEF';
const SEP1_DNAT = NODE1.findIndex((l) => l.startsWith(`-A ${SEP1} `) && l.includes('DNAT')) + 1;

/** The graph webview's document (the inner frame of the active webview). */
function webview(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

export default [
  {
    name: 'Service graph: search ns1/svc1, see both endpoints at 50%, click an endpoint to reveal its DNAT rule',
    timeout: 90_000,
    async run({ page, vscode, log }) {
      if (SEP1_DNAT <= 0) throw new Error(`fixture: no DNAT rule for ${SEP1}`);
      await vscode.openFile(page, 'node1.txt');
      await vscode.ensureLanguageMode(page, 'iptables', log);
      await vscode.runCommand(page, 'Dataplane Explorer: Show Service Graph');
      const view = webview(page);
      const filter = view.locator('input#filter');
      await filter.waitFor({ state: 'visible', timeout: 30_000 });
      await filter.fill('ns1/svc1');
      // broken.iptables in the same folder names ns1/svc1 too (without its chains): pick node1.txt's.
      const row = view.locator('li.service', { hasText: 'ns1/svc1:p80/tcp' }).filter({ hasText: 'node1.txt' }).first();
      await row.waitFor({ state: 'visible' });
      const rows = await view.locator('li.service').allInnerTexts();
      if (!rows.every((r) => r.includes('ns1/svc1'))) throw new Error(`the filter left other Services: ${JSON.stringify(rows)}`);
      await row.click();
      await vscode.poll(async () => (await row.getAttribute('aria-selected')) === 'true', { what: 'ns1/svc1:p80 selected' });
      const graph = view.locator('svg.graph');
      await vscode.poll(async () => {
        const text = (await graph.count()) > 0 ? await graph.textContent() : '';
        return text.includes('ns1/svc1:p80/tcp') && text.includes(SEP1) && text.includes(SEP2) && text.includes('10.180.0.1:80') && text.includes('10.180.0.2:80');
      }, { timeout: 20_000, what: 'ns1/svc1:p80 with both endpoints and pods in the graph' });
      const shares = await view.locator('svg.graph text.share').allTextContents();
      if (shares.length !== 2 || !shares.every((s) => s === '50%')) throw new Error(`expected two 50% edges, got ${JSON.stringify(shares)}`);
      const frontends = await view.locator('svg.graph g.node.frontend').allTextContents();
      log(`  frontends: ${JSON.stringify(frontends)}`);
      await view.locator('svg.graph g.node.endpoint', { hasText: SEP1 }).first().click();
      const pos = await vscode.poll(async () => {
        const p = await vscode.cursorPosition(page);
        return p.line === SEP1_DNAT ? p : undefined;
      }, { what: `the cursor on the DNAT rule of ${SEP1} (line ${SEP1_DNAT})` }).catch(async (e) => {
        throw new Error(`${e.message}; status bar: ${(await vscode.cursorPosition(page)).text}`);
      });
      log(`  endpoint node revealed ${pos.text}`);
    },
  },
];
