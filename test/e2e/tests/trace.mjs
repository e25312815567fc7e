// Trace ClusterIP from the command palette: the Dataplane Trace view shows each outcome with its share, and
// clicking a step of the path reveals its rule in the editor.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const NODE1 = readFileSync(path.join(FIXTURES, 'node1.txt'), 'utf8').replace(/\r\n/g, '\n').split('\n');
const SEP1_DNAT = NODE1.findIndex((l) => l.startsWith('-A KUBE-SEP-SXIVWICOYRO3J4NJ ') && l.includes('DNAT')) + 1;

const VIEW = '[id="workbench.parts.panel"]';

export default [
  {
    name: 'Trace ClusterIP from the palette shows the endpoints with their shares; a step reveals its rule',
    async run({ page, vscode, log }) {
      if (SEP1_DNAT <= 0) throw new Error('fixture: no DNAT rule for KUBE-SEP-SXIVWICOYRO3J4NJ');
      await vscode.openFile(page, 'node1.txt');
      await vscode.ensureLanguageMode(page, 'iptables', log);
      await vscode.runCommand(page, 'Dataplane Explorer: Trace ClusterIP');
      // Pick the Service by typing part of its name, as a person would.
      await vscode.fillQuickInput(page, 'ns1/svc1');
      await vscode.acceptQuickInputWhenShown(page, '172.30.0.41:80', 'the ClusterIP 172.30.0.41:80 in the picker');
      await vscode.acceptQuickInputWhenShown(page, 'From a pod on this node', 'the "where from" picker');
      let rows = [];
      await vscode
        .poll(
          async () => {
            rows = await vscode.panelRows(page);
            return rows.some((r) => r.includes('DNAT → 10.180.0.1:80')) && rows.some((r) => r.includes('DNAT → 10.180.0.2:80'));
          },
          { timeout: 20_000, what: 'both endpoints in the Dataplane Trace view' },
        )
        .catch((e) => {
          throw new Error(`${e.message}\nrows: ${JSON.stringify(rows)}`);
        });
      const shares = rows.filter((r) => /DNAT →/.test(r));
      if (shares.length !== 2 || !shares.every((r) => r.includes('50%'))) throw new Error(`expected two endpoints with 50% each, got ${JSON.stringify(shares)}`);
      // Expand the first endpoint's outcome and click its DNAT step: the editor selects that rule.
      await page.locator(`${VIEW} .monaco-list-row`, { hasText: 'DNAT → 10.180.0.1:80' }).first().click();
      const step = page.locator(`${VIEW} .monaco-list-row`, { hasText: 'DNAT: the destination becomes 10.180.0.1:80' }).first();
      await vscode.poll(async () => (await step.count()) > 0, { what: 'the DNAT step of the first outcome' });
      await step.click();
      const pos = await vscode
        .poll(
          async () => {
            const p = await vscode.cursorPosition(page);
            return p.line === SEP1_DNAT ? p : undefined;
          },
          { what: `the cursor on line ${SEP1_DNAT}` },
        )
        .catch(async (e) => {
          throw new Error(`${e.message}; status bar: ${(await vscode.cursorPosition(page)).text}`);
        });
      log(`  step revealed ${pos.text}`);
    },
  },
  {
    name: 'Trace to an address no Service owns says so; after Clear Trace the view offers a Trace button',
    async run({ page, vscode, log }) {
      await vscode.openFile(page, 'node1.txt');
      await vscode.ensureLanguageMode(page, 'iptables', log);
      await vscode.runCommand(page, 'Dataplane Explorer: Trace ClusterIP');
      await vscode.fillQuickInput(page, '172.30.0.99:80');
      await vscode.acceptQuickInputWhenShown(page, '172.30.0.99:80/tcp', 'the typed address in the picker');
      await vscode.acceptQuickInputWhenShown(page, 'From a pod on this node', 'the "where from" picker');
      let rows = [];
      await vscode
        .poll(
          async () => {
            rows = await vscode.panelRows(page);
            return rows.some((r) => r.includes('No Service matches 172.30.0.99:80'));
          },
          { timeout: 20_000, what: 'the no-Service note in the Dataplane Trace view' },
        )
        .catch((e) => {
          throw new Error(`${e.message}\nrows: ${JSON.stringify(rows)}`);
        });
      await vscode.runCommand(page, 'Dataplane Explorer: Clear Trace');
      const button = page.locator(`${VIEW} .welcome-view-content .monaco-button`, { hasText: 'Trace ClusterIP' });
      await vscode.poll(async () => (await button.count()) > 0, { what: 'the welcome content with a Trace ClusterIP button' });
      log('  welcome content shown after Clear Trace');
    },
  },
];
