// Reads the extension host's CPU profiles that the extension writes while its worker works (run.mjs sets
// DATAPLANE_HOST_PROFILE; src/extension/analysis/hostProfile.ts writes them). The loop watch in the log measures the
// whole host thread, VS Code's own work included (its port finder and file search spawn processes, which takes a
// few hundred ms on a loaded machine); a profile tells which of that time was this extension's code.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** This extension's bundles, wherever the test installed them. */
const OURS = /\/dataplane-explorer\.dataplane-explorer-[^/]+\/dist\//;

/** The profile files written so far, oldest first. */
export function hostProfiles(workspace) {
  const dir = path.join(workspace, '..', 'host-profiles');
  if (!existsSync(dir)) return [];
  const number = (f) => Number(/host-(\d+)\.cpuprofile$/.exec(f)?.[1] ?? NaN);
  return readdirSync(dir)
    .filter((f) => Number.isFinite(number(f)))
    .sort((a, b) => number(a) - number(b))
    .map((f) => path.join(dir, f));
}

/** A sample stands for at most this much time (ms): on a loaded machine the sampler itself waits for a CPU, and a
 * gap between two samples is time the thread was not running, not work of the code on the stack. */
const SAMPLE_CAP_MS = 4;

/**
 * The longest stretch of consecutive samples in which this extension's code was on the stack (garbage collection
 * inside such a stretch counts to it), and the longest busy stretch of any code, each with the functions it spent
 * most time in. A stretch's time is the sum of its samples' intervals, each capped at SAMPLE_CAP_MS.
 */
export function hostBlocks(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = (id) => {
    const frames = [];
    for (let at = id; at !== undefined; at = parent.get(at)) frames.push(nodes.get(at).callFrame);
    return frames;
  };
  const ours = { ms: 0, frames: [] };
  const any = { ms: 0, frames: [] };
  let run = null;
  let busy = null;
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = Math.min(profile.timeDeltas[i] / 1000, SAMPLE_CAP_MS);
    const frames = stackOf(profile.samples[i]);
    const top = frames[0].functionName;
    const idle = top === '(idle)' || top === '(program)';
    const mine = frames.some((f) => OURS.test(f.url));
    busy = idle ? null : extend(busy, ms, frames, any);
    run = mine || (run && top === '(garbage collector)') ? extend(run, ms, frames, ours) : null;
  }
  return { ours: summary(ours), any: summary(any) };
}

/** Adds a sample to a stretch (a new one when there is none) and keeps the longest stretch's frames in `best`. */
function extend(stretch, ms, frames, best) {
  const s = stretch ?? { ms: 0, samples: [] };
  s.ms += ms;
  s.samples.push(frames);
  if (s.ms > best.ms) {
    best.ms = s.ms;
    best.frames = s.samples;
  }
  return s;
}

/** Milliseconds and the five functions (with their file) found most often on the stretch's stacks. */
function summary({ ms, frames }) {
  const counts = new Map();
  for (const stack of frames) {
    const seen = new Set();
    for (const f of stack) {
      const key = `${f.functionName || '(anonymous)'} (${f.url.split('/').pop() || 'native'})`;
      if (f.functionName === '(root)' || seen.has(key)) continue;
      seen.add(key);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const where = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return { ms: Math.round(ms), where: where.map(([k, n]) => `${k} ×${n}`).join(', ') };
}
