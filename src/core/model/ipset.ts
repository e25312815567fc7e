// The ipset part of the dataplane model (DESIGN §3). Built by core/parse/ipset from `ipset save` /
// `ipset restore` input and from `ipset list` output; read by the language features and the explanations.
import type { Diagnostic } from './diagnostics';
import type { Range } from './range';
import type { Symbols } from './symbols';

export type IpsetFamily = 'inet' | 'inet6';

/** The scope of every ipset symbol: set names are global on a node. */
export const IPSET_SCOPE = 'ipset';

/** One dimension of a set type: `hash:ip,port,net` has ip, port and net. */
export type IpsetDimension = 'ip' | 'net' | 'port' | 'mac' | 'iface' | 'mark' | 'set';

/** `family inet`, `hashsize 1024`, `counters`, `comment`, … as written on a create or Header line. */
export interface IpsetOption {
  name: string;
  value?: string;
  range: Range;
}

/** One typed part of a member: `10.96.0.10,udp:53` has an ip part and a port part. */
export interface IpsetMemberPart {
  dimension: IpsetDimension;
  text: string;
  range: Range;
  /** ip / net: the (first) address; mac / iface / mark / set: the value. */
  address?: string;
  /** ip / net: the last address of an `a-b` range. */
  addressTo?: string;
  /** ip / net: the prefix length after `/`. */
  prefix?: number;
  family?: IpsetFamily;
  /** port: `tcp`, `udp`, `sctp`, `udplite`, `icmp`, `icmpv6` (tcp when omitted). */
  protocol?: string;
  port?: number;
  portTo?: number;
  /** port: an ICMP type name or `type/code` after `icmp:`. */
  icmp?: string;
  /** iface: `physdev:` prefix. */
  physdev?: boolean;
  mark?: number;
}

export interface IpsetMemberOptions {
  timeout?: number;
  packets?: number;
  bytes?: number;
  comment?: string;
  nomatch?: boolean;
  skbmark?: string;
  skbprio?: string;
  skbqueue?: number;
  /** list:set `add` only: position relative to another member. */
  before?: string;
  after?: string;
}

export interface IpsetMember {
  /** The element as written (`10.96.0.10,udp:53`). */
  text: string;
  parts: IpsetMemberPart[];
  /** Convenience views of the parts. */
  address?: string;
  prefix?: number;
  protocol?: string;
  port?: number;
  portTo?: number;
  /** The second address of `hash:ip,port,ip` / `hash:ip,port,net` / `hash:net,port,net`. */
  address2?: string;
  prefix2?: number;
  options: IpsetMemberOptions;
  /** The `add` line, or the member line of a listing. */
  range: Range;
  textRange: Range;
  line: number;
}

export interface IpSet {
  name: string;
  /** `hash:ip,port` as written. */
  type: string;
  method?: 'hash' | 'bitmap' | 'list';
  dimensions: IpsetDimension[];
  /** Undefined for family-independent types (bitmap:port, list:set, hash:mac). */
  family?: IpsetFamily;
  options: IpsetOption[];
  hashsize?: number;
  maxelem?: number;
  /** Default timeout of members, seconds (0 = permanent unless given per member). */
  timeout?: number;
  counters?: boolean;
  comment?: boolean;
  skbinfo?: boolean;
  forceadd?: boolean;
  bucketsize?: number;
  initval?: string;
  netmask?: number;
  markmask?: string;
  /** bitmap:* `range a-b` (ports or addresses) or a network. */
  range?: { from: string; to: string; text: string };
  /** list:set `size`. */
  size?: number;
  /** `ipset list` header fields. */
  revision?: number;
  sizeInMemory?: number;
  references?: number;
  numberOfEntries?: number;
  members: IpsetMember[];
  source: 'save' | 'list';
  /** The create line, or the `Name:` line. */
  declarationRange: Range;
  nameRange: Range;
  typeRange?: Range;
  /** Declaration through the last line that adds to it (save) or its last member (list). */
  fullRange: Range;
  line: number;
}

export interface IpsetCommand {
  command: 'create' | 'add' | 'del' | 'test' | 'destroy' | 'flush' | 'rename' | 'swap';
  keyword: string;
  set?: string;
  setRange?: Range;
  args: string[];
  range: Range;
  line: number;
}

export interface IpsetDump {
  dialect: 'ipset';
  formats: Array<'save' | 'list'>;
  sets: IpSet[];
  setByName: Map<string, IpSet>;
  commands: IpsetCommand[];
  diagnostics: Diagnostic[];
  symbols: Symbols;
  /** 0-based line → the member on it (an add line or a member line) and its set. */
  memberByLine: Map<number, { set: IpSet; member: IpsetMember }>;
  /** 0-based line → the set declared there (create / Name: line) or whose list header field it is. */
  setByLine: Map<number, IpSet>;
  commandByLine: Map<number, IpsetCommand>;
  /** 0-based line → the `ipset list` field on it (`Revision:`, `Header:` …). */
  fieldByLine: Map<number, { key: string; keyRange: Range; set: IpSet }>;
  lineCount: number;
}

/** The dimensions of a set type name, or undefined when the type is unknown. */
export function typeDimensions(type: string): { method: 'hash' | 'bitmap' | 'list'; dimensions: IpsetDimension[] } | undefined {
  const m = /^(hash|bitmap|list):([a-z,]+)$/.exec(type);
  if (!m) return undefined;
  const known = KNOWN_TYPES.has(type);
  if (!known) return undefined;
  return { method: m[1] as 'hash' | 'bitmap' | 'list', dimensions: m[2].split(',') as IpsetDimension[] };
}

