// An nftables dump (samples/nftables/node1.nft, written by the project's generator): language mode and status, the hover
// on a service-ips element, F12 on a goto target.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'samples', 'nftables', 'node1.nft');
const LINES = readFileSync(FILE, 'utf8').split('\n');
const ELEMENT_LINE = LINES.findIndex((l) => l.includes('10.96.12.40 . tcp . 80 : goto')) + 1;
const GOTO = /goto (service-[^\s,}]+)/.exec(LINES[ELEMENT_LINE - 1] ?? '')?.[1];
const CHAIN_LINE = LINES.findIndex((l) => GOTO && l.trim() === `chain ${GOTO} {`) + 1;

export default [
  {
    name: 'nftables dump: language mode, hover on a service-ips element, F12 on its goto target',
    async run({ page, vscode }) {
      if (ELEMENT_LINE <= 0 || !GOTO || CHAIN_LINE <= 0) throw new Error('samples/nftables/node1.nft lacks the web Service element or its chain');
      await vscode.openFile(page, 'node1.nft');
      const mode = await vscode.poll(
        async () => {
          const m = await vscode.statusItem(page, 'status.editor.mode');
          return m && m !== 'Plain Text' ? m : undefined;
        },
        { what: 'a language mode' },
      );
      if (!/^nftables$/i.test(mode)) throw new Error(`language mode is "${mode}", expected nftables`);
      // The language status: short text, native nftables is never "iptables-nft".
      const status = await vscode.poll(
        async () => {
          const s = await vscode.languageStatusHover(page);
          return s.includes('Services') ? s : undefined;
        },
        { what: 'the language status item' },
      );
      if (!status.includes('nftables · kube-proxy nftables · 6 Services') || status.includes('iptables-nft')) throw new Error(`language status: ${status}`);
      await vscode.resetUi(page);

      await vscode.gotoLine(page, ELEMENT_LINE);
      const text = await vscode.hoverUntil(page, LINES[ELEMENT_LINE - 1], '10.96.12.40', 'shop/web:http', { what: 'a hover naming shop/web:http' });
      const missing = ['10.244.1.7:8080', '10.244.2.8:8080', '10.244.3.9:8080', '33.3%'].filter((s) => !text.includes(s));
      if (missing.length) throw new Error(`hover misses ${missing.join(', ')}: ${text}`);

      await vscode.resetUi(page);
      // Go to Line counts visual columns: expand the leading tabs (tab size 4) first.
      const visual = LINES[ELEMENT_LINE - 1].replace(/^\t+/, (tabs) => ' '.repeat(tabs.length * 4));
      const col = visual.indexOf(GOTO) + 3;
      await vscode.gotoLine(page, ELEMENT_LINE, col);
      const pos = await vscode.f12FromLine(page, ELEMENT_LINE);
      if (pos.line !== CHAIN_LINE) throw new Error(`F12 went to ${pos.text}, expected Ln ${CHAIN_LINE} (chain ${GOTO})`);
    },
  },
];
