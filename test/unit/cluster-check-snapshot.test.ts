// checkSnapshot end to end: a cluster file read by readClusterFile, the expected dataplane of expected.ts and a
// generated dump of each mode and family. The same Services on both sides give no error or warning (only the
// information that Services without endpoints reject), whichever way the node is found.
import { describe, expect, it } from 'vitest';
import { checkSnapshot } from '../../src/core/cluster/check';
import { readClusterFile } from '../../src/core/cluster/read';
import { randomServices } from '../../tools/generate/iptables';
import { clusterListOf, ipv6Of, NODE_IP, snapshotOf, type Mode } from '../helpers/cluster-check';

describe('checkSnapshot: no drift, no error or warning', () => {
  for (const family of ['ipv4', 'ipv6'] as const) {
    for (const mode of ['iptables', 'nftables', 'ipvs'] as Mode[]) {
      it(`${mode}, ${family}: 200 random Services`, () => {
        const v4 = randomServices(200, 3, 27);
        const services = family === 'ipv6' ? ipv6Of(v4) : v4;
        const state = readClusterFile('cluster.json', JSON.stringify(clusterListOf(services, NODE_IP[family])));
        const r = checkSnapshot(snapshotOf(mode, services, family), state, {});
        expect(r.node.name).toBe('node-1');
        expect(r.node.inferredFrom).toBe(mode === 'iptables' ? 'local-endpoints' : 'address');
        expect(r.findings.filter((f) => f.severity !== 'info').map((f) => `${f.code} ${f.service.name}`)).toEqual([]);
        expect(new Set(r.findings.map((f) => f.code))).toEqual(new Set(['no-endpoints']));
        expect(r.summary).toMatchObject({ servicePorts: 200, programmed: 200 });
      });
    }
  }

  it('the node given: Local policies judged for it; another node sees other local endpoints but no error', () => {
    const services = randomServices(120, 3, 5);
    const state = readClusterFile('cluster.json', JSON.stringify(clusterListOf(services)));
    const snapshot = snapshotOf('iptables', services);
    expect(checkSnapshot(snapshot, state, { node: 'node-1' }).summary.findings).toMatchObject({ error: 0, warning: 0 });
    // Judged as node-2, the rules' local endpoints are another node's: the Local chains differ, never an error.
    expect(checkSnapshot(snapshot, state, { node: 'node-2' }).summary.findings.error).toBe(0);
  });

  it('a mode the ConfigMap does not ask for: mode-mismatch, first', () => {
    const services = randomServices(10, 2, 3);
    const list = clusterListOf(services) as { items: unknown[] };
    list.items.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-proxy', namespace: 'kube-system' },
      data: { 'config.conf': 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n' },
    });
    const r = checkSnapshot(snapshotOf('nftables', services), readClusterFile('cluster.json', JSON.stringify(list)), {});
    expect(r.findings[0]).toMatchObject({ code: 'mode-mismatch', severity: 'warning', expected: 'ipvs', actual: 'nftables' });
  });
});
