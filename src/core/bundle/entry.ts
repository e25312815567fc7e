// What an archive entry may be written as: pure checks shared by the tar and zip readers, so that every archive
// format refuses the same things with the same words.
import { t } from '../l10n';

/** An archive that is refused: the message says which entry and why; nothing was left outside the folder. */
export class BundleError extends Error {}

/** Bounds on what an archive may expand to. */
export interface Limits {
  maxEntries: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxEntries: 20_000,
  maxFileBytes: 100 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
};

export type EntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'other';

/** Shown names are clipped and stripped of control characters: an entry name is attacker-chosen. */
export function shown(name: string): string {
  const clean = name.replace(/[\x00-\x1f\x7f]/g, '?');
  return JSON.stringify(clean.length > 120 ? clean.slice(0, 117) + '...' : clean);
}

/**
 * The entry's path as safe relative segments: refuses absolute paths, drive letters, `..` and NUL; `.` and
 * empty segments are dropped; backslashes separate too (zips written on Windows use them).
 */
export function safeSegments(name: string): string[] {
  if (name.includes('\0')) throw new BundleError(t('entry {0}: a NUL byte in its name', shown(name)));
  if (/^([\\/]|[A-Za-z]:)/.test(name)) throw new BundleError(t('entry {0}: an absolute path, outside the bundle', shown(name)));
  const segments = name.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new BundleError(t('entry {0}: a path that climbs out of the bundle (..)', shown(name)));
  return segments;
}

/** Why an entry of this kind is refused, or undefined for regular files and folders. */
export function kindRefusal(kind: EntryKind): string | undefined {
  switch (kind) {
    case 'file':
    case 'directory':
      return undefined;
    case 'symlink':
      return t('a symbolic link');
    case 'hardlink':
      return t('a hard link');
    case 'device':
      return t('a device file');
    case 'fifo':
      return t('a FIFO');
    default:
      return t('not a regular file or folder');
  }
}

/** Counts entries and bytes against the limits; each method throws a BundleError past a limit. */
export class Budget {
  private entries = 0;
  private total = 0;
  constructor(private readonly limits: Limits) {}

  entry(name: string): void {
    if (++this.entries > this.limits.maxEntries) throw new BundleError(t('more than {0} entries (at {1})', this.limits.maxEntries, shown(name)));
  }

  /** A declared size, checked before anything is read. */
  declared(name: string, size: number): void {
    if (size > this.limits.maxFileBytes) throw new BundleError(t('entry {0}: {1} bytes is above the limit of {2} per file', shown(name), size, this.limits.maxFileBytes));
    if (this.total + size > this.limits.maxTotalBytes) throw new BundleError(t('more than {0} bytes in all (at {1})', this.limits.maxTotalBytes, shown(name)));
  }

  /** Bytes as they are written: the real count, whatever the header said. */
  bytes(name: string, fileSoFar: number, n: number): void {
    this.total += n;
    if (fileSoFar > this.limits.maxFileBytes) throw new BundleError(t('entry {0}: more than {1} bytes (the limit per file)', shown(name), this.limits.maxFileBytes));
    if (this.total > this.limits.maxTotalBytes) throw new BundleError(t('more than {0} bytes in all once decompressed (at {1}): refused as a decompression bomb', this.limits.maxTotalBytes, shown(name)));
  }
}

/**
 * Whether a link entry points inside the bundle. A symbolic link's target is read from the link's folder, a
 * hard link's from the archive's root. sosreports hold such inner links (`hostname` → `sos_commands/host/hostname`).
 */
export function linkStaysInside(kind: 'symlink' | 'hardlink', segments: string[], target: string): boolean {
  if (target === '' || target.includes('\0') || /^([\\/]|[A-Za-z]:)/.test(target)) return false;
  const path = kind === 'symlink' ? segments.slice(0, -1) : [];
  for (const part of target.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part !== '..') path.push(part);
    else if (path.pop() === undefined) return false;
  }
  return true;
}
