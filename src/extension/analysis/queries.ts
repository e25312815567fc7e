// The questions the editor asks about one analysed dump and about a node snapshot, by name. The same functions
// answer them on the extension host (small dumps) and in the analysis worker (large dumps), so both routes give
// the same plain-data results (no `vscode` import here: this module is bundled into the worker too).
import { snapshotDefinitions, snapshotDiagnostics, snapshotReferences } from '../../core/crossref';
import { explainNode } from '../../core/explain/node';
import { apiSideAt, apiSideMarkdown } from '../../core/explain/cluster-hover';
import type { HoverService } from '../../core/explain/markdown';
import { clusterDiagnostics } from '../../core/cluster/snapshot';
import { knownNodeNames } from '../../core/cluster/node';
import { graphOfSnapshot, graphsOfSnapshot, snapshotKeysWhere } from '../../core/graph/snapshot';
import { mayEnter, traceHighlight } from '../../core/graph/trace';
import { clusterEndpoints } from '../../core/trace/cluster';
import type { AnyFeatures, DumpAnalysis } from '../../core/language';
import { moreItem, type OutlineItem, type SemanticSymbol } from '../../core/language/types';
import type { Position, Range } from '../../core/model/range';
import { formatShare, frontendHostPort, serviceLabel, servicePortNameString, type ObjectRef, type Service } from '../../core/kube/service';
import { findService, serviceTitle, type GraphModel, type ServiceSelector } from '../../core/graph/model';
import { perAnalyses, type PerAnalyses } from '../../core/model/perAnalyses';
import { t } from '../../core/l10n';
import { filterRows } from './pickRows';
import { plainLabel } from '../../core/explain/label';
import { buildSnapshot, type NodeSnapshot, type SnapshotFile } from '../../core/snapshot';
import { querySymbols, SYMBOL_INDEX_STEP_MS, symbolIndexSteps, type SymbolIndex, type WorkspaceSymbolMatch } from '../../core/symbols';
import { snapshotFileLocator } from '../../core/graph/snapshot';
import { hostPort, prepareTraceSteps, traceSnapshot, tracedService, type Protocol, type SnapshotFile as TraceFile, type TraceRequest, type TraceResult } from '../../core/trace';

// The semantic token legend lives with the language ids activation needs (no parser code behind it).
export { SEMANTIC_TOKEN_MODIFIERS, SEMANTIC_TOKEN_TYPES } from '../dumpLanguages';
const TYPE_OF: Record<SemanticSymbol['kind'], number> = { chain: 0, set: 1, map: 1, ipset: 1, table: 2, virtualService: 3 };

/**
 * Semantic tokens in the editor's relative encoding (deltaLine, deltaStart, length, type, modifiers), sorted:
 * a large dump has hundreds of thousands of names, and one typed array crosses threads in one copy.
 */
export function encodeSemanticTokens(symbols: readonly SemanticSymbol[]): Uint32Array {
  const sorted = symbols
    .filter((s) => s.range.start.line === s.range.end.line && s.range.end.character > s.range.start.character)
    .sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  const out = new Uint32Array(sorted.length * 5);
  let line = 0;
  let character = 0;
  let n = 0;
  for (const s of sorted) {
    const { start, end } = s.range;
    const deltaLine = start.line - line;
    out[n++] = deltaLine;
    out[n++] = deltaLine === 0 ? start.character - character : start.character;
    out[n++] = end.character - start.character;
    out[n++] = TYPE_OF[s.kind] ?? 0;
    out[n++] = (s.declaration ? 1 : 0) | (s.kube ? 2 : 0);
    line = start.line;
    character = start.character;
  }
  return out;
}

/** One row of the "List Services" pick: ready-made text, so that 10,000 Services cross threads as strings. */
export interface ServiceItem {
  label: string;
  description: string;
  detail: string;
  /** The Service's chain (or first object), where picking the row goes. */
  range?: Range;
  /** The snapshot file of `range` (asked of a snapshot; absent: the document's). */
  fileIndex?: number;
}

