// The analysis worker's state: the texts and analyses of large documents, the dumps beside them, and the
// answers to the extension host's requests. No `vscode` and no `worker_threads` here: the worker entry wires
// `receive` and `post` to its port, tests call them directly.
import { plainData } from './plain';
import { readFileSync, statSync } from 'node:fs';
import { featuresFor, type AnyFeatures, type DumpAnalysis } from '../../core/language';
import { analyzeFile, type SnapshotFile } from '../../core/snapshot';
import { buildSnapshotWithCluster, readClusterInput, type ClusterInput } from '../../core/cluster/snapshot';
import type { AnalyzeResult, FailureKind, FromWorker, Request, SnapshotAnswer, SnapshotFileSpec, ToWorker } from './protocol';
import { preparationSteps, runDocumentQuery, runSnapshotQuery, snapshotOf, symbolIndexPreparation, type PreparationStep } from './queries';
import { prepareTraceSteps, type SnapshotFile as TraceFile } from '../../core/trace';
import { cachedFor, perAnalyses, type PerAnalyses } from '../../core/model/perAnalyses';
import { withProgress, type ProgressListener } from '../../core/progress';

interface Held {
  languageId: string;
  name: string;
  version: number;
  /** Parts of a text still arriving (between `reset` and `done`). */
  parts?: string[];
  text?: string;
  /** The analysis of `text` at `version`, when done. */
  analysis?: DumpAnalysis;
  features?: AnyFeatures;
  /** The version whose preparation was started (see prepareWhenIdle). */
  prepared?: number;
}

/**
 * Idle work after an analysis, as steps the worker runs one per task once nothing is queued (so that a question or
 * an edit never waits for more than one step): of a document just analysed, its first trace (the file alone); of a
 * node snapshot just asked about (the diagnostics across its files follow every parse), its first trace, its graph
 * model and its symbol index. A 10,000-Service dump needs a second or more for these, which the first trace, graph
 * or Ctrl+T would otherwise wait for.
 */
export type Prepare = (files: SnapshotFile[], scope: 'document' | 'snapshot') => PreparationStep[];

export const prepareSteps: Prepare = (files, scope) => {
  if (scope === 'snapshot') return preparationSteps(files);
  // One ipset or ipvsadm dump alone is traced nowhere: an IPVS node is traced through its snapshot. An iptables or
  // nft dump is mostly the only one of its folder: Ctrl+T asks the snapshot of it alone, often right after the
  // parse and before the editor asked about the folder (which starts the snapshot's preparation).
  const a = files[0].analysis;
  return a.dialect === 'iptables' || a.dialect === 'nftables' ? [symbolIndexPreparation(files), ...prepareTraceSteps(files as unknown as TraceFile[])] : [];
};

const POINT_QUERIES = new Set<string>(['hoverAt', 'definitionAt', 'referencesAt']);
/**
 * Snapshot questions the editor asks on its own (after each parse, or to read the workspace's other snapshot folders
 * ahead of Ctrl+T); the others wait for a user (Ctrl+T, graph, trace).
 */
const BACKGROUND_SNAPSHOT_QUERIES = new Set<string>(['diagnostics', 'clusterDiagnostics', 'warmSymbols']);

/** A message or idle step that holds the worker this long (ms) is reported (see timed). */
const SLOW_MS = 300;

/** The least time between two progress messages of one parse (ms). */
export const PROGRESS_INTERVAL = 250;

class Failure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** Applies one version's content changes, in order, to a text. */
export function applyChanges(text: string, changes: readonly { offset: number; length: number; text: string }[]): string {
  for (const c of changes) {
    if (c.offset < 0 || c.offset + c.length > text.length) throw new Failure('needs-text', `edit ${c.offset}+${c.length} outside a text of ${text.length} characters`);
    text = text.slice(0, c.offset) + c.text + text.slice(c.offset + c.length);
  }
  return text;
}

export class AnalysisHost {
  private readonly held = new Map<string, Held>();
  /** Small open documents sent along with snapshot requests, per key (one version each). */
  private readonly texts = new Map<string, { version: number; picked: boolean; file: SnapshotFile | undefined; cluster?: ClusterInput }>();
  /** Files on disk, per path, while their size and modification time stay the same. */
  private readonly onDisk = new Map<string, { mtimeMs: number; size: number; picked: boolean; file: SnapshotFile | undefined; cluster?: ClusterInput }>();
  private readonly queue: ToWorker[] = [];
  /** When each queued message arrived (performance.now()). */
  private readonly arrived = new WeakMap<ToWorker, number>();
  private draining = false;
  /** The snapshots (lists of analyses) whose preparation was started. */
  private readonly preparedSnapshots: PerAnalyses<true> = new WeakMap();

