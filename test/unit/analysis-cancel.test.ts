// A provider whose token fires stops waiting at once, and the worker skips the request if it has not started it:
// an outline or semantic-token request VS Code no longer wants must not hold up the question asked after it.
import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { AnalysisClient, RequestError, type CancelSignal } from '../../src/extension/analysis/client';
import { AnalysisHost } from '../../src/extension/analysis/host';
import type { FromWorker, Request, ToWorker } from '../../src/extension/analysis/protocol';

/** A token the test fires by hand, shaped like VS Code's CancellationToken. */
function tokenSource(): { token: CancelSignal; cancel: () => void } {
  const listeners = new Set<() => unknown>();
  let cancelled = false;
  return {
    token: {
      get isCancellationRequested() {
        return cancelled;
      },
      onCancellationRequested: (listener) => {
        listeners.add(listener);
        return { dispose: () => listeners.delete(listener) };
      },
    },
    cancel: () => {
      cancelled = true;
      for (const l of [...listeners]) l();
    },
  };
}

/** A stand-in worker that records what it was sent and answers only when told to. */
class FakeWorker extends EventEmitter {
  readonly sent: ToWorker[] = [];
  postMessage(message: ToWorker): void {
    this.sent.push(message);
  }
  unref(): void {}
  terminate(): Promise<number> {
    return Promise.resolve(0);
  }
}

const query: Request = { type: 'query', key: 'file:///a.iptables', version: 1, method: 'outline', args: [] };

describe('cancelling a request to the analysis worker', () => {
  it('rejects at once with kind cancelled and tells the worker which request to drop', async () => {
    const worker = new FakeWorker();
    const client = new AnalysisClient(() => worker as unknown as Worker);
    const { token, cancel } = tokenSource();
    const answer = client.request(query, token);
    const id = (worker.sent[0] as { id: number }).id;
    cancel();
    await expect(answer).rejects.toSatisfy((e) => e instanceof RequestError && e.kind === 'cancelled');
    expect(worker.sent[1]).toEqual({ type: 'cancel', id });
    // A late answer for it is ignored; the next request still gets its own.
    worker.emit('message', { id, ok: true, value: 'late' } satisfies FromWorker);
    const next = client.request(query);
    const nextId = (worker.sent[2] as { id: number }).id;
    worker.emit('message', { id: nextId, ok: true, value: 'fresh' } satisfies FromWorker);
    expect(await next).toBe('fresh');
  });

  it('does not send a request whose token has already fired', async () => {
    const worker = new FakeWorker();
    const client = new AnalysisClient(() => worker as unknown as Worker);
    const { token, cancel } = tokenSource();
    cancel();
    await expect(client.request(query, token)).rejects.toSatisfy((e) => e instanceof RequestError && e.kind === 'cancelled');
    expect(worker.sent).toEqual([]);
  });

  it('an answered request leaves no listener on the token', async () => {
    const worker = new FakeWorker();
    const client = new AnalysisClient(() => worker as unknown as Worker);
    const { token, cancel } = tokenSource();
    const answer = client.request(query, token);
    worker.emit('message', { id: (worker.sent[0] as { id: number }).id, ok: true, value: 1 } satisfies FromWorker);
    expect(await answer).toBe(1);
    cancel();
    expect(worker.sent).toHaveLength(1);
  });

  it('the worker drops a queued request that was cancelled and answers the others in order', () => {
    const posted: FromWorker[] = [];
    const tasks: (() => void)[] = [];
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => tasks.push(fn),
      () => [],
    );
    for (const id of [1, 2, 3]) host.receive({ ...query, id });
    host.receive({ type: 'cancel', id: 2 });
    host.receive({ type: 'cancel', id: 99 }); // unknown or already answered: nothing happens
    for (let i = 0; i < 100 && tasks.length > 0; i++) tasks.shift()!();
    expect(posted.map((m) => m.id)).toEqual([1, 3]);
  });
});
