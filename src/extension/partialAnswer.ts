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
 * Waits for every source or for `deadlineMs`, whichever comes first (or until `cancelled` says so when the deadline
 * passes); a source that failed counts as an empty answer (`fallback`).
 */
export async function answerWithin<T>(sources: readonly Promise<T>[], deadlineMs: number, fallback: T, wait: Sleep = sleep): Promise<PartialAnswer<T>> {
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
  await Promise.race([Promise.all(tracked), wait(deadlineMs)]);
  const results = done.filter((_, i) => settled[i]) as T[];
  return { results, pending: settled.filter((s) => !s).length };
}
