// The IPVS part of the dataplane model (DESIGN §3). Built by core/parse/ipvs from `ipvsadm -L[n]` listings
// (plain, --stats, --rate, --thresholds, --persistent-conn, --tun-info), `ipvsadm -L[n]c` connection tables
// and `ipvsadm -S[n]` / restore input; read by the language features, the explanations and (later) the trace.
import { formatHostPort } from './address';
import type { Diagnostic } from './diagnostics';
import type { Range } from './range';
import type { Symbols } from './symbols';

export type IpvsProtocol = 'tcp' | 'udp' | 'sctp';
export type IpvsForward = 'masq' | 'route' | 'tunnel';
export type IpvsFamily = 'ipv4' | 'ipv6';

/** Which ipvsadm command printed a block of the file. */
export type IpvsFormat = 'list' | 'stats' | 'rate' | 'thresholds' | 'persistent-conn' | 'tun-info' | 'connections' | 'save';

/** The scope of every IPVS symbol: virtual services are unique per file (per node). */
export const IPVS_SCOPE = 'ipvs';

/** An address with its port as ipvsadm prints it: `10.0.0.1:443`, `[fd00::1]:80`, `kubernetes.default.svc:https`. */
export interface IpvsEndpoint {
  /** The address (brackets removed) or, in a listing without -n, the host name. */
  address: string;
  family: IpvsFamily;
  /** True when `address` is a host name (a listing without -n). */
  hostname?: boolean;
  /** Undefined when the port is a service name this parser does not know, or was cut off. */
  port?: number;
  /** The port as printed when it is a name (`https`, `domain`, `bacula-fd`). */
  portName?: string;
  /** The text as written. */
  text: string;
  range: Range;
}

/** Counters of `--stats` (totals) or `--rate` (per second). `approximate` when ipvsadm shortened them (K, M, G, T). */
export interface IpvsStats {
  kind: 'stats' | 'rate';
  /** Conns | CPS */
  conns: number;
  /** InPkts | InPPS */
  inPackets: number;
  /** OutPkts | OutPPS */
  outPackets: number;
  /** InBytes | InBPS */
  inBytes: number;
  /** OutBytes | OutBPS */
  outBytes: number;
  approximate: boolean;
  range: Range;
}

export interface Persistence {
  /** Seconds a client stays with its real server after its last connection ends. */
  timeout: number;
  /** `mask 255.255.255.0` (IPv4) or a prefix length (IPv6); absent means one template per client address. */
  netmask?: string;
  /** Persistence engine (`pe sip`). */
  engine?: string;
  range: Range;
}

export interface TunnelInfo {
  type: string;
  port?: number;
  checksum?: 'nocsum' | 'csum' | 'remcsum';
  text: string;
}

export interface RealServer {
  address: string;
  family: IpvsFamily;
  hostname?: boolean;
  port?: number;
  portName?: string;
  forward: IpvsForward;
  /** ipvsadm prints `Local` when the real server is an address of this host (forwarded as `route`). */
  localNode?: boolean;
  weight: number;
  activeConn?: number;
  inactConn?: number;
  persistConn?: number;
  upperThreshold?: number;
  lowerThreshold?: number;
  stats?: IpvsStats;
  tunnel?: TunnelInfo;
  /**
   * Columns the dump does not show, whose value here is ipvsadm's default (forward `route`, weight 1):
   * `--stats` and `--rate` listings print neither, `--thresholds` and `--persistent-conn` omit the forward.
   */
  notInDump: Array<'forward' | 'weight'>;
  /** The whole `  -> …` line (or `-a …` command). */
  range: Range;
  addressRange: Range;
  forwardRange?: Range;
  weightRange?: Range;
  activeRange?: Range;
  inactRange?: Range;
  /** 0-based line. */
  line: number;
}

export interface VirtualService {
  /** Symbol name, the way ipvsadm -L prints it with single spacing: `TCP 10.96.0.10:53`, `UDP [fd00::a]:53`, `FWM 100`, `FWM 100 IPv6`. */
  name: string;
  protocol: IpvsProtocol | 'fwmark';
  address?: string;
  port?: number;
  portName?: string;
  fwmark?: number;
  hostname?: boolean;
  family: IpvsFamily;
  /** Undefined in `--stats` / `--rate` listings, which do not print it. */
  scheduler?: string;
  persistent?: Persistence;
  /** Scheduler flags (`sh-fallback`, `sh-port`, `mh-fallback`, `mh-port`, `flag-1`…`flag-3`) and `ops`. */
  flags: string[];
  stats?: IpvsStats;
  realServers: RealServer[];
  format: IpvsFormat;
  /** The service line (or `-A …` command). */
  range: Range;
  /** `TCP  10.96.0.10:53` in a listing, the address after -t/-u/-f in a command: the symbol's range. */
  nameRange: Range;
  schedulerRange?: Range;
  flagRanges: Range[];
  /** The service line through its last real server line: outline and folding. */
  fullRange: Range;
  line: number;
}

