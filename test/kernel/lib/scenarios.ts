// What the kernel tests send where: hand-made Services for each behaviour the issue names, and random
// Service sets from the dump generator. A scenario is one node (one dump, one topology); a probe is one kind of
// packet (origin, destination, protocol) sent many times.
import { randomServices, type GenServicePort } from '../../../tools/generate/iptables';
import type { Entry } from '../../../src/core/trace';
import { CLIENT_IP, EXTERNAL_CLIENT_IP, NODE_IP, NODE_UPLINK_IP, POD_GATEWAY, WORLD_IP, type Origin, type PodSpec, type SideClient } from './topology';

export type ProbeKind =
  /** N new connections / exchanges, each from a new source port: verdicts, endpoints, masquerade, frequencies. */
  | 'plain'
  /** Many client addresses, a few connections each: every client sticks to one endpoint (xt_recent). */
  | 'affinity'
  /** Session affinity seen from one source address: all connections go to the endpoint of the first. */
  | 'sticky'
  /** UDP datagrams that all come from one source port: one conntrack entry, so one endpoint. */
  | 'same-flow'
  /** More clients than xt_recent keeps (ip_list_tot, 100 by default): the oldest are forgotten. */
  | 'recent-capacity';

export interface Probe {
  name: string;
  kind: ProbeKind;
  origin: Origin;
  protocol: 'tcp' | 'udp';
  to: string;
  port: number;
  /** What the tracer is told. */
  entry: Entry;
  from: string;
  /**
   * The interfaces the packet really arrives on and leaves through: the trace's outcomes whose interface
   * conditions hold for them are the prediction (without it the trace must need no assumptions).
   */
  via?: Via;
  /** A process on the node whose source routing picks (`from`): its conntrack entries are checked too. */
  nodeSource?: boolean;
}

export interface Via {
  in: string;
  out: string;
}

export interface Scenario {
  /** Short tag for namespace names. */
  id: string;
  title: string;
  services: GenServicePort[];
  pods: PodSpec[];
  extraClientAddresses: string[];
  probes: Probe[];
  /** Clients through node interfaces of their own, and node routes (lib/topology.ts). */
  sideClients?: SideClient[];
  nodeRoutes?: string[];
  /** Rules put before kube-proxy's at the top of a chain of its dump (iptables-save form). */
  extraRules?: { table: string; chain: string; rules: string[] }[];
}

/** The dump with `extra` rules first in their chains (each chain must be declared in its table). */
export function withExtraRules(dump: string, extra: Scenario['extraRules'] = []): string {
  let out = dump;
  for (const { table, chain, rules } of extra) {
    const start = out.indexOf(`*${table}\n`);
    const end = out.indexOf('\nCOMMIT\n', start);
    if (start < 0 || end < 0 || !out.slice(start, end).includes(`\n:${chain} `)) throw new Error(`no chain ${table}/${chain} in the dump`);
    const first = out.indexOf(`\n-A ${chain} `, start);
    const at = first > 0 && first < end ? first : end;
    out = `${out.slice(0, at)}\n${rules.join('\n')}${out.slice(at)}`;
  }
  return out;
}

/** The ports the world namespace answers on: every Service port (a frontend port). */
export function outsidePorts(services: GenServicePort[]): { tcp: number[]; udp: number[] } {
  const tcp = new Set<number>();
  const udp = new Set<number>();
  for (const svc of services) {
    if (svc.protocol === 'tcp') tcp.add(svc.port);
    if (svc.protocol === 'udp') udp.add(svc.port);
  }
  return { tcp: [...tcp], udp: [...udp] };
}

/** One pod per endpoint address (ready or not, local or not), listening on every port any Service sends it. */
export function podsFor(services: GenServicePort[]): PodSpec[] {
  const byAddress = new Map<string, PodSpec>();
  for (const svc of services) {
    if (svc.protocol === 'sctp') continue;
    for (const ep of svc.endpoints) {
      let pod = byAddress.get(ep.address);
      if (!pod) byAddress.set(ep.address, (pod = { name: `pod-${ep.address}`, address: ep.address, tcp: [], udp: [] }));
      const list = svc.protocol === 'tcp' ? pod.tcp : pod.udp;
      if (!list.includes(ep.port)) list.push(ep.port);
    }
  }
  return [...byAddress.values()];
}

const client: Origin = { kind: 'client' };
const external: Origin = { kind: 'external' };
const node: Origin = { kind: 'node' };

