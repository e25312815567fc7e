// The cluster's intent as kube-proxy reads it from the API (Services, EndpointSlices, Nodes, its own
// configuration), reduced to the fields that decide a node's dataplane, and where each came from so a
// finding can point at the object in the user's file. See docs/cluster-check.md.
import type { Diagnostic } from '../model/diagnostics';
import type { Range } from '../model/range';

export type IPFamily = 'IPv4' | 'IPv6';
export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/** Where an API object (or one of its fields) is written in a cluster-state file. */
export interface SourceLocation {
  /** The file as the caller named it. */
  file: string;
  range: Range;
}

export interface ApiServicePort {
  /** `""` for a Service's only, unnamed port. */
  name: string;
  protocol: Protocol;
  port: number;
  /** A number, or a named container port resolved by the EndpointSlice. */
  targetPort?: number | string;
  nodePort?: number;
}

export interface ApiService {
  namespace: string;
  name: string;
  /** `ClusterIP`, `NodePort`, `LoadBalancer` or `ExternalName`. */
  type: string;
  /** `spec.clusterIPs` (or `[spec.clusterIP]`); `['None']` for headless Services. */
  clusterIPs: string[];
  ipFamilies: IPFamily[];
  ports: ApiServicePort[];
  /** Absent: the Service has no selector (EndpointSlices are managed by someone else). */
  selector?: Record<string, string>;
  externalIPs: string[];
  /** `status.loadBalancer.ingress[].ip`. */
  loadBalancerIPs: string[];
  loadBalancerSourceRanges: string[];
  externalTrafficPolicy: 'Cluster' | 'Local';
  internalTrafficPolicy: 'Cluster' | 'Local';
  healthCheckNodePort?: number;
  sessionAffinity: 'None' | 'ClientIP';
  /** `sessionAffinityConfig.clientIP.timeoutSeconds` (default 10800). */
  sessionAffinityTimeoutSeconds?: number;
  /** `spec.trafficDistribution`: `PreferClose`, `PreferSameZone`, `PreferSameNode`. */
  trafficDistribution?: string;
  annotations: Record<string, string>;
  labels: Record<string, string>;
  /** `metadata.deletionTimestamp` is set. */
  deleting?: boolean;
  source?: SourceLocation;
}

