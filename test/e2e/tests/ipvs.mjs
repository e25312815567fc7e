// IPVS mode is three dumps read together: F12 on an iptables `--match-set KUBE-CLUSTER-IP` lands on the set in
// the ipset dump of the same folder (samples/ipvs, written by the project's generator).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SAMPLES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'samples', 'ipvs');
const IPTABLES = readFileSync(path.join(SAMPLES, 'node1.iptables'), 'utf8').split('\n');
const IPSET = readFileSync(path.join(SAMPLES, 'node1.ipset'), 'utf8').split('\n');
const MATCH_LINE = IPTABLES.findIndex((l) => l.includes('--match-set KUBE-CLUSTER-IP ')) + 1;
const CREATE_LINE = IPSET.findIndex((l) => l.startsWith('create KUBE-CLUSTER-IP ')) + 1;

/** Quick open by relative path (several files are called node1.iptables). */
async function openPath(page, vscode, relative) {
  await vscode.openFile(page, path.basename(relative), { query: relative, row: (label) => label.startsWith(path.basename(relative)) && label.includes(path.dirname(relative)) });
}

export default [
  {
    name: 'IPVS snapshot: F12 on --match-set KUBE-CLUSTER-IP opens the ipset dump at the set',
    async run({ page, vscode }) {
      if (MATCH_LINE <= 0 || CREATE_LINE <= 0) throw new Error('samples/ipvs lacks the KUBE-CLUSTER-IP rule or set');
      await openPath(page, vscode, 'samples/ipvs/node1.iptables');
      const mode = await vscode.statusItem(page, 'status.editor.mode');
      if (mode?.toLowerCase() !== 'iptables') throw new Error(`language mode is ${mode}`);
      const col = IPTABLES[MATCH_LINE - 1].indexOf('KUBE-CLUSTER-IP ') + 3;
      await vscode.gotoLine(page, MATCH_LINE, col);
      await vscode.f12Until(
        page,
        () => vscode.activeTab(page),
        (tab) => tab?.startsWith('node1.ipset'),
        { what: 'F12 to open node1.ipset', describe: (tab) => `active tab: ${tab}` },
      );
      const pos = await vscode.poll(
        async () => {
          const p = await vscode.cursorPosition(page);
          return p.line === CREATE_LINE ? p : undefined;
        },
        { what: `the cursor on the create KUBE-CLUSTER-IP line (${CREATE_LINE})` },
      );
      const lang = await vscode.statusItem(page, 'status.editor.mode');
      if (lang?.toLowerCase() !== 'ipset') throw new Error(`node1.ipset opened in language mode ${lang}`);
      return pos;
    },
  },
];