export function fromPod(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `pod → ${svc.clusterIP}:${svc.port}`, kind: 'plain', origin: client, protocol, to: svc.clusterIP, port: svc.port, entry: 'pod', from: CLIENT_IP };
}
export function fromNode(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `node → ${svc.clusterIP}:${svc.port}`, kind: 'plain', origin: node, protocol, to: svc.clusterIP, port: svc.port, entry: 'node', from: NODE_IP };
}
export function externalToNodePort(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `external → node ${NODE_IP}:${svc.nodePort}`, kind: 'plain', origin: external, protocol, to: NODE_IP, port: svc.nodePort!, entry: 'external', from: EXTERNAL_CLIENT_IP };
}
export function podToNodePort(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `pod → node ${NODE_IP}:${svc.nodePort}`, kind: 'plain', origin: client, protocol, to: NODE_IP, port: svc.nodePort!, entry: 'pod', from: CLIENT_IP };
}
export function nodeToNodePort(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `node → own ${NODE_IP}:${svc.nodePort}`, kind: 'plain', origin: node, protocol, to: NODE_IP, port: svc.nodePort!, entry: 'node', from: NODE_IP };
}
export function nodeToLocalhostNodePort(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `node → 127.0.0.1:${svc.nodePort} (localhost NodePort)`, kind: 'plain', origin: node, protocol, to: '127.0.0.1', port: svc.nodePort!, entry: 'node', from: '127.0.0.1' };
}
export function hairpin(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  const self = svc.endpoints[0]!.address;
  return { name: `hairpin: endpoint ${self} → its own Service ${svc.clusterIP}:${svc.port}`, kind: 'plain', origin: { kind: 'pod', address: self }, protocol, to: svc.clusterIP, port: svc.port, entry: 'pod', from: self };
}
export function externalToClusterIP(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `external → ${svc.clusterIP}:${svc.port} (ClusterIP routed to the node)`, kind: 'plain', origin: external, protocol, to: svc.clusterIP, port: svc.port, entry: 'external', from: EXTERNAL_CLIENT_IP };
}
export function hairpinNodePort(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  const self = svc.endpoints[0]!.address;
  return { name: `hairpin: endpoint ${self} → node ${NODE_IP}:${svc.nodePort}`, kind: 'plain', origin: { kind: 'pod', address: self }, protocol, to: NODE_IP, port: svc.nodePort!, entry: 'pod', from: self };
}
export function podToGatewayNodePort(svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `pod → node's pod-side address ${POD_GATEWAY}:${svc.nodePort}`, kind: 'plain', origin: client, protocol, to: POD_GATEWAY, port: svc.nodePort!, entry: 'pod', from: CLIENT_IP };
}
export function nodeTo(address: string, what: string, svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `node → ${what} ${address}:${svc.port}`, kind: 'plain', origin: node, protocol, to: address, port: svc.port, entry: 'node', from: NODE_IP };
}
export function externalTo(address: string, what: string, svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `external → ${what} ${address}:${svc.port}`, kind: 'plain', origin: external, protocol, to: address, port: svc.port, entry: 'external', from: EXTERNAL_CLIENT_IP };
}
export function podTo(address: string, what: string, svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `pod → ${what} ${address}:${svc.port}`, kind: 'plain', origin: client, protocol, to: address, port: svc.port, entry: 'pod', from: CLIENT_IP };
}

// ---------------------------------------------------------------------------------------------------------
// Hand-made Services: every behaviour the issue names, each as a TCP and a UDP port of one Service.

/** Client addresses for the session affinity probe (one "pod" per address). */
export const AFFINITY_CLIENTS = Array.from({ length: 60 }, (_, i) => `10.128.2.${i + 1}`);
/** Client addresses for the xt_recent capacity probe: more than the kernel's default of 100 per list. */
export const CAPACITY_CLIENTS = Array.from({ length: 250 }, (_, i) => `10.128.${3 + Math.floor(i / 200)}.${(i % 200) + 1}`);

export interface HandService {
  name: string;
  clusterIP: string;
  endpoints: { address: string; local?: boolean; ready?: boolean }[];
  targetPort?: number;
  nodePort?: number;
  externalTrafficPolicy?: 'Local';
  internalTrafficPolicy?: 'Local';
  affinity?: number;
  loadBalancerIPs?: string[];
  loadBalancerSourceRanges?: string[];
  externalIPs?: string[];
}

