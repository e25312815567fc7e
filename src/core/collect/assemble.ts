// The snapshot's files and manifest from the collector's output and the cluster files, anonymized together when
// asked. Kept apart from plan.ts: anonymizing reads the dumps, so this module pulls in the parsers.
import { anonymizeSnapshot } from './anonymize-snapshot';
import { snapshotOf, type CollectedFile, type SnapshotManifest } from './files';
import type { CollectRequest } from './plan';
import { parseCollectStream } from './stream';

/** The snapshot from the script's output and the cluster files, anonymized together when asked. */
export function assembleSnapshot(
  req: CollectRequest,
  stdout: string,
  marker: string,
  via: string,
  cluster: CollectedFile[],
  key: Uint8Array,
): { files: CollectedFile[]; manifest: SnapshotManifest; started: boolean; truncated?: string } {
  const stream = parseCollectStream(stdout, marker);
  const collected = snapshotOf(stream, via);
  const all = { files: [...collected.files, ...cluster], manifest: collected.manifest };
  const out = req.anonymize ? anonymizeSnapshot(all.files, all.manifest, key) : all;
  return { ...out, started: stream.started, ...(stream.truncated ? { truncated: stream.truncated } : {}) };
}
