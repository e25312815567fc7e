// The whole pipeline on one input, as the editor, the webviews and the CLI run it: analyze, the document features
// (hover at several positions, definition, references, outline, folding, semantic tokens, status), the node
// snapshot, the graph, Explain This Node and two traces. Every invariant the product promises for hostile input is
// checked here; a violation throws with the input attached, and what other branches are fixing right now is
// counted under its signature instead (KNOWN_FAILURES).
import { explainNode } from '../../src/core/explain/node';
import { toView } from '../../src/core/explain/node-protocol';
import { snapshotDefinitions, snapshotDiagnostics, snapshotReferences } from '../../src/core/crossref';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';
import { toMermaid } from '../../src/core/graph/model';
import { traceHighlight } from '../../src/core/graph/trace';
import type { Position, Range } from '../../src/core/model/range';
import type { Diagnostic } from '../../src/core/model/diagnostics';
import { analyzeFile, buildSnapshot, type NodeSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { assumptionGroups } from '../../src/core/trace/facts';
import { traceSnapshot, type Entry, type Protocol, type SnapshotFile as TraceFile, type TraceResult } from '../../src/core/trace';

export type InputKind = 'iptables' | 'nft-text' | 'nft-json' | 'ipvsadm' | 'ipset';

const LANGUAGE: Record<InputKind, string> = { iptables: 'iptables', 'nft-text': 'nftables', 'nft-json': 'nftables', ipvsadm: 'ipvsadm', ipset: 'ipset' };
const FILE_NAME: Record<InputKind, string> = { iptables: 'node.iptables', 'nft-text': 'node.nft', 'nft-json': 'node.json', ipvsadm: 'node.ipvsadm', ipset: 'node.ipset' };

/**
 * Bugs known and not fixed yet: a failure that matches is counted, not thrown (none now). Remove an entry once
 * its fix lands. nft `define` chains stay shallow and inputs small: the expansion cap and the linear-cost checks
 * of the unit tier cover those.
 */
export const KNOWN_FAILURES: { id: string; test: (message: string, stack: string) => boolean }[] = [];

export interface KindStats {
  inputs: number;
  /** Time in the pipeline, all inputs (the rest of a test's time is fast-check making the inputs). */
  totalMs: number;
  slowestMs: number;
  slowestInput: string;
  known: Map<string, { count: number; example: string }>;
}

export function newStats(): KindStats {
  return { inputs: 0, totalMs: 0, slowestMs: 0, slowestInput: '', known: new Map() };
}

/** Far beyond any input of this size (a few milliseconds): only a hang or an exponential blow-up reaches it. */
export const GROSS_HANG_MS = 5_000;

/**
 * Runs one input through everything, checking the invariants; `salt` picks the positions and the random packet.
 * `companions` are the other dumps of the node (IPVS mode: ipvsadm + ipset + iptables read together).
 */
export function runInput(kind: InputKind, text: string, salt: number, stats: KindStats, companions: SnapshotFile[] = []): void {
  const started = performance.now();
  try {
    pipeline(kind, text, salt, companions);
  } catch (e) {
    const err = e as Error;
    const message = String(err?.message ?? err);
    const known = KNOWN_FAILURES.find((k) => k.test(message, String(err?.stack ?? '')));
    if (!known) throw new Error(`${kind} input (salt ${salt}) ${JSON.stringify(text.slice(0, 2000))}: ${message}\n${err?.stack ?? ''}`);
    const entry = stats.known.get(known.id) ?? { count: 0, example: JSON.stringify(text.slice(0, 300)) };
    entry.count++;
    stats.known.set(known.id, entry);
  }
  const ms = performance.now() - started;
  stats.inputs++;
  stats.totalMs += ms;
  if (ms > stats.slowestMs) {
    stats.slowestMs = ms;
    stats.slowestInput = text;
  }
}

/** One line per dialect: inputs run, the slowest one, and the known failures met. */
export function summary(kind: InputKind, s: KindStats): string {
  const known = [...s.known].map(([id, k]) => `${id}: ${k.count} (e.g. ${k.example.slice(0, 120)})`).join('; ');
  const slowest = s.slowestMs > 1000 ? ` (${JSON.stringify(s.slowestInput.slice(0, 200))})` : '';
  return `perf ${kind}: ${s.inputs} inputs, ${(s.totalMs / 1000).toFixed(1)} s in the pipeline, slowest ${s.slowestMs.toFixed(1)} ms${slowest}${known ? `; known failures: ${known}` : ''}`;
}

function pipeline(kind: InputKind, text: string, salt: number, companions: SnapshotFile[]): void {
  const file = analyzeFile(FILE_NAME[kind], text, LANGUAGE[kind])!;
  const docLines = text.split(/\r\n|\r|\n/);
  const bad: string[] = [];
  for (const d of file.analysis.diagnostics) checkDiagnostic(d, docLines, bad);
  const injected: string[] = [];
  const positions = documentFeatures(file, docLines, salt, bad, injected);
  const files = [file, ...companions];
  const snapshot = buildSnapshot(files);
  for (const d of snapshotDiagnostics(snapshot, 0)) checkDiagnostic(d, docLines, bad);
  for (const p of positions.slice(0, 3)) {
    snapshotDefinitions(snapshot, 0, p);
    snapshotReferences(snapshot, 0, p);
  }
  const graph = graphOfSnapshot(snapshot);
  toMermaid([...graph.graphs.values()].slice(0, 3));
  JSON.stringify(toView(explainNode(snapshot, [text, ...companions.map(() => undefined)])));
  for (const result of traces(snapshot, salt)) {
    checkOutcomes(result, bad);
    traceHighlight([...graph.graphs.values()], result);
  }
  if (bad.length > 0) throw new Error(bad.slice(0, 5).join('\n'));
  // After the rest of the pipeline ran: an injection is a known failure (for now), which must not hide the others.
  if (injected.length > 0) throw new Error(`hover injection: ${injected[0]}`);
}

const BUG_CODES = new Set(['internal-error', 'parser-bug']);

function checkDiagnostic(d: Diagnostic, docLines: string[], bad: string[]): void {
  if (!inside(d.range, docLines)) bad.push(`diagnostic ${d.code} outside the text: ${JSON.stringify(d.range)} (${docLines.length} lines)`);
  if (!d.message) bad.push(`diagnostic ${d.code} without a message`);
  // A reader that threw (parse/pipeline.ts guardedParse: 'parser-bug') or an internal error is a bug, whatever the input.
  if (BUG_CODES.has(d.code)) bad.push(`${d.code}: ${d.message}`);
}

function inside(r: Range, docLines: string[]): boolean {
  const { start, end } = r;
  return (
    start.line >= 0 &&
    end.line < docLines.length &&
    start.character >= 0 &&
    start.character <= docLines[start.line].length &&
    end.character <= docLines[end.line].length &&
    (start.line < end.line || (start.line === end.line && start.character <= end.character))
  );
}

/** Small deterministic generator for positions and packets (the salt comes from fast-check's seeded run). */
function rng(salt: number): () => number {
  let x = salt >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/** The document features at several positions: the first names of the document, fixed and random places. */
function documentFeatures(file: SnapshotFile, docLines: string[], salt: number, bad: string[], injected: string[]): Position[] {
  const { features: f, analysis: a } = file;
  const random = rng(salt);
  const semantic = f.semanticSymbols?.(a) ?? [];
  f.semanticSymbols?.(a, { from: 0, to: Math.min(docLines.length, 5) });
  for (const s of semantic) if (!inside(s.range, docLines)) bad.push(`semantic token outside the text: ${JSON.stringify(s.range)}`);
  const positions: Position[] = [...semantic.slice(0, 4).map((s) => s.range.start), { line: 0, character: 3 }, { line: Math.floor(docLines.length / 2), character: 5 }, { line: docLines.length - 1, character: 1 }];
  for (let i = 0; i < 2; i++) {
    const line = Math.floor(random() * docLines.length);
    positions.push({ line, character: Math.floor(random() * (docLines[line].length + 1)) });
  }
  for (const p of positions) {
    const h = f.hoverAt(a, p);
    if (h) {
      if (!inside(h.range, docLines)) bad.push(`hover range outside the text: ${JSON.stringify(h.range)}`);
      if (!h.markdown) bad.push('empty hover');
      const live = liveInjection(h.markdown);
      if (live) injected.push(`${live} in ${JSON.stringify(h.markdown.slice(0, 400))}`);
      for (const c of h.commands ?? []) if (c !== 'dataplane.tracePacket' && c !== 'dataplane.showGraph') bad.push(`hover enables ${c}`);
    }
    const def = f.definitionAt(a, p);
    if (def && !inside(def.range, docLines)) bad.push(`definition outside the text: ${JSON.stringify(def.range)}`);
    for (const r of f.referencesAt(a, p, true)) if (!inside(r, docLines)) bad.push(`reference outside the text: ${JSON.stringify(r)}`);
  }
  for (const item of f.outline(a)) {
    if (!inside(item.range, docLines)) bad.push(`outline item outside the text: ${JSON.stringify(item.range)}`);
    for (const child of item.children) if (!inside(child.range, docLines)) bad.push(`outline child outside the text: ${JSON.stringify(child.range)}`);
  }
  // A one-line range (start = end) is legal: the editor ignores it.
  for (const fr of f.foldingRanges(a)) if (!(fr.start >= 0 && fr.end >= fr.start && fr.end < docLines.length)) bad.push(`folding range ${JSON.stringify(fr)}`);
  f.statusSummary(a);
  return positions;
}

const PLANTED = 'PWN';

/**
 * What of the planted payloads would be live in rendered Markdown: text outside code spans and escapes that
 * opens an image, an HTML tag or a link whose target is dump text (every planted target contains PLANTED).
 */
export function liveInjection(markdown: string): string | undefined {
  const plain = renderedPlainText(markdown);
  if (/!\[/.test(plain)) return 'image';
  if (/<\/?(?:img|a|script|iframe|b|span|div|style|svg)\b/i.test(plain)) return 'HTML tag';
  if (new RegExp(`\\]\\([^)]*${PLANTED}`).test(plain) || new RegExp(`^\\[[^\\]]*\\]:.*${PLANTED}`, 'm').test(plain)) return 'link to dump text';
  return undefined;
}

/** The Markdown with backslash escapes and code spans taken out (CommonMark: both make their text inert). */
function renderedPlainText(markdown: string): string {
  let out = '';
  for (let i = 0; i < markdown.length;) {
    const c = markdown[i];
    if (c === '\\' && /[!-/:-@[-`{-~]/.test(markdown[i + 1] ?? '')) {
      i += 2;
      continue;
    }
    if (c === '`') {
      let n = 0;
      while (markdown[i + n] === '`') n++;
      const fence = '`'.repeat(n);
      let close = markdown.indexOf(fence, i + n);
      while (close >= 0 && markdown[close + n] === '`') close = markdown.indexOf(fence, close + n + 1);
      if (close >= 0) {
        out += ' ';
        i = close + n;
        continue;
      }
      out += fence;
      i += n;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** A trace to a Service of the catalog (when there is one) and to a random address, port and entry. */
function traces(snapshot: NodeSnapshot, salt: number): TraceResult[] {
  const random = rng(salt ^ 0x5bd1e995);
  const files: TraceFile[] = snapshot.files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));
  const results: TraceResult[] = [];
  const protocols: Protocol[] = ['tcp', 'udp', 'sctp'];
  const entries: Entry[] = ['pod', 'node', 'external'];
  const withAddress = snapshot.services.filter((s) => s.frontends.some((x) => x.address !== undefined && x.kind === 'clusterIP'));
  if (withAddress.length > 0) {
    const s = withAddress[Math.floor(random() * withAddress.length)];
    const fe = s.frontends.find((x) => x.address !== undefined && x.kind === 'clusterIP')!;
    const protocol = s.protocol === 'udp' || s.protocol === 'sctp' ? s.protocol : 'tcp';
    // From a given pod: the search for a pod address that is no endpoint is the random packet's to exercise.
    if (/^[0-9a-f.:]+$/i.test(fe.address!)) results.push(traceSnapshot(files, { to: fe.address!, dport: fe.port, protocol, entry: 'pod', from: fe.address!.includes(':') ? 'fd00:10::7' : '10.244.1.7' }));
  }
  const v6 = random() < 0.2;
  const to = v6 ? `fd00::${Math.floor(random() * 65536).toString(16)}` : [10, Math.floor(random() * 256), Math.floor(random() * 256), Math.floor(random() * 256)].join('.');
  const entry = entries[Math.floor(random() * 3)];
  const from = random() < 0.5 ? undefined : v6 ? 'fd00:10::7' : '10.244.1.7';
  results.push(traceSnapshot(files, { to, dport: 1 + Math.floor(random() * 65535), protocol: protocols[Math.floor(random() * 3)], entry, from, nodeIPs: random() < 0.5 ? [] : [v6 ? 'fd00::a' : '192.168.0.10'] }));
  return results;
}

function checkOutcomes(result: TraceResult, bad: string[]): void {
  for (const o of result.outcomes) {
    if (!(Number.isFinite(o.probability) && o.probability >= 0 && o.probability <= 1 + 1e-9)) bad.push(`outcome probability ${o.probability}`);
  }
  // A share is of new connections under the outcome's conditions: in each situation the outcomes that apply add
  // up to 1. A trace stopped at its cap on branches says so and is short of 1; nothing may ever add up to more.
  const stopped = result.warnings.some((w) => /stopped/.test(w));
  for (const group of assumptionGroups(result.outcomes)) {
    const total = group.reduce((sum, i) => sum + result.outcomes[i].probability, 0);
    if (total > 1 + 1e-9 || (!stopped && total < 1 - 1e-9))
      bad.push(`outcome probabilities add up to ${total} in one situation (${group.length} of ${result.outcomes.length} outcomes; warnings ${JSON.stringify(result.warnings)})`);
  }
}
