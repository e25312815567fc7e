// The words that explain the expected dataplane: why an endpoint of the API is not used on this node, why a
// Service port has no endpoint at all, why hints were not applied. Localised through t().
import { t } from '../l10n';
import type { ApiEndpointSlice, ApiService, ApiServicePort, EndpointExclusion, ExpectedEndpoint, IPFamily } from './types';
import type { ProxyEndpoint, TopologyIgnored, TopologyMode } from './topology';

/** What mergeSlices found for one Service port and family. */
export interface PortEndpoints<E extends ProxyEndpoint = ProxyEndpoint> {
  candidates: E[];
  unusable: ExpectedEndpoint[];
  /** All endpoints with an address in the Service's slices; of them, those of the other family / without this port. */
  counts: { endpoints: number; otherFamily: number; portless: number };
}

export interface ExclusionContext {
  address: string;
  slice: ApiEndpointSlice;
  servicePort?: ApiServicePort;
  candidate?: ProxyEndpoint & { api: { nodeName?: string } };
  node?: { nodeName: string; zone: string };
  mode?: TopologyMode;
}

export function portLabel(port: ApiServicePort): string {
  return port.name ? `${port.name}/${port.protocol}` : t('unnamed port {0}/{1}', port.port, port.protocol);
}

export function describeExclusion(why: EndpointExclusion, x: ExclusionContext): string {
  switch (why) {
    case 'not-ready':
      return t('not ready');
    case 'not-serving':
      return t('terminating and no longer serving');
    case 'terminating':
      return t('terminating (serving): kube-proxy uses the ready endpoints instead');
    case 'topology':
      return describeTopology(x);
    case 'not-local':
      return describeNotLocal(x);
    case 'other-family':
      return t('{0} address, but the Service has no {0} ClusterIP', otherFamily(x.address));
    case 'port-missing':
      return t('its EndpointSlice {0} has no port {1} with a number', x.slice.name, x.servicePort ? portLabel(x.servicePort) : '');
  }
}

function otherFamily(address: string): IPFamily {
  return address.includes(':') ? 'IPv6' : 'IPv4';
}

function describeTopology(x: ExclusionContext): string {
  const ep = x.candidate;
  if (x.mode === 'PreferSameNode') {
    return t('hinted for node {0}, not for this node ({1})', (ep?.nodeHints ?? []).join(', ') || '-', x.node?.nodeName ?? '');
  }
  return t("hinted for zone {0}, not for this node's zone {1}", (ep?.zoneHints ?? []).join(', ') || '-', x.node?.zone ?? '');
}

function describeNotLocal(x: ExclusionContext): string {
  const nodeName = x.candidate?.api.nodeName;
  if (!x.node?.nodeName) return t("this node's name is unknown, so no endpoint counts as local");
  if (!nodeName) return t('the endpoint names no node, so it is never local');
  return t('on node {0}, not on this node', nodeName);
}

/** Hints present but not (fully) used: the fact kube-proxy logs at -v=2. */
export function topologyNote(why: TopologyIgnored): string | undefined {
  switch (why.kind) {
    case 'not-requested':
      return t('hints ignored: the Service does not ask for topology-aware routing (annotation or trafficDistribution)');
    case 'no-zone-label':
      return t('hints ignored: this node has no topology.kubernetes.io/zone label');
    case 'missing-zone-hint':
      return t('hints ignored: ready endpoint {0} has no zone hint', why.endpoint);
    case 'no-hint-for-zone':
      return t("hints ignored: no endpoint is hinted for this node's zone {0}", why.zone);
    case 'no-ready-endpoints':
      return t('hints ignored: no endpoint is ready');
    case 'no-hints':
      return t('the Service asks for topology-aware routing, but no endpoint has a hint (the EndpointSlice controller withholds them when zones are unbalanced)');
    case 'no-hint-for-node':
      return why.node ? t('node hints ignored: no endpoint is hinted for this node {0}; zone hints used', why.node) : t("node hints ignored: this node's name is unknown; zone hints used");
  }
}

/** Why kube-proxy has nothing to send this Service port's traffic to, in the API's own terms. */
export function noEndpointsReason(svc: ApiService, port: ApiServicePort, family: IPFamily, slices: readonly ApiEndpointSlice[], found: PortEndpoints): string {
  const n = found.counts;
  if (slices.length === 0) {
    return svc.selector ? t('no EndpointSlice at all') : t('no EndpointSlice at all, and the Service has no selector (its endpoints are managed by hand)');
  }
  if (n.endpoints === 0) return svc.selector ? t('selector matches nothing (its EndpointSlices are empty)') : t('its EndpointSlices are empty');
  if (n.otherFamily === n.endpoints) return n.endpoints === 1 ? t('1 endpoint, not {0}', family) : t('{0} endpoints, none {1}', n.endpoints, family);
  if (found.candidates.length === 0) return t('no EndpointSlice has port {0}', portLabel(port));
  return noneReady(found.candidates);
}

function noneReady(eps: readonly ProxyEndpoint[]): string {
  const terminating = eps.filter((e) => e.terminating).length;
  if (eps.length === 1) return terminating ? t('1 endpoint, terminating and no longer serving') : t('1 endpoint, not ready');
  if (terminating === 0) return t('{0} endpoints, none ready', eps.length);
  return t('{0} endpoints, none ready ({1} terminating and no longer serving)', eps.length, terminating);
}

/** Endpoints exist, none usable on this node for the Local policy. */
export function noLocalEndpointsReason(eps: readonly ProxyEndpoint[], nodeName: string): string {
  if (!nodeName) return t("this node's name is unknown, so no endpoint counts as local");
  const local = eps.filter((e) => e.local).length;
  const usable = eps.filter((e) => e.ready || (e.serving && e.terminating)).length;
  if (local === 0) return t('no endpoint on this node {0} ({1} usable elsewhere)', nodeName, usable);
  if (local === 1) return t('1 endpoint on this node {0}, neither ready nor serving', nodeName);
  return t('{0} endpoints on this node {1}, none ready or serving', local, nodeName);
}
