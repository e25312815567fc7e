// The IPVS-mode catalog of a node snapshot (ipvsadm + ipset + iptables) against the generator's truth.
import { describe, expect, it } from 'vitest';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { catalogToJson } from '../../src/core/kube/service';
import { expectedIpvsCatalog, generateIpvsSnapshot, type IpvsGenOptions } from '../../tools/generate/ipvs';
import { randomServices } from '../../tools/generate/iptables';
import { ipv6Variant } from '../../tools/generate/nft';
import { SAMPLE_SERVICES } from '../../tools/generate/samples';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';

function snapshotOf(opts: IpvsGenOptions, which: ('ipvsadm-save' | 'ipvsadm-list' | 'ipset-save' | 'ipset-list' | 'iptables-save')[]) {
  const dumps = generateIpvsSnapshot(opts);
  const files = which.map((w) => analyzeFile(`node1/${w}`, dumps[w])).filter((f): f is SnapshotFile => Boolean(f));
  expect(files.map((f) => f.languageId)).toEqual(which.map((w) => (w.startsWith('ipvsadm') ? 'ipvsadm' : w.startsWith('ipset') ? 'ipset' : 'iptables')));
  return buildSnapshot(files);
}

type Entry = { frontends: { kind: string; address?: string; port: number }[]; endpoints: { address: string; port: number; probability: number; local?: boolean }[]; protocol: string };

/** Keyed by the ClusterIP frontend: IPVS keeps no names. */
function byClusterIP(entries: Entry[]) {
  const out: Record<string, { frontends: string[]; endpoints: string[] }> = {};
  for (const e of entries) {
    const c = e.frontends.find((f) => f.kind === 'clusterIP');
    if (!c) continue;
    out[`${c.address}:${c.port}/${e.protocol}`] = {
      frontends: e.frontends.map((f) => `${f.kind} ${f.address ?? '*'}:${f.port}`).sort(),
      endpoints: e.endpoints
        .filter((x) => x.probability > 0)
        .map((x) => `${x.address}:${x.port} ${x.probability.toFixed(6)}${x.local ? ' local' : ''}`)
        .sort(),
    };
  }
  return out;
}

const NODE_IPS = ['192.168.0.10', '10.0.2.15'];

