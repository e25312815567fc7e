// The Service catalog of an IPVS-mode node (DESIGN §4), from its three dumps read together: ipvsadm (virtual
// and real servers), ipset (which addresses are ClusterIPs, NodePorts, load balancers; which endpoints are
// local) and iptables-save (masquerade decisions). IPVS keeps no Service names: a Service is known by its
// ClusterIP:port/protocol, and NodePort / load-balancer / external virtual services join the ClusterIP whose
// real servers they use.
import type { Diagnostic } from '../model/diagnostics';
import type { IpSet, IpsetDump } from '../model/ipset';
import { CONNECTION_COUNT_SCHEDULERS, DESTINATION_SCHEDULERS, SOURCE_HASH_SCHEDULERS, weightShares, type IpvsDump, type RealServer, type VirtualService } from '../model/ipvs';
import type { Range } from '../model/range';
import type { IptablesRuleset } from '../model/iptables';
import { t } from '../l10n';
import { canonicalAddress } from '../trace/addr';
import { ipv4Number, isIpv4 } from '../parse/ipvs/address';
import type { Catalog, Endpoint, Frontend, FrontendKind, ObjectRef, Service } from './catalog';

export interface IpvsSnapshotInput {
  ipvs: { dump: IpvsDump; fileIndex: number }[];
  ipsets: IpsetDump[];
  iptables: IptablesRuleset[];
}


// The catalog's endpoints, frontends and objects read their ranges from the model when asked (issue #8: a
// node of 10,000 Services has ~100,000 of them, and the model makes its ranges on demand).
class RealServerEndpoint implements Endpoint {
  address: string;
  port: number;
  probability: number;
  declare local?: boolean;
  #server: RealServer;
  constructor(address: string, port: number, probability: number, server: RealServer) {
    this.address = address;
    this.port = port;
    this.probability = probability;
    this.#server = server;
  }
  get range(): Range {
    return this.#server.range;
  }
}

class VirtualServiceFrontend implements Frontend {
  kind: FrontendKind;
  address: string;
  port: number;
  declare kindUncertain?: boolean;
  #vs: VirtualService;
  constructor(kind: FrontendKind, address: string, port: number, vs: VirtualService) {
    this.kind = kind;
    this.address = address;
    this.port = port;
    this.#vs = vs;
  }
  get range(): Range {
    return this.#vs.range;
  }
}

class VirtualServiceObject implements ObjectRef {
  name: string;
  tableId: string;
  role = 'virtual-service' as const;
  #vs: VirtualService;
  constructor(vs: VirtualService, tableId: string) {
    this.name = vs.name;
    this.tableId = tableId;
    this.#vs = vs;
  }
  get range(): Range {
    return this.#vs.nameRange;
  }
}

/** Canonical addresses, memoised during one buildIpvsCatalog (each endpoint appears in several dumps and keys). */
let canonicalMemo: Map<string, string> | undefined;

function canonical(address: string | undefined): string {
  // A dotted IPv4 address (no leading zeros) is its own canonical form: most of a node's addresses.
  if (address !== undefined && isIpv4(address)) return address;
  if (address === undefined || !canonicalMemo) return canonicalAddress(address);
  let c = canonicalMemo.get(address);
  if (c === undefined) {
    c = canonicalAddress(address);
    // The model's own string when it is already canonical: the catalog keeps no copy of it.
    canonicalMemo.set(address, (c = c === address ? address : c));
  }
  return c;
}

function key(address: string | undefined, port: number | undefined, protocol: string): string {
  return `${canonical(address)}|${port ?? ''}|${protocol}`;
}

/** Address → protocol → ports: the `ip,proto:port,ip` members whose two addresses are the same (KUBE-LOOP-BACK). */
type SelfTriples = Map<string, Map<string, Set<number>>>;

/**
 * Members of a `hash:ip,port[,…]` set as address|port|protocol keys; `bitmap:port` sets as ports; the members
 * whose second address is their first (nested maps of the model's own strings: no key string per lookup).
 */