export function serviceItems(services: readonly Service[], fileOf?: (s: Service, tableId?: string) => number): ServiceItem[] {
  return services.map((s) => {
    const target = s.objects.find((o) => o.role === 'service-chain' || o.role === 'service-local-chain') ?? s.objects[0];
    return {
      // Dump text in a QuickPick row: its `$(icon)` syntax is kept literal.
      label: plainLabel(serviceLabel(s)),
      description: plainLabel(s.frontends.map((f) => `${f.kind === 'nodePort' ? 'NodePort ' : ''}${frontendHostPort(f)}`).join('  ')),
      detail: s.endpoints.length === 0 ? t('no endpoints') : plainLabel(s.endpoints.map((e) => `${hostPort(e.address, e.port)} ${formatShare(e.probability)}`).join(' · ')),
      range: target?.range,
      fileIndex: fileOf && target ? fileOf(s, target.tableId) : undefined,
    };
  });
}

/** A snapshot's symbol index being built (symbolIndexSteps), then built, with its latest answers. */
interface SymbolIndexBuild {
  steps: Generator<void, SymbolIndex>;
  index?: SymbolIndex;
  /** The latest answers by query and limit: plain data, each asked again costs nothing. */
  answers: Map<string, WorkspaceSymbolMatch[]>;
}

const symbolIndexes: PerAnalyses<SymbolIndexBuild> = new WeakMap();
/** Answers kept per index (Ctrl+T asks again with each keystroke, and again with the same query). */
const KEPT_ANSWERS = 16;

/**
 * The symbol index of the snapshot with these analyses, kept while they live: the worker builds a new snapshot
 * per request, and Ctrl+T asks at each keystroke.
 */
const symbolBuildOf = (s: NodeSnapshot, stepMs?: number): SymbolIndexBuild => perAnalyses(symbolIndexes, analysesOf(s), () => ({ steps: symbolIndexSteps(s, stepMs), answers: new Map() }), 4);

/** One part of the index's preparation (see preparationSteps), of about `stepMs`: true while parts are left. */
function symbolIndexStep(s: NodeSnapshot, stepMs?: number): boolean {
  const build = symbolBuildOf(s, stepMs);
  if (build.index) return false;
  const step = build.steps.next();
  if (step.done) build.index = step.value;
  return !step.done;
}

/** The index, its parts not yet prepared built now (a question does not wait for idle tasks). */
function symbolIndexOf(s: NodeSnapshot): SymbolIndexBuild & { index: SymbolIndex } {
  while (symbolIndexStep(s));
  return symbolBuildOf(s) as SymbolIndexBuild & { index: SymbolIndex };
}

/** The symbols matching `query`, from the index's kept answers when it was asked before. */
function symbolsOf(s: NodeSnapshot, query: string, limit?: number): WorkspaceSymbolMatch[] {
  const { index, answers } = symbolIndexOf(s);
  const key = `${limit ?? ''}\u0000${query}`;
  let found = answers.get(key);
  if (found === undefined) {
    found = querySymbols(index, query, limit);
    if (answers.size >= KEPT_ANSWERS) answers.delete(answers.keys().next().value!);
  }
  answers.delete(key);
  answers.set(key, found);
  return found;
}

const analysesOf = (s: NodeSnapshot): object[] => s.files.map((f) => f.analysis);

/** The object a "Show in Graph" CodeLens sits above: the first of these roles a Service has. */
const LENS_ROLES: ObjectRef['role'][] = ['service-chain', 'service-local-chain', 'virtual-service', 'map-element', 'external-chain', 'firewall-chain'];

/** One "Show in Graph" CodeLens: where it goes and the Service it draws. */
export interface ServiceLens {
  range: Range;
  title: string;
  family: Service['family'];
  /** What the lens reads: the Service it is for, then the action (`shop/web:http → Show in Graph`). */
  label: string;
}

/**
 * The Services' CodeLenses, at most `limit`, one per line. Computed where the analysis lives: the Services of a
 * 10,000-Service dump are a 40 MB message, which the extension host would spend most of a second reading.
 */
