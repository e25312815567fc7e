// The Service catalog (DESIGN §4) of an nftables-mode node: kube-proxy's `table ip|ip6 kube-proxy`.
//
// nftables mode names every per-service object after the service port (`service-ULMVA6XW-ns1/svc1/tcp/p80`,
// `endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80`), so identities come from names rather than comments.
// Frontends are map elements: `service-ips` (ClusterIP, external and load-balancer IPs → `service-…` /
// `local-…` / `external-…` chains), `service-nodeports`, `no-endpoint-services` / `no-endpoint-nodeports`
// (drop, or goto reject-chain; their elements carry the "ns/name:port" comment) and `firewall-ips`
// (load-balancer IPs with loadBalancerSourceRanges). External and load-balancer IPs look the same in
// service-ips: only firewall-ips proves a load balancer; the others are reported as externalIP with
// kindUncertain. Endpoints and their shares come from each policy chain's `numgen random mod N vmap`.
import { CappedDiagnostics } from '../model/diagnostics';
import { formatAddress as formatIpAddress, formatHostPort, parseAddress as parseIpAddress } from '../model/address';
import type { NftChain, NftElement, NftExpression, NftMap, NftRule, NftRuleset, NftSet, NftStatement, NftTable, NftVerdictValue } from '../model/nft';
import type { Range } from '../model/range';
import { readRange, storeRange } from '../model/stored-ranges';
import { t } from '../l10n';
import {
  compareServices,
  NamedHashCheck,
  parseServicePortName,
  NamedObjectRef,
  sortFrontends,
  type Catalog,
  type Named,
  type Endpoint,
  type Frontend,
  type FrontendKind,
  type HashCheck,
  type ObjectRef,
  type Service,
  type ShortCircuit,
} from './service';
import { NFT_OBJECT_PREFIX, nftEndpointNameShows, nftHash8, nftObjectNameHashOk, nftServiceObjectKind, parseNftServiceObjectName, type NftServiceObjectKind, type NftServiceObjectName } from './nft-hash';
import { addressText, ruleFacts, vmapTargetOf, type NumgenVmapFact, type RuleFacts, type VmapTargetFact } from '../parse/nft/peek';
import { nameTable } from '../model/name-table';

// ---------------------------------------------------------------------------------------------------------
// Types: the shared catalog's, with nftables' object roles ('map-element', 'set-element', 'affinity-set').

export type NftObjectRole = ObjectRef['role'];
export type NftObjectRef = ObjectRef;
export type NftService = Service;
export interface NftCatalog extends Catalog {
  mode: 'nftables';
}

// ---------------------------------------------------------------------------------------------------------
// kube-proxy's fixed object names

export type NftKubeObjectKind =
  | 'base-chain'
  | 'services'
  | 'service-ips'
  | 'service-nodeports'
  | 'nodeport-ips'
  | 'cluster-ips'
  | 'cluster-ips-check'
  | 'no-endpoint-services'
  | 'no-endpoint-nodeports'
  | 'service-endpoints-check'
  | 'nodeport-endpoints-check'
  | 'endpoints-check'
  | 'reject-chain'
  | 'firewall-ips'
  | 'firewall-check'
  | 'mark-for-masquerade'
  | 'masquerading'
  | NftServiceObjectKind;

const FIXED_OBJECTS: Record<string, NftKubeObjectKind> = nameTable({
  services: 'services',
  'service-ips': 'service-ips',
  'service-nodeports': 'service-nodeports',
  'nodeport-ips': 'nodeport-ips',
  'cluster-ips': 'cluster-ips',
  'cluster-ips-check': 'cluster-ips-check',
  'no-endpoint-services': 'no-endpoint-services',
  'no-endpoint-nodeports': 'no-endpoint-nodeports',
  'service-endpoints-check': 'service-endpoints-check',
  'nodeport-endpoints-check': 'nodeport-endpoints-check',
  'endpoints-check': 'endpoints-check',
  'reject-chain': 'reject-chain',
  'firewall-ips': 'firewall-ips',
  'firewall-check': 'firewall-check',
  'mark-for-masquerade': 'mark-for-masquerade',
  masquerading: 'masquerading',
});

/** kube-proxy's base chains over the versions: `${type}-${hook}` plus the pre/post-DNAT filter chains. */
export const NFT_KUBE_BASE_CHAINS = [
  'filter-prerouting',
  'filter-prerouting-pre-dnat',
  'filter-input',
  'filter-forward',
  'filter-output',
  'filter-output-pre-dnat',
  'filter-output-post-dnat',
  'nat-prerouting',
  'nat-output',
  'nat-postrouting',
] as const;

/** What a chain, set or map of kube-proxy's table is; undefined for names kube-proxy does not use. */
export function classifyNftKubeObject(name: string): NftKubeObjectKind | undefined {
  const fixed = FIXED_OBJECTS[name];
  if (fixed) return fixed;
  if ((NFT_KUBE_BASE_CHAINS as readonly string[]).includes(name)) return 'base-chain';
  return parseNftServiceObjectName(name)?.kind;
}

/** A table kube-proxy's nftables mode wrote (or one shaped like it, as in kube-proxy's unit tests). */
export function isKubeProxyNftTable(table: NftTable): boolean {
  if (table.family !== 'ip' && table.family !== 'ip6' && table.family !== 'inet') return false;
  if (table.name === 'kube-proxy' || table.mapByName.has('service-ips')) return true;
  return table.chains.some((c) => {
    const kind = parseNftServiceObjectName(c.name)?.kind;
    return kind === 'service' || kind === 'endpoint';
  });
}

// ---------------------------------------------------------------------------------------------------------
// Small readers of the model

const MASQ_CHAIN = 'mark-for-masquerade';

/**
 * An endpoint whose range (the vmap element that selects it) is kept as numbers: the element belongs to a rule
 * whose statements are read again on demand, so nothing else would hold that range (docs/performance.md#memory).
 */
