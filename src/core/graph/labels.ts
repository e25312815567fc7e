// Where the graph's edge labels (shares, conditions) go, decided on the laid-out geometry, the same for the webview
// and the saved SVG. A fan-out of one Service to many endpoints (or of several IPVS virtual services to the same
// real servers) puts many labels in one gap between layers: each label takes the first spot along its own edge,
// target side first, whose box meets no label placed before it and no node; failing that, the nearest free spot
// above or below. Label boxes never overlap; a spatial grid keeps the pass linear in the number of edges.
import type { GraphLayout } from './types';

export const LABEL_HEIGHT = 15;
/** Free space kept between two label boxes. */
const GAP = 2;
const MAX_CHARS = 40;
/** Where along its edge (0 = source, 1 = target) a label is tried first, then next. */
const SPOTS = [0.72, 0.58, 0.84, 0.44, 0.3];
const CELL = 128;

export interface PlacedLabel {
  from: string;
  to: string;
  text: string;
  /** Centre of the label's box. */
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The label as drawn (long conditions are clipped). */
export function labelText(text: string): string {
  if (text.length <= MAX_CHARS) return text;
  const chars = [...text];
  return chars.length > MAX_CHARS ? `${chars.slice(0, MAX_CHARS - 1).join('')}…` : text;
}

/**
 * A generous width of the label at the 11px share font: wide scripts (CJK) take a full em. At least the width of
 * any share ("33.33%"), which a trace writes into the same place.
 */
export function labelWidth(text: string): number {
  let w = 0;
  for (const ch of labelText(text)) {
    const c = ch.codePointAt(0)!;
    w += c >= 0x2e80 ? 12 : c === 0x25 || c === 0x6d || c === 0x77 || (c >= 0x41 && c <= 0x5a) ? 10 : 7;
  }
  return Math.max(w, 44) + 6;
}

/** Widest label of these texts (0 without any): the layout keeps that much room between layers. */
export function widestLabel(texts: Iterable<string | undefined>): number {
  let w = 0;
  for (const t of texts) if (t) w = Math.max(w, labelWidth(t));
  return w;
}

/** The point at `f` (0..1) along the drawn edge: the cubic edgePath draws for two points, else the polyline. */
export function pointAlong(points: [number, number][], f: number): [number, number] {
  if (points.length === 2) {
    const [[x1, y1], [x2, y2]] = points;
    const mid = (x1 + x2) / 2;
    const u = 1 - f;
    const b = [u * u * u, 3 * u * u * f, 3 * u * f * f, f * f * f];
    return [b[0] * x1 + (b[1] + b[2]) * mid + b[3] * x2, (b[0] + b[1]) * y1 + (b[2] + b[3]) * y2];
  }
  const lengths = points.slice(1).map((p, i) => Math.hypot(p[0] - points[i][0], p[1] - points[i][1]));
  let left = lengths.reduce((a, b) => a + b, 0) * f;
  for (let i = 0; i < lengths.length; i++) {
    if (left <= lengths[i] || i === lengths.length - 1) {
      const k = lengths[i] === 0 ? 0 : Math.min(1, left / lengths[i]);
      return [points[i][0] + (points[i + 1][0] - points[i][0]) * k, points[i][1] + (points[i + 1][1] - points[i][1]) * k];
    }
    left -= lengths[i];
  }
  return points[0];
}

/** Boxes bucketed by the grid cells they cover (numeric cell keys, no allocation per query: this is the hot loop). */
class Grid {
  private cells = new Map<number, Box[]>();

  add(b: Box): void {
    for (let cx = Math.floor(b.x0 / CELL); cx <= Math.floor(b.x1 / CELL); cx++)
      for (let cy = Math.floor(b.y0 / CELL); cy <= Math.floor(b.y1 / CELL); cy++) {
        const key = cx * 4_194_304 + cy;
        const list = this.cells.get(key);
        if (list) list.push(b);
        else this.cells.set(key, [b]);
      }
  }

  hits(b: Box, gap: number): boolean {
    for (let cx = Math.floor((b.x0 - gap) / CELL); cx <= Math.floor((b.x1 + gap) / CELL); cx++)
      for (let cy = Math.floor((b.y0 - gap) / CELL); cy <= Math.floor((b.y1 + gap) / CELL); cy++) {
        const list = this.cells.get(cx * 4_194_304 + cy);
        if (list) for (const o of list) if (b.x0 < o.x1 + gap && o.x0 < b.x1 + gap && b.y0 < o.y1 + gap && o.y0 < b.y1 + gap) return true;
      }
    return false;
  }
}

const boxAt = (x: number, y: number, w: number, h: number): Box => ({ x0: x - w / 2, y0: y - h / 2, x1: x + w / 2, y1: y + h / 2 });

/** The label's spot: along its edge clear of labels and nodes, else shifted up or down until clear. */
function spotFor(points: [number, number][], w: number, labels: Grid, nodes: Grid): [number, number] {
  const free = (x: number, y: number, withNodes: boolean) => {
    const b = boxAt(x, y, w, LABEL_HEIGHT);
    return !labels.hits(b, GAP) && !(withNodes && nodes.hits(b, 0));
  };
  for (const f of SPOTS) {
    const [x, y] = pointAlong(points, f);
    if (free(x, y, true)) return [x, y];
  }
  const step = LABEL_HEIGHT + GAP;
  const along = SPOTS.map((f) => pointAlong(points, f));
  // Near spots clear of nodes too; beyond them any spot clear of labels (one always is: finitely many labels).
  for (let k = 1; ; k++) {
    const withNodes = k <= 12;
    for (const [x, y] of along) {
      if (free(x, y - k * step, withNodes)) return [x, y - k * step];
      if (free(x, y + k * step, withNodes)) return [x, y + k * step];
    }
  }
}

/** Places the label of every edge that has one (labelOf), in the layout's edge order. */
export function placeEdgeLabels(layout: GraphLayout, labelOf: (from: string, to: string) => string | undefined, nodeSize: { width: number; height: number }): PlacedLabel[] {
  const nodes = new Grid();
  for (const n of layout.nodes) nodes.add({ x0: n.x, y0: n.y, x1: n.x + nodeSize.width, y1: n.y + nodeSize.height });
  const labels = new Grid();
  const out: PlacedLabel[] = [];
  for (const e of layout.edges) {
    const text = labelOf(e.from, e.to);
    if (!text || e.points.length < 2) continue;
    const width = labelWidth(text);
    const [x, y] = spotFor(e.points, width, labels, nodes);
    labels.add(boxAt(x, y, width, LABEL_HEIGHT));
    out.push({ from: e.from, to: e.to, text: labelText(text), x, y, width, height: LABEL_HEIGHT });
  }
  return out;
}
