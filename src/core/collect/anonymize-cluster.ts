// --anonymize for the API objects saved with --cluster (Services, EndpointSlices, Nodes, the kube-proxy
// ConfigMap): names go through the same Anonymizer as the dumps (so the cluster check pairs the same Services and
// finds the same drift), addresses likewise; what the check never reads and that names a site — uids,
// annotations but the topology ones, managedFields, other labels, node info, provider ids, DNS names — is dropped
// or replaced.
import { parseAllDocuments, stringify } from 'yaml';
import type { Anonymizer } from './anonymize';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** Annotations kube-proxy reads; every other one goes (last-applied-configuration repeats the whole object). */
const KEPT_ANNOTATIONS = new Set(['service.kubernetes.io/topology-mode', 'service.kubernetes.io/topology-aware-hints']);
const ZONE_LABELS = new Set(['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone']);
/** Labels whose values are fixed words, kept as they are. */
const KEPT_LABELS = new Set([
  'endpointslice.kubernetes.io/managed-by',
  'endpointslice.kubernetes.io/skip-mirror',
  'service.kubernetes.io/headless',
  'service.kubernetes.io/service-proxy-name',
  'kubernetes.io/os',
  'kubernetes.io/arch',
]);
const DROPPED_META = ['uid', 'resourceVersion', 'managedFields', 'ownerReferences', 'selfLink', 'generateName', 'finalizers', 'creationTimestamp', 'generation'];

