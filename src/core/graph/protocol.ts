// Messages between the extension and the graph webview (DESIGN §7): typed both ways and checked on receipt.
// Dump text only ever travels as string fields of these messages; the webview renders it with textContent.
import type { ServiceGraph, ServiceSummary } from './model';
import type { GraphLayout } from './svg';
import type { TraceHighlight } from './trace';

/** Every string the webview shows, translated by the extension. */
export interface GraphStrings {
  filterPlaceholder: string;
  filterLabel: string;
  servicesLabel: string;
  copyMermaid: string;
  noSelection: string;
  noEndpoints: string;
  endpoints: string;
  /** `{0} of {1} Services` */
  count: string;
  graphLabel: string;
  saveSvg: string;
  fit: string;
  zoomIn: string;
  zoomOut: string;
  namespaceLabel: string;
  allNamespaces: string;
  onlyNoEndpoints: string;
  traceFromHere: string;
  clearTrace: string;
  /** `Trace {0}` */
  traced: string;
  /** Keyboard help shown under the graph. */
  keys: string;
  /** `{0} nodes laid out in {1} ms` */
  layoutTime: string;
}

export type ToWebview =
  | { type: 'init'; title: string; strings: GraphStrings; files: string[]; services: ServiceSummary[]; selected: string[] }
  | { type: 'graph'; graphs: ServiceGraph[] }
  /** The editor hover of a node's rule or element (Markdown, rendered as text by the webview). */
  | { type: 'hover'; nodeId: string; markdown: string }
  | { type: 'highlight'; highlight: TraceHighlight | null };

export type FromWebview =
  | { type: 'ready' }
  | { type: 'select'; keys: string[] }
  | { type: 'reveal'; nodeId: string }
  | { type: 'copyMermaid'; keys: string[] }
  | { type: 'hover'; nodeId: string }
  /** "Trace from here" on a frontend node. */
  | { type: 'trace'; nodeId: string }
  | { type: 'clearTrace' }
  /** "Save as SVG": the positions the webview drew (numbers and node ids only). */
  | { type: 'saveSvg'; layout: GraphLayout }
  /** The webview's own clock of its first drawing (performance.now() marks, ms since the page's timeOrigin). */
  | { type: 'timing'; timeOrigin: number; marks: Record<string, number> };

/** State the webview persists (vscode.setState) and the serializer receives after a reload. */
export interface GraphPanelState {
  document: string;
  selected: string[];
}

const MAX_KEYS = 10_000;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown, max = 100_000): v is string => typeof v === 'string' && v.length <= max;
const isStringArray = (v: unknown, maxItems: number, max = 100_000): v is string[] => Array.isArray(v) && v.length <= maxItems && v.every((x) => isString(x, max));
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function parseFromWebview(v: unknown): FromWebview | undefined {
  if (!isObject(v)) return undefined;
  switch (v.type) {
    case 'ready':
      return { type: 'ready' };
    case 'select':
    case 'copyMermaid':
      return isStringArray(v.keys, MAX_KEYS, 2_000) ? { type: v.type, keys: [...v.keys] } : undefined;
    case 'reveal':
    case 'hover':
    case 'trace':
      return isString(v.nodeId, 2_000) ? { type: v.type, nodeId: v.nodeId } : undefined;
    case 'clearTrace':
      return { type: 'clearTrace' };
    case 'saveSvg': {
      const layout = parseLayout(v.layout);
      return layout ? { type: 'saveSvg', layout } : undefined;
    }
    case 'timing':
      return parseTiming(v);
    default:
      return undefined;
  }
}

const MAX_MARKS = 32;

/** Timing marks: at most MAX_MARKS short names, each a finite number of ms. */
function parseTiming(v: Record<string, unknown>): FromWebview | undefined {
  if (!isNumber(v.timeOrigin) || !isObject(v.marks)) return undefined;
  const entries = Object.entries(v.marks);
  if (entries.length > MAX_MARKS || !entries.every(([k, ms]) => /^[A-Za-z]{1,32}$/.test(k) && isNumber(ms))) return undefined;
  return { type: 'timing', timeOrigin: v.timeOrigin, marks: Object.fromEntries(entries) as Record<string, number> };
}

const MAX_NODES = 200_000;
const isPoint = (p: unknown): p is [number, number] => Array.isArray(p) && p.length === 2 && isNumber(p[0]) && isNumber(p[1]);

/** A layout from the webview: only finite numbers and bounded id strings are accepted (copied, not aliased). */
export function parseLayout(v: unknown): GraphLayout | undefined {
  if (!isObject(v) || !isNumber(v.width) || !isNumber(v.height) || !Array.isArray(v.nodes) || !Array.isArray(v.edges) || !Array.isArray(v.titles)) return undefined;
  if (v.nodes.length > MAX_NODES || v.edges.length > 2 * MAX_NODES || v.titles.length > MAX_KEYS) return undefined;
  if (v.width < 0 || v.height < 0 || v.width > 1e7 || v.height > 1e8) return undefined;
  const nodes: GraphLayout['nodes'] = [];
  for (const n of v.nodes) {
    if (!isObject(n) || !isString(n.id, 2_000) || !isNumber(n.x) || !isNumber(n.y)) return undefined;
    nodes.push({ id: n.id, x: n.x, y: n.y });
  }
  const edges: GraphLayout['edges'] = [];
  for (const e of v.edges) {
    if (!isObject(e) || !isString(e.from, 2_000) || !isString(e.to, 2_000) || !Array.isArray(e.points) || e.points.length > 1_000 || !e.points.every(isPoint)) return undefined;
    edges.push({ from: e.from, to: e.to, points: (e.points as [number, number][]).map(([x, y]) => [x, y]) });
  }
  const titles: GraphLayout['titles'] = [];
  for (const t of v.titles) {
    if (!isObject(t) || !isString(t.key, 2_000) || !isNumber(t.x) || !isNumber(t.y)) return undefined;
    titles.push({ key: t.key, x: t.x, y: t.y });
  }
  return { width: v.width, height: v.height, nodes, edges, titles };
}

