// Snapshots made by the project's dump generators and the expected Service ports of the same generated Services,
// built by hand (what kube-proxy would compute for a node named node-1): the comparison is tested on real dumps
// of the three modes without the expected-dataplane computation.
import { generateIptablesDump, type GenServicePort } from '../../src/core/kube/generate/iptables';
import { generateIpvsSnapshot } from '../../src/core/kube/generate/ipvs';
import { generateNftDump } from '../../src/core/kube/generate/nft';
import { analyzeFile, buildSnapshot, type NodeSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import type { ApiService, ClusterState, ExpectedEndpoint, ExpectedFrontend, ExpectedServicePort, IPFamily, Protocol } from '../../src/core/cluster/types';

export type Mode = 'iptables' | 'nftables' | 'ipvs';

export const NODE_IP = { ipv4: '192.168.0.10', ipv6: 'fd00::10' };

export function snapshotOf(mode: Mode, services: GenServicePort[], family: 'ipv4' | 'ipv6' = 'ipv4', comments = true): NodeSnapshot {
  const files: SnapshotFile[] = [];
  const add = (name: string, text: string) => files.push(analyzeFile(name, text)!);
  if (mode === 'iptables') add('node.iptables', generateIptablesDump({ services, style: 'iptables-nft-save', family, comments }));
  else if (mode === 'nftables') add('node.nft', generateNftDump({ services, style: 'nft-list-ruleset', family, nodeIPs: [NODE_IP[family]] }));
  else {
    const snap = generateIpvsSnapshot({ services, nodeIPs: [NODE_IP[family]], family });
    add('node.ipvs', snap['ipvsadm-list']);
    add('node.ipset', snap['ipset-save']);
    add('node.iptables', snap['iptables-save']);
  }
  return buildSnapshot(files);
}

export function apiServiceOf(g: GenServicePort, family: IPFamily): ApiService {
  return {
    namespace: g.namespace,
    name: g.name,
    type: g.loadBalancerIPs?.length ? 'LoadBalancer' : g.nodePort ? 'NodePort' : 'ClusterIP',
    clusterIPs: [g.clusterIP],
    ipFamilies: [family],
    ports: [{ name: g.portName, protocol: g.protocol.toUpperCase() as Protocol, port: g.port, nodePort: g.nodePort }],
    selector: { app: g.name },
    externalIPs: g.externalIPs ?? [],
    loadBalancerIPs: g.loadBalancerIPs ?? [],
    loadBalancerSourceRanges: g.loadBalancerSourceRanges ?? [],
    externalTrafficPolicy: g.externalTrafficPolicy ?? 'Cluster',
    internalTrafficPolicy: g.internalTrafficPolicy ?? 'Cluster',
    healthCheckNodePort: g.healthCheckNodePort,
    sessionAffinity: g.sessionAffinityTimeout ? 'ClientIP' : 'None',
    sessionAffinityTimeoutSeconds: g.sessionAffinityTimeout,
    annotations: {},
    labels: {},
    source: { file: 'cluster.yaml', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } },
  };
}

/** The expected port of a generated Service as kube-proxy on node-1 computes it (local endpoints are node-1's). */
export function expectedOf(g: GenServicePort, family: IPFamily = 'IPv4'): ExpectedServicePort {
  const service = apiServiceOf(g, family);
  const frontends: ExpectedFrontend[] = [{ kind: 'clusterIP', address: g.clusterIP, port: g.port }];
  if (g.nodePort) frontends.push({ kind: 'nodePort', port: g.nodePort });
  for (const a of g.externalIPs ?? []) frontends.push({ kind: 'externalIP', address: a, port: g.port });
  for (const a of g.loadBalancerIPs ?? []) frontends.push({ kind: 'loadBalancer', address: a, port: g.port });
  if (g.healthCheckNodePort) frontends.push({ kind: 'healthCheckNodePort', port: g.healthCheckNodePort });
  const local = service.externalTrafficPolicy === 'Local' || service.internalTrafficPolicy === 'Local';
  const endpoints: ExpectedEndpoint[] = g.endpoints.map((e) => {
    const ready = e.ready !== false;
    const inLocal = ready && local && e.local === true;
    return {
      address: e.address,
      port: e.port,
      nodeName: e.local ? 'node-1' : 'node-2',
      ready,
      serving: ready,
      terminating: false,
      inCluster: ready,
      inLocal,
      ...(ready ? {} : { excludedBecause: 'not-ready' as const }),
      slice: { name: `${g.name}-abcde` },
    };
  });
  return {
    namespace: g.namespace,
    name: g.name,
    portName: g.portName,
    protocol: g.protocol.toUpperCase() as Protocol,
    family,
    frontends,
    endpoints,
    topologyApplied: false,
    ...(g.sessionAffinityTimeout ? { sessionAffinityTimeoutSeconds: g.sessionAffinityTimeout } : {}),
    externalTrafficPolicy: service.externalTrafficPolicy,
    internalTrafficPolicy: service.internalTrafficPolicy,
    loadBalancerSourceRanges: service.loadBalancerSourceRanges,
    ...(endpoints.some((e) => e.inCluster) ? {} : { noEndpointsReason: 'no EndpointSlice lists a ready endpoint' }),
    service,
  };
}

export function stateOf(services: GenServicePort[], family: IPFamily = 'IPv4'): ClusterState {
  return { services: services.map((g) => apiServiceOf(g, family)), endpointSlices: [], nodes: [], diagnostics: [] };
}