/** Every set type of ipset 7.x. */
export const KNOWN_TYPES = new Set([
  'bitmap:ip',
  'bitmap:ip,mac',
  'bitmap:port',
  'hash:ip',
  'hash:mac',
  'hash:ip,mac',
  'hash:net',
  'hash:net,net',
  'hash:ip,port',
  'hash:net,port',
  'hash:ip,port,ip',
  'hash:ip,port,net',
  'hash:ip,mark',
  'hash:net,port,net',
  'hash:net,iface',
  'list:set',
]);

/** Number of members a set ends with, the way `ipset list` would count them. */
export function memberCount(set: IpSet): number {
  return set.members.length;
}

/** One of the sets kube-proxy creates in IPVS mode (pkg/proxy/ipvs: ipset.go, proxier.go `ipsetInfo`). */
export interface KubeIpsetInfo {
  /** The IPv4 name (`KUBE-CLUSTER-IP`); `name` of the lookup result is the name asked for. */
  base: string;
  name: string;
  type: string;
  family: IpsetFamily;
  /** kube-proxy's own comment for the set. */
  comment: string;
  /** How kube-proxy's iptables rules match it (`--match-set NAME dst,dst`). */
  match?: string;
}

const KUBE_IPSETS: Array<Omit<KubeIpsetInfo, 'name' | 'family'>> = [
  { base: 'KUBE-LOOP-BACK', type: 'hash:ip,port,ip', comment: 'Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose', match: 'dst,dst,src' },
  { base: 'KUBE-CLUSTER-IP', type: 'hash:ip,port', comment: 'Kubernetes service cluster ip + port for masquerade purpose', match: 'dst,dst' },
  { base: 'KUBE-EXTERNAL-IP', type: 'hash:ip,port', comment: 'Kubernetes service external ip + port for masquerade and filter purpose', match: 'dst,dst' },
  { base: 'KUBE-EXTERNAL-IP-LOCAL', type: 'hash:ip,port', comment: 'Kubernetes service external ip + port with externalTrafficPolicy=local', match: 'dst,dst' },
  { base: 'KUBE-LOAD-BALANCER', type: 'hash:ip,port', comment: 'Kubernetes service lb portal', match: 'dst,dst' },
  { base: 'KUBE-LOAD-BALANCER-LOCAL', type: 'hash:ip,port', comment: 'Kubernetes service load balancer ip + port with externalTrafficPolicy=local', match: 'dst,dst' },
  { base: 'KUBE-LOAD-BALANCER-FW', type: 'hash:ip,port', comment: 'Kubernetes service load balancer ip + port for load balancer with sourceRange', match: 'dst,dst' },
  { base: 'KUBE-LOAD-BALANCER-SOURCE-IP', type: 'hash:ip,port,ip', comment: 'Kubernetes service load balancer ip + port + source IP for packet filter purpose', match: 'dst,dst,src' },
  { base: 'KUBE-LOAD-BALANCER-SOURCE-CIDR', type: 'hash:ip,port,net', comment: 'Kubernetes service load balancer ip + port + source cidr for packet filter purpose', match: 'dst,dst,src' },
  { base: 'KUBE-NODE-PORT-TCP', type: 'bitmap:port', comment: 'Kubernetes nodeport TCP port for masquerade purpose', match: 'dst' },
  { base: 'KUBE-NODE-PORT-LOCAL-TCP', type: 'bitmap:port', comment: 'Kubernetes nodeport TCP port with externalTrafficPolicy=local', match: 'dst' },
  { base: 'KUBE-NODE-PORT-UDP', type: 'bitmap:port', comment: 'Kubernetes nodeport UDP port for masquerade purpose', match: 'dst' },
  { base: 'KUBE-NODE-PORT-LOCAL-UDP', type: 'bitmap:port', comment: 'Kubernetes nodeport UDP port with externalTrafficPolicy=local', match: 'dst' },
  { base: 'KUBE-NODE-PORT-SCTP-HASH', type: 'hash:ip,port', comment: "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'", match: 'dst,dst' },
  { base: 'KUBE-NODE-PORT-LOCAL-SCTP-HASH', type: 'hash:ip,port', comment: "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'", match: 'dst,dst' },
  { base: 'KUBE-HEALTH-CHECK-NODE-PORT', type: 'bitmap:port', comment: 'Kubernetes health check node port', match: 'dst' },
  { base: 'KUBE-IPVS-IPS', type: 'hash:ip', comment: 'Addresses on the ipvs interface', match: 'dst' },
];

/** kube-proxy's IPv6 name of a set: `KUBE-` becomes `KUBE-6-`, cut to 31 characters. */
export function kubeIpv6SetName(base: string): string {
  return base.replace(/^KUBE-/, 'KUBE-6-').slice(0, MAX_IPSET_NAME);
}

/** ipset names are at most 31 characters (IPSET_MAXNAMELEN 32 with the terminating NUL). */
export const MAX_IPSET_NAME = 31;

const KUBE_BY_NAME = new Map<string, KubeIpsetInfo>();
for (const k of KUBE_IPSETS) {
  KUBE_BY_NAME.set(k.base, { ...k, name: k.base, family: 'inet' });
  const v6 = kubeIpv6SetName(k.base);
  KUBE_BY_NAME.set(v6, { ...k, name: v6, family: 'inet6' });
}

/** What kube-proxy uses a set for, when the name is one of its IPVS-mode sets (IPv4 or KUBE-6-… IPv6). */
export function kubeIpsetInfo(name: string): KubeIpsetInfo | undefined {
  return KUBE_BY_NAME.get(name);
}

export const KUBE_IPSET_NAMES: readonly string[] = KUBE_IPSETS.map((k) => k.base);
