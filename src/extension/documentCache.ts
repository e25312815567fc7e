// Analyses each dump document once per version and shares the result with every provider (DESIGN §6).
// Small documents are parsed right here, synchronously, as before. Documents above dataplane.workerThreshold live
// in the analysis worker (dist/worker.js): their text goes over in parts, then edit by edit; a re-parse starts
// dataplane.reanalyzeDelay ms after the last edit; providers ask the worker by message and drop answers for old
// versions. Either way a provider sees one interface, DocumentAnalysis.
import * as vscode from 'vscode';
import type { Worker } from 'node:worker_threads';
import type { AnyFeatures, DumpAnalysis } from '../core/language';
import type { StatusSummary } from '../core/language/types';
import type { Diagnostic } from '../core/model/diagnostics';
import { AnalysisClient, RequestError, type CancelSignal } from './analysis/client';
import { LoopWatch } from './analysis/loopWatch';
import { hostProfilerFromEnv } from './analysis/hostProfile';
import { workerOptions, type AnalyzeResult, type WorkerData } from './analysis/protocol';
import type { DocumentArgs, DocumentMethod, DocumentResult } from './analysis/queries';
import { DUMP_LANGUAGE_IDS, isDumpLanguage } from './dumpLanguages';
import { core } from './loadCore';
import type { Log } from './log';
import { readSettings } from './settings';

export const IPTABLES_LANGUAGE = 'iptables';
export const DUMP_SELECTOR: vscode.DocumentSelector = DUMP_LANGUAGE_IDS.map((language) => ({ language }));

/** One version of one document, analysed: where it lives does not matter to the providers. */
export interface DocumentAnalysis {
  readonly languageId: string;
  readonly version: number;
  readonly where: 'extension-host' | 'worker';
  readonly summary: StatusSummary;
  readonly diagnostics: readonly Diagnostic[];
  /** Parse time in ms. */
  readonly ms: number;
  /** The analysis itself, for documents analysed on the extension host (the snapshot code reads it). */
  readonly local?: { features: AnyFeatures; analysis: DumpAnalysis };
  /** Asks a question about this version; undefined when the document changed meanwhile. */
  query<M extends DocumentMethod>(method: M, ...args: DocumentArgs<M>): Promise<DocumentResult<M> | undefined>;
  /** As query, for a provider VS Code may cancel: then undefined at once, and the worker skips it if not started. */
  queryWith<M extends DocumentMethod>(token: CancelSignal | undefined, method: M, ...args: DocumentArgs<M>): Promise<DocumentResult<M> | undefined>;
}

/** What the language status item shows. */
export type AnalysisState =
  | { kind: 'none' }
  | { kind: 'too-large'; size: number }
  /** `share`: how much of the text the worker has read (1: all of it, the catalog is being built), when it said. */
  | { kind: 'parsing'; size: number; since: number; share?: number }
  | { kind: 'done'; analysis: DocumentAnalysis }
  | { kind: 'failed'; message: string };

interface Entry {
  version: number;
  languageId: string;
  promise: Promise<DocumentAnalysis | undefined>;
  state: AnalysisState;
  resolve?: (value: DocumentAnalysis | undefined) => void;
  /** The worker analysis of this version has been started. */
  started?: boolean;
}

/** A document that lives in the worker. */
interface Remote {
  /** Version whose text (or edits up to which) the worker has, in worker generation `generation`. */
  synced?: number;
  generation: number;
  sending?: Promise<boolean>;
  timer?: ReturnType<typeof setTimeout>;
  /** The version a worker crash failed on: not retried until the document changes. */
  crashedAt?: number;
}

function localAnalysis(features: AnyFeatures, analysis: DumpAnalysis, version: number, ms: number): DocumentAnalysis {
  return {
    languageId: features.languageId,
    version,
    where: 'extension-host',
    summary: features.statusSummary(analysis),
    diagnostics: analysis.diagnostics,
    ms,
    local: { features, analysis },
    query: (method, ...args) => Promise.resolve(core().runDocumentQuery(features, analysis, method, args)),
    queryWith: (token, method, ...args) => Promise.resolve(token?.isCancellationRequested ? undefined : core().runDocumentQuery(features, analysis, method, args)),
  };
}

