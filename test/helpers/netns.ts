// Throw-away network namespaces for tests that let the real tools judge a dump (root only; never the root namespace).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Root, with `nft` and `ip` installed. */
export const haveNetnsTools = (() => {
  try {
    execFileSync('nft', ['--version'], { stdio: 'ignore' });
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
})();

/** Runs `fn` with a fresh namespace and a scratch folder, both removed afterwards. */
export function inThrowawayNetns<T>(prefix: string, fn: (ns: string, work: string) => T): T {
  const work = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  const ns = `${prefix}-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
  try {
    execFileSync('ip', ['netns', 'add', ns]);
    return fn(ns, work);
  } finally {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // not created
    }
    rmSync(work, { recursive: true, force: true });
  }
}

/** `nft ARGS` inside the namespace; its output. */
export const nftIn = (ns: string, args: string[]): string => execFileSync('ip', ['netns', 'exec', ns, 'nft', ...args], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
