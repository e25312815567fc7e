// Small builders for the cluster-state model (src/core/cluster/types.ts), with the API server's defaults, so
// a test states only what it is about.
import type { ApiEndpoint, ApiEndpointSlice, ApiNode, ApiService, ApiServicePort, ClusterState } from '../../src/core/cluster/types';

export function service(name: string, o: Partial<ApiService> = {}): ApiService {
  return {
    namespace: 'default',
    name,
    type: 'ClusterIP',
    clusterIPs: ['10.96.0.10'],
    ipFamilies: ['IPv4'],
    ports: [port()],
    selector: { app: name },
    externalIPs: [],
    loadBalancerIPs: [],
    loadBalancerSourceRanges: [],
    externalTrafficPolicy: 'Cluster',
    internalTrafficPolicy: 'Cluster',
    sessionAffinity: 'None',
    annotations: {},
    labels: {},
    ...o,
  };
}

export function port(o: Partial<ApiServicePort> = {}): ApiServicePort {
  return { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, ...o };
}

export function slice(serviceName: string, endpoints: ApiEndpoint[], o: Partial<ApiEndpointSlice> = {}): ApiEndpointSlice {
  return {
    namespace: 'default',
    name: `${serviceName}-abcde`,
    serviceName,
    addressType: 'IPv4',
    ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
    endpoints,
    managedBy: 'endpointslice-controller.k8s.io',
    ...o,
  };
}

export function endpoint(address: string, o: Partial<ApiEndpoint> = {}): ApiEndpoint {
  return { addresses: [address], conditions: { ready: true, serving: true, terminating: false }, ...o };
}

export function node(name: string, zone?: string): ApiNode {
  return { name, internalIPs: [], externalIPs: [], zone, podCIDRs: [], labels: zone ? { 'topology.kubernetes.io/zone': zone } : {} };
}

export function state(o: Partial<ClusterState>): ClusterState {
  return { services: [], endpointSlices: [], nodes: [], diagnostics: [], ...o };
}
