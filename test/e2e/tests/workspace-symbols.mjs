// Ctrl+T (workspace symbols) finds Services, ClusterIPs and NodePorts across the workspace's dumps, and opens the
// file that defines them: the IPVS sample's NodePort lives in its ipvsadm dump (samples/ipvs).
import path from 'node:path';
import { closeAll } from './graph.mjs';

export default [
  {
    name: 'Workspace symbols: a Service by name and an IPVS NodePort across files',
    async run({ page, vscode }) {
      // Earlier tests leave other node1.iptables open (the walkthrough's samples): a tab of the same name would be
      // labelled with its folder, and quick open's history lists those files too.
      await closeAll(page, vscode);
      const relative = 'samples/ipvs/node1.iptables';
      await vscode.openFile(page, path.basename(relative), { query: relative, row: (label) => label.startsWith(path.basename(relative)) && label.includes(path.dirname(relative)) });
      await page.keyboard.press('Control+P');
      await vscode.fillQuickInput(page, '#kube-system/kube-dns:dns');
      await vscode.poll(async () => (await vscode.quickInputRows(page)).some((r) => r.includes('kube-system/kube-dns:dns/udp')), { what: 'kube-system/kube-dns:dns/udp among the workspace symbols', timeout: 30_000 });
      await vscode.resetUi(page);
      await page.keyboard.press('Control+P');
      await vscode.fillQuickInput(page, '#:30080');
      // Other samples have a NodePort 30080 too: the IPVS one is the Service of virtual service 10.96.12.40:80.
      const ipvs = (r) => r.includes(':30080/tcp') && r.includes('10.96.12.40:80');
      // The row's aria-label leaves out the container (the Service), which the row's text shows.
      const texts = () => page.$$eval('.quick-input-widget .quick-input-list .monaco-list-row', (rows) => rows.map((r) => r.innerText.replace(/\s+/g, ' ')));
      await vscode.poll(async () => (await texts()).some(ipvs), { what: 'the IPVS :30080/tcp among the workspace symbols', timeout: 30_000 });
      const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
      for (let i = 0; i < (await rows.count()); i++) {
        const row = rows.nth(i);
        if (ipvs((await row.innerText()).replace(/\s+/g, ' '))) {
          await row.click();
          break;
        }
      }
      await vscode.poll(async () => (await vscode.activeTab(page))?.startsWith('node1.ipvsadm'), { what: 'node1.ipvsadm opened at the NodePort' });
      return { tab: await vscode.activeTab(page), cursor: await vscode.cursorPosition(page) };
    },
  },
];