export function serviceLenses(services: readonly Service[], limit: number): ServiceLens[] {
  const out: ServiceLens[] = [];
  const lines = new Set<number>();
  for (const s of services) {
    if (out.length >= limit) break;
    const object = LENS_ROLES.map((role) => s.objects.find((o) => o.role === role)).find((o) => o !== undefined);
    if (!object || lines.has(object.range.start.line)) continue;
    lines.add(object.range.start.line);
    const name = plainLabel(s.anonymous ? s.name : servicePortNameString(s));
    out.push({ range: object.range, title: serviceTitle(s), family: s.family, label: t('{0} → Show in Graph', name) });
  }
  return out;
}

/** One row of the Trace ClusterIP / Trace NodePort pick. */
export interface FrontendItem {
  label: string;
  description: string;
  detail: string;
  target: { address: string; port: number; protocol: Protocol };
}

export function frontendItems(services: readonly Service[], kind: 'clusterIP' | 'nodePort'): FrontendItem[] {
  const items: FrontendItem[] = [];
  for (const s of services) {
    for (const f of s.frontends) {
      if (f.kind !== kind) continue;
      const address = f.address ?? '';
      items.push({
        label: plainLabel(kind === 'clusterIP' ? `${hostPort(address, f.port)}/${s.protocol}` : `NodePort ${f.port}/${s.protocol}`),
        description: plainLabel(serviceLabel(s)),
        detail: s.endpoints.length ? plainLabel(s.endpoints.map((e) => `${hostPort(e.address, e.port)} ${formatShare(e.probability)}`).join(' · ')) : t('no endpoints'),
        target: { address, port: f.port, protocol: s.protocol as Protocol },
      });
    }
  }
  return items;
}

/** Folding ranges as pairs (start, end) in one typed array. */
export function encodeFoldingRanges(ranges: readonly { start: number; end: number }[]): Uint32Array {
  const out = new Uint32Array(ranges.length * 2);
  ranges.forEach((r, i) => {
    out[2 * i] = r.start;
    out[2 * i + 1] = r.end;
  });
  return out;
}

/**
 * The outline with at most `limit` items below the tables: a 49 MB dump has 99,000 chains, and turning that many
 * into editor symbols (and VS Code sending them on) would hold up the extension host for a second or more. The
 * rest is summed up in one last item per table. A list the dialect capped already (its last item says how many
 * more) counts without that item.
 */
export function limitOutline(items: OutlineItem[], limit: number): OutlineItem[] {
  let left = limit;
  return items.map((item) => {
    const last = item.children.at(-1);
    const kept = item.children.length - (last?.more === undefined ? 0 : 1);
    if (kept <= left) {
      left -= kept;
      return item;
    }
    const shown = item.children.slice(0, Math.max(0, left));
    const more = kept - shown.length + (last?.more ?? 0);
    left = 0;
    return { ...item, children: [...shown, moreItem(item.children[shown.length], more, limit)] };
  });
}

/** Folding ranges, the tables (outermost) first, at most `limit` (VS Code's editor.foldingMaximumRegions). */
export function limitFoldingRanges(ranges: { start: number; end: number }[], limit: number): { start: number; end: number }[] {
  if (ranges.length <= limit) return ranges;
  return [...ranges]
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, limit)
    .sort((a, b) => a.start - b.start);
}

