// Which endpoints kube-proxy on one node programs for one Service port: a port of kube-proxy's
// CategorizeEndpoints and topologyModeFromHints (pkg/proxy/topology.go), kept on plain values so that its own
// unit-test table (topology_test.go, TestCategorizeEndpoints) can be run against it row for row.

/** One merged endpoint of a Service port, as kube-proxy's EndpointSliceCache hands it to the proxier. */
export interface ProxyEndpoint {
  /** `ip:port`, kube-proxy's Endpoint.String(). */
  key: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  /** On this node (`nodeName` equals the node's name). */
  local: boolean;
  zoneHints?: readonly string[];
  nodeHints?: readonly string[];
}

/** What of a Service port decides which endpoint sets it uses (pkg/proxy/serviceport.go). */
export interface PortPolicy {
  internalPolicyLocal: boolean;
  /** eTP Local on an externally accessible Service (apiservice.ExternalPolicyLocal). */
  externalPolicyLocal: boolean;
  /** A nodePort, an externalIP or a load-balancer VIP of this family. */
  externallyAccessible: boolean;
}

export type TopologyMode = '' | 'PreferSameZone' | 'PreferSameNode';

/**
 * Which kube-proxy decides: `hints` is today's (hints alone decide, PreferSameNode included: the
 * PreferSameTrafficDistribution gate is on by default); `annotation` is 1.27–1.31's canUseTopology, which also
 * wanted the Service's topology annotation (or trafficDistribution PreferClose) and only knew zone hints.
 */
export type TopologyRules = 'hints' | 'annotation';

export interface TopologyInput {
  nodeName: string;
  zone: string;
  rules: TopologyRules;
  /** `service.kubernetes.io/topology-aware-hints`, else `service.kubernetes.io/topology-mode` (annotation rules). */
  hintsAnnotation?: string;
  trafficDistribution?: string;
}

/** Why hints that are present were not used on this node; `undefined` when no endpoint has any hint. */
export type TopologyIgnored =
  | { kind: 'not-requested' }
  | { kind: 'no-zone-label' }
  | { kind: 'missing-zone-hint'; endpoint: string }
  | { kind: 'no-hint-for-zone'; zone: string }
  | { kind: 'no-ready-endpoints' }
  /** Every ready endpoint has node hints, none for this node (or this node's name is unknown). */
  | { kind: 'no-hint-for-node'; node: string };

export interface Categorized<E extends ProxyEndpoint> {
  /** Undefined when the port never uses Cluster policy (like kube-proxy's nil). */
  cluster?: E[];
  local?: E[];
  /** Whether the cluster / local set fell back to serving-and-terminating endpoints. */
  clusterTerminating: boolean;
  localTerminating: boolean;
  hasAnyEndpoints: boolean;
  topologyMode: TopologyMode;
  topologyIgnored?: TopologyIgnored;
}

export function usesClusterEndpoints(p: PortPolicy): boolean {
  return !p.internalPolicyLocal || p.externallyAccessible;
}

export function usesLocalEndpoints(p: PortPolicy): boolean {
  return p.internalPolicyLocal || (p.externalPolicyLocal && p.externallyAccessible);
}

const servingTerminating = (ep: ProxyEndpoint) => ep.serving && ep.terminating;

/** CategorizeEndpoints: ready endpoints (narrowed by topology), else serving-and-terminating ones, per policy. */
export function categorizeEndpoints<E extends ProxyEndpoint>(endpoints: readonly E[], policy: PortPolicy, topo: TopologyInput): Categorized<E> {
  const out: Categorized<E> = { clusterTerminating: false, localTerminating: false, hasAnyEndpoints: false, topologyMode: '' };
  if (endpoints.length === 0) {
    if (usesClusterEndpoints(policy)) out.cluster = [];
    if (usesLocalEndpoints(policy)) out.local = [];
    return out;
  }
  if (usesClusterEndpoints(policy)) {
    const decided = topologyMode(endpoints, topo);
    out.topologyMode = decided.mode;
    out.topologyIgnored = decided.ignored;
    out.cluster = endpoints.filter((ep) => ep.ready && availableForTopology(ep, decided.mode, topo));
    if (out.cluster.length === 0) {
      out.cluster = endpoints.filter(servingTerminating);
      out.clusterTerminating = out.cluster.length > 0;
    }
    out.hasAnyEndpoints = out.cluster.length > 0;
  }
  if (!usesLocalEndpoints(policy)) return out;
  let localReady = false;
  let localTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      out.hasAnyEndpoints = true;
      localReady ||= ep.local;
    } else if (servingTerminating(ep)) {
      out.hasAnyEndpoints = true;
      localTerminating ||= ep.local;
    }
  }
  if (localReady) out.local = endpoints.filter((ep) => ep.local && ep.ready);
  else if (localTerminating) {
    out.local = endpoints.filter((ep) => ep.local && servingTerminating(ep));
    out.localTerminating = true;
  } else out.local = [];
  return out;
}

