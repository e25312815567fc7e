// An answer gathered from several sources that does not wait past a deadline for the slow ones: what is ready is
// answered, the rest keeps running (its result is cached where it runs, so the next question includes it).

/** Resolves after `ms`; injected so that tests decide when the deadline passes. */
export type Sleep = (ms: number) => Promise<void>;

export const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PartialAnswer<T> {
  /** The results of the sources that answered in time, in the sources' order. */
  results: T[];
  /** How many sources were still running at the deadline. */
  pending: number;
}

/**
 * Waits for the `required` sources, and for the others until every source answered or `deadlineMs` passed,
 * whichever comes first; a source that failed counts as an empty answer (`fallback`).
 */
export async function answerWithin<T>(sources: readonly Promise<T>[], required: readonly boolean[], deadlineMs: number, fallback: T, wait: Sleep = sleep): Promise<PartialAnswer<T>> {
  const done: (T | undefined)[] = sources.map(() => undefined);
  const settled = sources.map(() => false);
  const tracked = sources.map((p, i) =>
    p.then(
      (value) => {
        done[i] = value;
        settled[i] = true;
      },
      () => {
        done[i] = fallback;
        settled[i] = true;
      },
    ),
  );
  await Promise.all([Promise.race([Promise.all(tracked), wait(deadlineMs)]), ...tracked.filter((_, i) => required[i])]);
  const results = done.filter((_, i) => settled[i]) as T[];
  return { results, pending: settled.filter((s) => !s).length };
}
