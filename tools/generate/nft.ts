// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// Generator of realistic kube-proxy nftables-mode dumps, with ground truth (expectedNftCatalog).
//
// The objects mirror kube-proxy's syncProxyRules()/setupNFTables() in pkg/proxy/nftables/proxier.go for a full
// (first) sync, in the shape of kube-proxy's own test expectations of about v1.33 (shared corpus
// nft/kube-proxy/*.nft-cmds: `filter-prerouting-pre-dnat`/`filter-output-pre-dnat` at priority -110,
// `filter-input`/`-forward`/`-output` at priority 0, `cluster-ips` + `cluster-ips-check`, separate
// `service-endpoints-check` and `nodeport-endpoints-check`). `baseChains: 'post-dnat'` gives the layout of the
// proxier.go revision in the code index (filter-* chains at -110 plus `filter-output-post-dnat` at -90, and
// `<proto> dport <port>` in the ClusterIP masquerade rule), which some ~1.31/1.32 nodes run.
//
// Three renderings of the same objects:
//  - 'nft-cmds': what kube-proxy (knftables) feeds to `nft -f -`: `add`/`flush`/`delete` commands in its
//    transaction order (`cmds: 'transaction'`, the default), or only the `add` commands (`cmds: 'adds'`).
//  - 'nft-list-ruleset': what `nft list ruleset` (nftables 1.0.6) prints after loading them: numeric marks
//    (`meta mark set meta mark | 0x00004000`), named priorities (`dstnat - 10`), `timeout 3h`, `size 65535`
//    on dynamic sets, single-element anonymous sets unwrapped, interval sets merged, set elements sorted the way
//    nft sorts them (concatenations compare as little-endian numbers!) and wrapped 2 (IPv4) / 5 (ports) / 1
//    (everything else) per line.
//  - 'nft-json': what `nft -j list ruleset` (1.0.6) prints: kernel handles, no table or chain comments,
//    `"flags": ["timeout"]` for the affinity sets (1.0.6 leaves out "dynamic").
// `order: 'test-expectation'` lays the objects out the way kube-proxy's test file lists them, loaded after
// the stable reorder by object type that the corpus used (so TestOverallNFTablesRules.nft/.json come out
// byte-identical); the default 'kube-proxy' is the order of kube-proxy's real transaction (services in input
// order; kube-proxy itself walks a Go map, so a real node's per-service order is arbitrary).
//
// Pure TypeScript apart from node:crypto (in ../nft-hash).
import { prepareEach, servicePortName, type ExpectedCatalogEntry, type GenServicePort } from './iptables';
import { NFT_OBJECT_PREFIX, nftEndpointChainNameBase, nftServiceChainNameBase } from '../../src/core/kube/nft-hash';
import { canonicalCIDR, canonicalIP, familyOf, formatIP, parseCIDR, parseIP, parseIPv4, type Family } from './address';
import { cmp, expectedEndpoints, servicePortView, type ViewEndpoint } from './service-port';

export type { GenServicePort } from './iptables';
export { randomServices } from './iptables';

// ---------------------------------------------------------------------------------------------------------
// Public API

export interface NftGenOptions {
  services: GenServicePort[];
  style: 'nft-list-ruleset' | 'nft-cmds' | 'nft-json';
  /** Default 'ipv4' (`table ip kube-proxy`); 'ipv6' writes `table ip6 kube-proxy` for the IPv6 services. */
  family?: 'ipv4' | 'ipv6';
  /** Pod CIDR of kube-proxy's local-traffic detector. Default 10.0.0.0/8 (IPv4) / fd00:10::/64 (IPv6). */
  clusterCIDR?: string;
  /** ServiceCIDRs: traffic to unallocated ClusterIPs in them is dropped. Default 10.96.0.0/12 / fd00:10:96::/112; [] = no rule. */
  serviceCIDRs?: string[];
  /**
   * --nodeport-addresses. 'primary' (default of nftables mode): NodePorts only on `nodeIPs`, listed in the
   * `nodeport-ips` set. 'all' (0.0.0.0/0): every local address but localhost (`fib daddr type local`).
   */
  nodePortAddresses?: 'primary' | 'all';
  /** The node's addresses of this family. Default 192.168.0.2 / fd00::2 (kube-proxy's test node). */
  nodeIPs?: string[];
  /** --masquerade-all. */
  masqueradeAll?: boolean;
  /** --iptables-masquerade-bit. Default 14 (mark 0x4000). */
  masqueradeBit?: number;
  baseChains?: 'pre-dnat' | 'post-dnat';
  order?: 'kube-proxy' | 'test-expectation';
  /** Only for 'nft-cmds'. */
  cmds?: 'transaction' | 'adds';
}

/** The iptables truth plus what an nftables dump tells about policies; frontends as the dump can show them. */
export interface ExpectedNftCatalogEntry {
  namespace: string;
  name: string;
  portName: string;
  protocol: string;
  /**
   * service-ips sends external and load-balancer IPs to the same `external-` chain and nothing in the dump
   * names which is which: only load-balancer IPs with loadBalancerSourceRanges (in `firewall-ips`) are known
   * to be load balancers. All other non-cluster IPs are reported as externalIP with kindUncertain.
   */
  frontends: { kind: 'clusterIP' | 'nodePort' | 'loadBalancer' | 'externalIP'; address?: string; port: number; kindUncertain?: boolean }[];
  endpoints: { address: string; port: number; probability: number; local?: boolean }[];
  policies: {
    sessionAffinityTimeoutSeconds?: number;
    externalTrafficPolicy?: 'Cluster' | 'Local';
    internalTrafficPolicy?: 'Cluster' | 'Local';
    /** Normalized: merged, sorted intervals ("a.b.c.d/len", "a-b" or a bare address). */
    loadBalancerSourceRanges?: string[];
    noEndpoints?: 'reject' | 'drop';
    clusterCIDR?: string;
    masqueradeAll?: boolean;
  };
}

// ---------------------------------------------------------------------------------------------------------
// IP addresses

function bytesToBig(bytes: number[]): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function bigToBytes(v: bigint, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(v & 255n);
    v >>= 8n;
  }
  return out;
}

function cidrContains(cidr: string, address: string): boolean {
  const c = parseCIDR(cidr);
  const ip = parseIP(address);
  if (!ip || ip.bytes.length !== c.bytes.length) return false;
  const bits = BigInt(c.bytes.length * 8);
  const mask = ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(c.len))) - 1n);
  return (bytesToBig(ip.bytes) & mask) === bytesToBig(c.bytes);
}

export type IntervalElement = { kind: 'addr'; text: string } | { kind: 'prefix'; addr: string; len: number } | { kind: 'range'; from: string; to: string };

/**
 * The elements nft keeps of an anonymous interval set built from `cidrs`: sorted, overlapping and adjacent
 * intervals merged, each shown as a bare address, a prefix, or a range.
 */
