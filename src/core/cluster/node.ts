// Which node of the cluster a dump was saved on. Given, or inferred in order of strength: the node addresses the
// rules name (NodePort addresses: nft's nodeport-ips, --nodeport-addresses jumps, IPVS NodePort virtual services),
// then the endpoints the rules mark local (Local traffic policies, IPVS's KUBE-LOOP-BACK) matched against the
// EndpointSlices' nodeName, then the snapshot folder's name. Several nodes fitting equally are candidates.
import { t } from '../l10n';
import type { Service } from '../kube/service';
import type { NodeSnapshot } from '../snapshot';
import { canonicalAddress, isLoopback, parseAddress } from '../model/address';
import { revealedNodeAddresses, type SnapshotFile as TraceFile } from '../trace';
import type { ClusterState, NodeIdentity } from './types';

export interface NodeHint {
  /** `--node NAME`. */
  name?: string;
  /** The snapshot's folder. */
  folder?: string;
}

/** The nodes the cluster state knows: its Node objects, else the EndpointSlices' nodeNames; each with its zone. */
function knownNodes(state: ClusterState): Map<string, string | undefined> {
  const nodes = new Map<string, string | undefined>();
  for (const n of state.nodes) nodes.set(n.name, n.zone);
  for (const slice of state.endpointSlices) {
    for (const e of slice.endpoints) {
      if (e.nodeName && (!nodes.has(e.nodeName) || nodes.get(e.nodeName) === undefined)) nodes.set(e.nodeName, e.zone);
    }
  }
  return nodes;
}

/** Every node the cluster state names (Nodes, else the EndpointSlices' nodeName), sorted. */
export function knownNodeNames(state: ClusterState): string[] {
  return [...knownNodes(state).keys()].sort();
}

export function inferNode(state: ClusterState, snapshot: NodeSnapshot, hint: NodeHint): NodeIdentity {
  const nodes = knownNodes(state);
  const named = (name: string, more: Omit<NodeIdentity, 'name' | 'zone'> = {}): NodeIdentity => ({ name, ...(nodes.get(name) !== undefined ? { zone: nodes.get(name) } : {}), ...more });
  if (hint.name !== undefined) {
    if (nodes.size === 0 || nodes.has(hint.name)) return named(hint.name);
    return { candidates: [...nodes.keys()].sort(), error: t('no node named {0} in the cluster state', hint.name) };
  }
  let pool = [...nodes.keys()];
  for (const step of [byAddress, byLocalEndpoints, byFolder]) {
    const found = step(state, snapshot, hint, new Set(pool));
    if (!found) continue;
    if (found.names.length === 1) return named(found.names[0], { inferredFrom: found.from, evidence: found.evidence });
    pool = found.names;
  }
  return { candidates: pool.length < nodes.size ? pool.sort() : [...nodes.keys()].sort(), evidence: t('the dumps do not show which node they come from') };
}

interface Inferred {
  names: string[];
  from: NonNullable<NodeIdentity['inferredFrom']>;
  evidence: string;
}

/** The names with the highest count (over zero), among `pool`. */
function best(counts: Map<string, number>, pool: Set<string>): string[] {
  let top = 0;
  let names: string[] = [];
  for (const [name, n] of counts) {
    if (!pool.has(name) || n < top || n === 0) continue;
    if (n > top) names = [];
    top = n;
    names.push(name);
  }
  return names;
}

function byAddress(state: ClusterState, snapshot: NodeSnapshot, _hint: NodeHint, pool: Set<string>): Inferred | undefined {
  const revealed = revealedNodeAddresses(
    snapshot.files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] })),
    snapshot.services,
  );
  // Two nodes may claim one address (a copied manifest, a reused IP): each counts, and a tie is left to the next step.
  const owners = new Map<string, string[]>();
  for (const n of state.nodes) for (const a of [...n.internalIPs, ...n.externalIPs]) owners.set(canonicalAddress(a), [...(owners.get(canonicalAddress(a)) ?? []), n.name]);
  const counts = new Map<string, number>();
  const shown = new Map<string, string>();
  for (const address of revealed.addresses) {
    const a = parseAddress(address);
    if (!a || isLoopback(a)) continue;
    for (const name of owners.get(canonicalAddress(address)) ?? []) {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (!shown.has(name)) shown.set(name, t('{0} names {1}, an address of node {2}', revealed.namedBy.get(address) ?? '', address, name));
    }
  }
  const names = best(counts, pool);
  return names.length ? { names, from: 'address', evidence: shown.get(names[0])! } : undefined;
}

function byLocalEndpoints(state: ClusterState, snapshot: NodeSnapshot, _hint: NodeHint, pool: Set<string>): Inferred | undefined {
  const nodeOf = new Map<string, string>();
  for (const slice of state.endpointSlices) for (const e of slice.endpoints) if (e.nodeName) for (const a of e.addresses) nodeOf.set(canonicalAddress(a), e.nodeName);
  if (nodeOf.size === 0) return undefined;
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  for (const s of snapshot.services as Service[]) {
    for (const e of s.endpoints) {
      if (!e.local) continue;
      const address = canonicalAddress(e.address);
      if (seen.has(address)) continue;
      seen.add(address);
      const name = nodeOf.get(address);
      if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  const names = best(counts, pool);
  if (!names.length) return undefined;
  return { names, from: 'local-endpoints', evidence: t('{0} endpoints the rules mark local run on node {1} (EndpointSlice nodeName)', counts.get(names[0])!, names[0]) };
}

/** The last part of a path or URI (core runs in the browser too: no node:path). */
function basename(path: string): string {
  return (
    path
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() ?? path
  );
}

function byFolder(_state: ClusterState, _snapshot: NodeSnapshot, hint: NodeHint, pool: Set<string>): Inferred | undefined {
  if (!hint.folder) return undefined;
  const folder = basename(hint.folder).toLowerCase();
  // The longest node name the folder's name holds: "node-10" over "node-1" in "dump-node-10".
  const fits = [...pool].filter((name) => name && folder.includes(name.toLowerCase()));
  if (!fits.length) return undefined;
  const longest = Math.max(...fits.map((n) => n.length));
  const names = fits.filter((n) => n.length === longest);
  return { names, from: 'folder', evidence: t('the snapshot folder {0} is named after node {1}', basename(hint.folder), names[0]) };
}
