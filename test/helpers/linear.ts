// Complexity checks, not speed targets (those are the benchmark's): 8× the input must cost far less than the
// 64× a quadratic parser would show. Cost is CPU time: wall time on a busy machine (test files run side by side on
// two cores) charges the longer run for every time slice given to others. The cheapest of several runs is what
// the rest of the disturbance (caches, GC timing) touches least, and the small input must take long enough (tens
// of milliseconds) for timer noise not to decide.
import { readFileSync } from 'node:fs';
import { it } from 'vitest';

/**
 * A check of cost or memory (linear cost, heap kept, allocation sites): it runs in the perf tier (`npm run
 * test:perf`, which includes the files that use it), not in `npm test`, whose config sets DATAPLANE_TEST_TIER=unit.
 */
export const perfIt = it.runIf(process.env.DATAPLANE_TEST_TIER !== 'unit');

/**
 * CPU time of this thread where Linux tells it, else of the process, in milliseconds. The process's also counts
 * V8's background compiler and GC helper threads, whose work lands in whatever timing runs then: it made one
 * small input's time vary fourfold.
 */
function cpuMs(): number {
  if (threadClock) {
    try {
      return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
    } catch {
      threadClock = false;
    }
  }
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
let threadClock = process.platform === 'linux';

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

/** Times the small input is parsed in one timing: alone it takes a few milliseconds, and one GC in it doubled its time. */
const SMALL_REPEATS = 8;

/**
 * The CPU time of one `parse(text)`, timed over enough calls to take `MIN_TIMED_MS` together: the thread clock
 * advances by scheduler ticks, so a call cheaper than a tick can read as 0 ms (and a ratio as Infinity).
 */
function perCallCpuMs(parse: (text: string) => unknown, text: string, repeats: number): number {
  for (;;) {
    const ms = cheapestCpuMs(() => {
      for (let k = 0; k < repeats; k++) parse(text);
    });
    if (ms >= MIN_TIMED_MS || repeats >= MAX_REPEATS) return ms / repeats;
    repeats *= ms > 0 ? Math.min(8, Math.ceil(MIN_TIMED_MS / ms)) : 8;
  }
}
const MIN_TIMED_MS = 20;
const MAX_REPEATS = 1 << 16;

/** How much more CPU time `parse(large)` takes than `parse(small)`, after a warm-up of both. */
export function costRatio(parse: (text: string) => unknown, small: string, large: string): number {
  parse(small);
  parse(large);
  const smallMs = perCallCpuMs(parse, small, SMALL_REPEATS);
  return perCallCpuMs(parse, large, 1) / smallMs;
}

/**
 * The most an 8× larger input may cost, as a factor: half the 64× of a quadratic parser. Linear parsing measures
 * 8–21× here; the upper end where the smaller model still fits in V8's young generation and the larger one is
 * copied out of it.
 */
export const MAX_COST_RATIO_8X = 32;
