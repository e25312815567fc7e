// The Service graph's first view in a real VS Code: the whole graph of a sample Service fits the panel at a
// readable zoom, its share labels do not overlap on screen, and the tab carries the snapshot's folder name.
import { closeAll, openGraph } from './graph.mjs';

const MIN_READABLE_ZOOM = 0.6;

/** The canvas, the drawn graph and every share label, as screen rectangles inside the webview. */
async function geometry(view) {
  return view.locator('body').evaluate(() => {
    const rect = (e) => {
      const r = e.getBoundingClientRect();
      return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
    };
    const canvas = document.querySelector('.canvas');
    const graph = document.querySelector('svg.graph g.viewport');
    return {
      zoom: Number(document.body.dataset.zoom),
      canvas: canvas ? rect(canvas) : undefined,
      graph: graph ? rect(graph) : undefined,
      nodes: document.querySelectorAll('svg.graph g.node').length,
      labels: [...document.querySelectorAll('svg.graph text.share')].map((t) => ({ text: t.textContent, ...rect(t) })),
    };
  });
}

const inside = (a, b) => a.x0 >= b.x0 - 0.5 && a.y0 >= b.y0 - 0.5 && a.x1 <= b.x1 + 0.5 && a.y1 <= b.y1 + 0.5;
const meet = (a, b) => a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5;
const show = (r) => `${Math.round(r.x0)},${Math.round(r.y0)}–${Math.round(r.x1)},${Math.round(r.y1)}`;

/** Waits until the graph is drawn whole, in the panel, at a readable zoom; returns its geometry. */
async function expectFitted(view, vscode, what) {
  let last;
  await vscode
    .poll(
      async () => {
        last = await geometry(view);
        return last.canvas && last.graph && last.nodes > 0 && last.zoom >= MIN_READABLE_ZOOM && inside(last.graph, last.canvas);
      },
      { timeout: 30_000, what },
    )
    .catch((e) => {
      throw new Error(`${e.message}: zoom ${last?.zoom}, graph ${last?.graph ? show(last.graph) : '-'} in canvas ${last?.canvas ? show(last.canvas) : '-'}`);
    });
  return last;
}

export default [
  {
    name: 'Service graph fit: first open shows the whole IPVS graph at a readable zoom, labels apart, short tab title',
    timeout: 180_000,
    async run({ page, vscode, log }) {
      await closeAll(page, vscode);
      // The explorer takes a third of the window: without it the graph's half of the editor area is wide enough.
      const sidebar = page.locator('.part.sidebar');
      const hadSidebar = await sidebar.isVisible().catch(() => false);
      if (hadSidebar) await vscode.runCommand(page, 'View: Toggle Primary Side Bar Visibility');
      try {
        await vscode.openFile(page, 'node1.ipvsadm');
        const { view, filter } = await openGraph(page, vscode);
        const first = await expectFitted(view, vscode, 'the first graph whole in the panel at zoom ≥ 0.6');
        log(`  first open: zoom ${first.zoom}, graph ${show(first.graph)} in canvas ${show(first.canvas)}, ${first.nodes} nodes`);

        // The tab: the snapshot's folder, not a path.
        const tabs = await page.$$eval('.tabs-container .tab', (els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        const tab = tabs.find((t) => t.startsWith('Service Graph'));
        if (!tab?.startsWith('Service Graph: ipvs') || tab.includes('/')) throw new Error(`graph tab titled ${JSON.stringify(tab)} (tabs: ${JSON.stringify(tabs)})`);
        log(`  tab: ${tab}`);

        // The web Service: two virtual services (ClusterIP, NodePort) to three real servers, six share labels.
        await filter.fill('10.96.12.40:80');
        const row = view.locator('.services .service:not([hidden])', { hasText: '10.96.12.40:80' }).first();
        await row.click();
        await vscode.poll(async () => (await view.locator('svg.graph text.share').count()) === 6, { timeout: 30_000, what: 'the six shares of 10.96.12.40:80' });
        const web = await expectFitted(view, vscode, '10.96.12.40:80 whole in the panel at zoom ≥ 0.6');
        const clash = [];
        for (let i = 0; i < web.labels.length; i++)
          for (let j = i + 1; j < web.labels.length; j++) if (meet(web.labels[i], web.labels[j])) clash.push(`${web.labels[i].text} ${show(web.labels[i])} × ${web.labels[j].text} ${show(web.labels[j])}`);
        if (clash.length > 0) throw new Error(`share labels overlap: ${clash.join('; ')}`);
        const outside = web.labels.filter((l) => !inside(l, web.canvas));
        if (outside.length > 0) throw new Error(`labels outside the panel: ${outside.map((l) => show(l)).join('; ')}`);
        log(`  10.96.12.40:80: zoom ${web.zoom}, ${web.labels.length} labels apart: ${web.labels.map((l) => `${l.text}@${Math.round(l.x0)},${Math.round(l.y0)}`).join(' ')}`);
      } finally {
        await closeAll(page, vscode);
        if (hadSidebar && !(await sidebar.isVisible().catch(() => false))) await vscode.runCommand(page, 'View: Toggle Primary Side Bar Visibility');
      }
    },
  },
];
