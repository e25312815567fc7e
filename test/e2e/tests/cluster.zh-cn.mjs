// The cluster check in Simplified Chinese: the findings in Problems and the API side of a Service's hover come from
// the zh-cn l10n bundle (see cluster.mjs for the sample and its drifts).
import * as wt from '../lib/walkthrough.mjs';
import { CHECKOUT_LINE, ELEMENT_LINE, problemsWith, squiggleOnStaleLine, STALE_LINE } from './cluster.mjs';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NFT = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'samples', 'nftables', 'node1.nft'), 'utf8').split('\n');
const WHY = wt.message('zh-cn', '{0} Why: {1}', '', '').trim();

export default [
  {
    name: "zh-cn: cluster check: the sample's drifts in Problems in Chinese, on the dump line and the cluster file's object",
    async run({ page, vscode, log }) {
      const rows = await problemsWith(page, vscode, [new RegExp(`10\\.244\\.3\\.9:8080.*stale-endpoint.*\\[(Ln|行) ${STALE_LINE}`), new RegExp(`shop/checkout.*not-programmed.*\\[(Ln|行) ${CHECKOUT_LINE}`)]);
      const stale = rows.find((r) => r.text.includes('stale-endpoint'));
      if (!/[\u4e00-\u9fff]/.test(stale.text) || !stale.text.includes(WHY)) throw new Error(`the finding is not in Chinese (want "${WHY}"): ${stale.text}`);
      await squiggleOnStaleLine(page, vscode);
      log(`  ${stale.text}`);
    },
  },
  {
    name: 'zh-cn: cluster check: a Service hover shows the API side in Chinese',
    async run({ page, vscode, log }) {
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await vscode.openFile(page, 'node1.nft');
      await vscode.gotoLine(page, ELEMENT_LINE);
      const counts = [wt.message('zh-cn', '{0} ready', 2), wt.message('zh-cn', '{0} not ready', 1)].join(', ');
      const want = wt.message('zh-cn', '**API**: {0}; **rules**: {1} — {2}', counts, 3, wt.message('zh-cn', 'differs: {0}', '1 stale-endpoint')).replace(/\*\*/g, '');
      const text = await vscode.hoverUntil(page, NFT[ELEMENT_LINE - 1], '10.96.12.40', 'API', { what: 'a hover with the API side of shop/web:http' });
      if (!text.includes(want)) throw new Error(`the hover does not say "${want}":\n${text}`);
      log(`  ${want}`);
    },
  },
];
