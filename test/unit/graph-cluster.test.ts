// The cluster state on the Service graph: a sample with its cluster-state.yaml and generated nodes with every kind of
// drift (tools/generate/drift.ts). Stale endpoints are marked on the rules' pod, missing and
// topology-filtered ones are ghosts behind dashed edges, Services the node never programmed are listed with their
// API-side graph; the marks are words (badges) with a reason, they survive the message check, Mermaid and SVG.
import { describe, expect, it } from 'vitest';
import { graphOfSnapshot, graphsOfSnapshot } from '../../src/core/graph/snapshot';
import { toMermaid, type ServiceGraph } from '../../src/core/graph/model';
import { parseToWebview } from '../../src/core/graph/protocol';
import { layeredLayout, toSvg } from '../../src/core/graph/svg';
import type { Family } from '../../tools/generate/address';
import { driftSnapshot, sampleSnapshot } from '../helpers/cluster-snapshot';

const byTitle = (graphs: Iterable<ServiceGraph>, title: string) => [...graphs].find((g) => g.title === title)!;

describe('Service graph: the sample with its cluster state', () => {
  const snapshot = sampleSnapshot('iptables-legacy');
  const model = graphOfSnapshot(snapshot);

  it("the stale endpoint of shop/web is marked, with the API reason, on the rules' pod", () => {
    const g = byTitle(model.graphs.values(), 'shop/web:http/tcp');
    const pod = g.nodes.find((n) => n.kind === 'pod' && n.label === '10.244.3.9:8080')!;
    expect(pod.mark).toMatchObject({ kind: 'stale', label: 'stale', severity: 'error' });
    expect(pod.mark!.reason).toMatch(/not ready/);
    expect(pod.badges[0]).toBe('stale');
    // The ready endpoints carry no mark.
    expect(g.nodes.filter((n) => n.kind === 'pod' && n.mark)).toHaveLength(1);
    expect(model.services.find((s) => s.title === 'shop/web:http/tcp')!.mark).toMatchObject({ kind: 'stale' });
  });

  it('kube-dns: the endpoint hinted for zone-b is a ghost marked as filtered, reached by a dashed edge', () => {
    const g = byTitle(model.graphs.values(), 'kube-system/kube-dns:dns/udp');
    const ghost = g.nodes.find((n) => n.mark?.kind === 'filtered')!;
    expect(ghost).toMatchObject({ kind: 'pod', label: '10.244.3.4:53', badges: ['filtered (topology)'] });
    expect(ghost.mark).toMatchObject({ severity: 'info', reason: expect.stringMatching(/zone-b/) });
    expect(g.edges.filter((e) => e.to === ghost.id).every((e) => e.dashed)).toBe(true);
    expect(g.edges.filter((e) => e.to === ghost.id).length).toBeGreaterThan(0);
    // Information, not a drift: the row has no mark.
    expect(model.services.find((s) => s.title === 'kube-system/kube-dns:dns/udp')!.mark).toBeUndefined();
  });

  it('shop/checkout, never programmed, is listed with the mark and its API-side graph has nothing programmed', () => {
    const row = model.services.find((s) => s.title === 'shop/checkout:http/tcp')!;
    expect(row.mark).toMatchObject({ kind: 'not-programmed', label: 'not programmed', severity: 'error' });
    expect(row.mark!.reason).toMatch(/2 usable endpoints/);
    const g = model.graphs.get(row.key)!;
    expect(g.nodes.every((n) => n.mark?.kind === 'not-programmed' && n.source === undefined && n.target === undefined)).toBe(true);
    expect(g.nodes.filter((n) => n.kind === 'pod')).toHaveLength(2);
    expect(g.edges.every((e) => e.dashed)).toBe(true);
    // Asked for again by key (a large snapshot builds graphs on demand), it is the same.
    expect(graphsOfSnapshot(snapshot, [row.key])).toEqual([g]);
  });

  it('the marks pass the webview message check, and Mermaid and SVG carry them', () => {
    const graphs = [byTitle(model.graphs.values(), 'shop/web:http/tcp'), model.graphs.get(model.services.find((s) => s.mark?.kind === 'not-programmed')!.key)!];
    expect(parseToWebview({ type: 'graph', graphs })).toBeDefined();
    expect(parseToWebview({ type: 'graph', graphs: [{ ...graphs[0], nodes: [{ ...graphs[0].nodes[0], mark: { kind: 'bogus', label: 'x', reason: 'y', severity: 'error' } }] }] })).toBeUndefined();
    const mermaid = toMermaid(graphs);
    expect(mermaid).toContain('stale');
    expect(mermaid).toContain('-.->');
    const svg = toSvg(graphs, layeredLayout(graphs));
    expect(svg).toContain('mark-stale');
    expect(svg).toContain('edge dashed');
    expect(svg).toMatch(/<title>[^<]*not ready/);
  });

  it('without a cluster state the graph has no marks', () => {
    const plain = { ...snapshot, cluster: undefined };
    const m = graphOfSnapshot(plain);
    expect(m.services.some((s) => s.mark)).toBe(false);
    expect([...m.graphs.values()].some((g) => g.nodes.some((n) => n.mark) || g.edges.some((e) => e.dashed))).toBe(false);
  });
});

describe("Service graph: the generator's drifts", () => {
  for (const mode of ['iptables', 'nftables', 'ipvs'] as const) {
    for (const family of ['ipv4', 'ipv6'] as Family[]) {
      it(`${mode}, ${family}: every missing and stale endpoint finding is a mark, every not-programmed port a row`, () => {
        const { snapshot } = driftSnapshot(mode, family);
        const model = graphOfSnapshot(snapshot);
        const findings = snapshot.cluster!.check.findings;
        const nodes = [...model.graphs.values()].flatMap((g) => g.nodes);
        const marked = (kind: string) =>
          nodes
            .filter((n) => n.mark?.kind === kind && n.kind === 'pod')
            .map((n) => n.label)
            .sort();
        expect(marked('missing')).toEqual(
          findings
            .filter((f) => f.code === 'missing-endpoint')
            .map((f) => f.endpoint)
            .sort(),
        );
        expect(marked('stale')).toEqual(
          findings
            .filter((f) => f.code === 'stale-endpoint')
            .map((f) => f.endpoint)
            .sort(),
        );
        const rows = model.services.filter((s) => s.mark?.kind === 'not-programmed').map((s) => `${s.namespace}/${s.name}:${s.portName}`);
        expect(rows).toEqual(findings.filter((f) => f.code === 'not-programmed').map((f) => `${f.service.namespace}/${f.service.name}:${f.service.portName}`));
        expect(rows.length).toBeGreaterThan(0);
      });
    }
  }
});