export interface IpvsConnection {
  protocol: string;
  /** Seconds until the entry expires. */
  expires: number;
  state: string;
  source: IpvsEndpoint;
  virtual: IpvsEndpoint;
  destination: IpvsEndpoint;
  peName?: string;
  peData?: string;
  range: Range;
  expiresRange: Range;
  stateRange: Range;
  line: number;
}

/** One header or title line ipvsadm writes itself, kept for hovers and the grammar-independent outline. */
export interface IpvsHeaderLine {
  kind: 'version' | 'columns' | 'real-server-columns' | 'connections' | 'connection-columns' | 'timeout' | 'daemon' | 'comment' | 'prompt';
  text: string;
  range: Range;
  /** For column titles: the format they announce. */
  format?: IpvsFormat;
}

/** One `-A/-E/-D/-a/-e/-d/-C/-Z/--set` line of ipvsadm -S output or ipvsadm -R input. */
export interface IpvsCommand {
  command: 'add-service' | 'edit-service' | 'delete-service' | 'add-server' | 'edit-server' | 'delete-server' | 'clear' | 'zero' | 'set' | 'other';
  /** The option spelling as written (`-A`, `--add-service`). */
  name: string;
  options: IpvsOption[];
  service?: string;
  range: Range;
  line: number;
}

export interface IpvsOption {
  name: string;
  values: string[];
  range: Range;
  nameRange: Range;
  valueRanges: Range[];
}

export interface IpvsDump {
  dialect: 'ipvsadm';
  /** `IP Virtual Server version 1.2.1`, when the header is there. */
  producer?: string;
  version?: string;
  /** The connection hash table size from the header (`size=4096`). */
  tableSize?: number;
  /** Every format seen, in order of first appearance. */
  formats: IpvsFormat[];
  family: IpvsFamily | 'mixed';
  services: VirtualService[];
  connections: IpvsConnection[];
  commands: IpvsCommand[];
  headers: IpvsHeaderLine[];
  timeouts?: { tcp: number; tcpFin: number; udp: number };
  diagnostics: Diagnostic[];
  symbols: Symbols;
  /** 0-based line → the service whose line it is. */
  serviceByLine: Map<number, VirtualService>;
  /** 0-based line → the real server on it and its service; `range` is the line itself (a later listing's line merges into the first). */
  realServerByLine: Map<number, { service: VirtualService; server: RealServer; range: Range }>;
  connectionByLine: Map<number, IpvsConnection>;
  commandByLine: Map<number, IpvsCommand>;
  lineCount: number;
}

export const IPVS_SCHEDULERS = ['rr', 'wrr', 'lc', 'wlc', 'lblc', 'lblcr', 'dh', 'sh', 'sed', 'nq', 'mh', 'fo', 'ovf', 'twos'] as const;

/** Schedulers whose choice depends on the live connection counts, not on the dump alone. */
export const CONNECTION_COUNT_SCHEDULERS = new Set(['lc', 'wlc', 'sed', 'nq', 'lblc', 'lblcr', 'ovf', 'twos']);
/** Schedulers whose choice is a hash of the client (source) address. */
export const SOURCE_HASH_SCHEDULERS = new Set(['sh', 'mh']);
/** Schedulers whose choice is a hash (or cache) of the destination address. */
export const DESTINATION_SCHEDULERS = new Set(['dh', 'lblc', 'lblcr']);

/** ipvsadm's default scheduler (`-A` without `-s`). */
export const DEFAULT_SCHEDULER = 'wlc';
/** ipvsadm's default persistence timeout (`-p` without a value). */
export const DEFAULT_PERSISTENT_TIMEOUT = 300;

/** `host:port` the way ipvsadm prints it (IPv6 in brackets, by the family: the address may be a host name). */
export function realServerLabel(r: RealServer): string {
  return formatHostPort(r.address, r.port ?? r.portName, r.family === 'ipv6');
}

/**
 * Share of new connections each real server gets when the choice depends only on the weights
 * (rr: equal among servers with weight > 0; wrr: weight / sum of weights). Undefined for schedulers
 * whose choice depends on live connection counts or on the client address.
 */
export function weightShares(service: VirtualService): number[] | undefined {
  const sched = service.scheduler;
  const servers = service.realServers;
  if (sched !== 'rr' && sched !== 'wrr') return undefined;
  // Loops, without a list of the eligible servers: the IPVS catalog asks for the shares of every Service.
  let eligible = 0;
  let total = 0;
  for (const r of servers) if (r.notInDump.includes('weight')) return undefined;
  for (const r of servers) {
    const weight = r.weight;
    if (weight > 0) {
      eligible++;
      total += weight;
    }
  }
  const shares: number[] = [];
  for (const r of servers) {
    const weight = r.weight;
    shares.push(eligible === 0 || !(weight > 0) ? 0 : sched === 'rr' ? 1 / eligible : weight / total);
  }
  return shares;
}
