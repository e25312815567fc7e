// kube-proxy's own endpoint-selection table, row for row: kubernetes/kubernetes pkg/proxy/topology_test.go,
// TestCategorizeEndpoints (the rows of the 1.2x table that carry `hintsAnnotation`, run with the `annotation`
// rules of 1.27–1.31 kube-proxy; the rest with today's `hints` rules, pkg/proxy/topology.go topologyModeFromHints).
// Left out: the "PTE disabled" rows (ProxyTerminatingEndpoints is GA and can no longer be turned off).
import { describe, expect, it } from 'vitest';
import { allReachable, categorizeEndpoints, type PortPolicy, type ProxyEndpoint, type TopologyInput, type TopologyRules } from '../../src/core/cluster/topology';

interface Ep {
  zoneHints?: string[];
  nodeHints?: string[];
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  local?: boolean;
}

/** Go's zero values, as BaseEndpointInfo literals in the table have them. */
function ep(key: string, e: Ep = {}): ProxyEndpoint {
  return { key, ready: e.ready ?? false, serving: e.serving ?? false, terminating: e.terminating ?? false, local: e.local ?? false, zoneHints: e.zoneHints, nodeHints: e.nodeHints };
}

/** BaseServicePort{internalPolicyLocal, externalPolicyLocal, nodePort}: a nodePort makes it externally accessible. */
function svc(s: { itp?: boolean; etp?: boolean; nodePort?: number } = {}): PortPolicy {
  return { internalPolicyLocal: s.itp ?? false, externalPolicyLocal: s.etp ?? false, externallyAccessible: (s.nodePort ?? 0) !== 0 };
}

interface Row {
  name: string;
  zone?: string;
  nodeName?: string;
  annotation?: string;
  trafficDistribution?: string;
  rules?: TopologyRules;
  service: PortPolicy;
  endpoints: ProxyEndpoint[];
  cluster?: string[];
  local?: string[];
  all?: string[];
  onlyRemote?: boolean;
}

const four = (hints: string[][], extra: Ep[] = []) => hints.map((h, i) => ep(`10.1.2.${3 + i}:80`, { zoneHints: h.length ? h : undefined, ready: true, ...extra[i] }));
const abca = [['zone-a'], ['zone-b'], ['zone-c'], ['zone-a']];
const allFour = ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80', '10.1.2.6:80'];

