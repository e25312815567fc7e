// The Service graph's geometry: ELK's layer spacing, edge labels that never overlap (on the laid-out geometry, for
// every Service of the iptables, nft and IPVS samples, a fan-out of many endpoints and several IPVS virtual
// services sharing real servers), the first view's zoom, and the panel's short title.
import { describe, expect, it, vi } from 'vitest';
import { generateIptablesDump, type GenServicePort } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';
import { sampleFiles } from '../../tools/generate/samples';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';
import { edgeLabels, layeredLayout, layerGap, NODE_HEIGHT, NODE_WIDTH, toSvg, type GraphLayout } from '../../src/core/graph/svg';
import { labelWidth, placeEdgeLabels, type PlacedLabel } from '../../src/core/graph/labels';
import type { ServiceGraph } from '../../src/core/graph/model';
import { firstView, MIN_READABLE_ZOOM, wholeView } from '../../src/core/graph/view';
import { snapshotName } from '../../src/core/graph/title';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';
import ELK from 'elkjs/lib/elk.bundled.js';
import { elkOptions, layoutGraphs, useElk, warmUpLayout } from '../../webview/layout';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';

function graphsOf(files: Record<string, string>): ServiceGraph[] {
  const snapshot = buildSnapshot(Object.entries(files).flatMap(([name, text]) => analyzeFile(name, text) ?? []));
  return [...graphOfSnapshot(snapshot).graphs.values()];
}

const samples = sampleFiles();
const pick = (prefix: string) =>
  Object.fromEntries(
    Object.entries(samples)
      .filter(([k]) => k.startsWith(prefix))
      .map(([k, v]) => [k.slice(prefix.length), v]),
  );
const SAMPLES: [string, ServiceGraph[]][] = [
  ['iptables', graphsOf(pick('iptables-nft/'))],
  ['nft', graphsOf(pick('nftables/'))],
  ['IPVS', graphsOf(pick('ipvs/'))],
];

function many(n: number, nodePort = true): GenServicePort[] {
  const endpoints = Array.from({ length: n }, (_, i) => ({ address: `10.244.${(i >> 8) & 255}.${i & 255}`, port: 8080 }));
  return [{ namespace: 'shop', name: 'wide', portName: 'http', protocol: 'tcp', clusterIP: '10.96.7.7', port: 80, ...(nodePort ? { nodePort: 30080 } : {}), externalIPs: ['198.51.100.7'], endpoints }];
}

const ipvsMany = (n: number, nodeIPs: string[]) => {
  const s = generateIpvsSnapshot({ services: many(n), nodeIPs });
  return graphsOf({ 'node.ipvsadm': s['ipvsadm-list'], 'node.ipset': s['ipset-save'], 'node.iptables': s['iptables-save'] });
};

const labelOf = (graphs: ServiceGraph[]) => {
  const m = new Map(graphs.flatMap((g) => g.edges.map((e) => [`${e.from}\u0000${e.to}`, e.label] as const)));
  return (from: string, to: string) => m.get(`${from}\u0000${to}`);
};

const overlap = (a: PlacedLabel, b: { x0: number; y0: number; x1: number; y1: number }) => a.x - a.width / 2 < b.x1 && b.x0 < a.x + a.width / 2 && a.y - a.height / 2 < b.y1 && b.y0 < a.y + a.height / 2;
const box = (l: PlacedLabel) => ({ x0: l.x - l.width / 2, y0: l.y - l.height / 2, x1: l.x + l.width / 2, y1: l.y + l.height / 2 });

/** Pairs of labels whose boxes meet, and (unless too many labels share a gap to avoid them) labels on a node. */
function collisions(layout: GraphLayout, labels: PlacedLabel[], onNodes = true): string[] {
  const out: string[] = [];
  for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) if (overlap(labels[i], box(labels[j]))) out.push(`${labels[i].text}@${labels[i].to} × ${labels[j].text}@${labels[j].to}`);
  if (onNodes) for (const l of labels) for (const n of layout.nodes) if (overlap(l, { x0: n.x, y0: n.y, x1: n.x + NODE_WIDTH, y1: n.y + NODE_HEIGHT })) out.push(`${l.text}@${l.to} on node ${n.id}`);
  return out;
}

