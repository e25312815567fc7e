// What the nftables kernel tests send where (nft.test.ts): hand-made Services for each behaviour of kube-proxy's
// nftables mode, a node with `--nodeport-addresses` unset (every local address but localhost), and the
// generator's random Service sets. A scenario is one node (one dump, loaded in one of nft's forms); a probe is
// one kind of packet sent many times.
import type { GenServicePort, NftGenOptions } from '../../../tools/generate/nft';
import type { NftLoadForm } from './nft';
import {
  AFFINITY_CLIENTS,
  CAPACITY_CLIENTS,
  eps,
  externalTo,
  externalToClusterIP,
  externalToNodePort,
  fromNode,
  fromPod,
  hairpin,
  hairpinNodePort,
  handService,
  IFACE_NODE_ROUTES,
  ifacePods,
  ifaceProbes,
  ifaceServices,
  nodeToLocalhostNodePort,
  SIDE_UPLINK,
  SIDE_WEAVE,
  nodeTo,
  nodeToNodePort,
  outsidePorts,
  podsFor,
  podTo,
  podToNodePort,
  randomScenario,
  type Probe,
  type ProbeKind,
} from './scenarios';
import { CLIENT_IP, EXTERNAL_CLIENT_IP, NODE_UPLINK_IP, POD_GATEWAY, type Origin, type SideClient } from './topology';

export type NftProbeKind =
  | Exclude<ProbeKind, 'recent-capacity'>
  /** 250 clients to a 2-endpoint affinity Service: every one is remembered (no xt_recent-like limit of 100). */
  | 'set-capacity'
  /** An affinity Service with a short timeout: the sets empty themselves, returning clients choose afresh. */
  | 'affinity-timeout';

export interface NftProbe extends Omit<Probe, 'kind'> {
  kind: NftProbeKind;
}

export interface NftScenario {
  /** Short tag for namespace names. */
  id: string;
  title: string;
  services: GenServicePort[];
  /** How the dump is given to nft. */
  load: NftLoadForm;
  nodePortAddresses: 'primary' | 'all';
  /** More generator options of this node (--masquerade-all, the older base-chain layout). */
  options?: Pick<NftGenOptions, 'masqueradeAll' | 'baseChains'>;
  pods: ReturnType<typeof podsFor>;
  extraClientAddresses: string[];
  /** Ports the world namespace answers on. */
  outside: { tcp: number[]; udp: number[] };
  /** Ports the node itself answers on (its NodePorts: reached when nothing DNATs them). */
  nodeListener: { tcp: number[]; udp: number[] };
  probes: NftProbe[];
  /** Clients through node interfaces of their own, and node routes (lib/topology.ts). */
  sideClients?: SideClient[];
  nodeRoutes?: string[];
  /** A table of other rules loaded after kube-proxy's (`nft -f`), and its name. */
  extraTable?: { name: string; text: string };
}

/** Client addresses of the affinity-timeout probe (besides AFFINITY_CLIENTS and CAPACITY_CLIENTS). */
export const TIMEOUT_CLIENTS = Array.from({ length: 40 }, (_, i) => `10.128.6.${i + 1}`);
/** The affinity timeout of the affinity-timeout probe's Service, seconds. */
export const SHORT_AFFINITY_S = 3;
/** A port no Service of the hand scenario has (its ClusterIPs reject it); the world namespace answers on it. */
export const WRONG_PORT = 81;
/** An address in the ServiceCIDR (10.96.0.0/12) that no Service has (dropped); the world namespace owns it. */
export const UNALLOCATED_CLUSTER_IP = '10.96.200.1';

const client: Origin = { kind: 'client' };
const external: Origin = { kind: 'external' };

function nodePortsOf(services: GenServicePort[]): { tcp: number[]; udp: number[] } {
  const tcp = new Set<number>();
  const udp = new Set<number>();
  for (const s of services) {
    if (!s.nodePort) continue;
    if (s.protocol === 'tcp') tcp.add(s.nodePort);
    if (s.protocol === 'udp') udp.add(s.nodePort);
  }
  return { tcp: [...tcp], udp: [...udp] };
}

