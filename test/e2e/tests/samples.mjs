// "Open Sample Dumps" opens a copy of the bundled sample of the chosen mode: in a temporary folder, or in the workspace
// folder with the mode's folder button; never the file inside the extension's install folder.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';

function copiesLogged(vscode, workspace, id) {
  return [...vscode.extensionLog(workspace).matchAll(new RegExp(`opened sample ${id} \\(copied to (.+)\\)`, 'g'))].map((m) => m[1]);
}

/** The folder the extension's log says the sample `id` was copied to: the first such line after the `before` earlier ones
 * (an earlier test may have opened the same sample elsewhere, and the log is written after the editor shows the copy). */
async function copiedTo(vscode, workspace, id, before = 0) {
  let folder;
  await vscode.poll(
    async () => {
      const found = copiesLogged(vscode, workspace, id);
      return (folder = found.length > before ? found[before] : undefined);
    },
    { what: `"opened sample ${id}" in the extension's log` },
  );
  return folder;
}

export default [
  {
    name: 'Open Sample Dumps: IPVS mode opens the three dumps of one node, each in its language',
    async run({ page, vscode, workspace, log }) {
      const before = copiesLogged(vscode, workspace, 'ipvs').length;
      await vscode.runCommand(page, 'Dataplane Explorer: Open Sample Dumps');
      await vscode.poll(async () => (await vscode.quickInputRows(page)).some((r) => r.includes('IPVS mode')), { what: 'the mode picker' });
      await vscode.chooseInQuickInput(page, 'IPVS', { text: 'IPVS mode', what: 'IPVS mode first' });
      // The first dumps a fresh window opens load their languages: on a busy machine that takes a while.
      await vscode.poll(async () => (await vscode.activeTab(page))?.startsWith('node1.ipvsadm'), { timeout: 30_000, what: 'node1.ipvsadm in front' });
      const tabs = await page.$$eval('.tabs-container .tab', (els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
      for (const name of ['node1.ipvsadm', 'node1.ipset', 'node1.iptables']) {
        if (!tabs.some((t) => t.startsWith(name))) throw new Error(`no tab ${name}; tabs: ${tabs.join(' | ')}`);
      }
      const mode = await vscode.poll(
        async () => {
          const m = await vscode.statusItem(page, 'status.editor.mode');
          return m && m !== 'Plain Text' ? m : undefined;
        },
        { what: 'a language mode' },
      );
      if (!/ipvsadm|IPVS/i.test(mode)) throw new Error(`node1.ipvsadm opened in language mode ${mode}`);
      // A copy outside the extension's install folder (<run>/ext), where editing it changes nothing installed.
      const folder = await copiedTo(vscode, workspace, 'ipvs', before);
      const extensions = path.join(workspace, '..', 'ext');
      if (!path.relative(extensions, folder).startsWith('..') || folder.includes('dataplane-explorer.dataplane-explorer')) throw new Error(`the sample opened from the extension's folder: ${folder}`);
      if (!existsSync(path.join(folder, 'node1.ipvsadm'))) throw new Error(`no copy node1.ipvsadm in ${folder}`);
      log(`  IPVS sample copied to ${folder}`);
    },
  },
  {
    name: 'Open Sample Dumps: the folder button of a mode copies that sample into the workspace folder',
    async run({ page, vscode, workspace, log }) {
      const before = copiesLogged(vscode, workspace, 'nftables').length;
      await vscode.runCommand(page, 'Dataplane Explorer: Open Sample Dumps');
      const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'nftables mode' }).first();
      await row.waitFor({ state: 'visible' });
      await row.hover();
      await row.locator('.action-label.codicon-new-folder').click();
      await vscode.poll(async () => (await vscode.activeTab(page))?.startsWith('node1.nft'), { what: 'node1.nft in front' });
      const copy = path.join(workspace, 'dataplane-samples', 'nftables', 'node1.nft');
      try {
        if (!existsSync(copy)) throw new Error(`no ${copy}`);
        const folder = await copiedTo(vscode, workspace, 'nftables', before);
        if (path.resolve(folder) !== path.dirname(copy)) throw new Error(`opened the copy in ${folder}, expected ${path.dirname(copy)}`);
        log(`  nftables sample copied to ${folder}`);
      } finally {
        // The other tests count the workspace's dumps.
        await vscode.runCommand(page, 'View: Close All Editor Groups');
        rmSync(path.join(workspace, 'dataplane-samples'), { recursive: true, force: true });
      }
    },
  },
];
