// The Service graph of Local traffic policies, from dumps made by the project's kube-proxy generator, which
// writes what kube-proxy's pkg/proxy/iptables/proxier.go and pkg/proxy/nftables/proxier.go write: the external
// chain (KUBE-EXT / nft `external-…`) of an externalTrafficPolicy Local Service sends pod sources (`-s
// <clusterCIDR>`, "short-circuit pod traffic") and this node (`addrtype --src-type LOCAL` / `fib saddr type
// local`) to the cluster chain, and everyone else to the local chain (KUBE-SVL / `local-…`), or, with no endpoint
// on this node, nowhere: the filter rule "… has no local endpoints" (nft: a `drop` element of
// no-endpoint-services / no-endpoint-nodeports) drops it. internalTrafficPolicy Local sends the ClusterIP to the
// local chain. "Trace from here" must light one connected path per outcome.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateIptablesDump, randomServices, type GenServicePort } from '../../tools/generate/iptables';
import { generateNftDump } from '../../tools/generate/nft';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';
import { traceHighlight, type TraceHighlight } from '../../src/core/graph/trace';
import type { GraphNode, ServiceGraph } from '../../src/core/graph/model';
import { traceSnapshot, type Entry, type SnapshotFile as TraceFile, type TraceResult } from '../../src/core/trace';
import { analyzeFile, buildSnapshot, type NodeSnapshot } from '../../src/core/snapshot';
import { endpointHash, portProtoHash } from '../../src/core/kube/hash';
import { disconnections } from '../helpers/graph';

const NODE_IP = '192.168.0.2';
const svc = (name: string, clusterIP: string, extra: Partial<GenServicePort>): GenServicePort => ({
  namespace: 'ns',
  name,
  portName: 'http',
  protocol: 'tcp',
  clusterIP,
  port: 80,
  endpoints: [],
  ...extra,
});
const ep = (address: string, local = false) => ({ address, port: 8080, ...(local ? { local: true } : {}) });

const SERVICES: GenServicePort[] = [
  svc('lb-local', '10.96.0.1', { nodePort: 30001, loadBalancerIPs: ['203.0.113.1'], externalTrafficPolicy: 'Local', healthCheckNodePort: 32001, endpoints: [ep('10.244.1.10', true), ep('10.244.2.10')] }),
  svc('lb-remote', '10.96.0.2', { nodePort: 30002, loadBalancerIPs: ['203.0.113.2'], externalTrafficPolicy: 'Local', healthCheckNodePort: 32002, endpoints: [ep('10.244.2.20'), ep('10.244.3.20')] }),
  svc('lb-cluster', '10.96.0.3', { nodePort: 30003, loadBalancerIPs: ['203.0.113.3'], endpoints: [ep('10.244.1.30', true), ep('10.244.2.30')] }),
  svc('itp-local', '10.96.0.4', { internalTrafficPolicy: 'Local', endpoints: [ep('10.244.1.40', true), ep('10.244.2.40')] }),
  svc('itp-remote', '10.96.0.5', { internalTrafficPolicy: 'Local', endpoints: [ep('10.244.2.50')] }),
  svc('itp-nodeport', '10.96.0.6', { internalTrafficPolicy: 'Local', nodePort: 30006, endpoints: [ep('10.244.1.60', true), ep('10.244.2.60')] }),
  svc('itp-remote-nodeport', '10.96.0.7', { internalTrafficPolicy: 'Local', nodePort: 30007, endpoints: [ep('10.244.2.70')] }),
];

const DUMPS: [string, string][] = [
  ['node1.iptables', generateIptablesDump({ services: SERVICES, style: 'iptables-nft-save', nodeRules: true })],
  ['node1.nft', generateNftDump({ services: SERVICES, style: 'nft-list-ruleset', nodeIPs: [NODE_IP] })],
  ['node1.nft.json', generateNftDump({ services: SERVICES, style: 'nft-json', nodeIPs: [NODE_IP] })],
];

