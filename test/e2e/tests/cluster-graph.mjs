// The Service graph with the sample's cluster state (samples/iptables-nft/cluster-state.yaml, written by the
// project's generator: shop/web's pod 10.244.3.9 fails its readiness probe, shop/checkout is never programmed on
// node1). The graph marks the stale endpoint with a word and its reason, and lists shop/checkout as not
// programmed with its API-side graph. Needs the editor to read the cluster-state file beside the dump.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as wt from '../lib/walkthrough.mjs';
import { closeAll, openGraph } from './graph.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const RELATIVE = 'samples/iptables-nft/node1.iptables';
const STALE = '10.244.3.9:8080';

export default [
  {
    name: "Cluster graph: the sample's stale endpoint is marked with its reason, shop/checkout is listed as not programmed",
    timeout: 180_000,
    async run({ page, vscode, log }) {
      await closeAll(page, vscode);
      try {
        await clusterSteps({ page, vscode, log }, 'en');
      } finally {
        await closeAll(page, vscode);
      }
    },
  },
];

/** The graph steps in `locale`: the marks' words come from its l10n bundle, the reasons are in its language. */
export async function clusterSteps({ page, vscode, log }, locale) {
  const word = (english) => wt.message(locale, english);
  await vscode.openFile(page, path.basename(RELATIVE), { query: RELATIVE, row: (label) => label.startsWith(path.basename(RELATIVE)) && label.includes('iptables-nft') });
  await vscode.ensureLanguageMode(page, 'iptables', log);
  const nls = JSON.parse(readFileSync(path.join(REPO, locale === 'en' ? 'package.nls.json' : `package.nls.${locale}.json`), 'utf8'));
  const { view, filter } = await openGraph(page, vscode, `${nls.category}: ${nls['command.showGraph']}`);
  await filter.fill('shop/web');
  const row = view.locator('.services .service:not([hidden])', { hasText: 'shop/web:http/tcp' }).first();
  await row.waitFor({ state: 'visible' });
  await row.click();
  const graph = view.locator('svg.graph');
  await graph.waitFor({ state: 'visible', timeout: 30_000 });
  // The graph opens at a readable zoom from its frontends: fit it (the toolbar's Fit) so the pods are drawn too.
  await view.locator('#fit').click();
  // The stale pod: marked by its class, its badge word and a tooltip with the API's reason.
  const stale = view.locator('svg.graph g.node.pod.mark-stale', { hasText: STALE }).first();
  await vscode
    .poll(async () => (await stale.count()) > 0, { timeout: 30_000, what: `${STALE} marked stale (the cluster state read beside the dump)` })
    .catch(async (e) => {
      const nodes = await view.locator('svg.graph g.node').evaluateAll((els) => els.map((g) => `${g.getAttribute('class')}: ${g.textContent}`));
      throw new Error(`${e.message}\nnodes: ${JSON.stringify(nodes, null, 1)}`);
    });
  const badge = await stale.locator('text.badges').textContent();
  const tip = await stale.locator('title').first().textContent();
  log(`  ${STALE}: ${badge} — ${tip}`);
  if (!badge?.includes(word('stale'))) throw new Error(`the stale pod's badge says ${JSON.stringify(badge)}`);
  const reasonOk = locale === 'en' ? tip?.includes('not ready') : /[\u4e00-\u9fff]/.test(tip ?? '');
  if (!reasonOk) throw new Error(`the stale pod's tooltip says ${JSON.stringify(tip)}`);
  if ((await view.locator('svg.graph g.node.pod.mark-stale').count()) !== 1) throw new Error('more than one pod of shop/web marked stale');

  // shop/checkout is in the API only: a row with the mark, and a graph with nothing programmed.
  await filter.fill('shop/checkout');
  const np = view.locator('.services .service:not([hidden])', { hasText: 'shop/checkout' }).first();
  await np.waitFor({ state: 'visible', timeout: 20_000 });
  const npBadge = await np.locator('.badge').textContent();
  log(`  shop/checkout row: ${npBadge}`);
  if (!npBadge?.includes(word('not programmed'))) throw new Error(`shop/checkout's row says ${JSON.stringify(npBadge)}`);
  await np.click();
  await view.locator('#fit').click();
  await vscode.poll(async () => (await view.locator('svg.graph g.node.mark-not-programmed').count()) >= 3, { timeout: 20_000, what: 'the API-side graph of shop/checkout' });
  if ((await view.locator('svg.graph g.node.linked').count()) !== 0) throw new Error('the API-side graph links to rules');
}
