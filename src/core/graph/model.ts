// The Service graph model: the same layered picture for every mode, built from the Service catalog.
// frontends → the Service object (KUBE-SVC/EXT/FW chain, nft service chain / map element, IPVS virtual service)
// → endpoint objects (KUBE-SEP, nft endpoint chain) → pods `ip:port`, or a REJECT/DROP node without endpoints.
// Pure: no VS Code, no DOM. Labels are plain text (the webview renders them with textContent only).
import { formatShare, hasPolicyShares, servicePortNameString, type Endpoint, type Frontend, type FrontendKind, type ObjectRef, type Service } from '../kube/service';
import { formatHostPort } from '../model/address';
import type { Range } from '../model/range';
import { t } from '../l10n';
import { endpointEdges, externalEdges, externalEntry, internalTarget, type PolicyNodes } from './policy';

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

/** Which snapshot file holds a Service's object (or its endpoints when no table is named). */
export type FileLocator = (service: Service, tableId?: string) => number;

export interface GraphOptions {
  fileOf?: FileLocator;
  /** A better location for an endpoint object (the DNAT rule of a KUBE-SEP chain). */
  endpointSource?: (service: Service, endpoint: Endpoint) => GraphSource | undefined;
  /** The cluster state's marks on a Service, when a cluster state is beside the dump. */
  marks?: (service: Service) => ServiceMarks | undefined;
}

const FRONTEND_LABEL: Record<Frontend['kind'], string> = { clusterIP: 'ClusterIP', nodePort: 'NodePort', loadBalancer: 'LoadBalancer', externalIP: 'ExternalIP' };

export function serviceTitle(s: Service): string {
  return `${s.anonymous ? s.name : servicePortNameString(s)}/${s.protocol}`;
}

function objectDetail(o: ObjectRef): string {
  switch (o.role) {
    case 'service-chain':
      return t('service chain');
    case 'service-local-chain':
      return t('local service chain');
    case 'external-chain':
      return t('external chain');
    case 'firewall-chain':
      return t('firewall chain');
    case 'virtual-service':
      return t('IPVS virtual service');
    case 'map-element':
      return t('map element');
    default:
      return o.role;
  }
}

/**
 * A Service object's badges. `external`: an IPVS virtual service of another frontend than the ClusterIP, which the
 * ClusterIP rule's `! -s CIDR` does not decide (IPVS NodePorts are all masqueraded unless externalTrafficPolicy is Local).
 */
function policyBadges(s: Service, external?: FrontendKind): string[] {
  const p = s.policies;
  const out: string[] = [];
  if (p.masqueradeAll || (external === 'nodePort' && p.nodePortMasquerade)) out.push(t('masquerade all'));
  else if (p.clusterCIDR && !external) out.push(t('masquerade ! {0}', p.clusterCIDR));
  if (p.sessionAffinity) out.push(t('affinity ClientIP {0}s', p.sessionAffinity.timeoutSeconds));
  if (p.internalTrafficPolicy === 'Local') out.push(t('internal Local'));
  if (p.scheduler) out.push(t('scheduler {0}', p.scheduler));
  return out;
}

/** FNV-1a (32 bit) of a string, as 8 hex digits. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * A Service's key: stable across rebuilds of the snapshot and short whatever the dump's names (a comment can
 * make a title of any length; keys and node ids travel in bounded message fields).
 */
function serviceKey(s: Service, fileIndex: number): string {
  const title = serviceTitle(s);
  return title.length <= 200 ? `${fileIndex}|${s.family}|${title}` : `${fileIndex}|${s.family}|${title.slice(0, 200)}…${hash(title)}`;
}

/** What "Trace from here" on a frontend's node sends (the address is absent for NodePorts). */
export function frontendTarget(s: Service, f: Frontend): GraphTarget {
  return f.address === undefined ? { frontend: f.kind, port: f.port, protocol: s.protocol } : { frontend: f.kind, address: f.address, port: f.port, protocol: s.protocol };
}

