// The comparison of expected Service ports with a node's dump: each finding code on a generated dump of every
// mode, and no false finding where the dump cannot show a fact. The expected ports are built by hand
// (test/helpers/cluster-check.ts) from the same generated Services the dump is made of.
import { describe, expect, it } from 'vitest';
import { actualServices, compareServicePorts, modeFinding, sortFindings } from '../../src/core/cluster/check';
import type { ExpectedServicePort, Finding } from '../../src/core/cluster/types';
import { randomServices, type GenServicePort } from '../../tools/generate/iptables';
import { expectedOf, snapshotOf, stateOf, webPort, type Mode } from '../helpers/cluster-check';
import { ipv6Services } from '../helpers/ipv6';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';

const MODES: Mode[] = ['iptables', 'nftables', 'ipvs'];

function check(mode: Mode, dump: GenServicePort[], api: GenServicePort[] = dump, edit?: (e: ExpectedServicePort[]) => void, family: 'ipv4' | 'ipv6' = 'ipv4'): Finding[] {
  const fam = family === 'ipv6' ? 'IPv6' : 'IPv4';
  const snapshot = snapshotOf(mode, dump, family);
  const expected = api.map((g) => expectedOf(g, fam));
  edit?.(expected);
  return compareServicePorts(expected, actualServices(snapshot), stateOf(api, fam), { mode, node: { name: 'node-1' } }).findings;
}

const problems = (findings: Finding[]) => findings.filter((f) => f.severity !== 'info');
const brief = (f: Finding) =>
  `${f.code} ${f.severity} ${f.service.namespace}/${f.service.name}:${f.service.portName}${f.endpoint ? ` ${f.endpoint}` : ''}${f.frontend ? ` ${f.frontend.kind} ${f.frontend.address ?? '*'}:${f.frontend.port}` : ''}`;

const web = webPort;

describe('no drift: no error or warning', () => {
  for (const mode of MODES) {
    it(`${mode}, IPv4: 60 random Services`, () => {
      const findings = check(mode, randomServices(60, 3, 27));
      expect(problems(findings).map(brief)).toEqual([]);
    });
    it(`${mode}, IPv6: 60 random Services`, () => {
      const services = ipv6Services(randomServices(60, 3, 28));
      expect(problems(check(mode, services, services, undefined, 'ipv6')).map(brief)).toEqual([]);
    });
  }
});

