// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// The cluster behind a generated node: Services with their pods, Nodes and kube-proxy's ConfigMap, from which
// the generator derives what kube-proxy programs on one node (GenServicePort[], the dump generators' input)
// and writes the API objects a user would save next to the dump (cluster-objects.ts).
//
// The derivation is deliberately simple and independent of src/core/cluster (it is that code's ground truth):
// kube-proxy's CategorizeEndpoints and topologyModeFromHints (pkg/proxy/topology.go) for the endpoints,
// ExternallyAccessible / UsesClusterEndpoints / UsesLocalEndpoints (pkg/proxy/service.go) for the policies.
import { canonicalIP, familyOf, parseCIDR, formatIP, type Family } from './address';
import { mulberry32, randomServices, type GenEndpoint, type GenServicePort } from './iptables';
import { ipv6Variant } from './nft';

export type ApiProtocol = 'TCP' | 'UDP' | 'SCTP';
export type ProxyMode = 'iptables' | 'nftables' | 'ipvs';

export interface GenPod {
  name: string;
  nodeName: string;
  /** One address per IP family the pod has. */
  addresses: string[];
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  /** What the EndpointSlice controller wrote for topology (trafficDistribution or topology-mode Auto). */
  hints?: { forZones?: string[]; forNodes?: string[] };
}

export interface GenApiPort {
  /** "" for a Service's only, unnamed port. */
  name: string;
  protocol: ApiProtocol;
  port: number;
  targetPort: number;
  nodePort?: number;
}

/** The Service as the API has it (the fields before `type` mean what they mean in the checker's ApiService). */
export interface GenService {
  namespace: string;
  name: string;
  externalIPs: string[];
  /** `status.loadBalancer.ingress[].ip`. */
  loadBalancerIPs: string[];
  loadBalancerSourceRanges: string[];
  externalTrafficPolicy: 'Cluster' | 'Local';
  internalTrafficPolicy: 'Cluster' | 'Local';
  healthCheckNodePort?: number;
  /** `spec.trafficDistribution`: `PreferClose`, `PreferSameZone`, `PreferSameNode`. */
  trafficDistribution?: string;
  type: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';
  /** `['None']` for a headless Service, `[]` for ExternalName; dual-stack: one per family, primary first. */
  clusterIPs: string[];
  externalName?: string;
  ports: GenApiPort[];
  /** ClientIP session affinity with this timeout when set. */
  sessionAffinityTimeout?: number;
  /** The `service.kubernetes.io/topology-mode` annotation. */
  topologyMode?: string;
  pods: GenPod[];
}

export interface GenNode {
  name: string;
  internalIPs: string[];
  zone?: string;
  podCIDRs: string[];
}

export interface GenCluster {
  services: GenService[];
  nodes: GenNode[];
  /** The kube-proxy ConfigMap; absent: not written. */
  proxy?: { mode: string; clusterCIDR: string };
}

// ---------------------------------------------------------------------------------------------------------
// What kube-proxy programs on one node

/** The endpoints kube-proxy uses for one Service port and family on one node (CategorizeEndpoints). */
export interface PortView {
  /** The Service's pods that have an address of the family. */
  pods: GenPod[];
  usesCluster: boolean;
  usesLocal: boolean;
  cluster: GenPod[];
  local: GenPod[];
  /** Some ready or serving-terminating endpoint anywhere: no REJECT. */
  hasAny: boolean;
  /** Topology hints narrowed the cluster endpoints: some ready endpoint is left out on this node. */
  filteredByTopology: boolean;
}

export const protoLower = (p: ApiProtocol) => p.toLowerCase() as GenServicePort['protocol'];
const ofFamily = (list: readonly string[], family: Family) => list.filter((a) => a !== 'None' && familyOf(a) === family);
export const podAddress = (pod: GenPod, family: Family) => pod.addresses.find((a) => familyOf(a) === family);

/** The Service's IP families, primary first; a headless Service's are its pods'. */
export function familiesOf(svc: GenService): Family[] {
  const from = svc.clusterIPs[0] === 'None' ? (svc.pods[0]?.addresses ?? []) : svc.clusterIPs;
  const out = [...new Set(from.map((a) => familyOf(a)!))];
  return out.length ? out : ['ipv4'];
}

