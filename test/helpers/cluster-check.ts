// Snapshots made by the project's dump generators and the expected Service ports of the same generated Services,
// built by hand (what kube-proxy would compute for a node named node-1): the comparison is tested on real dumps
// of the three modes without the expected-dataplane computation.
import { generateIptablesDump, type GenServicePort } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';
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

/**
 * The generated Services as `kubectl get services,endpointslices -A -o json` prints them, with the two nodes
 * (`kubectl get nodes -o json`): node-1 (the dump's, with `nodeIP`) holds the local endpoints, node-2 the others.
 */
export function clusterListOf(services: GenServicePort[], nodeIP = NODE_IP.ipv4): unknown {
  const byName = new Map<string, GenServicePort[]>();
  for (const g of services) byName.set(`${g.namespace}/${g.name}`, [...(byName.get(`${g.namespace}/${g.name}`) ?? []), g]);
  const items: unknown[] = [];
  for (const ports of byName.values()) {
    const g = ports[0];
    const family = g.clusterIP.includes(':') ? 'IPv6' : 'IPv4';
    const api = apiServiceOf(g, family);
    items.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: g.name, namespace: g.namespace },
      spec: {
        type: api.type,
        clusterIP: g.clusterIP,
        clusterIPs: [g.clusterIP],
        ipFamilies: [family],
        ports: ports.map((p) => ({ name: p.portName || undefined, protocol: p.protocol.toUpperCase(), port: p.port, targetPort: p.endpoints[0]?.port ?? p.port, ...(p.nodePort ? { nodePort: p.nodePort } : {}) })),
        selector: { app: g.name },
        ...(g.externalIPs ? { externalIPs: g.externalIPs } : {}),
        ...(g.loadBalancerSourceRanges ? { loadBalancerSourceRanges: g.loadBalancerSourceRanges } : {}),
        ...(api.type !== 'ClusterIP' || g.externalIPs ? { externalTrafficPolicy: api.externalTrafficPolicy } : {}),
        internalTrafficPolicy: api.internalTrafficPolicy,
        ...(g.healthCheckNodePort ? { healthCheckNodePort: g.healthCheckNodePort } : {}),
        sessionAffinity: api.sessionAffinity,
        ...(g.sessionAffinityTimeout ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: g.sessionAffinityTimeout } } } : {}),
      },
      status: { loadBalancer: g.loadBalancerIPs ? { ingress: g.loadBalancerIPs.map((ip) => ({ ip })) } : {} },
    });
    items.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${g.name}-abcde`, namespace: g.namespace, labels: { 'kubernetes.io/service-name': g.name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
      addressType: family,
      // Every port's endpoints share their addresses (randomServices); the ports' target ports may differ.
      ports: ports.map((p) => ({ name: p.portName, protocol: p.protocol.toUpperCase(), port: p.endpoints[0]?.port ?? p.port })),
      endpoints: g.endpoints.map((e) => ({
        addresses: [e.address],
        conditions: { ready: e.ready !== false, serving: e.ready !== false, terminating: false },
        nodeName: e.local ? 'node-1' : 'node-2',
      })),
    });
  }
  for (const [name, ip] of [
    ['node-1', nodeIP],
    ['node-2', nodeIP.includes(':') ? 'fd00::11' : '192.168.0.11'],
  ]) {
    items.push({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: {} }, status: { addresses: [{ type: 'InternalIP', address: ip }] } });
  }
  return { apiVersion: 'v1', kind: 'List', items };
}

/**
 * The same Services in IPv6, one ClusterIP per Service (all its ports) and one address per pod, as a
 * cluster file needs them (test/helpers/ipv6.ts gives each port its own); no external addresses.
 */
export function ipv6Of(services: GenServicePort[]): GenServicePort[] {
  const clusterIPs = new Map<string, string>();
  const pods = new Map<string, string>();
  const v6 = (map: Map<string, string>, key: string, prefix: string) => {
    if (!map.has(key)) map.set(key, `${prefix}${(map.size + 1).toString(16)}`);
    return map.get(key)!;
  };
  return services.map((s) => ({
    ...s,
    clusterIP: v6(clusterIPs, `${s.namespace}/${s.name}`, 'fd00:96::'),
    externalIPs: undefined,
    loadBalancerIPs: undefined,
    loadBalancerSourceRanges: undefined,
    endpoints: s.endpoints.map((e) => ({ ...e, address: v6(pods, e.address, 'fd00:10::') })),
  }));
}

/** A Service port shop/web:http (TCP 80 on 10.96.0.20), one endpoint on node-1 and one on node-2, changed by `over`. */
export const webPort = (over: Partial<GenServicePort> = {}): GenServicePort => ({
  namespace: 'shop',
  name: 'web',
  portName: 'http',
  protocol: 'tcp',
  clusterIP: '10.96.0.20',
  port: 80,
  endpoints: [
    { address: '10.244.1.5', port: 8080, local: true },
    { address: '10.244.2.6', port: 8080 },
  ],
  ...over,
});
