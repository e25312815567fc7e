// Messages between the extension host and the analysis worker (like a language server: requests carry an id,
// the answer is plain data). Large documents live in the worker: their text arrives in chunks and then as edits,
// so the extension host never copies a whole large text in one task.
import type { Diagnostic } from '../../core/model/diagnostics';
import type { StatusSummary } from '../../core/language/types';
import type { DocumentMethod, SnapshotMethod } from './queries';

/** A file of a node snapshot, as the worker gets it. */
export type SnapshotFileSpec =
  /** A large open document the worker holds (analysed at its current version). */
  | { kind: 'document'; key: string }
  /** A small open document: its text travels along (the worker keeps its analysis per version). */
  | { kind: 'text'; key: string; version: number; name: string; languageId?: string; text: string; cluster?: boolean }
  /**
   * A file on disk the worker reads itself (skipped when it is no dump or cluster-state file, binary, empty or above
   * maxSize). `cluster`: the user picked it as the cluster state, read as one whatever it looks like.
   */
  | { kind: 'path'; name: string; path: string; maxSize: number; cluster?: boolean };

export interface TextChange {
  offset: number;
  length: number;
  text: string;
}

/** Notifications: no answer. */
export type Notification =
  /** One part of a document's text; `reset` starts a new text, `done` ends it. */
  | { type: 'text'; key: string; version: number; languageId: string; name: string; part: string; reset: boolean; done: boolean }
  /** The document's content changes of one version, applied in order (as VS Code reports them). */
  | { type: 'edit'; key: string; version: number; changes: TextChange[] }
  | { type: 'close'; key: string }
  /** The request `id` is no longer wanted (its provider's token fired): dropped if it has not started. */
  | { type: 'cancel'; id: number };

export type Request =
  | { type: 'analyze'; key: string; version: number }
  | { type: 'query'; key: string; version: number; method: DocumentMethod; args: unknown[] }
  /** `folder`: the snapshot folder's name (it may be the node's, for the cluster check); `node`: the node the user chose. */
  | { type: 'snapshot'; files: SnapshotFileSpec[]; method: SnapshotMethod; args: unknown[]; folder?: string; node?: string }
  | { type: 'analyzeFile'; path: string; name: string; maxSize: number };

export type ToWorker = Notification | (Request & { id: number });

/** What the worker says about a document once it is analysed. */
export interface AnalyzeResult {
  version: number;
  languageId: string;
  /** Characters parsed. */
  size: number;
  summary: StatusSummary;
  diagnostics: Diagnostic[];
  /** Parse + symbols + catalog time in the worker. */
  ms: number;
}

export interface SnapshotAnswer<T = unknown> {
  /** Indices into the request's `files` of the files that are dumps (the snapshot's files, in order). */
  included: number[];
  /** Indices into the request's `files` of the cluster-state files read (the snapshot's `cluster.files`, in order). */
  clusterIncluded?: number[];
  value: T;
}

export type FailureKind =
  /** The document changed since the request was made: drop the answer. */
  | 'stale'
  /** The worker does not have the document's current text: send it again. */
  | 'needs-text'
  /** Anything else (an exception, a file that cannot be read). */
  | 'error';

export type FromWorker =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; kind: FailureKind; message: string }
  /** Unsolicited: the worker started parsing a document version. */
  | { id?: undefined; type: 'parsing'; key: string; version: number; size: number }
  /** Unsolicited, while it parses: the share of the document's text read (1: every line read, the catalog comes next). */
  | { id?: undefined; type: 'progress'; key: string; version: number; share: number }
  /** Unsolicited: a message or an idle step that held the worker for a while (what a question queued behind it waited). */
  | { id?: undefined; type: 'slow'; what: string; waited: number; ms: number };

/**
 * The analysis worker's young generation (MB; V8 splits it into three spaces of a third each). V8 grows it to 48 MB
 * while a large dump is parsed; bounded, the worker's peak memory is 10–15 MB lower at 10,000 Services, for parses
 * a few percent slower (docs/performance.md#memory). `npm run bench` measures with the same bound.
 */
export const WORKER_YOUNG_GENERATION_MB = 24;

/** How the extension starts the analysis worker (beside its file). */
export function workerOptions(data: WorkerData): { workerData: WorkerData; name: string; resourceLimits: { maxYoungGenerationSizeMb: number } } {
  return { workerData: data, name: 'dataplane-analysis', resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } };
}

/** Data the worker starts with. */
export interface WorkerData {
  /** The extension's l10n bundle for the display language (message → translation), if any. */
  l10n?: Record<string, string>;
}
