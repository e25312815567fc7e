// The expected dataplane is computed in time linear in the cluster's size: many Services (each with its slices),
// and one Service with many endpoints spread over many slices. Complexity, not speed (test/helpers/linear.ts).
import { describe, expect, it } from 'vitest';
import { expectedServicePorts } from '../../src/core/cluster/expected';
import type { ApiEndpoint, ClusterState } from '../../src/core/cluster/types';
import { costRatio, MAX_COST_RATIO_8X } from '../helpers/linear';
import { endpoint, node, port, service, slice, state } from '../helpers/cluster-objects';

const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** n Services of every kind kube-proxy treats differently, each with a slice of three endpoints and hints. */
function manyServices(n: number): ClusterState {
  const services = [];
  const endpointSlices = [];
  for (let i = 0; i < n; i++) {
    const name = `svc-${i}`;
    const kind = i % 4;
    services.push(
      service(name, {
        clusterIPs: [ip(i)],
        type: kind === 0 ? 'ClusterIP' : kind === 1 ? 'NodePort' : 'LoadBalancer',
        externalTrafficPolicy: kind === 2 ? 'Local' : 'Cluster',
        internalTrafficPolicy: kind === 3 ? 'Local' : 'Cluster',
        loadBalancerIPs: kind >= 2 ? [ip(i + 1_000_000)] : [],
        healthCheckNodePort: kind === 2 ? 32000 : undefined,
        ports: [port({ nodePort: kind ? 30000 + (i % 2000) : undefined }), port({ name: 'metrics', port: 9090 })],
      }),
    );
    const eps: ApiEndpoint[] = [0, 1, 2].map((k) =>
      endpoint(ip(i * 3 + k + 2_000_000), { nodeName: `node-${k}`, zone: `zone-${k}`, hints: { forZones: [`zone-${k}`] }, conditions: { ready: k !== 2, serving: true, terminating: k === 2 } }),
    );
    endpointSlices.push(
      slice(name, eps, {
        ports: [
          { name: 'http', protocol: 'TCP', port: 8080 },
          { name: 'metrics', protocol: 'TCP', port: 9090 },
        ],
      }),
    );
  }
  return state({ services, endpointSlices, nodes: [node('node-0', 'zone-0'), node('node-1', 'zone-1')] });
}

/** n plain Services, one slice each: the least work per Service, so any scan of all Services or slices per Service shows. */
function plainServices(n: number): ClusterState {
  const services = [];
  const endpointSlices = [];
  for (let i = 0; i < n; i++) {
    services.push(service(`svc-${i}`, { clusterIPs: [ip(i)] }));
    endpointSlices.push(slice(`svc-${i}`, [endpoint(ip(i + 2_000_000))]));
  }
  return state({ services, endpointSlices });
}

/** One Service whose n endpoints are spread over slices of 100, some IPs repeated across slices. */
function bigService(n: number): ClusterState {
  const endpointSlices = [];
  for (let s = 0; s * 100 < n; s++) {
    const eps = [];
    for (let k = 0; k < 100; k++) eps.push(endpoint(ip(s * 100 + k + (k % 10 === 0 ? -50 : 0) + 100), { nodeName: `node-${k % 7}` }));
    endpointSlices.push(slice('big', eps, { name: `big-${s}` }));
  }
  return state({ services: [service('big', { type: 'NodePort', externalTrafficPolicy: 'Local', ports: [port({ nodePort: 30080 })] })], endpointSlices });
}

function ratio(make: (n: number) => ClusterState, small: number): number {
  const states: Record<string, ClusterState> = { small: make(small), large: make(small * 8) };
  return costRatio((key) => expectedServicePorts(states[key]!, { name: 'node-0' }, { mode: 'iptables' }), 'small', 'large');
}

describe('expectedServicePorts is linear', () => {
  it('in the number of Services', () => {
    expect(expectedServicePorts(manyServices(4), { name: 'node-0' }, { mode: 'iptables' })).toHaveLength(8);
    expect(ratio(manyServices, 250)).toBeLessThan(MAX_COST_RATIO_8X);
    expect(ratio(plainServices, 1_000)).toBeLessThan(MAX_COST_RATIO_8X);
  });

  it('in the number of endpoints of one Service', () => {
    expect(ratio(bigService, 2_000)).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
