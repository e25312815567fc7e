// The dataplane kube-proxy would program on one node from the cluster's Services and EndpointSlices: per
// Service port and IP family, its frontends and every endpoint of the API with whether (and why not) it is
// used. Follows pkg/proxy/servicechangetracker.go and serviceport.go (which Services and frontends),
// endpointslicecache.go (merging a Service's slices) and topology.go (which endpoints; see ./topology.ts).
import type { ApiEndpoint, ApiEndpointSlice, ApiService, ApiServicePort, ClusterState, EndpointExclusion, ExpectedEndpoint, ExpectedFrontend, ExpectedServicePort, IPFamily, NodeIdentity } from './types';
import { categorizeEndpoints, type Categorized, type PortPolicy, type ProxyEndpoint, type TopologyRules } from './topology';
import { canonicalAddress, formatHostPort } from '../model/address';
import { describeExclusion, noEndpointsReason, noLocalEndpointsReason, topologyNote, type PortEndpoints } from './expected-words';

export interface ExpectedOptions {
  /** All three modes choose endpoints alike (each proxier calls CategorizeEndpoints); kept for the callers' sake. */
  mode: 'iptables' | 'nftables' | 'ipvs';
  /** The families the dump programs; default both. */
  families?: IPFamily[];
  /** Which kube-proxy's topology rules; default today's (`hints`). */
  topologyRules?: TopologyRules;
}

/** One endpoint of a Service port as kube-proxy's EndpointSliceCache merges it, with where it came from. */
export interface Candidate extends ProxyEndpoint {
  address: string;
  port: number;
  api: ApiEndpoint;
  slice: ApiEndpointSlice;
}

function familyOf(address: string): IPFamily {
  // utilnet.IsIPv6String: anything that does not parse as IPv6 counts as IPv4, as in kube-proxy.
  return address.includes(':') ? 'IPv6' : 'IPv4';
}

/** Every Service port of every family in `options.families` that kube-proxy on `node` programs. */
export function expectedServicePorts(state: ClusterState, node: NodeIdentity, options: ExpectedOptions): ExpectedServicePort[] {
  const slices = slicesByService(state.endpointSlices);
  const here = nodeContext(state, node, options.topologyRules);
  const wanted = new Set<IPFamily>(options.families ?? ['IPv4', 'IPv6']);
  const out: ExpectedServicePort[] = [];
  for (const svc of state.services) {
    if (shouldSkipService(svc)) continue;
    const own = slices.get(serviceKey(svc.namespace, svc.name)) ?? [];
    const families = serviceFamilies(svc);
    for (const family of families) {
      if (!wanted.has(family)) continue;
      const clusterIP = clusterIPByFamily(svc, family);
      if (!clusterIP) continue;
      for (const port of svc.ports) out.push(servicePort(svc, port, family, clusterIP, own, families, here));
    }
  }
  return out;
}

export interface NodeContext {
  nodeName: string;
  zone: string;
  rules: TopologyRules;
}

/** The node as kube-proxy knows it: its name (`''` when unknown) and its zone, from the Node object if not given. */
export function nodeContext(state: ClusterState, node: NodeIdentity, rules: TopologyRules = 'hints'): NodeContext {
  const nodeName = node.name ?? '';
  let zone = node.zone;
  if (zone === undefined && nodeName) zone = state.nodes.find((n) => n.name === nodeName)?.zone;
  return { nodeName, zone: zone ?? '', rules };
}

const serviceKey = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * endpointSliceCacheKeys: a slice without the service-name label belongs to no Service; FQDN slices are not
 * proxied; a second slice of the same name replaces the first, as a later update does in kube-proxy's cache.
 * kube-proxy reads no v1 Endpoints: those converted from them stand in only for a Service without real slices.
 */