  constructor(
    private readonly post: (message: FromWorker) => void,
    private readonly schedule: (fn: () => void) => void = (fn) => setImmediate(fn),
    private readonly prepare: Prepare = prepareSteps,
  ) {}

  /** Prepares the first trace of a version just analysed; dropped when the document changes or closes meanwhile. */
  private prepareWhenIdle(key: string, version: number): void {
    const held = this.held.get(key);
    if (!held?.analysis || held.prepared === version || !held.features) return;
    held.prepared = version;
    const analysis = held.analysis;
    const file: SnapshotFile = { name: held.name, languageId: held.languageId, features: held.features, analysis };
    this.inTurn(this.prepare([file], 'document'), () => this.held.get(key)?.analysis === analysis);
  }

  /**
   * Prepares a node snapshot's first trace, graph and symbol index, once per list of analyses; dropped as soon as
   * one of its files changes (`current` turns false).
   */
  private prepareSnapshotWhenIdle(files: SnapshotFile[], current: () => boolean): void {
    const analyses = files.map((f) => f.analysis);
    if (cachedFor(this.preparedSnapshots, analyses)) return;
    perAnalyses(this.preparedSnapshots, analyses, () => true, 4);
    this.inTurn(this.prepare(files, 'snapshot'), current);
  }

  /**
   * Runs the steps in turn, each once no message waits, while `wanted` holds; a step that says it has more to do
   * runs again in a later task (after the messages that came meanwhile).
   */
  private inTurn(steps: PreparationStep[], wanted: () => boolean, step = 1): void {
    if (steps.length === 0) return;
    this.whenIdle(wanted, () => {
      let again = false;
      try {
        this.timed(`idle preparation step ${step}`, undefined, () => (again = steps[0]() === true));
      } catch {
        // Only a head start: a question asked later reports its own problems.
      }
      if (again) this.inTurn(steps, wanted, step);
      else this.inTurn(steps.slice(1), wanted, step + 1);
    });
  }

  /** Runs `work`; tells the extension host when it held the worker SLOW_MS or more (what waited behind it). */
  private timed(what: string, arrived: number | undefined, work: () => void): void {
    const started = performance.now();
    try {
      work();
    } finally {
      const ms = performance.now() - started;
      if (ms >= SLOW_MS) this.post({ type: 'slow', what, waited: Math.round(arrived === undefined ? 0 : started - arrived), ms: Math.round(ms) });
    }
  }

  /** Runs `work` once no message waits (retried while some do), if it is still `wanted` then. */
  private whenIdle(wanted: () => boolean, work: () => void, tries = 0): void {
    this.schedule(() => {
      if (!wanted()) return;
      if (this.queue.length > 0) {
        if (tries < 10_000) this.whenIdle(wanted, work, tries + 1);
        return;
      }
      work();
    });
  }

  /** Queues a message; the queue is drained one message per task, so later edits can make an analysis stale. */
  receive(message: ToWorker): void {
    if (message.type === 'cancel') {
      // The asker has stopped waiting (it got its rejection already): a request not yet started is dropped.
      const i = this.queue.findIndex((m) => m.type !== 'cancel' && 'id' in m && m.id === message.id);
      if (i >= 0) this.queue.splice(i, 1);
      return;
    }
    this.arrived.set(message, performance.now());
    this.queue.push(message);
    if (!this.draining) {
      this.draining = true;
      this.schedule(() => this.drain());
    }
  }

  private drain(): void {
    const message = this.queue.splice(this.nextIndex(), 1)[0];
    if (message) this.timed(`${message.type}${'method' in message ? ` ${message.method}` : ''}`, this.arrived.get(message), () => this.handle(message));
    if (this.queue.length > 0) this.schedule(() => this.drain());
    else this.draining = false;
  }

  /**
   * The message to handle next: the first one, except that a question at the cursor (hover, F12, references)
   * goes before whole-document questions (outline, semantic tokens: seconds on a 49 MB dump) unless a text or
   * edit of its document is queued before it; and a snapshot question a user waits for (Ctrl+T, the graph, a
   * trace) goes before the whole-document questions queued ahead of it (never before a text, an edit or a parse).
   */
  private nextIndex(): number {
    const changed = new Set<string>();
    for (let i = 0; i < this.queue.length; i++) {
      const m = this.queue[i];
      if (m.type === 'text' || m.type === 'edit' || m.type === 'close') changed.add(m.key);
      else if (m.type === 'query' && POINT_QUERIES.has(m.method) && !changed.has(m.key)) return i;
    }
    for (let i = 0; i < this.queue.length; i++) {
      const m = this.queue[i];
      const background = m.type === 'query' || (m.type === 'snapshot' && BACKGROUND_SNAPSHOT_QUERIES.has(m.method));
      if (m.type === 'snapshot' && !background) return i;
      if (!background) break;
    }
    return 0;
  }

