// Complexity checks, not speed targets (those are the benchmark's): 8× the input must cost far less than the
// 64× a quadratic parser would show. The fastest of several runs is what a busy machine disturbs least, and
// the small input must take long enough (tens of milliseconds) for timer and scheduling noise not to decide.

/** The fastest of `runs` timings of fn(), in milliseconds. */
export function fastestMs(fn: () => unknown, runs = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** How much longer `parse(large)` takes than `parse(small)`, after a warm-up of both. */
export function costRatio(parse: (text: string) => unknown, small: string, large: string): number {
  parse(small);
  parse(large);
  return fastestMs(() => parse(large)) / fastestMs(() => parse(small));
}
