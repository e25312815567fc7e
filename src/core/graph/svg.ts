// Geometry of the Service graph and its standalone SVG export. The webview lays the graph out with ELK and sends
// back only numbers and node ids (GraphLayout); the SVG text itself is built here from the model, escaped, so a
// saved file never contains markup from a dump. `layeredLayout` is the deterministic fallback (and the layout for
// graphs too large for ELK to place quickly). Pure: no DOM.
import type { ServiceGraph } from './model';
import type { TraceHighlight } from './trace';
import { LABEL_HEIGHT, placeEdgeLabels, widestLabel, type PlacedLabel } from './labels';

export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 52;
export const TITLE_HEIGHT = 24;
/** The least room between two layers; more when the widest edge label needs it (up to MAX_LAYER_GAP). */
const MIN_LAYER_GAP = 48;
const MAX_LAYER_GAP = 200;
/** Longer labels (conditions) are placed above or below the nodes rather than widening every gap. */
const MAX_LABEL_ROOM = 110;
const ROW_GAP = 14;
const BAND_GAP = 30;
const MARGIN = 12;

export interface LaidOutNode {
  id: string;
  x: number;
  y: number;
}

export interface LaidOutEdge {
  from: string;
  to: string;
  /** Polyline points: start, bends, end. */
  points: [number, number][];
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  /** One title per Service graph, by its key. */
  titles: { key: string; x: number; y: number }[];
}

/**
 * The room between layers: enough for the widest edge label of the graphs to sit between two columns, and for
 * several labels side by side where more labels than fit above one another share a gap (IPVS virtual services
 * each with an edge to every real server).
 */
export function layerGap(graphs: readonly ServiceGraph[]): number {
  const widest = widestLabel(graphs.flatMap((g) => g.edges.map((e) => e.label)));
  if (widest === 0) return MIN_LAYER_GAP;
  let columns = 1;
  for (const g of graphs) {
    const perLayer = new Map<number, number>();
    for (const n of g.nodes) perLayer.set(n.layer, (perLayer.get(n.layer) ?? 0) + 1);
    const rows = Math.max(1, Math.floor((Math.max(...perLayer.values()) * (NODE_HEIGHT + ROW_GAP)) / (LABEL_HEIGHT + 2)));
    columns = Math.max(columns, Math.min(3, Math.ceil(g.edges.filter((e) => e.label).length / rows)));
  }
  return Math.min(MAX_LAYER_GAP, Math.max(MIN_LAYER_GAP, Math.min(widest, MAX_LABEL_ROOM) * columns + 16));
}

/** Left to right by the model's layers, one band per Service, columns centred. */
export function layeredLayout(graphs: ServiceGraph[]): GraphLayout {
  const gap = layerGap(graphs);
  const nodes: LaidOutNode[] = [];
  const edges: LaidOutEdge[] = [];
  const titles: GraphLayout['titles'] = [];
  let top = MARGIN;
  let width = 0;
  for (const g of graphs) {
    titles.push({ key: g.key, x: MARGIN, y: top + 16 });
    top += TITLE_HEIGHT;
    const layers = new Map<number, string[]>();
    for (const n of g.nodes) {
      const column = layers.get(n.layer) ?? [];
      column.push(n.id);
      layers.set(n.layer, column);
    }
    let rows = 1;
    for (const c of layers.values()) rows = Math.max(rows, c.length);
    const bandHeight = rows * (NODE_HEIGHT + ROW_GAP) - ROW_GAP;
    const at = new Map<string, LaidOutNode>();
    for (const [layer, column] of [...layers.entries()].sort((a, b) => a[0] - b[0])) {
      const columnHeight = column.length * (NODE_HEIGHT + ROW_GAP) - ROW_GAP;
      const offset = (bandHeight - columnHeight) / 2;
      column.forEach((id, i) => {
        const p = { id, x: MARGIN + layer * (NODE_WIDTH + gap), y: top + offset + i * (NODE_HEIGHT + ROW_GAP) };
        at.set(id, p);
        nodes.push(p);
        width = Math.max(width, p.x + NODE_WIDTH + MARGIN);
      });
    }
    for (const e of g.edges) {
      const a = at.get(e.from);
      const b = at.get(e.to);
      if (!a || !b) continue;
      edges.push({
        from: e.from,
        to: e.to,
        points: [
          [a.x + NODE_WIDTH, a.y + NODE_HEIGHT / 2],
          [b.x, b.y + NODE_HEIGHT / 2],
        ],
      });
    }
    top += bandHeight + BAND_GAP;
  }
  return { width: Math.max(width, 200), height: top, nodes, edges, titles };
}

/** A smooth path through the points (a cubic for two points, straight segments through bends otherwise). */
export function edgePath(points: [number, number][]): string {
  if (points.length === 2) {
    const [[x1, y1], [x2, y2]] = points;
    const mid = (x1 + x2) / 2;
    return `M ${r(x1)} ${r(y1)} C ${r(mid)} ${r(y1)}, ${r(mid)} ${r(y2)}, ${r(x2)} ${r(y2)}`;
  }
  return points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'} ${r(x)} ${r(y)}`).join(' ');
}