class NftEndpoint implements Endpoint {
  probability = 0;
  /** The range's start line, and its columns packed (storeRange); no range: #range undefined. */
  readonly #line: number;
  readonly #range: number | Range | undefined;
  constructor(
    readonly address: string,
    readonly port: number,
    readonly chain: string,
    range: Range | undefined,
  ) {
    this.#line = range ? range.start.line : -1;
    this.#range = range ? storeRange(range) : undefined;
  }

  get range(): Range | undefined {
    return this.#range === undefined ? undefined : readRange(this.#line, this.#range);
  }
}

/**
 * A set or map element as an object of a Service: its range is the element's, made when asked (the parser keeps an
 * element's range as numbers; a copy held here would be three more objects for each of some 30,000, docs/performance.md#memory).
 */
class ElementObjectRef implements ObjectRef {
  // A private field, not a property: answers sent to the extension host carry the range, not the element.
  readonly #element: NftElement;
  constructor(
    readonly name: string,
    readonly tableId: string,
    readonly role: 'map-element' | 'set-element',
    element: NftElement,
  ) {
    this.#element = element;
  }

  get range(): Range {
    return this.#element.range;
  }
}

/**
 * An endpoint chain as an object of its Service and as its hash check, one object for both (their ranges are the
 * chain's name): two objects each for 100,000 endpoints were some 11 MB of what the analysis kept (docs/performance.md#memory).
 */
class EndpointChainRef implements ObjectRef, HashCheck {
  // Private fields, not properties: answers sent to the extension host carry the ranges, not the chain.
  readonly #chain: NftChain;
  /** The name kube-proxy would write, when the hash does not match. */
  readonly #expected: string | undefined;
  constructor(
    readonly name: string,
    readonly tableId: string,
    chain: NftChain,
    expected: string | undefined,
  ) {
    this.#chain = chain;
    this.#expected = expected;
  }

  get role(): 'endpoint-chain' {
    return 'endpoint-chain';
  }

  get chain(): string {
    return this.name;
  }

  get expected(): string {
    return this.#expected ?? this.name;
  }

  get ok(): boolean {
    return this.#expected === undefined;
  }

  get range(): Range {
    return this.#chain.nameRange;
  }
}

function verdictOf(value: NftElement['value']): NftVerdictValue | undefined {
  return value && typeof value !== 'string' ? value : undefined;
}

/** Seconds from nft's time text: "3h", "10800s", "1d1h1m1s", "500ms"; a bare number counts as seconds. */
export function parseNftTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = text.trim();
  if (/^\d+$/.test(s)) return Number(s);
  let total = 0;
  let matched = '';
  for (const m of s.matchAll(/(\d+)(ms|d|h|m|s)/g)) {
    const n = Number(m[1]);
    total += m[2] === 'd' ? n * 86400 : m[2] === 'h' ? n * 3600 : m[2] === 'm' ? n * 60 : m[2] === 's' ? n : n / 1000;
    matched += m[0];
  }
  return matched === s && s !== '' ? total : undefined;
}

function isAddressPayload(e: NftExpression, field: 'saddr' | 'daddr'): boolean {
  return e.kind === 'payload' && (e.protocol === 'ip' || e.protocol === 'ip6') && e.field === field;
}

function finalVerdict(rule: NftRule): NftStatement | undefined {
  for (let i = rule.statements.length - 1; i >= 0; i--) {
    const s = rule.statements[i]!;
    if (s.kind === 'comment') continue;
    return s;
  }
  return undefined;
}

function jumpsTo(facts: RuleFacts, chain: string, kind: 'jump' | 'goto'): boolean {
  return facts.verdict?.chain === chain && facts.verdict.kind === kind;
}

/** The sources an external chain sends to the Service's cluster chain before its local policy (ShortCircuit). */
function shortCircuitOf(ext: NftChain, serviceChain: string): ShortCircuit | undefined {
  const out: ShortCircuit = {};
  for (const r of ext.rules) {
    const facts = ruleFacts(r);
    if (!jumpsTo(facts, serviceChain, 'goto')) continue;
    const src = facts.addressMatches.find((m) => m.field === 'saddr' && !m.negated && m.address !== undefined);
    if (facts.fibSaddr) out.node = true;
    else if (src) out.podSource ??= src.address;
    else {
      const iif = matches(r).find((m) => m.left.kind === 'meta' && (m.left.key === 'iifname' || m.left.key === 'iif') && !m.negated && m.op !== '!=');
      const name = iif?.right.kind === 'value' ? iif.right.value : undefined;
      if (name !== undefined) out.podInterface ??= name.replace(/^"|"$/g, '');
    }
  }
  return out.node || out.podSource !== undefined || out.podInterface !== undefined ? out : undefined;
}

function matches(rule: NftRule): Extract<NftStatement, { kind: 'match' }>[] {
  return rule.statements.filter((s): s is Extract<NftStatement, { kind: 'match' }> => s.kind === 'match');
}

// Address intervals (for loadBalancerSourceRanges, normalized like nft prints anonymous interval sets).

function parseAddress(text: string): { bits: number; value: bigint } | undefined {
  const a = parseIpAddress(text);
  return a ? { bits: a.family === 4 ? 32 : 128, value: a.value } : undefined;
}

function formatAddress(bits: number, v: bigint): string {
  return formatIpAddress({ family: bits === 32 ? 4 : 6, value: v });
}

