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

/** What the dump cannot tell. */
export interface TraceContext {
  /** This node's addresses (`addrtype LOCAL`, `fib daddr type local`). */
  nodeIPs: string[];
  /** True when nodeIPs were guessed from the dump rather than given. */
  nodeIPsInferred?: boolean;
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

export type Verdict = 'dnat' | 'accept' | 'drop' | 'reject';

export interface Outcome {
  verdict: Verdict;
  /** `ip:port` after DNAT (or REDIRECT / IPVS real server). */
  destination?: string;
  probability: number;
  masquerade: boolean;
  /** Labelled assumptions about conditions the packet does not decide. */
  assumptions: string[];
  path: PathStep[];
  /** What a returning client (session affinity) gets instead. */
  notes: string[];
}

export interface TraceResult {
  packet: Packet;
  outcomes: Outcome[];
  /** Problems of the trace itself (loops, depth limit, guessed node addresses). */
  warnings: string[];
  context: TraceContext;
}