  /** True when a later message in the queue changes or closes the document. */
  private supersededInQueue(key: string): boolean {
    return this.queue.some((m) => (m.type === 'text' || m.type === 'edit' || m.type === 'close') && m.key === key);
  }

  private handle(message: ToWorker): void {
    switch (message.type) {
      case 'text': {
        let h = this.held.get(message.key);
        if (!message.reset && !h) return; // a part for a worker that did not get the first one
        if (message.reset || !h) {
          h = { languageId: message.languageId, name: message.name, version: message.version, parts: [] };
          this.held.set(message.key, h);
        }
        if (!h.parts || h.version !== message.version) {
          // A part of a text that was restarted: ignore it, the restart comes with reset.
          return;
        }
        h.parts.push(message.part);
        if (message.done) {
          h.text = h.parts.join('');
          h.parts = undefined;
        }
        return;
      }
      case 'edit': {
        const h = this.held.get(message.key);
        if (!h) return;
        h.analysis = undefined; // the old version's analysis is useless now; let it be collected before the re-parse
        h.features = undefined;
        if (h.text === undefined || message.version <= h.version) {
          h.text = undefined;
          h.version = message.version;
          return;
        }
        try {
          h.text = applyChanges(h.text, message.changes);
        } catch {
          h.text = undefined; // answered with needs-text: the extension host sends the whole text again
        }
        h.version = message.version;
        return;
      }
      case 'close':
        this.held.delete(message.key);
        this.texts.delete(message.key);
        return;
      case 'cancel':
        return; // handled on arrival (receive)
      default:
        this.answer(message);
    }
  }

  private answer(request: Request & { id: number }): void {
    let value: unknown;
    try {
      value = this.run(request);
    } catch (e) {
      const kind = e instanceof Failure ? e.kind : 'error';
      const error = e as Error;
      this.post({ id: request.id, ok: false, kind, message: kind === 'error' ? (error.stack ?? error.message) : error.message });
      return;
    }
    // Plain data: what the models' getters answer does not survive a structured clone otherwise.
    this.post({ id: request.id, ok: true, value: plainData(value) });
  }

  private current(key: string, version: number): Held & { text: string } {
    const h = this.held.get(key);
    if (!h) throw new Failure('needs-text', `${key} is not open in the worker`);
    if (h.version > version) throw new Failure('stale', `${key} is at version ${h.version}, not ${version}`);
    if (h.version < version || h.text === undefined) throw new Failure('needs-text', `${key}: the worker has version ${h.version}${h.text === undefined ? ' without its text' : ''}, not ${version}`);
    return h as Held & { text: string };
  }

  private analyzed(key: string, version: number): Held & { analysis: DumpAnalysis; features: AnyFeatures } {
    const h = this.current(key, version);
    if (!h.analysis || !h.features) {
      if (this.supersededInQueue(key)) throw new Failure('stale', `${key} v${version} changed before it was analysed`);
      const features = featuresFor(h.languageId);
      if (!features) throw new Failure('error', `no analyser for language ${h.languageId}`);
      this.post({ type: 'parsing', key, version, size: h.text.length });
      h.features = features;
      const text = h.text;
      h.analysis = withProgress(this.progressReporter(key, version), () => features.analyze(text));
    }
    return h as Held & { analysis: DumpAnalysis; features: AnyFeatures };
  }

  /**
   * Tells the extension host how far the parse of a document version has come: at most every PROGRESS_INTERVAL ms,
   * and once every line is read (the catalog follows).
   */
  private progressReporter(key: string, version: number): ProgressListener {
    let last = performance.now();
    let done = false;
    return (share) => {
      const now = performance.now();
      if (done || (share < 1 && now - last < PROGRESS_INTERVAL)) return;
      last = now;
      done = share >= 1;
      this.post({ type: 'progress', key, version, share });
    };
  }