function setKeys(set: IpSet | undefined): { ipPorts: Set<string>; ports: Set<number>; self: SelfTriples } {
  const ipPorts = new Set<string>();
  const ports = new Set<number>();
  const self: SelfTriples = new Map();
  for (const m of set?.members ?? []) {
    if (set!.type.startsWith('bitmap:port')) {
      if (m.port !== undefined) for (let p = m.port; p <= (m.portTo ?? m.port); p++) ports.add(p);
      continue;
    }
    if (m.address !== undefined && m.port !== undefined) {
      const protocol = (m.protocol ?? 'tcp').toLowerCase();
      ipPorts.add(key(m.address, m.port, protocol));
      const address = canonical(m.address);
      if (m.address2 !== undefined && canonical(m.address2) === address) {
        let byProtocol = self.get(address);
        if (!byProtocol) self.set(address, (byProtocol = new Map()));
        let portSet = byProtocol.get(protocol);
        if (!portSet) byProtocol.set(protocol, (portSet = new Set()));
        portSet.add(m.port);
      }
    }
  }
  return { ipPorts, ports, self };
}

function schedulerNote(scheduler: string | undefined): string {
  const s = scheduler ?? 'wlc';
  if (s === 'rr' || s === 'wrr') return t('{0}: new connections are spread by weight, so the shares are exact.', s);
  if (CONNECTION_COUNT_SCHEDULERS.has(s)) return t('{0}: the choice depends on live connection counts; the shares shown are the weight shares, what an idle node would give.', s);
  if (SOURCE_HASH_SCHEDULERS.has(s)) return t('{0}: a hash of the client address picks the real server, so each client always reaches the same one; the shares are over many clients.', s);
  if (DESTINATION_SCHEDULERS.has(s)) return t('{0}: the destination address picks the real server; the shares are the weight shares.', s);
  return t('{0}: the shares shown are the weight shares.', s);
}

const FRONTEND_ORDER: Record<FrontendKind, number> = { clusterIP: 0, nodePort: 1, loadBalancer: 2, externalIP: 3 };
const numericOrder = new Intl.Collator(undefined, { numeric: true });
const plainOrder = new Intl.Collator();

/** The dumps of an input, in order, with the file index of each ipvsadm dump: what makes two inputs the same. */
function inputKey(input: IpvsSnapshotInput): unknown[] {
  return [...input.ipvs.flatMap((x) => [x.dump, x.fileIndex]), '|', ...input.ipsets, '|', ...input.iptables];
}

const catalogCache = new WeakMap<IpvsDump, { key: unknown[]; catalog: Catalog }[]>();

/**
 * The catalog of an IPVS snapshot; cached by the identity of its dumps, since the snapshot and every trace on
 * it ask for the same one. Each call gets its own services array (the Services themselves are shared, as the
 * per-file catalogs of iptables and nft dumps are).
 */
export function buildIpvsCatalog(input: IpvsSnapshotInput): Catalog {
  const first = input.ipvs[0]?.dump;
  const k = inputKey(input);
  let entries = first ? catalogCache.get(first) : undefined;
  const hit = entries?.find((e) => e.key.length === k.length && e.key.every((x, i) => x === k[i]));
  if (hit) return { ...hit.catalog, services: [...hit.catalog.services] };
  canonicalMemo = new Map();
  let catalog: Catalog;
  try {
    catalog = buildCatalog(input);
  } finally {
    canonicalMemo = undefined;
  }
  if (first) {
    if (!entries) catalogCache.set(first, (entries = []));
    entries.push({ key: k, catalog });
    if (entries.length > 8) entries.shift();
  }
  return { ...catalog, services: [...catalog.services] };
}

