// Workspace symbols of a node snapshot: its Services (`namespace/name:port/protocol`), their ClusterIPs and
// NodePorts, and every chain, set and map of its dumps, each with the file and line that defines it. With 10,000
// Services the snapshot has a hundred thousand names, and Ctrl+T asks again at each keystroke: a query searches
// all the names joined into one string (a native substring search, a few milliseconds), which costs nothing to
// build, where a trigram index of them took a second.
import { plainLabel } from './explain/label';
import { serviceLabel, type Service } from './kube/service';
import type { Range } from './model/range';
import type { NodeSnapshot } from './snapshot';
import { snapshotFileLocator } from './graph/snapshot';
import { formatHostPort } from './model/address';
import { copyRange } from './model/compact/ranges';

export type SymbolKind = 'service' | 'clusterIP' | 'nodePort' | 'frontend' | 'chain' | 'set' | 'map';

export interface WorkspaceSymbolMatch {
  name: string;
  kind: SymbolKind;
  /** What it belongs to: the Service of a frontend, the table of a chain. */
  container: string;
  fileIndex: number;
  range: Range;
}

export interface SymbolIndex {
  entries: WorkspaceSymbolMatch[];
  /** Lower-cased names, parallel to entries. */
  keys: string[];
  /** The keys joined by SEPARATOR, and where each starts in it. */
  text: string;
  starts: number[];
}

/** Between two keys of the joined text: no name has one (a dump is read line by line). */
const SEPARATOR = '\n';

/** Results one query returns at most (the editor shows a screenful; the rest is noise at that point). */
export const MAX_SYMBOL_RESULTS = 500;

const KIND_ORDER: Record<SymbolKind, number> = { service: 0, clusterIP: 1, nodePort: 2, frontend: 3, chain: 4, map: 5, set: 6 };

function serviceEntries(s: Service, fileOf: (s: Service, tableId?: string) => number, out: WorkspaceSymbolMatch[]): void {
  const target = s.objects.find((o) => o.role === 'service-chain' || o.role === 'service-local-chain' || o.role === 'virtual-service') ?? s.objects[0];
  if (!target) return;
  // A Service known by address alone (IPVS without names) has one per protocol: the name says which.
  const label = plainLabel(s.anonymous ? `${serviceLabel(s)}/${s.protocol}` : serviceLabel(s));
  const fileIndex = fileOf(s, target.tableId);
  out.push({ name: label, kind: 'service', container: '', fileIndex, range: plainRange(target.range) });
  for (const f of s.frontends) {
    const kind: SymbolKind = f.kind === 'clusterIP' ? 'clusterIP' : f.kind === 'nodePort' ? 'nodePort' : 'frontend';
    const name = f.address && f.kind !== 'nodePort' ? formatHostPort(f.address, f.port) : `:${f.port}`;
    // A frontend without its own line (an ipvsadm virtual service is one line for both) goes to the Service's.
    out.push({ name: plainLabel(`${name}/${s.protocol}`), kind, container: label, fileIndex: f.range ? fileOf(s) : fileIndex, range: plainRange(f.range ?? target.range) });
  }
}

/** Every symbol of the snapshot, indexed, at once (symbolIndexSteps builds it in parts). */
export function buildSymbolIndex(snapshot: NodeSnapshot): SymbolIndex {
  const steps = symbolIndexSteps(snapshot);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Adds the snapshot's symbols to `out`, yielding after each Service and each chain, set or map. */
function* addEntries(snapshot: NodeSnapshot, out: WorkspaceSymbolMatch[]): Generator<void> {
  const fileOf = snapshotFileLocator(snapshot);
  for (const s of snapshot.services) {
    serviceEntries(s, fileOf, out);
    yield;
  }
  // The outline's chains, sets and maps, without the labels the outline spends most of its time on.
  for (const [fileIndex, f] of snapshot.files.entries()) {
    for (const o of f.features.namedObjects?.(f.analysis) ?? []) {
      out.push({ name: plainLabel(o.name), kind: o.kind, container: o.container && plainLabel(o.container), fileIndex, range: plainRange(o.selectionRange) });
      yield;
    }
  }
}

/** The range as plain data: itself when it is (the models make a new plain one per read), else a copy. */
function plainRange(r: Range): Range {
  const plain = (o: object) => Object.getPrototypeOf(o) === Object.prototype;
  return plain(r) && plain(r.start) && plain(r.end) ? r : copyRange(r);
}

/** How long one part of symbolIndexSteps runs at most before it pauses (ms). */
export const SYMBOL_INDEX_STEP_MS = 50;

/**
 * Builds the symbol index in parts: it pauses (yields) after the entry that took a part past `budgetMs` (0: after
 * each entry). The index of a 10,000-Service snapshot takes most of a second, and the analysis
 * worker runs its preparation one part per idle task so that a question never waits for more than a part
 * (docs/performance.md#preparation). The entries are plain data, so that an answer crosses to the extension host as it
 * is.
 */
export function* symbolIndexSteps(snapshot: NodeSnapshot, budgetMs = SYMBOL_INDEX_STEP_MS): Generator<void, SymbolIndex> {
  const entries: WorkspaceSymbolMatch[] = [];
  // Keys and their places as the entries come, so that the last part only joins them.
  const keys: string[] = [];
  const starts: number[] = [];
  let at = 0;
  let since = performance.now();
  for (const _ of addEntries(snapshot, entries)) {
    for (let i = keys.length; i < entries.length; i++) {
      const key = entries[i].name.toLowerCase();
      keys.push(key);
      starts.push(at);
      at += key.length + SEPARATOR.length;
    }
    if (performance.now() - since < budgetMs) continue;
    yield;
    since = performance.now();
  }
  return { entries, keys, text: keys.join(SEPARATOR), starts };
}

/** The entries whose key contains `query`, in order: each found once, however often it holds the query. */
function* containing(index: SymbolIndex, query: string): Generator<number> {
  if (query.includes(SEPARATOR)) return;
  const { text, starts } = index;
  for (let at = text.indexOf(query); at >= 0;) {
    // The key the match is in: the last one starting at or before it.
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    yield lo;
    if (lo + 1 >= starts.length) return;
    at = text.indexOf(query, starts[lo + 1]);
  }
}

function rank(key: string, query: string): number {
  if (key === query) return 0;
  if (key.startsWith(query)) return 1;
  // A word start (after `/`, `:` or `-`) before any other place in the name.
  const at = key.indexOf(query);
  return /[/:.\-_ ]/.test(key[at - 1] ?? '') ? 2 : 3;
}

/**
 * The symbols whose name contains `query` (case-insensitive), at most `limit`: exact names first, then names
 * starting with it, then at a word start, Services before their frontends before chains, shorter names first.
 */
export function querySymbols(index: SymbolIndex, query: string, limit = MAX_SYMBOL_RESULTS): WorkspaceSymbolMatch[] {
  const q = query.trim().toLowerCase();
  if (q === '') return index.entries.slice(0, limit);
  const found: { i: number; rank: number }[] = [];
  for (const i of containing(index, q)) found.push({ i, rank: rank(index.keys[i], q) });
  const order = (a: { i: number; rank: number }, b: { i: number; rank: number }) => {
    const x = index.entries[a.i];
    const y = index.entries[b.i];
    return a.rank - b.rank || KIND_ORDER[x.kind] - KIND_ORDER[y.kind] || x.name.length - y.name.length || a.i - b.i;
  };
  return found
    .sort(order)
    .slice(0, limit)
    .map(({ i }) => index.entries[i]);
}
