// Whether a trace highlight on a Service graph is a connected path from the frontend it enters by.
import type { ServiceGraph } from '../../src/core/graph/model';
import type { TraceHighlight } from '../../src/core/graph/trace';

/** What breaks the highlight's connection (none: every lit node is reached from a lit frontend along lit graph edges). */
export function disconnections(g: ServiceGraph, h: TraceHighlight): string[] {
  const problems: string[] = [];
  const lit = new Set(h.nodes.map((n) => n.id));
  for (const e of h.edges) {
    if (!g.edges.some((m) => m.from === e.from && m.to === e.to)) problems.push(`not an edge of the graph: ${e.from} -> ${e.to}`);
    if (!lit.has(e.from) || !lit.has(e.to)) problems.push(`a lit edge with an unlit end: ${e.from} -> ${e.to}`);
  }
  const reached = new Set(g.nodes.filter((n) => n.kind === 'frontend' && lit.has(n.id)).map((n) => n.id));
  if (lit.size > 0 && reached.size === 0) problems.push('no lit frontend');
  let grew = true;
  while (grew) {
    grew = false;
    for (const e of h.edges) {
      if (!reached.has(e.from) || reached.has(e.to)) continue;
      reached.add(e.to);
      grew = true;
    }
  }
  for (const id of lit) if (!reached.has(id)) problems.push(`lit but not reached from the frontend: ${id}`);
  return problems;
}
