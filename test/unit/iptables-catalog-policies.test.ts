// The catalog reads the KUBE-MARK-MASQ rules of SVC/SVL chains once, early, and the local chain's endpoints once:
// the policies and endpoints must be what reading them where they are used gives.
import { describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';

const dump = (svcRules: string[], svlRules: string[], extra: string[] = []) =>
  [
    '*nat',
    ':KUBE-SERVICES - [0:0]',
    ':KUBE-SVC-AAAAAAAAAAAAAAAA - [0:0]',
    ':KUBE-SVL-AAAAAAAAAAAAAAAA - [0:0]',
    ':KUBE-SEP-1111111111111111 - [0:0]',
    ':KUBE-SEP-2222222222222222 - [0:0]',
    ...extra,
    '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "ns/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-AAAAAAAAAAAAAAAA',
    ...svcRules.map((r) => `-A KUBE-SVC-AAAAAAAAAAAAAAAA ${r}`),
    ...svlRules.map((r) => `-A KUBE-SVL-AAAAAAAAAAAAAAAA ${r}`),
    '-A KUBE-SEP-1111111111111111 -p tcp -m tcp -j DNAT --to-destination 10.244.0.1:8080',
    '-A KUBE-SEP-2222222222222222 -p tcp -m tcp -j DNAT --to-destination 10.244.0.2:8080',
    'COMMIT',
  ].join('\n');

describe('iptables catalog: masquerade policies and local endpoints', () => {
  it('keeps the order of the masquerade facts of the chain the Service uses', () => {
    const a = analyzeIptables(
      dump(
        ['-p tcp -m comment --comment "ns/web:http" -j KUBE-MARK-MASQ', '! -s 10.0.0.0/8 -p tcp -j KUBE-MARK-MASQ', '-s 10.1.0.0/16 -j KUBE-MARK-MASQ', '-j KUBE-SEP-1111111111111111'],
        ['! -s 10.9.0.0/16 -j KUBE-MARK-MASQ', '-j KUBE-SEP-2222222222222222'],
      ),
    );
    const [s] = a.catalog.services;
    expect(Object.entries(s.policies).filter(([k]) => k === 'masqueradeAll' || k === 'clusterCIDR')).toEqual([
      ['masqueradeAll', true],
      ['clusterCIDR', '10.0.0.0/8'],
    ]);
    // The local chain's endpoint, reachable only through it, is added with no share of ClusterIP traffic.
    expect(s.endpoints.map((e) => [e.address, e.probability, e.local])).toEqual([
      ['10.244.0.1', 1, undefined],
      ['10.244.0.2', 0, true],
    ]);
  });

  it('reads the local chain when it is the primary one, and a deleted chain all the same', () => {
    const a = analyzeIptables(
      dump(['-j KUBE-SEP-1111111111111111'], ['-j KUBE-MARK-MASQ', '-m statistic --mode random --probability 0.5 -j KUBE-SEP-1111111111111111', '-j KUBE-SEP-2222222222222222'], []).replace(
        '-j KUBE-SVC-AAAAAAAAAAAAAAAA',
        '-j KUBE-SVL-AAAAAAAAAAAAAAAA',
      ),
    );
    const [s] = a.catalog.services;
    expect(s.policies.internalTrafficPolicy).toBe('Local');
    expect(s.policies.masqueradeAll).toBe(true);
    expect(s.endpoints.map((e) => [e.address, e.probability, e.local])).toEqual([
      ['10.244.0.1', 0.5, true],
      ['10.244.0.2', 0.5, true],
    ]);
    const deleted = analyzeIptables(dump(['! -s 10.0.0.0/8 -j KUBE-MARK-MASQ', '-j KUBE-SEP-1111111111111111'], [], ['-X KUBE-SVC-AAAAAAAAAAAAAAAA']));
    expect(deleted.catalog.services.find((x) => x.hash === 'AAAAAAAAAAAAAAAA')?.policies.clusterCIDR).toBe(
      analyzeIptables(dump(['! -s 10.0.0.0/8 -j KUBE-MARK-MASQ', '-j KUBE-SEP-1111111111111111'], [])).catalog.services[0].policies.clusterCIDR,
    );
  });
});
