// VS Code in Simplified Chinese (`--locale zh-cn`): the extension's hovers come from its zh-cn l10n bundle.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ZH = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8'));
const NODE1 = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'node1.txt'), 'utf8').split('\n');
const SVC = 'KUBE-SVC-XPGD46QRK7WJZT7O';
const LINE = NODE1.findIndex((l) => l.startsWith('-A KUBE-SERVICES ') && l.endsWith(`-j ${SVC}`)) + 1;

export default [
  {
    name: 'zh-cn: the hover on a KUBE-SVC jump target is in Chinese, technical words as the tools print them',
    async run({ page, vscode, log }) {
      // Earlier steps may leave views beside the editor: one group, and the target scrolled into view.
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await vscode.openFile(page, 'node1.txt');
      await vscode.ensureLanguageMode(page, 'iptables', log);
      await vscode.gotoLine(page, LINE, NODE1[LINE - 1].indexOf(SVC) + 1);
      const text = await vscode.hoverUntil(page, NODE1[LINE - 1], SVC, 'ns1/svc1:p80', { what: 'a hover naming ns1/svc1:p80' });
      // Chinese prose around unchanged technical words and numbers.
      if (!/[\u4e00-\u9fff]/.test(text)) throw new Error(`the hover is not in Chinese:\n${text}`);
      for (const s of ['KUBE-SVC-XPGD46QRK7WJZT7O', '10.180.0.1:80', '50%']) if (!text.includes(s)) throw new Error(`hover misses ${s}:\n${text}`);
      const lesson = text.indexOf(
        ZH[
          "One Service port's load balancer for traffic from inside the cluster. It first marks packets from outside the cluster CIDR for masquerade, then picks one endpoint chain (KUBE-SEP-…): with n endpoints rule k matches with probability 1/(n−k+1), so every endpoint receives 1/n of new connections."
        ].slice(0, 12),
      );
      if (lesson < 0 || lesson < text.indexOf('10.180.0.2:80')) throw new Error(`the hover does not lead with the Service and its endpoints:\n${text}`);
      if (text.includes('\\')) throw new Error(`a Markdown escape shows in the hover:\n${text}`);
      log(`  hover: ${text.split('\n').slice(0, 3).join(' | ')}`);
    },
  },
  {
    name: 'zh-cn: the hover on a match option (--dport) explains it with the Chinese extension summary',
    async run({ page, vscode, log }) {
      const summary = ZH['TCP destination port or port range (first:last; a missing end means 0 or 65535).'];
      if (!summary) throw new Error('l10n/bundle.l10n.zh-cn.json has no translation of the tcp --dport summary');
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await vscode.openFile(page, 'node1.txt');
      await vscode.ensureLanguageMode(page, 'iptables', log);
      await vscode.gotoLine(page, LINE, NODE1[LINE - 1].indexOf('--dport') + 1);
      const text = await vscode.hoverUntil(page, NODE1[LINE - 1], '--dport', '--dport 80', { what: 'a hover on --dport 80' });
      if (!text.includes(summary)) throw new Error(`the --dport hover does not show "${summary}":\n${text}`);
      log(`  hover: ${text.split('\n')[0]}`);
    },
  },
];