describe('IPVS-mode catalog from a node snapshot', () => {
  it('the sample Services: every ClusterIP with its NodePorts, load balancer, endpoints, shares and affinity', () => {
    const opts = { services: SAMPLE_SERVICES, nodeIPs: NODE_IPS };
    const snap = snapshotOf(opts, ['ipvsadm-list', 'ipset-save', 'iptables-save']);
    expect(snap.mode).toBe('ipvs');
    const json = catalogToJson(snap.catalogs) as { mode: string; services: (Entry & { policies: Record<string, unknown> })[] };
    expect(json.mode).toBe('ipvs');
    // The no-endpoint Service's NodePorts cannot be told apart from others without endpoints: compare ClusterIPs.
    expect(byClusterIP(json.services)).toEqual(byClusterIP(expectedIpvsCatalog(opts)));
    const cart = json.services.find((s) => s.frontends.some((f) => f.address === '10.96.12.41'))!;
    expect(cart.policies).toMatchObject({ sessionAffinity: 'ClientIP', sessionAffinityTimeoutSeconds: 10800, scheduler: 'rr' });
    const gateway = json.services.find((s) => s.frontends.some((f) => f.address === '10.96.20.5'))!;
    expect(gateway.frontends.map((f) => f.kind)).toEqual(['clusterIP', 'nodePort', 'nodePort', 'loadBalancer']);
    expect(gateway.policies.externalTrafficPolicy).toBe('Local');
  });

  // The catalog groups real servers as runs of numbers (IPv4) and strings (IPv6): past 16 real servers a run is
  // deduplicated with a Set; NodePorts of traffic policy Local join the ClusterIP that has a superset of theirs.
  for (const [label, services] of [
    ['IPv4, 24 endpoints', randomServices(30, 24, 7)],
    ['IPv6, 24 endpoints', ipv6Variant(randomServices(30, 24, 8))],
    ['IPv6, 3 endpoints', ipv6Variant(randomServices(40, 3, 9))],
  ] as const) {
    it(`joins the virtual services of many or IPv6 real servers as the truth does (${label})`, () => {
      const opts = { services: [...services], nodeIPs: NODE_IPS };
      const snap = snapshotOf(opts, ['ipvsadm-list', 'ipset-save', 'iptables-save']);
      const truth = expectedIpvsCatalog(opts).filter((e) => e.endpoints.some((x) => x.probability > 0));
      const got = byClusterIP((catalogToJson(snap.catalogs) as { services: Entry[] }).services);
      for (const [k, v] of Object.entries(byClusterIP(truth))) expect(got[k], k).toEqual(v);
    });
  }

  for (const seed of [1, 2, 3]) {
    for (const form of ['ipvsadm-save', 'ipvsadm-list'] as const) {
      it(`random cluster seed ${seed} (${form}): ClusterIPs, frontends and endpoint shares match the truth`, () => {
        const opts = { services: randomServices(40, 4, seed), nodeIPs: NODE_IPS };
        const snap = snapshotOf(opts, [form, 'ipset-list', 'iptables-save']);
        const truth = expectedIpvsCatalog(opts).filter((e) => e.endpoints.some((x) => x.probability > 0));
        const got = byClusterIP((catalogToJson(snap.catalogs) as { services: Entry[] }).services);
        for (const [k, v] of Object.entries(byClusterIP(truth))) expect(got[k], k).toEqual(v);
      });
    }
  }

  it('a large node (2,000 Services × 10 endpoints): every ClusterIP with its frontends and shares, and traces reach them', () => {
    const opts = { services: randomServices(2000, 10, 7), nodeIPs: NODE_IPS };
    const dumps = generateIpvsSnapshot(opts);
    const files = (['ipvsadm-list', 'ipset-save', 'iptables-save'] as const).map((w) => analyzeFile(`node1/${w}`, dumps[w])!);
    const snap = buildSnapshot(files);
    const truthAll = expectedIpvsCatalog(opts);
    const json = (catalogToJson(snap.catalogs) as { services: Entry[] }).services;
    const got = byClusterIP(json);
    // Every ClusterIP Service is there, once, and none is made up.
    expect(Object.keys(got).sort()).toEqual(Object.keys(byClusterIP(truthAll)).sort());
    const truth = truthAll.filter((e) => e.endpoints.some((x) => x.probability > 0));
    expect(truth.length).toBeGreaterThan(1500);
    for (const [k, v] of Object.entries(byClusterIP(truth))) expect(got[k], k).toEqual(v);
    expect(json.flatMap((s) => s.frontends).some((f) => f.kind === 'nodePort')).toBe(true);
    // The trace over the same snapshot (its IPVS and ipset lookups are indexed) agrees with the catalog.
    const traceFiles = files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));
    for (const e of truth.filter((_, i) => i % 25 === 0)) {
      const c = e.frontends.find((f) => f.kind === 'clusterIP')!;
      const r = traceSnapshot(traceFiles, { to: c.address!, dport: c.port, protocol: e.protocol as 'tcp', entry: 'pod' });
      const reached = Object.fromEntries(r.outcomes.map((o) => [o.destination ?? o.verdict, Number(o.probability.toFixed(6))]));
      expect(reached).toEqual(Object.fromEntries(e.endpoints.filter((x) => x.probability > 0).map((x) => [`${x.address}:${x.port}`, Number(x.probability.toFixed(6))])));
      expect(r.outcomes.every((o) => o.assumptions.length === 0)).toBe(true);
    }
  });

  it('building the snapshot twice gives the same catalog, and each caller its own list of Services', () => {
    const opts = { services: randomServices(60, 3, 4), nodeIPs: NODE_IPS };
    const dumps = generateIpvsSnapshot(opts);
    const files = (['ipvsadm-save', 'ipset-save', 'iptables-save'] as const).map((w) => analyzeFile(`node1/${w}`, dumps[w])!);
    const first = buildSnapshot(files);
    const names = first.services.map((s) => s.name);
    first.services.reverse();
    const second = buildSnapshot(files);
    expect(second.services.map((s) => s.name)).toEqual(names);
    expect(catalogToJson(second.catalogs)).toEqual(catalogToJson(buildSnapshot(files.map((f) => analyzeFile(f.name, dumps[f.name.split('/')[1] as 'ipvsadm-save'])!)).catalogs));
  });

  it('without the ipset dump the frontends are still found, flagged as uncertain kinds', () => {
    const opts = { services: SAMPLE_SERVICES, nodeIPs: NODE_IPS };
    const snap = snapshotOf(opts, ['ipvsadm-save']);
    expect(snap.services.length).toBeGreaterThan(0);
    expect(snap.services.flatMap((s) => s.frontends).every((f) => f.kindUncertain)).toBe(true);
  });

  perfIt('NodePort ranges of a bitmap:port set cost per member, not per port', () => {
    const ipvsadmOf = () => analyzeFile('node1/ipvsadm', '-A -t 192.168.0.10:30080 -s rr\n-a -t 192.168.0.10:30080 -r 10.244.1.5:80 -m -w 1\n')!;
    const ipvsadm = ipvsadmOf();
    const ipset = (members: string) => analyzeFile('node1/ipset', `create KUBE-NODE-PORT-TCP bitmap:port range 0-65535\n${members}`)!;
    const wide = ipset(Array.from({ length: 200 }, () => 'add KUBE-NODE-PORT-TCP 0-65535\n').join(''));
    const narrow = ipset(Array.from({ length: 200 }, (_, i) => `add KUBE-NODE-PORT-TCP ${30_100 + i}-${30_100 + i}\n`).join(''));
    const snap = buildSnapshot([ipvsadm, wide]);
    expect(snap.services[0].frontends.map((f) => f.kind)).toEqual(['nodePort']);
    expect(buildSnapshot([ipvsadm, ipset('add KUBE-NODE-PORT-TCP 30000-30100\n')]).services[0].frontends.map((f) => f.kind)).toEqual(['nodePort']);
    expect(buildSnapshot([ipvsadm, ipset('add KUBE-NODE-PORT-TCP 30081-30100\n')]).services[0].frontends[0].kindUncertain).toBe(true);
    // Same number of members: 65,536 ports each must not cost 65,536 times as much (a new ipvsadm analysis each
    // time: the catalog of one is kept).
    const byText = new Map([
      ['narrow', narrow],
      ['wide', wide],
    ]);
    const ratio = costRatio(
      (which) => {
        for (let k = 0; k < 40; k++) buildSnapshot([ipvsadmOf(), byText.get(which)!]);
      },
      'narrow',
      'wide',
    );
    expect(ratio).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