function buildOne(s: Service, key: string, opts: Required<Pick<GraphOptions, 'fileOf'>> & GraphOptions): ServiceGraph {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const g: GraphParts = {
    s,
    nodes,
    edges,
    src: (range, tableId) => (range ? { fileIndex: opts.fileOf(s, tableId), range } : undefined),
    add: (n) => {
      const node = { ...n, id: `${key}#${n.id}` };
      nodes.push(node);
      return node;
    },
  };
  const objects = objectNodes(g);
  frontendNodes(g, objects);
  // Endpoints: endpoint objects (chains) and pods.
  const fromNodes = objects.vsNodes.length > 0 ? objects.vsNodes : objects.main ? [objects.main] : [];
  const podLayer = objects.lastObjectLayer + (s.endpoints.some((e) => e.chain) ? 2 : 1);
  const marks = opts.marks?.(s);
  endpointNodes(g, objects, podLayer, marks, opts.endpointSource);
  // No endpoints: the verdict, where the rule that rejects or drops is.
  if (s.endpoints.length === 0) verdictNode(g, objects, fromNodes);
  if (marks) addGhosts(marks.ghosts, g.add, edges, fromNodes.length > 0 ? fromNodes : nodes.filter((n) => n.kind === 'frontend'), podLayer);
  return { key, title: serviceTitle(s), nodes, edges };
}

/** A Service's graph while it is built: its nodes and edges, how to add a node, where a range is. */
interface GraphParts {
  s: Service;
  nodes: GraphNode[];
  edges: GraphEdge[];
  add: (n: GraphNode) => GraphNode;
  src: (range: Range | undefined, tableId?: string) => GraphSource | undefined;
}

/** The object nodes of a Service: policy chains (or map element), external and firewall chains, virtual services. */
interface ObjectNodes {
  main?: GraphNode;
  fw?: GraphNode;
  entry?: GraphNode;
  virtuals: ObjectRef[];
  vsNodes: GraphNode[];
  policy: PolicyNodes;
  lastObjectLayer: number;
}

function objectNodes(g: GraphParts): ObjectNodes {
  const { s, nodes, edges, add, src } = g;
  const obj = (role: ObjectRef['role']) => s.objects.find((o) => o.role === role);
  const objectNode = (o: ObjectRef, id: string, badges: string[] = []) => add({ id, kind: 'service', layer: 1, label: o.name, detail: objectDetail(o), badges, source: src(o.range, o.tableId) });

  // The Service object(s): the policy chains (cluster, local), and for external frontends the EXT/FW chains.
  const virtuals = s.objects.filter((o) => o.role === 'virtual-service');
  const clusterObject = obj('service-chain');
  const localObject = obj('service-local-chain');
  const mainObject = clusterObject ?? localObject ?? obj('map-element');
  const internalLocal = s.policies.internalTrafficPolicy === 'Local' && clusterObject !== undefined && localObject !== undefined;
  const main = mainObject ? objectNode(mainObject, 'svc', internalLocal ? [] : policyBadges(s)) : undefined;
  const local = clusterObject && localObject ? objectNode(localObject, 'svl', internalLocal ? policyBadges(s) : []) : undefined;
  const extObject = obj('external-chain');
  const fwObject = obj('firewall-chain');
  const extBadges = s.policies.externalTrafficPolicy === 'Local' ? [t('Local')] : [];
  const ext = extObject ? objectNode(extObject, 'ext', extBadges) : undefined;
  const fwBadges = s.policies.loadBalancerSourceRanges ? [t('source ranges {0}', s.policies.loadBalancerSourceRanges.join(', '))] : [];
  const fw = fwObject ? objectNode(fwObject, 'fw', fwBadges) : undefined;
  const externalKind = (o: ObjectRef) => s.frontends.find((f) => f.kind !== 'clusterIP' && f.range?.start.line === o.range.start.line)?.kind;
  const vsNodes = virtuals.map((o, i) => objectNode(o, `vs${i}`, policyBadges(s, externalKind(o))));
  // Layers: FW before EXT before the policy chains when present.
  if (ext && main) {
    ext.layer = 1;
    main.layer = 2;
  }
  if (fw) {
    fw.layer = 1;
    if (ext) ext.layer = 2;
    if (main) main.layer = ext ? 3 : 2;
  }
  const policy: PolicyNodes = { cluster: main, local, clusterIsLocal: main !== undefined && mainObject === localObject, ext };
  if (local && main) local.layer = main.layer;
  if (local && main && externalEntry(s, policy) === local) main.layer = local.layer + 1;
  const lastObjectLayer = Math.max(1, ...nodes.map((n) => n.layer));
  if (s.policies.noLocalEndpoints && s.endpoints.length > 0) policy.noLocal = noLocalNode(s, add, src, lastObjectLayer + 1);
  edges.push(...externalEdges(s, policy));
  const entry = externalEntry(s, policy);
  if (fw && entry) edges.push({ from: fw.id, to: entry.id });

  return { main, fw, entry, virtuals, vsNodes, policy, lastObjectLayer };
}

