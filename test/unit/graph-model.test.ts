import { describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';
import { generateIptablesDump } from '../../tools/generate/iptables';
import { SAMPLE_SERVICES, sampleFiles } from '../../tools/generate/samples';
import { buildGraphModel, findService, graphsOf, keysWhere, toMermaid, type ServiceGraph } from '../../src/core/graph/model';
import { layeredLayout, toSvg } from '../../src/core/graph/svg';
import { traceHighlight } from '../../src/core/graph/trace';
import { describeService } from '../../src/core/explain/service';
import { MarkdownBuilder } from '../../src/core/explain/markdown';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';
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
    const pods = g.nodes
      .filter((n) => n.kind === 'pod')
      .map((n) => n.label)
      .sort();
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
    expect(parseFromWebview({ type: 'timing', timeOrigin: 1, marks: { ready: 2.5 } })).toEqual({ type: 'timing', timeOrigin: 1, marks: { ready: 2.5 } });
    expect(parseFromWebview({ type: 'timing', timeOrigin: 1, marks: { ready: 'soon' } })).toBeUndefined();
    expect(parseFromWebview({ type: 'timing', timeOrigin: 1, marks: { '<b>': 1 } })).toBeUndefined();
    expect(parseFromWebview({ type: 'timing', timeOrigin: 1, marks: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`m${'x'.repeat(i)}`, i])) })).toBeUndefined();
    const g = graphOf('shop/web:http/tcp');
    expect(parseToWebview(JSON.parse(JSON.stringify({ type: 'graph', graphs: [g] })))).toBeDefined();
    expect(parseToWebview({ type: 'graph', graphs: [{ ...g, nodes: [{ ...g.nodes[0], kind: 'script' }] }] })).toBeUndefined();
  });
});

describe('trace on the graph', () => {
  const snapshot = buildSnapshot([analyzeFile('node1.iptables', text)!]);
  const model = graphOfSnapshot(snapshot);
  const web = model.graphs.get(model.services.find((s) => s.title === 'shop/web:http/tcp')!.key)!;
  const traceFiles = snapshot.files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));

  it('highlights frontend → KUBE-SVC → every KUBE-SEP → pod with the shares of a ClusterIP trace', () => {
    const result = traceSnapshot(traceFiles, { to: '10.96.12.40', dport: 80, protocol: 'tcp', entry: 'pod' });
    const h = traceHighlight([web], result);
    const byId = new Map(web.nodes.map((n) => [n.id, n]));
    const lit = h.nodes.map((n) => ({ ...byId.get(n.id)!, share: n.share }));
    expect(lit.filter((n) => n.kind === 'frontend').map((n) => n.detail)).toEqual(['ClusterIP']);
    expect(lit.some((n) => n.kind === 'service' && n.label.startsWith('KUBE-SVC-'))).toBe(true);
    // Not the external chain: a ClusterIP connection does not pass KUBE-EXT.
    expect(lit.some((n) => n.label.startsWith('KUBE-EXT-'))).toBe(false);
    const pods = lit.filter((n) => n.kind === 'pod');
    expect(pods.map((n) => n.label).sort()).toEqual(['10.244.1.7:8080', '10.244.2.8:8080', '10.244.3.9:8080']);
    for (const p of pods) expect(p.share).toBeCloseTo(1 / 3, 6);
    expect(lit.filter((n) => n.kind === 'endpoint')).toHaveLength(3);
    const svc = lit.find((n) => n.kind === 'service')!;
    expect(h.nodes.find((n) => n.id === svc.id)!.share).toBeCloseTo(1, 6);
    const fromSvc = h.edges.filter((e) => e.from === svc.id);
    expect(fromSvc).toHaveLength(3);
    for (const e of fromSvc) expect(e.label).toBe('33.3%');
    for (const e of h.edges) expect(web.edges.some((m) => m.from === e.from && m.to === e.to)).toBe(true);
    expect(h.title).toBe('tcp 10.96.12.40:80');
  });

  it('a NodePort trace enters by the NodePort frontend and the external chain; another Service stays dark', () => {
    const result = traceSnapshot(traceFiles, { to: '192.168.0.10', dport: 30080, protocol: 'tcp', entry: 'external', nodeIPs: ['192.168.0.10'] });
    expect(result.outcomes.length).toBeGreaterThan(0);
    const h = traceHighlight([web], result);
    const lit = new Set(h.nodes.map((n) => n.id));
    const labels = web.nodes.filter((n) => lit.has(n.id)).map((n) => `${n.kind}:${n.detail === 'NodePort' ? 'NodePort' : n.label.slice(0, 9)}`);
    expect(labels).toContain('frontend:NodePort');
    expect(labels).toContain('service:KUBE-EXT-');
    expect(labels.filter((l) => l.startsWith('pod:'))).toHaveLength(3);
    const payments = model.graphs.get(model.services.find((s) => s.title === 'shop/payments:https/tcp')!.key)!;
    expect(traceHighlight([payments], result).nodes).toEqual([]);
  });

  it('a trace to a Service without endpoints lights its REJECT node', () => {
    const payments = model.graphs.get(model.services.find((s) => s.title === 'shop/payments:https/tcp')!.key)!;
    const cluster = payments.nodes.find((n) => n.kind === 'frontend' && n.target?.frontend === 'clusterIP')!;
    const result = traceSnapshot(traceFiles, { to: cluster.target!.address!, dport: cluster.target!.port, protocol: 'tcp', entry: 'pod' });
    const h = traceHighlight([payments], result);
    const verdict = payments.nodes.find((n) => n.kind === 'verdict')!;
    expect(h.nodes.map((n) => n.id)).toContain(verdict.id);
    expect(h.nodes.map((n) => n.id)).toContain(cluster.id);
  });
});