const annotationRows: Row[] = [
  { name: 'hints enabled, hints annotation == auto', zone: 'zone-a', annotation: 'auto', service: svc(), endpoints: four(abca), cluster: ['10.1.2.3:80', '10.1.2.6:80'] },
  { name: 'hints, hints annotation == disabled, hints ignored', zone: 'zone-a', annotation: 'disabled', service: svc(), endpoints: four(abca), cluster: allFour },
  // 1.23 ignored "aUto"; from 1.27 canUseTopology takes "any non-empty and non-disabled value".
  { name: 'hints, hints annotation == aUto (any non-disabled value from 1.27)', zone: 'zone-a', annotation: 'aUto', service: svc(), endpoints: four(abca), cluster: ['10.1.2.3:80', '10.1.2.6:80'] },
  { name: 'hints, hints annotation empty, hints ignored', zone: 'zone-a', service: svc(), endpoints: four(abca), cluster: allFour },
  {
    name: 'externalTrafficPolicy: Local, topology ignored for Local endpoints',
    zone: 'zone-a',
    annotation: 'auto',
    service: svc({ etp: true, nodePort: 8080 }),
    endpoints: four(abca, [{ local: true }, { local: true }]),
    cluster: ['10.1.2.3:80', '10.1.2.6:80'],
    local: ['10.1.2.3:80', '10.1.2.4:80'],
    all: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, topology ignored for Local endpoints',
    zone: 'zone-a',
    annotation: 'auto',
    service: svc({ itp: true, nodePort: 8080 }),
    endpoints: four(abca, [{ local: true }, { local: true }]),
    cluster: ['10.1.2.3:80', '10.1.2.6:80'],
    local: ['10.1.2.3:80', '10.1.2.4:80'],
    all: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  { name: 'empty node labels', annotation: 'auto', service: svc(), endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'], ready: true })], cluster: ['10.1.2.3:80'] },
  { name: 'empty zone label', zone: '', annotation: 'auto', service: svc(), endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'], ready: true })], cluster: ['10.1.2.3:80'] },
  { name: 'node in different zone, no endpoint filtering', zone: 'zone-b', annotation: 'auto', service: svc(), endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'], ready: true })], cluster: ['10.1.2.3:80'] },
  { name: 'normal endpoint filtering, auto annotation', zone: 'zone-a', annotation: 'auto', service: svc(), endpoints: four(abca), cluster: ['10.1.2.3:80', '10.1.2.6:80'] },
  { name: 'unready endpoint', zone: 'zone-a', annotation: 'auto', service: svc(), endpoints: four(abca, [{}, {}, {}, { ready: false }]), cluster: ['10.1.2.3:80'] },
  {
    name: 'only unready endpoints in same zone (should not filter)',
    zone: 'zone-a',
    annotation: 'auto',
    service: svc(),
    endpoints: four(abca, [{ ready: false }, {}, {}, { ready: false }]),
    cluster: ['10.1.2.4:80', '10.1.2.5:80'],
  },
  { name: 'normal endpoint filtering, Auto annotation', zone: 'zone-a', annotation: 'Auto', service: svc(), endpoints: four(abca), cluster: ['10.1.2.3:80', '10.1.2.6:80'] },
  { name: 'hintsAnnotation empty, no filtering applied', zone: 'zone-a', annotation: '', service: svc(), endpoints: four(abca), cluster: allFour },
  { name: 'hintsAnnotation disabled, no filtering applied', zone: 'zone-a', annotation: 'disabled', service: svc(), endpoints: four(abca), cluster: allFour },
  { name: 'missing hints, no filtering applied', zone: 'zone-a', annotation: 'auto', service: svc(), endpoints: four([['zone-a'], ['zone-b'], [], ['zone-a']]), cluster: allFour },
  {
    name: 'multiple hints per endpoint, filtering includes any endpoint with zone included',
    zone: 'zone-c',
    annotation: 'auto',
    service: svc(),
    endpoints: four([['zone-a', 'zone-b', 'zone-c'], ['zone-b', 'zone-c'], ['zone-b', 'zone-d'], ['zone-c']]),
    cluster: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'conflicting topology and localness require merging allEndpoints',
    zone: 'zone-a',
    annotation: 'auto',
    service: svc({ etp: true, nodePort: 8080 }),
    endpoints: [
      ep('10.0.0.0:80', { zoneHints: ['zone-a'], ready: true, local: true }),
      ep('10.0.0.1:80', { zoneHints: ['zone-b'], ready: true, local: true }),
      ep('10.0.0.2:80', { zoneHints: ['zone-a'], ready: true }),
      ep('10.0.0.3:80', { zoneHints: ['zone-b'], ready: true }),
    ],
    cluster: ['10.0.0.0:80', '10.0.0.2:80'],
    local: ['10.0.0.0:80', '10.0.0.1:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80', '10.0.0.2:80'],
  },
  // 1.30–1.31: trafficDistribution PreferClose stands in for the annotation.
  { name: 'trafficDistribution PreferClose without annotation (1.30)', zone: 'zone-a', trafficDistribution: 'PreferClose', service: svc(), endpoints: four(abca), cluster: ['10.1.2.3:80', '10.1.2.6:80'] },
];

const r2 = (a: Ep, b: Ep) => [ep('10.0.0.0:80', a), ep('10.0.0.1:80', b)];
const policyRows: Row[] = [
  { name: 'internalTrafficPolicy: Local, with empty endpoints', service: svc({ itp: true }), endpoints: [], local: [] },
  { name: 'internalTrafficPolicy: Local, but all endpoints are remote', service: svc({ itp: true }), endpoints: r2({ ready: true }, { ready: true }), local: [], onlyRemote: true },
  { name: 'internalTrafficPolicy: Local, all endpoints are local', service: svc({ itp: true }), endpoints: r2({ ready: true, local: true }, { ready: true, local: true }), local: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'internalTrafficPolicy: Local, some endpoints are local', service: svc({ itp: true }), endpoints: r2({ ready: true, local: true }, { ready: true }), local: ['10.0.0.0:80'] },
  { name: 'Cluster traffic policy, endpoints not Ready', service: svc(), endpoints: r2({}, {}), cluster: [] },
  { name: 'Cluster traffic policy, some endpoints are Ready', service: svc(), endpoints: r2({}, { ready: true }), cluster: ['10.0.0.1:80'] },
  {
    name: 'Cluster traffic policy, PTE enabled, all endpoints are terminating',
    service: svc(),
    endpoints: r2({ serving: true, terminating: true, local: true }, { serving: true, terminating: true }),
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Cluster, some endpoints local',
    service: svc({ itp: true, nodePort: 8080 }),
    endpoints: r2({ ready: true, local: true }, { ready: true }),
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: ['10.0.0.0:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Cluster, eTP: Local, some endpoints local',
    service: svc({ etp: true, nodePort: 8080 }),
    endpoints: r2({ ready: true, local: true }, { ready: true }),
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: ['10.0.0.0:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, some endpoints local',
    service: svc({ itp: true, etp: true, nodePort: 8080 }),
    endpoints: r2({ ready: true, local: true }, { ready: true }),
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: ['10.0.0.0:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, all endpoints remote',
    service: svc({ itp: true, etp: true, nodePort: 8080 }),
    endpoints: r2({ ready: true }, { ready: true }),
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: [],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, PTE enabled, all endpoints remote and terminating',
    service: svc({ itp: true, etp: true, nodePort: 8080 }),
    endpoints: r2({ serving: true, terminating: true }, { serving: true, terminating: true }),
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    local: [],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
    onlyRemote: true,
  },
  {
    name: 'iTP: Cluster, eTP: Local, PTE enabled, with terminating endpoints',
    service: svc({ etp: true, nodePort: 8080 }),
    endpoints: [ep('10.0.0.0:80', { ready: true }), ep('10.0.0.1:80', { local: true }), ep('10.0.0.2:80', { serving: true, terminating: true, local: true }), ep('10.0.0.3:80', { serving: true, terminating: true })],
    cluster: ['10.0.0.0:80'],
    local: ['10.0.0.2:80'],
    all: ['10.0.0.0:80', '10.0.0.2:80'],
  },
  {
    name: 'externalTrafficPolicy ignored if not externally accessible',
    service: svc({ etp: true }),
    endpoints: r2({ ready: true }, { ready: true, local: true }),
    cluster: ['10.0.0.0:80', '10.0.0.1:80'],
    all: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'no cluster endpoints for iTP:Local internal-only service',
    service: svc({ itp: true }),
    endpoints: r2({ ready: true }, { ready: true, local: true }),
    local: ['10.0.0.1:80'],
    all: ['10.0.0.1:80'],
  },
];

// Today's kube-proxy (pkg/proxy/topology.go topologyModeFromHints): hints alone decide; node hints first.
const byNode = (nodes: string[][], zones: string[][]) => nodes.map((n, i) => ep(`10.0.1.${i}:80`, { nodeHints: n.length ? n : undefined, zoneHints: zones[i]?.length ? zones[i] : undefined, ready: true }));
const hintRows: Row[] = [
  { name: 'hints rules: zone hints apply without any annotation', rules: 'hints', zone: 'zone-a', service: svc(), endpoints: four(abca), cluster: ['10.1.2.3:80', '10.1.2.6:80'] },
  { name: 'hints rules: annotation "disabled" does not matter any more', rules: 'hints', zone: 'zone-a', annotation: 'disabled', service: svc(), endpoints: four(abca), cluster: ['10.1.2.3:80', '10.1.2.6:80'] },
  {
    name: 'PreferSameNode: every ready endpoint has a node hint, one for this node',
    rules: 'hints',
    nodeName: 'node-1',
    zone: 'zone-a',
    service: svc(),
    endpoints: byNode([['node-1'], ['node-2'], ['node-3']], [['zone-a'], ['zone-a'], ['zone-b']]),
    cluster: ['10.0.1.0:80'],
  },
  {
    name: 'PreferSameNode: no hint for this node falls back to zone hints',
    rules: 'hints',
    nodeName: 'node-9',
    zone: 'zone-a',
    service: svc(),
    endpoints: byNode([['node-1'], ['node-2'], ['node-3']], [['zone-a'], ['zone-a'], ['zone-b']]),
    cluster: ['10.0.1.0:80', '10.0.1.1:80'],
  },
  {
    name: 'PreferSameNode: one ready endpoint without a node hint spoils node hints',
    rules: 'hints',
    nodeName: 'node-1',
    zone: 'zone-b',
    service: svc(),
    endpoints: byNode([['node-1'], ['node-2'], []], [['zone-a'], ['zone-a'], ['zone-b']]),
    cluster: ['10.0.1.2:80'],
  },
  {
    name: 'PreferSameNode: not-ready endpoints without hints do not count',
    rules: 'hints',
    nodeName: 'node-1',
    service: svc(),
    endpoints: [...byNode([['node-1'], ['node-2']], []), ep('10.0.1.9:80', {})],
    cluster: ['10.0.1.0:80'],
  },
  {
    name: 'node name unknown: node hints cannot apply, no zone hints: no filtering',
    rules: 'hints',
    service: svc(),
    endpoints: byNode([['node-1'], ['node-2']], []),
    cluster: ['10.0.1.0:80', '10.0.1.1:80'],
  },
];

function run(row: Row) {
  const topo: TopologyInput = {
    nodeName: row.nodeName ?? '',
    zone: row.zone ?? '',
    rules: row.rules ?? 'annotation',
    hintsAnnotation: row.annotation,
    trafficDistribution: row.trafficDistribution,
  };
  return categorizeEndpoints(row.endpoints, row.service, topo);
}

const keys = (eps: ProxyEndpoint[] | undefined) => eps?.map((e) => e.key).sort();

describe('categorizeEndpoints (topology_test.go TestCategorizeEndpoints)', () => {
  for (const row of [...annotationRows, ...policyRows, ...hintRows]) {
    it(row.name, () => {
      const got = run(row);
      expect(keys(got.cluster)).toEqual(row.cluster?.slice().sort());
      expect(keys(got.local)).toEqual(row.local?.slice().sort());
      const all = row.all ?? (row.cluster && !row.local ? row.cluster : (row.local ?? []));
      expect(keys(allReachable(got))).toEqual(all.slice().sort());
      expect(got.hasAnyEndpoints).toBe(all.length > 0 || (row.onlyRemote ?? false));
    });
  }
});

describe('why hints were not used', () => {
  it('names the endpoint without a zone hint', () => {
    const got = run({ name: '', rules: 'hints', zone: 'zone-a', service: svc(), endpoints: four([['zone-a'], []]) });
    expect(got.topologyMode).toBe('');
    expect(got.topologyIgnored).toEqual({ kind: 'missing-zone-hint', endpoint: '10.1.2.4:80' });
  });
  it('says the node has no zone label', () => {
    const got = run({ name: '', rules: 'hints', service: svc(), endpoints: four([['zone-a']]) });
    expect(got.topologyIgnored).toEqual({ kind: 'no-zone-label' });
  });
  it('says no endpoint is hinted for this zone', () => {
    const got = run({ name: '', rules: 'hints', zone: 'zone-z', service: svc(), endpoints: four(abca) });
    expect(got.topologyIgnored).toEqual({ kind: 'no-hint-for-zone', zone: 'zone-z' });
  });
  it('says the annotation is missing under the 1.27–1.31 rules', () => {
    const got = run({ name: '', zone: 'zone-a', service: svc(), endpoints: four(abca) });
    expect(got.topologyIgnored).toEqual({ kind: 'not-requested' });
  });
  it('says the Service asked for hints that no endpoint has', () => {
    for (const ask of [{ trafficDistribution: 'PreferClose' }, { annotation: 'Auto' }, { trafficDistribution: 'PreferSameNode', rules: 'hints' as const }]) {
      const got = run({ name: '', zone: 'zone-a', service: svc(), endpoints: four([[], []]), ...ask });
      expect(got.topologyIgnored).toEqual({ kind: 'no-hints' });
    }
  });
  it('says nothing when no endpoint has a hint', () => {
    const got = run({ name: '', rules: 'hints', zone: 'zone-a', service: svc(), endpoints: four([[], []]) });
    expect(got.topologyIgnored).toBeUndefined();
  });
});
