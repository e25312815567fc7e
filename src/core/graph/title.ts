// The short name a graph panel's tab carries: the snapshot's folder name, not a path that fills the tab bar.

/**
 * The name of the snapshot of the dump at `path` (a URI path, `/` separated): its folder's name, or the dump's
 * file name when it has no folder (a file at the root, an untitled editor).
 */
export function snapshotName(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts.length >= 2 ? parts[parts.length - 2] : (parts[0] ?? path);
}