/** The frontend nodes, each with its edge to the object it enters. */
function frontendNodes({ s, edges, add, src }: GraphParts, { fw, entry, virtuals, vsNodes, policy }: ObjectNodes): void {
  s.frontends.forEach((f, i) => {
    const badges: string[] = [];
    // An external IP that may be a load balancer's; other kinds guessed from an IPVS dump alone.
    if (f.kindUncertain) badges.push(f.kind === 'externalIP' && !f.kindNote ? t('or LoadBalancer') : t('probably'));
    if (f.kind !== 'clusterIP' && s.policies.externalTrafficPolicy === 'Local') badges.push(t('Local'));
    if (f.kind === 'loadBalancer' && s.policies.loadBalancerSourceRanges && !fw) badges.push(t('source ranges {0}', s.policies.loadBalancerSourceRanges.join(', ')));
    const label = f.kind === 'nodePort' ? `:${f.port}` : formatHostPort(f.address, f.port);
    const target = frontendTarget(s, f);
    const node = add({ id: `f${i}`, kind: 'frontend', layer: 0, label, detail: FRONTEND_LABEL[f.kind], badges, source: src(f.range, virtuals[0]?.tableId), target });
    let to: GraphNode | undefined;
    const vsIndex = virtuals.findIndex((o) => f.range && o.range.start.line === f.range.start.line);
    if (vsIndex >= 0) to = vsNodes[vsIndex];
    else if (f.kind === 'clusterIP') to = internalTarget(s, policy);
    else if (f.kind === 'loadBalancer' && fw) to = fw;
    else to = entry ?? vsNodes[0];
    if (to) edges.push({ from: node.id, to: to.id });
  });
}

/** The endpoint chains and pods, with the edges (and shares) that select them. */
function endpointNodes({ s, edges, add, src }: GraphParts, { vsNodes, policy, lastObjectLayer }: ObjectNodes, podLayer: number, marks: ServiceMarks | undefined, endpointSource: GraphOptions['endpointSource']): void {
  const pods = new Map<string, GraphNode>();
  const split = hasPolicyShares(s);
  s.endpoints.forEach((e, i) => {
    const at = formatHostPort(e.address, e.port);
    let pod = pods.get(at);
    const badges = e.local ? [t('on this node')] : [];
    if (!pod) {
      const mark = marks?.endpoints.get(at);
      pod = add({ id: `p${i}`, kind: 'pod', layer: podLayer, label: at, detail: t('pod'), badges: mark ? [mark.label, ...badges] : badges, source: src(e.range), ...(mark ? { mark } : {}) });
      pods.set(at, pod);
    }
    let tail = pod;
    if (e.chain) {
      const chainObject = s.objects.find((o) => o.role === 'endpoint-chain' && o.name === e.chain);
      const source = endpointSource?.(s, e) ?? src(chainObject?.range ?? e.range, chainObject?.tableId);
      const epNode = add({ id: `e${i}`, kind: 'endpoint', layer: lastObjectLayer + 1, label: e.chain, detail: t('endpoint chain'), badges, source });
      edges.push({ from: epNode.id, to: pod.id });
      tail = epNode;
    }
    if (vsNodes.length > 0) for (const from of vsNodes) edges.push({ from: from.id, to: tail.id, share: e.probability, label: formatShare(e.probability) });
    else edges.push(...endpointEdges(e, policy, tail, split));
  });
}

