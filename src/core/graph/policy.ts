// Traffic policies on the Service graph: which policy chain a frontend's traffic takes (cluster: KUBE-SVC / nft
// `service-…`; local: KUBE-SVL / nft `local-…`), the external chain's two branches under externalTrafficPolicy
// Local (pods and this node short-circuit to the cluster chain; other sources go to the local chain, or are
// dropped when no endpoint is on this node), and each endpoint's share of each chain. Edges between chains say
// their condition; only the choices among endpoints carry shares.
import { formatShare, type Endpoint, type Service, type ShortCircuit } from '../kube/service';
import { t } from '../l10n';
import type { GraphEdge, GraphNode } from './model';

/** The policy-chain nodes of one Service's graph. */
export interface PolicyNodes {
  /** The cluster policy chain (or the only chain or element the Service has). */
  cluster?: GraphNode;
  /** The local policy chain, when it is a node of its own. */
  local?: GraphNode;
  /** The cluster node is the local policy chain (the Service has no cluster chain). */
  clusterIsLocal?: boolean;
  ext?: GraphNode;
  /** DROP: traffic a Local policy keeps on this node, with no endpoint here. */
  noLocal?: GraphNode;
}

/** Where ClusterIP traffic goes: the local chain (or its DROP) under internalTrafficPolicy Local, else the cluster chain. */
export function internalTarget(s: Service, p: PolicyNodes): GraphNode | undefined {
  if (s.policies.internalTrafficPolicy !== 'Local') return p.cluster;
  if (p.local) return p.local;
  if (p.clusterIsLocal) return p.cluster;
  if (s.policies.noLocalEndpoints?.internal && p.noLocal) return p.noLocal;
  return p.cluster;
}

/**
 * Where external traffic (NodePort, external and load-balancer IPs, after the firewall chain) enters: the external
 * chain, or without one under externalTrafficPolicy Local the local chain (older kube-proxy's KUBE-XLB, which
 * short-circuits pods and this node to KUBE-SVC itself), else the cluster chain.
 */
export function externalEntry(s: Service, p: PolicyNodes): GraphNode | undefined {
  if (p.ext) return p.ext;
  if (s.policies.externalTrafficPolicy === 'Local' && p.local) return p.local;
  return p.cluster;
}

/** Whether the external chain branches on the source (externalTrafficPolicy Local). */
function externalIsLocal(s: Service, p: PolicyNodes): boolean {
  return s.policies.externalTrafficPolicy === 'Local' && (s.policies.shortCircuit !== undefined || p.local !== undefined || p.noLocal !== undefined);
}

/** The condition on the short-circuit edge: `pods (10.0.0.0/8) or this node`. */
export function shortCircuitLabel(sc: ShortCircuit | undefined): string {
  const pods = sc?.podSource ?? (sc?.podInterface !== undefined ? t('in {0}', sc.podInterface) : undefined);
  if (pods !== undefined && sc?.node) return t('from pods ({0}) or this node', pods);
  if (pods !== undefined) return t('from pods ({0})', pods);
  return t('from this node');
}

/** The external chain's edges: to the cluster chain, or under externalTrafficPolicy Local its two branches. */
export function externalEdges(s: Service, p: PolicyNodes): GraphEdge[] {
  const { ext, cluster } = p;
  if (!ext) {
    // Older kube-proxy: the local chain (KUBE-XLB) short-circuits pods and this node to the cluster chain.
    const entry = externalEntry(s, p);
    return entry && entry === p.local && cluster && s.policies.shortCircuit ? [{ from: entry.id, to: cluster.id, label: shortCircuitLabel(s.policies.shortCircuit) }] : [];
  }
  if (!externalIsLocal(s, p)) return cluster ? [{ from: ext.id, to: cluster.id }] : [];
  const out: GraphEdge[] = [];
  const shortCircuit = p.clusterIsLocal ? undefined : cluster;
  if (shortCircuit && s.policies.shortCircuit) out.push({ from: ext.id, to: shortCircuit.id, label: shortCircuitLabel(s.policies.shortCircuit) });
  const others = p.local ?? (p.clusterIsLocal ? cluster : undefined) ?? (s.policies.noLocalEndpoints?.external ? p.noLocal : undefined);
  if (others) out.push(s.policies.shortCircuit ? { from: ext.id, to: others.id, label: t('other sources') } : { from: ext.id, to: others.id });
  return out;
}

/** The edges that choose endpoint `e` (drawn to `tail`, its chain or pod), with the share of each chain's choice. */
export function endpointEdges(e: Endpoint, p: PolicyNodes, tail: GraphNode, split: boolean): GraphEdge[] {
  const edge = (from: GraphNode, share: number): GraphEdge => ({ from: from.id, to: tail.id, share, label: formatShare(share) });
  if (!split) return p.cluster ? [edge(p.cluster, e.probability)] : [];
  const out: GraphEdge[] = [];
  const localNode = p.local ?? (p.clusterIsLocal ? p.cluster : undefined);
  if (p.cluster && !p.clusterIsLocal && e.clusterShare !== undefined) out.push(edge(p.cluster, e.clusterShare));
  if (localNode && e.localShare !== undefined) out.push(edge(localNode, e.localShare));
  return out;
}
