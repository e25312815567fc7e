// The packet simulator's vocabulary (DESIGN §5).
import type { Range } from '../model/range';

export type Protocol = 'tcp' | 'udp' | 'sctp';
/** pod: arrives from a pod on this node (PREROUTING); node: sent by a process on the node (OUTPUT); external: arrives from outside. */
export type Entry = 'pod' | 'node' | 'external';

export interface Packet {
  src: string;
  dst: string;
  protocol: Protocol;
  dport: number;
  sport?: number;
  entry: Entry;
}

/** Where this node's addresses came from: the request, the settings, the dumps, or nowhere. */
export type NodeIPsOrigin = 'given' | 'configured' | 'inferred' | 'unknown';

/** What the dump cannot tell. */
export interface TraceContext {
  /** This node's addresses (`addrtype LOCAL`, `fib daddr type local`). */
  nodeIPs: string[];
  /** True when nodeIPs were guessed from the dump rather than given. */
  nodeIPsInferred?: boolean;
  nodeIPsOrigin?: NodeIPsOrigin;
  /** What in the dumps named them, when inferred. */
  nodeIPsEvidence?: string;
}

/**
 * Why a packet from this node (without `--from`) has its source address: the node's address (the route's source for
 * a destination elsewhere), the destination itself (an address of this node: its local route's source), loopback,
 * or a stand-in when the node's address is unknown.
 */
export type SourceOrigin = 'node-address' | 'local-destination' | 'loopback' | 'stand-in';

export interface PacketSource {
  origin: SourceOrigin;
  /** The reason in words. */
  text: string;
}

export interface PathStep {
  /** Index into the snapshot's files (the CLI prints the file name). */
  fileIndex: number;
  /** 0-based line. */
  line: number;
  range: Range;
  table: string;
  chain: string;
  text: string;
  note: string;
}

/** `-i`/`-o`, `iifname`/`oifname`: the interface the packet arrives on or leaves through (one name each way). */
export interface IfaceTest {
  dir: 'in' | 'out';
  /** A name, or a prefix written `eth+` (iptables) / `eth*` (nft). */
  name: string;
  /** Merged outcomes: the interface is one of these names (`name` lists them). */
  anyOf?: string[];
}

/**
 * `-m recent --rcheck/--update`: the list held the address at least `hits` times in the last `seconds` (0: ever)
 * before this connection. `list` names the list, the side and the address (and TTL) it keys on.
 */
export interface RecentTest {
  list: string;
  hits: number;
  seconds: number;
}

/** A condition the dumps do not decide, as an outcome assumes it: a fact about the packet, not a probability. */
export interface Condition {
  /** What the rule tests, the same text for the condition and its negation. */
  key: string;
  holds: boolean;
  /** The assumption in words. */
  label: string;
  iface?: IfaceTest;
  recent?: RecentTest;
  /** Fixed by the entry point (from outside: not on a pod's interface), not assumed: never listed. */
  given?: boolean;
}

export type Verdict = 'dnat' | 'accept' | 'drop' | 'reject';

export interface Outcome {
  verdict: Verdict;
  /** `ip:port` after DNAT (or REDIRECT / IPVS real server). */
  destination?: string;
  /**
   * Share of new connections under this outcome's conditions (statistic, numgen, IPVS weights): in any one situation
   * (each condition true or false), the outcomes whose conditions hold there sum to 1. Unknown conditions split
   * outcomes but carry no share.
   */
  probability: number;
  masquerade: boolean;
  /** Labelled assumptions: the conditions' labels, then other labels (a scheduler's shares shown as weights). */
  assumptions: string[];
  /** The conditions the dumps do not decide that this outcome assumes (one per condition, never both ways). */
  conditions: Condition[];
  path: PathStep[];
  /** What a returning client (session affinity) gets instead. */
  notes: string[];
  /** The endpoint as the cluster state names it, when one is beside the dump (clusterEndpoints). */
  endpoint?: OutcomeEndpoint;
}

/** How the API sees an endpoint: usable (ready, or serving and terminating as a fallback), not usable, or not there. */
export type EndpointApiState = 'ready' | 'serving-terminating' | 'not-ready' | 'terminating' | 'not-serving' | 'excluded' | 'gone';

/** An outcome's endpoint in the API: its Service port, its EndpointSlice and the pod its targetRef names. */
export interface OutcomeEndpoint {
  /** `namespace/name:port`. */
  service: string;
  endpointSlice?: string;
  /** `targetRef`: `Pod namespace/name`. */
  pod?: string;
  api: EndpointApiState;
  /** Why the API would not use it (not ready, gone, filtered by topology …), already localised; absent when usable. */
  note?: string;
}

export interface TraceResult {
  packet: Packet;
  outcomes: Outcome[];
  /** Problems of the trace itself (loops, depth limit, guessed node addresses). */
  warnings: string[];
  context: TraceContext;
  /** A packet from this node: where its source address comes from. */
  source?: PacketSource;
  /** No Service owns the destination: nothing translates it (a warning says so in words). */
  noService?: boolean;
  /** What the user could say to make the trace surer ('node-address': this node's address was guessed or stood in). */
  advice?: TraceAdvice[];
  /** The Service (`namespace/name:port`) the destination is a frontend of, when the caller looked it up (tracedService). */
  service?: string;
}

export type TraceAdvice = 'node-address';
