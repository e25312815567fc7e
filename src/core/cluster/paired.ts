// The expected Service ports of a snapshot's cluster state (for the node its check found), each with the dump's
// Service that programs it, paired as the check pairs them. The graph and the trace read the API side from here;
// computed once per snapshot.
import type { Service } from '../kube/service';
import type { NodeSnapshot } from '../snapshot';
import { actualServices, dumpFamilies, pairServicePorts } from './check';
import { expectedServicePorts } from './expected';
import type { ExpectedServicePort } from './types';

export interface PairedPorts {
  expected: ExpectedServicePort[];
  /** The dump's Service of an expected port; absent: not programmed. */
  found: Map<ExpectedServicePort, Service>;
}

/** A value computed once per snapshot (undefined too), for the views that each ask for it many times. */
export function perSnapshot<T>(compute: (snapshot: NodeSnapshot) => T | undefined): (snapshot: NodeSnapshot) => T | undefined {
  const cache = new WeakMap<NodeSnapshot, { value: T | undefined }>();
  return (snapshot) => {
    let hit = cache.get(snapshot);
    if (!hit) cache.set(snapshot, (hit = { value: compute(snapshot) }));
    return hit.value;
  };
}

/** Undefined without a cluster state, with a node the check could not accept, or in a mode kube-proxy has no rules for. */
export const pairedPorts = perSnapshot(compute);

function compute(snapshot: NodeSnapshot): PairedPorts | undefined {
  const cluster = snapshot.cluster;
  const mode = snapshot.mode;
  if (!cluster || cluster.check.node.error || (mode !== 'iptables' && mode !== 'nftables' && mode !== 'ipvs')) return undefined;
  const actual = actualServices(snapshot);
  const expected = expectedServicePorts(cluster.state, cluster.check.node, { mode, families: dumpFamilies(snapshot, actual) });
  const found = new Map<ExpectedServicePort, Service>();
  for (const [e, a] of pairServicePorts(expected, actual).found) found.set(e, a.service);
  return { expected, found };
}