function slicesByService(all: readonly ApiEndpointSlice[]): Map<string, ApiEndpointSlice[]> {
  const real = new Map<string, Map<string, ApiEndpointSlice>>();
  const legacy = new Map<string, Map<string, ApiEndpointSlice>>();
  for (const slice of all) {
    if (!slice.serviceName || slice.addressType === 'FQDN') continue;
    const into = slice.fromLegacyEndpoints ? legacy : real;
    const key = serviceKey(slice.namespace, slice.serviceName);
    let own = into.get(key);
    if (!own) into.set(key, (own = new Map()));
    own.set(slice.name, slice);
  }
  const map = new Map<string, ApiEndpointSlice[]>();
  for (const [key, own] of legacy) map.set(key, [...own.values()]);
  for (const [key, own] of real) map.set(key, [...own.values()]);
  return map;
}

/** proxyutil.ShouldSkipService: headless (no ClusterIP) and ExternalName Services are not proxied. */
export function shouldSkipService(svc: ApiService): boolean {
  const ip = svc.clusterIPs[0];
  return !ip || ip === 'None' || svc.type === 'ExternalName';
}

/** The families the Service has a ClusterIP of, in its own order. */
function serviceFamilies(svc: ApiService): IPFamily[] {
  if (svc.ipFamilies.length > 0) return svc.ipFamilies.filter((_, i) => svc.clusterIPs[i] !== undefined);
  return [familyOf(svc.clusterIPs[0] ?? '')];
}

/** proxyutil.GetClusterIPByFamily, including its allowance for objects written before dual-stack. */
function clusterIPByFamily(svc: ApiService, family: IPFamily): string | undefined {
  if (svc.ipFamilies.length === 0) {
    const ip = svc.clusterIPs[0];
    return ip && ip !== 'None' && familyOf(ip) === family ? ip : undefined;
  }
  const i = svc.ipFamilies.indexOf(family);
  return i >= 0 ? svc.clusterIPs[i] : undefined;
}

/** apiservice.ExternallyAccessible: the Service type can take traffic from outside the cluster. */
function serviceExternallyAccessible(svc: ApiService): boolean {
  return svc.type === 'LoadBalancer' || svc.type === 'NodePort' || (svc.type === 'ClusterIP' && svc.externalIPs.length > 0);
}

function frontends(svc: ApiService, port: ApiServicePort, family: IPFamily, clusterIP: string, eTPLocal: boolean): ExpectedFrontend[] {
  // Addresses as kube-proxy prints a parsed net.IP (RFC 5952 for IPv6), the way the dump has them.
  const list: ExpectedFrontend[] = [{ kind: 'clusterIP', address: canonicalAddress(clusterIP), port: port.port }];
  if (port.nodePort) list.push({ kind: 'nodePort', port: port.nodePort });
  for (const ip of svc.externalIPs) {
    if (familyOf(ip) === family) list.push({ kind: 'externalIP', address: canonicalAddress(ip), port: port.port });
  }
  // The reader leaves out `ipMode: Proxy` ingress IPs, for which kube-proxy writes no rules (proxyutil.IsVIPMode).
  for (const ip of svc.loadBalancerIPs) {
    if (ip && familyOf(ip) === family) list.push({ kind: 'loadBalancer', address: canonicalAddress(ip), port: port.port });
  }
  // apiservice.NeedsHealthCheck: LoadBalancer Services with eTP Local.
  if (svc.type === 'LoadBalancer' && eTPLocal && svc.healthCheckNodePort) {
    list.push({ kind: 'healthCheckNodePort', port: svc.healthCheckNodePort });
  }
  return list;
}

function sourceRanges(svc: ApiService, family: IPFamily): string[] {
  return svc.loadBalancerSourceRanges.map((r) => r.trim()).filter((r) => familyOf(r) === family);
}

