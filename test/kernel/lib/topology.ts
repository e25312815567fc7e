// One simulated Kubernetes node made of network namespaces:
//
//   ext (203.0.113.99/24) ── eth0 ── node ── vcli ── cli (10.128.0.10/32, + more client addresses)
//                          203.0.113.1  │ ip_forward=1, kube-proxy's rules, route_localnet=1
//                                       ├── vp0 ── pod 0 (endpoint address/32) — listener
//                                       ├── vp1 ── pod 1 …
//   wld (198.19.255.2/30) ── eth1 ───────┘ default route (src 203.0.113.1)
//
// Pods are wired as with a point-to-point CNI (ptp, Calico): a /32 address on the pod's eth0, a link route
// to the gateway 10.255.255.1 and a default route through it; the node side of every pod veth carries that
// gateway address (so MASQUERADE towards a pod picks 10.255.255.1, which tells masqueraded traffic apart
// from traffic sent by the node itself, whose source is 203.0.113.1) and a /32 route to the pod. The node's
// default route points at the "world" namespace, as a real node's points at its network (a node-originated
// packet to a ClusterIP needs a route before the OUTPUT hook can DNAT it); wld owns the ClusterIP, load-balancer
// and external-IP ranges (local routes) and answers there as "outside": a packet that leaves the node without
// DNAT (the tracer's ACCEPT) is seen arriving there. The external client's default route is the node. All
// addresses exist only inside these namespaces; nothing is routed to or from the root namespace.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { addNamespaces, deleteNamespaces, ipBatch, nsExec, nsName, type Backend } from './netns';
import { startDaemon, stopDaemon, type Daemon } from './proc';
import { CONFIRM_TIMEOUT_MS, TIMEOUT_MS } from './timing';
import { countedBetween, countersByLine } from './counters';

export const NODE_IP = '203.0.113.1';
export const EXTERNAL_CLIENT_IP = '203.0.113.99';
export const POD_GATEWAY = '10.255.255.1';
export const CLIENT_IP = '10.128.0.10';
export const CLIENT_ROUTE = '10.128.0.0/16';
export const CLUSTER_CIDR = '10.0.0.0/8';
export const NODE_UPLINK_IP = '198.19.255.1';
export const WORLD_IP = '198.19.255.2';
/** What the world namespace owns: the generator's ClusterIP, load-balancer and external-IP ranges. */
export const WORLD_PREFIXES = ['10.96.0.0/12', '192.168.100.0/24', '198.18.0.0/16'];
/** The listener name of the world namespace. */
export const OUTSIDE = 'outside';
/** The listener name of the node namespace itself (TopologySpec.nodeListener): a packet delivered to the node unchanged. */
export const NODE_LOCAL = 'node';
/** Every address of the node namespace: what `addrtype LOCAL` means there. */
export const NODE_ADDRESSES = [NODE_IP, POD_GATEWAY, NODE_UPLINK_IP];
export const NFACCT_OBJECTS = ['ct_state_invalid_dropped_pkts', 'localhost_nps_accepted_pkts'];

const here = dirname(fileURLToPath(import.meta.url));
const LISTENER = join(here, 'listener.mjs');
const CLIENT = join(here, 'client.mjs');

export interface PodSpec {
  /** Shown in answers; unique in the topology. */
  name: string;
  address: string;
  tcp: number[];
  udp: number[];
  /** Bind these addresses instead of 0.0.0.0 (lib/listener.mjs). */
  bind?: string[];
  /** The node side's interface name (default `vp<index>`): what `-o` / `oifname` see towards this pod. */
  iface?: string;
}

/**
 * A client wired like a pod (a /32 behind a node interface with the pod gateway) through a node interface of
 * its own name: what `-i` / `iifname` see for its packets.
 */
export interface SideClient {
  iface: string;
  address: string;
}