function snapshotOf(name: string, text: string): NodeSnapshot {
  const file = analyzeFile(name, text);
  expect(file, name).toBeDefined();
  return buildSnapshot([file!]);
}

/** A node's short name: frontends by address, chains by their kind, endpoint chains by their pod. */
function shortName(g: ServiceGraph, n: GraphNode): string {
  if (n.kind === 'service') {
    const kinds: [RegExp, string][] = [
      [/^(KUBE-SVC-|service-)/, 'SVC'],
      [/^(KUBE-SVL-|local-)/, 'SVL'],
      [/^KUBE-XLB-/, 'XLB'],
      [/^(KUBE-EXT-|external-)/, 'EXT'],
      [/^(KUBE-FW-|firewall-)/, 'FW'],
    ];
    return kinds.find(([re]) => re.test(n.label))?.[1] ?? n.label;
  }
  if (n.kind === 'endpoint') {
    const pod = g.edges.find((e) => e.from === n.id);
    return `sep(${g.nodes.find((m) => m.id === pod?.to)?.label})`;
  }
  return n.label;
}

/** The graph as sorted `from -> to [label]` lines, without the endpoint chain → pod edges. */
function edgeLines(g: ServiceGraph): string[] {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  return g.edges
    .filter((e) => byId.get(e.from)!.kind !== 'endpoint')
    .map((e) => `${shortName(g, byId.get(e.from)!)} -> ${shortName(g, byId.get(e.to)!)}${e.label ? ` [${e.label}]` : ''}`)
    .sort();
}

function graphsOf(snapshot: NodeSnapshot): Map<string, ServiceGraph> {
  const model = graphOfSnapshot(snapshot);
  return new Map(model.services.map((s) => [s.name, model.graphs.get(s.key)!]));
}

/** The highlight is one connected path from the frontend (see disconnections). */
function expectConnected(g: ServiceGraph, h: TraceHighlight): void {
  expect(disconnections(g, h)).toEqual([]);
}

const traceFiles = (snapshot: NodeSnapshot): TraceFile[] => snapshot.files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));

/** The trace "Trace from here" runs on a frontend node, from the given entry point. */
function traceFrom(snapshot: NodeSnapshot, n: GraphNode, entry: Entry): TraceResult {
  const t = n.target!;
  return traceSnapshot(traceFiles(snapshot), { to: t.address ?? NODE_IP, dport: t.port, protocol: 'tcp', entry, nodeIPs: [NODE_IP] });
}

/** The lines, in any order. */
function expectLines(actual: string[], expected: string[]): void {
  expect(actual).toEqual([...expected].sort());
}

/** The lit edges as short lines. */
function litLines(g: ServiceGraph, h: TraceHighlight): string[] {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  return h.edges.map((e) => `${shortName(g, byId.get(e.from)!)} -> ${shortName(g, byId.get(e.to)!)}`).sort();
}

const CIDR = 'from pods (10.0.0.0/8) or this node';

