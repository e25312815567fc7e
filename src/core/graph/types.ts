// The Service graph's data shapes: the model the builders write (model.ts, policy.ts, cluster.ts) and the
// geometry a layout returns (svg.ts, labels.ts, the webview). Types only, so every graph module can share them.
import type { FrontendKind } from '../kube/service';
import type { Range } from '../model/range';

export type GraphNodeKind = 'frontend' | 'service' | 'endpoint' | 'pod' | 'verdict';

/** Where a node's rule or element is: the file of the snapshot (index into its files) and the range. */
export interface GraphSource {
  fileIndex: number;
  range: Range;
}

export interface GraphNode {
  id: string;
  kind: GraphNodeKind;
  /** Column in the left-to-right layout (0 = frontends). */
  layer: number;
  label: string;
  /** Second line: the object kind (ClusterIP, KUBE-SVC chain, real server …). */
  detail: string;
  badges: string[];
  source?: GraphSource;
  /** Frontends only: what "Trace from here" sends (the address is absent for NodePorts). */
  target?: GraphTarget;
  /** What the cluster state says of it (its label is also among the badges, so it is never colour only). */
  mark?: GraphMark;
}

/** How the cluster state marks a node or a Service: a short label, the reason (the tooltip), and how bad. */
export interface GraphMark {
  kind: GraphMarkKind;
  label: string;
  reason: string;
  severity: 'error' | 'warning' | 'info';
}

/** `missing`/`filtered`/`not-programmed`: in the API, not in the rules (drawn ghosted); `stale`: the reverse. */
export type GraphMarkKind = 'missing' | 'stale' | 'filtered' | 'not-programmed';

/** An endpoint the API has and the rules do not: drawn as a ghost pod with its mark. */
export interface GhostEndpoint {
  address: string;
  port: number;
  mark: GraphMark;
}

/** The cluster state's marks on one Service of the dump. */
export interface ServiceMarks {
  /** Marks on the rules' endpoints, by `formatHostPort(address, port)`. */
  endpoints: Map<string, GraphMark>;
  ghosts: GhostEndpoint[];
  /** The mark of the Service's row in the list. */
  summary?: GraphMark;
}

export interface GraphTarget {
  frontend: FrontendKind;
  address?: string;
  port: number;
  protocol: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** Share of new connections (endpoint probability), 0..1. */
  share?: number;
  label?: string;
  /** To a ghost endpoint: a path the API asks for that the rules do not have. */
  dashed?: boolean;
}

export interface ServiceGraph {
  key: string;
  title: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** One row of the searchable list. */
export interface ServiceSummary {
  key: string;
  namespace: string;
  name: string;
  portName: string;
  protocol: string;
  /** `ns/name:port/proto` (or the chain name for anonymous Services). */
  title: string;
  /** Frontends as text (`10.96.0.10:53`, `NodePort 30080`). */
  frontends: string[];
  /** Mode-specific object names (chains, virtual services) for the filter. */
  objects: string[];
  endpointCount: number;
  noEndpoints: boolean;
  /** The snapshot file the Service was read from. */
  fileIndex: number;
  family: 'ipv4' | 'ipv6';
  /** The cluster state's word on the Service (not programmed, endpoints that differ). */
  mark?: GraphMark;
}

export interface GraphModel {
  services: ServiceSummary[];
  /** The graphs built so far: of every Service when `complete`, else of the first ones (graphsOf builds the rest). */
  graphs: Map<string, ServiceGraph>;
  complete: boolean;
}

/** A laid-out picture of the graphs: node corners, edge polylines, band titles (ELK or layeredLayout). */
export interface LaidOutNode {
  id: string;
  x: number;
  y: number;
}

export interface LaidOutEdge {
  from: string;
  to: string;
  /** Polyline points: start, bends, end. */
  points: [number, number][];
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  /** One title per Service graph, by its key. */
  titles: { key: string; x: number; y: number }[];
}
