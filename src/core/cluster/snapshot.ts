// The cluster state beside a node snapshot: every place that builds a snapshot (the extension host, the analysis
// worker) reads the cluster-state files the same way and attaches their check here, so the hovers, the graph, the
// trace, Explain This Node and the Problems view all see one answer. The check is kept per list of analyses and
// states: a snapshot is rebuilt for every question, the check is made once per file version.
import { t } from '../l10n';
import type { Diagnostic, Severity } from '../model/diagnostics';
import { buildSnapshot, type NodeSnapshot, type SnapshotCluster, type SnapshotFile } from '../snapshot';
import { actualServices, checkSnapshot, dumpFamilies } from './check';
import { expectedServicePorts } from './expected';
import { looksLikeClusterState, mergeClusterStates, readClusterFile } from './read';
import type { ClusterState, ExpectedServicePort, Finding, FindingCode } from './types';

/** One cluster-state file, read. */
export interface ClusterInput {
  /** The file as the caller names it (the findings' evidence uses this name). */
  name: string;
  state: ClusterState;
}

/** Reads a text as a cluster-state file: one that looks like one, or any the user picked as one. */
export function readClusterInput(name: string, text: string, picked = false): ClusterInput | undefined {
  if (!picked && !looksLikeClusterState(text)) return undefined;
  return { name, state: readClusterFile(name, text) };
}

interface Kept {
  key: readonly object[];
  folder?: string;
  node?: string;
  cluster: SnapshotCluster;
}

/** Checks kept by their first cluster state (a few per state: one per snapshot that uses it). */
const kept = new WeakMap<object, Kept[]>();
const KEPT_PER_STATE = 4;

/**
 * The node snapshot of `files`, with the check against `clusters` as `snapshot.cluster` (none without a dump or a
 * cluster file). `folder` is the snapshot folder's name, which may be the node's; `node` the node the user said the
 * dumps come from (else it is inferred); `build` makes the snapshot of the dumps (a new object: it gets the check).
 */
export function buildSnapshotWithCluster(files: SnapshotFile[], clusters: readonly ClusterInput[], folder?: string, node?: string, build = buildSnapshot): NodeSnapshot {
  const snapshot = build(files);
  if (files.length === 0 || clusters.length === 0) return snapshot;
  const key = [...files.map((f) => f.analysis), ...clusters.map((c) => c.state)];
  const list = kept.get(clusters[0].state) ?? [];
  const found = list.find((k) => k.folder === folder && k.node === node && k.key.length === key.length && k.key.every((x, i) => x === key[i]));
  if (found) {
    snapshot.cluster = found.cluster;
    return snapshot;
  }
  const state = clusters.length === 1 ? clusters[0].state : mergeClusterStates(clusters.map((c) => c.state));
  try {
    snapshot.cluster = { files: clusters.map((c) => c.name), state, check: checkSnapshot(snapshot, state, { folder, node }) };
  } catch {
    // A check that fails must not take the rest of the snapshot (hovers, trace, graph) with it.
    return snapshot;
  }
  list.push({ key, folder, node, cluster: snapshot.cluster });
  if (list.length > KEPT_PER_STATE) list.shift();
  kept.set(clusters[0].state, list);
  return snapshot;
}

/** The expected Service ports of a snapshot's cluster check, computed once when first asked (hovers). */
const expectedOf = new WeakMap<SnapshotCluster, Map<string, ExpectedServicePort[]>>();

/** `ns/name:port|protocol` of a Service port, protocol in lower case. */
export function servicePortKey(s: { namespace: string; name: string; portName: string; protocol: string }): string {
  return `${s.namespace}/${s.name}:${s.portName}|${s.protocol.toLowerCase()}`;
}

/** The API's Service ports (each family) kube-proxy should program on this node, by servicePortKey. */
export function expectedByServicePort(snapshot: NodeSnapshot): Map<string, ExpectedServicePort[]> {
  const c = snapshot.cluster;
  if (!c) return new Map();
  let byKey = expectedOf.get(c);
  if (byKey) return byKey;
  byKey = new Map();
  const mode = snapshot.mode;
  if (!c.check.node.error && (mode === 'iptables' || mode === 'nftables' || mode === 'ipvs')) {
    const families = dumpFamilies(snapshot, actualServices(snapshot));
    for (const e of expectedServicePorts(c.state, c.check.node, { mode, families })) {
      const k = servicePortKey(e);
      byKey.set(k, [...(byKey.get(k) ?? []), e]);
    }
  }
  expectedOf.set(c, byKey);
  return byKey;
}

/** Findings shown on the dump's lines: the rules are what is wrong. The others go on the cluster file's object. */
const ON_DUMP: ReadonlySet<FindingCode> = new Set(['stale-service', 'stale-endpoint', 'frontend-mismatch', 'policy-mismatch', 'mode-mismatch']);

const SEVERITY: Record<Finding['severity'], Severity> = { error: 'error', warning: 'warning', info: 'information' };

/** A file's diagnostics from the cluster check: `code` is a finding's code or a cluster-file reading problem's. */
export interface ClusterFileDiagnostics {
  file: string;
  /** Whether the file is a cluster-state file (else a dump of the snapshot). */
  cluster: boolean;
  diagnostics: Diagnostic[];
}

/**
 * The snapshot's cluster check as diagnostics per file: the cluster files' reading problems, and each finding on
 * the dump lines (stale rules) or the cluster file's object (what the rules lack) it names, one per file.
 */
export function clusterDiagnostics(snapshot: NodeSnapshot): ClusterFileDiagnostics[] {
  const c = snapshot.cluster;
  if (!c) return [];
  const clusterFiles = new Set(c.files);
  const out = new Map<string, ClusterFileDiagnostics>();
  const into = (file: string): Diagnostic[] => {
    let f = out.get(file);
    if (!f) out.set(file, (f = { file, cluster: clusterFiles.has(file), diagnostics: [] }));
    return f.diagnostics;
  };
  for (const name of c.files) into(name);
  for (const f of c.state.diagnostics) into(f.file).push(...f.diagnostics);
  for (const finding of c.check.findings) {
    const dumpSide = ON_DUMP.has(finding.code);
    const preferred = finding.evidence.filter((e) => clusterFiles.has(e.file) !== dumpSide);
    const places = preferred.length > 0 ? preferred : finding.evidence;
    const message = finding.reason && !finding.message.includes(finding.reason) ? t('{0} Why: {1}', finding.message, finding.reason) : finding.message;
    const seen = new Set<string>();
    for (const e of places) {
      if (seen.has(e.file)) continue; // one diagnostic per file: the first place names it
      seen.add(e.file);
      into(e.file).push({ range: e.range, severity: SEVERITY[finding.severity], code: finding.code, message });
    }
  }
  return [...out.values()];
}

/**
 * The 1-based line of docs/cluster-check.md that explains a diagnostic's code: its row in the findings table, or
 * the "Inputs" section for a cluster file's reading problem (the Problems view links the code there).
 */
export function docsLineOf(docs: string, code: string): number {
  const lines = docs.split('\n');
  const row = lines.findIndex((l) => l.startsWith(`| \`${code}\` |`));
  const inputs = lines.findIndex((l) => l.startsWith('## Inputs'));
  return (row >= 0 ? row : Math.max(inputs, 0)) + 1;
}
