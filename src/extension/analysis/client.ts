// The extension host's side of the analysis worker: starts it on first use, numbers requests, matches answers,
// sends large texts in parts between which the event loop runs, and restarts the worker after a crash.
// No `vscode` import: unit tests drive it with a real worker_threads Worker.
import type { Worker } from 'node:worker_threads';
import type { FailureKind, FromWorker, Notification, Request } from './protocol';

export class RequestError extends Error {
  constructor(
    /**
     * `crashed`: the worker died (out of memory, a bug); `restarted`: it was stopped on purpose (to drop a parse
     * nobody waits for any more). Either way everything it held is gone. `cancelled`: the asker's token fired.
     */
    readonly kind: FailureKind | 'crashed' | 'restarted' | 'cancelled',
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** What the client needs of a cancellation token (VS Code's CancellationToken has this shape). */
export interface CancelSignal {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

/** Lets other tasks run (input, rendering messages, other extensions) between two parts of a long job. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class AnalysisClient {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Increments whenever a new worker starts: documents sent to an older one must be sent again. */
  generation = 0;

  constructor(
    private readonly start: () => Worker,
    private readonly events: {
      onParsing?: (key: string, version: number, size: number) => void;
      onSlow?: (what: string, waited: number, ms: number) => void;
      onProgress?: (key: string, version: number, share: number) => void;
      onCrash?: (error: Error) => void;
    } = {},
  ) {}

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = this.start();
    this.generation++;
    this.worker = worker;
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const pending = [...this.pending.values()];
      this.pending.clear();
      for (const p of pending) p.reject(new RequestError('crashed', error.message));
      this.events.onCrash?.(error);
    };
    worker.on('message', (message: FromWorker) => {
      if (message.id === undefined) {
        if (message.type === 'parsing') this.events.onParsing?.(message.key, message.version, message.size);
        else if (message.type === 'progress') this.events.onProgress?.(message.key, message.version, message.share);
        else if (message.type === 'slow') this.events.onSlow?.(message.what, message.waited, message.ms);
        return;
      }
      const p = this.pending.get(message.id);
      if (!p) return;
      this.pending.delete(message.id);
      if (message.ok) p.resolve(message.value);
      else p.reject(new RequestError(message.kind, message.message));
    });
    worker.on('error', (e) => fail(e));
    worker.on('exit', (code) => fail(new Error(`the analysis worker exited with code ${code}`)));
    // The worker must not keep the extension host (or a test) alive.
    worker.unref();
    return worker;
  }

  notify(message: Notification): void {
    this.ensure().postMessage(message);
  }

  /**
   * Sends a request; when `token` fires before the answer, the promise rejects with kind `cancelled` at once and
   * the worker drops the request if it has not started it (a provider VS Code no longer needs, e.g. the outline
   * of a document the user scrolled away from, must not delay the next question).
   */
  request<T>(request: Request, token?: CancelSignal): Promise<T> {
    if (token?.isCancellationRequested) return Promise.reject(new RequestError('cancelled', 'the request was cancelled'));
    const worker = this.ensure();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const listener = token?.onCancellationRequested(() => {
        if (!this.pending.delete(id)) return;
        if (this.worker === worker) worker.postMessage({ type: 'cancel', id } satisfies Notification);
        reject(new RequestError('cancelled', 'the request was cancelled'));
      });
      const settle =
        <V>(done: (v: V) => void) =>
        (v: V) => {
          listener?.dispose();
          done(v);
        };
      this.pending.set(id, { resolve: settle(resolve as (v: unknown) => void), reject: settle(reject) });
      worker.postMessage({ ...request, id });
    });
  }

  /**
   * Sends a document's text in parts of `linesPerPart` lines (`part(start, end)` returns lines [start, end) with
   * their line breaks), yielding to the event loop between parts. Returns false when `isCurrent` turned false
   * (the document changed: the caller sends the new version instead).
   */
  async sendText(
    doc: { key: string; version: number; languageId: string; name: string; lineCount: number },
    part: (startLine: number, endLine: number) => string,
    isCurrent: () => boolean,
    linesPerPart = 4000,
  ): Promise<boolean> {
    let generation = -1;
    for (let start = 0, first = true; first || start < doc.lineCount; start += linesPerPart, first = false) {
      if (!isCurrent()) return false;
      // A worker that crashed in between lost the first parts.
      if (!first && (this.worker === undefined || this.generation !== generation)) return false;
      const end = Math.min(doc.lineCount, start + linesPerPart);
      const done = end >= doc.lineCount;
      this.notify({ type: 'text', key: doc.key, version: doc.version, languageId: doc.languageId, name: doc.name, part: part(start, end), reset: first, done });
      if (first) generation = this.generation;
      if (done) return true;
      await yieldToEventLoop();
    }
    return true;
  }

  /** Stops the worker now (a parse cannot be interrupted otherwise); the next message starts a new one. */
  restart(): void {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new RequestError('restarted', 'the analysis worker was restarted'));
    void worker.terminate();
  }

  dispose(): void {
    const worker = this.worker;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(new RequestError('crashed', 'the analysis worker was stopped'));
    this.pending.clear();
    void worker?.terminate();
  }
}
