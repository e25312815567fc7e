// A trace drawn on the Service graph: which nodes and edges the traced connection passes, with the share of new
// connections that take each of them. Pure: the extension runs the trace (core/trace) and sends the highlight.
import { formatShare } from '../kube/catalog';
import type { TraceResult } from '../trace/types';
import { formatAddress, parseAddress } from '../trace/addr';
import { assumptionGroups } from '../trace/facts';
import type { GraphNode, ServiceGraph } from './model';

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
  const t = n.target;
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
 * The nodes and edges of `graphs` that the trace's outcomes pass: frontends the packet enters by, chains
 * (service, external, firewall, endpoint) its path runs through or rules it matches, and pods it is DNATed to.
 * Each gets the summed share of the outcomes that pass it (largestShares). Edges are highlighted when both ends are in one
 * outcome's path.
 */
export function traceHighlight(graphs: ServiceGraph[], result: TraceResult): TraceHighlight {
  // What each outcome passes: node ids and edge keys.
  const passed = result.outcomes.map(() => new Set<string>());
  const edgeEnds = new Map<string, { from: string; to: string }>();
  for (const g of graphs) {
    const entered = g.nodes.filter((n) => n.kind === 'frontend' && frontendMatches(n, result));
    for (const [k, o] of result.outcomes.entries()) {
      const chains = new Set(o.path.map((s) => s.chain));
      const lines = new Set(o.path.map((s) => `${s.fileIndex}|${s.line}`));
      const destination = o.destination ? splitHostPort(o.destination) : undefined;
      const on = new Set<string>();
      if (entered.length === 0) continue;
      for (const n of entered) on.add(n.id);
      for (const n of g.nodes) {
        if (n.kind === 'service' || n.kind === 'endpoint') {
          if (chains.has(n.label) || (n.source && lines.has(`${n.source.fileIndex}|${n.source.range.start.line}`))) on.add(n.id);
        } else if (n.kind === 'pod') {
          if (destination !== undefined && splitHostPort(n.label) === destination) on.add(n.id);
        } else if (n.kind === 'verdict') {
          if ((o.verdict === 'reject' && n.label === 'REJECT') || (o.verdict === 'drop' && n.label === 'DROP')) on.add(n.id);
        }
      }
      // A pod reached by this outcome: keep only the endpoint chain that leads to it (IPVS has none).
      for (const e of g.edges) {
        if (!on.has(e.from) || !on.has(e.to)) continue;
        const key = `${e.from}\u0000${e.to}`;
        edgeEnds.set(key, { from: e.from, to: e.to });
        passed[k].add(key);
      }
      for (const id of on) passed[k].add(id);
    }
  }
  const shares = largestShares(result, passed);
  const nodeShare = new Map([...shares].filter(([id]) => !edgeEnds.has(id)));
  const edgeShare = new Map([...edgeEnds].map(([key, e]) => [key, { ...e, share: shares.get(key) ?? 0 }]));
  const clamp = (x: number) => Math.min(1, x);
  const labelOf = new Map(graphs.flatMap((g) => g.nodes.map((n) => [n.id, n.label] as const)));
  return {
    title: `${result.packet.protocol} ${result.packet.dst.includes(':') ? `[${result.packet.dst}]` : result.packet.dst}:${result.packet.dport}`,
    nodes: [...nodeShare].map(([id, share]) => ({ id, share: clamp(share), label: `${labelOf.get(id) ?? id} ${formatShare(clamp(share))}` })),
    edges: [...edgeShare.values()].map((e) => ({ ...e, share: clamp(e.share), label: formatShare(clamp(e.share)) })),
  };
}