/** The edge labels of a layout, placed so that no two overlap (see labels.ts). */
export function edgeLabels(layout: GraphLayout, labelOf: (from: string, to: string) => string | undefined): PlacedLabel[] {
  return placeEdgeLabels(layout, labelOf, { width: NODE_WIDTH, height: NODE_HEIGHT });
}

const r = (x: number) => Math.round(x * 10) / 10;

export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/** XML text and attribute escaping; characters XML 1.0 forbids are dropped. */
export function xmlEscape(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

const STYLE = [
  'svg { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; background: #ffffff; }',
  '.node rect { fill: #f8f8f8; stroke: #888888; stroke-width: 1; }',
  '.frontend rect { stroke: #1a85ff; } .service rect { stroke: #8a3ffc; } .endpoint rect { stroke: #d47500; }',
  '.pod rect { stroke: #388a34; } .verdict rect { stroke: #e51400; stroke-width: 2; }',
  '.on rect { stroke-width: 3; fill: #fff4c2; } .edge.on { stroke: #d47500; stroke-width: 2.5; }',
  'text { fill: #1f1f1f; font-size: 12px; } .label { font-family: ui-monospace, Menlo, Consolas, monospace; }',
  '.detail { fill: #616161; font-size: 11px; } .badges { fill: #8a5b00; font-size: 10px; } .title { font-weight: bold; }',
  '.edge { fill: none; stroke: #767676; stroke-width: 1.2; } .arrowhead { fill: #767676; }',
  '.share { font-size: 11px; text-anchor: middle; dominant-baseline: central; paint-order: stroke; stroke: #ffffff; stroke-width: 3px; }',
  '.edge.dashed, .mark-missing rect, .mark-filtered rect, .mark-not-programmed rect { stroke-dasharray: 5 4; } .mark-missing, .mark-filtered, .mark-not-programmed { opacity: 0.75; }',
  '.mark-stale rect { stroke: #e51400; stroke-dasharray: 2 2; stroke-width: 2; }',
].join('\n');

/**
 * A standalone SVG document of the graphs at the given positions (nodes without a position are left out).
 * Only the model's text is written, escaped; ids in the file are generated, never taken from the dump.
 */
export function toSvg(graphs: ServiceGraph[], layout: GraphLayout, highlight?: TraceHighlight): string {
  const at = new Map(layout.nodes.map((n) => [n.id, n]));
  const on = new Set(highlight?.nodes.map((n) => n.id) ?? []);
  const shareOf = new Map(highlight?.edges.map((e) => [`${e.from}\u0000${e.to}`, e.label]) ?? []);
  const edgeOf = new Map(graphs.flatMap((g) => g.edges.map((e) => [`${e.from}\u0000${e.to}`, e] as const)));
  const titleOf = new Map(graphs.map((g) => [g.key, g.title]));
  const width = Math.max(1, Math.ceil(layout.width));
  const height = Math.max(1, Math.ceil(layout.height));
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<style>\n${STYLE}\n</style>`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead"/></marker></defs>',
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  for (const t of layout.titles) {
    const title = titleOf.get(t.key);
    if (title !== undefined) out.push(`<text class="title" x="${r(t.x)}" y="${r(t.y)}">${xmlEscape(clip(title, 120))}</text>`);
  }
  const drawn = layout.edges.filter((e) => edgeOf.has(`${e.from}\u0000${e.to}`) && e.points.length >= 2 && at.has(e.from) && at.has(e.to));
  for (const e of drawn) {
    const key = `${e.from}\u0000${e.to}` as const;
    out.push(`<path class="edge${shareOf.has(key) ? ' on' : ''}${edgeOf.get(key)?.dashed ? ' dashed' : ''}" d="${edgePath(e.points)}" marker-end="url(#arrow)"/>`);
  }
  const labelOf = (from: string, to: string) => shareOf.get(`${from}\u0000${to}`) ?? edgeOf.get(`${from}\u0000${to}`)?.label;
  for (const g of graphs) {
    for (const n of g.nodes) {
      const p = at.get(n.id);
      if (!p) continue;
      const full = [n.label, n.detail, ...n.badges, n.mark?.reason].filter(Boolean).join('\n');
      out.push(`<g class="node ${n.kind}${n.mark ? ` mark-${n.mark.kind}` : ''}${on.has(n.id) ? ' on' : ''}" transform="translate(${r(p.x)},${r(p.y)})">`);
      out.push(`<title>${xmlEscape(clip(full, 2000))}</title>`);
      out.push(`<rect width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="${n.kind === 'frontend' || n.kind === 'pod' ? 14 : 3}"/>`);
      out.push(`<text class="label" x="8" y="17">${xmlEscape(clip(n.label, 30))}</text>`);
      out.push(`<text class="detail" x="8" y="32">${xmlEscape(clip(n.detail, 34))}</text>`);
      if (n.badges.length > 0) out.push(`<text class="badges" x="8" y="46">${xmlEscape(clip(n.badges.join(' · '), 36))}</text>`);
      out.push('</g>');
    }
  }
  // Labels last: no line or node is drawn over one.
  for (const l of edgeLabels({ ...layout, edges: drawn }, labelOf)) out.push(`<text class="share" x="${r(l.x)}" y="${r(l.y)}">${xmlEscape(l.text)}</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
