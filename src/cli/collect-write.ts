// The snapshot folder on disk, and the line saying what went into it: shared by `dataplane collect` and the
// editor's "Capture Node Snapshot…" (which must not load the parsers at activation to reach it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CollectedFile, SnapshotManifest } from '../core/collect/files';

/** Writes the snapshot folder: the files and snapshot.json. */
export function writeSnapshot(dir: string, files: readonly CollectedFile[], manifest: SnapshotManifest): void {
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.text);
  }
  writeFileSync(join(dir, 'snapshot.json'), JSON.stringify(manifest, null, 2) + '\n');
}

/** What collect prints when it is done. */
export function collectSummary(dir: string, files: readonly CollectedFile[], manifest: SnapshotManifest): string {
  return `${dir}: ${files.length} files from ${manifest.node ?? 'the node'} (${manifest.via})${manifest.missing.length ? `; missing: ${manifest.missing.join(', ')}` : ''}`;
}
