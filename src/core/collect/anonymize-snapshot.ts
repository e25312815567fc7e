// --anonymize over a whole snapshot: one Anonymizer for the dumps, the API objects and snapshot.json, so that a
// Service, node or address has the same new name everywhere and the snapshot analyses (and checks) the same.
import { looksLikeClusterState } from '../cluster/read';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../snapshot';
import { Anonymizer } from './anonymize';
import { anonymizeClusterText, learnClusterNodes } from './anonymize-cluster';
import type { CollectedFile, SnapshotManifest } from './files';

function isClusterFile(f: CollectedFile): boolean {
  return looksLikeClusterState(f.text) || /(^|\/)kube-proxy-configmap\.(ya?ml|json)$/.test(f.path);
}

/** The snapshot with every file and the manifest rewritten by one Anonymizer (the key is not kept anywhere). */
export function anonymizeSnapshot(files: readonly CollectedFile[], manifest: SnapshotManifest, key: Uint8Array): { files: CollectedFile[]; manifest: SnapshotManifest } {
  const a = new Anonymizer(key);
  const cluster = files.filter(isClusterFile);
  const dumps = files
    .filter((f) => !cluster.includes(f))
    .map((f) => analyzeFile(f.path, f.text))
    .filter((f): f is SnapshotFile => f !== undefined);
  // Each listing on its own: the snapshot's catalog lists one of two listings of the same rules.
  for (const d of dumps) a.learn(buildSnapshot([d]).services);
  if (manifest.node) a.node(manifest.node);
  // Node names before any text is rewritten: a dump or the manifest may name them too.
  for (const f of cluster) learnClusterNodes(a, f.text);
  const rewritten = new Map(cluster.map((f) => [f, anonymizeClusterText(a, f.text)]));
  const out = files.map((f) => ({ path: f.path, text: rewritten.get(f) ?? a.rewrite(f.text) }));
  const m = JSON.parse(a.rewrite(JSON.stringify(manifest))) as SnapshotManifest;
  // "ssh HOST" → "ssh": the host's name is not a node name the dumps show.
  return { files: out, manifest: { ...m, via: m.via.split(' ')[0], anonymized: true } };
}