export interface ApiEndpointConditions {
  /** Absent means unknown; kube-proxy treats unknown `ready` as ready. */
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface ApiEndpoint {
  addresses: string[];
  conditions: ApiEndpointConditions;
  nodeName?: string;
  zone?: string;
  hints?: { forZones?: string[]; forNodes?: string[] };
  /** `targetRef` as `Kind namespace/name`, for the "why" of a finding. */
  targetRef?: string;
  source?: SourceLocation;
}

export interface ApiEndpointSlicePort {
  name: string;
  protocol: Protocol;
  port?: number;
}

export interface ApiEndpointSlice {
  namespace: string;
  name: string;
  /** The `kubernetes.io/service-name` label. */
  serviceName?: string;
  addressType: IPFamily | 'FQDN';
  ports: ApiEndpointSlicePort[];
  endpoints: ApiEndpoint[];
  /** The `endpointslice.kubernetes.io/managed-by` label. */
  managedBy?: string;
  /** Converted from a legacy v1 Endpoints object (clusters without EndpointSlices). */
  fromLegacyEndpoints?: boolean;
  source?: SourceLocation;
}

export interface ApiNode {
  name: string;
  internalIPs: string[];
  externalIPs: string[];
  /** `topology.kubernetes.io/zone`. */
  zone?: string;
  podCIDRs: string[];
  labels: Record<string, string>;
  source?: SourceLocation;
}

/** What the kube-proxy ConfigMap (`config.conf`) says, for the fields that change the dataplane. */
export interface ProxyConfig {
  /** `""` means the platform default (iptables on Linux). */
  mode?: string;
  clusterCIDR?: string;
  nodePortAddresses?: string[];
  masqueradeAll?: boolean;
  source?: SourceLocation;
}

/** Everything read from one or more cluster-state files. */
export interface ClusterState {
  services: ApiService[];
  endpointSlices: ApiEndpointSlice[];
  nodes: ApiNode[];
  proxyConfig?: ProxyConfig;
  /** Per file: what could not be read (bad YAML/JSON, unknown kinds, missing fields), with line and column. */
  diagnostics: { file: string; diagnostics: Diagnostic[] }[];
}

/** Why an endpoint of the API is not among those kube-proxy programs (or only in the local set). */
export type EndpointExclusion = 'not-ready' | 'terminating' | 'not-serving' | 'topology' | 'not-local' | 'other-family' | 'port-missing';

export interface ExpectedEndpoint {
  address: string;
  port: number;
  nodeName?: string;
  zone?: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  /** Whether kube-proxy on this node selects it for the cluster policy / the local policy. */
  inCluster: boolean;
  inLocal: boolean;
  /** Set when it is selected for neither or one only: the API fact that explains it. */
  excludedBecause?: EndpointExclusion;
  /** Human-readable detail ("hinted for zone-b", "on node-2"), already localised. */
  detail?: string;
  slice?: { name: string; source?: SourceLocation };
  source?: SourceLocation;
}

export type ExpectedFrontendKind = 'clusterIP' | 'nodePort' | 'externalIP' | 'loadBalancer' | 'healthCheckNodePort';

export interface ExpectedFrontend {
  kind: ExpectedFrontendKind;
  address?: string;
  port: number;
}

/** One Service port of one IP family as kube-proxy programs it on one node. */
export interface ExpectedServicePort {
  namespace: string;
  name: string;
  portName: string;
  protocol: Protocol;
  family: IPFamily;
  frontends: ExpectedFrontend[];
  /** Every endpoint of the API for this port and family, with why it is (not) used. */
  endpoints: ExpectedEndpoint[];
  /** Whether topology (hints or trafficDistribution) narrowed the cluster endpoints on this node. */
  topologyApplied: boolean;
  /** The topology mode kube-proxy chose (topologyModeFromHints); it may leave nothing out (`topologyApplied` false). */
  topologyMode?: 'PreferSameZone' | 'PreferSameNode';
  /** Hints that exist but were not used on this node (or only in part), and why; already localised. */
  topologyNote?: string;
  sessionAffinityTimeoutSeconds?: number;
  externalTrafficPolicy: 'Cluster' | 'Local';
  internalTrafficPolicy: 'Cluster' | 'Local';
  loadBalancerSourceRanges: string[];
  /** No endpoint usable: kube-proxy writes a REJECT (or DROP) for the frontends; the reason in words. */
  noEndpointsReason?: string;
  /**
   * The port uses Local endpoints (iTP Local, or eTP Local with an external frontend), there are endpoints
   * elsewhere but none on this node: kube-proxy DROPs the Local-policy traffic here. The reason in words.
   */
  noLocalEndpointsReason?: string;
  service: ApiService;
}

/** The node the dump belongs to, and how we know. */
export interface NodeIdentity {
  name?: string;
  zone?: string;
  /** `flag`, `address`, `local-endpoints`, `folder` — absent when given with --node. */
  inferredFrom?: 'address' | 'local-endpoints' | 'folder';
  /** What showed it, already localised ("the dump's rules name 192.168.0.10, node-1's InternalIP"). */
  evidence?: string;
  /** Several nodes fit equally: their names. */
  candidates?: string[];
  /** The node given (--node) is not in the cluster state: why, already localised; `candidates` lists the known ones. */
  error?: string;
}

export type FindingCode = 'not-programmed' | 'stale-service' | 'missing-endpoint' | 'stale-endpoint' | 'frontend-mismatch' | 'policy-mismatch' | 'no-endpoints' | 'filtered-by-topology' | 'mode-mismatch';

export interface Finding {
  code: FindingCode;
  severity: 'error' | 'warning' | 'info';
  service: { namespace: string; name: string; portName: string; protocol: string };
  endpoint?: string;
  frontend?: { kind: string; address?: string; port: number };
  expected?: string;
  actual?: string;
  /** The API fact that explains it, already localised. */
  reason: string;
  message: string;
  /** Dump lines (0-based `line` in `range`) and cluster-file objects that show it. */
  evidence: SourceLocation[];
}