function withExtraOutside(services: GenServicePort[]): { tcp: number[]; udp: number[] } {
  const o = outsidePorts(services);
  return { tcp: [...o.tcp, WRONG_PORT], udp: [...o.udp, WRONG_PORT] };
}

function podToNodeAddress(address: string, what: string, svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `pod → ${what} ${address}:${svc.nodePort}`, kind: 'plain', origin: client, protocol, to: address, port: svc.nodePort!, entry: 'pod', from: CLIENT_IP };
}
function externalToNodeAddress(address: string, what: string, svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  return { name: `external → ${what} ${address}:${svc.nodePort}`, kind: 'plain', origin: external, protocol, to: address, port: svc.nodePort!, entry: 'external', from: EXTERNAL_CLIENT_IP };
}
function hairpinVia(address: string, svc: GenServicePort, protocol: 'tcp' | 'udp'): Probe {
  const self = svc.endpoints[0]!.address;
  return { name: `hairpin: endpoint ${self} → node ${address}:${svc.nodePort}`, kind: 'plain', origin: { kind: 'pod', address: self }, protocol, to: address, port: svc.nodePort!, entry: 'pod', from: self };
}
function toPort(base: Probe, port: number, what: string): NftProbe {
  return { ...base, kind: 'plain', port, name: `${what}: ${base.name.replace(/:\d+$/, `:${port}`)}` };
}
function toAddress(base: Probe, address: string, what: string): NftProbe {
  return { ...base, kind: 'plain', to: address, name: `${what}: ${base.name.replace(/\d+\.\d+\.\d+\.\d+:/, `${address}:`)}` };
}
/** The helpers of lib/scenarios.ts make plain probes. */
const named = (probe: Probe, what: string): NftProbe => ({ ...probe, kind: 'plain', name: `${what}: ${probe.name}` });

// ---------------------------------------------------------------------------------------------------------
// The node with kube-proxy's default --nodeport-addresses of nftables mode ("primary": NodePorts on the node's
// primary address only, the `nodeport-ips` set), loaded as kube-proxy loads it (its transaction).

