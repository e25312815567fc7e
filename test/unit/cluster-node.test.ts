// Which node a dump comes from: given (and checked), or inferred from the node addresses the rules name, the
// endpoints they mark local, or the folder's name; several fitting equally are candidates, never a guess.
import { nodeLine } from '../../src/core/cluster/check-format';
import { describe, expect, it } from 'vitest';
import { inferNode } from '../../src/core/cluster/node';
import { readClusterFile } from '../../src/core/cluster/read';
import type { GenServicePort } from '../../tools/generate/iptables';
import { clusterListOf, snapshotOf, webPort } from '../helpers/cluster-check';

const svc = (endpoints: GenServicePort['endpoints'], over: Partial<GenServicePort> = {}) => webPort({ nodePort: 30080, externalTrafficPolicy: 'Local', endpoints, ...over });
const local = svc([
  { address: '10.244.1.5', port: 8080, local: true },
  { address: '10.244.2.6', port: 8080 },
]);
const state = readClusterFile('cluster.json', JSON.stringify(clusterListOf([local])));

describe('inferNode', () => {
  it('--node: used as given, with the zone of its Node', () => {
    expect(inferNode(state, snapshotOf('iptables', [local]), { name: 'node-2' })).toEqual({ name: 'node-2' });
  });

  it('--node naming no node of the cluster state: an error with the known names', () => {
    const n = inferNode(state, snapshotOf('iptables', [local]), { name: 'node-9' });
    expect(n.name).toBeUndefined();
    expect(n.error).toContain('node-9');
    expect(n.candidates).toEqual(['node-1', 'node-2']);
  });

  it('from the node addresses the rules name: nft nodeport-ips, IPVS NodePort virtual services', () => {
    for (const mode of ['nftables', 'ipvs'] as const) {
      const n = inferNode(state, snapshotOf(mode, [local]), {});
      expect(n).toMatchObject({ name: 'node-1', inferredFrom: 'address' });
      expect(n.evidence).toContain('192.168.0.10');
    }
  });

  it('from the endpoints the rules mark local (externalTrafficPolicy Local), matched to EndpointSlice nodeName', () => {
    const n = inferNode(state, snapshotOf('iptables', [local]), {});
    expect(n).toMatchObject({ name: 'node-1', inferredFrom: 'local-endpoints' });
    expect(n.evidence).toContain('1 endpoints');
  });

  it('from the folder name when the rules tell nothing; the longest name wins', () => {
    const cluster = svc([{ address: '10.244.2.6', port: 8080 }], { externalTrafficPolicy: undefined, nodePort: undefined });
    const s = readClusterFile('c.json', JSON.stringify(clusterListOf([cluster])));
    s.nodes.push({ ...s.nodes[0], name: 'node-1' + '0' });
    const snapshot = snapshotOf('iptables', [cluster]);
    expect(inferNode(s, snapshot, { folder: '/tmp/dumps/node-10-2026-12-07' })).toMatchObject({ name: 'node-10', inferredFrom: 'folder' });
    expect(inferNode(s, snapshot, { folder: 'C:\\dumps\\node-2\\' })).toMatchObject({ name: 'node-2', inferredFrom: 'folder' });
  });

  it('nothing tells: candidates, no name', () => {
    const cluster = svc([{ address: '10.244.2.6', port: 8080 }], { externalTrafficPolicy: undefined, nodePort: undefined });
    const s = readClusterFile('c.json', JSON.stringify(clusterListOf([cluster])));
    const n = inferNode(s, snapshotOf('iptables', [cluster]), { folder: '/tmp/x' });
    expect(n.name).toBeUndefined();
    expect(n.candidates).toEqual(['node-1', 'node-2']);
    // Said in words the editor can show too; the CLI's report adds how to name the node (--node).
    expect(n.evidence).not.toContain('--node');
    expect(nodeLine(n)).toContain('--node NAME');
  });

  it('two nodes sharing the address the rules name: candidates, then narrowed by the local endpoints', () => {
    const s = readClusterFile('c.json', JSON.stringify(clusterListOf([local])));
    s.nodes[1].internalIPs = ['192.168.0.10'];
    // IPVS names 192.168.0.10, which both claim; its KUBE-LOOP-BACK set marks node-1's endpoint local.
    expect(inferNode(s, snapshotOf('ipvs', [local]), {})).toMatchObject({ name: 'node-1', inferredFrom: 'local-endpoints' });
  });

  it('without Node objects, the EndpointSlices name the nodes', () => {
    const s = readClusterFile('c.json', JSON.stringify(clusterListOf([local])));
    s.nodes = [];
    expect(inferNode(s, snapshotOf('iptables', [local]), {})).toMatchObject({ name: 'node-1', inferredFrom: 'local-endpoints' });
    expect(inferNode(s, snapshotOf('iptables', [local]), { name: 'node-7' }).error).toBeDefined();
  });
});