/** The REJECT or DROP (or ∅) of a Service without endpoints, where the rule that rejects or drops is. */
function verdictNode({ s, nodes, edges, add, src }: GraphParts, { lastObjectLayer }: ObjectNodes, fromNodes: GraphNode[]): void {
  const verdict = s.policies.noEndpoints === 'drop' ? 'DROP' : s.policies.noEndpoints === 'reject' ? 'REJECT' : undefined;
  const rule = s.objects.find((o) => o.role === 'reject-rule');
  const why = s.endpointsNotInDump
    ? t('endpoints not in this dump')
    : verdict === 'DROP'
      ? s.policies.noLocalEndpoints
        ? t('no local endpoints: dropped')
        : t('no endpoints: dropped')
      : verdict === 'REJECT'
        ? t('no endpoints: rejected')
        : t('no endpoints');
  const node = add({ id: 'verdict', kind: 'verdict', layer: lastObjectLayer + 1, label: verdict ?? '∅', detail: why, badges: [], source: src(rule?.range, rule?.tableId) });
  const sources = fromNodes.length > 0 ? fromNodes : nodes.filter((n) => n.kind === 'frontend');
  for (const from of sources) edges.push({ from: from.id, to: node.id });
  if (fromNodes.length === 0) for (const n of nodes) if (n.kind === 'service') edges.push({ from: n.id, to: node.id });
}

/** Ghost pods the API has and the rules do not, at most MAX_GHOSTS, each reached by a dashed edge. */
export function addGhosts(ghosts: readonly GhostEndpoint[], add: (n: GraphNode) => GraphNode, edges: GraphEdge[], from: readonly GraphNode[], layer: number): void {
  ghosts.slice(0, MAX_GHOSTS).forEach((g, i) => {
    const node = add({ id: `g${i}`, kind: 'pod', layer, label: formatHostPort(g.address, g.port), detail: t('endpoint in the API'), badges: [g.mark.label], mark: g.mark });
    for (const f of from) edges.push({ from: f.id, to: node.id, dashed: true });
  });
}

/** Ghosts drawn per Service: enough to show the drift, few enough to draw a Service of thousands of hinted endpoints. */
const MAX_GHOSTS = 50;

/** The DROP of traffic that a Local policy keeps on this node when no endpoint is here, at kube-proxy's rule or element. */
function noLocalNode(s: Service, add: (n: GraphNode) => GraphNode, src: (range: Range | undefined, tableId?: string) => GraphSource | undefined, layer: number): GraphNode {
  const rule = s.objects.find((o) => o.role === 'reject-rule' || (o.role === 'map-element' && o.name.startsWith('no-endpoint-')));
  return add({ id: 'nolocal', kind: 'verdict', layer, label: 'DROP', detail: t('no local endpoints: dropped'), badges: [], source: src(rule?.range, rule?.tableId) });
}

function summary(s: Service, key: string, fileIndex: number, mark?: GraphMark): ServiceSummary {
  return {
    key,
    fileIndex,
    namespace: s.namespace,
    name: s.name,
    portName: s.portName,
    protocol: s.protocol,
    title: serviceTitle(s),
    frontends: s.frontends.map((f) => (f.kind === 'nodePort' ? `NodePort ${f.port}` : `${FRONTEND_LABEL[f.kind]} ${formatHostPort(f.address, f.port)}`)),
    objects: [...new Set(s.objects.filter((o) => o.role !== 'frontend-rule' && o.role !== 'reject-rule').map((o) => o.name))],
    endpointCount: s.endpoints.length,
    noEndpoints: s.endpoints.length === 0,
    family: s.family,
    ...(mark ? { mark } : {}),
  };
}

/**
 * The summary of every Service and the graph of the first `eager` ones (keys are stable across rebuilds of the
 * same snapshot). A snapshot of a million virtual services would otherwise build a million graphs that nobody
 * looks at; the rest are built when asked for (graphsOf).
 */
export function buildGraphModel(services: Service[], options: GraphOptions = {}, eager = Number.POSITIVE_INFINITY): GraphModel {
  const fileOf = options.fileOf ?? (() => 0);
  const graphs = new Map<string, ServiceGraph>();
  const out: ServiceSummary[] = [];
  forEachKeyed(services, fileOf, (s, key, fileIndex) => {
    if (out.length < eager) graphs.set(key, buildOne(s, key, { ...options, fileOf }));
    out.push(summary(s, key, fileIndex, options.marks?.(s)?.summary));
  });
  return { services: out, graphs, complete: out.length <= eager };
}

