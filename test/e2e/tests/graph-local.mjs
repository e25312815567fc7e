// The Service graph of an externalTrafficPolicy Local Service: ingress/gateway:https of the bundled sample
// (samples/iptables-nft/node1.iptables, written by the project's kube-proxy generator as kube-proxy's
// pkg/proxy/iptables/proxier.go writes it). Its KUBE-EXT chain branches: pods and this node go to KUBE-SVC, other
// sources to KUBE-SVL (the endpoint on this node, 100%). "Trace from here" on its LoadBalancer frontend lights one
// connected path: frontend → KUBE-EXT → KUBE-SVL → KUBE-SEP → pod.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAll, openGraph } from './graph.mjs';

const RELATIVE = 'samples/iptables-nft/node1.iptables';
const LINES = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', RELATIVE), 'utf8').split('\n');
const chainOf = (prefix) => /-j (KUBE-\S+)/.exec(LINES.find((l) => l.startsWith(`-A ${prefix}`) && l.includes('ingress/gateway')) ?? '')?.[1];
const SVL = LINES.find((l) => l.startsWith(':KUBE-SVL-'))
  ?.slice(1)
  .split(' ')[0];
const EXT = LINES.find((l) => l.startsWith(':KUBE-EXT-') && LINES.some((m) => m.startsWith(`-A ${l.slice(1).split(' ')[0]} `) && m.includes('pod traffic for ingress/gateway')))
  ?.slice(1)
  .split(' ')[0];
const LOCAL_SEP = SVL ? /-j (KUBE-SEP-\S+)/.exec(LINES.find((l) => l.startsWith(`-A ${SVL} `)) ?? '')?.[1] : undefined;
const LB = '203.0.113.10:443';
const LOCAL_POD = '10.244.1.30:8443';

export default [
  {
    name: 'Service graph: externalTrafficPolicy Local draws the KUBE-EXT branches, and Trace from here on the LoadBalancer lights a connected path',
    timeout: 180_000,
    async run({ page, vscode, log }) {
      if (!SVL || !EXT || !LOCAL_SEP || !chainOf('KUBE-SERVICES')) throw new Error(`${RELATIVE} lacks the Local Service ingress/gateway`);
      await closeAll(page, vscode);
      try {
        await localSteps({ page, vscode, log });
      } finally {
        await closeAll(page, vscode);
      }
    },
  },
];

async function localSteps({ page, vscode, log }) {
  await vscode.openFile(page, path.basename(RELATIVE), { query: RELATIVE, row: (label) => label.startsWith(path.basename(RELATIVE)) && label.includes('iptables-nft') });
  await vscode.ensureLanguageMode(page, 'iptables', log);
  const { view, filter } = await openGraph(page, vscode);
  await filter.fill('ingress/gateway');
  const row = view.locator('.services .service:not([hidden])', { hasText: 'ingress/gateway:https/tcp' }).first();
  await row.waitFor({ state: 'visible' });
  await row.click();
  const graph = view.locator('svg.graph');
  await graph.waitFor({ state: 'visible', timeout: 30_000 });
  await view.locator('vscode-button#fit').click();
  await vscode.poll(
    async () => {
      const text = (await graph.count()) > 0 ? await graph.textContent() : '';
      return [EXT, SVL, LOCAL_SEP, LB, LOCAL_POD].every((s) => text.includes(s));
    },
    { timeout: 30_000, what: `ingress/gateway with ${EXT}, ${SVL} and ${LOCAL_SEP}` },
  );

  // The external chain's two branches say their condition; the local chain picks its one endpoint at 100%.
  const edges = await edgeTexts(view);
  log(
    `  edges: ${edges
      .map((e) => e.label)
      .filter(Boolean)
      .join(' | ')}`,
  );
  for (const want of ['from pods (10.0.0.0/8) or this node', 'other sources', '100%']) {
    if (!edges.some((e) => e.label === want)) throw new Error(`no edge labelled ${JSON.stringify(want)}: ${JSON.stringify(edges.map((e) => e.label))}`);
  }

  // Trace from here on the LoadBalancer frontend: a client outside the cluster takes KUBE-SVL.
  const lb = view.locator('svg.graph g.node.frontend', { hasText: LB }).first();
  await lb.locator('.trace-action').click();
  await vscode.poll(async () => (await view.locator('svg.graph g.node.pod.on').count()) === 1, { timeout: 20_000, what: 'the local pod highlighted by the trace' });
  const lit = await view.locator('svg.graph g.node.on').evaluateAll((gs) => gs.map((g) => g.querySelector('text.label')?.textContent ?? ''));
  log(`  traced nodes: ${lit.join(' → ')}`);
  const want = [LB, EXT, SVL, LOCAL_SEP, LOCAL_POD];
  if (lit.length !== want.length || !want.every((w) => lit.includes(w))) throw new Error(`the trace lights ${JSON.stringify(lit)}, expected ${JSON.stringify(want)}`);
  const litEdges = (await edgeTexts(view)).filter((e) => e.on);
  log(`  traced edges: ${litEdges.map((e) => e.label || '—').join(', ')}`);
  // A connected path: n nodes joined by n − 1 lit edges, one walk from the frontend.
  if (litEdges.length !== lit.length - 1) throw new Error(`${lit.length} lit nodes but ${litEdges.length} lit edges`);
  const starts = litEdges.filter((e) => !litEdges.some((f) => f.to === e.from));
  if (starts.length !== 1) throw new Error(`the lit edges are not one path: ${starts.length} starts`);
  let at = starts[0];
  for (let walked = 1; ; walked++) {
    const next = litEdges.find((e) => e.from === at.to);
    if (!next) {
      if (walked !== litEdges.length) throw new Error(`the lit path breaks after ${walked} of ${litEdges.length} edges`);
      break;
    }
    at = next;
  }
  if (!litEdges.some((e) => e.label === 'other sources')) throw new Error('the lit branch does not say its condition (other sources)');
}

/** Every drawn edge: its ends (node ids), label (drawn in the labels layer, by the same ends) and whether the trace lights it. */
async function edgeTexts(view) {
  return view.locator('svg.graph').evaluate((svg) => {
    const labels = new Map([...svg.querySelectorAll('text.share')].map((t) => [`${t.dataset.from}\u0000${t.dataset.to}`, t.textContent ?? '']));
    return [...svg.querySelectorAll('g.edge-group')].map((g) => ({ from: g.dataset.from, to: g.dataset.to, label: labels.get(`${g.dataset.from}\u0000${g.dataset.to}`) ?? '', on: g.classList.contains('on') }));
  });
}
