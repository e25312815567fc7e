// Per-step shares on kube-proxy's statistic chain: the rules written the way kube-proxy's proxier writes a
// 3-endpoint Service (pkg/proxy/iptables/proxier.go: probability 1/(n-i) with 10 decimals, the last without).
import { describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';
import { analyzeNft } from '../../src/core/language/nft';
import { traceSnapshot } from '../../src/core/trace';
import { shareText } from '../../src/core/trace/engine';

const dump = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]',
  ':OUTPUT ACCEPT [0:0]',
  ':KUBE-SERVICES - [0:0]',
  ':KUBE-SVC-ABC - [0:0]',
  ':KUBE-SEP-A - [0:0]',
  ':KUBE-SEP-B - [0:0]',
  ':KUBE-SEP-C - [0:0]',
  '-A PREROUTING -j KUBE-SERVICES',
  '-A OUTPUT -j KUBE-SERVICES',
  '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "shop/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-ABC',
  '-A KUBE-SVC-ABC -m comment --comment "shop/web:http -> 10.244.0.1:8080" -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-A',
  '-A KUBE-SVC-ABC -m comment --comment "shop/web:http -> 10.244.0.2:8080" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-B',
  '-A KUBE-SVC-ABC -m comment --comment "shop/web:http -> 10.244.0.3:8080" -j KUBE-SEP-C',
  '-A KUBE-SEP-A -p tcp -m tcp -j DNAT --to-destination 10.244.0.1:8080',
  '-A KUBE-SEP-B -p tcp -m tcp -j DNAT --to-destination 10.244.0.2:8080',
  '-A KUBE-SEP-C -p tcp -m tcp -j DNAT --to-destination 10.244.0.3:8080',
  'COMMIT',
  '',
].join('\n');

const svcSteps = (dest: string) => {
  const r = traceSnapshot([{ name: 'dump.iptables', analysis: analyzeIptables(dump) }], { to: '10.96.0.10', dport: 80, protocol: 'tcp', entry: 'pod' });
  const o = r.outcomes.find((x) => x.destination === dest)!;
  return o.path.filter((p) => p.chain === 'KUBE-SVC-ABC').map((p) => `${p.line + 1}: ${p.note}`);
};

describe('statistic shares on the path', () => {
  it('formats shares as fractions where they are one', () => {
    expect([shareText(0.33333333349), shareText(2 / 3), shareText(0.5), shareText(1), shareText(0.123456), shareText(1e-9)]).toEqual(['1/3', '2/3', '1/2', '100%', '12.35%', '< 0.01%']);
  });

  it('each of three endpoints shows 1/3, with the rules not taken as steps', () => {
    expect(svcSteps('10.244.0.1:8080')).toEqual(['12: Taken with probability 33.3333% (--probability). Share of new connections: 1/3. Jump to KUBE-SEP-A.']);
    expect(svcSteps('10.244.0.2:8080')).toEqual([
      '12: Not taken with probability 2/3; share of new connections going on: 2/3.',
      '13: Taken with probability 50% (--probability). Share of new connections: 2/3 × 1/2 = 1/3. Jump to KUBE-SEP-B.',
    ]);
    expect(svcSteps('10.244.0.3:8080')).toEqual([
      '12: Not taken with probability 2/3; share of new connections going on: 2/3.',
      '13: Not taken with probability 1/2; share of new connections going on: 2/3 × 1/2 = 1/3.',
      '14: Taken by what the rules not taken left; share of new connections: 1/3. Jump to KUBE-SEP-C.',
    ]);
  });

  it('nft numgen steps carry the share of each outcome', () => {
    const nft = [
      'table ip kube-proxy {',
      '  chain nat-prerouting { type nat hook prerouting priority dstnat; policy accept; ip daddr 10.96.0.10 tcp dport 80 jump svc }',
      '  chain svc { numgen random mod 3 vmap { 0 : goto e0, 1 : goto e1, 2 : goto e2 } }',
      '  chain e0 { dnat to 10.244.0.1:8080 }',
      '  chain e1 { dnat to 10.244.0.2:8080 }',
      '  chain e2 { dnat to 10.244.0.3:8080 }',
      '}',
    ].join('\n');
    const r = traceSnapshot([{ name: 'r.nft', analysis: analyzeNft(nft) }], { to: '10.96.0.10', dport: 80, protocol: 'tcp', entry: 'pod' });
    const notes = r.outcomes.map((o) => o.path.find((p) => p.chain === 'svc')!.note).sort();
    expect(notes).toEqual([0, 1, 2].map((k) => `numgen picked ${k} of 3 (1/3). Share of new connections: 1/3. Go to e${k} (no return here).`));
  });
});