export class DocumentCache implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly remote = new Map<string, Remote>();
  private readonly sizes = new Map<string, { version: number; size: number }>();
  private readonly analyzed = new vscode.EventEmitter<vscode.TextDocument>();
  private readonly stateChanged = new vscode.EventEmitter<vscode.TextDocument>();
  /** Fires after a document was (re)analysed. */
  readonly onDidAnalyze = this.analyzed.event;
  /** Fires when a document's AnalysisState changes (parsing started, done, failed). */
  readonly onDidChangeState = this.stateChanged.event;
  private readonly client: AnalysisClient;
  /** The document version the worker is parsing now (from its `parsing` notice until the answer). */
  private parsingNow: { key: string; version: number } | undefined;
  /** The extension host's event loop while the worker parses (logged: the editor must not stall). */
  private readonly loop = new LoopWatch(
    (r) =>
      this.log.info(
        `extension host while the worker worked (${(r.watched / 1000).toFixed(1)} s): longest task ${r.longestTask} ms (ended ${(r.longestTaskAt / 1000).toFixed(1)} s in), longest timer delay ${r.longestDelay} ms`,
      ),
    undefined,
    hostProfilerFromEnv((message) => this.log.info(message)),
  );
  private readonly disposables: vscode.Disposable[] = [this.analyzed, this.stateChanged];

  constructor(
    private readonly log: Log,
    extensionUri: vscode.Uri,
  ) {
    const workerFile = vscode.Uri.joinPath(extensionUri, 'dist', 'worker.js').fsPath;
    this.client = new AnalysisClient(
      () => {
        const data: WorkerData = { l10n: vscode.l10n.bundle };
        this.log.info(`starting the analysis worker ${workerFile}`);
        // Loaded when the first large dump needs it, not at activation (docs/performance.md#budgets: loading worker_threads costs ms).
        const threads = require('node:worker_threads') as { Worker: typeof Worker };
        return new threads.Worker(workerFile, workerOptions(data));
      },
      {
        onParsing: (key, version, size) => {
          this.parsingNow = { key, version };
          this.log.info(`worker: parsing ${key} v${version} (${size} characters)`);
        },
        onProgress: (key, version, share) => this.progress(key, version, share),
        onSlow: (what, waited, ms) => this.log.info(`worker: ${what} ran ${ms} ms (queued ${waited} ms)`),
        onCrash: (error) => this.log.error(`the analysis worker stopped: ${error.message}`),
      },
    );
    this.disposables.push(
      { dispose: () => this.client.dispose() },
      this.loop,
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri.toString())),
      vscode.workspace.onDidChangeTextDocument((e) => this.changed(e)),
    );
  }

  /** The document's length in characters (without copying its text). */
  size(document: vscode.TextDocument): number {
    const key = document.uri.toString();
    const known = this.sizes.get(key);
    if (known && known.version === document.version) return known.size;
    const size = document.offsetAt(new vscode.Position(document.lineCount, 0));
    this.sizes.set(key, { version: document.version, size });
    return size;
  }

  isTooLarge(document: vscode.TextDocument): boolean {
    return this.size(document) > readSettings().maxDocumentSize;
  }

  /** True when the document is (to be) analysed in the worker. */
  inWorker(document: vscode.TextDocument): boolean {
    return isDumpLanguage(document.languageId) && !this.isTooLarge(document) && this.size(document) > readSettings().workerThreshold;
  }

  state(document: vscode.TextDocument): AnalysisState {
    const entry = this.entries.get(document.uri.toString());
    if (entry && entry.version === document.version && entry.languageId === document.languageId) return entry.state;
    if (!isDumpLanguage(document.languageId)) return { kind: 'none' };
    if (this.isTooLarge(document)) return { kind: 'too-large', size: this.size(document) };
    return { kind: 'parsing', size: this.size(document), since: Date.now() };
  }

  /** The analysis of the document's current version (undefined for other languages, oversized or failed documents). */
  get(document: vscode.TextDocument): Promise<DocumentAnalysis | undefined> {
    if (!isDumpLanguage(document.languageId)) return Promise.resolve(undefined);
    const key = document.uri.toString();
    const cached = this.entries.get(key);
    if (cached && cached.version === document.version && cached.languageId === document.languageId) return cached.promise;
    if (cached?.resolve) cached.resolve(undefined); // an older version nobody needs any more
    if (this.isTooLarge(document)) {
      this.log.warn(`${document.uri.fsPath}: ${this.size(document)} characters is above dataplane.maxDocumentSize; not analysed`);
      this.dropRemote(key);
      return this.settle(document, { version: document.version, languageId: document.languageId, promise: Promise.resolve(undefined), state: { kind: 'too-large', size: this.size(document) } });
    }
    if (!this.inWorker(document)) {
      this.dropRemote(key);
      // The parsers (dist/core.js) are needed here only: documents analysed in the worker do without them.
      const features = core().featuresFor(document.languageId)!;
      const started = performance.now();
      const analysis = features.analyze(document.getText());
      const result = localAnalysis(features, analysis, document.version, Math.round(performance.now() - started));
      this.logAnalysis(document, result);
      const entry: Entry = { version: document.version, languageId: document.languageId, promise: Promise.resolve(result), state: { kind: 'done', analysis: result } };
      this.settle(document, entry);
      this.analyzed.fire(document);
      return entry.promise;
    }
    let resolve!: (value: DocumentAnalysis | undefined) => void;
    const promise = new Promise<DocumentAnalysis | undefined>((r) => (resolve = r));
    const entry: Entry = { version: document.version, languageId: document.languageId, promise, resolve, state: { kind: 'parsing', size: this.size(document), since: Date.now() } };
    this.settle(document, entry);
    const remote = this.remote.get(key);
    // While typing goes on, the debounce timer starts the analysis; otherwise start it now.
    if (!remote?.timer) void this.analyzeInWorker(document, entry);
    return promise;
  }

  private startPending(document: vscode.TextDocument): void {
    const entry = this.entries.get(document.uri.toString());
    if (entry && entry.version === document.version && entry.languageId === document.languageId) {
      if (!entry.started && entry.resolve) void this.analyzeInWorker(document, entry);
    } else {
      void this.get(document);
    }
  }

  private settle(document: vscode.TextDocument, entry: Entry): Promise<DocumentAnalysis | undefined> {
    this.entries.set(document.uri.toString(), entry);
    this.stateChanged.fire(document);
    return entry.promise;
  }

  private finish(document: vscode.TextDocument, entry: Entry, result: DocumentAnalysis | undefined, state: AnalysisState): void {
    entry.resolve?.(result);
    entry.resolve = undefined;
    if (this.entries.get(document.uri.toString()) !== entry) return;
    entry.state = state;
    this.stateChanged.fire(document);
    if (result) this.analyzed.fire(document);
  }

  private async analyzeInWorker(document: vscode.TextDocument, entry: Entry): Promise<void> {
    const key = document.uri.toString();
    const version = entry.version;
    const current = () => !document.isClosed && document.version === version && this.entries.get(key) === entry;
    entry.started = true;
    let remote = this.remote.get(key);
    if (!remote) {
      remote = { generation: -1 };
      this.remote.set(key, remote);
    }
    if (remote.crashedAt === version) {
      this.finish(document, entry, undefined, {
        kind: 'failed',
        message: vscode.l10n.t('The analysis worker stopped while parsing this document (out of memory?). Edit the document to try again, or use the dataplane command line.'),
      });
      return;
    }
    this.loop.begin();
    try {
      await this.analyzeInWorkerOnce(document, entry, remote, current);
    } finally {
      this.loop.end();
    }
  }

  private async analyzeInWorkerOnce(document: vscode.TextDocument, entry: Entry, remote: Remote, current: () => boolean): Promise<void> {
    const key = document.uri.toString();
    const version = entry.version;
    try {
      for (let attempt = 0; ; attempt++) {
        if (!(await this.sync(document, remote, current))) return; // a newer version took over
        try {
          const result = await this.client.request<AnalyzeResult>({ type: 'analyze', key, version }).finally(() => {
            if (this.parsingNow?.key === key && this.parsingNow.version === version) this.parsingNow = undefined;
          });
          const analysis = this.remoteAnalysis(document, result);
          this.logAnalysis(document, analysis);
          this.finish(document, entry, analysis, { kind: 'done', analysis });
          return;
        } catch (e) {
          if (e instanceof RequestError && e.kind === 'needs-text' && attempt === 0) {
            remote.synced = undefined;
            continue;
          }
          throw e;
        }
      }
    } catch (e) {
      const error = e as RequestError;
      if (error.kind === 'stale' || error.kind === 'restarted') {
        this.finish(document, entry, undefined, entry.state);
        return;
      }
      if (error.kind === 'crashed') remote.crashedAt = version;
      remote.synced = undefined;
      this.log.error(`${document.uri.fsPath} v${version}: analysis failed in the worker: ${error.message}`);
      this.finish(document, entry, undefined, {
        kind: 'failed',
        message:
          error.kind === 'crashed'
            ? vscode.l10n.t('The analysis worker stopped while parsing this document (out of memory?). Edit the document to try again, or use the dataplane command line.')
            : vscode.l10n.t('Analysis failed: {0}', error.message.split('\n')[0]),
      });
    }
  }

  /** Makes sure the worker has the document's current text; false when the document changed meanwhile. */
  private async sync(document: vscode.TextDocument, remote: Remote, current: () => boolean): Promise<boolean> {
    for (;;) {
      if (remote.sending) {
        await remote.sending;
        continue;
      }
      if (!current()) return false;
      if (remote.synced === document.version && remote.generation === this.client.generation) return true;
      const version = document.version;
      const started = performance.now();
      remote.sending = this.client.sendText(
        { key: document.uri.toString(), version, languageId: document.languageId, name: document.uri.fsPath, lineCount: document.lineCount },
        (start, end) => document.getText(new vscode.Range(start, 0, end, 0)),
        () => !document.isClosed && document.version === version,
      );
      const sent = await remote.sending;
      remote.sending = undefined;
      if (sent) {
        remote.synced = version;
        remote.generation = this.client.generation;
        this.log.info(`${document.uri.fsPath} v${version}: text sent to the analysis worker in ${Math.round(performance.now() - started)} ms`);
      }
    }
  }

  /** The worker read `share` of a document version's text: the language status item shows it. */
  private progress(key: string, version: number, share: number): void {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version || entry.state.kind !== 'parsing') return;
    entry.state = { ...entry.state, share };
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (document) this.stateChanged.fire(document);
  }

  private changed(e: vscode.TextDocumentChangeEvent): void {
    const document = e.document;
    const key = document.uri.toString();
    const remote = this.remote.get(key);
    if (!remote) return;
    if (e.contentChanges.length === 0) return;
    if (!this.inWorker(document)) {
      this.dropRemote(key);
      return;
    }
    if (remote.synced !== undefined && remote.generation === this.client.generation && !remote.sending) {
      this.client.notify({ type: 'edit', key, version: document.version, changes: e.contentChanges.map((c) => ({ offset: c.rangeOffset, length: c.rangeLength, text: c.text })) });
      remote.synced = document.version;
    }
    remote.crashedAt = undefined;
    // A parse of an older version of the only document in the worker would run on for nothing (tens of seconds
    // for 49 MB): stop the worker; the new version goes to a fresh one after the debounce.
    if (this.parsingNow?.key === key && this.parsingNow.version < document.version && [...this.remote.keys()].every((k) => k === key)) {
      this.log.info(`${document.uri.fsPath}: edited while v${this.parsingNow.version} was parsed; restarting the analysis worker`);
      this.parsingNow = undefined;
      this.client.restart();
      remote.synced = undefined;
    }
    clearTimeout(remote.timer);
    const entry = this.entries.get(key);
    if (entry && entry.version !== document.version) {
      // Show "parsing" at once; answers for the old version are dropped.
      entry.resolve?.(undefined);
      entry.resolve = undefined;
    }
    remote.timer = setTimeout(() => {
      remote.timer = undefined;
      if (!document.isClosed) this.startPending(document);
    }, readSettings().reanalyzeDelay);
  }

  private remoteAnalysis(document: vscode.TextDocument, result: AnalyzeResult): DocumentAnalysis {
    const key = document.uri.toString();
    const ask = async <M extends DocumentMethod>(token: CancelSignal | undefined, method: M, ...args: DocumentArgs<M>): Promise<DocumentResult<M> | undefined> => {
      if (document.isClosed || document.version !== result.version) return undefined;
      try {
        const value = await this.client.request<DocumentResult<M>>({ type: 'query', key, version: result.version, method, args }, token);
        // An answer for a version the editor has left is dropped here, before a provider converts it.
        return document.isClosed || document.version !== result.version ? undefined : value;
      } catch (e) {
        if (e instanceof RequestError && e.kind !== 'error') return undefined;
        throw e;
      }
    };
    return {
      languageId: result.languageId,
      version: result.version,
      where: 'worker',
      summary: result.summary,
      diagnostics: result.diagnostics,
      ms: result.ms,
      query: (method, ...args) => ask(undefined, method, ...args),
      queryWith: (token, method, ...args) => ask(token, method, ...args),
    };
  }

  /** Runs `work` (a request to the worker) with the extension host's event loop watched and logged, as parses are. */
  async whileWorkerWorks<T>(work: () => Promise<T>): Promise<T> {
    this.loop.begin();
    try {
      return await work();
    } finally {
      this.loop.end();
    }
  }

  /** Asks the worker for a snapshot answer (see Snapshots); exposed so that the snapshot code shares the client. */
  get worker(): AnalysisClient {
    return this.client;
  }

  private logAnalysis(document: vscode.TextDocument, a: DocumentAnalysis): void {
    const s = a.summary;
    this.log.info(
      `${document.uri.fsPath} v${a.version} (${a.languageId}, ${a.where}): ${s.tables} tables, ${s.chains} chains, ${s.rules} rules, ${s.services} services, ${a.diagnostics.length} diagnostics in ${a.ms} ms`,
    );
  }

  private dropRemote(key: string): void {
    const remote = this.remote.get(key);
    if (!remote) return;
    clearTimeout(remote.timer);
    this.remote.delete(key);
    if (remote.synced !== undefined) this.client.notify({ type: 'close', key });
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    entry?.resolve?.(undefined);
    this.entries.delete(key);
    this.sizes.delete(key);
    this.dropRemote(key);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const r of this.remote.values()) clearTimeout(r.timer);
    this.entries.clear();
    this.remote.clear();
  }
}
