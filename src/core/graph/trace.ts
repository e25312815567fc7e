// A trace drawn on the Service graph: which nodes and edges the traced connection passes, with the share of new
// connections that take each of them. Pure: the extension runs the trace (core/trace) and sends the highlight.
import { formatShare, type Service } from '../kube/service';
import type { TraceResult } from '../trace/types';
import { formatAddress, formatHostPort, parseAddress } from '../model/address';
import { assumptionGroups } from '../trace/facts';
import { frontendTarget, type GraphEdge, type GraphNode, type GraphTarget, type ServiceGraph } from './model';

export interface TraceHighlight {
  /** `tcp 10.96.0.10:53` — what was traced. */
  title: string;
  nodes: { id: string; share: number; label: string }[];
  edges: { from: string; to: string; share: number; label: string }[];
}

function canonical(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const a = parseAddress(address.replace(/^\[|\]$/g, ''));
  return a ? formatAddress(a) : address;
}

/** `ip:port` or `[ip6]:port` → canonical `ip|port`. */
function splitHostPort(text: string): string | undefined {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(text);
  return m ? `${canonical(m[1])}|${Number(m[2])}` : undefined;
}

/** Does the traced packet enter through this frontend? */
function frontendMatches(n: GraphNode, result: TraceResult): boolean {
  return targetMatches(n.target, result);
}

function targetMatches(t: GraphTarget | undefined, result: TraceResult): boolean {
  const p = result.packet;
  if (!t || t.port !== p.dport || t.protocol !== p.protocol) return false;
  if (t.frontend === 'nodePort') return true;
  return canonical(t.address) === canonical(p.dst);
}

/**
 * For each id the outcomes pass, their summed share under the assumptions that give it the most: outcomes under
 * conditions that exclude each other are alternatives, not parts of one whole (trace/facts.ts).
 */
function largestShares(result: TraceResult, passed: Set<string>[]): Map<string, number> {
  const best = new Map<string, number>();
  for (const group of assumptionGroups(result.outcomes)) {
    const sums = new Map<string, number>();
    for (const k of group) for (const id of passed[k]) sums.set(id, (sums.get(id) ?? 0) + result.outcomes[k].probability);
    for (const [id, share] of sums) best.set(id, Math.max(best.get(id) ?? 0, share));
  }
  return best;
}

/**
 * Whether the trace may light anything on a Service's graph: only a graph with a frontend the packet enters by is
 * lit (traceHighlight), so the graphs of the other Services need not be built to know.
 */
export function mayEnter(s: Service, result: TraceResult): boolean {
  return s.frontends.some((f) => targetMatches(frontendTarget(s, f), result));
}

/** What an outcome lights on one graph: the nodes its path names, and the end it reaches (its pod or verdict). */
function litBy(g: ServiceGraph, o: TraceResult['outcomes'][number], entered: GraphNode[]): { on: Set<string>; ends: Set<string> } {
  const chains = new Set(o.path.map((s) => s.chain));
  // Where each step is, to the character: a JSON dump holds every rule on one line.
  const at = (fileIndex: number, r: { start: { line: number; character: number } }) => `${fileIndex}|${r.start.line}|${r.start.character}`;
  const places = new Set(o.path.map((s) => at(s.fileIndex, s.range)));
  const destination = o.destination ? splitHostPort(o.destination) : undefined;
  const on = new Set(entered.map((n) => n.id));
  const ends = new Set<string>();
  for (const n of g.nodes) {
    if (n.kind === 'service' || n.kind === 'endpoint') {
      if (chains.has(n.label) || (n.source && places.has(at(n.source.fileIndex, n.source.range)))) on.add(n.id);
    } else if (n.kind === 'pod') {
      if (destination !== undefined && splitHostPort(n.label) === destination) ends.add(n.id);
    } else if (n.kind === 'verdict') {
      if ((o.verdict === 'reject' && n.label === 'REJECT') || (o.verdict === 'drop' && n.label === 'DROP')) ends.add(n.id);
    }
  }
  for (const id of ends) on.add(id);
  return { on, ends };
}