/** Sorted, merged intervals as "a.b.c.d/len", "a-b" or a bare address (what nft would print). */
export function normalizeAddressIntervals(items: string[]): string[] {
  const intervals: { bits: number; from: bigint; to: bigint }[] = [];
  for (const item of items) {
    const dash = item.indexOf('-');
    const slash = item.indexOf('/');
    if (dash > 0) {
      const a = parseAddress(item.slice(0, dash));
      const b = parseAddress(item.slice(dash + 1));
      if (a && b && a.bits === b.bits) intervals.push({ bits: a.bits, from: a.value, to: b.value });
    } else {
      const a = parseAddress(slash > 0 ? item.slice(0, slash) : item);
      if (!a) continue;
      const len = slash > 0 ? Number(item.slice(slash + 1)) : a.bits;
      if (!Number.isInteger(len) || len < 0 || len > a.bits) continue;
      const host = BigInt(a.bits - len);
      const from = (a.value >> host) << host;
      intervals.push({ bits: a.bits, from, to: from + (1n << host) - 1n });
    }
  }
  intervals.sort((x, y) => x.bits - y.bits || (x.from < y.from ? -1 : x.from > y.from ? 1 : 0));
  const merged: typeof intervals = [];
  for (const iv of intervals) {
    const last = merged[merged.length - 1];
    if (last && last.bits === iv.bits && iv.from <= last.to + 1n) {
      if (iv.to > last.to) last.to = iv.to;
    } else merged.push({ ...iv });
  }
  return merged.map(({ bits, from, to }) => {
    if (from === to) return formatAddress(bits, from);
    const size = to - from + 1n;
    if ((size & (size - 1n)) === 0n && from % size === 0n) {
      let host = 0;
      for (let s = size; s > 1n; s >>= 1n) host++;
      return `${formatAddress(bits, from)}/${bits - host}`;
    }
    return `${formatAddress(bits, from)}-${formatAddress(bits, to)}`;
  });
}

// ---------------------------------------------------------------------------------------------------------
// The builder

/** EndpointChains' flags. */
const ENDPOINT = 1;
const REFERENCED = 2;
const HASH_OK = 4;
const HASH_MISMATCH = 8;

/**
 * The endpoint chains of the table being read, with what the builder learns about them on the way: a few bits per
 * chain in a byte array indexed by the line the chain is declared on (a table of 100,000 names was 7 MB of garbage
 * from the table's reading, docs/performance.md#memory), the few hash mismatches and affinity sets apart. Chains are found by name
 * through the table. When two endpoint chains are declared on one line (a one-line ruleset), by chain instead.
 */
class EndpointChains {
  /** Flags by declaration line, or undefined when chains share lines. */
  #byLine: Uint8Array | undefined;
  readonly #byChain = new Map<NftChain, number>();
  /** The name kube-proxy would write, for chains whose hash does not match (see nameCheck). */
  readonly #expected = new Map<NftChain, string>();
  /** The affinity set kube-proxy names after a chain (affinity-<same hash and name>), when the table has one. */
  readonly #affinity = new Map<NftChain, string>();
  /** Chains that are not the table's chain of their name (none in a dump kube-proxy wrote). */
  readonly #other = new Map<string, NftChain>();
  /** The chains added, in the table's order. */
  readonly #added: NftChain[] = [];

  /**
   * Whether each of the table's chains is the chain of its name. The parsers add a chain to both or neither, and
   * take it out of both (a rename over another chain's name only drops that one from chainByName), so equal sizes
   * tell: no lookup per endpoint chain in a map of 100,000 names then.
   */
  readonly #allByName: boolean;

  constructor(
    private readonly table: NftTable,
    lineCount: number,
  ) {
    this.#byLine = new Uint8Array(Math.max(0, lineCount));
    this.#allByName = table.chainByName.size === table.chains.length;
  }

  /** An endpoint chain and its hash check (nameCheck). */
  add(chain: NftChain, check: string | true | undefined): void {
    if (!this.#allByName && this.table.chainByName.get(chain.name) !== chain) this.#other.set(chain.name, chain);
    if (typeof check === 'string') this.#expected.set(chain, check);
    this.#added.push(chain);
    this.#set(chain, ENDPOINT | (check === true ? HASH_OK : check === undefined ? 0 : HASH_MISMATCH), true);
  }

  #get(chain: NftChain): number {
    const byLine = this.#byLine;
    if (byLine === undefined) return this.#byChain.get(chain) ?? 0;
    const line = chain.range.start.line;
    return line >= 0 && line < byLine.length ? byLine[line] : 0;
  }

  #set(chain: NftChain, flags: number, adding = false): void {
    const byLine = this.#byLine;
    if (byLine !== undefined) {
      const line = chain.range.start.line;
      if (Number.isInteger(line) && line >= 0 && line < byLine.length && !(adding && byLine[line] !== 0)) {
        byLine[line] = flags;
        return;
      }
      // A line shared with another endpoint chain (or none): keep every chain's flags by chain from now on.
      this.#byLine = undefined;
      for (const c of this.#added) if (c !== chain) this.#byChain.set(c, byLine[c.range.start.line] ?? 0);
    }
    this.#byChain.set(chain, flags);
  }

  /** The endpoint chain of that name, if the table has one. */
  chain(name: string): NftChain | undefined {
    // Only names spelled like an endpoint chain's are looked at (a shared line may hold another chain).
    if (nftServiceObjectKind(name) !== 'endpoint') return undefined;
    const chain = this.#other.get(name) ?? this.table.chainByName.get(name);
    return chain !== undefined && this.#get(chain) & ENDPOINT ? chain : undefined;
  }

  /** The hash check of an endpoint chain (see nameCheck). */
  check(chain: NftChain): string | true | undefined {
    const flags = this.#get(chain);
    return flags & HASH_OK ? true : flags & HASH_MISMATCH ? this.#expected.get(chain) : undefined;
  }

  /** A Service chain's numgen vmap sends traffic to an endpoint chain. */
  markReferenced(chain: NftChain): void {
    this.#set(chain, this.#get(chain) | REFERENCED);
  }

  setAffinity(name: string, set: string): void {
    const chain = this.chain(name);
    if (chain !== undefined) this.#affinity.set(chain, set);
  }

  affinity(chain: NftChain): string | undefined {
    return this.#affinity.get(chain);
  }