function buildCatalog(input: IpvsSnapshotInput): Catalog {
  const diagnostics: Diagnostic[] = [];
  const sets = new Map<string, IpSet>();
  for (const dump of input.ipsets) for (const s of dump.sets) if (!sets.has(s.name)) sets.set(s.name, s);
  const haveSets = input.ipsets.length > 0;
  const cluster = setKeys(sets.get('KUBE-CLUSTER-IP') ?? sets.get('KUBE-6-CLUSTER-IP'));
  const lb = setKeys(sets.get('KUBE-LOAD-BALANCER') ?? sets.get('KUBE-6-LOAD-BALANCER'));
  const external = setKeys(sets.get('KUBE-EXTERNAL-IP') ?? sets.get('KUBE-6-EXTERNAL-IP'));
  const loopBack = setKeys(sets.get('KUBE-LOOP-BACK') ?? sets.get('KUBE-6-LOOP-BACK'));
  const nodePorts: Record<string, Set<number>> = {};
  for (const proto of ['tcp', 'udp', 'sctp']) {
    const up = proto.toUpperCase();
    nodePorts[proto] = setKeys(sets.get(`KUBE-NODE-PORT-${up}`) ?? sets.get(`KUBE-6-NODE-PORT-${up}`)).ports;
  }
  const sctpHash = setKeys(sets.get('KUBE-NODE-PORT-SCTP-HASH') ?? sets.get('KUBE-6-NODE-PORT-SCTP-HASH'));
  const clusterCIDR = clusterCidrOf(input.iptables);

  const kindOf = (vs: VirtualService): { kind: FrontendKind; uncertain?: boolean } => {
    const proto = vs.protocol === 'fwmark' ? 'tcp' : vs.protocol;
    const k = key(vs.address, vs.port, proto);
    if (cluster.ipPorts.has(k)) return { kind: 'clusterIP' };
    if (lb.ipPorts.has(k)) return { kind: 'loadBalancer' };
    if (external.ipPorts.has(k)) return { kind: 'externalIP' };
    if (vs.port !== undefined && (nodePorts[proto]?.has(vs.port) || sctpHash.ipPorts.has(k))) return { kind: 'nodePort' };
    // Without the ipset dump (or for an address it does not list) the kind is a guess.
    return { kind: haveSets ? 'externalIP' : 'clusterIP', uncertain: true };
  };

  interface Group {
    service: Service;
    reals: Set<string | number>;
    targetPorts: Set<number>;
  }
  const groups: Group[] = [];
  const all: { vs: VirtualService; fileIndex: number; kind: FrontendKind; uncertain?: boolean }[] = [];
  for (const { dump, fileIndex } of input.ipvs) {
    for (const vs of dump.services) {
      if (vs.protocol === 'fwmark' || vs.address === undefined || vs.port === undefined) continue;
      all.push({ vs, fileIndex, ...kindOf(vs) });
    }
  }
  // A real server as address and port: a number for IPv4 (no key string to build and hash), else `address:port`.
  const realKey = (r: RealServer): string | number => {
    const address = canonical(r.address);
    const v = ipv4Number(address);
    return v === undefined ? `${address}:${r.port ?? ''}` : v * 65537 + (r.port === undefined ? 0 : r.port + 1);
  };
  const realsKey = (vs: VirtualService) => new Set(vs.realServers.map(realKey));
  const makeService = (vs: VirtualService, fileIndex: number): Group => {
    const protocol = vs.protocol as string;
    const shares = weightShares({ ...vs, scheduler: vs.scheduler === 'rr' || vs.scheduler === 'wrr' ? vs.scheduler : 'wrr' }) ?? vs.realServers.map(() => 1 / Math.max(1, vs.realServers.length));
    const endpoints: Endpoint[] = vs.realServers.map((r, i) => {
      const address = canonical(r.address);
      const e: Endpoint = new RealServerEndpoint(address, r.port ?? 0, shares[i] ?? 0, r);
      // KUBE-LOOP-BACK lists endpointIP,proto:port,endpointIP for the endpoints on this node.
      if (r.port !== undefined && loopBack.self.get(address)?.get(protocol)?.has(r.port)) e.local = true;
      return e;
    });
    const service: Service = {
      namespace: '',
      name: `${vs.family === 'ipv6' ? `[${canonical(vs.address)}]` : canonical(vs.address)}:${vs.port}`,
      portName: '',
      protocol,
      frontends: [],
      endpoints,
      policies: {},
      objects: [],
      anonymous: true,
      hashChecks: [],
      family: vs.family,
    };
    if (vs.persistent) service.policies.sessionAffinity = { kind: 'ClientIP', timeoutSeconds: vs.persistent.timeout };
    if (vs.realServers.length === 0) service.policies.noEndpoints = 'reject';
    if (clusterCIDR) service.policies.clusterCIDR = clusterCIDR;
    service.policies.scheduler = vs.scheduler ?? 'wlc';
    service.policies.schedulerNote = schedulerNote(vs.scheduler);
    const group = { service, reals: realsKey(vs), targetPorts: new Set(vs.realServers.map((r) => r.port ?? 0)) };
    groups.push(group);
    void fileIndex;
    return group;
  };
  const tableIds: string[] = [];
  const addFrontend = (g: Group, entry: (typeof all)[number]) => {
    const f: Frontend = new VirtualServiceFrontend(entry.kind, canonical(entry.vs.address), entry.vs.port!, entry.vs);
    if (entry.uncertain) f.kindUncertain = true;
    g.service.frontends.push(f);
    g.service.objects.push(new VirtualServiceObject(entry.vs, tableIds[entry.fileIndex] ??= `ipvs:${entry.fileIndex}`));
  };
  // ClusterIPs anchor the Services; every other virtual service joins the ClusterIP whose real servers it
  // uses (all of them, or the local subset for traffic policy Local), or stands alone when that is unclear.
  for (const entry of all) if (entry.kind === 'clusterIP') addFrontend(makeService(entry.vs, entry.fileIndex), entry);
  // The ClusterIP Services by protocol and real server, built once: a joining virtual service only looks at
  // the Services that have its rarest real server, not at every Service (linear, not quadratic, in size).
  // protocol → real server (the strings of the groups' own sets) → Services.
  const byReal = new Map<string, Map<string | number, Group[]>>();
  for (const g of groups) {
    let reals = byReal.get(g.service.protocol);
    if (!reals) byReal.set(g.service.protocol, (reals = new Map()));
    for (const r of g.reals) {
      const list = reals.get(r);
      if (list) list.push(g);
      else reals.set(r, [g]);
    }
  }
  for (const entry of all) {
    if (entry.kind === 'clusterIP') continue;
    const reals = realsKey(entry.vs);
    let pool: Group[] | undefined;
    for (const r of reals) {
      const list = byReal.get(entry.vs.protocol)?.get(r) ?? [];
      if (!pool || list.length < pool.length) pool = list;
      if (pool.length === 0) break;
    }
    const candidates = (pool ?? []).filter((g) => [...reals].every((r) => g.reals.has(r)));
    const exact = candidates.filter((g) => g.reals.size === reals.size);
    const chosen = exact.length === 1 ? exact[0] : exact.length === 0 && candidates.length === 1 ? candidates[0] : undefined;
    if (chosen) {
      addFrontend(chosen, entry);
      if (reals.size < chosen.reals.size) chosen.service.policies.externalTrafficPolicy = 'Local';
      if (entry.vs.persistent && !chosen.service.policies.sessionAffinity) chosen.service.policies.sessionAffinity = { kind: 'ClientIP', timeoutSeconds: entry.vs.persistent.timeout };
    } else {
      addFrontend(makeService(entry.vs, entry.fileIndex), entry);
    }
  }
  for (const g of groups) {
    if (g.service.frontends.some((f) => f.kind !== 'clusterIP') && !g.service.policies.externalTrafficPolicy) g.service.policies.externalTrafficPolicy = 'Cluster';
    g.service.frontends.sort((a, b) => FRONTEND_ORDER[a.kind] - FRONTEND_ORDER[b.kind] || plainOrder.compare(a.address ?? '', b.address ?? '') || a.port - b.port);
  }
  const services = groups.map((g) => g.service);
  // One collator for the whole sort (what localeCompare with these options does per call).
  services.sort((a, b) => numericOrder.compare(a.name, b.name) || plainOrder.compare(a.protocol, b.protocol));
  return { mode: 'ipvs', services, diagnostics };
}

/** The cluster CIDR from IPVS mode's `KUBE-SERVICES ! -s CIDR -m set --match-set KUBE-CLUSTER-IP … -j KUBE-MARK-MASQ`. */
function clusterCidrOf(rulesets: IptablesRuleset[]): string | undefined {
  for (const r of rulesets) {
    for (const table of r.tables) {
      for (const rule of table.chainByName.get('KUBE-SERVICES')?.rules ?? []) {
        const src = rule.params.find((p) => p.name === '-s');
        if (src?.negated && rule.target?.name === 'KUBE-MARK-MASQ') return src.values[0];
      }
    }
  }
  return undefined;
}