export function handNftScenario(): NftScenario {
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
    capacity: handService({ name: 'set-capacity', clusterIP: '10.96.1.14', endpoints: eps(14, 2), affinity: 10800 }),
    short: handService({ name: 'short-affinity', clusterIP: '10.96.1.15', endpoints: eps(15, 2), affinity: SHORT_AFFINITY_S }),
    // loadBalancerSourceRanges: the external client (203.0.113.99) is inside 203.0.113.0/25, so is the node
    // (203.0.113.1, which adds the LB IP itself to the allowed sources); pods are not.
    lbAllowed: handService({ name: 'lb-allowed', clusterIP: '10.96.1.16', endpoints: eps(16, 2), nodePort: 30016, loadBalancerIPs: ['192.168.100.201'], loadBalancerSourceRanges: ['203.0.113.0/25'] }),
    lbDenied: handService({ name: 'lb-denied', clusterIP: '10.96.1.17', endpoints: eps(17, 2), nodePort: 30017, loadBalancerIPs: ['192.168.100.202'], loadBalancerSourceRanges: ['198.51.100.0/24'] }),
    extIP: handService({ name: 'external-ip', clusterIP: '10.96.1.18', endpoints: eps(18, 2), externalIPs: ['198.18.200.1'] }),
  };
  const probes: NftProbe[] = [];
  for (const p of ['tcp', 'udp'] as const) {
    const v = (k: keyof typeof s) => s[k][p];
    probes.push(
      named(fromPod(v('one'), p), 'ClusterIP, 1 endpoint'),
      named(fromPod(v('two'), p), 'ClusterIP, 2 endpoints'),
      named(fromPod(v('three'), p), 'ClusterIP, 3 endpoints'),
      named(fromPod(v('five'), p), 'ClusterIP, 5 endpoints (port 80 → 9000)'),
      named(fromNode(v('three'), p), 'from the node itself'),
      named(hairpin(v('three'), p), 'hairpin'),
      named(externalToClusterIP(v('three'), p), 'off-cluster source'),
      toPort(fromPod(v('three'), p), WRONG_PORT, 'a port the ClusterIP lacks (cluster-ips-check: REJECT)'),
      toPort(fromNode(v('three'), p), WRONG_PORT, 'a port the ClusterIP lacks (cluster-ips-check: REJECT)'),
      toAddress(fromPod(v('three'), p), UNALLOCATED_CLUSTER_IP, 'an unallocated ClusterIP (cluster-ips-check: DROP)'),
      toAddress(fromNode(v('three'), p), UNALLOCATED_CLUSTER_IP, 'an unallocated ClusterIP (cluster-ips-check: DROP)'),
      named(fromPod(v('none'), p), 'no endpoints (REJECT)'),
      named(fromNode(v('none'), p), 'no endpoints (REJECT)'),
      named(externalToNodePort(v('none'), p), 'no endpoints (REJECT)'),
      named(nodeToLocalhostNodePort(v('none'), p), 'no endpoints; nftables mode has no localhost NodePorts (the node answers)'),
      { ...fromPod(v('affinity'), p), kind: 'affinity' as const, name: `session affinity: ${AFFINITY_CLIENTS.length} clients → ${v('affinity').clusterIP}:80, 5 connections each` },
      { ...fromNode(v('affinity'), p), kind: 'sticky', name: `session affinity: ${fromNode(v('affinity'), p).name}, 30 connections` },
      named(fromPod(v('itpLocal'), p), 'internalTrafficPolicy Local'),
      named(fromNode(v('itpLocal'), p), 'internalTrafficPolicy Local'),
      named(fromPod(v('itpNone'), p), 'internalTrafficPolicy Local, no local endpoint (DROP)'),
      named(fromNode(v('itpNone'), p), 'internalTrafficPolicy Local, no local endpoint (DROP)'),
      named(externalToNodePort(v('etpLocal'), p), 'externalTrafficPolicy Local'),
      named(podToNodePort(v('etpLocal'), p), 'externalTrafficPolicy Local'),
      named(nodeToNodePort(v('etpLocal'), p), 'externalTrafficPolicy Local'),
      named(nodeToLocalhostNodePort(v('etpLocal'), p), 'externalTrafficPolicy Local; no localhost NodePorts (the node answers)'),
      named(fromPod(v('etpLocal'), p), 'externalTrafficPolicy Local'),
      named(externalToNodePort(v('etpNone'), p), 'externalTrafficPolicy Local, no local endpoint (DROP)'),
      named(podToNodePort(v('etpNone'), p), 'externalTrafficPolicy Local, no local endpoint'),
      named(externalToNodePort(v('nodePort'), p), 'NodePort'),
      named(podToNodePort(v('nodePort'), p), 'NodePort'),
      named(nodeToNodePort(v('nodePort'), p), 'NodePort'),
      named(nodeToLocalhostNodePort(v('nodePort'), p), 'NodePort; no localhost NodePorts (the node answers)'),
      named(podToNodeAddress(POD_GATEWAY, "node's pod-side address, not in @nodeport-ips (the node answers)", v('nodePort'), p), 'NodePort'),
      named(externalToNodeAddress(NODE_UPLINK_IP, 'node uplink address, not in @nodeport-ips (the node answers)', v('nodePort'), p), 'NodePort'),
      named(hairpinNodePort(v('nodePort'), p), 'NodePort'),
      named(fromPod(v('notReady'), p), 'a not-ready endpoint is left out'),
      named(externalTo('192.168.100.201', 'load balancer', v('lbAllowed'), p), 'loadBalancerSourceRanges 203.0.113.0/25 (allowed)'),
      named(podTo('192.168.100.201', 'load balancer', v('lbAllowed'), p), 'loadBalancerSourceRanges 203.0.113.0/25 (pod: DROP)'),
      named(nodeTo('192.168.100.201', 'load balancer', v('lbAllowed'), p), 'loadBalancerSourceRanges 203.0.113.0/25 (node: allowed)'),
      named(externalToNodePort(v('lbAllowed'), p), 'loadBalancerSourceRanges do not guard the NodePort'),
      named(externalTo('192.168.100.202', 'load balancer', v('lbDenied'), p), 'loadBalancerSourceRanges 198.51.100.0/24 (DROP)'),
      named(externalToNodePort(v('lbDenied'), p), 'loadBalancerSourceRanges do not guard the NodePort'),
      named(externalTo('198.18.200.1', 'external IP', v('extIP'), p), 'externalIPs'),
      named(podTo('198.18.200.1', 'external IP', v('extIP'), p), 'externalIPs'),
    );
    if (p === 'udp') probes.push({ ...fromPod(v('three'), p), kind: 'same-flow', name: `UDP conntrack: 40 datagrams from one source port → ${v('three').clusterIP}:80 stay on one endpoint` });
    if (p === 'tcp') {
      probes.push({ ...fromPod(v('capacity'), p), kind: 'set-capacity', name: `affinity sets keep every client (size 65535): ${CAPACITY_CLIENTS.length} clients → ${v('capacity').clusterIP}:80` });
      probes.push({ ...fromPod(v('short'), p), kind: 'affinity-timeout', name: `affinity timeout ${SHORT_AFFINITY_S} s: ${TIMEOUT_CLIENTS.length} clients → ${v('short').clusterIP}:80, again after the timeout` });
    }
  }
  const services = Object.values(s).flatMap((x) => [x.tcp, x.udp]);
  return {
    id: 'hand',
    title: 'hand-made Services (--nodeport-addresses primary)',
    services,
    load: 'cmds',
    nodePortAddresses: 'primary',
    pods: podsFor(services),
    extraClientAddresses: [...AFFINITY_CLIENTS, ...CAPACITY_CLIENTS, ...TIMEOUT_CLIENTS],
    outside: withExtraOutside(services),
    nodeListener: nodePortsOf(services),
    probes,
  };
}