export interface TopologySpec {
  /** Short tag, unique in this run (part of the namespace names). */
  id: string;
  /** The iptables backend that loads `dump` (unless `load` is given). */
  backend?: Backend;
  dump: string;
  /**
   * Loads the rules some other way (nftables): called once the node namespace is wired; returns the text it
   * loaded and what the tool prints back (the topology's loadedDump and savedDump). Replaces backend and nfacct.
   */
  load?: (nodeNs: string) => Promise<{ loaded: string; saved: string }>;
  /** Lists the loaded ruleset with its counters (default: the backend's iptables-save -c); see ruleCounters(). */
  counters?: (nodeNs: string) => Promise<string>;
  /** Node sysctls (path under /proc/sys → value) that replace or add to the defaults set in build(). */
  sysctls?: Record<string, string>;
  /**
   * Ports the node namespace itself answers on, as NODE_LOCAL: where a packet addressed to the node (or to
   * 127.0.0.1 from the node) arrives when no rule DNATs it. The node's client never uses them as source ports.
   */
  nodeListener?: { tcp: number[]; udp: number[] };
  pods: PodSpec[];
  /** Ports the world namespace answers on (the Services' ports). */
  outside: { tcp: number[]; udp: number[] };
  /** More addresses of the client pod (several clients, e.g. for session affinity). */
  extraClientAddresses?: string[];
  /** Whether the nfacct tool exists; without it the -m nfacct matches are cut from the dump (see README). */
  nfacct?: boolean;
  /** Clients entering the node through interfaces of their own (interface conditions). */
  sideClients?: SideClient[];
  /**
   * More node routes (`route add …` lines for ip -batch), e.g. towards some ClusterIPs with another `src`: the
   * source address a process on the node gets from routing.
   */
  nodeRoutes?: string[];
}

export type Origin = { kind: 'client' } | { kind: 'external' } | { kind: 'node' } | { kind: 'pod'; address: string } | { kind: 'side'; iface: string };

/** One conntrack entry of the node (/proc/net/nf_conntrack): the original and the reply direction. */
export interface CtEntry {
  protocol: string;
  orig: { src: string; dst: string; sport: number; dport: number };
  reply: { src: string; dst: string; sport: number; dport: number };
}

export interface Attempt {
  src?: string;
  sport: number;
  wave?: number;
}

export interface AttemptResult {
  sport: number;
  /** The client's own source address for the attempt (before any NAT). */
  src: string | null;
  outcome: 'answer' | 'refused' | 'timeout' | 'error';
  /** A TCP timeout after the handshake had completed (a slow listener, not a drop). */
  connected?: boolean;
  /** It timed out first and answered (or was refused) when the same flow was sent again (Topology.request). */
  retried?: boolean;
  code?: string;
  name?: string;
  endpoint?: string;
  seen?: string;
}

export interface ClientRequest {
  protocol: 'tcp' | 'udp';
  to: string;
  port: number;
  attempts: Attempt[];
  concurrency?: number;
  timeoutMs?: number;
  /** TCP: once connected, wait this long for the listener's answer (lib/client.mjs). */
  answerGraceMs?: number;
}

/** Cuts `-m nfacct --nfacct-name X` out of rules (for machines without the nfacct tool). */
export function withoutNfacct(dump: string): string {
  return dump.replace(/ -m nfacct --nfacct-name +\S+/g, '');
}

export class Topology {
  readonly node: string;
  readonly client: string;
  readonly external: string;
  readonly world: string;
  readonly podNs = new Map<string, string>();
  /** Side client namespaces by their node interface. */
  readonly sideNs = new Map<string, string>();
  /** What the backend's iptables-save prints after loading: what the tracer reads. */
  savedDump = '';
  /** The text given to iptables-restore. */
  loadedDump = '';
  private readonly daemons: Daemon[] = [];
  private readonly clients = new Map<string, Promise<Daemon>>();
  private readonly nextPort = new Map<string, number>();

  private constructor(readonly spec: TopologySpec) {
    this.node = nsName(`${spec.id}-node`);
    this.client = nsName(`${spec.id}-cli`);
    this.external = nsName(`${spec.id}-ext`);
    this.world = nsName(`${spec.id}-wld`);
    spec.pods.forEach((p, i) => this.podNs.set(p.address, nsName(`${spec.id}-p${i}`)));
    (spec.sideClients ?? []).forEach((c, i) => this.sideNs.set(c.iface, nsName(`${spec.id}-s${i}`)));
  }