export function handService(h: HandService): Record<'tcp' | 'udp', GenServicePort> {
  const make = (protocol: 'tcp' | 'udp'): GenServicePort => ({
    namespace: 'kernel',
    name: h.name,
    portName: protocol,
    protocol,
    clusterIP: h.clusterIP,
    port: 80,
    ...(h.nodePort ? { nodePort: h.nodePort } : {}),
    ...(h.externalTrafficPolicy ? { externalTrafficPolicy: h.externalTrafficPolicy } : {}),
    ...(h.internalTrafficPolicy ? { internalTrafficPolicy: h.internalTrafficPolicy } : {}),
    ...(h.affinity ? { sessionAffinityTimeout: h.affinity } : {}),
    ...(h.loadBalancerIPs ? { loadBalancerIPs: h.loadBalancerIPs } : {}),
    ...(h.loadBalancerSourceRanges ? { loadBalancerSourceRanges: h.loadBalancerSourceRanges } : {}),
    ...(h.externalIPs ? { externalIPs: h.externalIPs } : {}),
    endpoints: h.endpoints.map((e) => ({ address: e.address, port: h.targetPort ?? 8080, ...(e.local ? { local: true } : {}), ...(e.ready === false ? { ready: false } : {}) })),
  });
  return { tcp: make('tcp'), udp: make('udp') };
}

export const eps = (block: number, n: number, local: number[] = []) => Array.from({ length: n }, (_, i) => ({ address: `10.244.${block}.${i + 1}`, ...(local.includes(i) ? { local: true } : {}) }));