describe('Show in Graph', () => {
  it('finds a Service by title and family, preferring the given file', () => {
    const model = graphOfSnapshot(buildSnapshot([analyzeFile('a.iptables', text)!, analyzeFile('b.iptables', text)!]));
    const keys = model.services.filter((s) => s.title === 'shop/web:http/tcp').map((s) => s.key);
    expect(keys).toHaveLength(2);
    expect(findService(model, { title: 'shop/web:http/tcp' })).toBe(keys[0]);
    expect(findService(model, { title: 'shop/web:http/tcp', fileIndex: 1 })).toBe(keys[1]);
    expect(findService(model, { title: 'shop/web:http/tcp', family: 'ipv6' })).toBeUndefined();
    expect(findService(model, { title: 'nope' })).toBeUndefined();
  });

  it('the hover link carries the Service as encoded JSON that no title can break out of', () => {
    const s = { ...analysis.catalog.services[0], anonymous: true, name: 'x) [y](command:evil "t" <img src=x onerror=alert(1)>' };
    const out = new MarkdownBuilder();
    describeService(out, s);
    const link = /\]\((command:dataplane\.showGraph\?[^ )]*) "/.exec(out.markdown())![1];
    expect(link).toMatch(/^command:dataplane\.showGraph\?[A-Za-z0-9%._~-]+$/);
    expect(JSON.parse(decodeURIComponent(link.slice(link.indexOf('?') + 1)))).toEqual([null, { title: `${s.name}/${s.protocol}`, family: s.family }]);
    expect(out.commands).toContain('dataplane.showGraph');
  });
});

