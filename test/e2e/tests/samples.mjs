// "Open Sample Dumps" opens the bundled sample of the chosen mode (shipped inside the extension).
export default [
  {
    name: 'Open Sample Dumps: IPVS mode opens the three dumps of one node, each in its language',
    async run({ page, vscode }) {
      await vscode.runCommand(page, 'Dataplane Explorer: Open Sample Dumps');
      await vscode.poll(async () => (await vscode.quickInputRows(page)).some((r) => r.includes('IPVS mode')), { what: 'the mode picker' });
      await vscode.chooseInQuickInput(page, 'IPVS', { text: 'IPVS mode', what: 'IPVS mode first' });
      await vscode.poll(async () => (await vscode.activeTab(page))?.startsWith('node1.ipvsadm'), { what: 'node1.ipvsadm in front' });
      const tabs = await page.$$eval('.tabs-container .tab', (els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
      for (const name of ['node1.ipvsadm', 'node1.ipset', 'node1.iptables']) {
        if (!tabs.some((t) => t.startsWith(name))) throw new Error(`no tab ${name}; tabs: ${tabs.join(' | ')}`);
      }
      const mode = await vscode.poll(async () => {
        const m = await vscode.statusItem(page, 'status.editor.mode');
        return m && m !== 'Plain Text' ? m : undefined;
      }, { what: 'a language mode' });
      if (!/ipvsadm|IPVS/i.test(mode)) throw new Error(`node1.ipvsadm opened in language mode ${mode}`);
    },
  },
];