export function handScenario(): Scenario {
  const s = {
    one: handService({ name: 'one', clusterIP: '10.96.1.1', endpoints: eps(1, 1) }),
    two: handService({ name: 'two', clusterIP: '10.96.1.2', endpoints: eps(2, 2) }),
    three: handService({ name: 'three', clusterIP: '10.96.1.3', endpoints: eps(3, 3) }),
    five: handService({ name: 'five', clusterIP: '10.96.1.5', endpoints: eps(5, 5), targetPort: 9000 }),
    none: handService({ name: 'none', clusterIP: '10.96.1.6', endpoints: [], nodePort: 30006 }),
    affinity: handService({ name: 'affinity', clusterIP: '10.96.1.7', endpoints: eps(7, 3), affinity: 10800 }),
    itpLocal: handService({ name: 'itp-local', clusterIP: '10.96.1.8', endpoints: eps(8, 4, [0, 2]), internalTrafficPolicy: 'Local' }),
    itpNone: handService({ name: 'itp-no-local', clusterIP: '10.96.1.9', endpoints: eps(9, 2), internalTrafficPolicy: 'Local' }),
    etpLocal: handService({ name: 'etp-local', clusterIP: '10.96.1.10', endpoints: eps(10, 4, [0, 2]), nodePort: 30010, externalTrafficPolicy: 'Local' }),
    etpNone: handService({ name: 'etp-no-local', clusterIP: '10.96.1.11', endpoints: eps(11, 2), nodePort: 30011, externalTrafficPolicy: 'Local' }),
    nodePort: handService({ name: 'nodeport', clusterIP: '10.96.1.12', endpoints: eps(12, 3), nodePort: 30012 }),
    notReady: handService({ name: 'not-ready', clusterIP: '10.96.1.13', endpoints: [...eps(13, 3)].map((e, i) => (i === 1 ? { ...e, ready: false } : e)) }),
    capacity: handService({ name: 'recent-capacity', clusterIP: '10.96.1.14', endpoints: eps(14, 2), affinity: 10800 }),
  };
  const probes: Probe[] = [];
  for (const p of ['tcp', 'udp'] as const) {
    const v = (k: keyof typeof s) => s[k][p];
    probes.push(
      { ...fromPod(v('one'), p), name: `ClusterIP, 1 endpoint: ${fromPod(v('one'), p).name}` },
      { ...fromPod(v('two'), p), name: `ClusterIP, 2 endpoints: ${fromPod(v('two'), p).name}` },
      { ...fromPod(v('three'), p), name: `ClusterIP, 3 endpoints: ${fromPod(v('three'), p).name}` },
      { ...fromPod(v('five'), p), name: `ClusterIP, 5 endpoints (port 80 → 9000): ${fromPod(v('five'), p).name}` },
      { ...fromNode(v('three'), p), name: `from the node itself: ${fromNode(v('three'), p).name}` },
      { ...hairpin(v('three'), p), name: `${hairpin(v('three'), p).name}` },
      { ...externalToClusterIP(v('three'), p), name: `off-cluster source: ${externalToClusterIP(v('three'), p).name}` },
      { ...fromPod(v('none'), p), name: `no endpoints (REJECT): ${fromPod(v('none'), p).name}` },
      { ...fromNode(v('none'), p), name: `no endpoints (REJECT): ${fromNode(v('none'), p).name}` },
      { ...externalToNodePort(v('none'), p), name: `no endpoints (REJECT): ${externalToNodePort(v('none'), p).name}` },
      { ...nodeToLocalhostNodePort(v('none'), p), name: `no endpoints (REJECT): ${nodeToLocalhostNodePort(v('none'), p).name}` },
      { ...fromPod(v('affinity'), p), kind: 'affinity', name: `session affinity: ${AFFINITY_CLIENTS.length} clients → ${v('affinity').clusterIP}:80, 5 connections each` },
      { ...fromNode(v('affinity'), p), kind: 'sticky', name: `session affinity: ${fromNode(v('affinity'), p).name}, ${30} connections` },
      { ...fromPod(v('itpLocal'), p), name: `internalTrafficPolicy Local: ${fromPod(v('itpLocal'), p).name}` },
      { ...fromNode(v('itpLocal'), p), name: `internalTrafficPolicy Local: ${fromNode(v('itpLocal'), p).name}` },
      { ...fromPod(v('itpNone'), p), name: `internalTrafficPolicy Local, no local endpoint (DROP): ${fromPod(v('itpNone'), p).name}` },
      { ...fromNode(v('itpNone'), p), name: `internalTrafficPolicy Local, no local endpoint (DROP): ${fromNode(v('itpNone'), p).name}` },
      { ...externalToNodePort(v('etpLocal'), p), name: `externalTrafficPolicy Local: ${externalToNodePort(v('etpLocal'), p).name}` },
      { ...podToNodePort(v('etpLocal'), p), name: `externalTrafficPolicy Local: ${podToNodePort(v('etpLocal'), p).name}` },
      { ...nodeToNodePort(v('etpLocal'), p), name: `externalTrafficPolicy Local: ${nodeToNodePort(v('etpLocal'), p).name}` },
      { ...nodeToLocalhostNodePort(v('etpLocal'), p), name: `externalTrafficPolicy Local: ${nodeToLocalhostNodePort(v('etpLocal'), p).name}` },
      { ...fromPod(v('etpLocal'), p), name: `externalTrafficPolicy Local: ${fromPod(v('etpLocal'), p).name}` },
      { ...externalToNodePort(v('etpNone'), p), name: `externalTrafficPolicy Local, no local endpoint (DROP): ${externalToNodePort(v('etpNone'), p).name}` },
      { ...podToNodePort(v('etpNone'), p), name: `externalTrafficPolicy Local, no local endpoint: ${podToNodePort(v('etpNone'), p).name}` },
      { ...externalToNodePort(v('nodePort'), p), name: `NodePort: ${externalToNodePort(v('nodePort'), p).name}` },
      { ...podToNodePort(v('nodePort'), p), name: `NodePort: ${podToNodePort(v('nodePort'), p).name}` },
      { ...nodeToLocalhostNodePort(v('nodePort'), p), name: `NodePort: ${nodeToLocalhostNodePort(v('nodePort'), p).name}` },
      { ...podToGatewayNodePort(v('nodePort'), p), name: `NodePort: ${podToGatewayNodePort(v('nodePort'), p).name}` },
      { ...hairpinNodePort(v('nodePort'), p), name: `NodePort: ${hairpinNodePort(v('nodePort'), p).name}` },
      { ...fromPod(v('notReady'), p), name: `a not-ready endpoint is left out: ${fromPod(v('notReady'), p).name}` },
    );
    if (p === 'udp') probes.push({ ...fromPod(v('three'), p), kind: 'same-flow', name: `UDP conntrack: 40 datagrams from one source port → ${v('three').clusterIP}:80 stay on one endpoint` });
    if (p === 'tcp')
      probes.push({ ...fromPod(v('capacity'), p), kind: 'recent-capacity', name: `xt_recent keeps at most 100 clients per endpoint list: ${CAPACITY_CLIENTS.length} clients → ${v('capacity').clusterIP}:80` });
  }
  const services = Object.values(s).flatMap((x) => [x.tcp, x.udp]);
  return { id: 'hand', title: 'hand-made Services', services, pods: podsFor(services), extraClientAddresses: [...AFFINITY_CLIENTS, ...CAPACITY_CLIENTS], probes };
}

