// Cluster-state files (what `kubectl get services,endpointslices -A -o json|yaml`, `kubectl get nodes` and the
// kube-proxy ConfigMap print) to the cluster model. Lists (`List`, `ServiceList`, …), multi-document YAML and
// appended JSON values are all read; what is not a Service, EndpointSlice, Endpoints, Node or kube-proxy
// configuration is counted and said once per kind. Bad input becomes diagnostics; nothing throws.
import { t } from '../l10n';
import type { Severity } from '../model/diagnostics';
import { field, isObj, ReadContext, type Obj } from './read-context';
import { readEndpoints, readEndpointSlice, readNode, readService } from './read-objects';
import { readProxyConfigMap, readProxyConfiguration } from './read-proxy-config';
import { readText } from './read-text';
import type { ApiEndpointSlice, ClusterState } from './types';

/** Above this, a YAML file gets a note that its JSON form reads much faster. */
const LARGE_YAML_CHARS = 4 * 1024 * 1024;
/** Lists inside lists are not what kubectl prints; this bounds hostile ones. */
const MAX_LIST_DEPTH = 4;
/** How much of a file looksLikeClusterState reads. */
const SNIFF_CHARS = 64 * 1024;

interface FileState {
  state: ClusterState;
  /** Kinds not used, with how many and the first. */
  unused: Map<string, { count: number; first: unknown }>;
  used: number;
}

export function readClusterFile(file: string, text: string): ClusterState {
  const state: ClusterState = { services: [], endpointSlices: [], nodes: [], diagnostics: [] };
  const read = binary(text) ? undefined : readText(text);
  const ctx = new ReadContext(file, text, read?.offsets ?? new Map(), read?.json ?? false);
  const fs: FileState = { state, unused: new Map(), used: 0 };
  try {
    readDocuments(ctx, fs, text, read);
  } catch (e) {
    // A last resort: what was read so far is kept, and the file says it stopped.
    ctx.report('error', 'cluster-read-failed', t('This file could not be read to its end: {0}', e instanceof Error ? e.message : String(e)), undefined);
  }
  const merged = mergeClusterStates([state]);
  merged.diagnostics = [{ file, diagnostics: [...ctx.diagnostics.close(), ...(merged.diagnostics[0]?.diagnostics ?? [])] }];
  return merged;
}

function readDocuments(ctx: ReadContext, fs: FileState, text: string, read: ReturnType<typeof readText> | undefined): void {
  if (!read) ctx.report('error', 'cluster-binary', t('This is not a text file: it cannot be a Kubernetes object list.'), undefined);
  if (read && notClusterState(text, read)) {
    // A dump given as cluster state: one sentence, not a screen of YAML syntax errors.
    ctx.report('error', 'cluster-not-cluster-state', t('This is not a cluster-state file: expected what kubectl get services,endpointslices -A -o json (or -o yaml) prints.'), undefined);
    return;
  }
  for (const p of read?.problems ?? []) ctx.report(p.severity, p.code, p.message, undefined, undefined, p.offset);
  if (read && !read.json && text.length > LARGE_YAML_CHARS) {
    ctx.report('information', 'cluster-large-yaml', t('This YAML file is {0} MB: the same objects as JSON (kubectl get … -o json) read many times faster.', Math.round(text.length / 1e6)), undefined);
  }
  for (const doc of read?.documents ?? []) readTop(ctx, fs, doc, 0);
  reportUnused(ctx, fs, read !== undefined && read.problems.length === 0);
}

/** Text that does not look like cluster state and is not YAML/JSON objects (a dump): it fails or reads as scalars. */
function notClusterState(text: string, read: ReturnType<typeof readText>): boolean {
  const scalars = read.documents.length > 0 && read.documents.every((d) => d === null || typeof d !== 'object');
  const syntax = !read.json && read.problems.length > 0 && read.problems.every((p) => p.code === 'cluster-bad-yaml');
  if (!(syntax || scalars) || looksLikeClusterState(text)) return false;
  return !read.documents.some((d) => isObj(d) && (typeof field(d, 'kind') === 'string' || Array.isArray(field(d, 'items'))));
}

