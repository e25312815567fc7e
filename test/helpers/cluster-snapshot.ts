// Node snapshots with their cluster state set, as the editor builds them: a bundled sample with its
// cluster-state.yaml, or a generator scenario (tools/generate/drift.ts) with its drifts, read through the
// files a user saves and checked with checkSnapshot.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSnapshot } from '../../src/core/cluster/check';
import { mergeClusterStates, readClusterFile } from '../../src/core/cluster/read';
import type { Family } from '../../tools/generate/address';
import { randomCluster, THIS_NODE, type ProxyMode } from '../../tools/generate/cluster';
import { clusterStateFiles } from '../../tools/generate/cluster-objects';
import { DRIFT_KINDS, scenario, type Scenario } from '../../tools/generate/drift';
import { generateIptablesDump } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';
import { analyzeFile, buildSnapshot, type NodeSnapshot } from '../../src/core/snapshot';
import type { ClusterState } from '../../src/core/cluster/types';

export const SAMPLES = join(__dirname, '../../samples');

function withCluster(snapshot: NodeSnapshot, files: string[], state: ClusterState, folder?: string): NodeSnapshot {
  snapshot.cluster = { files, state, check: checkSnapshot(snapshot, state, { folder }) };
  return snapshot;
}

/** A sample folder's dumps and its cluster-state.yaml. */
export function sampleSnapshot(folder: string): NodeSnapshot {
  const dir = join(SAMPLES, folder);
  const dumps = readdirSync(dir).filter((n) => n !== 'cluster-state.yaml' && !n.endsWith('.md'));
  const snapshot = buildSnapshot(dumps.map((n) => analyzeFile(join(dir, n), readFileSync(join(dir, n), 'utf8'))!).filter(Boolean));
  const file = join(dir, 'cluster-state.yaml');
  return withCluster(snapshot, [file], readClusterFile(file, readFileSync(file, 'utf8')), folder);
}

const NODE_IP: Record<Family, string> = { ipv4: '192.168.0.10', ipv6: 'fd00::10' };

/** The dump of a generator scenario: what kube-proxy programmed on its node, in its mode. */
export function scenarioDump(s: Scenario): NodeSnapshot {
  const nodeIPs = s.cluster.nodes.find((n) => n.name === s.node)!.internalIPs;
  const files: [string, string][] = [];
  if (s.mode === 'iptables') files.push(['node.iptables', generateIptablesDump({ services: s.services, style: 'iptables-nft-save', family: s.family, nodeRules: true })]);
  if (s.mode === 'nftables') files.push(['node.nft', generateNftDump({ services: s.services, style: 'nft-list-ruleset', family: s.family, nodeIPs })]);
  if (s.mode === 'ipvs') {
    const snap = generateIpvsSnapshot({ services: s.services, family: s.family, nodeIPs });
    files.push(['node.ipvs', snap['ipvsadm-list']], ['node.ipset', snap['ipset-save']], ['node.iptables', snap['iptables-save']]);
  }
  return buildSnapshot(files.map(([name, text]) => analyzeFile(name, text)!));
}

/** A generated node with every kind of drift, its cluster state set and checked. */
export function driftSnapshot(mode: ProxyMode, family: Family, size = 10): { snapshot: NodeSnapshot; scenario: Scenario } {
  const cluster = randomCluster({ services: size, endpoints: 5, seed: size, family, nodeIP: NODE_IP[family], mode });
  const s = scenario(cluster, { node: THIS_NODE, family, mode, drifts: DRIFT_KINDS, seed: size });
  const files = clusterStateFiles(s.cluster, 'json');
  const state = mergeClusterStates(Object.entries(files).map(([name, text]) => readClusterFile(name, text)));
  return { snapshot: withCluster(scenarioDump(s), Object.keys(files), state), scenario: s };
}
