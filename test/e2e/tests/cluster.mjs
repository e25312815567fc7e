// The cluster check in the editor: samples/nftables holds node1.nft and cluster-state.yaml (the generator's
// cluster, with drifts on purpose, listed in samples/README.md). Opening the dump shows the findings in Problems
// (the stale rule on its dump line, the Service the node lacks on its object in the cluster file) and a Service's
// hover shows the API side next to the rules.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as wt from '../lib/walkthrough.mjs';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'samples', 'nftables');
const NFT = readFileSync(path.join(DIR, 'node1.nft'), 'utf8').split('\n');
const STATE = readFileSync(path.join(DIR, 'cluster-state.yaml'), 'utf8').split('\n');
/** The rule that still sends to the not-ready pod 10.244.3.9 (shop/web's numgen vmap). */
export const STALE_LINE = NFT.findIndex((l) => l.includes('numgen') && l.includes('10.244.3.9/8080')) + 1;
/** shop/checkout's name in the cluster file: in the API, no rules on this node. */
export const CHECKOUT_LINE = STATE.indexOf('    name: checkout') + 1;
export const ELEMENT_LINE = NFT.findIndex((l) => l.includes('10.96.12.40 . tcp . 80 : goto')) + 1;

/** Opens the sample dump and the Problems view; returns the marker rows once `want` rows (regexps) all show. */
export async function problemsWith(page, vscode, want) {
  if (STALE_LINE <= 0 || CHECKOUT_LINE <= 0 || ELEMENT_LINE <= 0) throw new Error('samples/nftables lacks the stale rule, shop/checkout or the web element');
  await vscode.runCommand(page, 'View: Close All Editor Groups');
  await vscode.openFile(page, 'node1.nft');
  await vscode.runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
  let rows = [];
  await vscode
    .poll(
      async () => {
        rows = await vscode.listRows(page, '.markers-panel');
        return want.every((w) => rows.some((r) => w.test(r.text)));
      },
      { timeout: 45_000, what: 'the cluster check in Problems' },
    )
    .catch(() => {
      throw new Error(`Problems misses ${want.filter((w) => !rows.some((r) => w.test(r.text))).join(', ')}; rows:\n${rows.map((r) => `  ${r.text}`).join('\n') || '  (none)'}`);
    });
  return rows;
}

/** The stale rule's line shows an error squiggle in the editor. */
export async function squiggleOnStaleLine(page, vscode) {
  await vscode.openFile(page, 'node1.nft');
  await vscode.gotoLine(page, STALE_LINE);
  await vscode.poll(async () => (await page.locator('.editor-instance .monaco-editor .squiggly-error').count()) > 0, { what: `an error squiggle near Ln ${STALE_LINE}` });
}

export default [
  {
    name: "cluster check: the sample's drifts in Problems, the stale rule on its dump line, the missing Service on its object",
    async run({ page, vscode, log }) {
      const rows = await problemsWith(page, vscode, [
        new RegExp(`10\\.244\\.3\\.9:8080.*stale-endpoint.*\\[Ln ${STALE_LINE}, Col \\d+\\]`),
        new RegExp(`shop/checkout:http.*not-programmed.*\\[Ln ${CHECKOUT_LINE}, Col \\d+\\]`),
        /cluster-state\.yaml/,
        /filtered-by-topology/,
      ]);
      const stale = rows.find((r) => r.text.includes('stale-endpoint'));
      if (!stale.text.includes('dataplane check')) throw new Error(`the finding does not name its source: ${stale.text}`);
      if (!stale.text.includes('Why: not ready')) throw new Error(`the finding does not say why: ${stale.text}`);
      await squiggleOnStaleLine(page, vscode);
      log(`  ${stale.text}`);
    },
  },
  {
    name: 'cluster check: a Service hover shows the API side next to the rules',
    async run({ page, vscode, log }) {
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await vscode.openFile(page, 'node1.nft');
      await vscode.gotoLine(page, ELEMENT_LINE);
      const text = await vscode.hoverUntil(page, NFT[ELEMENT_LINE - 1], '10.96.12.40', 'API:', { what: 'a hover with the API side of shop/web:http' });
      const want = 'API: 2 ready, 1 not ready; rules: 3 — differs: 1 stale-endpoint';
      if (!text.includes(want)) throw new Error(`the hover does not say "${want}":\n${text}`);
      if (!text.includes('10.244.3.9:8080')) throw new Error(`the hover does not name the stale endpoint:\n${text}`);
      log(`  ${text.split('\n').find((l) => l.startsWith('API:'))}`);
    },
  },
  {
    name: 'cluster check: the walkthrough\'s "Show a drift" opens the iptables-nft sample at the stale rule and Problems',
    timeout: 90_000,
    async run({ page, vscode, log }) {
      const step = wt.walkthroughSteps('en').find((x) => x.id === 'drift');
      if (!step?.links[0]) throw new Error('the walkthrough has no drift step with a button');
      const ipt = wt.sampleLines('iptables-nft', 'node1.iptables');
      const staleLine = ipt.findIndex((l) => l.includes('"shop/web:http -> 10.244.3.9:8080"') && l.startsWith('-A KUBE-SVC-')) + 1;
      if (staleLine <= 0) throw new Error('samples/iptables-nft lacks the rule to 10.244.3.9:8080');
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await wt.clickStepLink(page, wt.walkthroughTitle('en'), step.title, step.links[0].label);
      await wt.waitForEditor(page, 'node1.iptables', 'iptables');
      const pos = await vscode.poll(
        async () => {
          const p = await vscode.cursorPosition(page);
          return p.line === staleLine ? p : undefined;
        },
        { timeout: 30_000, what: `the cursor on the stale rule (Ln ${staleLine})` },
      );
      let rows = [];
      await vscode
        .poll(async () => (rows = await vscode.listRows(page, '.markers-panel')).some((r) => r.text.includes('stale-endpoint') && r.text.includes(`[Ln ${staleLine},`)), {
          timeout: 30_000,
          what: 'the stale-endpoint row in Problems',
        })
        .catch((e) => {
          throw new Error(`${e.message}; rows:\n${rows.map((r) => `  ${r.text}`).join('\n') || '  (none)'}`);
        });
      log(`  ${pos.text}`);
      // The walkthrough stays in its own group: leave the workbench as the next test file expects it, one group.
      await vscode.runCommand(page, 'View: Close All Editor Groups');
    },
  },
];