function binary(text: string): boolean {
  return text.slice(0, SNIFF_CHARS).includes('\u0000');
}

function readTop(ctx: ReadContext, fs: FileState, v: unknown, depth: number): void {
  if (v === null || v === undefined) return;
  if (Array.isArray(v)) {
    // `jq '.items'` output, or a YAML sequence of objects.
    if (depth < MAX_LIST_DEPTH) for (const item of v) readTop(ctx, fs, item, depth + 1);
    return;
  }
  if (!isObj(v)) {
    ctx.report('warning', 'cluster-not-an-object', t('Expected a Kubernetes object (with apiVersion and kind) here, not {0}.', JSON.stringify(v)?.slice(0, 40) ?? String(v)), undefined);
    return;
  }
  const kind = field(v, 'kind');
  const items = field(v, 'items');
  if (Array.isArray(items) && (kind === undefined || (typeof kind === 'string' && kind.endsWith('List')))) {
    if (depth < MAX_LIST_DEPTH) for (const item of items) readTop(ctx, fs, item, depth + 1);
    return;
  }
  readObject(ctx, fs, v, typeof kind === 'string' ? kind : undefined);
}

function readObject(ctx: ReadContext, fs: FileState, o: Obj, kind: string | undefined): void {
  const s = fs.state;
  const apiVersion = typeof field(o, 'apiVersion') === 'string' ? (field(o, 'apiVersion') as string) : undefined;
  switch (kind) {
    case 'Service':
      return used(fs, readService(ctx, o), (x) => s.services.push(x));
    case 'EndpointSlice':
      return used(fs, readEndpointSlice(ctx, o, apiVersion), (x) => s.endpointSlices.push(x));
    case 'Endpoints':
      return used(fs, readEndpoints(ctx, o), (x) => s.endpointSlices.push(...x));
    case 'Node':
      return used(fs, readNode(ctx, o), (x) => s.nodes.push(x));
    case 'KubeProxyConfiguration':
      return used(fs, readProxyConfiguration(ctx, o), (x) => setProxyConfig(ctx, s, x, o));
    case 'ConfigMap': {
      const config = readProxyConfigMap(ctx, o);
      if (config) return used(fs, config, (x) => setProxyConfig(ctx, s, x, o));
      break;
    }
  }
  const key = kind ?? '';
  const u = fs.unused.get(key);
  if (u) u.count++;
  else fs.unused.set(key, { count: 1, first: o });
}

function used<T>(fs: FileState, x: T | undefined, add: (x: T) => void): void {
  if (x === undefined) return;
  fs.used++;
  add(x);
}

function setProxyConfig(ctx: ReadContext, s: ClusterState, config: NonNullable<ClusterState['proxyConfig']>, o: Obj): void {
  if (!s.proxyConfig) s.proxyConfig = config;
  else ctx.report('warning', 'cluster-duplicate-object', t('A second kube-proxy configuration: the first one in the file is used.'), o);
}

/** One diagnostic per kind that is not used, at its first object: a Pod list says so once, not per Pod. */
function reportUnused(ctx: ReadContext, fs: FileState, clean: boolean): void {
  const severity: Severity = fs.used > 0 ? 'information' : 'warning';
  const readable = t('the check reads Services, EndpointSlices, Endpoints, Nodes and the kube-proxy ConfigMap');
  for (const [kind, { count, first }] of fs.unused) {
    const message = kind === '' ? t('{0} objects have no kind and are not used; {1}.', count, readable) : t('{0} {1} objects are not used; {2}.', count, kind, readable);
    ctx.current = kind;
    ctx.report(severity, kind === '' ? 'cluster-missing-kind' : 'cluster-unknown-kind', message, first);
  }
  if (fs.used === 0 && fs.unused.size === 0 && clean) {
    ctx.report('warning', 'cluster-empty', t('No Kubernetes objects in this file; {0}.', readable), undefined);
  }
}

/**
 * Several files' states as one: the first of objects with the same kind, namespace and name wins (the later one
 * gets a diagnostic), and a Service's legacy Endpoints are dropped when it has EndpointSlices (kube-proxy reads
 * only slices).
 */
