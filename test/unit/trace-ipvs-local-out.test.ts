// IPVS re-injects the packets it forwards at LOCAL_OUT (ip_vs_nat_send_or_cont / ip_vs_send_or_cont in
// net/netfilter/ipvs/ip_vs_xmit.c: NF_HOOK(pf, NF_INET_LOCAL_OUT, …, dst_output)): the OUTPUT chains of raw, mangle
// and filter see them (kube-proxy's KUBE-IPVS-OUT-FILTER hangs there), nat OUTPUT does not (the connection's
// destination NAT was set up at PREROUTING / OUTPUT when it began: nf_nat_inet_fn runs a nat chain only for an
// uninitialised manip), and nat POSTROUTING runs for packets from outside (IPVS took the packet at LOCAL_IN before
// nat INPUT, priority 99 < 100, so no source NAT was set up yet). The node is samples/ipvs (kube-proxy IPVS mode).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';
import { buildSnapshot } from '../../src/core/snapshot';
import { traceSnapshot, type Outcome, type SnapshotFile as TraceFile, type TraceRequest } from '../../src/core/trace';

const sample = (name: string) => readFileSync(`samples/ipvs/${name}`, 'utf8');
const snapshot = (iptables: string): TraceFile[] =>
  [
    ['node1.iptables', iptables],
    ['node1.ipvsadm', sample('node1.ipvsadm')],
    ['node1.ipset', sample('node1.ipset')],
  ].map(([name, text]) => ({ name, analysis: analyzeFile(name, text)!.analysis as TraceFile['analysis'] }));
const trace = (iptables: string, request: Partial<TraceRequest> = {}) => traceSnapshot(snapshot(iptables), { to: '10.96.12.40', dport: 80, protocol: 'tcp', from: '10.244.1.50', entry: 'pod', ...request });
const summary = (outcomes: Outcome[]) => outcomes.map((o) => `${Number(o.probability.toFixed(4))} ${o.verdict}${o.destination ? ` ${o.destination}` : ''}${o.masquerade ? ' masq' : ''}`).sort();

/** The sample with rules added at the end of a chain of one table. */
function withRules(table: string, chain: string, rules: string[]): string {
  const text = sample('node1.iptables');
  const at = text.indexOf('COMMIT', text.indexOf(`*${table}`));
  return text.slice(0, at) + rules.map((r) => `-A ${chain} ${r}\n`).join('') + text.slice(at);
}

describe('IPVS sends on through LOCAL_OUT', () => {
  it('filter OUTPUT (KUBE-IPVS-OUT-FILTER) sees the packet after IPVS chose a real server', () => {
    const text = withRules('filter', 'KUBE-IPVS-OUT-FILTER', ['-d 10.244.3.9/32 -p tcp -m tcp --dport 8080 -j DROP']);
    for (const entry of ['pod', 'external', 'node'] as const) {
      const r = trace(text, { entry, from: entry === 'pod' ? '10.244.1.50' : entry === 'external' ? '203.0.113.99' : '192.168.0.10' });
      expect(
        r.outcomes.filter((o) => o.verdict === 'drop').map((o) => Number(o.probability.toFixed(4))),
        entry,
      ).toEqual([0.3333]);
      expect(
        r.outcomes
          .filter((o) => o.verdict === 'dnat')
          .map((o) => o.destination)
          .sort(),
        entry,
      ).toEqual(['10.244.1.7:8080', '10.244.2.8:8080']);
      const dropped = r.outcomes.find((o) => o.verdict === 'drop')!;
      expect(
        dropped.path.map((p) => `${p.table} ${p.chain}`),
        entry,
      ).toContain('filter KUBE-IPVS-OUT-FILTER');
    }
  });

  it("nat OUTPUT does not see it: the connection's NAT was decided when it began", () => {
    const text = withRules('nat', 'OUTPUT', ['-d 10.244.3.9/32 -j DNAT --to-destination 10.244.9.9:1']);
    expect(summary(trace(text).outcomes)).toEqual(['0.3333 dnat 10.244.1.7:8080', '0.3333 dnat 10.244.2.8:8080', '0.3333 dnat 10.244.3.9:8080']);
  });

  it('from outside, nat POSTROUTING masquerades after the re-injection (the NodePort mark)', () => {
    const r = trace(sample('node1.iptables'), { to: '192.168.0.10', dport: 30080, entry: 'external', from: '203.0.113.99', nodeIPs: ['192.168.0.10'] });
    expect(summary(r.outcomes)).toEqual(['0.3333 dnat 10.244.1.7:8080 masq', '0.3333 dnat 10.244.2.8:8080 masq', '0.3333 dnat 10.244.3.9:8080 masq']);
  });
});

describe('the graph of an IPVS NodePort', () => {
  it('badges its virtual service "masquerade all" (KUBE-NODE-PORT-TCP → KUBE-MARK-MASQ), not the ClusterIP rule\'s "masquerade ! CIDR"', () => {
    const files = ['node1.ipvsadm', 'node1.ipset', 'node1.iptables'].map((p) => analyzeFile(p, sample(p))!);
    const model = graphOfSnapshot(buildSnapshot(files));
    const web = model.graphs.get(model.services.find((s) => s.frontends.includes('ClusterIP 10.96.12.40:80'))!.key)!;
    const vs = (label: string) => web.nodes.find((n) => n.kind === 'service' && n.label.includes(label))!;
    expect(vs('192.168.0.10:30080').badges).toContain('masquerade all');
    expect(vs('192.168.0.10:30080').badges.join(' ')).not.toContain('masquerade !');
    expect(vs('10.96.12.40:80').badges).toContain('masquerade ! 10.0.0.0/8');
    // externalTrafficPolicy Local (KUBE-NODE-PORT-LOCAL-TCP → RETURN, KUBE-LOAD-BALANCER-LOCAL → RETURN): no masquerade.
    const gw = model.graphs.get(model.services.find((s) => s.frontends.includes('NodePort 31443'))!.key)!;
    const external = gw.nodes.filter((x) => x.kind === 'service' && /:31443|203\.0\.113\.10/.test(x.label));
    expect(external).toHaveLength(2);
    for (const n of external) expect(n.badges.join(' ')).not.toContain('masquerade');
  });
});