function expectClear(graphs: ServiceGraph[], layout: GraphLayout, onNodes = true): PlacedLabel[] {
  const labels = edgeLabels(layout, labelOf(graphs));
  expect(labels.length).toBe(layout.edges.filter((e) => labelOf(graphs)(e.from, e.to)).length);
  expect(collisions(layout, labels, onNodes)).toEqual([]);
  return labels;
}

// The webview hands ELK over once its own bundle is loaded (webview/elkLoader.ts); these tests at once.
useElk(ELK);

describe('graph layout: before ELK is loaded', () => {
  it('lays out with the core layered layout, then with ELK once handed over', async () => {
    vi.resetModules();
    const fresh = await import('../../webview/layout');
    const [, graphs] = SAMPLES[0];
    expect(fresh.hasElk()).toBe(false);
    expect((await fresh.layoutGraphs(graphs.slice(0, 1))).engine).toBe('layered');
    fresh.useElk(ELK);
    expect((await fresh.layoutGraphs(graphs.slice(0, 1))).engine).toBe('elk');
  });
});

describe('graph layout: the warm-up the panel runs while it waits for its data', () => {
  it('leaves the layouts of the Services as they were', async () => {
    const [, graphs] = SAMPLES[0];
    const before = await layoutGraphs(graphs.slice(0, 2));
    await warmUpLayout();
    expect(await layoutGraphs(graphs.slice(0, 2))).toEqual(before);
  });
});

describe('graph layout: edge labels never overlap', () => {
  for (const [name, graphs] of SAMPLES) {
    it(`every Service of the ${name} sample, ELK and the layered layout`, async () => {
      expect(graphs.length).toBeGreaterThan(3);
      let labelled = 0;
      for (const g of graphs) {
        labelled += expectClear([g], await layoutGraphs([g])).length;
        expectClear([g], layeredLayout([g]));
      }
      expect(labelled).toBeGreaterThan(4);
      // All Services at once, stacked.
      expectClear(graphs, await layoutGraphs(graphs));
    });
  }

  it('IPVS: a ClusterIP, an external IP and NodePorts on three node addresses share 24 real servers', async () => {
    const [g] = ipvsMany(24, ['192.168.0.10', '192.168.0.11', '10.0.0.5']);
    const virtuals = g.nodes.filter((n) => n.kind === 'service').length;
    expect(virtuals).toBe(5);
    // 120 labels do not all fit beside 24 nodes: some are drawn over a node (above it), none over another label.
    const labels = expectClear([g], await layoutGraphs([g]), false);
    expect(labels.length).toBe(virtuals * 24);
    expectClear([g], layeredLayout([g]), false);
  });

  it('a Service with many endpoints (iptables 60 with ELK; nft 1,500 with the layered layout)', async () => {
    const [wide] = graphsOf({ 'n.iptables': generateIptablesDump({ services: many(60), style: 'iptables-nft-save' }) });
    expect(expectClear([wide], await layoutGraphs([wide])).length).toBe(60);
    const [huge] = graphsOf({ 'n.nft': generateNftDump({ services: many(1_500), style: 'nft-list-ruleset' }) });
    const laid = await layoutGraphs([huge]);
    expect(laid.engine).toBe('layered');
    const labels = edgeLabels(laid, labelOf([huge]));
    expect(labels.length).toBe(1_500);
    // Pairwise on neighbours in y order: boxes sorted by top never reach into the next ones.
    const sorted = [...labels].sort((a, b) => a.y - b.y);
    for (let i = 0; i < sorted.length; i++) for (let j = i + 1; j < Math.min(sorted.length, i + 12); j++) expect(overlap(sorted[i], box(sorted[j]))).toBe(false);
  });

  it('labels that all want the same spot are stacked apart, and long ones are clipped', () => {
    const layout: GraphLayout = {
      width: 400,
      height: 200,
      titles: [],
      nodes: [],
      edges: Array.from({ length: 30 }, (_, i) => ({
        from: 'a',
        to: `b${i}`,
        points: [
          [0, 100],
          [300, 100],
        ] as [number, number][],
      })),
    };
    const labels = placeEdgeLabels(layout, (_, to) => (to === 'b3' ? 'from pods (10.244.0.0/16, 10.245.0.0/16) or this node' : '33.33%'), { width: NODE_WIDTH, height: NODE_HEIGHT });
    expect(collisions(layout, labels)).toEqual([]);
    expect([...labels[3].text].length).toBeLessThanOrEqual(40);
    expect(labels[3].text.endsWith('…')).toBe(true);
  });

  it('the saved SVG draws each label at its placed spot', async () => {
    const [, graphs] = SAMPLES[2];
    const g = graphs.find((x) => x.edges.filter((e) => e.label).length >= 2)!;
    const layout = await layoutGraphs([g]);
    const svg = toSvg([g], layout);
    for (const l of edgeLabels(layout, labelOf([g]))) expect(svg).toContain(`<text class="share" x="${Math.round(l.x * 10) / 10}" y="${Math.round(l.y * 10) / 10}">${l.text}</text>`);
  });

  perfIt('places labels in time linear in the number of edges', async () => {
    const [small] = graphsOf({ 'n.nft': generateNftDump({ services: many(400), style: 'nft-list-ruleset' }) });
    const [large] = graphsOf({ 'n.nft': generateNftDump({ services: many(3_200), style: 'nft-list-ruleset' }) });
    const layouts = new Map([
      ['s', { g: small, l: layeredLayout([small]) }],
      ['l', { g: large, l: layeredLayout([large]) }],
    ]);
    const run = (k: string) => edgeLabels(layouts.get(k)!.l, labelOf([layouts.get(k)!.g]));
    expect(costRatio(run, 's', 'l')).toBeLessThan(MAX_COST_RATIO_8X);
  });
});

