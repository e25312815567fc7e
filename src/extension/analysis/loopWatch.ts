// Watches this thread's event loop while the analysis worker works, to log what the editor felt: the longest
// task (event loop active time between two ticks of a 10 ms timer, so time the OS gave to other processes while
// the loop was idle does not count) and the longest delay of the timer (which does).
import { performance } from 'node:perf_hooks';
import type { HostProfiler } from './hostProfile';

export interface LoopReport {
  /** The longest stretch of work on this thread, ms. */
  longestTask: number;
  /** When it ended, ms after the watch began. */
  longestTaskAt: number;
  /** The longest lateness of a 10 ms timer, ms (includes waiting for a CPU). */
  longestDelay: number;
  /** How long the watch ran, ms. */
  watched: number;
}

export class LoopWatch {
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopTimer: ReturnType<typeof setTimeout> | undefined;
  private users = 0;
  private started = 0;
  private last = 0;
  private lastElu = performance.eventLoopUtilization();
  private longestTask = 0;
  private longestTaskAt = 0;
  private longestDelay = 0;

  constructor(
    private readonly report: (r: LoopReport) => void,
    /** Keeps watching this long after the last user is done (answers are converted after the parse). */
    private readonly linger = 5000,
    /** Profiles each watch when asked for (hostProfile.ts): whose code the long tasks were. */
    private readonly profiler?: HostProfiler,
  ) {}

  begin(): void {
    clearTimeout(this.stopTimer);
    this.stopTimer = undefined;
    this.users++;
    if (this.timer) return;
    this.started = this.last = performance.now();
    this.lastElu = performance.eventLoopUtilization();
    this.longestTask = this.longestDelay = this.longestTaskAt = 0;
    this.profiler?.start();
    this.timer = setInterval(() => {
      const now = performance.now();
      const elu = performance.eventLoopUtilization();
      const active = elu.active - this.lastElu.active;
      if (active > this.longestTask) {
        this.longestTask = active;
        this.longestTaskAt = now - this.started;
      }
      this.longestDelay = Math.max(this.longestDelay, now - this.last - 10);
      this.last = now;
      this.lastElu = elu;
    }, 10);
    this.timer.unref?.();
  }

  end(): void {
    if (--this.users > 0 || !this.timer) return;
    this.stopTimer = setTimeout(() => this.stop(), this.linger);
    this.stopTimer.unref?.();
  }

  private stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.profiler?.stop();
    this.report({
      longestTask: Math.round(this.longestTask),
      longestTaskAt: Math.round(this.longestTaskAt),
      longestDelay: Math.round(Math.max(0, this.longestDelay)),
      watched: Math.round(performance.now() - this.started),
    });
  }

  dispose(): void {
    clearTimeout(this.stopTimer);
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
