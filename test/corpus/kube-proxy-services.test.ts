// `dataplane services --json` on kube-proxy's own test dumps, compared with expectations checked by hand
// against the rules (comments, KUBE-SVC probabilities, KUBE-SEP DNATs, filter REJECT/DROP rules).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

function servicesJson(...files: string[]) {
  const out: string[] = [];
  const code = run(
    ['services', '--json', ...files.map((f) => join(CORPUS, 'iptables/kube-proxy', f))],
    (s) => out.push(s),
    () => {},
  );
  expect(code).toBe(0);
  return JSON.parse(out.join('\n'));
}

const ep = (address: string, port: number, probability: number, local?: boolean) => (local === undefined ? { address, port, probability } : { address, port, probability, local });

/** TestOverallIPTablesRules: six services covering ClusterIP, NodePort, LB with source ranges, eTP Local, affinity, no endpoints. */
const OVERALL = [
  { namespace: 'ns1', name: 'svc1', portName: 'p80', protocol: 'tcp', frontends: [{ kind: 'clusterIP', address: '172.30.0.41', port: 80 }], endpoints: [ep('10.180.0.1', 80, 1)] },
  {
    namespace: 'ns2',
    name: 'svc2',
    portName: 'p80',
    protocol: 'tcp',
    frontends: [
      { kind: 'clusterIP', address: '172.30.0.42', port: 80 },
      { kind: 'nodePort', port: 3001 },
      { kind: 'loadBalancer', address: '1.2.3.4', port: 80 },
      { kind: 'externalIP', address: '192.168.99.22', port: 80 },
    ],
    endpoints: [ep('10.180.0.2', 80, 1)],
  },
  {
    namespace: 'ns3',
    name: 'svc3',
    portName: 'p80',
    protocol: 'tcp',
    frontends: [
      { kind: 'clusterIP', address: '172.30.0.43', port: 80 },
      { kind: 'nodePort', port: 3003 },
    ],
    endpoints: [ep('10.180.0.3', 80, 1)],
  },
  {
    namespace: 'ns4',
    name: 'svc4',
    portName: 'p80',
    protocol: 'tcp',
    frontends: [
      { kind: 'clusterIP', address: '172.30.0.44', port: 80 },
      { kind: 'externalIP', address: '192.168.99.33', port: 80 },
    ],
    endpoints: [ep('10.180.0.4', 80, 0.5), ep('10.180.0.5', 80, 0.5)],
  },
  {
    namespace: 'ns5',
    name: 'svc5',
    portName: 'p80',
    protocol: 'tcp',
    frontends: [
      { kind: 'clusterIP', address: '172.30.0.45', port: 80 },
      { kind: 'nodePort', port: 3002 },
      { kind: 'loadBalancer', address: '5.6.7.8', port: 80 },
    ],
    endpoints: [ep('10.180.0.3', 80, 1)],
  },
  { namespace: 'ns6', name: 'svc6', portName: 'p80', protocol: 'tcp', frontends: [{ kind: 'clusterIP', address: '172.30.0.46', port: 80 }], endpoints: [] },
];

const withoutPolicies = (json: { services: Record<string, unknown>[] }) => json.services.map(({ policies: _p, ...rest }) => rest);

describe.skipIf(!HAVE_CORPUS)(`kube-proxy services (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  for (const file of [
    'TestOverallIPTablesRules.iptables-save',
    'TestOverallIPTablesRules.kernel-nft.iptables-save',
    'TestOverallIPTablesRules.kernel-legacy.iptables-save',
    'TestOverallIPTablesRules.kernel-nft-counters.iptables-save',
  ]) {
    it(`${file}: every service port, frontends, endpoints and shares`, () => {
      const json = servicesJson(file);
      expect(json.mode).toBe('iptables');
      expect(withoutPolicies(json)).toEqual(OVERALL);
      const byName = Object.fromEntries(json.services.map((s: { name: string; policies: unknown }) => [s.name, s.policies]));
      expect(byName.svc2).toMatchObject({ externalTrafficPolicy: 'Local', sessionAffinity: 'None' });
      expect(byName.svc5).toMatchObject({ sessionAffinity: 'ClientIP', sessionAffinityTimeoutSeconds: 10800, loadBalancerSourceRanges: ['203.0.113.0/25'], externalTrafficPolicy: 'Cluster' });
      expect(byName.svc6).toMatchObject({ noEndpoints: 'reject' });
      expect(byName.svc1).toMatchObject({ clusterCIDR: '10.0.0.0/8', internalTrafficPolicy: 'Cluster' });
    });
  }

  it('TestTracePacket (unquoted comments read leniently): same services, svc5 without affinity', () => {
    const json = servicesJson('TestTracePacket.iptables-save');
    expect(withoutPolicies(json)).toEqual(OVERALL);
    expect(json.services.find((s: { name: string }) => s.name === 'svc5').policies.sessionAffinity).toBe('None');
  });

  it('TestSyncProxyRulesRepeated 07 (partial restore): unchanged services are listed, their endpoints flagged as not in the file', () => {
    const json = servicesJson('TestSyncProxyRulesRepeated__07_add_svc3_endpoint.iptables-save');
    expect(json.services.map((s: { name: string; endpoints: unknown[]; policies: { endpointsNotInDump?: boolean } }) => [s.name, s.endpoints, s.policies.endpointsNotInDump ?? false])).toEqual([
      ['svc1', [], true],
      ['svc3', [ep('10.0.3.2', 80, 0.5), ep('10.0.3.3', 80, 0.5)], false],
      ['svc4', [], true],
    ]);
  });

  it('TestBadIPs: addresses of the wrong family are not frontends', () => {
    const json = servicesJson('TestBadIPs.kernel-nft.iptables-save');
    expect(withoutPolicies(json)).toEqual([
      {
        namespace: 'ns1',
        name: 'svc1',
        portName: 'p80',
        protocol: 'tcp',
        frontends: [
          { kind: 'clusterIP', address: '172.30.0.41', port: 80 },
          { kind: 'nodePort', port: 3001 },
          { kind: 'loadBalancer', address: '1.2.3.4', port: 80 },
          { kind: 'externalIP', address: '192.168.99.22', port: 80 },
        ],
        endpoints: [ep('10.180.0.1', 80, 1)],
      },
    ]);
  });

  it('several files at once: one list', () => {
    const json = servicesJson('TestSyncProxyRulesRepeated__01_initial_full_sync.iptables-save', 'TestOverallIPTablesRules.kernel-nft.iptables-save');
    expect(json.services).toHaveLength(8);
  });
});