describe('each finding code', () => {
  for (const mode of MODES) {
    describe(mode, () => {
      it('not-programmed: in the API, no rules', () => {
        const findings = check(mode, [web()], [web(), web({ name: 'api', clusterIP: '10.96.0.21' })]);
        expect(findings.map(brief)).toEqual(['not-programmed error shop/api:http']);
        expect(findings[0].evidence[0].file).toBe('cluster.yaml');
      });

      it('stale-service: rules for a Service the API does not have', () => {
        const findings = check(mode, [web(), web({ name: 'old', clusterIP: '10.96.0.30' })], [web()]);
        const stale = findings.filter((f) => f.code === 'stale-service');
        expect(stale).toHaveLength(1);
        expect(stale[0].severity).toBe('warning');
        expect(stale[0].evidence.length).toBeGreaterThan(0);
        expect(stale[0].evidence[0].file).toMatch(/^node\./);
        if (mode !== 'ipvs') expect(stale[0].reason).toContain('shop/old');
        else expect(stale[0].reason).toContain('10.96.0.30');
      });

      it('missing-endpoint: ready in the API, not in the rules', () => {
        const api = web({ endpoints: [...web().endpoints, { address: '10.244.3.7', port: 8080 }] });
        const findings = check(mode, [web()], [api]);
        expect(findings.map(brief)).toEqual(['missing-endpoint error shop/web:http 10.244.3.7:8080']);
        expect(findings[0].reason).toContain('ready');
      });

      it('stale-endpoint: in the rules, not ready in the API', () => {
        const api = web({ endpoints: [web().endpoints[0], { ...web().endpoints[1], ready: false }] });
        const findings = check(mode, [web()], [api]);
        expect(findings.map(brief)).toEqual(['stale-endpoint error shop/web:http 10.244.2.6:8080']);
        expect(findings[0].reason).toContain('not ready');
        expect(findings[0].evidence[0].file).toMatch(/^node\./);
      });

      it('stale-endpoint: in the rules, gone from the API', () => {
        const api = web({ endpoints: [web().endpoints[0]] });
        const findings = check(mode, [web()], [api]);
        expect(findings.map(brief)).toEqual(['stale-endpoint error shop/web:http 10.244.2.6:8080']);
        expect(findings[0].reason).toContain('gone');
      });

      it('frontend-mismatch: an external IP of the API the rules lack, and one the API lost', () => {
        const findings = check(mode, [web({ externalIPs: ['198.18.0.5'] })], [web({ externalIPs: ['198.18.0.6'] })]);
        expect(findings.map(brief).sort()).toEqual(['frontend-mismatch error shop/web:http externalIP 198.18.0.6:80', 'frontend-mismatch warning shop/web:http externalIP 198.18.0.5:80']);
      });

      it('frontend-mismatch: a NodePort changed', () => {
        const findings = check(mode, [web({ nodePort: 30080 })], [web({ nodePort: 30081 })]);
        expect(findings.filter((f) => f.code === 'frontend-mismatch' && f.severity === 'error').map((f) => f.frontend)).toEqual([{ kind: 'nodePort', port: 30081 }]);
      });

      it('policy-mismatch: session affinity', () => {
        const findings = check(mode, [web({ sessionAffinityTimeout: 600 })], [web({ sessionAffinityTimeout: 10800 })]);
        expect(findings.map(brief)).toEqual(['policy-mismatch warning shop/web:http']);
        expect(findings[0]).toMatchObject({ expected: 'ClientIP 10800s', actual: 'ClientIP 600s' });
      });

      it('policy-mismatch: externalTrafficPolicy', () => {
        const findings = check(mode, [web({ nodePort: 30080, externalTrafficPolicy: 'Local' })], [web({ nodePort: 30080 })]);
        expect(findings.map(brief)).toEqual(['policy-mismatch warning shop/web:http']);
        expect(findings[0]).toMatchObject({ expected: 'Cluster', actual: 'Local' });
      });

      it('no-endpoints: info, with the reason', () => {
        const findings = check(mode, [web({ endpoints: [] })]);
        expect(findings.map(brief)).toEqual(['no-endpoints info shop/web:http']);
        expect(findings[0].reason).toBe('no EndpointSlice lists a ready endpoint');
      });

      it('filtered-by-topology: info, and never an error for the endpoints topology removed', () => {
        const dump = web({ endpoints: [web().endpoints[0]] });
        const findings = check(mode, [dump], [web()], (e) => {
          Object.assign(e[0].endpoints[1], { inCluster: false, excludedBecause: 'topology', detail: 'hinted for zone-b' });
          e[0].topologyApplied = true;
        });
        expect(findings.map(brief)).toEqual(['filtered-by-topology info shop/web:http']);
        expect(findings[0].expected).toBe('10.244.2.6:8080');
        expect(findings[0].reason).toBe('hinted for zone-b');
      });
    });
  }

  it('policy-mismatch: internalTrafficPolicy (iptables, nftables; IPVS cannot show it)', () => {
    for (const mode of ['iptables', 'nftables'] as const) {
      const findings = check(mode, [web({ internalTrafficPolicy: 'Local' })], [web()]);
      // the endpoint of node-2 the Local policy of the rules leaves out is explained by it: no error of its own
      expect(findings.map(brief)).toEqual(['missing-endpoint info shop/web:http 10.244.2.6:8080', 'policy-mismatch warning shop/web:http']);
    }
  });

  it('policy-mismatch: load-balancer source ranges (iptables, nftables)', () => {
    const lb = (ranges: string[]) => web({ nodePort: 30080, loadBalancerIPs: ['192.168.100.1'], loadBalancerSourceRanges: ranges });
    for (const mode of ['iptables', 'nftables'] as const) {
      expect(problems(check(mode, [lb(['203.0.113.0/24'])], [lb(['203.0.113.0/24'])])).map(brief)).toEqual([]);
      const findings = check(mode, [lb(['203.0.113.0/24'])], [lb(['198.51.100.0/24'])]);
      expect(findings.map(brief)).toEqual(['policy-mismatch warning shop/web:http']);
    }
  });

  it('mode-mismatch: the ConfigMap mode against the dump', () => {
    const state = { ...stateOf([]), proxyConfig: { mode: 'ipvs' } };
    expect(modeFinding(state, 'iptables')).toMatchObject({ code: 'mode-mismatch', severity: 'warning', expected: 'ipvs', actual: 'iptables' });
    expect(modeFinding({ ...state, proxyConfig: { mode: '' } }, 'iptables')).toBeUndefined();
    expect(modeFinding({ ...state, proxyConfig: { mode: '' } }, 'nftables')).toMatchObject({ expected: 'iptables' });
    expect(modeFinding(stateOf([]), 'ipvs')).toBeUndefined();
  });
});