/** A graph's nodes with every node after the nodes its edges lead to (sinks first), and its edges by their start. */
function walkOrder(g: ServiceGraph): { order: GraphNode[]; out: Map<string, GraphEdge[]> } {
  const out = new Map<string, GraphEdge[]>();
  for (const e of g.edges) {
    const list = out.get(e.from);
    if (list) list.push(e);
    else out.set(e.from, [e]);
  }
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const order: GraphNode[] = [];
  const seen = new Set<string>();
  // Iterative depth-first post-order: a graph of 10,000 endpoints must not exhaust the stack.
  for (const root of g.nodes) {
    if (seen.has(root.id)) continue;
    seen.add(root.id);
    const stack: [GraphNode, number][] = [[root, 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const edges = out.get(top[0].id) ?? [];
      const next = edges[top[1]++];
      if (next === undefined) {
        order.push(top[0]);
        stack.pop();
        continue;
      }
      const to = byId.get(next.to);
      if (to && !seen.has(to.id)) {
        seen.add(to.id);
        stack.push([to, 0]);
      }
    }
  }
  return { order, out };
}

interface Best {
  /** Lit nodes on the best path from here. */
  lit: number;
  /** Unlit chains it passes (a chain the packet crossed without a step of its own). */
  dark: number;
  edge?: GraphEdge;
}

/**
 * The path an outcome takes through a graph: from an entered frontend along edges, through as many lit nodes as
 * possible, to its end (pod or verdict) when the graph has it, else to a lit node. It may cross a chain the path
 * names no step of (a chain whose rules did not match), never a frontend, pod or verdict it did not reach. Always
 * connected: what is highlighted is a walk along the graph's edges.
 */
function outcomePath(walk: ReturnType<typeof walkOrder>, entered: GraphNode[], on: Set<string>, ends: Set<string>): { nodes: string[]; edges: GraphEdge[] } {
  const search = (mustEnd: boolean) => {
    const best = new Map<string, Best>();
    for (const n of walk.order) {
      const lit = on.has(n.id);
      if (!lit && n.kind !== 'service' && n.kind !== 'endpoint') continue;
      let b: Best | undefined = lit && (!mustEnd || ends.has(n.id)) ? { lit: 1, dark: 0 } : undefined;
      for (const e of walk.out.get(n.id) ?? []) {
        const after = best.get(e.to);
        if (!after) continue;
        const c: Best = { lit: after.lit + (lit ? 1 : 0), dark: after.dark + (lit ? 0 : 1), edge: e };
        if (!b || c.lit > b.lit || (c.lit === b.lit && c.dark < b.dark)) b = c;
      }
      if (b) best.set(n.id, b);
    }
    let start: GraphNode | undefined;
    for (const f of entered) {
      const b = best.get(f.id);
      const s = start && best.get(start.id);
      if (b && (!s || b.lit > s.lit || (b.lit === s.lit && b.dark < s.dark))) start = f;
    }
    if (!start) return undefined;
    const nodes = [start.id];
    const edges: GraphEdge[] = [];
    for (let e = best.get(start.id)!.edge; e; e = best.get(e.to)!.edge) {
      edges.push(e);
      nodes.push(e.to);
    }
    return { nodes, edges };
  };
  return (ends.size > 0 ? search(true) : undefined) ?? search(false) ?? { nodes: [], edges: [] };
}

/**
 * The nodes and edges of `graphs` that the trace's outcomes pass: for each outcome, one connected path from the
 * frontend the packet enters by through the chains (service, external, firewall, endpoint) its path runs through
 * or rules it matches, to the pod it is DNATed to or its verdict (outcomePath). Each node and edge gets the summed
 * share of the outcomes that pass it (largestShares).
 */
export function traceHighlight(graphs: ServiceGraph[], result: TraceResult): TraceHighlight {
  // What each outcome passes: node ids and edge keys.
  const passed = result.outcomes.map(() => new Set<string>());
  const edgeEnds = new Map<string, GraphEdge>();
  for (const g of graphs) {
    const entered = g.nodes.filter((n) => n.kind === 'frontend' && frontendMatches(n, result));
    if (entered.length === 0) continue;
    const walk = walkOrder(g);
    for (const [k, o] of result.outcomes.entries()) {
      const { on, ends } = litBy(g, o, entered);
      const path = outcomePath(walk, entered, on, ends);
      for (const e of path.edges) {
        const key = `${e.from}\u0000${e.to}`;
        edgeEnds.set(key, e);
        passed[k].add(key);
      }
      for (const id of path.nodes) passed[k].add(id);
    }
  }
  const shares = largestShares(result, passed);
  const nodeShare = new Map([...shares].filter(([id]) => !edgeEnds.has(id)));
  // An edge that states a condition keeps it: the condition, not a share, is what decided the branch.
  const edgeShare = new Map([...edgeEnds].map(([key, e]) => [key, { from: e.from, to: e.to, share: shares.get(key) ?? 0, condition: e.share === undefined ? e.label : undefined }]));
  const clamp = (x: number) => Math.min(1, x);
  const labelOf = new Map(graphs.flatMap((g) => g.nodes.map((n) => [n.id, n.label] as const)));
  return {
    title: `${result.packet.protocol} ${formatHostPort(result.packet.dst, result.packet.dport)}`,
    nodes: [...nodeShare].map(([id, share]) => ({ id, share: clamp(share), label: `${labelOf.get(id) ?? id} ${formatShare(clamp(share))}` })),
    edges: [...edgeShare.values()].map((e) => ({ from: e.from, to: e.to, share: clamp(e.share), label: e.condition ?? formatShare(clamp(e.share)) })),
  };
}