/** The graphs of the Services with these keys (the keys buildGraphModel gave them), in the order asked. */
export function graphsOf(services: Service[], keys: readonly string[], options: GraphOptions = {}): ServiceGraph[] {
  const fileOf = options.fileOf ?? (() => 0);
  const wanted = new Set(keys);
  const found = new Map<string, ServiceGraph>();
  forEachKeyed(services, fileOf, (s, key) => {
    if (wanted.has(key)) found.set(key, buildOne(s, key, { ...options, fileOf }));
  });
  return keys.flatMap((k) => found.get(k) ?? []);
}

/**
 * The keys of the Services whose graph `reached` says yes to, built one at a time (none is kept), of the Services
 * `candidate` lets through (a cheap test that spares building the graphs of the others).
 */
export function keysWhere(services: Service[], reached: (graph: ServiceGraph) => boolean, options: GraphOptions = {}, max = Number.POSITIVE_INFINITY, candidate: (s: Service) => boolean = () => true): string[] {
  const fileOf = options.fileOf ?? (() => 0);
  const keys: string[] = [];
  forEachKeyed(services, fileOf, (s, key) => {
    if (keys.length < max && candidate(s) && reached(buildOne(s, key, { ...options, fileOf }))) keys.push(key);
  });
  return keys;
}

/** Each Service with its key: serviceKey, made unique by `|2`, `|3`… in the catalog's order. */
function forEachKeyed(services: Service[], fileOf: FileLocator, visit: (s: Service, key: string, fileIndex: number) => void): void {
  const used = new Set<string>();
  for (const s of services) {
    const fileIndex = fileOf(s);
    const base = serviceKey(s, fileIndex);
    let key = base;
    for (let n = 2; used.has(key); n++) key = `${base}|${n}`;
    used.add(key);
    visit(s, key, fileIndex);
  }
}

/** How "Show in Graph" names a Service (hover links, CodeLenses): its title and address family. */
export interface ServiceSelector {
  title: string;
  family?: 'ipv4' | 'ipv6';
  /** Prefer the Service read from this file of the snapshot. */
  fileIndex?: number;
}

/** The key of the Service a selector names, if any. */
export function findService(model: GraphModel, selector: ServiceSelector): string | undefined {
  const candidates = model.services.filter((s) => s.title === selector.title && (selector.family === undefined || s.family === selector.family));
  return (candidates.find((s) => s.fileIndex === selector.fileIndex) ?? candidates[0])?.key;
}

/** Mermaid node ids: only [A-Za-z0-9_], never derived from dump text. */
function mermaidLabel(text: string): string {
  // Inside "…" Mermaid reads entity codes; escape everything that could end the string or open markup.
  return text.replace(/[^A-Za-z0-9 .:/\-_%!*,[\]()]/g, (c) => `#${c.codePointAt(0)};`);
}

/** A Mermaid flowchart (left to right) of the given Service graphs. */
export function toMermaid(graphs: ServiceGraph[]): string {
  const lines = ['flowchart LR'];
  const ids = new Map<string, string>();
  const id = (nodeId: string) => {
    let v = ids.get(nodeId);
    if (!v) {
      v = `n${ids.size}`;
      ids.set(nodeId, v);
    }
    return v;
  };
  graphs.forEach((g, gi) => {
    lines.push(`  subgraph s${gi}["${mermaidLabel(g.title)}"]`);
    for (const n of g.nodes) {
      const text = mermaidLabel(`${n.label}${n.detail ? ` (${n.detail})` : ''}${n.badges.length ? ` [${n.badges.join(', ')}]` : ''}`);
      const shape = n.kind === 'frontend' ? [`(["`, `"])`] : n.kind === 'verdict' ? [`{{"`, `"}}`] : n.kind === 'pod' ? [`(["`, `"])`] : [`["`, `"]`];
      lines.push(`    ${id(n.id)}${shape[0]}${text}${shape[1]}`);
    }
    lines.push('  end');
    for (const e of g.edges) lines.push(`  ${id(e.from)} ${e.dashed ? '-.->' : '-->'}${e.label ? `|"${mermaidLabel(e.label)}"|` : ''} ${id(e.to)}`);
  });
  return lines.join('\n') + '\n';
}