describe('SVG export', () => {
  const hostile: ServiceGraph = {
    key: 'k',
    title: '</text><script>alert(1)</script>',
    nodes: [
      { id: 'k#a', kind: 'frontend', layer: 0, label: '<img src=x onerror=alert(1)>', detail: '"quoted" & `tick`', badges: ['x'.repeat(10_000)] },
      { id: 'k#b', kind: 'pod', layer: 1, label: ']]><svg onload=alert(1)>\u0001', detail: "it's", badges: [] },
    ],
    edges: [{ from: 'k#a', to: 'k#b', share: 0.5, label: '50%<b>' }],
  };

  it('is a standalone SVG document with every node and edge at the given positions', () => {
    const g = graphOf('shop/web:http/tcp');
    const svg = toSvg([g], layeredLayout([g]));
    expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<g class="node /g)).toHaveLength(g.nodes.length);
    expect(svg.match(/<path class="edge/g)).toHaveLength(g.edges.length);
    for (const n of g.nodes) expect(svg).toContain(`>${n.label}</text>`);
    expect(svg).toContain('>33.3%</text>');
    // No external references: styles inline, no href, no script.
    expect(svg).not.toMatch(/href|<script|url\((?!#arrow\))/);
  });

  it('escapes hostile text: only its own elements, no attribute or CDATA break-out, no control characters', () => {
    const svg = toSvg([hostile], layeredLayout([hostile]));
    const tags = new Set([...svg.matchAll(/<\/?([A-Za-z?][\w:-]*)/g)].map((m) => m[1]));
    expect([...tags].sort()).toEqual(['?xml', 'defs', 'g', 'marker', 'path', 'rect', 'style', 'svg', 'text', 'title']);
    expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(svg).toContain('&quot;quoted&quot; &amp; `tick`');
    expect(svg).not.toContain('\u0001');
    expect(svg).not.toContain(']]>');
    // Long text is clipped in the picture (the full text stays in the node's <title>, escaped).
    expect(svg).toMatch(/<text class="badges"[^>]*>x{35}…<\/text>/);
    // Attributes hold only numbers and our class names.
    for (const m of svg.matchAll(/ ([a-z-]+)="([^"]*)"/g)) expect(m[2], m[1]).toMatch(/^[\w .,#():/%=-]*$/);
  });

  it('highlights the traced path', () => {
    const g = graphOf('shop/web:http/tcp');
    const svc = g.nodes.find((n) => n.kind === 'service' && n.label.startsWith('KUBE-SVC-'))!;
    const svg = toSvg([g], layeredLayout([g]), { title: 't', nodes: [{ id: svc.id, share: 1, label: 'x 100%' }], edges: [] });
    expect(svg.match(/<g class="node service on"/g)).toHaveLength(1);
  });
});

describe('layout messages', () => {
  it('accepts a layout of numbers and ids only', () => {
    const g = graphOf('shop/web:http/tcp');
    const layout = layeredLayout([g]);
    expect(layout.nodes).toHaveLength(g.nodes.length);
    expect(layout.edges).toHaveLength(g.edges.length);
    const parsed = parseFromWebview(JSON.parse(JSON.stringify({ type: 'saveSvg', layout })));
    expect(parsed).toEqual({ type: 'saveSvg', layout });
    const bad = [
      { ...layout, width: 'wide' },
      { ...layout, nodes: [{ id: 'a', x: Number.NaN, y: 0 }] },
      { ...layout, edges: [{ from: 'a', to: 'b', points: [[0, 0, 0]] }] },
      { ...layout, titles: [{ key: 3, x: 0, y: 0 }] },
      { ...layout, width: 1e12 },
    ];
    for (const l of bad) expect(parseFromWebview({ type: 'saveSvg', layout: l })).toBeUndefined();
    expect(parseFromWebview({ type: 'hover', nodeId: 'k#a' })).toEqual({ type: 'hover', nodeId: 'k#a' });
    expect(parseFromWebview({ type: 'trace', nodeId: 5 })).toBeUndefined();
    expect(parseFromWebview({ type: 'clearTrace', extra: '<x>' })).toEqual({ type: 'clearTrace' });
    expect(parseToWebview({ type: 'hover', nodeId: 'a', markdown: '**x**' })).toEqual({ type: 'hover', nodeId: 'a', markdown: '**x**' });
    expect(parseToWebview({ type: 'hover', nodeId: 'a', markdown: 3 })).toBeUndefined();
    expect(parseToWebview({ type: 'highlight', highlight: null })).toEqual({ type: 'highlight', highlight: null });
    expect(parseToWebview({ type: 'highlight', highlight: { title: 't', nodes: [{ id: 'a', share: 'all', label: '' }], edges: [] } })).toBeUndefined();
  });
});

describe('keys', () => {
  it('stay short and distinct for Services with very long names', () => {
    const long = (c: string) => ({ ...analysis.catalog.services[0], anonymous: true, name: `ns1/${c.repeat(10_240)}`, hashChecks: [] });
    const model = buildGraphModel([long('L'), long('M'), long('L')]);
    const keys = model.services.map((s) => s.key);
    expect(new Set(keys).size).toBe(3);
    for (const k of keys) expect(k.length).toBeLessThan(300);
    for (const g of model.graphs.values()) for (const n of g.nodes) expect(parseFromWebview({ type: 'reveal', nodeId: n.id })).toBeDefined();
    expect(parseFromWebview({ type: 'select', keys })).toEqual({ type: 'select', keys });
  });
});

describe('graphs built when asked (very large snapshots)', () => {
  const long = (c: string) => ({ ...analysis.catalog.services[0], anonymous: true, name: `ns1/${c}`, hashChecks: [] });
  // The sample's Services, and three that share a key (made unique by |2, |3).
  const services = [...analysis.catalog.services, long('L'), long('M'), long('L'), long('L')];

  it('lists every Service, builds the first ones, and the rest alike when asked', () => {
    const full = buildGraphModel(services);
    expect(full.complete).toBe(true);
    for (const eager of [0, 1, 3, services.length - 1]) {
      const part = buildGraphModel(services, {}, eager);
      expect(part.complete).toBe(false);
      expect(part.services).toEqual(full.services);
      expect([...part.graphs.keys()]).toEqual(full.services.slice(0, eager).map((s) => s.key));
      const rest = full.services
        .slice(eager)
        .map((s) => s.key)
        .reverse();
      expect(graphsOf(services, rest)).toEqual(rest.map((k) => full.graphs.get(k)));
    }
    expect(buildGraphModel(services, {}, services.length).complete).toBe(true);
    expect(graphsOf(services, ['no such key'])).toEqual([]);
  });

  it('finds the Services a trace reaches without keeping their graphs', () => {
    const files: TraceFile[] = [{ name: 'node1.iptables', analysis }];
    const web = analysis.catalog.services.find((s) => servicePortTitle(s) === 'shop/web:http/tcp')!;
    const trace = traceSnapshot(files, { to: web.frontends[0].address!, dport: web.frontends[0].port, protocol: 'tcp', entry: 'pod' });
    const full = buildGraphModel(services);
    const reached = [...full.graphs.values()].filter((g) => traceHighlight([g], trace).nodes.length > 0).map((g) => g.key);
    expect(reached.length).toBeGreaterThan(0);
    expect(keysWhere(services, (g) => traceHighlight([g], trace).nodes.length > 0)).toEqual(reached);
    expect(keysWhere(services, () => true, {}, 2)).toEqual(full.services.slice(0, 2).map((s) => s.key));
  });
});

function servicePortTitle(s: (typeof analysis.catalog.services)[number]): string {
  return buildGraphModel([s]).services[0].title;
}
