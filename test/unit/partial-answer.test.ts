// Ctrl+T answers with the snapshot folders that are ready by its deadline and lets the others run on: the merge
// in source order, a failed source as empty, and the count of those still running. The deadline is a promise the
// test resolves (no clock).
import { describe, expect, it } from 'vitest';
import { answerWithin, type Sleep } from '../../src/extension/partialAnswer';

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A deadline the test passes by hand; records the delay asked for. */
function manualDeadline(): { sleep: Sleep; pass: () => void; asked: number[] } {
  const gate = deferred<void>();
  const asked: number[] = [];
  return { sleep: (ms) => (asked.push(ms), gate.promise), pass: () => gate.resolve(), asked };
}

describe('answerWithin', () => {
  it('answers every source in order when all finish before the deadline', async () => {
    const deadline = manualDeadline();
    const [a, b] = [deferred<string[]>(), deferred<string[]>()];
    const answer = answerWithin([a.promise, b.promise], [false, false], 300, [], deadline.sleep);
    b.resolve(['b']);
    a.resolve(['a']);
    expect(await answer).toEqual({ results: [['a'], ['b']], pending: 0 });
    expect(deadline.asked).toEqual([300]);
  });

  it('answers what is ready at the deadline and counts the rest', async () => {
    const deadline = manualDeadline();
    const [a, slow, c] = [deferred<string[]>(), deferred<string[]>(), deferred<string[]>()];
    const answer = answerWithin([a.promise, slow.promise, c.promise], [true, false, true], 300, [], deadline.sleep);
    a.resolve(['a']);
    c.resolve(['c']);
    await Promise.resolve();
    deadline.pass();
    expect(await answer).toEqual({ results: [['a'], ['c']], pending: 1 });
    slow.resolve(['late']); // finishes in the background without throwing
    await slow.promise;
  });

  it('takes a failed source as the fallback, not as a failure of the answer', async () => {
    const deadline = manualDeadline();
    const [a, bad] = [deferred<string[]>(), deferred<string[]>()];
    const answer = answerWithin([a.promise, bad.promise], [false, true], 300, [], deadline.sleep);
    bad.reject(new Error('worker restarted'));
    a.resolve(['a']);
    expect(await answer).toEqual({ results: [['a'], []], pending: 0 });
  });

  it('waits past the deadline for the required sources (the open dumps), not for the others', async () => {
    const deadline = manualDeadline();
    const [open, folder] = [deferred<string[]>(), deferred<string[]>()];
    let answered = false;
    const answer = answerWithin([open.promise, folder.promise], [true, false], 300, [], deadline.sleep).then((a) => ((answered = true), a));
    deadline.pass();
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    open.resolve(['open']);
    expect(await answer).toEqual({ results: [['open']], pending: 1 });
  });

  it('answers nothing ready with every source pending', async () => {
    const deadline = manualDeadline();
    const answer = answerWithin([deferred<string[]>().promise], [false], 300, [], deadline.sleep);
    deadline.pass();
    expect(await answer).toEqual({ results: [], pending: 1 });
  });
});
