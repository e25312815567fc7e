// The acceptance test of the cluster check: the generator's drifts (tools/generate/drift.ts) are found
// exactly, no finding missing and none extra, in iptables, nftables and IPVS dumps, IPv4 and IPv6, at 10 and
// 1,000 Service ports; the same cluster without drifts gives no error or warning. The cluster state goes
// through the files a user saves (kubectl JSON: Services + EndpointSlices, Nodes, the kube-proxy ConfigMap)
// and the node is inferred from the dump.
import { describe, expect, it } from 'vitest';
import { perfIt } from '../helpers/linear';
import { checkSnapshot } from '../../src/core/cluster/check';
import { mergeClusterStates, readClusterFile } from '../../src/core/cluster/read';
import type { Finding } from '../../src/core/cluster/types';
import type { Family } from '../../tools/generate/address';
import { randomCluster, THIS_NODE, type GenCluster, type ProxyMode } from '../../tools/generate/cluster';
import { clusterStateFiles } from '../../tools/generate/cluster-objects';
import { DRIFT_KINDS, scenario, sortFindings, type ExpectedFinding, type Scenario } from '../../tools/generate/drift';
import { scenarioDump } from '../helpers/cluster-snapshot';

const MODES: ProxyMode[] = ['iptables', 'nftables', 'ipvs'];
const NODE_IP: Record<Family, string> = { ipv4: '192.168.0.10', ipv6: 'fd00::10' };

function check(s: Scenario) {
  const files = clusterStateFiles(s.cluster, 'json');
  const state = mergeClusterStates(Object.entries(files).map(([name, text]) => readClusterFile(name, text)));
  expect(state.diagnostics.flatMap((d) => d.diagnostics).filter((d) => d.severity === 'error')).toEqual([]);
  return checkSnapshot(scenarioDump(s), state, {});
}

/** A finding reduced to what the ground truth names. */
const identity = (f: Finding): ExpectedFinding => ({
  code: f.code,
  severity: f.severity,
  service: f.service,
  ...(f.endpoint !== undefined ? { endpoint: f.endpoint } : {}),
  ...(f.frontend !== undefined ? { frontend: { kind: f.frontend.kind, ...(f.frontend.address !== undefined ? { address: f.frontend.address } : {}), port: f.frontend.port } as ExpectedFinding['frontend'] } : {}),
});

/**
 * The ground truth, where a dump cannot hold it: IPVS keeps no Service names, so a Service the API no longer
 * has is named by its ClusterIP virtual service (`10.96.0.14:443`, `[fd00::e]:443`).
 */
function shownTruth(s: Scenario): ExpectedFinding[] {
  if (s.mode !== 'ipvs') return s.findings;
  const ports = new Map(s.services.map((p) => [`${p.namespace}/${p.name}/${p.portName}/${p.protocol.toUpperCase()}`, p]));
  return sortFindings(
    s.findings.map((f) => {
      const p = ports.get(`${f.service.namespace}/${f.service.name}/${f.service.portName}/${f.service.protocol}`);
      if (f.code !== 'stale-service' || !p) return f;
      const host = p.clusterIP.includes(':') ? `[${p.clusterIP}]` : p.clusterIP;
      return { ...f, service: { namespace: '', name: `${host}:${p.port}`, portName: '', protocol: f.service.protocol } };
    }),
  );
}

describe("the generator's drifts are found exactly", () => {
  for (const size of [10, 1000]) {
    for (const mode of MODES) {
      for (const family of ['ipv4', 'ipv6'] as Family[]) {
        (size > 100 ? perfIt : it)(`${size} Service ports, ${mode}, ${family}`, () => {
          const cluster = randomCluster({ services: size, endpoints: 5, seed: size, family, nodeIP: NODE_IP[family], mode });
          const s = scenario(cluster, { node: THIS_NODE, family, mode, drifts: DRIFT_KINDS, seed: size });
          const r = check(s);
          expect(r.node).toMatchObject({ name: THIS_NODE });
          expect(sortFindings(r.findings.map(identity))).toEqual(shownTruth(s));
        });
      }
    }
  }
});

/** Every kind of Service and pod the generator makes, and whether the cluster has one of each. */
function kinds(cluster: GenCluster): string[] {
  const seen = new Set<string>();
  for (const x of cluster.services) {
    const pods = x.pods.map((p) => `pod ready=${p.ready} serving=${p.serving} terminating=${p.terminating} hints=${Object.keys(p.hints ?? {})}`);
    for (const k of [`type ${x.type}`, `eTP ${x.externalTrafficPolicy}`, `iTP ${x.internalTrafficPolicy}`, `affinity ${!!x.sessionAffinityTimeout}`, ...pods]) seen.add(k);
    for (const p of x.ports) seen.add(`protocol ${p.protocol}`);
    const flags = { sourceRanges: x.loadBalancerSourceRanges.length > 0, externalIPs: x.externalIPs.length > 0, loadBalancerIPs: x.loadBalancerIPs.length > 0 };
    const more = { ...flags, healthCheck: !!x.healthCheckNodePort, headless: x.clusterIPs[0] === 'None', ports: x.ports.length > 1, noPods: x.pods.length === 0 };
    for (const [k, v] of Object.entries({ ...more, distribution: x.trafficDistribution, topologyMode: x.topologyMode })) seen.add(`${k} ${v ?? false}`);
  }
  return [...seen].sort();
}

/**
 * The unit tier's cluster without drifts: 150 Service ports have every kind of Service and pod the 1,000 have
 * (100 lack not-ready pods with topology hints; the perf tier checks it below), at a sixth of the cost.
 */
const UNIT_PORTS = 150;

describe('no drift: no error or warning', () => {
  for (const size of [UNIT_PORTS, 1000]) {
    for (const mode of MODES) {
      for (const family of ['ipv4', 'ipv6'] as Family[]) {
        (size > UNIT_PORTS ? perfIt : it)(`${size} Service ports, ${mode}, ${family}`, () => {
          const cluster = randomCluster({ services: size, endpoints: 5, seed: 7, family, nodeIP: NODE_IP[family], mode });
          const s = scenario(cluster, { node: THIS_NODE, family, mode, seed: 7 });
          const r = check(s);
          expect(r.findings.filter((f) => f.severity !== 'info').map((f) => `${f.code} ${f.service.namespace}/${f.service.name} ${f.endpoint ?? ''}`)).toEqual([]);
          expect(sortFindings(r.findings.map(identity))).toEqual(s.findings);
        });
      }
    }
  }

  perfIt(`the ${UNIT_PORTS} Service ports have every kind of Service and pod the 1000 have`, () => {
    const cluster = (services: number) => randomCluster({ services, endpoints: 5, seed: 7, family: 'ipv4', nodeIP: NODE_IP.ipv4, mode: 'iptables' });
    expect(kinds(cluster(UNIT_PORTS))).toEqual(kinds(cluster(1000)));
  });
});