export function mergeClusterStates(states: readonly ClusterState[]): ClusterState {
  const out: ClusterState = { services: [], endpointSlices: [], nodes: [], diagnostics: [] };
  const later = new Map<string, { file: string; diagnostics: ClusterState['diagnostics'][number]['diagnostics'] }>();
  const note = (file: string | undefined, d: ClusterState['diagnostics'][number]['diagnostics'][number]): void => {
    const key = file ?? '';
    if (!later.has(key)) later.set(key, { file: key, diagnostics: [] });
    later.get(key)!.diagnostics.push(d);
  };
  const seen = new Set<string>();
  const keep = <T extends { source?: { file: string; range: import('../model/range').Range } }>(kind: string, key: string, x: T, into: T[]): void => {
    const k = `${kind}\u0000${key}`;
    if (!seen.has(k)) {
      seen.add(k);
      into.push(x);
    } else if (x.source) note(x.source.file, { range: x.source.range, severity: 'information', code: 'cluster-duplicate-object', message: t('{0} {1} was already read; this copy is not used.', kind, key) });
  };
  for (const s of states) {
    for (const x of s.services) keep('Service', `${x.namespace}/${x.name}`, x, out.services);
    for (const x of s.endpointSlices) keep(x.fromLegacyEndpoints ? 'Endpoints' : 'EndpointSlice', `${x.namespace}/${x.name}`, x, out.endpointSlices);
    for (const x of s.nodes) keep('Node', x.name, x, out.nodes);
    if (s.proxyConfig && !out.proxyConfig) out.proxyConfig = s.proxyConfig;
  }
  out.endpointSlices = withoutSupersededEndpoints(out.endpointSlices);
  // One entry per file, in the order the files came, with the duplicates found here at the end.
  const byFile = new Map<string, ClusterState['diagnostics'][number]>();
  for (const s of states) {
    for (const d of s.diagnostics) {
      const entry = byFile.get(d.file);
      if (entry) entry.diagnostics = [...entry.diagnostics, ...d.diagnostics];
      else byFile.set(d.file, { file: d.file, diagnostics: d.diagnostics });
    }
  }
  for (const [file, d] of later) {
    const entry = byFile.get(file);
    if (entry) entry.diagnostics = [...entry.diagnostics, ...d.diagnostics];
    else byFile.set(file, d);
  }
  out.diagnostics = [...byFile.values()];
  return out;
}

/** kube-proxy reads EndpointSlices only: a Service's mirrored Endpoints count only when it has no slice. */
function withoutSupersededEndpoints(slices: ApiEndpointSlice[]): ApiEndpointSlice[] {
  const withSlices = new Set<string>();
  for (const s of slices) if (!s.fromLegacyEndpoints && s.serviceName) withSlices.add(`${s.namespace}/${s.serviceName}`);
  if (withSlices.size === 0) return slices;
  return slices.filter((s) => !s.fromLegacyEndpoints || !withSlices.has(`${s.namespace}/${s.serviceName}`));
}

/**
 * Whether a text is a cluster-state file, from its first 64 KB: a JSON or YAML object (or List) of the kinds
 * read here. Cheap: a few regular expressions, no parse.
 */
export function looksLikeClusterState(text: string): boolean {
  const head = text.slice(0, SNIFF_CHARS);
  if (head.includes('\u0000') || !/apiVersion"?\s*:/.test(head)) return false;
  // The kube-proxy ConfigMap holds its configuration as text, in either format.
  if (/kind:\s*KubeProxyConfiguration\b/.test(head)) return true;
  return /^\s*[[{]/.test(head) ? SNIFF_JSON.test(head) : SNIFF_YAML.test(head);
}

const SNIFF_KINDS = '(?:Service|EndpointSlice|Endpoints|Node|KubeProxyConfiguration)';
const SNIFF_JSON = new RegExp(`"kind"\\s*:\\s*"${SNIFF_KINDS}"`);
const SNIFF_YAML = new RegExp(`^[ \\t]*(?:- )?kind:[ \\t]*["']?${SNIFF_KINDS}["']?[ \\t]*\\r?$`, 'm');
