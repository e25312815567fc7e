// Running commands and processes for the kernel tests: every call bounded in time, every process we start
// tracked by its pid so that it can be ended (by that pid only) when the test is over.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs cmd with args (no shell), feeding input on stdin; rejects on timeout or, unless allowFail, on a non-zero exit. */
export function run(cmd: string, args: string[], opts: { input?: string; timeoutMs?: number; allowFail?: boolean } = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return reject(new Error(`${cmd} ${args.join(' ')}: timed out after ${timeoutMs} ms\n${stderr}`));
      if (code !== 0 && !opts.allowFail) return reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}\n${stderr.trim()}`));
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/** The synchronous variant, for probing the machine while vitest collects the tests. */
export function runSync(cmd: string, args: string[], input = '', timeoutMs = 15_000): RunResult {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', timeout: timeoutMs });
  return { code: r.error ? -1 : r.status, stdout: r.stdout ?? '', stderr: r.error ? r.error.message : (r.stderr ?? '') };
}

/** A long-running process (a listener, a client) that prints "ready" once it is serving. */
export interface Daemon {
  child: ChildProcess;
  pid: number;
  stderr: () => string;
  /** Sends one line on stdin and resolves with the next line the daemon prints (requests are answered in order). */
  request: (line: string, timeoutMs: number) => Promise<string>;
}

const daemons = new Set<Daemon>();

export function startDaemon(cmd: string, args: string[], readyTimeoutMs = 15_000): Promise<Daemon> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let ready = false;
    const waiters: { resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
    const daemon: Daemon = {
      child,
      pid: child.pid ?? -1,
      stderr: () => err,
      request: (line, timeoutMs) =>
        new Promise<string>((res, rej) => {
          const timer = setTimeout(() => {
            stopDaemon(daemon);
            rej(new Error(`${args.join(' ')}: no answer within ${timeoutMs} ms\n${err}`));
          }, timeoutMs);
          waiters.push({
            resolve: (l) => {
              clearTimeout(timer);
              res(l);
            },
            reject: (e) => {
              clearTimeout(timer);
              rej(e);
            },
          });
          child.stdin!.write(line.endsWith('\n') ? line : line + '\n');
        }),
    };
    if (child.pid) daemons.add(daemon);
    const timer = setTimeout(() => {
      stopDaemon(daemon);
      reject(new Error(`${args.join(' ')}: not ready after ${readyTimeoutMs} ms\n${err}`));
    }, readyTimeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (!ready) {
          if (line === 'ready') {
            ready = true;
            clearTimeout(timer);
            resolve(daemon);
          }
        } else {
          waiters.shift()?.resolve(line);
        }
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdin!.on('error', () => {});
    child.on('error', (e) => {
      clearTimeout(timer);
      daemons.delete(daemon);
      reject(e);
    });
    child.on('exit', (code) => {
      daemons.delete(daemon);
      clearTimeout(timer);
      const e = new Error(`${args.join(' ')}: exited (${code})\n${err}`);
      for (const w of waiters.splice(0)) w.reject(e);
      reject(e); // no effect once ready
    });
  });
}

/** Ends one daemon we started, by its pid. */
export function stopDaemon(d: Daemon): void {
  daemons.delete(d);
  if (d.child.exitCode !== null || d.child.signalCode !== null) return;
  try {
    d.child.stdin?.end();
    process.kill(d.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function stopAllDaemons(): void {
  for (const d of [...daemons]) stopDaemon(d);
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
