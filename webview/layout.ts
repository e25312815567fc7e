// A deterministic layered layout (left to right by the model's layers), one band per Service. No DOM here.
import type { GraphNode, ServiceGraph } from '../src/core/graph/model';

export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 52;
const COLUMN_GAP = 90;
const ROW_GAP = 14;
const BAND_GAP = 30;
const TITLE_HEIGHT = 24;
const MARGIN = 12;

export interface PlacedNode {
  node: GraphNode;
  x: number;
  y: number;
}

export interface PlacedEdge {
  path: string;
  label?: string;
  labelX: number;
  labelY: number;
}

export interface Layout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  titles: { text: string; x: number; y: number }[];
}

export function layoutGraphs(graphs: ServiceGraph[]): Layout {
  const nodes: PlacedNode[] = [];
  const edges: PlacedEdge[] = [];
  const titles: Layout['titles'] = [];
  let top = MARGIN;
  let width = 0;
  for (const g of graphs) {
    titles.push({ text: g.title, x: MARGIN, y: top + 16 });
    top += TITLE_HEIGHT;
    const layers = new Map<number, GraphNode[]>();
    for (const n of g.nodes) {
      const column = layers.get(n.layer) ?? [];
      column.push(n);
      layers.set(n.layer, column);
    }
    const rows = Math.max(1, ...[...layers.values()].map((c) => c.length));
    const bandHeight = rows * (NODE_HEIGHT + ROW_GAP) - ROW_GAP;
    const at = new Map<string, PlacedNode>();
    for (const [layer, column] of [...layers.entries()].sort((a, b) => a[0] - b[0])) {
      // Centre shorter columns in the band.
      const columnHeight = column.length * (NODE_HEIGHT + ROW_GAP) - ROW_GAP;
      const offset = (bandHeight - columnHeight) / 2;
      column.forEach((n, i) => {
        const p = { node: n, x: MARGIN + layer * (NODE_WIDTH + COLUMN_GAP), y: top + offset + i * (NODE_HEIGHT + ROW_GAP) };
        at.set(n.id, p);
        nodes.push(p);
        width = Math.max(width, p.x + NODE_WIDTH + MARGIN);
      });
    }
    for (const e of g.edges) {
      const a = at.get(e.from);
      const b = at.get(e.to);
      if (!a || !b) continue;
      const x1 = a.x + NODE_WIDTH;
      const y1 = a.y + NODE_HEIGHT / 2;
      const x2 = b.x;
      const y2 = b.y + NODE_HEIGHT / 2;
      const mid = (x1 + x2) / 2;
      edges.push({ path: `M ${x1} ${y1} C ${mid} ${y1}, ${mid} ${y2}, ${x2} ${y2}`, label: e.label, labelX: mid - 14, labelY: (y1 + y2) / 2 - 4 });
    }
    top += bandHeight + BAND_GAP;
  }
  return { width: Math.max(width, 200), height: top, nodes, edges, titles };
}
