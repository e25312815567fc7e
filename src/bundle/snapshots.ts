// A support bundle as node snapshot folders, for the editor: each node's dumps are copied, read-only, into a folder
// of their own (a snapshot is the dumps of one folder), named so that the editor gives each its language. The
// extraction itself is removed at once; only the copies stay, in a session folder the caller removes.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Dialect } from '../core/detect';
import { BundleError, bundleNodes, openBundle, type OpenOptions } from './extract';

export interface SnapshotDump {
  /** The copy on disk. */
  file: string;
  /** Where it was in the bundle. */
  source: string;
  dialect: Dialect;
}

export interface SnapshotNode {
  name: string;
  nameFrom: string;
  folder: string;
  dumps: SnapshotDump[];
}

export interface BundleSnapshots {
  /** The session folder holding every node folder: removing it removes them all. */
  folder: string;
  nodes: SnapshotNode[];
  /** Entries left out (links inside the bundle, special files), with why. */
  skipped: { name: string; why: string }[];
}

/** The prefix of session folders: `<prefix><pid>-<random>`, so that a later activation knows whose they are. */
const SESSION = 'bundle-';

const EXTENSION: Record<Dialect, string> = { iptables: '.iptables', nftables: '.nft', 'nftables-json': '.nft', ipvsadm: '.ipvsadm', ipset: '.ipset' };

/** A file or folder name without characters some systems refuse. */
const safeName = (name: string) => name.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '_') || 'dump';

/** Opens the bundle at `path` and copies each node's dumps into a new session folder under `parent`. */
export async function openBundleSnapshots(path: string, parent: string, options: OpenOptions = {}): Promise<BundleSnapshots> {
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const folder = mkdtempSync(join(parent, `${SESSION}${process.pid}-`));
  try {
    const opened = await openBundle(path, { ...options, tempParent: folder });
    try {
      const located = bundleNodes(opened, basename(path));
      try {
        const taken = new Set<string>();
        const nodes = located.nodes.map((node) => {
          const nodeFolder = join(folder, unique(safeName(node.name), taken));
          mkdirSync(nodeFolder, { mode: 0o700 });
          const names = new Set<string>();
          const dumps = node.dumps.map((d) => ({ file: copyReadOnly(located.locate(d.path), nodeFolder, dumpName(d.path, d.dialect, names)), source: d.path, dialect: d.dialect }));
          return { name: node.name, nameFrom: node.nameFrom, folder: nodeFolder, dumps };
        });
        return { folder, nodes, skipped: opened.skipped };
      } finally {
        located.dispose();
      }
    } finally {
      opened.dispose();
    }
  } catch (e) {
    rmSync(folder, { recursive: true, force: true });
    throw e;
  }
}

export function isBundleError(e: unknown): e is BundleError {
  return e instanceof BundleError;
}

/** The copy's name: the bundle's file name with the dialect's extension (`nft_list_ruleset.nft`). */
function dumpName(path: string, dialect: Dialect, taken: Set<string>): string {
  const base = safeName(
    path
      .split('/')
      .pop()!
      .replace(/\.(?:txt|md|out|log)$/i, ''),
  );
  const ext = EXTENSION[dialect];
  return unique(base.toLowerCase().endsWith(ext) ? base : base + ext, taken);
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${n}-${name}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

function copyReadOnly(from: string, folder: string, name: string): string {
  const to = join(folder, name);
  copyFileSync(from, to);
  chmodSync(to, 0o400);
  return to;
}

/** Removes one session folder (the copies are read-only, their folders are not). */
export function removeBundleSnapshots(folder: string): void {
  rmSync(folder, { recursive: true, force: true });
}

/**
 * Removes the session folders under `parent` left by a window that is gone (its process no longer runs): a
 * crash or a killed window never ran its clean-up.
 */
export function removeStaleBundleSnapshots(parent: string, running: (pid: number) => boolean = processRuns): string[] {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(/^bundle-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || running(pid)) continue;
    removeBundleSnapshots(join(parent, name));
    removed.push(name);
  }
  return removed;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