function servicePort(svc: ApiService, port: ApiServicePort, family: IPFamily, clusterIP: string, slices: readonly ApiEndpointSlice[], families: readonly IPFamily[], here: NodeContext): ExpectedServicePort {
  const eTPLocal = svc.externalTrafficPolicy === 'Local' && serviceExternallyAccessible(svc);
  const fronts = frontends(svc, port, family, clusterIP, eTPLocal);
  const policy: PortPolicy = {
    internalPolicyLocal: svc.internalTrafficPolicy === 'Local',
    externalPolicyLocal: eTPLocal,
    externallyAccessible: fronts.some((f) => f.kind === 'nodePort' || f.kind === 'externalIP' || f.kind === 'loadBalancer'),
  };
  const merged = mergeSlices(slices, port, family, families, here);
  const cat = categorizeEndpoints(merged.candidates, policy, {
    nodeName: here.nodeName,
    zone: here.zone,
    rules: here.rules,
    hintsAnnotation: hintsAnnotation(svc),
    trafficDistribution: svc.trafficDistribution,
  });
  const sets: ChosenSets = { cluster: cat.cluster && new Set(cat.cluster), local: cat.local && new Set(cat.local) };
  const result: ExpectedServicePort = {
    namespace: svc.namespace,
    name: svc.name,
    portName: port.name,
    protocol: port.protocol,
    family,
    frontends: fronts,
    endpoints: [...merged.candidates.map((c) => judge(c, sets, cat, here)), ...merged.unusable],
    // Applied and narrowing: some ready endpoint is left out for topology alone.
    topologyApplied: cat.topologyMode !== '' && merged.candidates.some((c) => c.ready && !sets.cluster?.has(c)),
    externalTrafficPolicy: eTPLocal ? 'Local' : 'Cluster',
    internalTrafficPolicy: policy.internalPolicyLocal ? 'Local' : 'Cluster',
    loadBalancerSourceRanges: sourceRanges(svc, family),
    service: svc,
  };
  if (cat.topologyMode) result.topologyMode = cat.topologyMode;
  const note = cat.topologyIgnored && topologyNote(cat.topologyIgnored);
  if (note) result.topologyNote = note;
  if (svc.sessionAffinity === 'ClientIP') result.sessionAffinityTimeoutSeconds = svc.sessionAffinityTimeoutSeconds ?? 10800;
  if (!cat.hasAnyEndpoints) result.noEndpointsReason = noEndpointsReason(svc, port, family, slices, merged);
  else if (cat.local?.length === 0) result.noLocalEndpointsReason = noLocalEndpointsReason(merged.candidates, here.nodeName);
  return result;
}

/** The deprecated topology-aware-hints annotation wins whenever it is present (serviceport.go, 1.27–1.31). */
function hintsAnnotation(svc: ApiService): string | undefined {
  const a = svc.annotations;
  return 'service.kubernetes.io/topology-aware-hints' in a ? a['service.kubernetes.io/topology-aware-hints'] : a['service.kubernetes.io/topology-mode'];
}

/**
 * EndpointSliceCache.endpointInfoByServicePort + addEndpoints for one port and family: the slice port of the same
 * name and protocol gives the port number; one entry per `ip:port` (see prefer()). Endpoints kube-proxy drops are
 * kept aside as `unusable`, with why, so every endpoint of the API is accounted for.
 */
function mergeSlices(slices: readonly ApiEndpointSlice[], port: ApiServicePort, family: IPFamily, families: readonly IPFamily[], here: NodeContext): PortEndpoints<Candidate> {
  const byKey = new Map<string, Candidate>();
  const unusable = new Map<string, ExpectedEndpoint>();
  const counts = { endpoints: 0, otherFamily: 0, portless: 0 };
  for (const slice of slices) {
    const sp = slice.ports.find((p) => p.name === port.name && p.protocol === port.protocol);
    for (const api of slice.endpoints) {
      if (!api.addresses[0]) continue;
      // addEndpoints keys by utilnet.ParseIPSloppy(address).String(): one spelling per IP.
      const address = canonicalAddress(api.addresses[0]);
      counts.endpoints++;
      const epFamily = familyOf(address);
      if (epFamily !== family) {
        counts.otherFamily++;
        // Listed where no port of its own family will list it: a family the Service does not have.
        if (!families.includes(epFamily)) addUnusable(unusable, slice, api, address, sp?.port ?? 0, 'other-family', port);
        continue;
      }
      if (!sp || !sp.port) {
        counts.portless++;
        addUnusable(unusable, slice, api, address, numericTarget(port), 'port-missing', port);
        continue;
      }
      const c = candidate(slice, api, address, sp.port, here.nodeName);
      const had = byKey.get(c.key);
      if (!had || prefer(c, had)) byKey.set(c.key, c);
    }
  }
  const candidates = [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const c of candidates) unusable.delete(c.address);
  return { candidates, unusable: [...unusable.values()], counts };
}

