import { describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';
import { generateIptablesDump } from '../../src/core/kube/generate/iptables';
import { SAMPLE_SERVICES, sampleFiles } from '../../src/core/kube/generate/samples';
import { buildGraphModel, toMermaid, type ServiceGraph } from '../../src/core/graph/model';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';
import { parseFromWebview, parseToWebview } from '../../src/core/graph/protocol';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';

const text = generateIptablesDump({ services: SAMPLE_SERVICES, style: 'iptables-nft-save', nodeRules: true, date: 'Sun Nov 29 12:00:00 2026' });
const lines = text.split('\n');
const analysis = analyzeIptables(text);

function graphOf(title: string): ServiceGraph {
  const model = graphOfSnapshot(buildSnapshot([analyzeFile('node1.iptables', text)!]));
  const summary = model.services.find((s) => s.title === title);
  expect(summary, title).toBeDefined();
  return model.graphs.get(summary!.key)!;
}

const lineAt = (n: { source?: { range: { start: { line: number } } } }) => lines[n.source!.range.start.line];

describe('graph model (iptables)', () => {
  it('lists every Service with counts and flags', () => {
    const model = buildGraphModel(analysis.catalog.services);
    const titles = model.services.map((s) => s.title);
    expect(titles).toContain('shop/web:http/tcp');
    expect(model.services.find((s) => s.title === 'shop/payments:https/tcp')?.noEndpoints).toBe(true);
    expect(model.services.find((s) => s.title === 'shop/web:http/tcp')?.endpointCount).toBe(3);
    expect(new Set(model.services.map((s) => s.key)).size).toBe(model.services.length);
  });

  it('draws frontends → KUBE-SVC → KUBE-SEP → pods with shares', () => {
    const g = graphOf('shop/web:http/tcp');
    const frontends = g.nodes.filter((n) => n.kind === 'frontend').map((n) => `${n.detail} ${n.label}`);
    expect(frontends).toEqual(['ClusterIP 10.96.12.40:80', 'NodePort :30080']);
    const svc = g.nodes.find((n) => n.kind === 'service' && n.label.startsWith('KUBE-SVC-'))!;
    expect(lineAt(svc)).toMatch(/^:KUBE-SVC-/);
    const pods = g.nodes.filter((n) => n.kind === 'pod').map((n) => n.label).sort();
    expect(pods).toEqual(['10.244.1.7:8080', '10.244.2.8:8080', '10.244.3.9:8080']);
    const shares = g.edges.filter((e) => e.share !== undefined && e.from === svc.id).map((e) => e.share!);
    expect(shares).toHaveLength(3);
    for (const s of shares) expect(s).toBeCloseTo(1 / 3, 6);
    // Every endpoint node reveals its DNAT rule.
    for (const ep of g.nodes.filter((n) => n.kind === 'endpoint')) expect(lineAt(ep)).toMatch(new RegExp(`^-A ${ep.label} .*DNAT`));
    // Every node has a source, every edge joins known nodes, layers grow left to right.
    const ids = new Map(g.nodes.map((n) => [n.id, n]));
    for (const n of g.nodes) expect(n.source, n.id).toBeDefined();
    for (const e of g.edges) expect(ids.get(e.to)!.layer).toBeGreaterThan(ids.get(e.from)!.layer);
  });

  it('shows affinity, Local and the no-endpoint verdict', () => {
    expect(graphOf('shop/cart/tcp').nodes.some((n) => n.badges.some((b) => b.includes('affinity ClientIP 10800s')))).toBe(true);
    const gateway = graphOf('ingress/gateway:https/tcp');
    expect(gateway.nodes.some((n) => n.detail === 'LoadBalancer' && n.label === '203.0.113.10:443')).toBe(true);
    expect(gateway.nodes.some((n) => n.badges.includes('Local'))).toBe(true);
    const payments = graphOf('shop/payments:https/tcp');
    const verdict = payments.nodes.find((n) => n.kind === 'verdict')!;
    expect(verdict.label).toBe('REJECT');
    expect(lineAt(verdict)).toMatch(/REJECT/);
    expect(payments.edges.some((e) => e.to === verdict.id)).toBe(true);
  });

  it('works for the nftables and IPVS samples too', () => {
    const files = sampleFiles();
    const nft = graphOfSnapshot(buildSnapshot([analyzeFile('node1.nft', files['nftables/node1.nft'])!]));
    const nweb = nft.graphs.get(nft.services.find((s) => s.title === 'shop/web:http/tcp')!.key)!;
    expect(nweb.nodes.filter((n) => n.kind === 'pod')).toHaveLength(3);
    const ipvsFiles = ['ipvs/node1.ipvsadm', 'ipvs/node1.ipset', 'ipvs/node1.iptables'].map((p) => analyzeFile(p, files[p])!);
    const ipvs = graphOfSnapshot(buildSnapshot(ipvsFiles));
    const iweb = ipvs.graphs.get(ipvs.services.find((s) => s.frontends.includes('ClusterIP 10.96.12.40:80'))!.key)!;
    expect(iweb.nodes.filter((n) => n.kind === 'pod')).toHaveLength(3);
    const vs = iweb.nodes.filter((n) => n.kind === 'service');
    expect(vs.length).toBeGreaterThan(0);
    for (const n of vs) expect(n.source?.fileIndex).toBe(0);
    for (const n of iweb.nodes.filter((x) => x.kind === 'pod')) expect(ipvsFiles[n.source!.fileIndex].name).toBe('ipvs/node1.ipvsadm');
  });
});

describe('toMermaid', () => {
  it('is a left-to-right flowchart with escaped labels', () => {
    const g = graphOf('kube-system/kube-dns:dns/udp');
    const m = toMermaid([g]);
    expect(m.startsWith('flowchart LR\n')).toBe(true);
    expect(m).toContain('-->|"50%"|');
    expect(m).toContain('10.96.0.10:53 (ClusterIP)');
  });

  it('matches the golden flowchart of shop/web', () => {
    expect(toMermaid([graphOf('shop/web:http/tcp')])).toMatchInlineSnapshot(`
      "flowchart LR
        subgraph s0["shop/web:http/tcp"]
          n0["KUBE-SVC-67NZLRHBNDSAWJRO (service chain) [masquerade ! 10.0.0.0/8]"]
          n1["KUBE-EXT-67NZLRHBNDSAWJRO (external chain)"]
          n2(["10.96.12.40:80 (ClusterIP)"])
          n3([":30080 (NodePort)"])
          n4(["10.244.1.7:8080 (pod)"])
          n5["KUBE-SEP-UGQTAJUJOQJVZIEC (endpoint chain)"]
          n6(["10.244.2.8:8080 (pod)"])
          n7["KUBE-SEP-OOU4MFCTGRJM4IXC (endpoint chain)"]
          n8(["10.244.3.9:8080 (pod)"])
          n9["KUBE-SEP-RWEQV2B7Q5U44J6N (endpoint chain)"]
        end
        n1 --> n0
        n2 --> n0
        n3 --> n1
        n5 --> n4
        n0 -->|"33.3%"| n5
        n7 --> n6
        n0 -->|"33.3%"| n7
        n9 --> n8
        n0 -->|"33.3%"| n9
      "
    `);
  });

  it('keeps hostile text inert', () => {
    const hostile: ServiceGraph = {
      key: 'k',
      title: '"]; click n0 call alert(1) <img src=x onerror=alert(1)>`',
      nodes: [{ id: 'k#a', kind: 'pod', layer: 0, label: '</script><script>alert(1)</script>\n"|end', detail: '', badges: [] }],
      edges: [],
    };
    const m = toMermaid([hostile]);
    for (const bad of ['<', '>', '`', '\n"', 'alert(1)<', '";', '|end']) expect(m).not.toContain(bad);
    expect(m.split('\n').filter(Boolean)).toHaveLength(4);
  });
});

describe('protocol', () => {
  it('accepts only well-formed messages', () => {
    expect(parseFromWebview({ type: 'reveal', nodeId: 'x' })).toEqual({ type: 'reveal', nodeId: 'x' });
    expect(parseFromWebview({ type: 'reveal', nodeId: 3 })).toBeUndefined();
    expect(parseFromWebview({ type: 'select', keys: ['a', 1] })).toBeUndefined();
    expect(parseFromWebview({ type: 'eval' })).toBeUndefined();
    expect(parseFromWebview(null)).toBeUndefined();
    const g = graphOf('shop/web:http/tcp');
    expect(parseToWebview(JSON.parse(JSON.stringify({ type: 'graph', graphs: [g] })))).toBeDefined();
    expect(parseToWebview({ type: 'graph', graphs: [{ ...g, nodes: [{ ...g.nodes[0], kind: 'script' }] }] })).toBeUndefined();
  });
});