/** One cluster file rewritten, in its own format (JSON stays JSON); undefined when it is neither JSON nor YAML. */
export function anonymizeClusterText(a: Anonymizer, text: string): string | undefined {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return undefined;
  const out = docs.map((d) => walk(a, d.toJS({ maxAliasCount: 100 }) as Json));
  if (/^\s*[[{]/.test(text) && out.length === 1) return `${JSON.stringify(out[0], null, 4)}\n`;
  return out.map((o) => stringify(o)).join('---\n');
}

/** Learns the node names first, so that any text rewritten after (dumps, manifest) maps them too. */
export function learnClusterNodes(a: Anonymizer, text: string): void {
  for (const m of text.matchAll(/"kind":\s*"Node"[\s\S]{0,400}?"name":\s*"([^"]+)"/g)) a.node(m[1]);
  for (const m of text.matchAll(/^\s*(?:- )?kind: Node\s*$[\s\S]{0,400}?^\s+name: (\S+)\s*$/gm)) a.node(m[1].replace(/^["']|["']$/g, ''));
}

function walk(a: Anonymizer, v: Json): Json {
  if (Array.isArray(v)) return v.map((x) => walk(a, x));
  if (!isObj(v)) return typeof v === 'string' ? a.rewrite(v) : v;
  const kind = str(v.kind);
  if (kind === 'Service' || kind === 'EndpointSlice' || kind === 'Endpoints' || kind === 'Node' || kind === 'ConfigMap') return object(a, kind, v);
  // A List's metadata is a resourceVersion at most.
  return Object.fromEntries(Object.entries(v).flatMap(([k, x]): [string, Json][] => (kind === 'List' && k === 'metadata' ? [] : [[k, walk(a, x)]])));
}

/** The object's own name: Services and their slices share the Service's new name; nodes their node name. */
function object(a: Anonymizer, kind: string, o: Obj): Obj {
  const meta = isObj(o.metadata) ? o.metadata : {};
  const ns = str(meta.namespace) ?? 'default';
  const name = str(meta.name) ?? '';
  const labels = isObj(meta.labels) ? meta.labels : {};
  const svcName = str(labels['kubernetes.io/service-name']);
  let newName: string;
  if (kind === 'Service' || kind === 'Endpoints') newName = a.servicePair(ns, name).split('/')[1];
  else if (kind === 'Node') newName = a.node(name);
  else if (kind === 'EndpointSlice' && svcName) newName = `${a.servicePair(ns, svcName).split('/')[1]}-${a.word('slice', name).split('-')[1]}`;
  else if (kind === 'ConfigMap' && ns === 'kube-system' && name === 'kube-proxy') newName = name;
  else newName = a.word(kind.toLowerCase(), `${ns}/${name}`);
  const newMeta: Obj = {};
  for (const [k, x] of Object.entries(meta)) {
    if (DROPPED_META.includes(k)) continue;
    if (k === 'name') newMeta.name = newName;
    else if (k === 'namespace') newMeta.namespace = a.namespace(ns);
    else if (k === 'labels') newMeta.labels = labelsOf(a, ns, labels);
    else if (k === 'annotations') newMeta.annotations = isObj(x) ? Object.fromEntries(Object.entries(x).filter(([ak]) => KEPT_ANNOTATIONS.has(ak))) : x;
    else newMeta[k] = walk(a, x);
  }
  const rest = Object.entries(o).filter(([k]) => k !== 'metadata');
  const body = kind === 'Node' ? nodeBody(a, o) : kind === 'ConfigMap' ? configMapBody(a, o) : Object.fromEntries(rest.map(([k, x]) => [k, field(a, ns, k, x)]));
  return { ...(o.apiVersion !== undefined ? { apiVersion: o.apiVersion } : {}), kind, metadata: newMeta, ...body };
}

function labelsOf(a: Anonymizer, ns: string, labels: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(labels)) {
    const s = str(v);
    if (s === undefined) continue;
    if (k === 'kubernetes.io/service-name') out[k] = a.servicePair(ns, s).split('/')[1];
    else if (k === 'kubernetes.io/hostname') out[k] = a.node(s);
    else if (ZONE_LABELS.has(k)) out[k] = a.word('zone', s);
    else if (KEPT_LABELS.has(k)) out[k] = s;
  }
  return out;
}

/** A field of a Service or EndpointSlice: the names inside endpoints and selectors mapped, the rest walked. */
function field(a: Anonymizer, ns: string, key: string, v: Json): Json {
  if (key === 'endpoints' && Array.isArray(v)) return v.map((e) => (isObj(e) ? endpoint(a, ns, e) : e));
  if (key === 'subsets' && Array.isArray(v))
    return v.map((s) => (isObj(s) ? Object.fromEntries(Object.entries(s).map(([k, x]) => [k, Array.isArray(x) ? x.map((e) => (isObj(e) ? endpoint(a, ns, e) : e)) : walk(a, x)])) : s));
  if (key === 'spec' && isObj(v)) return spec(a, v);
  if (key === 'status' && isObj(v)) return walkHostnames(a, v);
  return walk(a, v);
}

function spec(a: Anonymizer, s: Obj): Obj {
  const out: Obj = {};
  for (const [k, x] of Object.entries(s)) {
    if (k === 'selector' && isObj(x)) out[k] = Object.fromEntries(Object.entries(x).map(([sk, sv]) => [sk, a.word('value', String(sv))]));
    else if (k === 'externalName' && typeof x === 'string') out[k] = `${a.word('external', x)}.example`;
    else if (k === 'loadBalancerClass' || k === 'healthCheckNodePort' || k === 'ports') out[k] = x;
    else out[k] = walk(a, x);
  }
  return out;
}

/** status.loadBalancer.ingress[].hostname: a cloud load balancer's DNS name. */
function walkHostnames(a: Anonymizer, v: Json): Json {
  if (Array.isArray(v)) return v.map((x) => walkHostnames(a, x));
  if (!isObj(v)) return walk(a, v);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'hostname' && typeof x === 'string' ? `${a.word('lb', x)}.example` : walkHostnames(a, x)]));
}

function endpoint(a: Anonymizer, ns: string, e: Obj): Obj {
  const out: Obj = {};
  for (const [k, x] of Object.entries(e)) {
    if (k === 'nodeName' && typeof x === 'string') out[k] = a.node(x);
    else if (k === 'hostname' && typeof x === 'string') out[k] = a.word('host', x);
    else if (k === 'zone' && typeof x === 'string') out[k] = a.word('zone', x);
    else if (k === 'targetRef' && isObj(x)) out[k] = targetRef(a, ns, x);
    else if (k === 'deprecatedTopology' && isObj(x)) out[k] = labelsOf(a, ns, x);
    else if (k === 'hints' && isObj(x)) out[k] = walkZones(a, x);
    else out[k] = walk(a, x);
  }
  return out;
}

function targetRef(a: Anonymizer, ns: string, r: Obj): Obj {
  const refNs = str(r.namespace) ?? ns;
  const out: Obj = { kind: r.kind ?? 'Pod', name: a.word(String(r.kind ?? 'Pod').toLowerCase(), `${refNs}/${String(r.name)}`) };
  if (r.namespace !== undefined) out.namespace = a.namespace(refNs);
  return out;
}

/** hints.forZones[].name, forNodes[].name. */
function walkZones(a: Anonymizer, h: Obj): Obj {
  const map = (list: Json | undefined, f: (s: string) => string) => (Array.isArray(list) ? list.map((z) => (isObj(z) && typeof z.name === 'string' ? { ...z, name: f(z.name) } : z)) : list);
  return { ...h, ...(h.forZones ? { forZones: map(h.forZones, (s) => a.word('zone', s)) as Json } : {}), ...(h.forNodes ? { forNodes: map(h.forNodes, (s) => a.node(s)) as Json } : {}) };
}

/** A Node: its addresses (host names mapped to the node's new name), pod CIDRs; no provider id, info or images. */
function nodeBody(a: Anonymizer, o: Obj): Obj {
  const spec = isObj(o.spec) ? o.spec : {};
  const status = isObj(o.status) ? o.status : {};
  const addresses = Array.isArray(status.addresses)
    ? status.addresses.filter(isObj).map((x) => ({ type: x.type ?? null, address: /DNS|Hostname/.test(String(x.type)) ? a.node(String(x.address)) : a.rewrite(String(x.address)) }))
    : undefined;
  const newSpec: Obj = {};
  for (const k of ['podCIDR', 'podCIDRs', 'unschedulable', 'taints']) if (spec[k] !== undefined) newSpec[k] = walk(a, spec[k]);
  const newStatus: Obj = {};
  if (addresses) newStatus.addresses = addresses;
  if (status.conditions !== undefined) newStatus.conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObj).map((c) => ({ type: c.type ?? null, status: c.status ?? null })) : null;
  return { spec: newSpec, status: newStatus };
}

/** The kube-proxy ConfigMap: its configuration text rewritten (addresses, node names), the API server's host replaced. */
function configMapBody(a: Anonymizer, o: Obj): Obj {
  const data = isObj(o.data) ? o.data : {};
  const out: Obj = {};
  for (const [k, v] of Object.entries(data)) out[k] = typeof v === 'string' ? a.rewrite(v).replace(/(https?:\/\/)(?!\d|\[)[A-Za-z0-9.-]+/g, '$1kube-apiserver.example') : v;
  return { data: out };
}
