// A CPU profile of the extension host thread while the analysis worker works, written only when the environment
// names a folder (DATAPLANE_HOST_PROFILE). The loop watch says how long the host was busy; the profile says whose
// code it was: VS Code's own (port detection, file search, message compression) or this extension's. The e2e
// suite reads these profiles (docs/performance.md#worker).
import { writeFileSync } from 'node:fs';
import type { Session } from 'node:inspector';
import { join } from 'node:path';

/** Profiles the thread between start and stop; each stop writes host-<n>.cpuprofile into the folder. */
export interface HostProfiler {
  start(): void;
  stop(): void;
}

/** The profiler for `process.env.DATAPLANE_HOST_PROFILE`, or undefined when it is not set. */
export function hostProfilerFromEnv(log: (message: string) => void): HostProfiler | undefined {
  const folder = process.env.DATAPLANE_HOST_PROFILE;
  return folder ? new InspectorProfiler(folder, log) : undefined;
}

/** Sampling interval, µs: fine enough to see a 100 ms task as a hundred samples. */
const SAMPLING_INTERVAL_US = 1000;

class InspectorProfiler implements HostProfiler {
  private session: Session | undefined;
  private written = 0;

  constructor(
    private readonly folder: string,
    private readonly log: (message: string) => void,
  ) {}

  start(): void {
    // Loaded only here: nobody pays for the inspector unless they asked for profiles.
    const inspector = require('node:inspector') as typeof import('node:inspector');
    if (!this.session) {
      this.session = new inspector.Session();
      this.session.connect();
    }
    const session = this.session;
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US }, () => session.post('Profiler.start')));
  }

  stop(): void {
    this.session?.post('Profiler.stop', (error, result) => {
      if (error || !result) return this.log(`host profile not taken: ${error?.message ?? 'no profile'}`);
      const file = join(this.folder, `host-${++this.written}.cpuprofile`);
      try {
        writeFileSync(file, JSON.stringify(result.profile));
        this.log(`host profile written: ${file}`);
      } catch (e) {
        this.log(`host profile not written to ${file}: ${(e as Error).message}`);
      }
    });
  }
}