/** Questions about one document's analysis (LanguageFeatures, plus what the providers need ready-made). */
export const documentQueries = {
  definitionAt: (f: AnyFeatures, a: DumpAnalysis, position: Position) => f.definitionAt(a, position),
  referencesAt: (f: AnyFeatures, a: DumpAnalysis, position: Position, includeDeclaration: boolean) => f.referencesAt(a, position, includeDeclaration),
  outline: (f: AnyFeatures, a: DumpAnalysis, limit = Number.POSITIVE_INFINITY) => limitOutline((f.outline as (a: DumpAnalysis, limit?: number) => OutlineItem[])(a, limit), limit),
  foldingRanges: (f: AnyFeatures, a: DumpAnalysis, limit = Number.POSITIVE_INFINITY) => encodeFoldingRanges(limitFoldingRanges(f.foldingRanges(a), limit)),
  hoverAt: (f: AnyFeatures, a: DumpAnalysis, position: Position) => f.hoverAt(a, position),
  statusSummary: (f: AnyFeatures, a: DumpAnalysis) => f.statusSummary(a),
  services: (f: AnyFeatures, a: DumpAnalysis) => f.services(a),
  serviceItems: (f: AnyFeatures, a: DumpAnalysis) => serviceItems(f.services(a)),
  serviceLenses: (f: AnyFeatures, a: DumpAnalysis, limit: number) => serviceLenses(f.services(a), limit),
  semanticTokens: (f: AnyFeatures, a: DumpAnalysis) => encodeSemanticTokens(f.semanticSymbols?.(a) ?? []),
  /** The tokens of lines [from, to) (a range request: the editor's viewport of a large dump). */
  semanticTokensOfLines: (f: AnyFeatures, a: DumpAnalysis, from: number, to: number) => encodeSemanticTokens(f.semanticSymbols?.(a, { from, to }) ?? []),
  diagnostics: (_f: AnyFeatures, a: DumpAnalysis) => a.diagnostics,
};

export type DocumentQueries = typeof documentQueries;
export type DocumentMethod = keyof DocumentQueries;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DocumentArgs<M extends DocumentMethod> = DocumentQueries[M] extends (f: AnyFeatures, a: DumpAnalysis, ...args: infer P) => any ? P : never;
export type DocumentResult<M extends DocumentMethod> = ReturnType<DocumentQueries[M]>;

export function runDocumentQuery<M extends DocumentMethod>(features: AnyFeatures, analysis: DumpAnalysis, method: M, args: DocumentArgs<M>): DocumentResult<M> {
  if (!Object.hasOwn(documentQueries, method)) throw new Error(`unknown document query ${String(method)}`);
  const fn = documentQueries[method] as (f: AnyFeatures, a: DumpAnalysis, ...rest: unknown[]) => DocumentResult<M>;
  return fn(features, analysis, ...(args as unknown[]));
}

/**
 * The graph panel gets the graphs of this many Services with the list, and asks for the others when they are
 * selected (a few milliseconds each): the graphs of 10,000 Services were a message of hundreds of megabytes that
 * took seconds to copy to the extension host, for a panel that draws a few of them.
 */
const EAGER_GRAPHS = 200;
/** Graphs one request may ask for (the panel draws a selection of at most a few dozen). */
const MAX_GRAPHS_ASKED = 1_000;

const graphModels: PerAnalyses<GraphModel> = new WeakMap();

/** The graph model of the snapshot with these analyses, kept while they live (the list of 10,000 Services is built once). */
function graphModelOf(s: NodeSnapshot): GraphModel {
  // The cluster check marks the graph: a snapshot with one is another graph than the same dumps without.
  const model = perAnalyses(graphModels, s.cluster ? [...analysesOf(s), s.cluster] : analysesOf(s), () => graphOfSnapshot(s, EAGER_GRAPHS), 4);
  // A copy of the map: the panel adds the graphs it asks for later to the model it got.
  return { ...model, graphs: new Map(model.graphs) };
}

/**
 * What the graph panel's first drawing needs: the model as it is when it lists at most `listUpTo` Services, else only
 * the Services wanted (by key or selector; the first one when none is found) with their graphs, and how many there
 * are: the whole list of 10,000 Services is most of the answer's size and follows the drawing ('graph').
 */
function graphStartOf(s: NodeSnapshot, keys: readonly string[], selector: ServiceSelector | undefined, listUpTo: number): { model: GraphModel; count: number } {
  const model = graphModelOf(s);
  const count = model.services.length;
  if (count <= listUpTo) return { model, count };
  const wanted = new Set(keys);
  const found = selector && findService(model, selector);
  if (found) wanted.add(found);
  let services = model.services.filter((x) => wanted.has(x.key));
  if (services.length === 0) services = model.services.slice(0, 1);
  const graphs = new Map(
    graphsOfSnapshot(
      s,
      services.filter((x) => !model.graphs.has(x.key)).map((x) => x.key),
    ).map((g) => [g.key, g]),
  );
  for (const x of services) if (model.graphs.has(x.key)) graphs.set(x.key, model.graphs.get(x.key)!);
  return { model: { services, graphs, complete: false }, count };
}

