// One API object to the cluster model, with the defaults the API server fills in (so a hand-written or
// partial object reads like what kubectl prints): Service ports TCP, sessionAffinity None (timeout 10800),
// traffic policies Cluster, clusterIPs from clusterIP, ipFamilies from clusterIPs. Legacy v1 Endpoints become
// EndpointSlices the way the EndpointSlice mirroring controller writes them (only `ready` set).
import { t } from '../l10n';
import { field, isObj, type Obj, type ReadContext } from './read-context';
import type { ApiEndpoint, ApiEndpointSlice, ApiEndpointSlicePort, ApiNode, ApiService, ApiServicePort, IPFamily, Protocol } from './types';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
const LEGACY_ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';
const HOSTNAME_LABEL = 'kubernetes.io/hostname';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const MIRROR_CONTROLLER = 'endpointslicemirroring-controller.k8s.io';
const DEFAULT_AFFINITY_TIMEOUT = 10800;

export function familyOf(address: string): IPFamily {
  return address.includes(':') ? 'IPv6' : 'IPv4';
}

export interface Meta {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  deleting: boolean;
  /** Where the object starts in the text. */
  at: number;
  metaAt: number;
}

/** `metadata`, or undefined (reported) without a name. */
export function readMeta(ctx: ReadContext, o: Obj, kind: string, namespaced: boolean): Meta | undefined {
  ctx.current = kind;
  const at = ctx.offsetOf(o);
  const m = ctx.obj(o, 'metadata', 'metadata');
  const name = m ? ctx.str(m, 'name', 'metadata.name') : undefined;
  if (!m || !name) {
    ctx.missing(o, 'metadata.name', at, m ? 'metadata' : undefined);
    return undefined;
  }
  const namespace = (namespaced && ctx.str(m, 'namespace', 'metadata.namespace')) || (namespaced ? 'default' : '');
  ctx.current = namespaced ? `${kind} ${namespace}/${name}` : `${kind} ${name}`;
  return {
    name,
    namespace,
    labels: ctx.stringMap(m, 'labels', 'metadata.labels'),
    annotations: ctx.stringMap(m, 'annotations', 'metadata.annotations'),
    deleting: field(m, 'deletionTimestamp') !== undefined && field(m, 'deletionTimestamp') !== null,
    at,
    metaAt: ctx.offsetOf(m, at),
  };
}

function nameSource(ctx: ReadContext, meta: Meta): ApiService['source'] {
  return ctx.source(ctx.valueRange(meta.metaAt, 'name', meta.name));
}

function protocol(ctx: ReadContext, o: Obj, path: string): Protocol {
  const p = ctx.str(o, 'protocol', path);
  if (p === undefined || p === 'TCP' || p === 'UDP' || p === 'SCTP') return p ?? 'TCP';
  ctx.wrongType(o, 'protocol', path, 'TCP, UDP or SCTP');
  return 'TCP';
}

function oneOf<T extends string>(ctx: ReadContext, o: Obj | undefined, key: string, path: string, allowed: readonly T[], fallback: T): T {
  const v = o ? ctx.str(o, key, path) : undefined;
  if (v === undefined || v === '') return fallback;
  if ((allowed as readonly string[]).includes(v)) return v as T;
  ctx.wrongType(o!, key, path, allowed.join(t(' or ')));
  return fallback;
}

