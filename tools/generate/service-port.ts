// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// kube-proxy's view of one Service port for one IP family, the one input model of the three dump generators:
// BaseServicePortInfo and UsesClusterEndpoints / UsesLocalEndpoints (pkg/proxy/serviceport.go) and
// CategorizeEndpoints (pkg/proxy/topology.go) without topology, ready endpoints only (no serving-terminating
// fallback: cluster.ts makes that choice before the endpoints get here).
import { canonicalCIDR, canonicalIP, familyOf, type Family } from './address';

export interface GenEndpoint {
  address: string;
  port: number;
  /** On this node (matters for Local traffic policies). */
  local?: boolean;
  /** Default true. Not-ready endpoints are left out, as kube-proxy does (no serving/terminating fallback). */
  ready?: boolean;
}

export interface GenServicePort {
  namespace: string;
  name: string;
  /** "" when the port is unnamed. */
  portName: string;
  protocol: 'tcp' | 'udp' | 'sctp';
  clusterIP: string;
  port: number;
  nodePort?: number;
  externalIPs?: string[];
  loadBalancerIPs?: string[];
  loadBalancerSourceRanges?: string[];
  externalTrafficPolicy?: 'Cluster' | 'Local';
  internalTrafficPolicy?: 'Cluster' | 'Local';
  /** Seconds; ClientIP session affinity when set. */
  sessionAffinityTimeout?: number;
  healthCheckNodePort?: number;
  endpoints: GenEndpoint[];
}

/** One endpoint of the family, its address canonical. */
export interface ViewEndpoint {
  address: string;
  port: number;
  local: boolean;
  ready: boolean;
  /** "ip:port" / "[ip]:port" (BaseEndpointInfo.String()). */
  str: string;
}

export interface ServicePortView<E extends ViewEndpoint> {
  clusterIP: string;
  /** Of the family, canonical, in the API's order (repeats kept: each generator decides). */
  externalIPs: string[];
  lbIPs: string[];
  sourceRanges: string[];
  nodePort: number;
  externallyAccessible: boolean;
  externalPolicyLocal: boolean;
  internalPolicyLocal: boolean;
  usesCluster: boolean;
  usesLocal: boolean;
  /** Every endpoint of the family (ready or not), deduplicated by "ip:port" (first wins), in input order. */
  all: E[];
  /** The ready ones, sorted by "ip:port" string (kube-proxy's byEndpoint order). */
  ready: E[];
  clusterEndpoints: E[];
  localEndpoints: E[];
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The view of `svc` for `family` (undefined: no clusterIP of the family, not proxied); `extend` adds each generator's own endpoint fields. */
export function servicePortView<E extends ViewEndpoint>(svc: GenServicePort, family: Family, extend: (ep: ViewEndpoint) => E): ServicePortView<E> | undefined {
  if (familyOf(svc.clusterIP) !== family) return undefined;
  const ofFamily = (list: string[] | undefined) => (list ?? []).map((s) => s.trim()).filter((s) => familyOf(s) === family);
  const nodePort = svc.nodePort ?? 0;
  const externalIPs = ofFamily(svc.externalIPs).map(canonicalIP);
  const lbIPs = ofFamily(svc.loadBalancerIPs).map(canonicalIP);
  const externallyAccessible = nodePort !== 0 || lbIPs.length > 0 || externalIPs.length > 0;
  const externalPolicyLocal = externallyAccessible && svc.externalTrafficPolicy === 'Local';
  const internalPolicyLocal = svc.internalTrafficPolicy === 'Local';
  const usesCluster = !internalPolicyLocal || externallyAccessible;
  const usesLocal = internalPolicyLocal || externalPolicyLocal;

  const byString = new Map<string, E>();
  for (const ep of svc.endpoints) {
    if (familyOf(ep.address) !== family) continue;
    const address = canonicalIP(ep.address);
    const str = family === 'ipv6' ? `[${address}]:${ep.port}` : `${address}:${ep.port}`;
    if (!byString.has(str)) byString.set(str, extend({ address, port: ep.port, local: ep.local === true, ready: ep.ready !== false, str }));
  }
  const all = [...byString.values()];
  const ready = all.filter((e) => e.ready).sort((a, b) => cmp(a.str, b.str));
  return {
    clusterIP: canonicalIP(svc.clusterIP),
    externalIPs,
    lbIPs,
    sourceRanges: ofFamily(svc.loadBalancerSourceRanges).map(canonicalCIDR),
    nodePort,
    externallyAccessible,
    externalPolicyLocal,
    internalPolicyLocal,
    usesCluster,
    usesLocal,
    all,
    ready,
    clusterEndpoints: usesCluster ? ready : [],
    localEndpoints: usesLocal ? ready.filter((e) => e.local) : [],
  };
}

/**
 * The expected catalog's endpoints of a prepared Service port: every reachable endpoint with its share of new
 * connections to the ClusterIP (equal among the chain's endpoints, 0 for the others), `local` where the Local
 * policy chain lists it.
 */
export function expectedEndpoints<E extends ViewEndpoint>(s: {
  hasInternalEndpoints: boolean;
  internalPolicyLocal: boolean;
  usesLocalPolicyChain: boolean;
  localEndpoints: E[];
  clusterEndpoints: E[];
  allReachable: E[];
}): { address: string; port: number; probability: number; local?: true }[] {
  const internal = !s.hasInternalEndpoints ? [] : s.internalPolicyLocal ? s.localEndpoints : s.clusterEndpoints;
  const share = internal.length > 0 ? 1 / internal.length : 0;
  const sharing = new Set(internal);
  const localShown = new Set(s.usesLocalPolicyChain ? s.localEndpoints.map((e) => e.str) : []);
  return s.allReachable.map((ep) => ({
    address: ep.address,
    port: ep.port,
    probability: sharing.has(ep) ? share : 0,
    ...(localShown.has(ep.str) ? { local: true as const } : {}),
  }));
}