const traceFiles = (files: readonly SnapshotFile[]): TraceFile[] => files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));

const listRows: PerAnalyses<ServiceItem[]> = new WeakMap();

/** The rows of List Services, kept while the analyses live (the list is filtered again at each keystroke). */
function serviceItemsOf(s: NodeSnapshot): ServiceItem[] {
  return perAnalyses(listRows, analysesOf(s), () => serviceItems(s.services, snapshotFileLocator(s)), 4);
}

const pickRows: PerAnalyses<Partial<Record<'clusterIP' | 'nodePort', FrontendItem[]>>> = new WeakMap();

/** The rows of the Trace ClusterIP / NodePort pick, kept while the analyses live (10,000 rows of text). */
function frontendItemsOf(s: NodeSnapshot, kind: 'clusterIP' | 'nodePort'): FrontendItem[] {
  const rows = perAnalyses<Partial<Record<'clusterIP' | 'nodePort', FrontendItem[]>>>(pickRows, analysesOf(s), () => ({}), 4);
  return (rows[kind] ??= frontendItems(s.services, kind));
}

/** One step of the preparation after a parse; answering true: it has more to do, run it again (in another task). */
export type PreparationStep = () => unknown;

const snapshots: PerAnalyses<NodeSnapshot> = new WeakMap();

/**
 * The snapshot of these files, built once while their analyses live (its Service list and leftovers read every
 * chain of a large dump: the worker answered each Ctrl+T keystroke with a new one). A copy, with these files: an
 * answer may add to it (the cluster check) or read the files' text.
 */
export function snapshotOf(files: SnapshotFile[]): NodeSnapshot {
  return {
    ...perAnalyses(
      snapshots,
      files.map((f) => f.analysis),
      () => buildSnapshot(files),
      4,
    ),
    files,
  };
}

/** Prepares the symbol index of the snapshot of these files: a step run again until the index is built. */
export const symbolIndexPreparation =
  (files: SnapshotFile[], stepMs = SYMBOL_INDEX_STEP_MS): PreparationStep =>
  () =>
    symbolIndexStep(snapshotOf(files), stepMs);

/**
 * What the first trace (and its pick list), the graph and Ctrl+T of a snapshot need, as steps the analysis worker runs one at a time
 * when nothing else waits, right after a parse: each answers at once afterwards. The snapshot is built by the first
 * step that needs it (not while its files are still being asked about); one without an iptables or nft dump is
 * traced nowhere.
 */
export function preparationSteps(files: SnapshotFile[], symbolStepMs = SYMBOL_INDEX_STEP_MS): PreparationStep[] {
  const snapshot = () => snapshotOf(files);
  const traceable = files.some((f) => f.languageId === 'iptables' || f.languageId === 'nftables');
  // The symbol index first: the cheapest, and Ctrl+T has the shortest target (a second). Each step is a part of
  // a second at most on a 10,000-Service dump: a question waits for one step, not for the whole preparation.
  // scripts/bench.ts (timePreparation) times them by this order: snapshot and index, trace steps, graph model last.
  return [
    () => void snapshot(),
    symbolIndexPreparation(files, symbolStepMs),
    ...(traceable ? [...prepareTraceSteps(traceFiles(files)), () => void frontendItemsOf(snapshot(), 'clusterIP')] : []),
    () => void graphModelOf(snapshot()),
  ];
}