/** The ClusterIP of `family`, or undefined when the Service has none (other family, headless, ExternalName). */
export function clusterIPOf(svc: GenService, family: Family): string | undefined {
  return svc.type === 'ExternalName' ? undefined : ofFamily(svc.clusterIPs, family)[0];
}

function externallyAccessible(svc: GenService, port: GenApiPort, family: Family): boolean {
  return port.nodePort !== undefined || ofFamily(svc.loadBalancerIPs, family).length > 0 || ofFamily(svc.externalIPs, family).length > 0;
}

/** topologyModeFromHints: PreferSameNode, PreferSameZone or "" (no topology). */
function topologyMode(pods: GenPod[], node: GenNode): string {
  const ready = pods.filter((p) => p.ready);
  if (ready.length === 0) return '';
  if (ready.every((p) => p.hints?.forNodes?.length) && ready.some((p) => p.hints!.forNodes!.includes(node.name))) return 'PreferSameNode';
  if (ready.every((p) => p.hints?.forZones?.length) && node.zone !== undefined && ready.some((p) => p.hints!.forZones!.includes(node.zone!))) return 'PreferSameZone';
  return '';
}

function availableForTopology(pod: GenPod, mode: string, node: GenNode): boolean {
  if (mode === 'PreferSameNode') return pod.hints?.forNodes?.includes(node.name) === true;
  if (mode === 'PreferSameZone') return node.zone !== undefined && pod.hints?.forZones?.includes(node.zone) === true;
  return true;
}

export function portView(svc: GenService, port: GenApiPort, family: Family, node: GenNode): PortView {
  const pods = svc.pods.filter((p) => podAddress(p, family) !== undefined);
  const external = externallyAccessible(svc, port, family);
  // UsesClusterEndpoints (pkg/proxy/serviceport.go): any external access needs them, even with both policies
  // Local, for the short circuit of traffic from this node's pods.
  const usesCluster = svc.internalTrafficPolicy === 'Cluster' || external;
  const usesLocal = svc.internalTrafficPolicy === 'Local' || (external && svc.externalTrafficPolicy === 'Local');
  const servingTerminating = (p: GenPod) => !p.ready && p.serving && p.terminating;
  const mode = usesCluster ? topologyMode(pods, node) : '';
  let cluster: GenPod[] = [];
  if (usesCluster) {
    cluster = pods.filter((p) => p.ready && availableForTopology(p, mode, node));
    if (cluster.length === 0) cluster = pods.filter(servingTerminating);
  }
  const mine = pods.filter((p) => p.nodeName === node.name);
  let local: GenPod[] = [];
  if (usesLocal) local = mine.some((p) => p.ready) ? mine.filter((p) => p.ready) : mine.filter(servingTerminating);
  const hasAny = pods.some((p) => p.ready || servingTerminating(p));
  const filteredByTopology = usesCluster && mode !== '' && pods.some((p) => p.ready && !availableForTopology(p, mode, node));
  return { pods, usesCluster, usesLocal, cluster, local, hasAny, filteredByTopology };
}

/**
 * The dump generators' endpoint list for a view: they use every endpoint given for the cluster policy and
 * those marked local for the local one, so the two sets must nest that way (the random and sample clusters
 * are built so that they do); anything else throws rather than write a dump kube-proxy would not.
 */
function genEndpoints(view: PortView, family: Family, targetPort: number, node: GenNode): GenEndpoint[] {
  const isLocal = (p: GenPod) => p.nodeName === node.name;
  const out = new Map<GenPod, boolean>();
  for (const p of view.cluster) out.set(p, isLocal(p));
  // Local policy only: endpoints elsewhere still decide between DROP ("no local endpoints") and REJECT.
  if (!view.usesCluster) for (const p of view.pods) if (!isLocal(p) && (p.ready || (p.serving && p.terminating))) out.set(p, false);
  for (const p of view.local) out.set(p, true);
  if (view.usesCluster && view.usesLocal) {
    const localOfCluster = view.cluster.filter(isLocal);
    if (localOfCluster.length !== view.local.length || !localOfCluster.every((p) => view.local.includes(p))) {
      throw new Error('the local endpoints are not the local part of the cluster endpoints: the dump generators cannot write that');
    }
  }
  return [...out].map(([p, local]) => ({ address: podAddress(p, family)!, port: targetPort, ...(local ? { local: true } : {}) }));
}

function nodeNamed(cluster: GenCluster, nodeName: string): GenNode {
  const node = cluster.nodes.find((n) => n.name === nodeName);
  if (!node) throw new Error(`no node named ${nodeName}`);
  return node;
}

