#!/usr/bin/env node
// Browser benchmark of the Service graph webview (`npm run bench:graph`, after a production build):
// headless Chromium (Debian's /usr/bin/chromium, driven by the playwright-core that test/e2e/run.mjs installs in
// its cache) loads dist/webview.js in a plain page under the webview's CSP with a fake acquireVsCodeApi, then
//   1. draws a Service with 1,000 endpoints (2,000+ nodes): time from posting the message to the next painted
//      frame, ELK layout time, median of several runs (target ≤ 1 s);
//   2. shows a 10,000-Service list and scrolls it from top to bottom: frame times and long tasks ("without
//      stalls"), plus the time to filter it while typing.
// Prints the numbers and writes bench/graph-results.md. Real data: generated kube-proxy dumps parsed by the core.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const CACHE = process.env.DATAPLANE_E2E_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'dataplane-explorer', 'e2e');
const PLAYWRIGHT = path.join(CACHE, 'playwright', 'node_modules', 'playwright-core');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const args = process.argv.slice(2);
const ENDPOINTS = Number(args[args.indexOf('--endpoints') + 1]) || 1000;
const SERVICES = Number(args[args.indexOf('--services') + 1]) || 10_000;
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 5;

if (!existsSync(PLAYWRIGHT)) {
  console.error(`playwright-core is not in ${PLAYWRIGHT}: run \`node test/e2e/run.mjs --install-only\` first.`);
  process.exit(2);
}
if (!existsSync(CHROMIUM)) {
  console.error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM)`);
  process.exit(2);
}
for (const f of ['dist/webview.js', 'dist/elk.js', 'dist/webview.css']) {
  if (!existsSync(path.join(REPO, f))) {
    console.error(`${f} is missing: run \`node scripts/build.mjs --production\``);
    process.exit(2);
  }
}
const { chromium } = createRequire(import.meta.url)(PLAYWRIGHT);

// ---------------------------------------------------------------- data (the core, bundled for Node)
const tmp = mkdtempSync(path.join(os.tmpdir(), 'graph-bench-'));
const dataFile = path.join(tmp, 'graph-data.mjs');
await esbuild.build({ entryPoints: [path.join(HERE, 'graph-data.ts')], bundle: true, platform: 'node', format: 'esm', outfile: dataFile, logLevel: 'warning' });
const data = await import(pathToFileURL(dataFile).href);
let t = performance.now();
const wide = data.wideService(ENDPOINTS);
const SMALL = 10;
const small = data.wideService(SMALL);
const wideMs = performance.now() - t;
t = performance.now();
const many = data.manyServices(SERVICES);
const manyMs = performance.now() - t;
rmSync(tmp, { recursive: true, force: true });
console.log(`data: ${wide.graph.nodes.length} nodes / ${wide.graph.edges.length} edges (${wideMs.toFixed(0)} ms), ${many.length} Services (${(manyMs / 1000).toFixed(1)} s to generate and parse)`);

// ELK alone on the same graph, in Node, with the options the webview uses for large graphs (for comparison: the
// webview switches to the core's layered layout above MAX_ELK_NODES nodes).
const ELK = createRequire(import.meta.url)(path.join(REPO, 'node_modules/elkjs/lib/elk.bundled.js'));
const elkMs = [];
for (let run = 0; run < Math.min(RUNS, 3); run++) {
  const elk = new ELK();
  const t0 = performance.now();
  await elk.layout({
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '14',
      'elk.layered.spacing.nodeNodeBetweenLayers': '90',
      'elk.edgeRouting': 'POLYLINE',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.layered.thoroughness': '1',
    },
    children: wide.graph.nodes.map((n) => ({ id: n.id, width: 230, height: 52 })),
    edges: wide.graph.edges.map((e, i) => ({ id: `e${i}`, sources: [e.from], targets: [e.to] })),
  });
  elkMs.push(performance.now() - t0);
}
console.log(`ELK alone (Node) on ${wide.graph.nodes.length} nodes: ${elkMs.map((x) => x.toFixed(0)).join(' ')} ms`);

const strings = {
  filterPlaceholder: 'Filter by namespace, name, address, port or chain',
  filterLabel: 'Filter Services',
  servicesLabel: 'Services',
  copyMermaid: 'Copy as Mermaid',
  noSelection: 'Select one or more Services in the list to draw them.',
  noEndpoints: 'no endpoints',
  endpoints: 'endpoints',
  count: '{0} of {1} Services',
  graphLabel: 'Service graph',
  saveSvg: 'Save as SVG',
  fit: 'Fit',
  zoomIn: 'Zoom in',
  zoomOut: 'Zoom out',
  namespaceLabel: 'Namespace',
  allNamespaces: 'All namespaces',
  onlyNoEndpoints: 'Only Services without endpoints',
  traceFromHere: 'Trace from here',
  clearTrace: 'Clear Trace',
  traced: 'Trace {0}',
  keys: 'Keys',
  layoutTime: '{0} nodes laid out in {1} ms',
};

