// The tracer on nftables-mode and IPVS-mode snapshots from the project's generators: every ClusterIP
// reaches exactly its endpoints with their shares; no endpoints → REJECT; affinity and NodePorts.
import { describe, expect, it } from 'vitest';
import { expectedCatalog, randomServices } from '../../tools/generate/iptables';
import { generateIpvsSnapshot, expectedIpvsCatalog } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';
import { SAMPLE_SERVICES } from '../../tools/generate/samples';
import { analyzeFile, type SnapshotFile } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';

const asTrace = (files: SnapshotFile[]): TraceFile[] => files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));
const shares = (r: ReturnType<typeof traceSnapshot>) => Object.fromEntries(r.outcomes.map((o) => [o.destination ?? o.verdict, Number(o.probability.toFixed(6))]));

describe('trace on nftables-mode dumps', () => {
  for (const seed of [1, 2, 3]) {
    for (const style of ['nft-list-ruleset', 'nft-json'] as const) {
      it(`seed ${seed} (${style}): every ClusterIP reaches the truth's endpoints with their shares`, () => {
        const services = randomServices(30, 4, seed);
        const files = asTrace([analyzeFile(`node.${style === 'nft-json' ? 'json' : 'nft'}`, generateNftDump({ services, style }))!]);
        for (const truth of expectedCatalog(services)) {
          const c = truth.frontends.find((f) => f.kind === 'clusterIP')!;
          const r = traceSnapshot(files, { to: c.address!, dport: c.port, protocol: truth.protocol as 'tcp', entry: 'pod' });
          expect(r.outcomes.reduce((s, o) => s + o.probability, 0)).toBeCloseTo(1, 9);
          const reachable = truth.endpoints.filter((e) => e.probability > 0);
          if (reachable.length === 0) {
            expect(
              r.outcomes.every((o) => o.verdict === 'reject' || o.verdict === 'drop'),
              `${truth.name} ${JSON.stringify(shares(r))}`,
            ).toBe(true);
            continue;
          }
          expect(shares(r), `${truth.namespace}/${truth.name}:${truth.portName}`).toEqual(Object.fromEntries(reachable.map((e) => [`${e.address}:${e.port}`, Number(e.probability.toFixed(6))])));
          expect(r.outcomes.every((o) => !o.masquerade && o.assumptions.length === 0)).toBe(true);
        }
      });
    }
  }

  it('affinity: a returning client is noted; NodePort from outside is masqueraded', () => {
    const files = asTrace([analyzeFile('node.nft', generateNftDump({ services: SAMPLE_SERVICES, style: 'nft-list-ruleset' }))!]);
    const cart = traceSnapshot(files, { to: '10.96.12.41', dport: 6379, protocol: 'tcp', entry: 'pod' });
    expect(cart.outcomes.flatMap((o) => o.notes).join(' ')).toContain('returning client');
    const web = traceSnapshot(files, { to: '192.168.0.2', dport: 30080, protocol: 'tcp', entry: 'external' });
    expect(web.outcomes.map((o) => [o.destination, o.masquerade])).toEqual([
      ['10.244.1.7:8080', true],
      ['10.244.2.8:8080', true],
      ['10.244.3.9:8080', true],
    ]);
  });
});

describe('trace on IPVS-mode snapshots (iptables + ipset + ipvsadm)', () => {
  for (const seed of [1, 2]) {
    it(`seed ${seed}: every ClusterIP reaches its real servers with weight shares`, () => {
      const opts = { services: randomServices(30, 4, seed), nodeIPs: ['192.168.0.10'] };
      const d = generateIpvsSnapshot(opts);
      const files = asTrace([analyzeFile('node.iptables', d['iptables-save'])!, analyzeFile('node.ipset', d['ipset-save'])!, analyzeFile('node.ipvsadm', d['ipvsadm-save'])!]);
      for (const truth of expectedIpvsCatalog(opts)) {
        const c = truth.frontends.find((f) => f.kind === 'clusterIP')!;
        const r = traceSnapshot(files, { to: c.address!, dport: c.port, protocol: truth.protocol as 'tcp', entry: 'pod' });
        expect(r.outcomes.reduce((s, o) => s + o.probability, 0)).toBeCloseTo(1, 9);
        const reachable = truth.endpoints.filter((e) => e.probability > 0);
        if (reachable.length === 0) {
          expect(r.outcomes.map((o) => o.verdict)).toEqual(['reject']);
          continue;
        }
        expect(shares(r)).toEqual(Object.fromEntries(reachable.map((e) => [`${e.address}:${e.port}`, Number(e.probability.toFixed(6))])));
        // ipset membership is decided from the ipset dump, not assumed.
        expect(r.outcomes.every((o) => o.assumptions.length === 0)).toBe(true);
        expect(r.outcomes.every((o) => o.path.some((p) => p.table === 'ipvs'))).toBe(true);
      }
    });
  }
});
