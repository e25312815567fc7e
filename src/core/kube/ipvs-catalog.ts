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
import { canonicalAddress, endpointNumber, formatHostPort, ipv4Number, isIpv4, isLoopback, parseAddress } from '../model/address';
import { Ipv4PortIpMemberNode, Ipv4PortMemberNode } from '../parse/ipset/nodes';
import { RealServerNode } from '../parse/ipvs/nodes';
import { sortFrontends, type Catalog, type Endpoint, type Frontend, type FrontendKind, type HashCheck, type ObjectRef, type Policies, type Service } from './service';
import { grown } from '../model/typed-arrays';

export interface IpvsSnapshotInput {
  ipvs: { dump: IpvsDump; fileIndex: number }[];
  ipsets: IpsetDump[];
  iptables: IptablesRuleset[];
}

// The catalog's endpoints, frontends and objects read their ranges from the model when asked (docs/performance.md#memory: a
// node of 10,000 Services has ~100,000 of them, and the model makes its ranges on demand).
class RealServerEndpoint implements Endpoint {
  probability: number;
  declare local?: boolean;
  #server: RealServer;
  constructor(probability: number, server: RealServer) {
    this.probability = probability;
    this.#server = server;
  }
  // Address and port are the real server's, read when asked for (two fields fewer on ~100,000 endpoints).
  get address(): string {
    return endpointAddress(this.#server.address);
  }
  get port(): number {
    return this.#server.port ?? 0;
  }
  get range(): Range {
    return this.#server.range;
  }
}

/** The address of a real server's endpoint: a dotted IPv4 address as it is, another in its canonical form. */
function endpointAddress(address: string): string {
  return ipv4Number(address) === undefined ? canonical(address) : address;
}

class VirtualServiceFrontend implements Frontend {
  kind: FrontendKind;
  address: string;
  port: number;
  declare kindUncertain?: boolean;
  declare kindNote?: string;
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

/** What a Service's frontends and objects are until its catalog lists them (one frozen array, never edited). */
const NOT_YET_LISTED = Object.freeze([]) as unknown as never[];

/**
 * A Service of the IPVS catalog. Its endpoints are made from the virtual service when first asked for (docs/performance.md#memory:
 * a node of 10,000 Services has ~100,000 of them, and the tree, a trace or an explanation usually reads a few).
 */
class IpvsService implements Service {
  namespace = '';
  name: string;
  portName = '';
  protocol: string;
  // Both lists are made at their size once the catalog knows them.
  frontends: Frontend[] = NOT_YET_LISTED;
  policies: Policies = {};
  objects: ObjectRef[] = NOT_YET_LISTED;
  anonymous = true;
  hashChecks: HashCheck[] = [];
  family: 'ipv4' | 'ipv6';
  #endpoints: Endpoint[] | undefined;
  #vs: VirtualService;
  #localEndpoints: KeySet;
  constructor(name: string, protocol: string, family: 'ipv4' | 'ipv6', vs: VirtualService, localEndpoints: KeySet) {
    this.name = name;
    this.protocol = protocol;
    this.family = family;
    this.#vs = vs;
    this.#localEndpoints = localEndpoints;
  }