// ---------------------------------------------------------------- page (the webview's CSP, a fake VS Code API)
const NONCE = 'benchnonce0123456789';
const page = `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; img-src 'self'; font-src 'self'; script-src 'nonce-${NONCE}';">
<link rel="stylesheet" href="/webview.css"></head>
<body data-state="{&quot;document&quot;:&quot;file:///bench/node1.iptables&quot;,&quot;selected&quot;:[]}" data-scripts="{&quot;elk&quot;:&quot;/elk.js&quot;}">
<div id="app"></div>
<script nonce="${NONCE}">
window.__posted = [];
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), setState: () => {}, getState: () => undefined });
</script>
<script nonce="${NONCE}" src="/webview.js"></script>
</body></html>`;
const server = createServer((req, res) => {
  const file = { '/webview.js': ['dist/webview.js', 'text/javascript'], '/elk.js': ['dist/elk.js', 'text/javascript'], '/webview.css': ['dist/webview.css', 'text/css'] }[req.url ?? ''];
  if (file) {
    res.writeHead(200, { 'content-type': file[1] });
    res.end(readFileSync(path.join(REPO, file[0])));
  } else if (req.url === '/favicon.ico') {
    res.writeHead(204);
    res.end();
  } else if (req.url === '/') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page);
  } else {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/** Loads the page and lists `summary` as its only Service (none selected yet). */
async function showService(p, summary) {
  await p.goto(url);
  await p.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  await p.evaluate(({ strings, summary }) => window.postMessage({ type: 'init', title: 'bench', strings, files: ['node1.iptables'], services: [summary], selected: [] }, '*'), { strings, summary });
  await p.waitForFunction(() => document.querySelector('.empty'));
  // With nothing drawn the page reads ELK (its own bundle) at once: the rows below time ELK's layouts, not its load.
  await p.waitForFunction(() => document.body.dataset.elk === 'loaded');
}

/**
 * Posts `graph` and waits for the next painted frame: { total (ms), build, render, layout, engine, nodes }. With `pan`,
 * then pans through the whole graph with the wheel and adds { seen, frames, debug, shares }.
 */
async function drawGraph(p, graph, pan) {
  return p.evaluate(
    async ({ graph, pan }) => {
      const before = document.body.dataset.rendered;
      const t0 = performance.now();
      window.postMessage({ type: 'graph', graphs: [graph] }, '*');
      while (document.body.dataset.rendered === before) await new Promise((res) => setTimeout(res, 5));
      // The next painted frame.
      await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      const total = performance.now() - t0;
      const nodes = document.querySelectorAll('svg.graph g.node').length;
      const drawn = { total, build: Number(document.body.dataset.buildMs), render: Number(document.body.dataset.renderMs), layout: Number(document.body.dataset.layoutMs), engine: document.body.dataset.engine, nodes };
      if (!pan) return drawn;
      // Then pan through the whole graph with the wheel: frame times while nodes come and go.
      const canvas = document.querySelector('.canvas');
      const frames = [];
      const seen = new Set();
      // From the top (Home), then down with the wheel.
      canvas.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home', bubbles: true }));
      await new Promise((res) => requestAnimationFrame(res));
      for (const g of document.querySelectorAll('svg.graph g.node')) seen.add(g.dataset.index);
      let last = performance.now();
      for (let i = 0; i < 2000; i++) {
        canvas.dispatchEvent(new WheelEvent('wheel', { deltaY: 400, bubbles: true, cancelable: true }));
        await new Promise((res) => requestAnimationFrame(res));
        const now = performance.now();
        frames.push(now - last);
        last = now;
        for (const g of document.querySelectorAll('svg.graph g.node')) seen.add(g.dataset.index);
        const vp = document.querySelector('svg.graph g.viewport').getBoundingClientRect();
        if (vp.bottom < canvas.getBoundingClientRect().bottom) break;
      }
      return {
        ...drawn,
        seen: seen.size,
        debug: { zoom: document.body.dataset.zoom, vp: document.querySelector('svg.graph g.viewport').getAttribute('transform'), h: canvas.clientHeight },
        frames: frames.slice(1),
        shares: document.querySelectorAll('svg.graph text.share').length,
      };
    },
    { graph, pan },
  );
}

const results = {};
try {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const p = await ctx.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });

  // ---- 1. a Service with 1,000 endpoints
  const render = [];
  const layout = [];
  for (let run = 0; run < RUNS; run++) {
    await showService(p, wide.summary);
    const r = await drawGraph(p, wide.graph, true);
    if (r.seen !== wide.graph.nodes.length) throw new Error(`panning showed ${r.seen} of ${wide.graph.nodes.length} nodes in ${r.frames.length} frames (${JSON.stringify(r.debug)})`);
    results.pan = r.frames;
    results.domNodes = r.nodes;
    render.push(r.total);
    console.log(`  run ${run + 1}: total ${r.total.toFixed(0)} ms, layout ${r.layout.toFixed(0)}, DOM build ${r.build.toFixed(0)}, until rendered ${r.render.toFixed(0)}`);
    layout.push(r.layout);
    results.engine = r.engine;
  }
  results.render = render;
  results.layout = layout;
  results.small = [];
  results.smallLayout = [];
  for (let run = 0; run < RUNS; run++) {
    await showService(p, small.summary);
    const r = await drawGraph(p, small.graph, false);
    if (r.engine !== 'elk') throw new Error(`a ${SMALL}-endpoint Service was laid out by ${r.engine}`);
    results.small.push(r.total);
    results.smallLayout.push(r.layout);
  }
  console.log(`${SMALL} endpoints (ELK): render ${results.small.map((x) => x.toFixed(0)).join(' ')} ms, ELK ${results.smallLayout.map((x) => x.toFixed(0)).join(' ')} ms`);
  console.log(
    `1,000 endpoints: render ${render.map((x) => x.toFixed(0)).join(' ')} ms (median ${median(render).toFixed(0)}), layout median ${median(layout).toFixed(0)} ms (${results.engine}), ${results.domNodes} of ${wide.graph.nodes.length} nodes in the DOM at first`,
  );
  console.log(`  panned top to bottom in ${results.pan.length} frames: p50 ${pct(results.pan, 50).toFixed(1)} ms, p95 ${pct(results.pan, 95).toFixed(1)} ms, max ${Math.max(...results.pan).toFixed(1)} ms`);

  // ---- 2. a 10,000-Service list
  await p.goto(url);
  await p.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  const list = await p.evaluate(
    async ({ strings, services }) => {
      const t0 = performance.now();
      window.postMessage({ type: 'init', title: 'bench', strings, files: ['node1.iptables'], services, selected: [] }, '*');
      const box = () => document.querySelector('.services');
      while (!box() || box().scrollHeight < services.length * 50) await new Promise((res) => setTimeout(res, 5));
      await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      const initMs = performance.now() - t0;
      const longTasks = [];
      const observer = new PerformanceObserver((l) => longTasks.push(...l.getEntries().map((e) => e.duration)));
      observer.observe({ type: 'longtask', buffered: false });
      const el = box();
      const frames = [];
      const rowsInDom = [];
      let last = performance.now();
      const step = 1000; // px per frame: a fast fling, ~17 rows a frame
      await new Promise((done) => {
        const tick = () => {
          const now = performance.now();
          frames.push(now - last);
          last = now;
          rowsInDom.push(el.querySelectorAll('.service:not([hidden])').length);
          if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return done();
          el.scrollTop += step;
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      observer.disconnect();
      const lastRow = [...el.querySelectorAll('.service:not([hidden])')].map((r) => Number(r.dataset.index)).sort((a, b) => b - a)[0];
      // Typing in the filter: from the input event to the next painted frame.
      const filterMs = [];
      const field = document.getElementById('filter');
      for (const text of ['s', 'sh', 'sho', 'shop', 'shop/', 'shop/web', '10.96.1', 'udp', '']) {
        const f0 = performance.now();
        field.value = text;
        field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
        filterMs.push(performance.now() - f0);
      }
      return { initMs, frames: frames.slice(1), longTasks, maxRows: Math.max(...rowsInDom), lastRow, filterMs, count: document.querySelector('.count span')?.textContent };
    },
    { strings, services: many },
  );
  if (list.lastRow !== many.length - 1) throw new Error(`scrolled to row ${list.lastRow}, expected ${many.length - 1}`);
  results.list = list;
  const f = list.frames;
  console.log(
    `10,000 Services: shown in ${list.initMs.toFixed(0)} ms; scrolled ${f.length} frames to row ${list.lastRow}: frame p50 ${pct(f, 50).toFixed(1)} ms, p95 ${pct(f, 95).toFixed(1)} ms, max ${Math.max(...f).toFixed(1)} ms, frames > 50 ms: ${f.filter((x) => x > 50).length}; long tasks: ${list.longTasks.length} (max ${list.longTasks.length ? Math.max(...list.longTasks).toFixed(0) : 0} ms); at most ${list.maxRows} rows in the DOM`,
  );
  console.log(`filter while typing: ${list.filterMs.map((x) => x.toFixed(0)).join(' ')} ms per keystroke (to the painted frame)`);
  if (errors.length) console.log(`page errors: ${errors.join(' | ')}`);
  results.errors = errors;
} finally {
  await browser.close();
  server.close();
}

// ---------------------------------------------------------------- results file
const f = results.list.frames;
const cpu = os.cpus();
const md = `# Service graph benchmark (browser)

Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpu.length} × ${cpu[0]?.model ?? 'CPU'} (load average ${os.loadavg()[0].toFixed(1)} at the end: the machine was shared), headless Chromium (${CHROMIUM}), \`npm run bench:graph\`.
The production webview bundle (dist/webview.js, ${(readFileSync(path.join(REPO, 'dist/webview.js')).length / 1024).toFixed(0)} KiB, and ELK in dist/elk.js, ${(readFileSync(path.join(REPO, 'dist/elk.js')).length / 1024).toFixed(0)} KiB, which the page reads after its first drawing) in a page with the webview's CSP.
Data: generated kube-proxy iptables dumps parsed by the core (graph models as the extension sends them).

## A Service with ${ENDPOINTS.toLocaleString('en')} endpoints (${wide.graph.nodes.length} nodes, ${wide.graph.edges.length} edges)

From posting the \`graph\` message to the next painted frame (layout engine: ${results.engine}), ${RUNS} runs:

| | median | runs |
|---|---|---|
| total (message → layout → SVG → painted) | **${median(results.render).toFixed(0)} ms** | ${results.render.map((x) => x.toFixed(0)).join(', ')} |
| of which layout (${results.engine}) | ${median(results.layout).toFixed(0)} ms | ${results.layout.map((x) => x.toFixed(0)).join(', ')} |
| a Service with ${SMALL} endpoints (${small.graph.nodes.length} nodes, ELK) | **${median(results.small).toFixed(0)} ms** | ${results.small.map((x) => x.toFixed(0)).join(', ')} (ELK ${median(results.smallLayout).toFixed(0)} ms) |

Target ≤ 1 s: ${median(results.render) <= 1000 ? 'met' : 'NOT met'}. The SVG holds only the nodes in and near the view (${results.domNodes} of ${wide.graph.nodes.length} at first,
the first view readable at 80 % and centred on the frontends); panning from top to bottom with the wheel (${results.pan.length} frames): frame p50 ${pct(results.pan, 50).toFixed(1)} ms,
p95 ${pct(results.pan, 95).toFixed(1)} ms, max ${Math.max(...results.pan).toFixed(1)} ms.

ELK alone on the same ${wide.graph.nodes.length} nodes (Node, the webview's large-graph options): ${elkMs.map((x) => x.toFixed(0)).join(', ')} ms. This is
why graphs above ${400} nodes are placed by the core's layered layout (the endpoints of a fan-out in one column) and
smaller ones by ELK.

## A list of ${many.length.toLocaleString('en')} Services

| | |
|---|---|
| shown (message → painted) | ${results.list.initMs.toFixed(0)} ms |
| scrolled top to bottom | ${f.length} frames, 1,000 px (~17 rows) per frame |
| frame time p50 / p95 / max | ${pct(f, 50).toFixed(1)} / ${pct(f, 95).toFixed(1)} / ${Math.max(...f).toFixed(1)} ms |
| frames over 50 ms | ${f.filter((x) => x > 50).length} |
| long tasks (> 50 ms) while scrolling | ${results.list.longTasks.length}${results.list.longTasks.length ? ` (max ${Math.max(...results.list.longTasks).toFixed(0)} ms)` : ''} |
| rows in the DOM at most | ${results.list.maxRows} |
| filter, per keystroke (input → painted), median | ${median(results.list.filterMs).toFixed(0)} ms (max ${Math.max(...results.list.filterMs).toFixed(0)} ms) |

The machine is shared (2 cores, other work running): repeat and compare medians.
`;
writeFileSync(path.join(HERE, 'graph-results.md'), md);
console.log(`wrote ${path.relative(REPO, path.join(HERE, 'graph-results.md'))}`);