/** Questions about a node snapshot (the document is file 0). */
export const snapshotQueries = {
  files: (s: NodeSnapshot) => s.files.map((f) => ({ name: f.name, languageId: f.languageId })),
  definitions: (s: NodeSnapshot, fileIndex: number, position: Position) => snapshotDefinitions(s, fileIndex, position),
  references: (s: NodeSnapshot, fileIndex: number, position: Position) => snapshotReferences(s, fileIndex, position),
  diagnostics: (s: NodeSnapshot, fileIndex: number) => snapshotDiagnostics(s, fileIndex),
  services: (s: NodeSnapshot) => s.services,
  serviceItems: (s: NodeSnapshot) => serviceItems(s.services, snapshotFileLocator(s)),
  /** The rows of List Services that hold what the user typed so far. */
  serviceRows: (s: NodeSnapshot, filter: string, limit: number) => filterRows(serviceItemsOf(s), filter, limit),
  symbols: (s: NodeSnapshot, query: string, limit?: number) => symbolsOf(s, query, limit),
  /** Reads a snapshot folder no dump of which is open and builds its symbol index, ahead of Ctrl+T. */
  warmSymbols: (s: NodeSnapshot) => void symbolIndexOf(s),
  serviceCount: (s: NodeSnapshot) => s.services.length,
  frontendItems: (s: NodeSnapshot, kind: 'clusterIP' | 'nodePort') => frontendItemsOf(s, kind),
  /** The pick's rows that hold what the user typed so far (the pick asks again at each keystroke). */
  frontendRows: (s: NodeSnapshot, kind: 'clusterIP' | 'nodePort', filter: string, limit: number) => filterRows(frontendItemsOf(s, kind), filter, limit),
  trace: (s: NodeSnapshot, request: TraceRequest): TraceResult => {
    const files = traceFiles(s.files);
    const result = traceSnapshot(files, request);
    return clusterEndpoints(s, { ...result, service: tracedService(files, result) });
  },
  graph: (s: NodeSnapshot) => graphModelOf(s),
  graphStart: (s: NodeSnapshot, keys: string[], selector: ServiceSelector | undefined, listUpTo: number) => graphStartOf(s, keys, selector, listUpTo),
  serviceGraphs: (s: NodeSnapshot, keys: string[]) => graphsOfSnapshot(s, keys.slice(0, MAX_GRAPHS_ASKED)),
  tracedServices: (s: NodeSnapshot, trace: TraceResult, max: number) =>
    snapshotKeysWhere(
      s,
      (g) => traceHighlight([g], trace).nodes.length > 0,
      max,
      (svc) => mayEnter(svc, trace),
    ),
  explain: (s: NodeSnapshot) =>
    explainNode(
      s,
      s.files.map((f) => f.text?.()),
    ),
  clusterDiagnostics: (s: NodeSnapshot) => clusterDiagnostics(s),
  /** Which node the cluster check judged the dumps from (undefined without a cluster state). */
  clusterNode: (s: NodeSnapshot) => (s.cluster ? { ...s.cluster.check.node, known: knownNodeNames(s.cluster.state) } : undefined),
  /** The API side of a Service port in its hover (undefined without a cluster state). */
  clusterHover: (s: NodeSnapshot, service: HoverService) => apiSideMarkdown(s, service),
  /** The same for the IPVS virtual service declared on the position's line (ipvsadm names no Service). */
  clusterHoverAt: (s: NodeSnapshot, fileIndex: number, position: Position) => apiSideAt(s, fileIndex, position),
};

export type SnapshotQueries = typeof snapshotQueries;
export type SnapshotMethod = keyof SnapshotQueries;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SnapshotArgs<M extends SnapshotMethod> = SnapshotQueries[M] extends (s: NodeSnapshot, ...args: infer P) => any ? P : never;
export type SnapshotResult<M extends SnapshotMethod> = ReturnType<SnapshotQueries[M]>;

export function runSnapshotQuery<M extends SnapshotMethod>(snapshot: NodeSnapshot, method: M, args: SnapshotArgs<M>): SnapshotResult<M> {
  if (!Object.hasOwn(snapshotQueries, method)) throw new Error(`unknown snapshot query ${String(method)}`);
  const fn = snapshotQueries[method] as (s: NodeSnapshot, ...rest: unknown[]) => SnapshotResult<M>;
  return fn(snapshot, ...(args as unknown[]));
}