  get endpoints(): Endpoint[] {
    return (this.#endpoints ??= endpointsOf(this.#vs, this.protocol, this.#localEndpoints));
  }
  set endpoints(endpoints: Endpoint[]) {
    this.#endpoints = endpoints;
  }
}

/** The endpoints of a Service: the real servers of its virtual service, with their weight shares. */
function endpointsOf(vs: VirtualService, protocol: string, localEndpoints: KeySet): Endpoint[] {
  // weightShares reads only the scheduler and the real servers (no copy of the whole service).
  const shareInput = { realServers: vs.realServers, scheduler: vs.scheduler === 'rr' || vs.scheduler === 'wrr' ? vs.scheduler : 'wrr' } as VirtualService;
  const shares = weightShares(shareInput) ?? vs.realServers.map(() => 1 / Math.max(1, vs.realServers.length));
  return vs.realServers.map((r, i) => {
    const e: Endpoint = new RealServerEndpoint(shares[i] ?? 0, r);
    // KUBE-LOOP-BACK lists endpointIP,proto:port,endpointIP for the endpoints on this node.
    // A fast-path IPv4 server's key is read from its line (canonicalIpPortKey's number, no address string made).
    const endpoint = RealServerNode.ipv4Endpoint(r);
    const p = protocolIndex(protocol);
    if (endpoint >= 0 && p !== undefined) {
      if (localEndpoints.has(endpoint * 3 + p)) e.local = true;
      return e;
    }
    const port = r.port;
    if (port === undefined) return e;
    const dotted = ipv4Number(r.address);
    const address = dotted === undefined ? canonical(r.address) : r.address;
    if (localEndpoints.has(canonicalIpPortKey(address, dotted ?? ipv4Number(address), port, protocol))) e.local = true;
    return e;
  });
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

/** tcp 0, udp 1, sctp 2 (a Map: compared in turn, a node's first udp Service would throw away optimised code). */
const PROTOCOL_INDEX = new Map([
  ['tcp', 0],
  ['udp', 1],
  ['sctp', 2],
]);

function protocolIndex(protocol: string): number | undefined {
  return PROTOCOL_INDEX.get(protocol);
}

/**
 * Address, port and protocol as one key: a number for a dotted IPv4 address, a port of 0–65535 and tcp, udp or
 * sctp (most keys of a node: no string to build and hash), else the string `address|port|protocol`. Two triples
 * get equal keys exactly when those strings would be equal.
 */
export function ipPortKey(address: string | undefined, port: number | undefined, protocol: string): string | number {
  // A dotted IPv4 address is already canonical: parsed once, not once by canonical() and again here.
  const v = address === undefined ? undefined : ipv4Number(address);
  if (v !== undefined) return canonicalIpPortKey(address!, v, port, protocol);
  const c = canonical(address);
  return canonicalIpPortKey(c, ipv4Number(c), port, protocol);
}

/** ipPortKey of a canonical address `c` whose ipv4Number is `v`. */
function canonicalIpPortKey(c: string, v: number | undefined, port: number | undefined, protocol: string): string | number {
  const p = protocolIndex(protocol);
  if (v !== undefined && p !== undefined && port !== undefined && Number.isInteger(port) && port >= 0 && port <= 65535) return (v * 65536 + port) * 3 + p;
  return `${c}|${port ?? ''}|${protocol}`;
}

/**
 * Members of a `hash:ip,port[,…]` set as address|port|protocol keys; with `selfOnly`, only the members whose
 * second address is their first (KUBE-LOOP-BACK's endpointIP,proto:port,endpointIP).
 */
function ipPortKeys(set: IpSet | undefined, selfOnly = false): KeySet {
  const keys = new KeySet();
  if (!set || set.type.startsWith('bitmap:port')) return keys.done();
  for (const m of set.members) {
    // kube-proxy's IPv4 members keep address, port and protocol packed: their key without making their strings.
    const value = m instanceof Ipv4PortMemberNode ? m.addressValue() : undefined;
    if (value !== undefined) {
      const packed = m as Ipv4PortMemberNode;
      if (!selfOnly || (packed instanceof Ipv4PortIpMemberNode && packed.repeatsAddress())) keys.add((value * 65536 + packed.port) * 3 + packed.protocolIndex());
      continue;
    }
    if (m.address === undefined || m.port === undefined) continue;
    if (selfOnly && (m.address2 === undefined || canonical(m.address2) !== canonical(m.address))) continue;
    keys.add(ipPortKey(m.address, m.port, (m.protocol ?? 'tcp').toLowerCase()));
  }
  return keys.done();
}

/**
 * A set of ipPortKey keys: the numbers in a sorted typed array searched by bisection (a Set of the 30,000
 * KUBE-LOOP-BACK members of a 10,000-Service node costs megabytes of hash table and boxed numbers), the strings
 * in a Set. add() every key, then done(), then has().
 */
export class KeySet {
  #numbers = new Float64Array(16);
  #count = 0;
  readonly #strings = new Set<string>();

  add(key: string | number): void {
    if (typeof key === 'string') {
      this.#strings.add(key);
      return;
    }
    if (this.#count === this.#numbers.length) this.#numbers = grown(this.#numbers, this.#numbers.length * 2);
    this.#numbers[this.#count++] = key;
  }

  /** Sorts the numbers; no add() after it. */
  done(): this {
    this.#numbers = this.#numbers.slice(0, this.#count).sort();
    return this;
  }

  has(key: string | number): boolean {
    if (typeof key === 'string') return this.#strings.has(key);
    const at = lowerBound(this.#numbers, key);
    return at < this.#numbers.length && this.#numbers[at] === key;
  }
}

/**
 * The ports of a `bitmap:port` set (none for another type), one flag per port. Ranges are filled in port order,
 * each port once: 100,000 members `0-65535` must not cost 100,000 × 65,536 steps.
 */
function bitmapPorts(set: IpSet | undefined): Uint8Array {
  const ports = new Uint8Array(65_536);
  if (!set || !set.type.startsWith('bitmap:port')) return ports;
  const ranges: [number, number][] = [];
  for (const m of set.members) if (m.port !== undefined) ranges.push([m.port, Math.min(m.portTo ?? m.port, 65_535)]);
  ranges.sort((a, b) => a[0] - b[0]);
  let next = 0;
  for (const [from, to] of ranges) {
    if (to < next) continue;
    ports.fill(1, Math.max(from, next), to + 1);
    next = to + 1;
  }
  return ports;
}

function schedulerNote(scheduler: string | undefined): string {
  const s = scheduler ?? 'wlc';
  if (s === 'rr' || s === 'wrr') return t('{0}: new connections are spread by weight, so the shares are exact.', s);
  if (CONNECTION_COUNT_SCHEDULERS.has(s)) return t('{0}: the choice depends on live connection counts; the shares shown are the weight shares, what an idle node would give.', s);
  if (SOURCE_HASH_SCHEDULERS.has(s)) return t('{0}: a hash of the client address picks the real server, so each client always reaches the same one; the shares are over many clients.', s);
  if (DESTINATION_SCHEDULERS.has(s)) return t('{0}: the destination address picks the real server; the shares are the weight shares.', s);
  return t('{0}: the shares shown are the weight shares.', s);
}

// The kinds of frontend kindOf answers (shared: no object per virtual service).
const CLUSTER_IP = Object.freeze({ kind: 'clusterIP', uncertain: false } as const);
const LOAD_BALANCER = Object.freeze({ kind: 'loadBalancer', uncertain: false } as const);
const EXTERNAL_IP = Object.freeze({ kind: 'externalIP', uncertain: false } as const);
const NODE_PORT = Object.freeze({ kind: 'nodePort', uncertain: false } as const);
type KindOf = { readonly kind: FrontendKind; readonly uncertain: boolean; readonly note?: string };

/** 127.0.0.0/8 or ::1 (parsed only when it could be: most addresses of a dump are neither). */
function isLoopbackText(address: string): boolean {
  if (address.startsWith('127.')) return true;
  const a = address.includes(':') ? parseAddress(address) : undefined;
  return a !== undefined && isLoopback(a);
}

/** kube-proxy's default --service-node-port-range. */
const NODE_PORT_RANGE = { from: 30000, to: 32767 };

/**
 * Which virtual services of an IPVS dump are probably NodePorts, with why: kube-proxy binds a NodePort on every
 * node address (the same port and protocol on several addresses, in the NodePort range) and on loopback, where no
 * ClusterIP or external address can be. A guess: IPVS keeps no Service kinds (kube-proxy's ipsets tell for sure).
 */
export function probableNodePorts(services: readonly VirtualService[]): (vs: VirtualService) => string | undefined {
  const addresses = new Map<string, Set<string>>();
  for (const vs of services) {
    if (vs.protocol === 'fwmark' || vs.address === undefined || vs.port === undefined) continue;
    const k = `${vs.protocol}|${vs.port}`;
    let set = addresses.get(k);
    if (!set) addresses.set(k, (set = new Set()));
    if (set.size < 64) set.add(vs.address.includes(':') ? canonical(vs.address) : vs.address);
  }
  return (vs) => {
    if (vs.protocol === 'fwmark' || vs.address === undefined || vs.port === undefined) return undefined;
    if (isLoopbackText(vs.address)) return t('probably a NodePort: a loopback address, where kube-proxy binds NodePorts and no ClusterIP can be');
    const n = addresses.get(`${vs.protocol}|${vs.port}`)?.size ?? 0;
    if (n >= 2 && vs.port >= NODE_PORT_RANGE.from && vs.port <= NODE_PORT_RANGE.to) return t('probably a NodePort: the same port on {0} node addresses', n);
    return undefined;
  };
}

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
  const localEndpoints = ipPortKeys(sets.get('KUBE-LOOP-BACK') ?? sets.get('KUBE-6-LOOP-BACK'), true);
  const clusterCIDR = clusterCidrOf(input.iptables);
  const nodePortMasq = nodePortMasquerades(input.iptables);
  const entries = frontendEntries(input, frontendKinds(input, sets));
  const runs = new RealKeyRuns();
  const groups: Group[] = [];
  const groupOf = groupEntries(entries, groups, runs, serviceMaker(clusterCIDR, localEndpoints, runs, groups));
  fillFrontends(entries, groups, groupOf);
  for (const g of groups) {
    if (g.service.frontends.some((f) => f.kind !== 'clusterIP') && !g.service.policies.externalTrafficPolicy) g.service.policies.externalTrafficPolicy = 'Cluster';
    if (g.service.policies.externalTrafficPolicy !== 'Local' && nodePortMasq.has(g.service.protocol) && g.service.frontends.some((f) => f.kind === 'nodePort')) g.service.policies.nodePortMasquerade = true;
    sortFrontends(g.service.frontends);
  }
  return { mode: 'ipvs', services: sortedServices(groups.map((g) => g.service)), diagnostics };
}

/** A Service of the catalog with the real servers of the virtual service it was made from. */
interface Group {
  service: Service;
  reals: RealRun;
}

/**
 * The virtual services that are frontends (entries), with their file and kind: parallel arrays, not an object
 * each (docs/performance.md#memory: ~20,000 of them would live as long as the catalog is built, then be garbage).
 */
interface Entries {
  vs: VirtualService[];
  file: Int32Array;
  kind: KindOf[];
  count: number;
}

/** The frontend kind of a virtual service, and whether it is a guess, by kube-proxy's ipsets. */
function frontendKinds(input: IpvsSnapshotInput, sets: Map<string, IpSet>): (vs: VirtualService) => KindOf {
  const haveSets = input.ipsets.length > 0;
  const cluster = ipPortKeys(sets.get('KUBE-CLUSTER-IP') ?? sets.get('KUBE-6-CLUSTER-IP'));
  const lb = ipPortKeys(sets.get('KUBE-LOAD-BALANCER') ?? sets.get('KUBE-6-LOAD-BALANCER'));
  const external = ipPortKeys(sets.get('KUBE-EXTERNAL-IP') ?? sets.get('KUBE-6-EXTERNAL-IP'));
  const nodePorts = new Map<string, Uint8Array>();
  for (const proto of ['tcp', 'udp', 'sctp']) {
    const up = proto.toUpperCase();
    nodePorts.set(proto, bitmapPorts(sets.get(`KUBE-NODE-PORT-${up}`) ?? sets.get(`KUBE-6-NODE-PORT-${up}`)));
  }
  const sctpHash = ipPortKeys(sets.get('KUBE-NODE-PORT-SCTP-HASH') ?? sets.get('KUBE-6-NODE-PORT-SCTP-HASH'));
  // Without the ipset dump the kind is a guess: NodePorts by their addresses, the rest taken to be ClusterIPs.
  const nodePortGuess = haveSets ? undefined : probableNodePorts(input.ipvs.flatMap((x) => x.dump.services));
  const guessedClusterIP: KindOf = Object.freeze({ kind: 'clusterIP', uncertain: true, note: t('probably a ClusterIP: without the ipset dump (`ipset save`) the kinds of addresses are guesses') });
  const guessedExternalIP: KindOf = Object.freeze({ kind: 'externalIP', uncertain: true, note: t("in none of kube-proxy's ClusterIP, NodePort and load-balancer ipsets: probably an external IP") });
  return (vs) => {
    const proto = vs.protocol === 'fwmark' ? 'tcp' : vs.protocol;
    const k = ipPortKey(vs.address, vs.port, proto);
    if (cluster.has(k)) return CLUSTER_IP;
    if (lb.has(k)) return LOAD_BALANCER;
    if (external.has(k)) return EXTERNAL_IP;
    if (vs.port !== undefined && (nodePorts.get(proto)?.[vs.port] === 1 || sctpHash.has(k))) return NODE_PORT;
    // Without the ipset dump (or for an address it does not list) the kind is a guess.
    if (haveSets) return guessedExternalIP;
    const note = nodePortGuess?.(vs);
    return note ? { kind: 'nodePort', uncertain: true, note } : guessedClusterIP;
  };
}

/** The virtual services with an address and port, in dump order, with their file and kind. */
function frontendEntries(input: IpvsSnapshotInput, kindOf: (vs: VirtualService) => KindOf): Entries {
  let capacity = 0;
  for (const { dump } of input.ipvs) capacity += dump.services.length;
  const entries: Entries = { vs: new Array<VirtualService>(capacity), file: new Int32Array(capacity), kind: new Array<KindOf>(capacity), count: 0 };
  for (const { dump, fileIndex } of input.ipvs) {
    for (const vs of dump.services) {
      if (vs.protocol === 'fwmark' || vs.address === undefined || vs.port === undefined) continue;
      entries.vs[entries.count] = vs;
      entries.file[entries.count] = fileIndex;
      entries.kind[entries.count++] = kindOf(vs);
    }
  }
  return entries;
}

/** Makes the Service of a virtual service (named after it) and adds it to `groups`. */
function serviceMaker(clusterCIDR: string | undefined, localEndpoints: KeySet, runs: RealKeyRuns, groups: Group[]): (vs: VirtualService) => Group {
  // The note of each scheduler, made once (the same text for every Service of the scheduler).
  const notes = new Map<string | undefined, string>();
  const noteOf = (scheduler: string | undefined): string => {
    let note = notes.get(scheduler);
    if (note === undefined) notes.set(scheduler, (note = schedulerNote(scheduler)));
    return note;
  };
  return (vs) => {
    const protocol = vs.protocol as string;
    // Joined, not concatenated: one flat string per Service (the sort reads each name's characters).
    const host = formatHostPort(canonical(vs.address), undefined, vs.family === 'ipv6');
    const service = new IpvsService([host, ':', String(vs.port)].join(''), protocol, vs.family, vs, localEndpoints);
    if (vs.persistent) service.policies.sessionAffinity = { kind: 'ClientIP', timeoutSeconds: vs.persistent.timeout };
    if (vs.realServers.length === 0) service.policies.noEndpoints = 'reject';
    if (clusterCIDR) service.policies.clusterCIDR = clusterCIDR;
    service.policies.scheduler = vs.scheduler ?? 'wlc';
    service.policies.schedulerNote = noteOf(vs.scheduler);
    const group = { service, reals: runs.add(vs) };
    groups.push(group);
    return group;
  };
}

/**
 * The group (index in groups) each entry is a frontend of. ClusterIPs anchor the Services; every other virtual
 * service joins the ClusterIP whose real servers it uses (all of them, or the local subset for traffic policy
 * Local), or stands alone when that is unclear.
 */
function groupEntries(entries: Entries, groups: Group[], runs: RealKeyRuns, makeService: (vs: VirtualService) => Group): Int32Array {
  const groupOf = new Int32Array(entries.count);
  for (let k = 0; k < entries.count; k++) {
    if (entries.kind[k].kind !== 'clusterIP') continue;
    makeService(entries.vs[k]);
    groupOf[k] = groups.length - 1;
  }
  // The ClusterIP Services by protocol and real server, built once: a joining virtual service only looks at
  // the Services that have its rarest real server, not at every Service (linear, not quadratic, in size).
  const byReal = new GroupsByReal(
    groups.length,
    (k) => groups[k].service.protocol,
    (k) => runs.keysView(groups[k].reals),
    runs.size,
  );
  for (let k = 0; k < entries.count; k++) {
    if (entries.kind[k].kind === 'clusterIP') continue;
    const vs = entries.vs[k];
    // The keys of a joining virtual service are looked at here only: its run is dropped again below.
    const reals = runs.add(vs);
    const chosenIndex = joinedGroup(vs, reals, groups, runs, byReal);
    const chosen = chosenIndex === undefined ? undefined : groups[chosenIndex];
    const local = chosen !== undefined && runs.sizeOf(reals) < runs.sizeOf(chosen.reals);
    runs.dropFrom(reals);
    if (chosen) {
      groupOf[k] = chosenIndex!;
      if (local) chosen.service.policies.externalTrafficPolicy = 'Local';
      if (vs.persistent && !chosen.service.policies.sessionAffinity) chosen.service.policies.sessionAffinity = { kind: 'ClientIP', timeoutSeconds: vs.persistent.timeout };
    } else {
      makeService(vs);
      groupOf[k] = groups.length - 1;
    }
  }
  return groupOf;
}

/** The ClusterIP group whose real servers include all of `reals` (exactly them, if several do), when just one does. */
function joinedGroup(vs: VirtualService, reals: RealRun, groups: Group[], runs: RealKeyRuns, byReal: GroupsByReal): number | undefined {
  // The pool is the Services of the rarest real server (the first of the rarest): counted, then listed once.
  let rarest: string | number | undefined;
  let fewest = Infinity;
  for (const r of runs.keysOf(reals)) {
    const count = byReal.countWith(vs.protocol, r);
    if (count < fewest) {
      rarest = r;
      fewest = count;
    }
    if (count === 0) break;
  }
  const pool = rarest === undefined ? [] : byReal.groupsWith(vs.protocol, rarest);
  const candidates = pool.filter((g) => runs.containsAll(groups[g].reals, reals));
  const exact = candidates.filter((g) => runs.sizeOf(groups[g].reals) === runs.sizeOf(reals));
  return exact.length === 1 ? exact[0] : exact.length === 0 && candidates.length === 1 ? candidates[0] : undefined;
}

/**
 * Each group's frontends and objects: its own entry first, then the ones that joined it, in their order. The
 * lists are made at their size (grown by push, they would be garbage in the old generation by then, docs/performance.md#memory).
 */
function fillFrontends(entries: Entries, groups: Group[], groupOf: Int32Array): void {
  const counts = new Int32Array(groups.length);
  for (let k = 0; k < entries.count; k++) counts[groupOf[k]]++;
  for (let g = 0; g < groups.length; g++) {
    groups[g].service.frontends = new Array<Frontend>(counts[g]);
    groups[g].service.objects = new Array<ObjectRef>(counts[g]);
  }
  const filled = new Int32Array(groups.length);
  const tableIds: string[] = [];
  const fill = (k: number) => {
    const vs = entries.vs[k];
    const kind = entries.kind[k];
    const service = groups[groupOf[k]].service;
    const f: Frontend = new VirtualServiceFrontend(kind.kind, canonical(vs.address), vs.port!, vs);
    if (kind.uncertain) f.kindUncertain = true;
    if (kind.note) f.kindNote = kind.note;
    const at = filled[groupOf[k]]++;
    service.frontends[at] = f;
    service.objects[at] = new VirtualServiceObject(vs, (tableIds[entries.file[k]] ??= `ipvs:${entries.file[k]}`));
  };
  for (let k = 0; k < entries.count; k++) if (entries.kind[k].kind === 'clusterIP') fill(k);
  for (let k = 0; k < entries.count; k++) if (entries.kind[k].kind !== 'clusterIP') fill(k);
}

/** tcp, udp and sctp in plainOrder (the collator's order, whatever the locale): their rank there by protocolIndex. */
const PROTOCOL_RANK = (() => {
  const names = ['tcp', 'udp', 'sctp'];
  const sorted = [...names].sort((a, b) => plainOrder.compare(a, b));
  return names.map((n) => sorted.indexOf(n));
})();

/**
 * `services` ordered by name (numericOrder) then protocol (plainOrder). When every name is a dotted `address:port`
 * (endpointNumber's form, a ClusterIP Service's) and every protocol tcp, udp or sctp, numericOrder orders the names as
 * the numbers of their digit runs, which is the order of endpointNumber: the sort compares numbers, not the
 * collator's keys (~140,000 collator comparisons on a node of 10,000 Services). The sorts are stable and agree on
 * every pair, so the order is the same.
 */
export function sortedServices(services: Service[]): Service[] {
  const n = services.length;
  const keys = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const { name, protocol } = services[k];
    const number = endpointNumber(name, 0, name.length);
    const p = protocolIndex(protocol);
    if (Number.isNaN(number) || p === undefined) {
      // One collator for the whole sort (what localeCompare with these options does per call).
      return services.sort((a, b) => numericOrder.compare(a.name, b.name) || plainOrder.compare(a.protocol, b.protocol));
    }
    keys[k] = number * 4 + PROTOCOL_RANK[p];
  }
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => keys[a] - keys[b] || a - b);
  return order.map((k) => services[k]);
}

/** A real server as address and port: a number for IPv4 (no key string to build and hash), else `address:port`. */
function realKey(canonicalAddress: string, ipv4: number | undefined, port: number | undefined): string | number {
  return ipv4 === undefined ? `${canonicalAddress}:${port ?? ''}` : ipv4 * 65537 + (port === undefined ? 0 : port + 1);
}

/** The distinct real server keys of one virtual service: #numbers[start, end) of its RealKeyRuns, plus strings. */
interface RealRun {
  start: number;
  end: number;
  strings: Set<string> | undefined;
}

/** Past this many real servers, a run is deduplicated with a Set rather than by scanning it. */
const FEW_REAL_SERVERS = 16;

/**
 * The distinct real servers of virtual services as realKey keys, for grouping them. The numeric keys of every
 * virtual service are runs of one growing Float64Array, each sorted: an array and a boxed number per real server
 * of a 10,000-Service node are ~5 MB that live until the catalog is built (docs/performance.md#memory: peak memory). Which
 * Service a virtual service joins does not depend on the order of its keys.
 */
class RealKeyRuns {
  #numbers = new Float64Array(1024);
  #count = 0;