  /** The chains no Service chain sends traffic to, in the table's order. */
  *unreferenced(): Generator<NftChain> {
    for (const chain of this.#added) if (!(this.#get(chain) & REFERENCED)) yield chain;
  }
}

/**
 * What the rules of an endpoint chain say: the first DNAT, and the sets they update. Kept while one Service is
 * read, not with its endpoint chain: 100,000 of them outlived the whole table's reading for nothing (docs/performance.md#memory).
 */
interface EndpointRules {
  dnat: { address: string; port: number } | undefined;
  setUpdates: readonly string[];
}

const NO_SET_UPDATES: readonly string[] = Object.freeze([]);

const SERVICE_CHAIN_KINDS = ['service', 'local', 'external', 'firewall'] as const;
const POLICY_CHAIN_KINDS = ['service', 'local'] as const;
const SERVICE_CHAIN_ROLES: Record<(typeof SERVICE_CHAIN_KINDS)[number], ObjectRef['role']> = {
  service: 'service-chain',
  local: 'service-local-chain',
  external: 'external-chain',
  firewall: 'firewall-chain',
};

interface Work {
  /** Its key in NftCatalogBuilder.works. */
  key: string;
  service: NftService;
  chains: Partial<Record<'service' | 'local' | 'external' | 'firewall', NftChain>>;
  /** The hash check of each of `chains` (see nameCheck): its name is parsed once, in step 1, and not kept. */
  chainChecks: Partial<Record<'service' | 'local' | 'external' | 'firewall', string | true>>;
  /** The chain the ClusterIP element of service-ips goes to. */
  primary?: string;
}

class NftCatalogBuilder {
  private readonly works = new Map<string, Work>();
  private readonly byFrontend = new Map<string, Work>();
  /** Per readable part of a Service port's chain names (`parsed.hashed`: its chains share it). */
  private readonly serviceHashes = new Map<string, string>();
  /** The Service of each service-, local-, external- and firewall- chain of the table being read. */
  private readonly chainWorks = new Map<string, Work>();
  /** Hints about the kube-proxy objects, capped: one per chain of a huge dump would be a million. */
  private readonly found = new CappedDiagnostics();

  constructor(private readonly ruleset: NftRuleset) {}

  build(): NftCatalog {
    for (const table of this.ruleset.tables) if (isKubeProxyNftTable(table)) this.table(table);
    const services = [...this.works.values()].map((w) => w.service);
    for (const s of services) this.finish(s);
    services.sort(compareServices);
    return { mode: 'nftables', services, diagnostics: this.found.items, unreported: this.found.unreported };
  }

  private familyOf(table: NftTable, address?: string): 'ipv4' | 'ipv6' {
    if (table.family === 'ip6') return 'ipv6';
    if (table.family === 'ip') return 'ipv4';
    return address?.includes(':') ? 'ipv6' : 'ipv4';
  }

  private work(table: NftTable, id: { namespace: string; name: string; portName: string; protocol: string }, family?: 'ipv4' | 'ipv6'): Work {
    const key = `${table.id}\u0000${id.namespace}/${id.name}:${id.portName}/${id.protocol}`;
    let w = this.works.get(key);
    if (!w) {
      const service: NftService = {
        namespace: id.namespace,
        name: id.name,
        portName: id.portName,
        protocol: id.protocol,
        frontends: [],
        endpoints: [],
        policies: {},
        objects: [],
        hashChecks: [],
        family: family ?? this.familyOf(table),
      };
      w = { key, service, chains: {}, chainChecks: {} };
      this.works.set(key, w);
    }
    return w;
  }

  private anonymousWork(table: NftTable, label: string, protocol: string, family: 'ipv4' | 'ipv6'): Work {
    const w = this.work(table, { namespace: '', name: label, portName: '', protocol }, family);
    w.service.anonymous = true;
    return w;
  }

  private frontendKey(table: NftTable, kind: FrontendKind, address: string | undefined, protocol: string, port: number): string {
    return `${table.id}\u0000${kind === 'nodePort' ? 'node' : address}\u0000${protocol}\u0000${port}`;
  }

  private addFrontend(table: NftTable, w: Work, f: Frontend, protocol: string): void {
    const s = w.service;
    const existing = s.frontends.find((x) => x.port === f.port && (f.kind === 'nodePort' ? x.kind === 'nodePort' : x.kind !== 'nodePort' && x.address === f.address));
    if (existing) {
      // A firewall-ips element proves a load balancer; a cluster-ips member a ClusterIP.
      if (f.kind === 'loadBalancer' || f.kind === 'clusterIP') {
        existing.kind = f.kind;
        delete existing.kindUncertain;
      }
      return;
    }
    s.frontends.push(f);
    this.byFrontend.set(this.frontendKey(table, f.kind, f.address, protocol, f.port), w);
  }

  private table(table: NftTable): void {
    // 1. Per-service chains give identities; endpoint chains and affinity sets are attached later.
    this.chainWorks.clear();
    const endpointChains = new EndpointChains(table, this.ruleset.lineCount);
    this.serviceObjectChains(table, endpointChains);
    const clusterIPs = new Set((table.setByName.get('cluster-ips')?.elements ?? []).map((e) => e.key[0] ?? ''));
    const firewallIPs = new Set((table.mapByName.get('firewall-ips')?.elements ?? []).map((e) => e.key.join(' . ')));
    // 2. Frontends with endpoints: service-ips, service-nodeports, firewall-ips.
    this.serviceIPs(table, clusterIPs, firewallIPs);
    this.otherFrontends(table);
    // 3. Frontends without (local) endpoints.
    this.noEndpointFrontends(table, clusterIPs, firewallIPs);
    const ofTable = this.worksOf(table);
    this.clusterIPObjects(table, ofTable);
    // 4. Chains: endpoints, masquerading, affinity, traffic policies, source ranges.
    for (const name of table.setByName.keys()) {
      if (!name.startsWith(NFT_OBJECT_PREFIX.affinity)) continue;
      endpointChains.setAffinity(NFT_OBJECT_PREFIX.endpoint + name.slice(NFT_OBJECT_PREFIX.affinity.length), name);
    }
    for (const w of ofTable) this.serviceChains(table, w, endpointChains);
    // 5. Leftovers: kube-proxy flushes the chains of deleted services and endpoints and deletes them a
    //    sync later; until then they are empty and unreferenced.
    this.staleChains(endpointChains, ofTable);
  }

