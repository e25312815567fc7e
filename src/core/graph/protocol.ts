// Messages between the extension and the graph webview (DESIGN §7): typed both ways and checked on receipt.
// Dump text only ever travels as string fields of these messages; the webview renders it with textContent.
import type { ServiceGraph, ServiceSummary } from './model';

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
}

export type ToWebview =
  | { type: 'init'; title: string; strings: GraphStrings; files: string[]; services: ServiceSummary[]; selected: string[] }
  | { type: 'graph'; graphs: ServiceGraph[] };

export type FromWebview =
  | { type: 'ready' }
  | { type: 'select'; keys: string[] }
  | { type: 'reveal'; nodeId: string }
  | { type: 'copyMermaid'; keys: string[] };

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
      return isString(v.nodeId, 2_000) ? { type: 'reveal', nodeId: v.nodeId } : undefined;
    default:
      return undefined;
  }
}

export function parseGraphPanelState(v: unknown): GraphPanelState | undefined {
  if (!isObject(v) || !isString(v.document, 10_000) || !isStringArray(v.selected, MAX_KEYS, 2_000)) return undefined;
  return { document: v.document, selected: [...v.selected] };
}

const STRING_KEYS: (keyof GraphStrings)[] = ['filterPlaceholder', 'filterLabel', 'servicesLabel', 'copyMermaid', 'noSelection', 'noEndpoints', 'endpoints', 'count', 'graphLabel'];

function isSummary(v: unknown): v is ServiceSummary {
  return (
    isObject(v) &&
    ['key', 'namespace', 'name', 'portName', 'protocol', 'title'].every((k) => isString(v[k])) &&
    isStringArray(v.frontends, 10_000) &&
    isStringArray(v.objects, 10_000) &&
    isNumber(v.endpointCount) &&
    isNumber(v.fileIndex) &&
    typeof v.noEndpoints === 'boolean'
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
      (n.source === undefined || (isObject(n.source) && isNumber(n.source.fileIndex) && isRange(n.source.range))),
  );
  const edgesOk = v.edges.every((e: unknown) => isObject(e) && isString(e.from) && isString(e.to) && (e.share === undefined || isNumber(e.share)) && (e.label === undefined || isString(e.label)));
  return nodesOk && edgesOk;
}

export function parseToWebview(v: unknown): ToWebview | undefined {
  if (!isObject(v)) return undefined;
  if (v.type === 'init') {
    const s = v.strings;
    if (!isString(v.title) || !isObject(s) || !STRING_KEYS.every((k) => isString(s[k])) || !isStringArray(v.files, 1_000, 10_000) || !Array.isArray(v.services) || !v.services.every(isSummary) || !isStringArray(v.selected, MAX_KEYS)) return undefined;
    return v as unknown as ToWebview;
  }
  if (v.type === 'graph') {
    if (!Array.isArray(v.graphs) || !v.graphs.every(isGraph)) return undefined;
    return v as unknown as ToWebview;
  }
  return undefined;
}