// ---------------------------------------------------------------------------------------------------------
// --nodeport-addresses unset in kube-proxy's config ('all': `fib daddr type local ip daddr != 127.0.0.0/8`)
// and --masquerade-all, loaded from the JSON form.

export function allAddressesNftScenario(): NftScenario {
  const s = {
    one: handService({ name: 'one', clusterIP: '10.96.2.1', endpoints: eps(21, 1) }),
    none: handService({ name: 'none', clusterIP: '10.96.2.6', endpoints: [], nodePort: 31006 }),
    etpLocal: handService({ name: 'etp-local', clusterIP: '10.96.2.10', endpoints: eps(22, 4, [1, 3]), nodePort: 31010, externalTrafficPolicy: 'Local' }),
    nodePort: handService({ name: 'nodeport', clusterIP: '10.96.2.12', endpoints: eps(23, 3), nodePort: 31012 }),
  };
  const probes: NftProbe[] = [];
  for (const p of ['tcp', 'udp'] as const) {
    const v = (k: keyof typeof s) => s[k][p];
    probes.push(
      named(fromPod(v('one'), p), 'ClusterIP, --masquerade-all'),
      named(fromNode(v('one'), p), 'ClusterIP, --masquerade-all'),
      named(fromPod(v('nodePort'), p), 'ClusterIP, --masquerade-all'),
      named(externalToNodePort(v('nodePort'), p), 'NodePort on every local address'),
      named(externalToNodeAddress(NODE_UPLINK_IP, 'node uplink address', v('nodePort'), p), 'NodePort on every local address'),
      named(podToNodeAddress(POD_GATEWAY, "node's pod-side address", v('nodePort'), p), 'NodePort on every local address'),
      named(podToNodePort(v('nodePort'), p), 'NodePort on every local address'),
      named(nodeToNodePort(v('nodePort'), p), 'NodePort on every local address'),
      named(nodeToLocalhostNodePort(v('nodePort'), p), 'NodePort on every local address but 127.0.0.0/8 (the node answers)'),
      named(hairpinVia(POD_GATEWAY, v('nodePort'), p), 'NodePort on every local address'),
      named(externalToNodePort(v('none'), p), 'no endpoints (REJECT)'),
      named(podToNodeAddress(POD_GATEWAY, "node's pod-side address", v('none'), p), 'no endpoints (REJECT)'),
      named(nodeToLocalhostNodePort(v('none'), p), 'no endpoints, but 127.0.0.0/8 is no NodePort address (the node answers)'),
      named(externalToNodeAddress(NODE_UPLINK_IP, 'node uplink address', v('etpLocal'), p), 'externalTrafficPolicy Local'),
      named(podToNodeAddress(POD_GATEWAY, "node's pod-side address", v('etpLocal'), p), 'externalTrafficPolicy Local'),
      named(nodeToNodePort(v('etpLocal'), p), 'externalTrafficPolicy Local'),
    );
  }
  const services = Object.values(s).flatMap((x) => [x.tcp, x.udp]);
  return {
    id: 'all',
    title: 'hand-made Services (--nodeport-addresses all, --masquerade-all), loaded from nft -j',
    services,
    load: 'json',
    nodePortAddresses: 'all',
    options: { masqueradeAll: true },
    pods: podsFor(services),
    extraClientAddresses: [],
    outside: withExtraOutside(services),
    nodeListener: nodePortsOf(services),
    probes,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The generator's random Service sets, with the iptables suite's probes (lib/scenarios.ts), each loaded in
// another form.

export function randomNftScenario(seed: number, count: number, endpointsPerService: number, load: NftLoadForm, baseChains: 'pre-dnat' | 'post-dnat' = 'pre-dnat'): NftScenario {
  const sc = randomScenario(seed, count, endpointsPerService);
  return {
    id: sc.id,
    title: `${sc.title}, loaded as ${load}${baseChains === 'post-dnat' ? ', older base-chain layout (post-dnat)' : ''}`,
    services: sc.services,
    load,
    nodePortAddresses: 'primary',
    options: { baseChains },
    pods: sc.pods,
    extraClientAddresses: sc.extraClientAddresses,
    outside: outsidePorts(sc.services),
    nodeListener: nodePortsOf(sc.services),
    probes: sc.probes.map((p) => ({ ...p, kind: p.kind === 'recent-capacity' ? 'plain' : p.kind })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Interface conditions and the node's own source addresses (lib/scenarios.ts ifaceProbes): the iptables
// scenario's rules as a table of their own, beside kube-proxy's, tested with iifname/oifname.

export const IFACE_TABLE = 'dpk-iface';

export function ifaceNftScenario(): NftScenario {
  const s = ifaceServices();
  const services = Object.values(s).flatMap((x) => [x.tcp, x.udp]);
  const text = `table ip ${IFACE_TABLE} {
	chain prerouting {
		type nat hook prerouting priority dstnat - 10; policy accept;
		iifname "ens5" ip daddr 10.96.2.1 tcp dport 80 dnat to 10.244.21.1:8080
		iifname "ens5" ip daddr 10.96.2.1 udp dport 80 dnat to 10.244.21.1:8080
	}

	chain forward {
		type filter hook forward priority filter; policy accept;
		iifname "wv0" oifname "weave" accept
		oifname "weave" drop
		iifname "wv0" ip daddr 10.244.22.0/24 reject
		iifname "ens*" ip daddr 10.244.24.0/24 drop
	}
}
`;
  return {
    id: 'if',
    title: 'interface conditions (iifname/oifname, a table of their own) and node source addresses',
    services,
    load: 'cmds',
    nodePortAddresses: 'primary',
    pods: ifacePods(services),
    extraClientAddresses: [],
    outside: outsidePorts(services),
    nodeListener: nodePortsOf(services),
    probes: ifaceProbes(s).map((p) => ({ ...p, kind: 'plain' })),
    sideClients: [SIDE_WEAVE, SIDE_UPLINK],
    nodeRoutes: IFACE_NODE_ROUTES,
    extraTable: { name: IFACE_TABLE, text },
  };
}