/** Whether kube-proxy programs the Service at all (not headless, not ExternalName, a ClusterIP of `family`). */
export function programmed(svc: GenService, family: Family): boolean {
  return clusterIPOf(svc, family) !== undefined;
}

/** What kube-proxy on `nodeName` programs for `family`: the input of the dump generators. */
export function servicePortsForNode(cluster: GenCluster, nodeName: string, family: Family): GenServicePort[] {
  const node = nodeNamed(cluster, nodeName);
  const out: GenServicePort[] = [];
  for (const svc of cluster.services) {
    const clusterIP = clusterIPOf(svc, family);
    if (clusterIP === undefined) continue;
    for (const port of svc.ports) {
      const view = portView(svc, port, family, node);
      out.push(genServicePort(svc, port, family, clusterIP, genEndpoints(view, family, port.targetPort, node)));
    }
  }
  return out;
}

function genServicePort(svc: GenService, port: GenApiPort, family: Family, clusterIP: string, endpoints: GenEndpoint[]): GenServicePort {
  const externalIPs = ofFamily(svc.externalIPs, family);
  const lbIPs = ofFamily(svc.loadBalancerIPs, family);
  const ranges = svc.loadBalancerSourceRanges.filter((r) => familyOf(r) === family);
  return {
    namespace: svc.namespace,
    name: svc.name,
    portName: port.name,
    protocol: protoLower(port.protocol),
    clusterIP,
    port: port.port,
    ...(port.nodePort !== undefined ? { nodePort: port.nodePort } : {}),
    ...(externalIPs.length ? { externalIPs } : {}),
    ...(lbIPs.length ? { loadBalancerIPs: lbIPs } : {}),
    ...(ranges.length && lbIPs.length ? { loadBalancerSourceRanges: ranges } : {}),
    ...(svc.externalTrafficPolicy === 'Local' ? { externalTrafficPolicy: 'Local' as const } : {}),
    ...(svc.internalTrafficPolicy === 'Local' ? { internalTrafficPolicy: 'Local' as const } : {}),
    ...(svc.sessionAffinityTimeout !== undefined ? { sessionAffinityTimeout: svc.sessionAffinityTimeout } : {}),
    ...(svc.healthCheckNodePort !== undefined && svc.externalTrafficPolicy === 'Local' ? { healthCheckNodePort: svc.healthCheckNodePort } : {}),
    endpoints,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Building clusters

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** Pod names as a Deployment's ReplicaSet makes them: `<service>-<10 chars>-<5 chars>`. */
export class PodNamer {
  constructor(private readonly rnd: () => number) {}
  private chars(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += NAME_CHARS[Math.floor(this.rnd() * NAME_CHARS.length)];
    return s;
  }
  replicaSet(service: string): string {
    return `${service}-${this.chars(10)}`;
  }
  pod(replicaSet: string): string {
    return `${replicaSet}-${this.chars(5)}`;
  }
}

/** Hands out pod addresses from each node's podCIDR, in order (network and gateway addresses skipped). */
export class PodAddresses {
  private readonly next = new Map<string, number>();
  allocate(node: GenNode, family: Family): string {
    const cidr = node.podCIDRs.find((c) => familyOf(c) === family);
    if (!cidr) throw new Error(`node ${node.name} has no ${family} podCIDR`);
    const key = `${node.name}/${family}`;
    const n = this.next.get(key) ?? 2;
    const { bytes, len } = parseCIDR(cidr);
    if (n >= 2 ** Math.min(30, bytes.length * 8 - len) - 1) throw new Error(`node ${node.name}'s podCIDR ${cidr} is full`);
    this.next.set(key, n + 1);
    const out = [...bytes];
    for (let i = out.length - 1, v = n; i >= 0 && v > 0; i--, v = Math.floor(v / 256)) out[i] = out[i]! | (v % 256);
    return formatIP(out);
  }
}

export const CLUSTER_CIDR: Record<Family, string> = { ipv4: '10.244.0.0/14', ipv6: 'fd00:10::/48' };
const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-a'];
/** The node a dump is generated for in random clusters. */
export const THIS_NODE = 'node-1';

const NODE_IPS: Record<Family, (i: number) => string> = { ipv4: (i) => `192.168.1.${11 + i}`, ipv6: (i) => canonicalIP(`fd00:1::${11 + i}`) };
const POD_CIDRS: Record<Family, (i: number) => string> = { ipv4: (i) => `10.${244 + i}.0.0/16`, ipv6: (i) => `fd00:10:0:${i + 1}::/64` };

/** Four nodes in three zones; node-1 (zone-a) is the one whose dump is generated, at `nodeIPs` (one per family). */
export function randomNodes(families: Family[], nodeIPs: string[]): GenNode[] {
  return ZONES.map((zone, i) => ({
    name: `node-${i + 1}`,
    internalIPs: families.map((f, k) => (i === 0 ? canonicalIP(nodeIPs[k]!) : NODE_IPS[f](i))),
    zone,
    podCIDRs: families.map((f) => POD_CIDRS[f](i)),
  }));
}

export interface RandomClusterOptions {
  /** Service ports, as randomServices counts them. */
  services: number;
  endpoints: number;
  seed: number;
  family: Family;
  /** node-1's InternalIP (the address the dump shows for NodePorts). */
  nodeIP: string;
  mode: ProxyMode;
  /**
   * Every Service and pod in both families too (PreferDualStack, `family` first): the other family's
   * addresses are ipv6Variant's (or the IPv4 ones), node-1's other InternalIP `otherNodeIP`.
   */
  dualStack?: { otherNodeIP: string };
}

/**
 * A random cluster whose node-1 dump is randomServices-like: the same shapes (ClusterIP, NodePort,
 * LoadBalancer with source ranges, Local policies, affinity), each Service's pods spread over four nodes in
 * three zones (randomServices' "local" endpoints on node-1), ~5% of pods not ready (half of those
 * terminating but still serving, where a Service does not also use Local endpoints), ~10% of the
 * Cluster-policy Services with zone hints (trafficDistribution PreferClose or topology-mode Auto), and
 * ~2% headless Services (which kube-proxy skips). Same options, same cluster.
 */
export function randomCluster(opts: RandomClusterOptions): GenCluster {
  const rnd = mulberry32(opts.seed ^ 0x5eed);
  const ports = randomServices(opts.services, opts.endpoints, opts.seed);
  const other: Family = opts.family === 'ipv4' ? 'ipv6' : 'ipv4';
  const families: Family[] = opts.dualStack ? [opts.family, other] : [opts.family];
  const byFamily = { ipv4: ports, ipv6: ipv6Variant(ports) };
  const nodes = randomNodes(families, opts.dualStack ? [opts.nodeIP, opts.dualStack.otherNodeIP] : [opts.nodeIP]);
  const place = placeRandomly(nodes, families, rnd);
  const services = servicesFromPorts(byFamily[opts.family], place, new PodNamer(rnd));
  if (opts.dualStack) addFamily(services, byFamily[other]);
  for (const svc of services) decorate(svc, nodes, rnd);
  addHeadless(services, place, rnd);
  return { services, nodes, proxy: { mode: opts.mode, clusterCIDR: families.map((f) => CLUSTER_CIDR[f]).join(',') } };
}

/** Where a pod of randomServices (known by its address there) runs, and its addresses in the cluster. */
type Place = (address: string, local: boolean) => { nodeName: string; addresses: string[] };

function placeRandomly(nodes: GenNode[], families: Family[], rnd: () => number): Place {
  const allocator = new PodAddresses();
  const placed = new Map<string, { nodeName: string; addresses: string[] }>();
  return (address, local) => {
    let p = placed.get(address);
    if (!p) {
      const node = local ? nodes[0]! : nodes[1 + Math.floor(rnd() * (nodes.length - 1))]!;
      p = { nodeName: node.name, addresses: families.map((f) => allocator.allocate(node, f)) };
      placed.set(address, p);
    }
    return p;
  };
}

/** Groups service ports into Services (consecutive entries with the same namespace/name) with their pods. */
export function servicesFromPorts(list: GenServicePort[], place: Place, namer: PodNamer): GenService[] {
  const out: GenService[] = [];
  for (const sp of list) {
    let svc = out[out.length - 1];
    if (!svc || svc.namespace !== sp.namespace || svc.name !== sp.name) {
      svc = serviceOf(sp, place, namer);
      out.push(svc);
    }
    svc.ports.push({ name: sp.portName, protocol: sp.protocol.toUpperCase() as ApiProtocol, port: sp.port, targetPort: sp.endpoints[0]?.port ?? sp.port, ...(sp.nodePort !== undefined ? { nodePort: sp.nodePort } : {}) });
  }
  return out;
}

function serviceOf(sp: GenServicePort, place: Place, namer: PodNamer): GenService {
  const lb = (sp.loadBalancerIPs ?? []).length > 0;
  const rs = namer.replicaSet(sp.name);
  return {
    namespace: sp.namespace,
    name: sp.name,
    type: lb ? 'LoadBalancer' : sp.nodePort !== undefined ? 'NodePort' : 'ClusterIP',
    clusterIPs: [sp.clusterIP],
    ports: [],
    externalIPs: [...(sp.externalIPs ?? [])],
    loadBalancerIPs: [...(sp.loadBalancerIPs ?? [])],
    loadBalancerSourceRanges: [...(sp.loadBalancerSourceRanges ?? [])],
    externalTrafficPolicy: sp.externalTrafficPolicy ?? 'Cluster',
    internalTrafficPolicy: sp.internalTrafficPolicy ?? 'Cluster',
    ...(sp.healthCheckNodePort !== undefined ? { healthCheckNodePort: sp.healthCheckNodePort } : {}),
    ...(sp.sessionAffinityTimeout !== undefined ? { sessionAffinityTimeout: sp.sessionAffinityTimeout } : {}),
    pods: sp.endpoints.map((e) => {
      const at = place(e.address, e.local === true);
      const ready = e.ready !== false;
      return { name: namer.pod(rs), nodeName: at.nodeName, addresses: at.addresses, ready, serving: ready, terminating: false };
    }),
  };
}

/** The second family's frontends from the same randomServices list (its ports in the same order). */
function addFamily(services: GenService[], list: GenServicePort[]): void {
  let i = -1;
  let last = '';
  for (const sp of list) {
    const key = `${sp.namespace}/${sp.name}`;
    if (key === last) continue;
    last = key;
    const svc = services[++i]!;
    svc.clusterIPs.push(sp.clusterIP);
    svc.externalIPs.push(...(sp.externalIPs ?? []));
    svc.loadBalancerIPs.push(...(sp.loadBalancerIPs ?? []));
    svc.loadBalancerSourceRanges.push(...(sp.loadBalancerSourceRanges ?? []));
  }
}

const usesLocalPolicy = (svc: GenService) => svc.externalTrafficPolicy === 'Local' || svc.internalTrafficPolicy === 'Local';

/** Terminating pods and zone hints, only where the dump generators can express kube-proxy's choice. */
function decorate(svc: GenService, nodes: GenNode[], rnd: () => number): void {
  const zoneOf = (p: GenPod) => nodes.find((n) => n.name === p.nodeName)?.zone;
  for (const p of svc.pods) {
    if (!p.ready && !usesLocalPolicy(svc) && rnd() < 0.5) Object.assign(p, { serving: true, terminating: true });
  }
  if (usesLocalPolicy(svc) || svc.pods.length < 3 || rnd() >= 0.1) return;
  if (rnd() < 0.5) svc.trafficDistribution = 'PreferClose';
  else svc.topologyMode = 'Auto';
  for (const p of svc.pods) p.hints = { forZones: [zoneOf(p)!] };
}

function addHeadless(services: GenService[], place: Place, rnd: () => number): void {
  const count = Math.floor(services.length / 50);
  const namer = new PodNamer(rnd);
  for (let i = 0; i < count; i++) {
    const at = services[Math.floor(rnd() * services.length)]!;
    const name = `${at.name}-headless`;
    if (services.some((s) => s.namespace === at.namespace && s.name === name)) continue;
    const rs = namer.replicaSet(name);
    const pods = [0, 1].map((k) => {
      const where = place(`headless/${at.namespace}/${name}/${k}`, k === 0);
      return { name: namer.pod(rs), nodeName: where.nodeName, addresses: where.addresses, ready: true, serving: true, terminating: false };
    });
    services.splice(services.indexOf(at) + 1, 0, {
      namespace: at.namespace,
      name,
      type: 'ClusterIP',
      clusterIPs: ['None'],
      ports: [{ name: 'tcp', protocol: 'TCP', port: 5432, targetPort: 5432 }],
      externalIPs: [],
      loadBalancerIPs: [],
      loadBalancerSourceRanges: [],
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      pods,
    });
  }
}
