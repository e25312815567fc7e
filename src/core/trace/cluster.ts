// A trace's outcomes named by the cluster state: each DNAT outcome's endpoint with its Service port, EndpointSlice
// and pod (targetRef), and whether the API offers it at all. The rules can send to an endpoint the API no longer
// has or has not ready: the outcome says so. Only when a cluster state is beside the dump.
import { t } from '../l10n';
import { servicePortText } from '../cluster/check';
import { pairedPorts } from '../cluster/paired';
import type { ApiEndpointSlice, ExpectedEndpoint, ExpectedServicePort } from '../cluster/types';
import type { NodeSnapshot } from '../snapshot';
import { canonicalAddress } from '../model/address';
import type { EndpointApiState, Outcome, OutcomeEndpoint, TraceResult } from './types';

/** `ip:port` or `[ip6]:port` as address and port. */
function splitHostPort(text: string): { address: string; port: number } | undefined {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  return m ? { address: canonicalAddress(m[1]), port: Number(m[2]) } : undefined;
}

/** Whether the traced packet is sent to one of the port's frontends (an address, or a NodePort on this node). */
function tracedTo(e: ExpectedServicePort, result: TraceResult): boolean {
  const { dst, dport } = result.packet;
  const onNode = result.context.nodeIPs.includes(dst);
  return e.frontends.some((f) => f.port === dport && (f.kind === 'nodePort' ? onNode : f.address !== undefined && canonicalAddress(f.address) === canonicalAddress(dst)));
}

function apiState(x: ExpectedEndpoint): EndpointApiState {
  if (x.inCluster || x.inLocal) return x.ready ? 'ready' : 'serving-terminating';
  if (x.excludedBecause === 'not-ready' || x.excludedBecause === 'terminating' || x.excludedBecause === 'not-serving') return x.excludedBecause;
  return 'excluded';
}

function apiNote(state: EndpointApiState, x: ExpectedEndpoint | undefined): string | undefined {
  const detail = x?.detail ? ` (${x.detail})` : '';
  switch (state) {
    case 'ready':
    case 'serving-terminating':
      return undefined;
    case 'not-ready':
      return t('the API says this endpoint is not ready{0}: kube-proxy would not send to it', detail);
    case 'terminating':
      return t('the API says this endpoint is terminating{0}: kube-proxy would not send new connections to it', detail);
    case 'not-serving':
      return t('the API says this endpoint is neither ready nor serving{0}', detail);
    case 'excluded':
      return t('kube-proxy would not use this endpoint from this node{0}', detail);
    case 'gone':
      return t('no EndpointSlice of the Service lists this endpoint: the pod is gone');
  }
}

/** The `targetRef` of the slice's entry for this address. */
function podOf(slices: readonly ApiEndpointSlice[], namespace: string, slice: string | undefined, address: string): string | undefined {
  if (!slice) return undefined;
  const s = slices.find((x) => x.namespace === namespace && x.name === slice);
  return s?.endpoints.find((ep) => ep.addresses.some((a) => canonicalAddress(a) === address))?.targetRef;
}

/** The outcomes' endpoints named by the snapshot's cluster state; the result unchanged without one. */
export function clusterEndpoints(snapshot: NodeSnapshot, result: TraceResult): TraceResult {
  const paired = pairedPorts(snapshot);
  if (!paired || !snapshot.cluster) return result;
  const protocol = result.packet.protocol.toUpperCase();
  const ports = paired.expected.filter((e) => e.protocol === protocol && tracedTo(e, result));
  if (ports.length === 0) return result;
  const slices = snapshot.cluster.state.endpointSlices;
  const outcomes = result.outcomes.map((o): Outcome => {
    const at = o.verdict === 'dnat' && o.destination ? splitHostPort(o.destination) : undefined;
    if (!at) return o;
    const match = (e: ExpectedServicePort) => e.endpoints.find((x) => x.port === at.port && canonicalAddress(x.address) === at.address);
    const e = ports.find((p) => match(p)) ?? ports[0];
    const x = match(e);
    const state = x ? apiState(x) : 'gone';
    const note = apiNote(state, x);
    const pod = x ? podOf(slices, e.namespace, x.slice?.name, at.address) : undefined;
    const endpoint: OutcomeEndpoint = { service: servicePortText(e), ...(x?.slice ? { endpointSlice: x.slice.name } : {}), ...(pod ? { pod } : {}), api: state, ...(note ? { note } : {}) };
    return { ...o, endpoint };
  });
  return { ...result, outcomes };
}
