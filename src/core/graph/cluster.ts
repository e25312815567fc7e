// The cluster state on the Service graph: the check's findings as marks on the dump's Services (stale endpoints,
// ghosts of missing and topology-filtered ones) and the Services the API has that the node never programmed, each
// with a graph of the API side. Computed once per snapshot: the expected ports are paired with the dump's Services
// as the check pairs them.
import { t } from '../l10n';
import { servicePortNameString, type Service } from '../kube/service';
import { pairedPorts, perSnapshot } from '../cluster/paired';
import type { ExpectedServicePort, Finding, IPFamily } from '../cluster/types';
import type { NodeSnapshot } from '../snapshot';
import { formatHostPort } from '../model/address';
import { addGhosts, type GhostEndpoint, type GraphEdge, type GraphMark, type GraphNode, type ServiceGraph, type ServiceMarks, type ServiceSummary } from './model';

export interface ClusterOverlay {
  marks: (s: Service) => ServiceMarks | undefined;
  /** Service ports of the API with no rules on this node: a list row and an API-side graph each. */
  notProgrammed: { summary: ServiceSummary; graph: ServiceGraph }[];
}

/** The cluster state's overlay of a snapshot, if it has one (once per snapshot: the graph asks for it per batch of Services). */
export const clusterOverlay = perSnapshot(buildOverlay);

const findingKey = (s: { namespace: string; name: string; portName: string; protocol: string }) => `${s.namespace}/${s.name}:${s.portName}|${s.protocol.toUpperCase()}`;
/** The family of a finding's `ip:port` (IPv6 is bracketed). */
const familyOfEndpoint = (hostPort: string): IPFamily => (hostPort.startsWith('[') ? 'IPv6' : 'IPv4');

const MARK_LABEL = {
  missing: () => t('missing'),
  stale: () => t('stale'),
  filtered: () => t('filtered (topology)'),
  'not-programmed': () => t('not programmed'),
};

function mark(kind: GraphMark['kind'], reason: string, severity: GraphMark['severity']): GraphMark {
  return { kind, label: MARK_LABEL[kind](), reason, severity };
}

function buildOverlay(snapshot: NodeSnapshot): ClusterOverlay | undefined {
  const paired = pairedPorts(snapshot);
  if (!paired || !snapshot.cluster) return undefined;
  const { expected, found } = paired;
  const findings = new Map<string, Finding[]>();
  for (const f of snapshot.cluster.check.findings) {
    const key = findingKey(f.service);
    findings.set(key, [...(findings.get(key) ?? []), f]);
  }
  const byService = new Map<Service, ServiceMarks>();
  const notProgrammed: ClusterOverlay['notProgrammed'] = [];
  for (const e of expected) {
    // A finding about an endpoint belongs to the port of its address's family.
    const own = (findings.get(findingKey(e)) ?? []).filter((f) => f.endpoint === undefined || familyOfEndpoint(f.endpoint) === e.family);
    const a = found.get(e);
    if (a) byService.set(a, serviceMarks(e, own));
    else {
      const np = own.find((f) => f.code === 'not-programmed');
      if (np) notProgrammed.push(apiOnly(e, np, notProgrammed.length));
    }
  }
  return { marks: (s) => byService.get(s), notProgrammed };
}

/** Marks of a programmed Service port: its findings on endpoints, and the topology's filtered endpoints as info. */
function serviceMarks(e: ExpectedServicePort, own: Finding[]): ServiceMarks {
  const endpoints = new Map<string, GraphMark>();
  const ghosts: GhostEndpoint[] = [];
  const api = new Map(e.endpoints.map((x) => [formatHostPort(x.address, x.port), x]));
  for (const f of own) {
    if (!f.endpoint) continue;
    if (f.code === 'stale-endpoint') endpoints.set(f.endpoint, mark('stale', f.reason, f.severity));
    const x = api.get(f.endpoint);
    if (f.code === 'missing-endpoint' && x) ghosts.push({ address: x.address, port: x.port, mark: mark('missing', f.reason, f.severity) });
  }
  for (const x of e.endpoints) {
    if (x.excludedBecause === 'topology') ghosts.push({ address: x.address, port: x.port, mark: mark('filtered', x.detail ?? e.topologyNote ?? t('hinted for another zone'), 'info') });
  }
  const drift = own.filter((f) => (f.code === 'stale-endpoint' || f.code === 'missing-endpoint') && f.severity !== 'info');
  const summary =
    drift.length > 0
      ? mark(
          drift[0].code === 'stale-endpoint' ? 'stale' : 'missing',
          drift
            .map((f) => f.message)
            .slice(0, 3)
            .join('\n'),
          drift[0].severity,
        )
      : undefined;
  return { endpoints, ghosts, ...(summary ? { summary } : {}) };
}

/** The list row and the API-side graph of a Service port the node has no rules for: frontends, the Service, its endpoints, nothing programmed. */
function apiOnly(e: ExpectedServicePort, finding: Finding, n: number): { summary: ServiceSummary; graph: ServiceGraph } {
  const protocol = e.protocol.toLowerCase();
  const title = `${servicePortNameString(e)}/${protocol}`;
  const key = `api|${n}|${e.family}|${title}`.slice(0, 1_000);
  const m = mark('not-programmed', finding.reason, finding.severity);
  const usable = e.endpoints.filter((x) => x.inCluster || x.inLocal);
  const shown = e.frontends.filter((f) => f.kind !== 'healthCheckNodePort');
  const summary: ServiceSummary = {
    key,
    namespace: e.namespace,
    name: e.name,
    portName: e.portName,
    protocol,
    title,
    frontends: shown.map((f) => (f.kind === 'nodePort' ? `NodePort ${f.port}` : `${f.kind} ${formatHostPort(f.address, f.port)}`)),
    objects: [],
    endpointCount: usable.length,
    noEndpoints: usable.length === 0,
    fileIndex: -1,
    family: e.family === 'IPv6' ? 'ipv6' : 'ipv4',
    mark: m,
  };
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const add = (node: GraphNode): GraphNode => {
    const full = { ...node, id: `${key}#${node.id}` };
    nodes.push(full);
    return full;
  };
  const svc = add({ id: 'svc', kind: 'service', layer: 1, label: `${e.namespace}/${e.name}`, detail: t('API Service: no rules on this node'), badges: [m.label], mark: m });
  shown.forEach((f, i) => {
    const node = add({ id: `f${i}`, kind: 'frontend', layer: 0, label: f.kind === 'nodePort' ? `:${f.port}` : formatHostPort(f.address, f.port), detail: f.kind, badges: [m.label], mark: m });
    edges.push({ from: node.id, to: svc.id, dashed: true });
  });
  addGhosts(
    usable.map((x) => ({ address: x.address, port: x.port, mark: m })),
    add,
    edges,
    [svc],
    2,
  );
  return { summary, graph: { key, title, nodes, edges } };
}