/**
 * One IP in two slices: kube-proxy keeps the one that is not terminating (a new pod that reuses a terminating
 * pod's IP); older versions preferred the local one. Otherwise the first stays, where kube-proxy's map order decides.
 */
function prefer(c: Candidate, had: Candidate): boolean {
  if (had.terminating !== c.terminating) return had.terminating;
  return c.local && !had.local;
}

function numericTarget(port: ApiServicePort): number {
  return typeof port.targetPort === 'number' ? port.targetPort : 0;
}

function candidate(slice: ApiEndpointSlice, api: ApiEndpoint, address: string, port: number, nodeName: string): Candidate {
  const c = api.conditions;
  return {
    key: formatHostPort(address, port),
    address,
    port,
    // newEndpointSliceInfo: unknown ready and serving count as true, unknown terminating as false.
    ready: c.ready ?? true,
    serving: c.serving ?? true,
    terminating: c.terminating ?? false,
    local: nodeName !== '' && api.nodeName === nodeName,
    zoneHints: api.hints?.forZones,
    nodeHints: api.hints?.forNodes,
    api,
    slice,
  };
}

function addUnusable(into: Map<string, ExpectedEndpoint>, slice: ApiEndpointSlice, api: ApiEndpoint, address: string, port: number, why: EndpointExclusion, servicePortOf: ApiServicePort): void {
  if (into.has(address)) return;
  const c = api.conditions;
  const ep = expectedEndpoint(api, slice, address, port, c.ready ?? true, c.serving ?? true, c.terminating ?? false);
  ep.excludedBecause = why;
  ep.detail = describeExclusion(why, { address, slice, servicePort: servicePortOf });
  into.set(address, ep);
}

function expectedEndpoint(api: ApiEndpoint, slice: ApiEndpointSlice, address: string, port: number, ready: boolean, serving: boolean, terminating: boolean): ExpectedEndpoint {
  const ep: ExpectedEndpoint = {
    address,
    port,
    ready,
    serving,
    terminating,
    inCluster: false,
    inLocal: false,
    slice: slice.source ? { name: slice.name, source: slice.source } : { name: slice.name },
  };
  if (api.nodeName !== undefined) ep.nodeName = api.nodeName;
  if (api.zone !== undefined) ep.zone = api.zone;
  if (api.source) ep.source = api.source;
  return ep;
}

/** Whether the endpoint is in the sets kube-proxy chose, and if it is missing from one the port uses, why. */
function judge(c: Candidate, sets: ChosenSets, cat: Categorized<Candidate>, here: NodeContext): ExpectedEndpoint {
  const inCluster = sets.cluster?.has(c) ?? false;
  const inLocal = sets.local?.has(c) ?? false;
  const ep = expectedEndpoint(c.api, c.slice, c.address, c.port, c.ready, c.serving, c.terminating);
  ep.inCluster = inCluster;
  ep.inLocal = inLocal;
  const why = sets.cluster && !inCluster ? conditionOr(c, 'topology') : sets.local && !inLocal ? (c.local ? conditionOr(c, 'not-local') : 'not-local') : undefined;
  if (!why) return ep;
  ep.excludedBecause = why;
  ep.detail = describeExclusion(why, { address: c.address, slice: c.slice, candidate: c, node: here, mode: cat.topologyMode });
  return ep;
}

export interface ChosenSets {
  cluster?: Set<Candidate>;
  local?: Set<Candidate>;
}

/** The endpoint's own conditions explain its absence when it is not ready; else `otherwise` does. */
function conditionOr(c: Candidate, otherwise: EndpointExclusion): EndpointExclusion {
  if (c.ready) return otherwise;
  if (c.serving && c.terminating) return 'terminating';
  return c.terminating ? 'not-serving' : 'not-ready';
}