  /** Step 1: the per-service chains of the table (by name: service, local, external, firewall; endpoint chains aside). */
  private serviceObjectChains(table: NftTable, endpointChains: EndpointChains): void {
    for (const chain of table.chains) {
      const kind = nftServiceObjectKind(chain.name);
      if (kind === undefined) continue;
      const parsed = kind === 'endpoint' || kind === 'affinity' ? undefined : parseNftServiceObjectName(chain.name)!;
      const check = this.nameCheck(chain.name, kind, parsed);
      if (typeof check === 'string') this.hashMismatch(check, chain);
      if (kind === 'endpoint') {
        endpointChains.add(chain, check);
        continue;
      }
      if (kind === 'affinity' || parsed === undefined) continue;
      const w = this.work(table, parsed);
      w.service.hash ??= parsed.hash;
      w.chains[kind] = chain;
      w.chainChecks[kind] = check;
      this.chainWorks.set(chain.name, w);
    }
  }

  /** Step 2: the frontends of the `service-ips` map (ClusterIPs, load-balancer and external IPs). */
  private serviceIPs(table: NftTable, clusterIPs: Set<string>, firewallIPs: Set<string>): void {
    const serviceIPs = table.mapByName.get('service-ips');
    for (const e of serviceIPs?.elements ?? []) {
      const [address, protocol, portText] = e.key;
      const target = verdictOf(e.value)?.chain;
      const port = Number(portText);
      if (!address || !protocol || !target || !Number.isInteger(port)) continue;
      const w = this.workForChain(table, target, protocol, address);
      const kind = this.chainKind(target);
      let f: Frontend;
      if (kind === 'service' || kind === 'local') {
        f = { kind: 'clusterIP', address, port, range: e.range };
        w.primary = target;
        w.service.policies.internalTrafficPolicy = kind === 'local' ? 'Local' : 'Cluster';
      } else if (firewallIPs.has(e.key.join(' . '))) f = { kind: 'loadBalancer', address, port, range: e.range };
      else if (clusterIPs.has(address) && kind !== 'external') f = { kind: 'clusterIP', address, port, range: e.range };
      else f = { kind: 'externalIP', address, port, range: e.range, kindUncertain: true };
      this.addFrontend(table, w, f, protocol);
      this.elementRef(w, table, 'service-ips', e);
    }
  }

  /** Step 2: the frontends of the `service-nodeports` and `firewall-ips` maps. */
  private otherFrontends(table: NftTable): void {
    for (const e of table.mapByName.get('service-nodeports')?.elements ?? []) {
      const [protocol, portText] = e.key;
      const target = verdictOf(e.value)?.chain;
      const port = Number(portText);
      if (!protocol || !target || !Number.isInteger(port)) continue;
      const w = this.workForChain(table, target, protocol);
      this.addFrontend(table, w, { kind: 'nodePort', port, range: e.range }, protocol);
      this.elementRef(w, table, 'service-nodeports', e);
    }
    for (const e of table.mapByName.get('firewall-ips')?.elements ?? []) {
      const [address, protocol, portText] = e.key;
      const target = verdictOf(e.value)?.chain;
      const port = Number(portText);
      if (!address || !protocol || !target || !Number.isInteger(port)) continue;
      const w = this.workForChain(table, target, protocol, address);
      this.addFrontend(table, w, { kind: 'loadBalancer', address, port, range: e.range }, protocol);
      this.elementRef(w, table, 'firewall-ips', e);
    }
  }

  /** Step 3: the frontends of Services without (local) endpoints. */
  private noEndpointFrontends(table: NftTable, clusterIPs: Set<string>, firewallIPs: Set<string>): void {
    for (const e of table.mapByName.get('no-endpoint-services')?.elements ?? []) {
      const [address, protocol, portText] = e.key;
      const port = Number(portText);
      if (!address || !protocol || !Number.isInteger(port)) continue;
      const isCluster = clusterIPs.has(address);
      const kind: FrontendKind = isCluster ? 'clusterIP' : firewallIPs.has(e.key.join(' . ')) ? 'loadBalancer' : 'externalIP';
      const w = this.workForNoEndpoint(table, e, kind, address, protocol, port);
      this.addFrontend(table, w, kind === 'externalIP' ? { kind, address, port, range: e.range, kindUncertain: true } : { kind, address, port, range: e.range }, protocol);
      this.noEndpointVerdict(w, e, isCluster ? 'internal' : 'external');
      this.elementRef(w, table, 'no-endpoint-services', e);
    }
    for (const e of table.mapByName.get('no-endpoint-nodeports')?.elements ?? []) {
      const [protocol, portText] = e.key;
      const port = Number(portText);
      if (!protocol || !Number.isInteger(port)) continue;
      const w = this.workForNoEndpoint(table, e, 'nodePort', undefined, protocol, port);
      this.addFrontend(table, w, { kind: 'nodePort', port, range: e.range }, protocol);
      this.noEndpointVerdict(w, e, 'external');
      this.elementRef(w, table, 'no-endpoint-nodeports', e);
    }
  }

  /** The Services (their work) of this table. */
  private worksOf(table: NftTable): Work[] {
    // forEach: no [key, value] pair per Service (they would live as long as this table's reading).
    const ofTable: Work[] = [];
    const tableKey = `${table.id}\u0000`;
    this.works.forEach((w, key) => {
      if (key.startsWith(tableKey)) ofTable.push(w);
    });
    return ofTable;
  }

  /** The `cluster-ips` set's elements as objects of the Services with that ClusterIP. */
  private clusterIPObjects(table: NftTable, ofTable: Work[]): void {
    const byClusterIP = new Map<string, Work[]>();
    for (const w of ofTable) {
      for (const f of w.service.frontends) {
        if (f.kind !== 'clusterIP' || f.address === undefined) continue;
        const list = byClusterIP.get(f.address);
        if (list) list.push(w);
        else byClusterIP.set(f.address, [w]);
      }
    }
    for (const e of table.setByName.get('cluster-ips')?.elements ?? []) {
      for (const w of byClusterIP.get(e.key[0] ?? '') ?? []) w.service.objects.push(new ElementObjectRef('cluster-ips', table.id, 'set-element', e));
    }
  }