  get namespaces(): string[] {
    return [this.node, this.client, this.external, this.world, ...this.podNs.values(), ...this.sideNs.values()];
  }

  static async create(spec: TopologySpec): Promise<Topology> {
    const t = new Topology(spec);
    try {
      await t.build();
    } catch (e) {
      await t.destroy();
      throw e;
    }
    return t;
  }

  private async build(): Promise<void> {
    const { spec } = this;
    await addNamespaces(this.namespaces);

    const node: string[] = [
      'link set lo up',
      `link add eth0 type veth peer name eth0 netns ${this.external}`,
      `addr add ${NODE_IP}/24 dev eth0`,
      'link set eth0 up',
      `link add vcli type veth peer name eth0 netns ${this.client}`,
      `addr add ${POD_GATEWAY}/32 dev vcli`,
      'link set vcli up',
      `route add ${CLIENT_ROUTE} dev vcli`,
    ];
    const podLink = (dev: string, ns: string, address: string) => [
      `link add ${dev} type veth peer name eth0 netns ${ns}`,
      `addr add ${POD_GATEWAY}/32 dev ${dev}`,
      `link set ${dev} up`,
      `route add ${address}/32 dev ${dev}`,
    ];
    spec.pods.forEach((p, i) => node.push(...podLink(p.iface ?? `vp${i}`, this.podNs.get(p.address)!, p.address)));
    for (const c of spec.sideClients ?? []) node.push(...podLink(c.iface, this.sideNs.get(c.iface)!, c.address));
    node.push(`link add eth1 type veth peer name eth0 netns ${this.world}`, `addr add ${NODE_UPLINK_IP}/30 dev eth1`, 'link set eth1 up', `route add default via ${WORLD_IP} dev eth1 src ${NODE_IP}`);
    for (const r of spec.nodeRoutes ?? []) {
      if (!/^route add [0-9./]+ via [0-9.]+ dev \w+ src [0-9.]+$/.test(r)) throw new Error(`topology: bad node route ${r}`);
      node.push(r);
    }
    await ipBatch(this.node, node);

    const podLines = (addresses: string[]) => [
      'link set lo up',
      ...addresses.map((a) => `addr add ${a}/32 dev eth0`),
      'link set eth0 up',
      `route add ${POD_GATEWAY} dev eth0 scope link`,
      `route add default via ${POD_GATEWAY} dev eth0`,
    ];
    await Promise.all([
      ipBatch(this.client, podLines([CLIENT_IP, ...(spec.extraClientAddresses ?? [])])),
      ipBatch(this.external, ['link set lo up', `addr add ${EXTERNAL_CLIENT_IP}/24 dev eth0`, 'link set eth0 up', `route add default via ${NODE_IP} dev eth0`]),
      ipBatch(this.world, ['link set lo up', `addr add ${WORLD_IP}/30 dev eth0`, 'link set eth0 up', `route add default via ${NODE_UPLINK_IP} dev eth0`, ...WORLD_PREFIXES.map((p) => `route add local ${p} dev lo`)]),
      ...spec.pods.map((p) => ipBatch(this.podNs.get(p.address)!, podLines([p.address]))),
      ...(spec.sideClients ?? []).map((c) => ipBatch(this.sideNs.get(c.iface)!, podLines([c.address]))),
    ]);

    // What kube-proxy and the CNI set on a node, and one test setting: icmp_ratemask=0. REJECT answers with
    // ICMP port unreachable, and the kernel rate-limits those twice (per destination: a burst of 6, then 1 per
    // icmp_ratelimit ms; per namespace: icmp_msgs_per_sec with a burst of icmp_msgs_burst, each ICMP taking a
    // random 1-3 credits since 6.12): a burst of rejected attempts would partly end as timeouts (see README).
    // An empty mask exempts every ICMP type from both limits.
    const sysctls: Record<string, string> = {
      'net/ipv4/ip_forward': '1',
      'net/ipv4/conf/all/rp_filter': '0',
      'net/ipv4/conf/default/rp_filter': '0',
      'net/ipv4/conf/all/route_localnet': '1',
      'net/ipv4/icmp_ratemask': '0',
      ...spec.sysctls,
    };
    for (const [k, v] of Object.entries(sysctls)) {
      if (!/^[a-z0-9_/.-]+$/.test(k) || !/^[0-9]+$/.test(v)) throw new Error(`bad sysctl ${k}=${v}`);
    }
    const script = Object.entries(sysctls)
      .map(([k, v]) => `echo ${v} > /proc/sys/${k}`)
      .join('; ');
    await nsExec(this.node, 'sh', ['-ec', script]);

    if (spec.load) {
      const { loaded, saved } = await spec.load(this.node);
      this.loadedDump = loaded;
      this.savedDump = saved;
    } else {
      if (!spec.backend) throw new Error('topology: neither backend nor load given');
      let dump = spec.dump;
      if (spec.nfacct) {
        for (const o of NFACCT_OBJECTS) await nsExec(this.node, 'nfacct', ['add', o]);
      } else {
        dump = withoutNfacct(dump);
      }
      this.loadedDump = dump;
      await nsExec(this.node, spec.backend.restore, [], { input: dump, timeoutMs: 60_000 });
      this.savedDump = (await nsExec(this.node, spec.backend.save, [], { timeoutMs: 60_000 })).stdout;
    }

    // Listeners, a few at a time (each is a Node process).
    const queue: { ns: string; pod: PodSpec }[] = [
      { ns: this.world, pod: { name: OUTSIDE, address: '*', ...spec.outside } },
      ...spec.pods.map((pod) => ({ ns: this.podNs.get(pod.address)!, pod })),
      // One socket per node address: a UDP answer must leave from the address the client sent to.
      ...(spec.nodeListener ? [{ ns: this.node, pod: { name: NODE_LOCAL, address: '*', ...spec.nodeListener, bind: ['127.0.0.1', ...NODE_ADDRESSES] } }] : []),
    ];
    const startOne = async ({ ns, pod: p }: { ns: string; pod: PodSpec }) => {
      const json = JSON.stringify({ name: p.name, address: p.address, tcp: p.tcp, udp: p.udp, lifetimeMs: 900_000, ...(p.bind ? { bind: p.bind } : {}) });
      this.daemons.push(await startDaemon('ip', ['netns', 'exec', ns, process.execPath, LISTENER, json], 30_000));
    };
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let p = queue.shift(); p; p = queue.shift()) await startOne(p);
      }),
    );
  }

  /** The namespace a request starts in. */
  originNs(origin: Origin): string {
    switch (origin.kind) {
      case 'client':
        return this.client;
      case 'external':
        return this.external;
      case 'node':
        return this.node;
      case 'pod': {
        const ns = this.podNs.get(origin.address);
        if (!ns) throw new Error(`no pod ${origin.address}`);
        return ns;
      }
      case 'side': {
        const ns = this.sideNs.get(origin.iface);
        if (!ns) throw new Error(`no side client on ${origin.iface}`);
        return ns;
      }
    }
  }

  /** n distinct source ports for the given namespace (never reused in this topology; never a port the node listens on). */
  ports(ns: string, n: number): number[] {
    const reserved = new Set(ns === this.node && this.spec.nodeListener ? [...this.spec.nodeListener.tcp, ...this.spec.nodeListener.udp] : []);
    const out: number[] = [];
    let port = this.nextPort.get(ns) ?? 10_000;
    while (out.length < n) {
      if (port >= 60_000) throw new Error(`out of source ports in ${ns}`);
      if (!reserved.has(port)) out.push(port);
      port++;
    }
    this.nextPort.set(ns, port);
    return out;
  }

  /** Runs a request; `counted`: what each rule counted while the attempts that timed out were sent again, if any still did. */
  async request(origin: Origin, req: ClientRequest): Promise<{ ms: number; results: AttemptResult[]; counted?: Map<number, number> }> {
    const ns = this.originNs(origin);
    let client = this.clients.get(ns);
    if (!client) {
      // One client process per namespace, started on first use and kept until the topology goes.
      client = startDaemon('ip', ['netns', 'exec', ns, process.execPath, CLIENT, '900000'], 30_000);
      this.clients.set(ns, client);
      this.daemons.push(await client);
    }
    const send = async (r: ClientRequest) => {
      const spec = { ...r, timeoutMs: r.timeoutMs ?? TIMEOUT_MS, concurrency: r.concurrency ?? 32, deadlineMs: 90_000 };
      const out = JSON.parse(await (await client!).request(JSON.stringify(spec), 120_000)) as { ms: number; results: AttemptResult[]; error?: string };
      if (out.error) throw new Error(`client in ${ns}: ${out.error}`);
      return out;
    };
    const out = await send(req);
    // A timeout is a drop only when the same flow times out again, waiting longer (a busy machine, not the rules).
    const again = out.results.flatMap((r, i) => (r.outcome === 'timeout' && !r.connected ? [i] : []));
    if (again.length === 0) return out;
    // The rule counters around the retry say which rules its packets met (nothing else runs meanwhile).
    const before = await this.ruleCounters();
    const retry = await send({ ...req, attempts: again.map((i) => ({ src: req.attempts[i]!.src, sport: req.attempts[i]!.sport })), timeoutMs: CONFIRM_TIMEOUT_MS });
    again.forEach((i, k) => {
      if (retry.results[k]!.outcome !== 'timeout') out.results[i] = { ...retry.results[k]!, retried: true };
    });
    const counted = retry.results.some((r) => r.outcome === 'timeout') ? countedBetween(before, await this.ruleCounters()) : undefined;
    return { ms: out.ms + retry.ms, results: out.results, counted };
  }

  /** Packets counted so far per line of savedDump (lines with a counter only; see lib/counters.ts). */
  async ruleCounters(): Promise<Map<number, number>> {
    const { counters, backend } = this.spec;
    const list = counters ?? (backend && (async (ns: string) => (await nsExec(ns, backend.save, ['-c'], { timeoutMs: 60_000 })).stdout));
    return list ? countersByLine(this.savedDump, await list(this.node)) : new Map();
  }

  /** The node's xt_recent lists: name -> source addresses in it. */
  async recentLists(): Promise<Map<string, string[]>> {
    const r = await nsExec(this.node, 'sh', ['-c', 'for f in /proc/net/xt_recent/*; do [ -e "$f" ] && echo "== ${f##*/}" && cat "$f"; done; true']);
    const out = new Map<string, string[]>();
    let current: string[] | undefined;
    for (const line of r.stdout.split('\n')) {
      if (line.startsWith('== ')) out.set(line.slice(3), (current = []));
      else if (current && line.startsWith('src=')) current.push(line.slice(4).split(/\s/)[0]!);
    }
    return out;
  }

  /** The node's conntrack table (/proc/net/nf_conntrack: no conntrack tool needed). */
  async conntrack(): Promise<CtEntry[]> {
    const r = await nsExec(this.node, 'cat', ['/proc/net/nf_conntrack'], { timeoutMs: 30_000 });
    const out: CtEntry[] = [];
    for (const line of r.stdout.split('\n')) {
      const proto = /^ipv4\s+\d+\s+(\w+)/.exec(line)?.[1];
      const tuples = [...line.matchAll(/src=(\S+) dst=(\S+) sport=(\d+) dport=(\d+)/g)].map((m) => ({ src: m[1]!, dst: m[2]!, sport: Number(m[3]), dport: Number(m[4]) }));
      if (proto && tuples.length === 2) out.push({ protocol: proto, orig: tuples[0]!, reply: tuples[1]! });
    }
    return out;
  }

  async destroy(): Promise<void> {
    for (const d of this.daemons.splice(0)) stopDaemon(d);
    this.clients.clear();
    await deleteNamespaces(this.namespaces);
  }
}