describe('what a dump cannot show is no finding', () => {
  it('iptables large-cluster mode (no endpoint comments): no drift, no finding', () => {
    // generated with comments: false, as kube-proxy writes above 1,000 endpoints
    const services = randomServices(40, 3, 31);
    const snapshot = snapshotOf('iptables', services, 'ipv4', false);
    const findings = compareServicePorts(
      services.map((g) => expectedOf(g)),
      actualServices(snapshot),
      stateOf(services),
      { mode: 'iptables', node: { name: 'node-1' } },
    ).findings;
    expect(problems(findings).map(brief)).toEqual([]);
    // and a drift is still found
    const drifted = compareServicePorts(services.map((g) => expectedOf(g)).slice(1), actualServices(snapshot), stateOf(services.slice(1)), { mode: 'iptables', node: { name: 'node-1' } }).findings;
    expect(problems(drifted).map((f) => f.code)).toEqual(['stale-service']);
  });

  it('a load-balancer IP the rules show as an external IP (no endpoints: the same REJECT) matches', () => {
    const lb = web({ nodePort: 30080, loadBalancerIPs: ['192.168.100.1'], endpoints: [] });
    for (const mode of MODES) expect(problems(check(mode, [lb])).map(brief)).toEqual([]);
  });

  it('IPVS: externalTrafficPolicy Local with every endpoint on this node looks like Cluster: no finding', () => {
    const all = web({ nodePort: 30080, externalTrafficPolicy: 'Local', endpoints: web().endpoints.map((e) => ({ ...e, local: true })) });
    expect(problems(check('ipvs', [all])).map(brief)).toEqual([]);
  });

  it('topology configured but the node unknown: a missing endpoint is only information', () => {
    const api = web({ endpoints: [...web().endpoints, { address: '10.244.3.7', port: 8080 }] });
    const snapshot = snapshotOf('iptables', [web()]);
    const expected = [expectedOf(api)];
    expected[0].service.trafficDistribution = 'PreferClose';
    const findings = compareServicePorts(expected, actualServices(snapshot), stateOf([api]), { mode: 'iptables', node: {} }).findings;
    expect(findings.map(brief)).toEqual(['missing-endpoint info shop/web:http 10.244.3.7:8080']);
  });

  it('an IPv4 dump does not make IPv6 Service ports not-programmed when only the IPv4 ones are expected', () => {
    expect(problems(check('nftables', [web()])).map(brief)).toEqual([]);
  });
});

describe('order and cost', () => {
  it('worst Service first', () => {
    const findings = check(
      'iptables',
      [web({ name: 'a', endpoints: [] }), web({ name: 'b', clusterIP: '10.96.0.21' })],
      [web({ name: 'a', endpoints: [] }), web({ name: 'b', clusterIP: '10.96.0.21', sessionAffinityTimeout: 60 }), web({ name: 'c', clusterIP: '10.96.0.22' })],
    );
    expect(sortFindings(findings).map((f) => `${f.service.name} ${f.code}`)).toEqual(['c not-programmed', 'b policy-mismatch', 'a no-endpoints']);
  });

  perfIt('is linear: 8× the Services cost far less than 64×', () => {
    const run = (n: number) => {
      const services = randomServices(n, 4, 7);
      const snapshot = snapshotOf('iptables', services);
      const actual = actualServices(snapshot);
      for (const s of actual) void s.service.endpoints.length;
      const expected = services.map((g) => expectedOf(g));
      // a drift in every Service: every finding's text and evidence is made
      for (const e of expected) e.endpoints.push({ ...e.endpoints[0], address: '10.255.0.1', inCluster: true, ready: true });
      const state = stateOf(services);
      return () => compareServicePorts(expected, actual, state, { mode: 'iptables', node: { name: 'node-1' } });
    };
    const runs: Record<string, () => unknown> = { small: run(200), large: run(1600) };
    expect(costRatio((size) => runs[size](), 'small', 'large')).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