  private run(request: Request): unknown {
    switch (request.type) {
      case 'analyze': {
        const started = performance.now();
        const h = this.analyzed(request.key, request.version);
        const result: AnalyzeResult = {
          version: h.version,
          languageId: h.languageId,
          size: h.text?.length ?? 0,
          summary: h.features.statusSummary(h.analysis),
          diagnostics: h.analysis.diagnostics,
          ms: Math.round(performance.now() - started),
        };
        this.prepareWhenIdle(request.key, request.version);
        return result;
      }
      case 'query': {
        const h = this.analyzed(request.key, request.version);
        return runDocumentQuery(h.features, h.analysis, request.method, request.args as never);
      }
      case 'snapshot': {
        const included: number[] = [];
        const clusterIncluded: number[] = [];
        const files: SnapshotFile[] = [];
        const current: (() => boolean)[] = [];
        const clusters: ClusterInput[] = [];
        request.files.forEach((spec, index) => {
          const { file, cluster } = this.snapshotFile(spec);
          if (file) {
            included.push(index);
            files.push(file);
            current.push(this.stillCurrent(spec, file.analysis));
          } else if (cluster) {
            clusterIncluded.push(index);
            clusters.push(cluster);
          }
        });
        const snapshot = buildSnapshotWithCluster(files, clusters, request.folder, request.node, snapshotOf);
        const answer: SnapshotAnswer = { included, clusterIncluded, value: runSnapshotQuery(snapshot, request.method, request.args as never) };
        if (files.length > 0) this.prepareSnapshotWhenIdle(files, () => current.every((c) => c()));
        return answer;
      }
      case 'analyzeFile': {
        const file = this.fromDisk(request.path, request.name, request.maxSize).file;
        if (!file) return undefined;
        return { languageId: file.languageId, summary: file.features.statusSummary(file.analysis), services: file.features.services(file.analysis).length };
      }
    }
  }

  /** Whether the file a spec names still has this analysis (no edit, new text or change on disk since). */
  private stillCurrent(spec: SnapshotFileSpec, analysis: DumpAnalysis): () => boolean {
    switch (spec.kind) {
      case 'document':
        return () => this.held.get(spec.key)?.analysis === analysis;
      case 'text':
        return () => this.texts.get(spec.key)?.file?.analysis === analysis;
      case 'path':
        return () => this.onDisk.get(spec.path)?.file?.analysis === analysis;
    }
  }

  /** A file of the snapshot: a dump, or a cluster-state file (kept per version, read once). */
  private snapshotFile(spec: SnapshotFileSpec): { file?: SnapshotFile; cluster?: ClusterInput } {
    switch (spec.kind) {
      case 'document': {
        const h = this.held.get(spec.key);
        if (!h) throw new Failure('needs-text', `${spec.key} is not open in the worker`);
        const a = this.analyzed(spec.key, h.version);
        return { file: { name: a.name, languageId: a.languageId, features: a.features, analysis: a.analysis, text: () => a.text } };
      }
      case 'text': {
        const picked = spec.cluster === true;
        const cached = this.texts.get(spec.key);
        if (cached && cached.version === spec.version && cached.picked === picked) return cached;
        const text = spec.text;
        const analysed = picked ? undefined : analyzeFile(spec.name, text, spec.languageId);
        const file = analysed && { ...analysed, text: () => text };
        const entry = { version: spec.version, picked, file, cluster: file ? undefined : readClusterInput(spec.name, text, picked) };
        this.texts.set(spec.key, entry);
        return entry;
      }
      case 'path':
        return this.fromDisk(spec.path, spec.name, spec.maxSize, spec.cluster === true);
    }
  }

  private fromDisk(path: string, name: string, maxSize: number, picked = false): { file?: SnapshotFile; cluster?: ClusterInput } {
    const stat = statSync(path);
    if (!stat.isFile() || stat.size === 0 || stat.size > maxSize) return {};
    const cached = this.onDisk.get(path);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size && cached.picked === picked) return cached;
    const bytes = readFileSync(path);
    // Sniff before decoding everything: binary files are skipped cheaply (a picked one says why it is unread).
    const binary = bytes.subarray(0, 4096).includes(0);
    const text = binary && !picked ? undefined : new TextDecoder().decode(bytes);
    const analysed = text === undefined || picked ? undefined : analyzeFile(name, text);
    // The text is read again when quoted, not kept: most snapshots are never explained.
    const file = analysed && { ...analysed, text: () => quotable(path) };
    const cluster = file || text === undefined ? undefined : readClusterInput(name, text, picked);
    const entry = { mtimeMs: stat.mtimeMs, size: stat.size, picked, file, cluster };
    this.onDisk.set(path, entry);
    return entry;
  }
}

/** Files larger than this are explained without quoting their lines (the model's copy is quoted instead). */
const MAX_QUOTED_BYTES = 32 * 1024 * 1024;

function quotable(path: string): string | undefined {
  try {
    return statSync(path).size <= MAX_QUOTED_BYTES ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