export function readService(ctx: ReadContext, o: Obj): ApiService | undefined {
  const meta = readMeta(ctx, o, 'Service', true);
  if (!meta) return undefined;
  const spec = ctx.obj(o, 'spec', 'spec') ?? ({} as Obj);
  const type = oneOf(ctx, spec, 'type', 'spec.type', ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'], 'ClusterIP');
  const clusterIP = ctx.str(spec, 'clusterIP', 'spec.clusterIP');
  let clusterIPs = ctx.strings(spec, 'clusterIPs', 'spec.clusterIPs');
  if (clusterIPs.length === 0 && clusterIP) clusterIPs = [clusterIP];
  const ipFamilies = ctx.strings(spec, 'ipFamilies', 'spec.ipFamilies').filter((f): f is IPFamily => f === 'IPv4' || f === 'IPv6');
  const affinity = oneOf(ctx, spec, 'sessionAffinity', 'spec.sessionAffinity', ['None', 'ClientIP'], 'None');
  const selector = ctx.stringMap(spec, 'selector', 'spec.selector');
  const svc: ApiService = {
    namespace: meta.namespace,
    name: meta.name,
    type,
    clusterIPs,
    ipFamilies: ipFamilies.length > 0 ? ipFamilies : [...new Set(clusterIPs.filter((ip) => ip !== 'None' && ip !== '').map(familyOf))],
    ports: servicePorts(ctx, spec),
    externalIPs: ctx.strings(spec, 'externalIPs', 'spec.externalIPs'),
    loadBalancerIPs: ingressIPs(ctx, o),
    // kube-proxy trims them (pkg/proxy/service.go).
    loadBalancerSourceRanges: ctx.strings(spec, 'loadBalancerSourceRanges', 'spec.loadBalancerSourceRanges').map((r) => r.trim()),
    externalTrafficPolicy: oneOf(ctx, spec, 'externalTrafficPolicy', 'spec.externalTrafficPolicy', ['Cluster', 'Local'], 'Cluster'),
    internalTrafficPolicy: oneOf(ctx, spec, 'internalTrafficPolicy', 'spec.internalTrafficPolicy', ['Cluster', 'Local'], 'Cluster'),
    sessionAffinity: affinity,
    annotations: meta.annotations,
    labels: meta.labels,
    source: nameSource(ctx, meta),
  };
  if (Object.keys(selector).length > 0) svc.selector = selector;
  const hc = ctx.int(spec, 'healthCheckNodePort', 'spec.healthCheckNodePort', 0, 65535);
  if (hc) svc.healthCheckNodePort = hc;
  if (affinity === 'ClientIP') svc.sessionAffinityTimeoutSeconds = affinityTimeout(ctx, spec);
  const td = ctx.str(spec, 'trafficDistribution', 'spec.trafficDistribution');
  if (td) svc.trafficDistribution = td;
  if (meta.deleting) svc.deleting = true;
  if (type !== 'ExternalName' && clusterIPs.length === 0) {
    ctx.report('information', 'cluster-no-cluster-ip', t('{0} has no clusterIP: is this a manifest rather than the object the API server holds?', ctx.current), o, undefined);
  }
  return svc;
}

function affinityTimeout(ctx: ReadContext, spec: Obj): number {
  const config = ctx.obj(spec, 'sessionAffinityConfig', 'spec.sessionAffinityConfig');
  const clientIP = config ? ctx.obj(config, 'clientIP', 'spec.sessionAffinityConfig.clientIP') : undefined;
  const timeout = clientIP ? ctx.int(clientIP, 'timeoutSeconds', 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', 1, 86400) : undefined;
  return timeout ?? DEFAULT_AFFINITY_TIMEOUT;
}

function servicePorts(ctx: ReadContext, spec: Obj): ApiServicePort[] {
  const out: ApiServicePort[] = [];
  for (const p of ctx.list(spec, 'ports', 'spec.ports')) {
    if (!isObj(p)) {
      ctx.report('warning', 'cluster-bad-field', t('{0}: {1} should be {2}, not {3}; it is ignored.', ctx.current, 'spec.ports[]', t('an object'), String(p)), spec, 'ports');
      continue;
    }
    const port = ctx.int(p, 'port', 'spec.ports[].port', 1, 65535);
    if (port === undefined) {
      if (field(p, 'port') === undefined) ctx.missing(p, 'spec.ports[].port', ctx.offsetOf(spec));
      continue;
    }
    const sp: ApiServicePort = { name: ctx.str(p, 'name', 'spec.ports[].name') ?? '', protocol: protocol(ctx, p, 'spec.ports[].protocol'), port };
    const target = field(p, 'targetPort');
    // The API server defaults targetPort to port.
    sp.targetPort = (typeof target === 'number' && target > 0) || (typeof target === 'string' && target !== '') ? target : port;
    const nodePort = ctx.int(p, 'nodePort', 'spec.ports[].nodePort', 0, 65535);
    if (nodePort) sp.nodePort = nodePort;
    out.push(sp);
  }
  return out;
}

/** `status.loadBalancer.ingress[].ip`, leaving out `ipMode: Proxy` ones, which kube-proxy does not program. */
function ingressIPs(ctx: ReadContext, o: Obj): string[] {
  const status = ctx.obj(o, 'status', 'status');
  const lb = status ? ctx.obj(status, 'loadBalancer', 'status.loadBalancer') : undefined;
  const out: string[] = [];
  for (const ing of lb ? ctx.list(lb, 'ingress', 'status.loadBalancer.ingress') : []) {
    if (!isObj(ing)) continue;
    const ip = ctx.str(ing, 'ip', 'status.loadBalancer.ingress[].ip');
    if (ip && ctx.str(ing, 'ipMode', 'status.loadBalancer.ingress[].ipMode') !== 'Proxy') out.push(ip);
  }
  return out;
}

// ---- EndpointSlice ----

export function readEndpointSlice(ctx: ReadContext, o: Obj, apiVersion: string | undefined): ApiEndpointSlice | undefined {
  const meta = readMeta(ctx, o, 'EndpointSlice', true);
  if (!meta) return undefined;
  const addressType = ctx.str(o, 'addressType', 'addressType');
  if (addressType !== 'IPv4' && addressType !== 'IPv6' && addressType !== 'FQDN') {
    if (addressType === undefined) ctx.missing(o, 'addressType');
    else ctx.wrongType(o, 'addressType', 'addressType', 'IPv4, IPv6 or FQDN');
    return undefined;
  }
  const slice: ApiEndpointSlice = {
    namespace: meta.namespace,
    name: meta.name,
    addressType,
    ports: slicePorts(ctx, o),
    endpoints: [],
    source: nameSource(ctx, meta),
  };
  const service = meta.labels[SERVICE_NAME_LABEL];
  if (service) slice.serviceName = service;
  const managedBy = meta.labels[MANAGED_BY_LABEL];
  if (managedBy) slice.managedBy = managedBy;
  const beta = apiVersion === 'discovery.k8s.io/v1beta1';
  for (const e of ctx.list(o, 'endpoints', 'endpoints')) {
    const ep = isObj(e) ? readEndpoint(ctx, e, beta) : undefined;
    if (ep) slice.endpoints.push(ep);
    else if (!isObj(e)) ctx.wrongType(o, 'endpoints', 'endpoints[]', t('an object'));
  }
  return slice;
}

function slicePorts(ctx: ReadContext, o: Obj): ApiEndpointSlicePort[] {
  const out: ApiEndpointSlicePort[] = [];
  for (const p of ctx.list(o, 'ports', 'ports')) {
    if (!isObj(p)) continue;
    const sp: ApiEndpointSlicePort = { name: ctx.str(p, 'name', 'ports[].name') ?? '', protocol: protocol(ctx, p, 'ports[].protocol') };
    const port = ctx.int(p, 'port', 'ports[].port', 1, 65535);
    if (port !== undefined) sp.port = port;
    out.push(sp);
  }
  return out;
}

function readEndpoint(ctx: ReadContext, e: Obj, beta: boolean): ApiEndpoint | undefined {
  const addresses = ctx.strings(e, 'addresses', 'endpoints[].addresses');
  if (addresses.length === 0) {
    if (field(e, 'addresses') === undefined) ctx.missing(e, 'endpoints[].addresses');
    return undefined;
  }
  const at = ctx.offsetOf(e);
  const ep: ApiEndpoint = { addresses, conditions: {}, source: ctx.source(ctx.valueAfter(ctx.keyOffset(at, 'addresses') ?? at, addresses[0])) };
  const c = ctx.obj(e, 'conditions', 'endpoints[].conditions');
  if (c) {
    for (const k of ['ready', 'serving', 'terminating'] as const) {
      const v = ctx.bool(c, k, `endpoints[].conditions.${k}`);
      if (v !== undefined) ep.conditions[k] = v;
    }
  }
  const topology = beta ? ctx.stringMap(e, 'topology', 'endpoints[].topology') : {};
  const nodeName = ctx.str(e, 'nodeName', 'endpoints[].nodeName') ?? topology[HOSTNAME_LABEL];
  if (nodeName) ep.nodeName = nodeName;
  const zone = ctx.str(e, 'zone', 'endpoints[].zone') ?? topology[ZONE_LABEL];
  if (zone) ep.zone = zone;
  const hints = ctx.obj(e, 'hints', 'endpoints[].hints');
  if (hints) {
    const forZones = hintNames(ctx, hints, 'forZones');
    const forNodes = hintNames(ctx, hints, 'forNodes');
    if (forZones || forNodes) ep.hints = { ...(forZones && { forZones }), ...(forNodes && { forNodes }) };
  }
  const ref = targetRef(ctx, e);
  if (ref) ep.targetRef = ref;
  return ep;
}

function hintNames(ctx: ReadContext, hints: Obj, key: 'forZones' | 'forNodes'): string[] | undefined {
  if (field(hints, key) === undefined) return undefined;
  const names: string[] = [];
  for (const h of ctx.list(hints, key, `endpoints[].hints.${key}`)) {
    const name = isObj(h) ? ctx.str(h, 'name', `endpoints[].hints.${key}[].name`) : undefined;
    if (name) names.push(name);
  }
  return names;
}

function targetRef(ctx: ReadContext, e: Obj): string | undefined {
  const ref = ctx.obj(e, 'targetRef', 'targetRef');
  if (!ref) return undefined;
  const kind = ctx.str(ref, 'kind', 'targetRef.kind') ?? 'Pod';
  const name = ctx.str(ref, 'name', 'targetRef.name');
  const namespace = ctx.str(ref, 'namespace', 'targetRef.namespace');
  return name ? `${kind} ${namespace ? `${namespace}/` : ''}${name}` : undefined;
}

// ---- Endpoints (legacy) ----

/**
 * A v1 Endpoints object as the slices the mirroring controller would write: one per subset and address family,
 * `ready: true` for `addresses`, `ready: false` for `notReadyAddresses`, nothing else set
 * (addressToEndpoint in pkg/controller/endpointslicemirroring/utils.go).
 */
export function readEndpoints(ctx: ReadContext, o: Obj): ApiEndpointSlice[] {
  const meta = readMeta(ctx, o, 'Endpoints', true);
  // The mirroring controller leaves these alone (skipMirror in its utils.go).
  if (!meta || meta.labels[SKIP_MIRROR_LABEL] === 'true') return [];
  const out: ApiEndpointSlice[] = [];
  const source = nameSource(ctx, meta);
  ctx.list(o, 'subsets', 'subsets').forEach((subset, i) => {
    if (!isObj(subset)) return;
    const ports = ctx
      .list(subset, 'ports', 'subsets[].ports')
      .filter(isObj)
      .map((p) => {
        const sp: ApiEndpointSlicePort = { name: ctx.str(p, 'name', 'subsets[].ports[].name') ?? '', protocol: protocol(ctx, p, 'subsets[].ports[].protocol') };
        const port = ctx.int(p, 'port', 'subsets[].ports[].port', 1, 65535);
        if (port !== undefined) sp.port = port;
        return sp;
      });
    const byFamily = new Map<IPFamily, ApiEndpoint[]>();
    for (const [key, ready] of [
      ['addresses', true],
      ['notReadyAddresses', false],
    ] as const) {
      for (const a of ctx.list(subset, key, `subsets[].${key}`)) {
        const ep = isObj(a) ? legacyAddress(ctx, a, ready) : undefined;
        if (!ep) continue;
        const family = familyOf(ep.addresses[0]);
        byFamily.set(family, [...(byFamily.get(family) ?? []), ep]);
      }
    }
    for (const [family, endpoints] of byFamily) {
      const name = `${meta.name}${i > 0 ? `-${i}` : ''}${family === 'IPv6' && byFamily.size > 1 ? '-ipv6' : ''}`;
      out.push({ namespace: meta.namespace, name, serviceName: meta.name, addressType: family, ports, endpoints, managedBy: MIRROR_CONTROLLER, fromLegacyEndpoints: true, source });
    }
  });
  return out;
}

function legacyAddress(ctx: ReadContext, a: Obj, ready: boolean): ApiEndpoint | undefined {
  const ip = ctx.str(a, 'ip', 'subsets[].addresses[].ip');
  if (!ip) {
    ctx.missing(a, 'subsets[].addresses[].ip');
    return undefined;
  }
  const ep: ApiEndpoint = { addresses: [ip], conditions: { ready }, source: ctx.source(ctx.valueRange(ctx.offsetOf(a), 'ip', ip)) };
  const nodeName = ctx.str(a, 'nodeName', 'subsets[].addresses[].nodeName');
  if (nodeName) ep.nodeName = nodeName;
  const ref = targetRef(ctx, a);
  if (ref) ep.targetRef = ref;
  return ep;
}

// ---- Node ----

export function readNode(ctx: ReadContext, o: Obj): ApiNode | undefined {
  const meta = readMeta(ctx, o, 'Node', false);
  if (!meta) return undefined;
  const node: ApiNode = { name: meta.name, internalIPs: [], externalIPs: [], podCIDRs: [], labels: meta.labels, source: nameSource(ctx, meta) };
  const zone = meta.labels[ZONE_LABEL] ?? meta.labels[LEGACY_ZONE_LABEL];
  if (zone) node.zone = zone;
  const spec = ctx.obj(o, 'spec', 'spec');
  if (spec) {
    node.podCIDRs = ctx.strings(spec, 'podCIDRs', 'spec.podCIDRs');
    const single = ctx.str(spec, 'podCIDR', 'spec.podCIDR');
    if (node.podCIDRs.length === 0 && single) node.podCIDRs = [single];
  }
  const status = ctx.obj(o, 'status', 'status');
  for (const a of status ? ctx.list(status, 'addresses', 'status.addresses') : []) {
    if (!isObj(a)) continue;
    const type = ctx.str(a, 'type', 'status.addresses[].type');
    const address = ctx.str(a, 'address', 'status.addresses[].address');
    if (!address) continue;
    if (type === 'InternalIP') node.internalIPs.push(address);
    else if (type === 'ExternalIP') node.externalIPs.push(address);
  }
  return node;
}