function isHighlight(v: unknown): v is TraceHighlight {
  return (
    isObject(v) &&
    isString(v.title) &&
    Array.isArray(v.nodes) &&
    v.nodes.every((n: unknown) => isObject(n) && isString(n.id) && isNumber(n.share) && isString(n.label)) &&
    Array.isArray(v.edges) &&
    v.edges.every((e: unknown) => isObject(e) && isString(e.from) && isString(e.to) && isNumber(e.share) && isString(e.label))
  );
}

export function parseGraphPanelState(v: unknown): GraphPanelState | undefined {
  if (!isObject(v) || !isString(v.document, 10_000) || !isStringArray(v.selected, MAX_KEYS, 2_000)) return undefined;
  return { document: v.document, selected: [...v.selected] };
}

const STRING_KEYS: (keyof GraphStrings)[] = [
  'filterPlaceholder',
  'filterLabel',
  'servicesLabel',
  'copyMermaid',
  'noSelection',
  'noEndpoints',
  'endpoints',
  'count',
  'graphLabel',
  'saveSvg',
  'fit',
  'zoomIn',
  'zoomOut',
  'namespaceLabel',
  'allNamespaces',
  'onlyNoEndpoints',
  'traceFromHere',
  'clearTrace',
  'traced',
  'keys',
  'layoutTime',
];

const MARK_KINDS = ['missing', 'stale', 'filtered', 'not-programmed'];
const SEVERITIES = ['error', 'warning', 'info'];

/** An optional cluster-state mark: absent, or a known kind and severity with bounded texts. */
function isMark(v: unknown): boolean {
  return v === undefined || (isObject(v) && MARK_KINDS.includes(v.kind as string) && SEVERITIES.includes(v.severity as string) && isString(v.label, 200) && isString(v.reason, 10_000));
}

function isSummary(v: unknown): v is ServiceSummary {
  return (
    isObject(v) &&
    ['key', 'namespace', 'name', 'portName', 'protocol', 'title'].every((k) => isString(v[k])) &&
    isStringArray(v.frontends, 10_000) &&
    isStringArray(v.objects, 10_000) &&
    isNumber(v.endpointCount) &&
    isNumber(v.fileIndex) &&
    (v.family === 'ipv4' || v.family === 'ipv6') &&
    typeof v.noEndpoints === 'boolean' &&
    isMark(v.mark)
  );
}

function isRange(v: unknown): boolean {
  return isObject(v) && isObject(v.start) && isObject(v.end) && isNumber(v.start.line) && isNumber(v.start.character) && isNumber(v.end.line) && isNumber(v.end.character);
}

function isGraph(v: unknown): v is ServiceGraph {
  if (!isObject(v) || !isString(v.key) || !isString(v.title) || !Array.isArray(v.nodes) || !Array.isArray(v.edges)) return false;
  const nodesOk = v.nodes.every(
    (n: unknown) =>
      isObject(n) &&
      isString(n.id) &&
      ['frontend', 'service', 'endpoint', 'pod', 'verdict'].includes(n.kind as string) &&
      isNumber(n.layer) &&
      isString(n.label) &&
      isString(n.detail) &&
      isStringArray(n.badges, 100) &&
      isMark(n.mark) &&
      (n.source === undefined || (isObject(n.source) && isNumber(n.source.fileIndex) && isRange(n.source.range))) &&
      (n.target === undefined ||
        (isObject(n.target) && isString(n.target.frontend, 20) && isNumber(n.target.port) && isString(n.target.protocol, 20) && (n.target.address === undefined || isString(n.target.address, 100)))),
  );
  const edgesOk = v.edges.every(
    (e: unknown) =>
      isObject(e) && isString(e.from) && isString(e.to) && (e.share === undefined || isNumber(e.share)) && (e.label === undefined || isString(e.label)) && (e.dashed === undefined || typeof e.dashed === 'boolean'),
  );
  return nodesOk && edgesOk;
}

export function parseToWebview(v: unknown): ToWebview | undefined {
  if (!isObject(v)) return undefined;
  if (v.type === 'init') {
    const s = v.strings;
    if (
      !isString(v.title) ||
      !isObject(s) ||
      !STRING_KEYS.every((k) => isString(s[k])) ||
      !isStringArray(v.files, 1_000, 10_000) ||
      !Array.isArray(v.services) ||
      !v.services.every(isSummary) ||
      !isStringArray(v.selected, MAX_KEYS)
    )
      return undefined;
    return v as unknown as ToWebview;
  }
  if (v.type === 'graph') {
    if (!Array.isArray(v.graphs) || !v.graphs.every(isGraph)) return undefined;
    return v as unknown as ToWebview;
  }
  if (v.type === 'hover') {
    return isString(v.nodeId, 2_000) && isString(v.markdown, 1_000_000) ? { type: 'hover', nodeId: v.nodeId, markdown: v.markdown } : undefined;
  }
  if (v.type === 'highlight') {
    if (v.highlight !== null && !isHighlight(v.highlight)) return undefined;
    return v as unknown as ToWebview;
  }
  return undefined;
}