describe.each(DUMPS)('Local traffic policies on the graph (%s)', (name, text) => {
  const snapshot = snapshotOf(name, text);
  const graphs = graphsOf(snapshot);
  const frontend = (g: ServiceGraph, label: string) => g.nodes.find((n) => n.kind === 'frontend' && n.label === label)!;

  it('externalTrafficPolicy Local with a local endpoint: EXT branches to SVC (pods, this node) and SVL (100% local)', () => {
    expectLines(edgeLines(graphs.get('lb-local')!), [
      ':30001 -> EXT',
      '10.96.0.1:80 -> SVC',
      '203.0.113.1:80 -> EXT',
      `EXT -> SVC [${CIDR}]`,
      'EXT -> SVL [other sources]',
      'SVC -> sep(10.244.1.10:8080) [50%]',
      'SVC -> sep(10.244.2.10:8080) [50%]',
      'SVL -> sep(10.244.1.10:8080) [100%]',
    ]);
  });

  it('externalTrafficPolicy Local with no local endpoint: other sources go to the DROP rule kube-proxy writes', () => {
    const g = graphs.get('lb-remote')!;
    expectLines(edgeLines(g), [
      ':30002 -> EXT',
      '10.96.0.2:80 -> SVC',
      '203.0.113.2:80 -> EXT',
      `EXT -> DROP [other sources]`,
      `EXT -> SVC [${CIDR}]`,
      'SVC -> sep(10.244.2.20:8080) [50%]',
      'SVC -> sep(10.244.3.20:8080) [50%]',
    ]);
    const drop = g.nodes.find((n) => n.kind === 'verdict')!;
    expect(drop.detail).toBe('no local endpoints: dropped');
    // It reveals the rule (iptables) or the map element (nft) that drops.
    const line = text.split('\n')[drop.source!.range.start.line];
    expect(line).toMatch(name.endsWith('.iptables') ? /has no local endpoints.*-j DROP/ : /no-endpoint-|drop/);
  });

  it('externalTrafficPolicy Cluster is unchanged: EXT → SVC without a condition', () => {
    expectLines(edgeLines(graphs.get('lb-cluster')!), [':30003 -> EXT', '10.96.0.3:80 -> SVC', '203.0.113.3:80 -> EXT', 'EXT -> SVC', 'SVC -> sep(10.244.1.30:8080) [50%]', 'SVC -> sep(10.244.2.30:8080) [50%]']);
  });

  it('internalTrafficPolicy Local: the ClusterIP goes to SVL (or its DROP); external frontends still to SVC', () => {
    expectLines(edgeLines(graphs.get('itp-local')!), ['10.96.0.4:80 -> SVL', 'SVL -> sep(10.244.1.40:8080) [100%]']);
    // nft: the no-endpoint-services element that drops is the Service's only object.
    expectLines(edgeLines(graphs.get('itp-remote')!), name.endsWith('.iptables') ? ['10.96.0.5:80 -> DROP'] : ['10.96.0.5:80 -> no-endpoint-services', 'no-endpoint-services -> DROP']);
    expect(graphs.get('itp-remote')!.nodes.find((n) => n.kind === 'verdict')!.detail).toBe('no local endpoints: dropped');
    expectLines(edgeLines(graphs.get('itp-nodeport')!), [
      ':30006 -> EXT',
      '10.96.0.6:80 -> SVL',
      'EXT -> SVC',
      'SVC -> sep(10.244.1.60:8080) [50%]',
      'SVC -> sep(10.244.2.60:8080) [50%]',
      'SVL -> sep(10.244.1.60:8080) [100%]',
    ]);
    // No endpoint here: the ClusterIP is dropped ("has no local endpoints"), the NodePort still reaches every endpoint.
    const remote = graphs.get('itp-remote-nodeport')!;
    expectLines(edgeLines(remote), [':30007 -> EXT', '10.96.0.7:80 -> DROP', 'EXT -> SVC', 'SVC -> sep(10.244.2.70:8080) [100%]']);
    const drop = remote.nodes.find((n) => n.kind === 'verdict')!;
    expect(drop.detail).toBe('no local endpoints: dropped');
  });

  it('Trace from here on the LoadBalancer takes the branch of its source, one connected path each', () => {
    const g = graphs.get('lb-local')!;
    const lb = frontend(g, '203.0.113.1:80');
    const external = traceHighlight([g], traceFrom(snapshot, lb, 'external'));
    expectConnected(g, external);
    expectLines(litLines(g, external), ['203.0.113.1:80 -> EXT', 'EXT -> SVL', 'SVL -> sep(10.244.1.10:8080)', 'sep(10.244.1.10:8080) -> 10.244.1.10:8080']);
    // The branch says its condition, not a share; the endpoint choice keeps its share.
    const labels = external.edges.map((e) => e.label);
    expect(labels).toContain('other sources');
    expect(labels).toContain('100%');
    for (const entry of ['pod', 'node'] as const) {
      const h = traceHighlight([g], traceFrom(snapshot, lb, entry));
      expectConnected(g, h);
      expectLines(litLines(g, h), [
        '203.0.113.1:80 -> EXT',
        'EXT -> SVC',
        'SVC -> sep(10.244.1.10:8080)',
        'SVC -> sep(10.244.2.10:8080)',
        'sep(10.244.1.10:8080) -> 10.244.1.10:8080',
        'sep(10.244.2.10:8080) -> 10.244.2.10:8080',
      ]);
    }
  });

  it('Trace from here with no local endpoint lights EXT → DROP for outside clients', () => {
    const g = graphs.get('lb-remote')!;
    for (const label of ['203.0.113.2:80', ':30002']) {
      const result = traceFrom(snapshot, frontend(g, label), 'external');
      expect(result.outcomes.map((o) => o.verdict)).toEqual(['drop']);
      const h = traceHighlight([g], result);
      expectConnected(g, h);
      expectLines(litLines(g, h), [`${label} -> EXT`, 'EXT -> DROP']);
    }
  });

  it('every frontend of every Service, traced from every entry, lights a connected path', () => {
    for (const g of graphs.values()) {
      for (const n of g.nodes.filter((m) => m.kind === 'frontend')) {
        for (const entry of ['external', 'pod', 'node'] as const) {
          const h = traceHighlight([g], traceFrom(snapshot, n, entry));
          expect(h.nodes.length, `${g.title} ${n.label} ${entry}`).toBeGreaterThan(0);
          expectConnected(g, h);
        }
      }
    }
  });
});