  /** Step 5: hints on the chains kube-proxy flushed and has not deleted yet; their Services are dropped. */
  private staleChains(endpointChains: EndpointChains, ofTable: Work[]): void {
    for (const chain of endpointChains.unreferenced()) {
      this.found.push({
        range: chain.nameRange,
        severity: 'hint',
        code: 'kube-stale-chain',
        message:
          chain.rules.length === 0 ? t('kube-proxy flushed this chain because its endpoint is gone; it deletes such chains on a later sync.') : t('No Service chain of this table sends traffic to this endpoint chain.'),
      });
    }
    for (const w of ofTable) {
      if (w.service.frontends.length > 0) continue;
      const chains = Object.values(w.chains).filter((c): c is NftChain => c !== undefined);
      if (chains.length === 0) continue;
      if (chains.every((c) => c.rules.length === 0)) {
        for (const c of chains) {
          this.found.push({
            range: c.nameRange,
            severity: 'hint',
            code: 'kube-stale-chain',
            message: t('kube-proxy flushed this chain because its Service port is gone; it deletes such chains on a later sync.'),
          });
        }
        this.works.delete(w.key);
      }
    }
  }

  private chainKind(chain: string): NftServiceObjectKind | undefined {
    // A per-service chain of the table parsed in step 1: its kind is its prefix.
    if (this.chainWorks.has(chain)) return chain.slice(0, chain.indexOf('-')) as NftServiceObjectKind;
    return parseNftServiceObjectName(chain)?.kind;
  }

  /** The service whose chain `target` is; an anonymous one for chains that are not named like kube-proxy's. */
  private workForChain(table: NftTable, target: string, protocol: string, address?: string): Work {
    const known = this.chainWorks.get(target);
    if (known) return known;
    const parsed = parseNftServiceObjectName(target);
    if (parsed && parsed.kind !== 'endpoint' && parsed.kind !== 'affinity') {
      const w = this.work(table, parsed, this.familyOf(table, address));
      w.service.hash ??= parsed.hash;
      return w;
    }
    return this.anonymousWork(table, target, protocol, this.familyOf(table, address));
  }

  private workForNoEndpoint(table: NftTable, e: NftElement, kind: FrontendKind, address: string | undefined, protocol: string, port: number): Work {
    const spn = parseServicePortName(e.comment?.trim());
    if (spn) return this.work(table, { ...spn, protocol }, this.familyOf(table, address));
    const known = this.byFrontend.get(this.frontendKey(table, kind, address, protocol, port));
    if (known) return known;
    return this.anonymousWork(table, kind === 'nodePort' ? `*:${port}` : formatHostPort(address ?? '', port), protocol, this.familyOf(table, address));
  }

  private noEndpointVerdict(w: Work, e: NftElement, traffic: 'internal' | 'external'): void {
    const v = verdictOf(e.value);
    const p = w.service.policies;
    if (v?.kind === 'drop') {
      // There are endpoints, but none on this node for a Local policy.
      p.noEndpoints ??= 'drop';
      (p.noLocalEndpoints ??= {})[traffic] = true;
      if (traffic === 'internal') p.internalTrafficPolicy = 'Local';
      else p.externalTrafficPolicy = 'Local';
    } else if (v && (v.kind === 'goto' || v.kind === 'jump') && v.chain === 'reject-chain') {
      p.noEndpoints = 'reject';
    }
  }

  private elementRef(w: Work, table: NftTable, name: string, e: NftElement): void {
    w.service.objects.push(new ElementObjectRef(name, table.id, 'map-element', e));
  }

  /**
   * kube-proxy's check of a per-service object name of `kind` (nftServiceObjectKind): true when the hash
   * matches the readable part, else the name kube-proxy would write; undefined when the name was truncated.
   * Endpoint and affinity names are each hashed once, and not parsed (100,000 in a large dump, nothing of them
   * kept); a Service port's chains share their readable part, so its hash is kept. `parsed`: the name parsed.
   */
  private nameCheck(objectName: string, kind: NftServiceObjectKind, parsed?: NftServiceObjectName): string | true | undefined {
    const prefix = NFT_OBJECT_PREFIX[kind];
    if (kind === 'endpoint' || kind === 'affinity') {
      const ok = nftObjectNameHashOk(objectName, kind);
      if (ok !== false) return ok;
      const hashed = objectName.slice(prefix.length + 9);
      return `${prefix}${nftHash8(hashed)}-${hashed}`;
    }
    const { truncated, hashed, hash: written } = parsed ?? parseNftServiceObjectName(objectName)!;
    if (truncated) return undefined;
    let hash = this.serviceHashes.get(hashed);
    if (hash === undefined) this.serviceHashes.set(hashed, (hash = nftHash8(hashed)));
    return hash === written ? true : `${prefix}${hash}-${hashed}`;
  }

  private hashMismatch(expected: string, of: Named): void {
    this.found.push({
      range: of.nameRange,
      severity: 'hint',
      code: 'hash-mismatch',
      message: t('kube-proxy would name this {0}: the hash does not match the rest of the name (edited by hand, or a different kube-proxy version).', expected),
    });
  }

  /** A hash check of `name` (true: kube-proxy's name is `name` itself) on the Service. */
  private hashCheck(w: Work, name: string, check: string | true | undefined, of: Named): void {
    if (check === undefined) return;
    const hashCheck: HashCheck = check === true ? new NamedHashCheck(name, name, true, of) : new NamedHashCheck(name, check, false, of);
    w.service.hashChecks.push(hashCheck);
  }

