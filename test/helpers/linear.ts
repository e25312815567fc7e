// Complexity checks, not speed targets (those are the benchmark's): 8× the input must cost far less than the
// 64× a quadratic parser would show. Cost is CPU time: wall time on a busy machine (test files run side by side on
// two cores) charges the longer run for every time slice given to others. The cheapest of several runs is what
// the rest of the disturbance (caches, GC timing) touches least, and the small input must take long enough (tens
// of milliseconds) for timer noise not to decide.

/** CPU time of this process (all its threads, GC helpers included), in milliseconds. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The cheapest of `runs` CPU timings of fn(), in milliseconds. */
export function cheapestCpuMs(fn: () => unknown, runs = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = cpuMs();
    fn();
    best = Math.min(best, cpuMs() - start);
  }
  return best;
}

/** How much more CPU time `parse(large)` takes than `parse(small)`, after a warm-up of both. */
export function costRatio(parse: (text: string) => unknown, small: string, large: string): number {
  parse(small);
  parse(large);
  return cheapestCpuMs(() => parse(large)) / cheapestCpuMs(() => parse(small));
}

/**
 * The most an 8× larger input may cost, as a factor: half the 64× of a quadratic parser. Linear parsing measures
 * 8–21× here; the upper end where the smaller model still fits in V8's young generation and the larger one is
 * copied out of it.
 */
export const MAX_COST_RATIO_8X = 32;