describe('graph layout: spacing', () => {
  it('layers sit closer than before (90 px) yet leave room for the widest share label', () => {
    let shareOnly = 0;
    for (const [, graphs] of SAMPLES)
      for (const g of graphs) {
        const gap = Number(elkOptions(g)['elk.layered.spacing.nodeNodeBetweenLayers']);
        const labels = g.edges.filter((e) => e.label).map((e) => e.label!);
        const widest = Math.max(0, ...labels.map(labelWidth));
        // Only conditions ("from pods (…) or this node") may widen a gap, and only so far.
        if (labels.every((l) => l.endsWith('%'))) {
          shareOnly++;
          expect(gap).toBeLessThan(90);
        }
        expect(gap).toBeGreaterThanOrEqual(Math.min(widest, 110));
        expect(gap).toBe(layerGap([g]));
      }
    expect(shareOnly).toBeGreaterThan(10);
  });

  it('the layered layout uses the same gap', () => {
    const [, graphs] = SAMPLES[0];
    const g = graphs.find((x) => x.nodes.some((n) => n.layer === 1))!;
    const l = layeredLayout([g]);
    const xs = [...new Set(l.nodes.map((n) => n.x))].sort((a, b) => a - b);
    expect(xs[1] - xs[0]).toBe(NODE_WIDTH + layerGap([g]));
  });
});

describe('graph first view', () => {
  it('fits a graph that is readable when fitted, centred', () => {
    const v = firstView({ width: 800, height: 300 }, { width: 1000, height: 600 });
    expect(v).toEqual({ scale: 1, tx: 100, ty: 150 });
    const w = firstView({ width: 1000, height: 300 }, { width: 700, height: 600 });
    expect(w.scale).toBeCloseTo(0.7);
    expect(w.tx).toBeCloseTo(0);
    expect(1000 * w.scale).toBeLessThanOrEqual(700);
  });

  it('never goes below the readable zoom: the graph starts at its left edge, centred on the anchor', () => {
    const v = firstView({ width: 1200, height: 6000 }, { width: 400, height: 600 }, 3000);
    expect(v.scale).toBe(MIN_READABLE_ZOOM);
    expect(wholeView({ width: 1200, height: 6000 }, { width: 400, height: 600 }).scale).toBeLessThan(MIN_READABLE_ZOOM);
    expect(v.tx).toBe(0);
    expect(v.ty).toBeCloseTo(300 - 3000 * MIN_READABLE_ZOOM);
    // Near the top, the view does not scroll above the graph.
    expect(firstView({ width: 1200, height: 6000 }, { width: 400, height: 600 }, 20).ty).toBe(0);
  });
});

describe('graph panel title', () => {
  it('is the snapshot folder name, or the file name without a folder', () => {
    expect(snapshotName('/home/me/bundles/node-a/iptables-save.txt')).toBe('node-a');
    expect(snapshotName('/c:/Users/me/snap/node1.nft')).toBe('snap');
    expect(snapshotName('/node1.txt')).toBe('node1.txt');
    expect(snapshotName('Untitled-1')).toBe('Untitled-1');
  });
});
