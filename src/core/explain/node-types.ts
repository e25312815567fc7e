// The shapes of an "Explain This Node" answer: sections of items with their evidence. Types only, shared by the
// explainer (node.ts, node-cluster.ts) and the webview's protocol.
import type { Range } from '../model/range';

/** A kube-proxy mode whose rules the snapshot holds. */
export type ProxyMode = 'iptables' | 'ipvs' | 'nftables';
/** What the snapshot as a whole shows: one mode, several (leftovers), kubelet's chains only, or nothing. */
export type NodeMode = ProxyMode | 'mixed' | 'kubelet-only' | 'none';
export type IptablesBackendSummary = 'nf_tables' | 'legacy' | 'mixed' | 'unknown';

/** Lines of a dump that prove a claim. `range` covers whole lines; `quote` is their text as the dump has it. */
export interface Evidence {
  /** Unique in one explanation: the view sends it back to reveal the lines, never a range. */
  id: number;
  /** Index into the snapshot's files; -1 for a file outside the snapshot (`path`). */
  fileIndex: number;
  /** A cluster-state file: its index in the snapshot's cluster `files`, and its name there. */
  clusterFile?: number;
  path?: string;
  /** The file's base name. */
  file: string;
  range: Range;
  quote: string;
}

export type ItemKind = 'claim' | 'pro' | 'con' | 'note' | 'warning';

/** One paragraph. Text between backquotes is code (chain names, commands), everything else prose. */
export interface Item {
  kind: ItemKind;
  text: string;
  evidence: Evidence[];
}

export interface Fact {
  label: string;
  value: string;
}

export type SectionId = 'verdict' | 'evidence' | 'backend' | 'leftovers' | 'cluster' | 'iptables-nft' | 'tradeoffs' | 'status' | 'numbers';

export interface Section {
  id: SectionId;
  title: string;
  items: Item[];
  facts: Fact[];
}

export interface NodeExplanation {
  mode: NodeMode;
  /** Every mode whose rules are present, the likely current one first. */
  modes: ProxyMode[];
  /** The iptables backend, when the snapshot has iptables rules. */
  backend?: IptablesBackendSummary;
  /** One sentence: "This node runs kube-proxy in nftables mode." */
  headline: string;
  files: { name: string; languageId: string }[];
  sections: Section[];
  /** Every evidence of every section, by id. */
  evidence: Evidence[];
}