export function mergeIntervals(cidrs: string[]): IntervalElement[] {
  if (cidrs.length === 0) return [];
  const n = parseCIDR(cidrs[0]!).bytes.length;
  const bits = BigInt(n * 8);
  const intervals = cidrs
    .map((t) => {
      const c = parseCIDR(t);
      const start = bytesToBig(c.bytes);
      return [start, start + (1n << (bits - BigInt(c.len))) - 1n] as [bigint, bigint];
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const merged: [bigint, bigint][] = [];
  for (const iv of intervals) {
    const last = merged[merged.length - 1];
    if (last && iv[0] <= last[1] + 1n) {
      if (iv[1] > last[1]) last[1] = iv[1];
    } else merged.push([iv[0], iv[1]]);
  }
  return merged.map(([a, b]) => {
    if (a === b) return { kind: 'addr', text: formatIP(bigToBytes(a, n)) };
    const size = b - a + 1n;
    if ((size & (size - 1n)) === 0n && a % size === 0n) {
      let hostBits = 0;
      for (let s = size; s > 1n; s >>= 1n) hostBits++;
      return { kind: 'prefix', addr: formatIP(bigToBytes(a, n)), len: n * 8 - hostBits };
    }
    return { kind: 'range', from: formatIP(bigToBytes(a, n)), to: formatIP(bigToBytes(b, n)) };
  });
}

export function intervalText(e: IntervalElement): string {
  return e.kind === 'addr' ? e.text : e.kind === 'prefix' ? `${e.addr}/${e.len}` : `${e.from}-${e.to}`;
}

function intervalJson(e: IntervalElement): Json {
  return e.kind === 'addr' ? e.text : e.kind === 'prefix' ? { prefix: { addr: e.addr, len: e.len } } : { range: [e.from, e.to] };
}

// ---------------------------------------------------------------------------------------------------------
// kube-proxy's view of a service port (BaseServicePortInfo + CategorizeEndpoints)

interface PreparedEndpoint extends ViewEndpoint {
  chain: string;
  affinitySet: string;
}

interface PreparedService {
  svc: GenServicePort;
  spn: string;
  protocol: string;
  port: number;
  clusterIP: string;
  externalIPs: string[];
  lbIPs: string[];
  sourceRanges: string[];
  nodePort: number;
  externalPolicyLocal: boolean;
  internalPolicyLocal: boolean;
  externallyAccessible: boolean;
  affinity?: number;
  clusterEndpoints: PreparedEndpoint[];
  localEndpoints: PreparedEndpoint[];
  allReachable: PreparedEndpoint[];
  hasEndpoints: boolean;
  hasInternalEndpoints: boolean;
  hasExternalEndpoints: boolean;
  usesClusterPolicyChain: boolean;
  usesLocalPolicyChain: boolean;
  usesExternalTrafficChain: boolean;
  usesFWChain: boolean;
  clusterChain: string;
  localChain: string;
  externalChain: string;
  firewallChain: string;
}

function prepare(svc: GenServicePort, family: Family): PreparedService | undefined {
  const protocol = svc.protocol.toLowerCase();
  const view = servicePortView(svc, family, (ep) => {
    const base = nftEndpointChainNameBase(svc.namespace, svc.name, protocol, svc.portName, ep.address, ep.port);
    return { ...ep, chain: NFT_OBJECT_PREFIX.endpoint + base, affinitySet: NFT_OBJECT_PREFIX.affinity + base };
  });
  if (!view) return undefined;
  const { externalIPs, lbIPs, sourceRanges, nodePort, externallyAccessible, externalPolicyLocal, internalPolicyLocal } = view;
  const { usesCluster, usesLocal, ready, clusterEndpoints, localEndpoints } = view;
  const allReachable = !usesLocal ? clusterEndpoints : !usesCluster ? localEndpoints : clusterEndpoints;
  const hasEndpoints = ready.length > 0;
  const base = nftServiceChainNameBase(svc.namespace, svc.name, protocol, svc.portName);
  return {
    svc,
    spn: servicePortName(svc),
    protocol,
    port: svc.port,
    clusterIP: view.clusterIP,
    externalIPs,
    lbIPs,
    sourceRanges,
    nodePort,
    externalPolicyLocal,
    internalPolicyLocal,
    externallyAccessible,
    ...(svc.sessionAffinityTimeout !== undefined ? { affinity: svc.sessionAffinityTimeout } : {}),
    clusterEndpoints,
    localEndpoints,
    allReachable,
    hasEndpoints,
    hasInternalEndpoints: hasEndpoints && (!internalPolicyLocal || localEndpoints.length > 0),
    hasExternalEndpoints: hasEndpoints && (!externalPolicyLocal || localEndpoints.length > 0),
    usesClusterPolicyChain: clusterEndpoints.length > 0 && usesCluster,
    usesLocalPolicyChain: localEndpoints.length > 0 && usesLocal,
    usesExternalTrafficChain: hasEndpoints && externallyAccessible,
    // Unlike iptables mode, not conditional on endpoints.
    usesFWChain: lbIPs.length > 0 && sourceRanges.length > 0,
    clusterChain: NFT_OBJECT_PREFIX.service + base,
    localChain: NFT_OBJECT_PREFIX.local + base,
    externalChain: NFT_OBJECT_PREFIX.external + base,
    firewallChain: NFT_OBJECT_PREFIX.firewall + base,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Rule fragments: kube-proxy's input text, `nft list` text and `nft -j` statements of each piece

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Frag {
  cmd: string;
  list: string;
  json: Json[];
  /** Anonymous sets the kernel creates for this piece (each takes a handle before the rule's). */
  anon?: number;
}

function frag(cmd: string, json: Json, list: string = cmd, anon = 0): Frag {
  return { cmd, list, json: [json], ...(anon ? { anon } : {}) };
}

class Syntax {
  readonly ipX: 'ip' | 'ip6';
  readonly addrType: 'ipv4_addr' | 'ipv6_addr';
  constructor(
    readonly family: Family,
    readonly markValue: number,
    readonly markCmd: string,
  ) {
    this.ipX = family === 'ipv4' ? 'ip' : 'ip6';
    this.addrType = family === 'ipv4' ? 'ipv4_addr' : 'ipv6_addr';
  }

  payload(field: 'saddr' | 'daddr'): Json {
    return { payload: { protocol: this.ipX, field } };
  }

  /** `ip daddr 1.2.3.4`, `ip saddr != 10.0.0.0/8`, `ip daddr @set`. */
  addr(field: 'saddr' | 'daddr', op: '==' | '!=', value: string): Frag {
    const neg = op === '!=' ? '!= ' : '';
    let right: Json = value;
    let listed = value;
    if (!value.startsWith('@') && value.includes('/')) {
      const [e] = mergeIntervals([value]);
      right = intervalJson(e!);
      listed = intervalText(e!);
    }
    return frag(`${this.ipX} ${field} ${neg}${value}`, { match: { op, left: this.payload(field), right } }, `${this.ipX} ${field} ${neg}${listed}`);
  }

  /**
   * `ip daddr { a,b }` (cmdText as kube-proxy wrote the set). One element: nft drops the set and compares
   * directly; more: an anonymous interval set, merged.
   */
  addrSet(field: 'saddr' | 'daddr', op: '==' | '!=', cidrs: string[], cmdText: string): Frag {
    const neg = op === '!=' ? '!= ' : '';
    const merged = mergeIntervals(cidrs);
    if (cidrs.length === 1) {
      const e = merged[0]!;
      return frag(`${this.ipX} ${field} ${neg}${cmdText}`, { match: { op, left: this.payload(field), right: intervalJson(e) } }, `${this.ipX} ${field} ${neg}${intervalText(e)}`);
    }
    return frag(
      `${this.ipX} ${field} ${neg}${cmdText}`,
      { match: { op, left: this.payload(field), right: { set: merged.map(intervalJson) } } },
      `${this.ipX} ${field} ${neg}{ ${merged.map(intervalText).join(', ')} }`,
      1,
    );
  }

  ctStateNew(): Frag {
    return frag('ct state new', { match: { op: 'in', left: { ct: { key: 'state' } }, right: 'new' } });
  }

  fibLocal(flag: 'saddr' | 'daddr'): Frag {
    return frag(`fib ${flag} type local`, { match: { op: '==', left: { fib: { result: 'type', flags: [flag] } }, right: 'local' } });
  }

  l4proto(protocol: string): Frag {
    return frag(`meta l4proto ${protocol}`, { match: { op: '==', left: { meta: { key: 'l4proto' } }, right: protocol } });
  }

  dport(protocol: string, port: number): Frag {
    return frag(`${protocol} dport ${port}`, { match: { op: '==', left: { payload: { protocol, field: 'dport' } }, right: port } });
  }

  /** `ip daddr . meta l4proto . th dport vmap @map` (or without the address). */
  vmapByDestination(map: string, withAddress: boolean): Frag {
    const parts: Json[] = [{ meta: { key: 'l4proto' } }, { payload: { protocol: 'th', field: 'dport' } }];
    if (withAddress) parts.unshift(this.payload('daddr'));
    const text = `${withAddress ? `${this.ipX} daddr . ` : ''}meta l4proto . th dport vmap @${map}`;
    return frag(text, { vmap: { key: { concat: parts }, data: `@${map}` } });
  }

  numgenVmap(chains: string[]): Frag {
    const n = chains.length;
    return frag(
      `numgen random mod ${n} vmap { ${chains.map((c, i) => `${i} : goto ${c}`).join(' , ')} }`,
      { vmap: { key: { numgen: { mode: 'random', mod: n, offset: 0 } }, data: { set: chains.map((c, i) => [i, { goto: { target: c } }] as Json) } } },
      `numgen random mod ${n} vmap { ${chains.map((c, i) => `${i} : goto ${c}`).join(', ')} }`,
      1,
    );
  }

  jump(chain: string): Frag {
    return frag(`jump ${chain}`, { jump: { target: chain } });
  }

  goto(chain: string): Frag {
    return frag(`goto ${chain}`, { goto: { target: chain } });
  }

  drop(): Frag {
    return frag('drop', { drop: null });
  }

  reject(): Frag {
    return frag('reject', { reject: { type: this.family === 'ipv4' ? 'icmp' : 'icmpv6', expr: 'port-unreachable' } });
  }

  return(): Frag {
    return frag('return', { return: null });
  }

  private hexMark(v: number): string {
    return `0x${v.toString(16).padStart(8, '0')}`;
  }

  markSet(op: 'or' | 'xor'): Frag {
    const sym = op === 'or' ? '|' : '^';
    return frag(
      `mark set mark ${op} ${this.markCmd}`,
      { mangle: { key: { meta: { key: 'mark' } }, value: { [sym]: [{ meta: { key: 'mark' } }, this.markValue] } } },
      `meta mark set meta mark ${sym} ${this.hexMark(this.markValue)}`,
    );
  }

  markUnset(): Frag {
    return frag(`mark and ${this.markCmd} == 0`, { match: { op: '==', left: { '&': [{ meta: { key: 'mark' } }, this.markValue] }, right: 0 } }, `meta mark & ${this.hexMark(this.markValue)} == ${this.hexMark(0)}`);
  }

  masqueradeFullyRandom(): Frag {
    return frag('masquerade fully-random', { masquerade: { flags: 'fully-random' } });
  }

  dnat(address: string, port: number): Frag {
    const to = this.family === 'ipv6' ? `[${address}]:${port}` : `${address}:${port}`;
    return frag(`dnat to ${to}`, { dnat: { addr: address, port } });
  }

  updateSaddr(set: string): Frag {
    return frag(`update @${set} { ${this.ipX} saddr }`, { set: { op: 'update', elem: this.payload('saddr'), set: `@${set}` } });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Objects and the transaction

interface BaseChain {
  type: 'filter' | 'nat';
  hook: 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';
  priority: number;
}

type KeyPart = { type: 'addr' | 'proto'; text: string } | { type: 'port'; value: number };
type Verdict = { kind: 'goto' | 'jump'; chain: string } | { kind: 'drop' };

interface SetDef {
  isMap: boolean;
  /** Key types: ['ipv4_addr'] or ['ipv4_addr', 'inet_proto', 'inet_service']. */
  keyType: string[];
  flags?: string[];
  timeout?: number;
  comment?: string;
}

type Op =
  | { op: 'add'; obj: 'table' }
  | { op: 'add' | 'flush' | 'delete'; obj: 'chain'; name: string; base?: BaseChain; comment?: string }
  | { op: 'add' | 'flush' | 'delete'; obj: 'set'; name: string; def: SetDef }
  | { op: 'add'; obj: 'rule'; chain: string; frags: Frag[]; comment?: string }
  | { op: 'add'; obj: 'element'; set: string; isMap: boolean; key: KeyPart[]; verdict?: Verdict; comment?: string };

const TABLE = 'kube-proxy';

interface Layout {
  base: { name: string; chain: BaseChain }[];
  /** nftablesJumpChains: [dst, src, ctStateNew]. */
  jumps: [string, string, boolean][];
  /** Chain and priority order of the test file's baseRules (pre-dnat layout). */
  testChainOrder: string[];
  masqRuleWithPort: boolean;
}

const LAYOUTS: Record<'pre-dnat' | 'post-dnat', Layout> = {
  'pre-dnat': {
    base: [
      { name: 'filter-prerouting-pre-dnat', chain: { type: 'filter', hook: 'prerouting', priority: -110 } },
      { name: 'filter-output-pre-dnat', chain: { type: 'filter', hook: 'output', priority: -110 } },
      { name: 'filter-input', chain: { type: 'filter', hook: 'input', priority: 0 } },
      { name: 'filter-forward', chain: { type: 'filter', hook: 'forward', priority: 0 } },
      { name: 'filter-output', chain: { type: 'filter', hook: 'output', priority: 0 } },
      { name: 'nat-prerouting', chain: { type: 'nat', hook: 'prerouting', priority: -100 } },
      { name: 'nat-output', chain: { type: 'nat', hook: 'output', priority: -100 } },
      { name: 'nat-postrouting', chain: { type: 'nat', hook: 'postrouting', priority: 100 } },
    ],
    jumps: [
      ['nodeport-endpoints-check', 'filter-input', true],
      ['service-endpoints-check', 'filter-input', true],
      ['service-endpoints-check', 'filter-forward', true],
      ['service-endpoints-check', 'filter-output', true],
      ['firewall-check', 'filter-prerouting-pre-dnat', true],
      ['firewall-check', 'filter-output-pre-dnat', true],
      ['services', 'nat-output', false],
      ['services', 'nat-prerouting', false],
      ['masquerading', 'nat-postrouting', false],
      ['cluster-ips-check', 'filter-forward', true],
      ['cluster-ips-check', 'filter-output', true],
    ],
    testChainOrder: [
      'cluster-ips-check',
      'filter-prerouting-pre-dnat',
      'filter-output-pre-dnat',
      'filter-forward',
      'filter-input',
      'filter-output',
      'firewall-check',
      'mark-for-masquerade',
      'masquerading',
      'nat-output',
      'nat-postrouting',
      'nat-prerouting',
      'nodeport-endpoints-check',
      'reject-chain',
      'services',
      'service-endpoints-check',
    ],
    masqRuleWithPort: false,
  },
  'post-dnat': {
    base: [
      { name: 'filter-prerouting', chain: { type: 'filter', hook: 'prerouting', priority: -110 } },
      { name: 'filter-input', chain: { type: 'filter', hook: 'input', priority: -110 } },
      { name: 'filter-forward', chain: { type: 'filter', hook: 'forward', priority: -110 } },
      { name: 'filter-output', chain: { type: 'filter', hook: 'output', priority: -110 } },
      { name: 'filter-output-post-dnat', chain: { type: 'filter', hook: 'output', priority: -90 } },
      { name: 'nat-prerouting', chain: { type: 'nat', hook: 'prerouting', priority: -100 } },
      { name: 'nat-output', chain: { type: 'nat', hook: 'output', priority: -100 } },
      { name: 'nat-postrouting', chain: { type: 'nat', hook: 'postrouting', priority: 100 } },
    ],
    jumps: [
      ['nodeport-endpoints-check', 'filter-input', true],
      ['service-endpoints-check', 'filter-input', true],
      ['service-endpoints-check', 'filter-forward', true],
      ['service-endpoints-check', 'filter-output', true],
      ['firewall-check', 'filter-prerouting', true],
      ['firewall-check', 'filter-output', true],
      ['services', 'nat-output', false],
      ['services', 'nat-prerouting', false],
      ['masquerading', 'nat-postrouting', false],
      ['cluster-ips-check', 'filter-forward', true],
      ['cluster-ips-check', 'filter-output-post-dnat', true],
    ],
    testChainOrder: [
      'cluster-ips-check',
      'filter-prerouting',
      'filter-input',
      'filter-forward',
      'filter-output',
      'filter-output-post-dnat',
      'firewall-check',
      'mark-for-masquerade',
      'masquerading',
      'nat-output',
      'nat-postrouting',
      'nat-prerouting',
      'nodeport-endpoints-check',
      'reject-chain',
      'services',
      'service-endpoints-check',
    ],
    masqRuleWithPort: true,
  },
};

/** Builds kube-proxy's full-sync transaction (kube-proxy order) as a list of operations. */
class TransactionBuilder {
  readonly ops: Op[] = [];
  private readonly created = new Set<string>();
  readonly sx: Syntax;
  readonly layout: Layout;
  readonly family: Family;
  readonly clusterCIDR: string;
  readonly serviceCIDRs: string[];
  readonly nodeIPs: string[];
  readonly matchAll: boolean;
  readonly masqueradeAll: boolean;

  constructor(
    readonly opts: NftGenOptions,
    testFixtureMark: boolean,
  ) {
    this.family = opts.family ?? 'ipv4';
    const v4 = this.family === 'ipv4';
    const bit = opts.masqueradeBit ?? 14;
    const mark = 2 ** bit;
    // Real kube-proxy formats the mark with Go's %#08x ("0x00004000": the width counts digits only); the
    // fake proxier of kube-proxy's tests sets "0x4000".
    const markCmd = testFixtureMark ? `0x${mark.toString(16)}` : `0x${mark.toString(16).padStart(8, '0')}`;
    this.sx = new Syntax(this.family, mark, markCmd);
    this.layout = LAYOUTS[opts.baseChains ?? 'pre-dnat'];
    this.clusterCIDR = canonicalCIDR(opts.clusterCIDR ?? (v4 ? '10.0.0.0/8' : 'fd00:10::/64'));
    this.serviceCIDRs = (opts.serviceCIDRs ?? [v4 ? '10.96.0.0/12' : 'fd00:10:96::/112']).filter((c) => familyOf(c) === this.family).map(canonicalCIDR);
    this.nodeIPs = (opts.nodeIPs ?? [v4 ? '192.168.0.2' : 'fd00::2']).filter((a) => familyOf(a) === this.family).map(canonicalIP);
    this.matchAll = opts.nodePortAddresses === 'all';
    this.masqueradeAll = opts.masqueradeAll === true;
  }

  private setDefs(): Record<string, SetDef> {
    const a = this.sx.addrType;
    return {
      'cluster-ips': { isMap: false, keyType: [a], comment: 'Active ClusterIPs' },
      'nodeport-ips': { isMap: false, keyType: [a], comment: 'IPs that accept NodePort traffic' },
      'no-endpoint-services': { isMap: true, keyType: [a, 'inet_proto', 'inet_service'], comment: 'vmap to drop or reject packets to services with no endpoints' },
      'no-endpoint-nodeports': { isMap: true, keyType: ['inet_proto', 'inet_service'], comment: 'vmap to drop or reject packets to service nodeports with no endpoints' },
      'firewall-ips': { isMap: true, keyType: [a, 'inet_proto', 'inet_service'], comment: 'destinations that are subject to LoadBalancerSourceRanges' },
      'service-ips': { isMap: true, keyType: [a, 'inet_proto', 'inet_service'], comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic' },
      'service-nodeports': { isMap: true, keyType: ['inet_proto', 'inet_service'], comment: 'NodePort traffic' },
    };
  }

  ensureChain(name: string): void {
    if (this.created.has(name)) return;
    this.created.add(name);
    this.ops.push({ op: 'add', obj: 'chain', name }, { op: 'flush', obj: 'chain', name });
  }

  rule(chain: string, frags: Frag[], comment?: string): void {
    this.ops.push({ op: 'add', obj: 'rule', chain, frags, ...(comment !== undefined ? { comment } : {}) });
  }

  element(set: string, key: KeyPart[], verdict?: Verdict, comment?: string): void {
    const isMap = verdict !== undefined;
    this.ops.push({ op: 'add', obj: 'element', set, isMap, key, ...(verdict ? { verdict } : {}), ...(comment !== undefined ? { comment } : {}) });
  }

  private noLocalhost(): Frag {
    return this.family === 'ipv4' ? this.sx.addr('daddr', '!=', '127.0.0.0/8') : this.sx.addr('daddr', '!=', '::1');
  }

  /** setupNFTables() on the first sync. */
  setup(): void {
    const sx = this.sx;
    const defs = this.setDefs();
    const addSet = (name: string) => this.ops.push({ op: 'add', obj: 'set', name, def: defs[name]! });
    this.ops.push({ op: 'add', obj: 'table' });
    // First sync: add+delete every base chain so changed properties never fail the transaction.
    for (const bc of this.layout.base) this.ops.push({ op: 'add', obj: 'chain', name: bc.name }, { op: 'delete', obj: 'chain', name: bc.name });
    for (const bc of this.layout.base) this.ops.push({ op: 'add', obj: 'chain', name: bc.name, base: bc.chain }, { op: 'flush', obj: 'chain', name: bc.name });
    for (const [dst, src, ctNew] of this.layout.jumps) {
      this.ensureChain(dst);
      this.rule(src, [...(ctNew ? [sx.ctStateNew()] : []), sx.jump(dst)]);
    }
    for (const c of ['services', 'cluster-ips-check', 'masquerading', 'mark-for-masquerade']) this.ensureChain(c);
    this.rule('mark-for-masquerade', [sx.markSet('or')]);
    this.rule('masquerading', [sx.markUnset(), sx.return()]);
    this.rule('masquerading', [sx.markSet('xor')]);
    this.rule('masquerading', [sx.masqueradeFullyRandom()]);
    addSet('cluster-ips');
    this.rule('cluster-ips-check', [sx.addr('daddr', '==', '@cluster-ips'), sx.reject()], 'Reject traffic to invalid ports of ClusterIPs');
    if (this.serviceCIDRs.length > 0) {
      this.rule('cluster-ips-check', [sx.addrSet('daddr', '==', this.serviceCIDRs, `{ ${this.serviceCIDRs.join(',')} }`), sx.drop()], 'Drop traffic to unallocated ClusterIPs');
    }
    addSet('nodeport-ips');
    if (this.matchAll) {
      this.ops.push({ op: 'delete', obj: 'set', name: 'nodeport-ips', def: defs['nodeport-ips']! });
    } else {
      this.ops.push({ op: 'flush', obj: 'set', name: 'nodeport-ips', def: defs['nodeport-ips']! });
      for (const ip of this.nodeIPs) this.element('nodeport-ips', [{ type: 'addr', text: ip }]);
    }
    addSet('no-endpoint-services');
    addSet('no-endpoint-nodeports');
    this.ops.push({ op: 'add', obj: 'chain', name: 'reject-chain', comment: 'helper for @no-endpoint-services / @no-endpoint-nodeports' });
    this.created.add('reject-chain');
    this.ops.push({ op: 'flush', obj: 'chain', name: 'reject-chain' });
    this.rule('reject-chain', [sx.reject()]);
    this.rule('service-endpoints-check', [sx.vmapByDestination('no-endpoint-services', true)]);
    if (this.matchAll) this.rule('nodeport-endpoints-check', [this.noLocalhost(), sx.vmapByDestination('no-endpoint-nodeports', false)]);
    else this.rule('nodeport-endpoints-check', [sx.addr('daddr', '==', '@nodeport-ips'), sx.vmapByDestination('no-endpoint-nodeports', false)]);
    addSet('firewall-ips');
    this.ensureChain('firewall-check');
    this.rule('firewall-check', [sx.vmapByDestination('firewall-ips', true)]);
    addSet('service-ips');
    addSet('service-nodeports');
    this.rule('services', [sx.vmapByDestination('service-ips', true)]);
    if (this.matchAll) this.rule('services', [sx.fibLocal('daddr'), this.noLocalhost(), sx.vmapByDestination('service-nodeports', false)]);
    else this.rule('services', [sx.addr('daddr', '==', '@nodeport-ips'), sx.vmapByDestination('service-nodeports', false)]);
    for (const name of ['cluster-ips', 'service-ips', 'firewall-ips', 'no-endpoint-services', 'no-endpoint-nodeports', 'service-nodeports']) {
      this.ops.push({ op: 'flush', obj: 'set', name, def: defs[name]! });
    }
  }

  /** The per-service part of syncProxyRules(). */
  service(s: PreparedService): void {
    const proto: KeyPart = { type: 'proto', text: s.protocol };
    const port: KeyPart = { type: 'port', value: s.port };
    const addrKey = (a: string): KeyPart[] => [{ type: 'addr', text: a }, proto, port];

    for (const ep of s.allReachable) this.ensureChain(ep.chain);
    if (s.usesClusterPolicyChain) this.ensureChain(s.clusterChain);
    if (s.usesLocalPolicyChain) this.ensureChain(s.localChain);
    if (s.usesExternalTrafficChain) this.ensureChain(s.externalChain);

    const internalChain = s.internalPolicyLocal ? s.localChain : s.clusterChain;
    const externalPolicyChain = s.externalPolicyLocal ? s.localChain : s.clusterChain;
    let internalVerdict: Verdict | undefined;
    let externalVerdict: Verdict | undefined;
    if (!s.hasEndpoints) internalVerdict = externalVerdict = { kind: 'goto', chain: 'reject-chain' };
    else {
      if (!s.hasInternalEndpoints) internalVerdict = { kind: 'drop' };
      if (!s.hasExternalEndpoints) externalVerdict = { kind: 'drop' };
    }

    this.element('cluster-ips', [{ type: 'addr', text: s.clusterIP }]);
    if (s.hasInternalEndpoints) this.element('service-ips', addrKey(s.clusterIP), { kind: 'goto', chain: internalChain });
    else this.element('no-endpoint-services', addrKey(s.clusterIP), internalVerdict, s.spn);

    for (const ip of s.externalIPs) {
      if (s.hasEndpoints) this.element('service-ips', addrKey(ip), { kind: 'goto', chain: s.externalChain });
      if (!s.hasExternalEndpoints) this.element('no-endpoint-services', addrKey(ip), externalVerdict, s.spn);
    }
    if (s.usesFWChain) this.ensureChain(s.firewallChain);
    for (const ip of s.lbIPs) {
      if (s.hasEndpoints) this.element('service-ips', addrKey(ip), { kind: 'goto', chain: s.externalChain });
      if (s.usesFWChain) this.element('firewall-ips', addrKey(ip), { kind: 'goto', chain: s.firewallChain });
    }
    if (!s.hasExternalEndpoints) for (const ip of s.lbIPs) this.element('no-endpoint-services', addrKey(ip), externalVerdict, s.spn);
    if (s.nodePort !== 0) {
      const key: KeyPart[] = [proto, { type: 'port', value: s.nodePort }];
      if (s.hasEndpoints) this.element('service-nodeports', key, { kind: 'goto', chain: s.externalChain });
      if (!s.hasExternalEndpoints) this.element('no-endpoint-nodeports', key, externalVerdict, s.spn);
    }

    for (const op of this.serviceChainOps(s, internalChain, externalPolicyChain)) this.ops.push(op);
  }

  /** Rules and affinity sets of one service, in kube-proxy's order. */
  serviceChainOps(s: PreparedService, internalChain: string, externalPolicyChain: string): Op[] {
    const sx = this.sx;
    const out: Op[] = [];
    const rule = (chain: string, frags: Frag[], comment?: string) => out.push({ op: 'add', obj: 'rule', chain, frags, ...(comment !== undefined ? { comment } : {}) });
    if (s.hasInternalEndpoints) {
      const dst = [sx.addr('daddr', '==', s.clusterIP), ...(this.layout.masqRuleWithPort ? [sx.dport(s.protocol, s.port)] : [])];
      if (this.masqueradeAll) rule(internalChain, [...dst, sx.jump('mark-for-masquerade')]);
      else rule(internalChain, [...dst, sx.addr('saddr', '!=', this.clusterCIDR), sx.jump('mark-for-masquerade')]);
    }
    if (s.usesExternalTrafficChain) {
      if (!s.externalPolicyLocal) rule(s.externalChain, [sx.jump('mark-for-masquerade')]);
      else {
        rule(s.externalChain, [sx.addr('saddr', '==', this.clusterCIDR), sx.goto(s.clusterChain)], 'short-circuit pod traffic');
        rule(s.externalChain, [sx.fibLocal('saddr'), sx.jump('mark-for-masquerade')], 'masquerade local traffic');
        rule(s.externalChain, [sx.fibLocal('saddr'), sx.goto(s.clusterChain)], 'short-circuit local traffic');
      }
      if (s.hasExternalEndpoints) rule(s.externalChain, [sx.goto(externalPolicyChain)]);
    }
    if (s.usesFWChain) {
      const nodeIP = this.nodeIPs[0];
      const allowFromNode = nodeIP !== undefined && s.sourceRanges.some((c) => cidrContains(c, nodeIP));
      const sources = [...s.sourceRanges, ...(allowFromNode ? s.lbIPs : [])];
      rule(s.firewallChain, [sx.addrSet('saddr', '!=', sources, `{ ${sources.join(' , ')} }`), sx.drop()]);
    }
    if (s.affinity !== undefined) {
      for (const ep of s.allReachable) {
        out.push({ op: 'add', obj: 'set', name: ep.affinitySet, def: { isMap: false, keyType: [sx.addrType], flags: ['dynamic', 'timeout'], timeout: s.affinity } });
      }
    }
    const toEndpoints = (chain: string, endpoints: PreparedEndpoint[]) => {
      if (s.affinity !== undefined) for (const ep of endpoints) rule(chain, [sx.addr('saddr', '==', `@${ep.affinitySet}`), sx.goto(ep.chain)]);
      rule(chain, [sx.numgenVmap(endpoints.map((e) => e.chain))]);
    };
    if (s.usesClusterPolicyChain) toEndpoints(s.clusterChain, s.clusterEndpoints);
    if (s.usesLocalPolicyChain) toEndpoints(s.localChain, s.localEndpoints);
    for (const ep of s.allReachable) {
      rule(ep.chain, [sx.addr('saddr', '==', ep.address), sx.jump('mark-for-masquerade')]);
      if (s.affinity !== undefined) rule(ep.chain, [sx.updateSaddr(ep.affinitySet)]);
      rule(ep.chain, [sx.l4proto(s.protocol), sx.dnat(ep.address, ep.port)]);
    }
    return out;
  }
}

function kubeProxyOrder(opts: NftGenOptions, family: Family): Op[] {
  const b = new TransactionBuilder(opts, false);
  b.setup();
  for (const s of prepareEach(opts.services, family, prepare)) b.service(s);
  return b.ops;
}

/**
 * The layout of kube-proxy's test expectations (baseRules, then one block per service), reordered by object
 * type (table, sets and maps, chains, rules, elements) the way the corpus loaded them.
 */
function testExpectationOrder(opts: NftGenOptions, family: Family): Op[] {
  const b = new TransactionBuilder(opts, true);
  b.setup();
  const setupOps = b.ops.filter((o) => o.op === 'add');
  const tableOps: Op[] = [{ op: 'add', obj: 'table' }];
  const sets: Op[] = [];
  const chains: Op[] = [];
  const rules: Op[] = [];
  const elements: Op[] = [];
  // Base sets: sets, then maps by name (as the test file lists them).
  const setOps = setupOps.filter((o): o is Extract<Op, { obj: 'set' }> => o.obj === 'set');
  const nodePortIPs = setOps.find((o) => o.name === 'nodeport-ips');
  sets.push(setOps.find((o) => o.name === 'cluster-ips')!);
  if (nodePortIPs && !b.matchAll) sets.push(nodePortIPs);
  sets.push(...setOps.filter((o) => o.def.isMap).sort((x, y) => cmp(x.name, y.name)));
  const baseChains = new Map(b.layout.base.map((bc) => [bc.name, bc.chain]));
  for (const name of b.layout.testChainOrder) {
    if (name === 'reject-chain') chains.push({ op: 'add', obj: 'chain', name, comment: 'helper for @no-endpoint-services / @no-endpoint-nodeports' });
    else chains.push({ op: 'add', obj: 'chain', name, ...(baseChains.has(name) ? { base: baseChains.get(name)! } : {}) });
  }
  // Base rules in the order of the test file's baseRules (chain by chain, except that it puts
  // filter-output-pre-dnat's rule between the two filter-output rules).
  const setupRules = setupOps.filter((o): o is Extract<Op, { obj: 'rule' }> => o.obj === 'rule');
  const byChain = (chain: string) => setupRules.filter((r) => r.chain === chain);
  const ruleOrder = b.layout.testChainOrder.filter((c) => c !== 'filter-output-pre-dnat' && c !== 'service-endpoints-check');
  for (const name of ruleOrder) {
    if (name === 'filter-output' && b.layout === LAYOUTS['pre-dnat']) {
      const [first, ...rest] = byChain(name);
      rules.push(...(first ? [first] : []), ...byChain('filter-output-pre-dnat'), ...rest);
    } else rules.push(...byChain(name));
  }
  rules.push(...byChain('service-endpoints-check'));
  elements.push(...setupOps.filter((o) => o.obj === 'element'));

  for (const s of prepareEach(opts.services, family, prepare)) {
    const before = b.ops.length;
    b.service(s);
    const ops = b.ops.slice(before).filter((o) => o.op === 'add');
    const svcChains = ops.filter((o): o is Extract<Op, { obj: 'chain' }> => o.obj === 'chain').map((o) => o.name);
    const rank = (name: string) =>
      name.startsWith(NFT_OBJECT_PREFIX.service) ? 0 : name.startsWith(NFT_OBJECT_PREFIX.local) ? 1 : name.startsWith(NFT_OBJECT_PREFIX.external) ? 2 : name.startsWith(NFT_OBJECT_PREFIX.endpoint) ? 3 : 4;
    svcChains.sort((x, y) => rank(x) - rank(y) || cmp(x, y));
    for (const name of svcChains) {
      chains.push({ op: 'add', obj: 'chain', name });
      rules.push(...ops.filter((o) => o.obj === 'rule' && o.chain === name));
    }
    sets.push(...ops.filter((o) => o.obj === 'set'));
    const els = ops.filter((o): o is Extract<Op, { obj: 'element' }> => o.obj === 'element');
    elements.push(...els.filter((e) => !e.set.startsWith('no-endpoint-')));
    elements.push(...els.filter((e) => e.set === 'no-endpoint-nodeports'));
    elements.push(...els.filter((e) => e.set === 'no-endpoint-services').sort((x, y) => cmp(keyText(x.key), keyText(y.key))));
  }
  return [...tableOps, ...sets, ...chains, ...rules, ...elements];
}

// ---------------------------------------------------------------------------------------------------------
// nft's view: objects after the transaction, with kernel handles

interface LiveSet {
  name: string;
  def: SetDef;
  handle: number;
  elements: Map<string, Extract<Op, { obj: 'element' }>>;
}

interface LiveChain {
  name: string;
  base?: BaseChain;
  comment?: string;
  handle: number;
  rules: { frags: Frag[]; comment?: string; handle: number }[];
}

interface Live {
  sets: Map<string, LiveSet>;
  chains: Map<string, LiveChain>;
}

function apply(ops: Op[]): Live {
  const sets = new Map<string, LiveSet>();
  const chains = new Map<string, LiveChain>();
  let handle = 0;
  for (const o of ops) {
    switch (o.obj) {
      case 'table':
        break;
      case 'chain':
        if (o.op === 'add') {
          if (!chains.has(o.name)) chains.set(o.name, { name: o.name, ...(o.base ? { base: o.base } : {}), ...(o.comment !== undefined ? { comment: o.comment } : {}), handle: ++handle, rules: [] });
        } else if (o.op === 'flush') chains.get(o.name)!.rules = [];
        else chains.delete(o.name);
        break;
      case 'set':
        if (o.op === 'add') {
          if (!sets.has(o.name)) sets.set(o.name, { name: o.name, def: o.def, handle: ++handle, elements: new Map() });
        } else if (o.op === 'flush') sets.get(o.name)!.elements.clear();
        else sets.delete(o.name);
        break;
      case 'rule': {
        const chain = chains.get(o.chain);
        if (!chain) throw new Error(`generator: rule for missing chain ${o.chain}`);
        for (const f of o.frags) handle += f.anon ?? 0;
        chain.rules.push({ frags: o.frags, ...(o.comment !== undefined ? { comment: o.comment } : {}), handle: ++handle });
        break;
      }
      case 'element': {
        const set = sets.get(o.set);
        if (!set) throw new Error(`generator: element for missing set ${o.set}`);
        set.elements.set(keyText(o.key), o);
        break;
      }
    }
  }
  return { sets, chains };
}

function keyText(key: KeyPart[]): string {
  return key.map((k) => (k.type === 'port' ? String(k.value) : k.text)).join(' . ');
}

const PROTO_NUMBERS: Record<string, number> = { tcp: 6, udp: 17, sctp: 132 };

/** The bytes nft sorts an element by (expr_msort_value): concatenations are read as one host-endian number. */
function sortBytes(key: KeyPart[]): number[] {
  const bytesOf = (k: KeyPart): number[] => (k.type === 'port' ? [k.value >> 8, k.value & 255] : k.type === 'proto' ? [PROTO_NUMBERS[k.text] ?? 0] : parseIP(k.text)!.bytes);
  if (key.length === 1) return bytesOf(key[0]!);
  return key.flatMap(bytesOf).reverse();
}

function compareBytes(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function sortedElements(set: LiveSet): Extract<Op, { obj: 'element' }>[] {
  return [...set.elements.values()]
    .map((e) => ({ e, k: sortBytes(e.key) }))
    .sort((x, y) => compareBytes(x.k, y.k))
    .map((x) => x.e);
}

function verdictText(v: Verdict): string {
  return v.kind === 'drop' ? 'drop' : `${v.kind} ${v.chain}`;
}

function verdictJson(v: Verdict): Json {
  return v.kind === 'drop' ? { drop: null } : { [v.kind]: { target: v.chain } };
}

/** nft's time_print: 10800 s -> "3h", 90061 s -> "1d1h1m1s". */
function nftTime(seconds: number): string {
  let s = seconds;
  const d = Math.floor(s / 86400);
  s %= 86400;
  const h = Math.floor(s / 3600);
  s %= 3600;
  const m = Math.floor(s / 60);
  s %= 60;
  return `${d ? `${d}d` : ''}${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}` || '0s';
}

const STD_PRIORITIES: { name: string; value: number; hooks?: string[] }[] = [
  { name: 'raw', value: -300 },
  { name: 'mangle', value: -150 },
  { name: 'dstnat', value: -100, hooks: ['prerouting'] },
  { name: 'filter', value: 0 },
  { name: 'security', value: 50 },
  { name: 'srcnat', value: 100, hooks: ['postrouting'] },
];

/** How nft 1.0.6 prints a base chain priority in an ip/ip6 table. */
function priorityText(hook: string, priority: number): string {
  for (const p of STD_PRIORITIES) {
    if (p.hooks && !p.hooks.includes(hook)) continue;
    const offset = priority - p.value;
    if (offset === 0) return p.name;
    if (Math.abs(offset) <= 10) return `${p.name} ${offset > 0 ? '+' : '-'} ${Math.abs(offset)}`;
  }
  return String(priority);
}

function elementDelimiter(set: LiveSet): (count: number) => string | undefined {
  const newline = ',\n\t\t\t     ';
  if (set.def.keyType.length > 1 || set.def.timeout !== undefined || [...set.elements.values()].some((e) => e.comment !== undefined)) return () => newline;
  const perLine = set.def.keyType[0] === 'ipv4_addr' ? 2 : set.def.keyType[0] === 'inet_service' || set.def.keyType[0] === 'inet_proto' ? 5 : 1;
  return (count) => (count % perLine === 0 ? newline : undefined);
}

function quote(text: string): string {
  return `"${text}"`;
}

function renderListRuleset(live: Live, family: Family): string {
  const blocks: string[] = [];
  for (const set of live.sets.values()) {
    const lines = [`\t${set.def.isMap ? 'map' : 'set'} ${set.name} {`, `\t\ttype ${set.def.keyType.join(' . ')}${set.def.isMap ? ' : verdict' : ''}`];
    const dynamic = set.def.flags?.includes('dynamic');
    if (dynamic) lines.push('\t\tsize 65535');
    if (set.def.flags?.length) lines.push(`\t\tflags ${set.def.flags.join(',')}`);
    if (set.def.timeout !== undefined) lines.push(`\t\ttimeout ${nftTime(set.def.timeout)}`);
    if (set.def.comment !== undefined) lines.push(`\t\tcomment ${quote(set.def.comment)}`);
    if (set.elements.size > 0) {
      const delim = elementDelimiter(set);
      let text = '\t\telements = { ';
      let count = 0;
      for (const e of sortedElements(set)) {
        if (count > 0) text += delim(count) ?? ', ';
        text += keyText(e.key) + (e.comment !== undefined ? ` comment ${quote(e.comment)}` : '') + (e.verdict ? ` : ${verdictText(e.verdict)}` : '');
        count++;
      }
      lines.push(`${text} }`);
    }
    lines.push('\t}');
    blocks.push(lines.join('\n'));
  }
  for (const chain of live.chains.values()) {
    const lines = [`\tchain ${chain.name} {`];
    if (chain.comment !== undefined) lines.push(`\t\tcomment ${quote(chain.comment)}`);
    if (chain.base) lines.push(`\t\ttype ${chain.base.type} hook ${chain.base.hook} priority ${priorityText(chain.base.hook, chain.base.priority)}; policy accept;`);
    for (const r of chain.rules) lines.push(`\t\t${r.frags.map((f) => f.list).join(' ')}${r.comment !== undefined ? ` comment ${quote(r.comment)}` : ''}`);
    lines.push('\t}');
    blocks.push(lines.join('\n'));
  }
  const fam = family === 'ipv4' ? 'ip' : 'ip6';
  return `table ${fam} ${TABLE} {\n\tcomment "rules for kube-proxy"\n${blocks.join('\n\n')}\n}\n`;
}

/** nft -j prints with ", " and ": " separators on one line. */
function jsonText(v: Json): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(jsonText).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}: ${jsonText(x)}`)
    .join(', ')}}`;
}

function renderJson(live: Live, family: Family): string {
  const fam = family === 'ipv4' ? 'ip' : 'ip6';
  const items: Json[] = [{ metainfo: { version: '1.0.6', release_name: 'Lester Gooch #5', json_schema_version: 1 } }, { table: { family: fam, name: TABLE, handle: 1 } }];
  const keyJson = (key: KeyPart[]): Json => {
    const parts = key.map((k): Json => (k.type === 'port' ? k.value : k.text));
    return parts.length === 1 ? parts[0]! : { concat: parts };
  };
  for (const set of live.sets.values()) {
    const o: { [k: string]: Json } = { family: fam, name: set.name, table: TABLE, type: set.def.keyType.length === 1 ? set.def.keyType[0]! : set.def.keyType, handle: set.handle };
    if (set.def.flags?.includes('dynamic')) o.size = 65535;
    const flags = (set.def.flags ?? []).filter((f) => f !== 'dynamic');
    if (flags.length) o.flags = flags;
    if (set.def.timeout !== undefined) o.timeout = set.def.timeout;
    if (set.def.comment !== undefined) o.comment = set.def.comment;
    if (set.def.isMap) o.map = 'verdict';
    if (set.elements.size > 0) {
      o.elem = sortedElements(set).map((e): Json => {
        const key = e.comment !== undefined ? { elem: { val: keyJson(e.key), comment: e.comment } } : keyJson(e.key);
        return e.verdict ? [key, verdictJson(e.verdict)] : key;
      });
    }
    items.push({ [set.def.isMap ? 'map' : 'set']: o });
  }
  for (const chain of live.chains.values()) {
    const o: { [k: string]: Json } = { family: fam, table: TABLE, name: chain.name, handle: chain.handle };
    if (chain.base) Object.assign(o, { type: chain.base.type, hook: chain.base.hook, prio: chain.base.priority, policy: 'accept' });
    items.push({ chain: o });
  }
  for (const chain of live.chains.values()) {
    for (const r of chain.rules) {
      const o: { [k: string]: Json } = { family: fam, table: TABLE, chain: chain.name, handle: r.handle };
      if (r.comment !== undefined) o.comment = r.comment;
      o.expr = r.frags.flatMap((f) => f.json);
      items.push({ rule: o });
    }
  }
  return `${jsonText({ nftables: items })}\n`;
}

/** Without flush and delete commands: objects that the transaction deletes again are left out as well. */
function addsOnly(ops: Op[]): Op[] {
  const id = (o: Op) => (o.obj === 'chain' || o.obj === 'set' ? `${o.obj} ${o.name}` : undefined);
  const dropped = new Set<number>();
  const lastAdd = new Map<string, number>();
  ops.forEach((o, i) => {
    const key = id(o);
    if (!key) return;
    if (o.op === 'add') lastAdd.set(key, i);
    else if (o.op === 'delete' && lastAdd.has(key)) {
      dropped.add(lastAdd.get(key)!);
      lastAdd.delete(key);
    }
  });
  return ops.filter((o, i) => o.op === 'add' && !dropped.has(i));
}

function renderCmds(ops: Op[], family: Family, adds: boolean): string {
  const fam = family === 'ipv4' ? 'ip' : 'ip6';
  if (adds) ops = addsOnly(ops);
  const lines: string[] = [];
  for (const o of ops) {
    switch (o.obj) {
      case 'table':
        lines.push(`add table ${fam} ${TABLE} { comment "rules for kube-proxy" ; }`);
        break;
      case 'chain': {
        let props = '';
        if (o.op === 'add' && o.base) props = ` { type ${o.base.type} hook ${o.base.hook} priority ${o.base.priority} ; }`;
        else if (o.op === 'add' && o.comment !== undefined) props = ` { comment ${quote(o.comment)} ; }`;
        lines.push(`${o.op} chain ${fam} ${TABLE} ${o.name}${props}`);
        break;
      }
      case 'set': {
        const kind = o.def.isMap ? 'map' : 'set';
        if (o.op !== 'add') {
          lines.push(`${o.op} ${kind} ${fam} ${TABLE} ${o.name}`);
          break;
        }
        const props = [`type ${o.def.keyType.join(' . ')}${o.def.isMap ? ' : verdict' : ''}`];
        if (o.def.flags?.length) props.push(`flags ${o.def.flags.join(',')}`);
        if (o.def.timeout !== undefined) props.push(`timeout ${o.def.timeout}s`);
        if (o.def.comment !== undefined) props.push(`comment ${quote(o.def.comment)}`);
        lines.push(`add ${kind} ${fam} ${TABLE} ${o.name} { ${props.join(' ; ')} ; }`);
        break;
      }
      case 'rule':
        lines.push(`add rule ${fam} ${TABLE} ${o.chain} ${o.frags.map((f) => f.cmd).join(' ')}${o.comment !== undefined ? ` comment ${quote(o.comment)}` : ''}`);
        break;
      case 'element':
        lines.push(`add element ${fam} ${TABLE} ${o.set} { ${keyText(o.key)}${o.comment !== undefined ? ` comment ${quote(o.comment)}` : ''}${o.verdict ? ` : ${verdictText(o.verdict)}` : ''} }`);
        break;
    }
  }
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------------------
// Entry points

export function generateNftDump(opts: NftGenOptions): string {
  const family: Family = opts.family ?? 'ipv4';
  const ops = opts.order === 'test-expectation' ? testExpectationOrder(opts, family) : kubeProxyOrder(opts, family);
  if (opts.style === 'nft-cmds') return renderCmds(ops, family, opts.cmds === 'adds');
  const live = apply(ops);
  return opts.style === 'nft-json' ? renderJson(live, family) : renderListRuleset(live, family);
}

/** The names kube-proxy gives a service port's objects (for tests and hints). */
export function nftObjectNames(svc: GenServicePort): { service: string; local: string; external: string; firewall: string; endpoints: { address: string; port: number; chain: string; affinitySet: string }[] } {
  const family = familyOf(svc.clusterIP);
  if (!family) throw new Error(`bad clusterIP ${svc.clusterIP}`);
  const s = prepare(svc, family)!;
  return {
    service: s.clusterChain,
    local: s.localChain,
    external: s.externalChain,
    firewall: s.firewallChain,
    endpoints: s.allReachable.map((e) => ({ address: e.address, port: e.port, chain: e.chain, affinitySet: e.affinitySet })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Ground truth

/**
 * What a correct reader of an nftables-mode dump should report per service port (for the family of its
 * clusterIP), in the same shape and order as the iptables generator's expectedCatalog: endpoints are those
 * with endpoint chains, probability = share of new ClusterIP connections from a pod (1/n of the numgen
 * vmap each, exact), local only for endpoints in a `local-` chain. Frontends: see ExpectedNftCatalogEntry.
 * Policies: only what the dump shows (e.g. no affinity and no traffic policy for services without endpoints).
 */
export function expectedNftCatalog(services: GenServicePort[], opts: Pick<NftGenOptions, 'clusterCIDR' | 'masqueradeAll' | 'nodeIPs'> = {}): ExpectedNftCatalogEntry[] {
  const entries: ExpectedNftCatalogEntry[] = [];
  for (const svc of services) {
    const family = familyOf(svc.clusterIP);
    if (!family) throw new Error(`bad clusterIP ${svc.clusterIP}`);
    const s = prepare(svc, family)!;
    const frontends: ExpectedNftCatalogEntry['frontends'] = [{ kind: 'clusterIP', address: s.clusterIP, port: svc.port }];
    if (s.nodePort) frontends.push({ kind: 'nodePort', port: s.nodePort });
    const shown = new Set<string>();
    for (const ip of s.lbIPs) {
      if (shown.has(ip)) continue;
      shown.add(ip);
      frontends.push(s.usesFWChain ? { kind: 'loadBalancer', address: ip, port: svc.port } : { kind: 'externalIP', address: ip, port: svc.port, kindUncertain: true });
    }
    for (const ip of s.externalIPs) {
      if (shown.has(ip)) continue;
      shown.add(ip);
      frontends.push({ kind: 'externalIP', address: ip, port: svc.port, kindUncertain: true });
    }
    frontends.sort((a, b) => cmp(a.kind, b.kind) || cmp(a.address ?? '', b.address ?? '') || a.port - b.port);

    const endpoints = expectedEndpoints(s);

    const policies: ExpectedNftCatalogEntry['policies'] = {};
    if (s.affinity !== undefined && s.allReachable.length > 0) policies.sessionAffinityTimeoutSeconds = s.affinity;
    if (s.usesExternalTrafficChain) policies.externalTrafficPolicy = s.externalPolicyLocal ? 'Local' : 'Cluster';
    else if (s.hasEndpoints && !s.hasExternalEndpoints) policies.externalTrafficPolicy = 'Local';
    if (s.hasInternalEndpoints) policies.internalTrafficPolicy = s.internalPolicyLocal ? 'Local' : 'Cluster';
    else if (s.hasEndpoints) policies.internalTrafficPolicy = 'Local';
    if (s.usesFWChain) {
      const nodeIP = (opts.nodeIPs ?? [family === 'ipv4' ? '192.168.0.2' : 'fd00::2']).filter((a) => familyOf(a) === family).map(canonicalIP)[0];
      const allow = nodeIP !== undefined && s.sourceRanges.some((c) => cidrContains(c, nodeIP));
      policies.loadBalancerSourceRanges = mergeIntervals([...s.sourceRanges, ...(allow ? s.lbIPs : [])]).map(intervalText);
    }
    if (!s.hasEndpoints) policies.noEndpoints = 'reject';
    else if (!s.hasInternalEndpoints || !s.hasExternalEndpoints) policies.noEndpoints = 'drop';
    // The local-traffic detector's CIDR shows in the ClusterIP masquerade rule and in the "short-circuit pod
    // traffic" rule of a Local external chain.
    if (s.hasInternalEndpoints && opts.masqueradeAll) policies.masqueradeAll = true;
    if ((s.hasInternalEndpoints && !opts.masqueradeAll) || (s.usesExternalTrafficChain && s.externalPolicyLocal)) {
      policies.clusterCIDR = canonicalCIDR(opts.clusterCIDR ?? (family === 'ipv4' ? '10.0.0.0/8' : 'fd00:10::/64'));
    }
    entries.push({ namespace: svc.namespace, name: svc.name, portName: svc.portName, protocol: s.protocol, frontends, endpoints, policies });
  }
  entries.sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.name, b.name) || cmp(a.portName, b.portName) || cmp(a.protocol, b.protocol));
  return entries;
}

/** expectedNftCatalog reduced to the iptables generator's entry shape (kinds as the iptables truth has them). */
export function asIptablesTruth(entries: ExpectedNftCatalogEntry[]): ExpectedCatalogEntry[] {
  return entries.map((e) => ({
    namespace: e.namespace,
    name: e.name,
    portName: e.portName,
    protocol: e.protocol,
    frontends: e.frontends.map((f) => (f.address === undefined ? { kind: f.kind, port: f.port } : { kind: f.kind, address: f.address, port: f.port })),
    endpoints: e.endpoints,
  }));
}

/**
 * The same services with IPv6 addresses, for IPv6 dumps from randomServices(): a.b.c.d becomes
 * fd00:10:96::<c.d> for cluster IPs (inside the default IPv6 ServiceCIDR), fd00:10::a:b:c:d for pods (inside
 * the default IPv6 cluster CIDR) and 2001:db8::a:b:c:d for external and load-balancer IPs and source ranges.
 */
export function ipv6Variant(services: GenServicePort[]): GenServicePort[] {
  const hex = (b: number[], from: number) => b.slice(from).map((x) => x.toString(16));
  const map = (ip: string, kind: 'cluster' | 'pod' | 'external') => {
    const b = parseIPv4(ip);
    if (!b) return ip;
    if (kind === 'cluster') return canonicalIP(`fd00:10:96::${((b[2]! << 8) | b[3]!).toString(16)}`);
    return canonicalIP(`${kind === 'pod' ? 'fd00:10' : '2001:db8'}::${hex(b, 0).join(':')}`);
  };
  const range = (cidr: string) => {
    const [a, len] = cidr.trim().split('/');
    return canonicalCIDR(`${map(a!, 'external')}/${Number(len ?? 32) + 96}`);
  };
  return services.map((s) => ({
    ...s,
    clusterIP: map(s.clusterIP, 'cluster'),
    ...(s.externalIPs ? { externalIPs: s.externalIPs.map((a) => map(a, 'external')) } : {}),
    ...(s.loadBalancerIPs ? { loadBalancerIPs: s.loadBalancerIPs.map((a) => map(a, 'external')) } : {}),
    ...(s.loadBalancerSourceRanges ? { loadBalancerSourceRanges: s.loadBalancerSourceRanges.map(range) } : {}),
    endpoints: s.endpoints.map((e) => ({ ...e, address: map(e.address, 'pod') })),
  }));
}

// ---------------------------------------------------------------------------------------------------------
// The services of kube-proxy's own tests (pkg/proxy/nftables/proxier_test.go, ~v1.33), keyed by the file
// name in the shared corpus (nft/kube-proxy/<key>.nft|.json|.nft-cmds). Generate them with
// KUBE_PROXY_NFT_TEST_OPTIONS to get those files back.

export const KUBE_PROXY_NFT_TEST_OPTIONS: Pick<NftGenOptions, 'order' | 'serviceCIDRs'> = { order: 'test-expectation', serviceCIDRs: ['172.30.0.0/16'] };

function testService(namespace: string, name: string, clusterIP: string, port: number, endpoints: string[], extra: Partial<GenServicePort> = {}): GenServicePort {
  return { namespace, name, portName: `p${port}`, protocol: 'tcp', clusterIP, port, endpoints: endpoints.map((address) => ({ address, port })), ...extra };
}

const R1 = testService('ns1', 'svc1', '172.30.0.41', 80, ['10.0.1.1']);
const R2 = testService('ns2', 'svc2', '172.30.0.42', 8080, ['10.0.2.1']);
const R3 = testService('ns3', 'svc3', '172.30.0.43', 80, ['10.0.3.1']);
const R4 = testService('ns4', 'svc4', '172.30.0.44', 80, []);

export const KUBE_PROXY_NFT_TEST_SERVICES: Record<string, GenServicePort[]> = {
  baseRules: [],
  TestOverallNFTablesRules: [
    testService('ns1', 'svc1', '172.30.0.41', 80, ['10.180.0.1']),
    // LoadBalancer, externalTrafficPolicy Local; its endpoint is not on this node.
    testService('ns2', 'svc2', '172.30.0.42', 80, ['10.180.0.2'], {
      nodePort: 3001,
      loadBalancerIPs: ['1.2.3.4'],
      externalIPs: ['192.168.99.22'],
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 30000,
    }),
    testService('ns3', 'svc3', '172.30.0.43', 80, ['10.180.0.3'], { nodePort: 3003 }),
    // 10.180.0.5 is on the test node, which changes nothing with externalTrafficPolicy Cluster.
    {
      ...testService('ns4', 'svc4', '172.30.0.44', 80, []),
      externalIPs: ['192.168.99.33'],
      endpoints: [
        { address: '10.180.0.4', port: 80 },
        { address: '10.180.0.5', port: 80, local: true },
      ],
    },
    testService('ns5', 'svc5', '172.30.0.45', 80, ['10.180.0.3'], {
      nodePort: 3002,
      loadBalancerIPs: ['5.6.7.8'],
      externalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 30000,
      loadBalancerSourceRanges: [' 203.0.113.0/25'],
      sessionAffinityTimeout: 10800,
    }),
    testService('ns6', 'svc6', '172.30.0.46', 80, []),
  ],
  // Addresses and ranges of the other family are dropped by kube-proxy.
  TestBadIPs: [
    testService('ns1', 'svc1', '172.30.0.41', 80, ['10.180.0.1', 'fd00:10:180::1'], {
      nodePort: 3001,
      externalIPs: ['192.168.99.22', '2600:5200::1'],
      loadBalancerIPs: ['1.2.3.4', 'fd00::1'],
      loadBalancerSourceRanges: [' 203.0.113.0/25', '2001:db8::/64'],
    }),
  ],
  // TestSyncProxyRulesRepeated steps that are a full state (03, 07 and 09 also hold stale flushed chains).
  TestSyncProxyRulesRepeated__01_initial: [R1, R2],
  TestSyncProxyRulesRepeated__02_add_svc3: [R1, R2, R3],
  TestSyncProxyRulesRepeated__04_stale_chains_deleted: [R1, R3],
  TestSyncProxyRulesRepeated__05_add_svc4_no_endpoints: [R1, R3, R4],
  TestSyncProxyRulesRepeated__06_add_svc4_endpoints: [R1, R3, { ...R4, endpoints: [{ address: '10.0.4.1', port: 80 }] }],
  TestSyncProxyRulesRepeated__08_add_svc3_endpoint: [
    R1,
    {
      ...R3,
      endpoints: [
        { address: '10.0.3.2', port: 80 },
        { address: '10.0.3.3', port: 80 },
      ],
    },
    { ...R4, endpoints: [{ address: '10.0.4.1', port: 80 }] },
  ],
};