  private serviceChains(table: NftTable, w: Work, endpointChains: EndpointChains): void {
    const s = w.service;
    for (const kind of SERVICE_CHAIN_KINDS) {
      const chain = w.chains[kind];
      if (!chain) continue;
      s.objects.push(new NamedObjectRef(chain.name, table.id, SERVICE_CHAIN_ROLES[kind], chain));
      this.hashCheck(w, chain.name, w.chainChecks[kind], chain);
    }

    // Endpoints of each policy chain (service-…: Cluster, local-…: Local). New maps per Service: maps of the
    // builder emptied per Service (clear()) raised the peak RSS of a large dump by 25 MB.
    const endpointRules = new Map<NftChain, EndpointRules>();
    const affinitySets = new Set<string>();
    const chainOf = this.policyEndpoints(table, w, endpointChains, endpointRules, affinitySets);
    for (const e of s.endpoints) {
      const chain = chainOf.get(e);
      if (chain) this.endpointChain(table, s, e, chain, endpointChains, endpointRules, affinitySets);
    }
    this.sessionAffinity(table, w, affinitySets);
    this.externalPolicy(w);
    this.sourceRanges(w);
  }

  /**
   * The Service's endpoints, selected by the numgen vmaps of its policy chains, in the order of their keys, with
   * their shares; the masquerade policy and affinity sets the chains name on the way. Returns the endpoint chain
   * each endpoint was made with (its name is the endpoint's chain), found once.
   */
  private policyEndpoints(table: NftTable, w: Work, endpointChains: EndpointChains, endpointRules: Map<NftChain, EndpointRules>, affinitySets: Set<string>): Map<Endpoint, NftChain> {
    const s = w.service;
    const byEndpoint = new Map<string, Endpoint>();
    const chainOf = new Map<Endpoint, NftChain>();
    // A local chain, or traffic of the ClusterIP going elsewhere: the endpoints get their share of each chain.
    const split = w.chains.local !== undefined || (w.chains.service !== undefined && w.primary !== w.chains.service.name);
    for (const kind of POLICY_CHAIN_KINDS) {
      const chain = w.chains[kind];
      if (!chain) continue;
      const primary = w.primary === chain.name;
      for (const rule of chain.rules) {
        const facts = ruleFacts(rule);
        // Masquerade of off-cluster sources (or of everything with --masquerade-all).
        if (jumpsTo(facts, MASQ_CHAIN, 'jump')) {
          const src = facts.addressMatches.find((m) => m.field === 'saddr');
          if (src?.negated) s.policies.clusterCIDR = src.address ?? s.policies.clusterCIDR;
          else if (!src && facts.addressMatches.some((m) => m.field === 'daddr')) s.policies.masqueradeAll = true;
          continue;
        }
        // Session affinity: `ip saddr @affinity-… goto endpoint-…`.
        const affinity = facts.addressMatches.find((m) => m.field === 'saddr' && m.set !== undefined && !m.negated);
        if (affinity) {
          affinitySets.add(affinity.set!);
          continue;
        }
        for (const vmap of facts.numgenVmaps) {
          const selection = this.numgenShares(table, vmap);
          for (let k = 0; k < selection.targets.length; k++) {
            const target = selection.targets[k]!;
            const share = selection.shares[k]!;
            // numgenShares keeps the elements that go to a chain.
            const targetChain = target.chain!;
            const endpointChain = endpointChains.chain(targetChain);
            if (endpointChain) endpointChains.markReferenced(endpointChain);
            const ep = this.endpoint(table, targetChain, endpointChain, endpointRules);
            if (!ep) continue;
            const key = formatHostPort(ep.address, ep.port);
            let out = byEndpoint.get(key);
            if (!out) {
              // The chain's own name string (the vmap element's copy belongs to a rule read again on demand).
              out = new NftEndpoint(ep.address, ep.port, endpointChain?.name ?? targetChain, target.range);
              byEndpoint.set(key, out);
              if (endpointChain) chainOf.set(out, endpointChain);
            }
            if (primary) out.probability += share;
            if (kind === 'local') out.local = true;
            if (split && kind === 'local') out.localShare = (out.localShare ?? 0) + share;
            else if (split) out.clusterShare = (out.clusterShare ?? 0) + share;
          }
        }
      }
    }
    // In the order of their keys: sort() of strings compares UTF-16 code units, as `<` does, and keys are unique.
    const keys = [...byEndpoint.keys()];
    if (keys.length > 1) keys.sort();
    s.endpoints = keys.map((k) => byEndpoint.get(k)!);
    return chainOf;
  }

  /** An endpoint's chain: its object and name check, the affinity sets it updates. */
  private endpointChain(table: NftTable, s: NftService, e: Endpoint, chain: NftChain, endpointChains: EndpointChains, endpointRules: Map<NftChain, EndpointRules>, affinitySets: Set<string>): void {
    const check = endpointChains.check(chain);
    const ref = new EndpointChainRef(chain.name, table.id, chain, check === true ? undefined : check);
    s.objects.push(ref);
    // No check for a truncated name (see nameCheck).
    if (check !== undefined) s.hashChecks.push(ref);
    const named = nftEndpointNameShows(chain.name, e.address, e.port) ? undefined : parseNftServiceObjectName(chain.name)?.endpoint;
    if (named && (named.address !== e.address || named.port !== e.port)) {
      this.found.push({
        range: chain.nameRange,
        severity: 'hint',
        code: 'kube-endpoint-name-mismatch',
        message: t('The chain is named for endpoint {0} but its DNAT goes to {1}.', formatHostPort(named.address, named.port), formatHostPort(e.address, e.port)),
      });
    }
    for (const set of this.endpointChainRules(chain, endpointRules).setUpdates) affinitySets.add(set);
    const affinitySet = endpointChains.affinity(chain);
    if (affinitySet !== undefined) affinitySets.add(affinitySet);
  }

  /** Session affinity from the Service's affinity sets (their objects and name checks, the first timeout). */
  private sessionAffinity(table: NftTable, w: Work, affinitySets: Set<string>): void {
    const s = w.service;
    let timeout: number | undefined;
    for (const name of affinitySets) {
      const set = table.setByName.get(name);
      if (!set) continue;
      s.objects.push(new NamedObjectRef(name, table.id, 'affinity-set', set));
      timeout ??= parseNftTime(set.timeout);
      const kind = nftServiceObjectKind(name);
      if (kind !== undefined) this.hashCheck(w, name, this.nameCheck(name, kind), set);
    }
    if (affinitySets.size > 0) s.policies.sessionAffinity = { kind: 'ClientIP', timeoutSeconds: timeout ?? 10800 };
  }