  /** How many numeric keys the runs hold. */
  get size(): number {
    return this.#count;
  }

  /** A new run at the end, with the keys of `vs`'s real servers. */
  add(vs: VirtualService): RealRun {
    const run: RealRun = { start: this.#count, end: this.#count, strings: undefined };
    let seen: Set<number> | undefined;
    for (const r of vs.realServers) {
      // A fast-path IPv4 server's realKey is read from its line (no address string made).
      const endpoint = RealServerNode.ipv4Endpoint(r);
      let key: string | number;
      // realKey of address * 65536 + port: address * 65537 + port + 1 (no remainder of a double to take).
      if (endpoint >= 0) key = endpoint + Math.floor(endpoint / 65536) + 1;
      else {
        const v = ipv4Number(r.address);
        const address = v === undefined ? canonical(r.address) : r.address;
        key = realKey(address, v ?? ipv4Number(address), r.port);
      }
      // A key that is not a finite number (a port of NaN) is kept as its string: bisection cannot find it.
      if (typeof key === 'string' || !Number.isFinite(key)) {
        (run.strings ??= new Set()).add(String(key));
        continue;
      }
      if (seen ? seen.has(key) : this.#has(run, key)) continue;
      if (!seen && run.end - run.start >= FEW_REAL_SERVERS) seen = new Set(this.#numbers.subarray(run.start, run.end));
      seen?.add(key);
      if (this.#count === this.#numbers.length) this.#numbers = grown(this.#numbers, this.#numbers.length * 2);
      this.#numbers[this.#count++] = key;
      run.end = this.#count;
    }
    const numbers = this.#numbers;
    if (run.end - run.start > FEW_REAL_SERVERS) numbers.subarray(run.start, run.end).sort();
    else {
      // A few keys (most runs): sorted in place, without a view of them to make.
      for (let k = run.start + 1; k < run.end; k++) {
        const key = numbers[k];
        let j = k - 1;
        for (; j >= run.start && numbers[j] > key; j--) numbers[j + 1] = numbers[j];
        numbers[j + 1] = key;
      }
    }
    return run;
  }

  /** Whether the numbers of `run` (not yet sorted) have `key`. */
  #has(run: RealRun, key: number): boolean {
    for (let k = run.start; k < run.end; k++) if (this.#numbers[k] === key) return true;
    return false;
  }

  /** Forgets `run` and every later one (a virtual service whose keys were needed once). */
  dropFrom(run: RealRun): void {
    this.#count = run.start;
  }

  sizeOf(run: RealRun): number {
    return run.end - run.start + (run.strings?.size ?? 0);
  }

  /** The keys of `run`, as they are (for GroupsByReal). */
  keysView(run: RealRun): RunKeys {
    return new RunKeys(this.#numbers, run.start, run.end, run.strings);
  }

  *keysOf(run: RealRun): Generator<string | number> {
    for (let k = run.start; k < run.end; k++) yield this.#numbers[k];
    if (run.strings) yield* run.strings;
  }

  /** Whether `run` has every key of `items`. */
  containsAll(run: RealRun, items: RealRun): boolean {
    for (let k = items.start; k < items.end; k++) {
      const at = lowerBound(this.#numbers, this.#numbers[k], run.start, run.end);
      if (at >= run.end || this.#numbers[at] !== this.#numbers[k]) return false;
    }
    if (items.strings) for (const item of items.strings) if (!run.strings?.has(item)) return false;
    return true;
  }
}

/** The reals of a group as numbers[start, end) of a typed array, then other keys: read without a generator. */
export class RunKeys {
  constructor(
    readonly numbers: Float64Array,
    readonly start: number,
    readonly end: number,
    readonly strings: Iterable<string> | undefined,
  ) {}
}

/** (key, group) pairs in two typed arrays that grow together. */
class KeyGroupPairs {
  keys: Float64Array;
  groups: Int32Array;
  count = 0;

  constructor(size: number) {
    this.keys = new Float64Array(size);
    this.groups = new Int32Array(size);
  }

  push(key: number, group: number): void {
    const count = this.count;
    if (count === this.keys.length) {
      this.keys = grown(this.keys, count * 2);
      this.groups = grown(this.groups, count * 2);
    }
    this.keys[count] = key;
    this.groups[count] = group;
    this.count = count + 1;
  }
}

/**
 * The groups (by index) that have a real server, per protocol. IPv4 real servers of tcp, udp and sctp (numeric
 * keys) are kept in sorted typed arrays and found by bisection: a Map of the ~100,000 real servers of a
 * 10,000-Service node costs ~7 MB of hash tables (docs/performance.md#memory: peak memory). Other keys go to a Map.
 */
export class GroupsByReal {
  /** The distinct numeric keys (sortKey), ascending. */
  readonly #keys: Float64Array;
  /** The groups of #keys[k] are #owners[#starts[k]] … #owners[#starts[k + 1] - 1], in increasing order. */
  readonly #starts: Int32Array;
  readonly #owners: Int32Array;
  readonly #others = new Map<string, Map<string | number, number[]>>();

  /**
   * Groups 0 … `groups` - 1, each with a protocol and its real servers (no object per group to hand them in).
   * `sizeHint`: about how many reals the groups have (the arrays are made that size at first).
   */
  constructor(groups: number, protocolOf: (group: number) => string, realsOf: (group: number) => Iterable<string | number> | RunKeys, sizeHint = 1024) {
    // Each group's reals are read once: the numeric keys and their groups, in group order, go to two growing
    // typed arrays. The catalog's are runs of a typed array, read in place (no generator to resume per real).
    const initial = Math.max(16, Math.min(sizeHint, 1 << 26));
    const pairs = new KeyGroupPairs(initial);
    for (let index = 0; index < groups; index++) {
      const protocol = protocolOf(index);
      const reals = realsOf(index);
      if (reals instanceof RunKeys) {
        const p = protocolIndex(protocol);
        const numbers = reals.numbers;
        for (let k = reals.start; k < reals.end; k++) {
          const r = numbers[k];
          // sortKey's test, with the protocol's index found once.
          if (p === undefined || !Number.isInteger(r) || r < 0 || r > 2 ** 50) {
            this.#file(protocol, r, index);
            continue;
          }
          pairs.push(r * 3 + p, index);
        }
        if (reals.strings) for (const r of reals.strings) this.#file(protocol, r, index);
        continue;
      }
      for (const r of reals) {
        const key = sortKey(protocol, r);
        if (key === undefined) {
          this.#file(protocol, r, index);
          continue;
        }
        pairs.push(key, index);
      }
    }
    const { keys: pairKeys, groups: pairGroups, count } = pairs;
    const sorted = pairKeys.slice(0, count).sort();
    let distinct = 0;
    for (let k = 0; k < count; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) sorted[distinct++] = sorted[k];
    const keys = (this.#keys = sorted.subarray(0, distinct));
    // A counting sort of the (key, group) pairs: within a key, the groups stay in their order.
    const at = new Int32Array(count);
    const starts = new Int32Array(distinct + 1);
    for (let k = 0; k < count; k++) starts[(at[k] = lowerBound(keys, pairKeys[k])) + 1]++;
    for (let k = 0; k < distinct; k++) starts[k + 1] += starts[k];
    const next = starts.slice(0, distinct);
    const owners = new Int32Array(count);
    for (let k = 0; k < count; k++) owners[next[at[k]]++] = pairGroups[k];
    this.#starts = starts;
    this.#owners = owners;
  }

  #file(protocol: string, real: string | number, index: number): void {
    let byReal = this.#others.get(protocol);
    if (!byReal) this.#others.set(protocol, (byReal = new Map()));
    const list = byReal.get(real);
    if (list) list.push(index);
    else byReal.set(real, [index]);
  }

  /** How many groups have `real` (the length of groupsWith, without making the list). */
  countWith(protocol: string, real: string | number): number {
    const key = sortKey(protocol, real);
    if (key === undefined) return this.#others.get(protocol)?.get(real)?.length ?? 0;
    const at = lowerBound(this.#keys, key);
    if (at >= this.#keys.length || this.#keys[at] !== key) return 0;
    return this.#starts[at + 1] - this.#starts[at];
  }

  /** The indexes of the groups that have `real`, in increasing order. */
  groupsWith(protocol: string, real: string | number): number[] {
    const key = sortKey(protocol, real);
    if (key === undefined) return this.#others.get(protocol)?.get(real) ?? [];
    const at = lowerBound(this.#keys, key);
    if (at >= this.#keys.length || this.#keys[at] !== key) return [];
    return Array.from(this.#owners.subarray(this.#starts[at], this.#starts[at + 1]));
  }
}

/** A numeric real server key of tcp, udp or sctp as one exact number (a key of the typed arrays); else undefined. */
function sortKey(protocol: string, real: string | number): number | undefined {
  const p = protocolIndex(protocol);
  if (typeof real !== 'number' || p === undefined || !Number.isInteger(real) || real < 0 || real > 2 ** 50) return undefined;
  return real * 3 + p;
}

/** The first position of `sorted` (or of its part [low, high)) whose value is not below `value`. */
function lowerBound(sorted: Float64Array, value: number, low = 0, high = sorted.length): number {
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid] < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The protocols whose NodePorts nat's KUBE-NODE-PORT sends to KUBE-MARK-MASQ (`--match-set KUBE-NODE-PORT-TCP dst`). */
function nodePortMasquerades(rulesets: IptablesRuleset[]): Set<string> {
  const out = new Set<string>();
  for (const r of rulesets) {
    for (const table of r.tables) {
      if (table.name !== 'nat') continue;
      for (const rule of table.chainByName.get('KUBE-NODE-PORT')?.rules ?? []) {
        if (rule.target?.name !== 'KUBE-MARK-MASQ') continue;
        for (const m of rule.matches) {
          const set = m.module === 'set' ? m.options.find((o) => o.name === '--match-set' && !o.negated)?.values[0] : undefined;
          const proto = set && /^KUBE-(?:6-)?NODE-PORT-(TCP|UDP|SCTP)(?:-HASH)?$/.exec(set)?.[1];
          if (proto) out.add(proto.toLowerCase());
        }
      }
    }
  }
  return out;
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