/** The union of the two sets, kube-proxy's allReachableEndpoints. */
export function allReachable<E extends ProxyEndpoint>(c: Categorized<E>): E[] {
  if (!c.local) return c.cluster ?? [];
  if (!c.cluster) return c.local;
  const seen = new Map<string, E>();
  for (const ep of c.cluster) seen.set(ep.key, ep);
  for (const ep of c.local) seen.set(ep.key, ep);
  return [...seen.values()];
}

function availableForTopology(ep: ProxyEndpoint, mode: TopologyMode, topo: TopologyInput): boolean {
  if (mode === 'PreferSameNode') return ep.nodeHints?.includes(topo.nodeName) ?? false;
  if (mode === 'PreferSameZone') return ep.zoneHints?.includes(topo.zone) ?? false;
  return true;
}

interface Decision {
  mode: TopologyMode;
  ignored?: TopologyIgnored;
}

function topologyMode(endpoints: readonly ProxyEndpoint[], topo: TopologyInput): Decision {
  return topo.rules === 'annotation' ? canUseTopology(endpoints, topo) : topologyModeFromHints(endpoints, topo);
}

interface HintScan {
  anyHint: boolean;
  ready: boolean;
  allNodeHints: boolean;
  forNode: boolean;
  allZoneHints: boolean;
  forZone: boolean;
  missingZoneHint?: string;
}

/** Only ready endpoints count, as in kube-proxy: a not-ready endpoint without hints does not spoil them. */
function scanHints(endpoints: readonly ProxyEndpoint[], topo: TopologyInput): HintScan {
  const s: HintScan = { anyHint: false, ready: false, allNodeHints: true, forNode: false, allZoneHints: true, forZone: false };
  for (const ep of endpoints) {
    if (ep.zoneHints?.length || ep.nodeHints?.length) s.anyHint = true;
    if (!ep.ready) continue;
    s.ready = true;
    if (!ep.nodeHints?.length) s.allNodeHints = false;
    else if (topo.nodeName && ep.nodeHints.includes(topo.nodeName)) s.forNode = true;
    if (!ep.zoneHints?.length) {
      s.allZoneHints = false;
      s.missingZoneHint ??= ep.key;
    } else if (topo.zone && ep.zoneHints.includes(topo.zone)) s.forZone = true;
  }
  return s;
}

/** Today's topologyModeFromHints: node hints first, then zone hints; no fallback beyond the mode's choice. */
function topologyModeFromHints(endpoints: readonly ProxyEndpoint[], topo: TopologyInput): Decision {
  const s = scanHints(endpoints, topo);
  if (!s.anyHint) return { mode: '' };
  if (!s.ready) return { mode: '', ignored: { kind: 'no-ready-endpoints' } };
  if (s.allNodeHints && s.forNode) return { mode: 'PreferSameNode' };
  const zone = zoneDecision(s, topo);
  // Node hints for other nodes only: worth saying when zone hints decided instead.
  if (s.allNodeHints && zone.mode) return { mode: zone.mode, ignored: { kind: 'no-hint-for-node', node: topo.nodeName } };
  return zone;
}

function zoneDecision(s: HintScan, topo: TopologyInput): Decision {
  if (!s.allZoneHints) return { mode: '', ignored: { kind: 'missing-zone-hint', endpoint: s.missingZoneHint ?? '' } };
  if (s.forZone) return { mode: 'PreferSameZone' };
  if (!topo.zone) return { mode: '', ignored: { kind: 'no-zone-label' } };
  return { mode: '', ignored: { kind: 'no-hint-for-zone', zone: topo.zone } };
}

/** 1.27–1.31's canUseTopology: the Service must ask for it, the node must have a zone, zone hints only. */
function canUseTopology(endpoints: readonly ProxyEndpoint[], topo: TopologyInput): Decision {
  const s = scanHints(endpoints, topo);
  if (!s.anyHint) return { mode: '' };
  if (topo.trafficDistribution !== 'PreferClose') {
    const a = topo.hintsAnnotation ?? '';
    if (a === '' || a === 'disabled' || a === 'Disabled') return { mode: '', ignored: { kind: 'not-requested' } };
  }
  if (!topo.zone) return { mode: '', ignored: { kind: 'no-zone-label' } };
  if (!s.ready) return { mode: '', ignored: { kind: 'no-ready-endpoints' } };
  return zoneDecision(s, topo);
}
