// Layout of the selected Service graphs with ELK (layered, left to right), one band per Service stacked top to
// bottom. ELK runs in the page (the webview CSP allows no worker from our origin). It is most of the graph's script
// and its first layout in a page pays for its start: the webview loads it as a bundle of its own after the first
// drawing (webview/elkLoader.ts) and hands it over with useElk; until then, and beyond MAX_ELK_NODES (a Service with
// ~200 endpoints, where ELK's time grows steeply with the width of a layer), the core's deterministic layered
// layout is used, which places a fan-out of thousands of endpoints in a few milliseconds (bench/graph-results.md).
import type ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkNode } from 'elkjs/lib/elk-api';
import type { ServiceGraph } from '../src/core/graph/model';
import { layerGap, layeredLayout, NODE_HEIGHT, NODE_WIDTH, TITLE_HEIGHT, type GraphLayout } from '../src/core/graph/svg';

const MARGIN = 12;
const BAND_GAP = 30;
export const MAX_ELK_NODES = 400;

let Elk: typeof ELK | undefined;
let elk: InstanceType<typeof ELK> | undefined;

/** Lays out with ELK from now on. */
export function useElk(constructor: typeof ELK): void {
  Elk ??= constructor;
}

/** Whether graphs of at most MAX_ELK_NODES nodes are laid out by ELK (it was handed over). */
export function hasElk(): boolean {
  return Elk !== undefined;
}

/**
 * ELK's options for one Service graph. Layers sit as close as the widest share label allows (the labels are
 * placed afterwards, between the layers, by core/graph/labels.ts).
 */
export function elkOptions(g: ServiceGraph): Record<string, string> {
  const common = {
    'elk.algorithm': 'layered',
    'elk.direction': 'RIGHT',
    'elk.spacing.nodeNode': '14',
    'elk.layered.spacing.nodeNodeBetweenLayers': String(layerGap([g])),
    'elk.edgeRouting': 'POLYLINE',
    'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
  };
  // Small graphs get ELK's thorough crossing minimisation; large fan-outs the single-pass one (see the benchmark).
  return g.nodes.length > 150 ? { ...common, 'elk.layered.thoroughness': '1' } : common;
}

async function layoutOne(g: ServiceGraph, Elk: typeof ELK): Promise<GraphLayout> {
  elk ??= new Elk();
  const ids = new Set(g.nodes.map((n) => n.id));
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: elkOptions(g),
    children: g.nodes.map((n) => ({
      id: n.id,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      // Frontends first, pods last, whatever the edges say.
      layoutOptions: (n.layer === 0 ? { 'elk.layered.layering.layerConstraint': 'FIRST' } : n.kind === 'pod' || n.kind === 'verdict' ? { 'elk.layered.layering.layerConstraint': 'LAST' } : {}) as Record<string, string>,
    })),
    edges: g.edges.filter((e) => ids.has(e.from) && ids.has(e.to)).map((e, i) => ({ id: `e${i}`, sources: [e.from], targets: [e.to] })),
  };
  const out = await elk.layout(graph);
  const nodes = (out.children ?? []).map((c) => ({ id: c.id, x: c.x ?? 0, y: c.y ?? 0 }));
  const edges: GraphLayout['edges'] = [];
  const modelEdges = new Map(graph.edges!.map((m) => [m.id, m]));
  (out.edges ?? []).forEach((e) => {
    const section = (e as { sections?: { startPoint: { x: number; y: number }; endPoint: { x: number; y: number }; bendPoints?: { x: number; y: number }[] }[] }).sections?.[0];
    const source = modelEdges.get(e.id);
    if (!section || !source) return;
    const points: [number, number][] = [[section.startPoint.x, section.startPoint.y], ...(section.bendPoints ?? []).map((p) => [p.x, p.y] as [number, number]), [section.endPoint.x, section.endPoint.y]];
    edges.push({ from: source.sources[0], to: source.targets[0], points });
  });
  return { width: out.width ?? 0, height: out.height ?? 0, nodes, edges, titles: [] };
}

/** Lays out three nodes once: ELK's first layout in a page pays for its start (most of a second on a loaded machine). */
export async function warmUpLayout(): Promise<void> {
  if (!Elk) return;
  elk ??= new Elk();
  const children = ['a', 'b', 'c'].map((id) => ({ id, width: NODE_WIDTH, height: NODE_HEIGHT }));
  const edges = [
    { id: 'ab', sources: ['a'], targets: ['b'] },
    { id: 'ac', sources: ['a'], targets: ['c'] },
  ];
  await elk.layout({ id: 'warm-up', layoutOptions: { 'elk.algorithm': 'layered', 'elk.direction': 'RIGHT', 'elk.edgeRouting': 'POLYLINE' }, children, edges }).catch(() => undefined);
}

/** Lays out every graph and stacks them, each under its title. */
export async function layoutGraphs(graphs: ServiceGraph[]): Promise<GraphLayout & { engine: 'elk' | 'layered' }> {
  const total = graphs.reduce((n, g) => n + g.nodes.length, 0);
  const E = Elk;
  if (total > MAX_ELK_NODES || !E) return { ...layeredLayout(graphs), engine: 'layered' };
  const result: GraphLayout = { width: 200, height: 0, nodes: [], edges: [], titles: [] };
  let top = MARGIN;
  for (const g of graphs) {
    const one = await layoutOne(g, E);
    result.titles.push({ key: g.key, x: MARGIN, y: top + 16 });
    top += TITLE_HEIGHT;
    for (const n of one.nodes) result.nodes.push({ id: n.id, x: n.x + MARGIN, y: n.y + top });
    for (const e of one.edges) result.edges.push({ from: e.from, to: e.to, points: e.points.map(([x, y]) => [x + MARGIN, y + top]) });
    result.width = Math.max(result.width, one.width + 2 * MARGIN);
    top += one.height + BAND_GAP;
  }
  result.height = top;
  return { ...result, engine: 'elk' };
}