  /** externalTrafficPolicy from the external- chain. */
  private externalPolicy(w: Work): void {
    const s = w.service;
    // externalTrafficPolicy from the external- chain.
    const ext = w.chains.external;
    if (ext && ext.rules.length > 0) {
      // The comment first: it is on the rule, the facts are read from the rule's text.
      const local = ext.rules.some((r) => /^short-circuit /.test(r.comment ?? '') || ruleFacts(r).fibSaddr);
      s.policies.externalTrafficPolicy = local ? 'Local' : 'Cluster';
      if (local) s.policies.shortCircuit = shortCircuitOf(ext, w.chains.service?.name ?? '');
      if (s.policies.shortCircuit?.podSource !== undefined) s.policies.clusterCIDR ??= s.policies.shortCircuit.podSource;
    }
  }

  /** loadBalancerSourceRanges from the firewall- chain (`ip saddr != { … } drop`). */
  private sourceRanges(w: Work): void {
    const s = w.service;
    const fw = w.chains.firewall;
    if (fw) {
      const ranges: string[] = [];
      for (const rule of fw.rules) {
        const v = finalVerdict(rule);
        if (v?.kind !== 'verdict' || v.verdict !== 'drop') continue;
        for (const m of matches(rule)) {
          if (!isAddressPayload(m.left, 'saddr') || !m.negated) continue;
          if (m.right.kind === 'set') for (const e of m.right.elements) ranges.push(...e.key.slice(0, 1));
          else {
            const text = addressText(m.right);
            if (text) ranges.push(text);
          }
        }
      }
      if (ranges.length > 0) s.policies.loadBalancerSourceRanges = normalizeAddressIntervals(ranges);
    }
  }

  /**
   * numgen random mod N: which chain each of the N values goes to, as shares; `targets[k]` (the first element
   * of its chain) has `shares[k]`. Lists, not an object per endpoint: a large dump has 100,000 endpoints.
   */
  private numgenShares(table: NftTable, vmap: NumgenVmapFact): { targets: VmapTargetFact[]; shares: number[] } {
    const { mod, offset } = vmap;
    let targets = vmap.targets;
    if (targets === undefined) {
      const named: NftMap | NftSet | undefined = table.mapByName.get(vmap.mapName!) ?? table.setByName.get(vmap.mapName!);
      targets = (named?.elements ?? []).map(vmapTargetOf);
    }
    const indexOf = new Map<string, number>();
    const chosen: VmapTargetFact[] = [];
    const shares: number[] = [];
    for (const e of targets) {
      if (!e.chain || (e.kind !== 'goto' && e.kind !== 'jump')) continue;
      const k = e.key;
      const dash = k.indexOf('-');
      const from = Number(dash > 0 ? k.slice(0, dash) : k);
      const to = Number(dash > 0 ? k.slice(dash + 1) : k);
      if (!Number.isInteger(from) || !Number.isInteger(to)) continue;
      const lo = Math.max(from, offset);
      const hi = Math.min(to, offset + mod - 1);
      if (hi < lo) continue;
      const at = indexOf.get(e.chain);
      if (at !== undefined) shares[at]! += hi - lo + 1;
      else {
        indexOf.set(e.chain, chosen.length);
        chosen.push(e);
        shares.push(hi - lo + 1);
      }
    }
    // The counts of values become shares.
    for (let k = 0; k < shares.length; k++) shares[k] = mod > 0 ? shares[k]! / mod : 0;
    return { targets: chosen, shares };
  }

  /** An endpoint's address and port: from the DNAT of its chain, or from its name. */
  /** `endpointChain`: the endpoint chain of that name, when the table has one (see EndpointChains). */
  private endpoint(table: NftTable, chainName: string, endpointChain: NftChain | undefined, endpointRules: Map<NftChain, EndpointRules>): { address: string; port: number } | undefined {
    let dnat: { address: string; port: number } | undefined;
    if (endpointChain) dnat = this.endpointChainRules(endpointChain, endpointRules).dnat;
    else {
      for (const rule of table.chainByName.get(chainName)?.rules ?? []) {
        dnat = ruleFacts(rule).dnat;
        if (dnat) break;
      }
    }
    return dnat ?? parseNftServiceObjectName(chainName)?.endpoint;
  }

  /** The rules of an endpoint chain, read once per Service (`read`) for both the DNAT and the affinity sets. */
  private endpointChainRules(endpointChain: NftChain, read: Map<NftChain, EndpointRules>): EndpointRules {
    const known = read.get(endpointChain);
    if (known !== undefined) return known;
    let dnat: { address: string; port: number } | undefined;
    // The facts' own array when one rule updates sets (kube-proxy's affinity rule), a new one only to join several.
    let setUpdates = NO_SET_UPDATES;
    for (const rule of endpointChain.rules) {
      const facts = ruleFacts(rule);
      dnat ??= facts.dnat;
      if (facts.setUpdates.length > 0) setUpdates = setUpdates.length === 0 ? facts.setUpdates : [...setUpdates, ...facts.setUpdates];
    }
    const rules = { dnat, setUpdates };
    read.set(endpointChain, rules);
    return rules;
  }

  private finish(s: NftService): void {
    s.protocol ||= 'tcp';
    if (s.anonymous && !s.name) s.name = s.frontends[0] ? `${s.frontends[0].address ?? '*'}:${s.frontends[0].port}` : '?';
    sortFrontends(s.frontends);
  }
}

/** The catalog of every kube-proxy table in an nftables ruleset (`nft list ruleset`, `nft -f` input or `nft -j`). */
export function buildNftCatalog(ruleset: NftRuleset): NftCatalog {
  return new NftCatalogBuilder(ruleset).build();
}