// ---------------------------------------------------------------------------------------------------------
// Random Service sets (the generator's randomServices): every TCP/UDP port probed from a pod; NodePorts,
// load-balancer IPs and external IPs from outside; some from the node itself.

export function randomScenario(seed: number, count: number, endpointsPerService: number): Scenario {
  const services = randomServices(count, endpointsPerService, seed);
  const probes: Probe[] = [];
  let anyAffinity = false;
  services.forEach((svc, i) => {
    if (svc.protocol === 'sctp') return; // in the dump (the kernel loads it), but Node cannot send SCTP
    const p = svc.protocol;
    const tag = `${svc.namespace}/${svc.name}${svc.portName ? ':' + svc.portName : ''}/${p}`;
    // With session affinity, one source always gets one endpoint: from a pod many client addresses are used,
    // from elsewhere (one source address) the probe checks that every connection sticks to the first one's endpoint.
    const affinity = svc.sessionAffinityTimeout !== undefined;
    anyAffinity ||= affinity;
    const add = (probe: Probe) => probes.push({ ...probe, kind: affinity ? 'sticky' : 'plain', name: `${tag}: ${probe.name}` });
    if (affinity)
      probes.push({ ...fromPod(svc, p), kind: 'affinity', name: `${tag}: session affinity (${svc.sessionAffinityTimeout} s): ${AFFINITY_CLIENTS.length} clients → ${svc.clusterIP}:${svc.port}, 5 connections each` });
    else add(fromPod(svc, p));
    if (i % 3 === 0) add(fromNode(svc, p));
    if (svc.nodePort) add(externalToNodePort(svc, p));
    if (svc.nodePort && i % 2 === 0) add(podToNodePort(svc, p));
    if (svc.nodePort && i % 4 === 1) add(nodeToLocalhostNodePort(svc, p));
    for (const ip of svc.loadBalancerIPs ?? []) {
      add(externalTo(ip, 'load balancer', svc, p));
      add(i % 2 === 0 ? podTo(ip, 'load balancer', svc, p) : nodeTo(ip, 'load balancer', svc, p));
    }
    for (const ip of svc.externalIPs ?? []) {
      add(externalTo(ip, 'external IP', svc, p));
      add(podTo(ip, 'external IP', svc, p));
    }
  });
  return { id: `s${seed}`, title: `randomServices(${count}, ${endpointsPerService}, seed ${seed})`, services, pods: podsFor(services), extraClientAddresses: anyAffinity ? AFFINITY_CLIENTS : [], probes };
}

// ---------------------------------------------------------------------------------------------------------
// Interface conditions and the node's own source addresses: clients entering through `wv0` (Weave-like) and
// `ens5` (an uplink-like name), one endpoint behind an interface named `weave`, rules that test `-i`/`-o`
// before kube-proxy's; node processes whose source is their route's (the uplink address, or the node's address
// inside the cluster CIDR).

export const SIDE_WEAVE: SideClient = { iface: 'wv0', address: '10.32.0.5' };
export const SIDE_UPLINK: SideClient = { iface: 'ens5', address: '192.0.2.10' };
/** The pod that the `ens5` DNAT sends its Service's traffic to instead (no Service has it as an endpoint). */
export const DNAT_ELSEWHERE = '10.244.21.1';
/** Routes of the node towards the Services below: the uplink address (masqueraded), or one inside the cluster CIDR (not). */
export const IFACE_UPLINK_SRC_ROUTE = '10.96.2.0/28';
export const IFACE_GATEWAY_SRC_ROUTE = '10.96.2.16/28';

export function ifaceServices() {
  return {
    dnat: handService({ name: 'iface-dnat', clusterIP: '10.96.2.1', endpoints: eps(20, 2) }),
    reject: handService({ name: 'iface-reject', clusterIP: '10.96.2.2', endpoints: eps(22, 2) }),
    weave: handService({ name: 'weave-out', clusterIP: '10.96.2.3', endpoints: eps(23, 1) }),
    prefix: handService({ name: 'iface-prefix', clusterIP: '10.96.2.4', endpoints: eps(24, 2) }),
    nodeSrc: handService({ name: 'node-source', clusterIP: '10.96.2.17', endpoints: eps(25, 2) }),
  };
}

/** The pods of the interface Services: the one of `weave-out` behind `weave`, and DNAT_ELSEWHERE. */
export function ifacePods(services: GenServicePort[]): PodSpec[] {
  const pods = podsFor(services).map((p) => (p.address.startsWith('10.244.23.') ? { ...p, iface: 'weave' } : p));
  return [...pods, { name: `pod-${DNAT_ELSEWHERE}`, address: DNAT_ELSEWHERE, tcp: [8080], udp: [8080] }];
}