describe('the local-traffic detector by interface (--detect-local-mode InterfaceNamePrefix / BridgeInterface)', () => {
  // kube-proxy's detectors (pkg/proxy/util/localdetector.go) write `-i veth+` / `-i cbr0` (iptables) and
  // `iifname "veth*"` / `iif "cbr0"` (nft) where the CIDR mode writes `-s` / `ip saddr`.
  const cases: [string, string, string, string][] = [
    ['node1.iptables', 'veth+', '-i veth+', DUMPS[0][1]],
    ['node1.iptables', 'cbr0', '-i cbr0', DUMPS[0][1]],
    ['node1.nft', 'veth*', 'iifname "veth*"', DUMPS[1][1]],
    ['node1.nft', 'cbr0', 'iif "cbr0"', DUMPS[1][1]],
  ];
  it.each(cases)('%s with %s: the short-circuit edge names the interface', (name, iface, match, original) => {
    const text = name.endsWith('.nft')
      ? original.replace(/ip saddr 10\.0\.0\.0\/8 (goto service-\S+ comment "short-circuit pod traffic")/g, `${match} $1`)
      : original.replace(/^(-A KUBE-EXT-\S+) -s 10\.0\.0\.0\/8 (-m comment --comment "pod traffic for)/gm, `$1 ${match} $2`);
    expect(text).toContain(match);
    const snapshot = snapshotOf(name, text);
    expect(snapshot.files[0].analysis.diagnostics.filter((d: { severity: string }) => d.severity === 'error')).toEqual([]);
    expect(edgeLines(graphsOf(snapshot).get('lb-local')!)).toContain(`EXT -> SVC [from pods (in ${iface}) or this node]`);
  });
});

describe('traced highlights are connected paths (property)', () => {
  it('on random kube-proxy nodes, for every frontend and entry point', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom('iptables', 'nft'), (seed, mode) => {
        const services = randomServices(12, 3, seed);
        const text = mode === 'iptables' ? generateIptablesDump({ services, style: 'iptables-nft-save' }) : generateNftDump({ services, style: 'nft-list-ruleset', nodeIPs: [NODE_IP] });
        const snapshot = snapshotOf(mode === 'iptables' ? 'n.iptables' : 'n.nft', text);
        for (const g of graphsOf(snapshot).values()) {
          for (const n of g.nodes.filter((m) => m.kind === 'frontend')) {
            const entry: Entry = n.target!.frontend === 'clusterIP' ? 'pod' : 'external';
            expectConnected(g, traceHighlight([g], traceFrom(snapshot, n, entry)));
          }
        }
      }),
      { numRuns: 6 },
    );
  });

  it('for any outcomes a trace could report on a graph', () => {
    const snapshot = snapshotOf(...DUMPS[0]);
    const all = [...graphsOf(snapshot).values()];
    const graphArb = fc.constantFrom(...all);
    fc.assert(
      fc.property(
        graphArb.chain((g) => {
          const chains = g.nodes.filter((n) => n.kind === 'service' || n.kind === 'endpoint').map((n) => n.label);
          const pods = g.nodes.filter((n) => n.kind === 'pod').map((n) => n.label);
          const outcome = fc.record({
            verdict: fc.constantFrom('dnat' as const, 'accept' as const, 'drop' as const, 'reject' as const),
            destination: fc.option(fc.constantFrom(...pods, '10.9.9.9:1'), { nil: undefined }),
            chains: fc.subarray(chains),
          });
          const fronts = g.nodes.filter((n) => n.kind === 'frontend');
          return fc.tuple(fc.constant(g), fc.constantFrom(...fronts), fc.array(outcome, { minLength: 1, maxLength: 4 }));
        }),
        ([g, f, outcomes]) => {
          const result: TraceResult = {
            packet: { src: '203.0.113.99', dst: f.target!.address ?? NODE_IP, protocol: 'tcp', dport: f.target!.port, entry: 'external' },
            outcomes: outcomes.map((o) => ({
              verdict: o.verdict,
              ...(o.destination !== undefined ? { destination: o.destination } : {}),
              probability: 1 / outcomes.length,
              masquerade: false,
              assumptions: [],
              conditions: [],
              notes: [],
              path: o.chains.map((chain, line) => ({ fileIndex: 0, line: 100_000 + line, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, table: 'nat', chain, text: '', note: '' })),
            })),
            warnings: [],
            context: { nodeIPs: [NODE_IP] },
          };
          const h = traceHighlight([g], result);
          expectConnected(g, h);
          expect(h.nodes.some((n) => n.id === f.id)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * Older kube-proxy (before KUBE-EXT/KUBE-SVL): one KUBE-XLB chain short-circuits pods (`-s <clusterCIDR>`, "Redirect
 * pods trying to reach external loadbalancer VIP to clusterIP") and this node (`addrtype --src-type LOCAL`) to
 * KUBE-SVC, then balances over the local endpoints; KUBE-FW jumps to it. Shaped after kube-proxy's
 * pkg/proxy/iptables/proxier.go of that time and the `iptables-save` of such nodes quoted in public write-ups.
 */
function legacyXlbDump(): string {
  const spn = 'default/test:http';
  const hash = portProtoHash(spn, 'tcp');
  const sep = (ip: string) => `KUBE-SEP-${endpointHash(spn, 'tcp', `${ip}:8080`)}`;
  const [a, b] = [sep('10.244.1.8'), sep('10.244.2.9')];
  const c = `-m comment --comment "${spn}"`;
  const dnat = (chain: string, ip: string) => [`-A ${chain} -s ${ip}/32 ${c} -j KUBE-MARK-MASQ`, `-A ${chain} -p tcp ${c} -m tcp -j DNAT --to-destination ${ip}:8080`];
  return [
    '*nat',
    ...['PREROUTING ACCEPT', 'INPUT ACCEPT', 'OUTPUT ACCEPT', 'POSTROUTING ACCEPT'].map((x) => `:${x} [0:0]`),
    ...['KUBE-MARK-DROP', 'KUBE-MARK-MASQ', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-SERVICES', `KUBE-FW-${hash}`, `KUBE-SVC-${hash}`, `KUBE-XLB-${hash}`, a, b].map((x) => `:${x} - [0:0]`),
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
    '-A KUBE-MARK-DROP -j MARK --set-xmark 0x8000/0x8000',
    '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000',
    `-A KUBE-NODEPORTS -s 127.0.0.0/8 -p tcp ${c} -m tcp --dport 30000 -j KUBE-MARK-MASQ`,
    `-A KUBE-NODEPORTS -p tcp ${c} -m tcp --dport 30000 -j KUBE-XLB-${hash}`,
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -m mark --mark 0x4000/0x4000 -j MASQUERADE',
    ...dnat(a, '10.244.1.8'),
    ...dnat(b, '10.244.2.9'),
    `-A KUBE-SERVICES ! -s 10.244.0.0/16 -d 10.96.0.50/32 -p tcp -m comment --comment "${spn} cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ`,
    `-A KUBE-SERVICES -d 10.96.0.50/32 -p tcp -m comment --comment "${spn} cluster IP" -m tcp --dport 80 -j KUBE-SVC-${hash}`,
    `-A KUBE-SERVICES -d 203.0.113.50/32 -p tcp -m comment --comment "${spn} loadbalancer IP" -m tcp --dport 80 -j KUBE-FW-${hash}`,
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
    `-A KUBE-FW-${hash} -m comment --comment "${spn} loadbalancer IP" -j KUBE-XLB-${hash}`,
    `-A KUBE-FW-${hash} -m comment --comment "${spn} loadbalancer IP" -j KUBE-MARK-DROP`,
    `-A KUBE-SVC-${hash} ${c} -m statistic --mode random --probability 0.50000000000 -j ${a}`,
    `-A KUBE-SVC-${hash} ${c} -j ${b}`,
    `-A KUBE-XLB-${hash} -s 10.244.0.0/16 -m comment --comment "Redirect pods trying to reach external loadbalancer VIP to clusterIP" -j KUBE-SVC-${hash}`,
    `-A KUBE-XLB-${hash} -m comment --comment "masquerade LOCAL traffic for ${spn} LB IP" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
    `-A KUBE-XLB-${hash} -m comment --comment "route LOCAL traffic for ${spn} LB IP to service chain" -m addrtype --src-type LOCAL -j KUBE-SVC-${hash}`,
    `-A KUBE-XLB-${hash} -m comment --comment "Balancing rule 0 for ${spn}" -j ${a}`,
    'COMMIT',
    '',
  ].join('\n');
}

describe('older kube-proxy: KUBE-XLB is the local chain and its own short-circuit', () => {
  const snapshot = snapshotOf('legacy.iptables', legacyXlbDump());
  const g = graphsOf(snapshot).get('test')!;

  it('draws FW → XLB, NodePort → XLB, XLB → SVC for pods and this node, XLB → its local endpoint', () => {
    expect(snapshot.files[0].analysis.diagnostics?.filter((d: { severity: string }) => d.severity === 'error') ?? []).toEqual([]);
    expectLines(edgeLines(g), [
      ':30000 -> XLB',
      '10.96.0.50:80 -> SVC',
      '203.0.113.50:80 -> FW',
      'FW -> XLB',
      'XLB -> SVC [from pods (10.244.0.0/16) or this node]',
      'XLB -> sep(10.244.1.8:8080) [100%]',
      'SVC -> sep(10.244.1.8:8080) [50%]',
      'SVC -> sep(10.244.2.9:8080) [50%]',
    ]);
  });

  it('Trace from here takes XLB to the local endpoint from outside, to KUBE-SVC from a pod', () => {
    const lb = g.nodes.find((n) => n.kind === 'frontend' && n.label === '203.0.113.50:80')!;
    const outside = traceHighlight([g], traceFrom(snapshot, lb, 'external'));
    expectConnected(g, outside);
    expectLines(litLines(g, outside), ['203.0.113.50:80 -> FW', 'FW -> XLB', 'XLB -> sep(10.244.1.8:8080)', 'sep(10.244.1.8:8080) -> 10.244.1.8:8080']);
    // From a pod of this node (the trace's own guess of a pod address does not read this older masquerade rule).
    const pod = traceHighlight([g], traceSnapshot(traceFiles(snapshot), { to: '203.0.113.50', dport: 80, protocol: 'tcp', from: '10.244.1.99', entry: 'pod', nodeIPs: [NODE_IP] }));
    expectConnected(g, pod);
    expect(litLines(g, pod)).toContain('XLB -> SVC');
  });
});