/** The same probes for both suites: every interface Service from each way in, and from the node. */
export function ifaceProbes(s: ReturnType<typeof ifaceServices>): Probe[] {
  const probes: Probe[] = [];
  const ways: { origin: Origin; entry: Entry; from: string; in: string; what: string }[] = [
    { origin: { kind: 'side', iface: SIDE_WEAVE.iface }, entry: 'pod', from: SIDE_WEAVE.address, in: SIDE_WEAVE.iface, what: `pod on ${SIDE_WEAVE.iface}` },
    { origin: { kind: 'side', iface: SIDE_UPLINK.iface }, entry: 'external', from: SIDE_UPLINK.address, in: SIDE_UPLINK.iface, what: `off-cluster client on ${SIDE_UPLINK.iface}` },
    { origin: { kind: 'client' }, entry: 'pod', from: CLIENT_IP, in: 'vcli', what: 'pod on vcli' },
  ];
  for (const p of ['tcp', 'udp'] as const) {
    for (const key of ['dnat', 'reject', 'weave', 'prefix'] as const) {
      const svc = s[key][p];
      const out = key === 'weave' ? 'weave' : 'vp0';
      for (const w of ways) {
        probes.push({
          name: `${svc.name}: ${w.what} (${w.from}) → ${svc.clusterIP}:${svc.port}, leaving through ${out === 'weave' ? 'weave' : 'a vp interface'}`,
          kind: 'plain',
          origin: w.origin,
          protocol: p,
          to: svc.clusterIP,
          port: svc.port,
          entry: w.entry,
          from: w.from,
          via: { in: w.in, out },
        });
      }
      probes.push({
        ...fromNode(svc, p),
        from: NODE_UPLINK_IP,
        nodeSource: true,
        via: { in: 'lo', out },
        name: `${svc.name}: node → ${svc.clusterIP}:${svc.port} from its uplink address ${NODE_UPLINK_IP} (its route's source)`,
      });
    }
    const svc = s.nodeSrc[p];
    probes.push({
      ...fromNode(svc, p),
      from: POD_GATEWAY,
      nodeSource: true,
      via: { in: 'lo', out: 'vp0' },
      name: `${svc.name}: node → ${svc.clusterIP}:${svc.port} from ${POD_GATEWAY} (its route's source, inside the cluster CIDR: not masqueraded)`,
    });
  }
  return probes;
}

export const IFACE_NODE_ROUTES = [`route add ${IFACE_UPLINK_SRC_ROUTE} via ${WORLD_IP} dev eth1 src ${NODE_UPLINK_IP}`, `route add ${IFACE_GATEWAY_SRC_ROUTE} via ${WORLD_IP} dev eth1 src ${POD_GATEWAY}`];

/**
 * iptables: `ens5` gets another DNAT for iface-dnat; Weave's pattern on FORWARD (`-i wv0 -o weave` accepted,
 * everything else towards `weave` dropped); `wv0` rejected towards iface-reject's pods; `ens+` dropped towards
 * iface-prefix's.
 */
export function ifaceScenario(): Scenario {
  const s = ifaceServices();
  const services = Object.values(s).flatMap((x) => [x.tcp, x.udp]);
  const dnat = (p: string) => `-A PREROUTING -d 10.96.2.1/32 -i ens5 -p ${p} -m ${p} --dport 80 -j DNAT --to-destination ${DNAT_ELSEWHERE}:8080`;
  return {
    id: 'if',
    title: 'interface conditions and node source addresses',
    services,
    pods: ifacePods(services),
    extraClientAddresses: [],
    probes: ifaceProbes(s),
    sideClients: [SIDE_WEAVE, SIDE_UPLINK],
    nodeRoutes: IFACE_NODE_ROUTES,
    extraRules: [
      { table: 'nat', chain: 'PREROUTING', rules: [dnat('tcp'), dnat('udp')] },
      {
        table: 'filter',
        chain: 'FORWARD',
        rules: ['-A FORWARD -i wv0 -o weave -j ACCEPT', '-A FORWARD -o weave -j DROP', '-A FORWARD -d 10.244.22.0/24 -i wv0 -j REJECT --reject-with icmp-port-unreachable', '-A FORWARD -d 10.244.24.0/24 -i ens+ -j DROP'],
      },
    ],
  };
}
