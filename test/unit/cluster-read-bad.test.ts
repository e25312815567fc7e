// Bad cluster-state files: each gets a clear diagnostic with line and column, what can be read is still read,
// and nothing throws or hangs (truncated JSON, YAML with tabs, a Pod list, unknown kinds, missing fields, wrong
// types, binary garbage, hostile nesting, YAML alias bombs, a 50 MB list).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readClusterFile } from '../../src/core/cluster/read';
import { MAX_DIAGNOSTICS } from '../../src/core/model/diagnostics';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';

const fixture = (name: string) => readFileSync(`test/fixtures/cluster/${name}`, 'utf8');
const problems = (text: string, file = 'f') => readClusterFile(file, text).diagnostics.flatMap((d) => d.diagnostics.map((x) => `${x.range.start.line + 1}:${x.range.start.character + 1} ${x.severity} ${x.code}`));
const messages = (text: string) => readClusterFile('f', text).diagnostics.flatMap((d) => d.diagnostics.map((x) => x.message));

describe('broken syntax', () => {
  it('truncated JSON: an error where it stops, and every item before it', () => {
    const full = fixture('services-endpointslices.json');
    const cut = full.slice(0, full.indexOf('"web-mq7zt"') + 5);
    const s = readClusterFile('cut.json', cut);
    const lines = cut.split('\n');
    // At the string left open, on the last line.
    expect(problems(cut)).toEqual([`${lines.length}:${lines.at(-1)!.indexOf('"web-') + 1} error cluster-bad-json`]);
    expect(messages(cut)[0]).toBe('This is not valid JSON: unterminated string. What comes before it is still read.');
    expect(s.services).toHaveLength(5);
    expect(s.endpointSlices.map((x) => x.name)).toEqual(['kubernetes', 'kube-dns-x2k9d']);
    // Positions are those of the file as written.
    expect(s.endpointSlices[1].source!.range.start.line).toBe(full.split('\n').findIndex((l) => l.includes('"name": "kube-dns-x2k9d"')));
  });

  it('a stray character: the error at it, the items before it read', () => {
    const full = fixture('services-endpointslices.json');
    const at = full.indexOf('"kind": "EndpointSlice"');
    const bad = `${full.slice(0, at)}#${full.slice(at)}`;
    const before = bad.slice(0, at).split('\n');
    expect(problems(bad)).toEqual([`${before.length}:${before.at(-1)!.length + 1} error cluster-bad-json`]);
    expect(readClusterFile('f', bad).services).toHaveLength(5);
  });

  it('the second of two appended lists is truncated', () => {
    const svc = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'n' }, spec: { clusterIP: '10.0.0.1', ports: [{ port: 80 }] } });
    const list = (...names: string[]) => JSON.stringify({ apiVersion: 'v1', kind: 'ServiceList', items: names.map(svc) }, null, 2);
    const s = readClusterFile('f', `${list('a')}\n${list('b', 'c').slice(0, -30)}`);
    expect(s.services.map((x) => x.name)).toEqual(['a', 'b']);
    expect(s.diagnostics[0].diagnostics.map((d) => d.code)).toEqual(['cluster-bad-json']);
  });

  it('YAML with tabs: an error on the tab line, the other documents read', () => {
    const text = 'apiVersion: v1\nkind: Service\nmetadata:\n\tname: tabbed\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: fine\n  namespace: n\nspec:\n  clusterIP: 10.0.0.2\n  ports:\n  - port: 80\n';
    const p = problems(text);
    expect(p.filter((x) => x.includes('cluster-bad-yaml'))[0]).toMatch(/^4:\d+ error cluster-bad-yaml$/);
    expect(readClusterFile('f', text).services.map((x) => x.name)).toContain('fine');
    expect(messages(text).find((m) => m.includes('YAML'))).toMatch(/tab/i);
  });

  it('binary garbage: one diagnostic, nothing read', () => {
    const garbage = Array.from({ length: 5000 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join('');
    expect(problems(garbage)).toEqual(['1:1 error cluster-binary']);
    const noise = '\u00ff\u00fe\u0001{"kind": "Service"}';
    expect(problems(noise).length).toBeGreaterThan(0);
  });

  it('empty files and bare scalars', () => {
    expect(problems('')).toEqual(['1:1 warning cluster-empty']);
    expect(problems('{}')).toEqual(['1:1 warning cluster-missing-kind']);
    expect(problems('null')).toEqual(['1:1 error cluster-not-cluster-state']);
    expect(problems('42')).toEqual(['1:1 error cluster-not-cluster-state']);
    expect(problems('{"items": [1, "x", null]}').filter((p) => p.includes('not-an-object'))).toHaveLength(2);
  });
});

describe('a dump given as cluster state', () => {
  it('one error, not a screen of YAML syntax errors', () => {
    for (const dump of ['samples/iptables-nft/node1.iptables', 'samples/nftables/node1.nft', 'samples/ipvs/node1.ipvsadm', 'samples/ipvs/node1.ipset']) {
      const text = readFileSync(dump, 'utf8');
      expect(problems(text), dump).toEqual(['1:1 error cluster-not-cluster-state']);
    }
    expect(messages('*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n')).toEqual(['This is not a cluster-state file: expected what kubectl get services,endpointslices -A -o json (or -o yaml) prints.']);
  });
});

describe('kinds that are not used', () => {
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'n' }, spec: { containers: [{ name: 'c', image: 'i' }] } });

  it('a Pod list: one warning, saying which kinds are read', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('a'), pod('b'), pod('c')] }, null, 4);
    expect(problems(text)).toEqual(['5:9 warning cluster-unknown-kind']);
    expect(messages(text)[0]).toBe('3 Pod objects are not used; the check reads Services, EndpointSlices, Endpoints, Nodes and the kube-proxy ConfigMap.');
  });

  it('kubectl get all: Services read, one note per other kind', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'n' }, spec: { clusterIP: '10.0.0.3', ports: [{ port: 80 }] } };
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'n' } };
    const other = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: 'kube-system' }, data: { Corefile: '.:53 {}' } };
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('a'), svc, deploy, pod('b'), other] });
    const s = readClusterFile('f', text);
    expect(s.services).toHaveLength(1);
    expect(s.diagnostics[0].diagnostics.map((d) => `${d.severity} ${d.code} ${d.message.split(';')[0]}`)).toEqual([
      'information cluster-unknown-kind 2 Pod objects are not used',
      'information cluster-unknown-kind 1 Deployment objects are not used',
      'information cluster-unknown-kind 1 ConfigMap objects are not used',
    ]);
  });
});

describe('objects with missing or wrong fields', () => {
  const text = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata:
    namespace: n
  spec:
    clusterIP: 10.0.0.4
- apiVersion: v1
  kind: Service
  metadata:
    name: typed
    namespace: n
  spec:
    clusterIP: 10.0.0.5
    sessionAffinity: Sticky
    ports:
    - port: eighty
    - port: 81
      protocol: ICMP
    - name: no-port
    - 7
    externalIPs: 10.0.0.9
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata:
    name: no-type
    namespace: n
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata:
    name: s-1
    namespace: n
    labels:
      kubernetes.io/service-name: typed
  addressType: IPv4
  endpoints:
  - conditions:
      ready: true
  - addresses: [10.1.0.1]
    conditions:
      ready: "yes"
      terminating: false
`;
  const s = readClusterFile('f.yaml', text);
  const d = s.diagnostics[0].diagnostics;
  const at = (code: string) => d.filter((x) => x.code === code).map((x) => `${x.range.start.line + 1}:${x.range.start.character + 1} ${x.message}`);

  it('reports each at its field, with the object it belongs to', () => {
    expect(at('cluster-missing-field')).toEqual([
      '6:3 Service: metadata.name is missing; this object is not used.',
      '22:7 Service n/typed: spec.ports[].port is missing; this object is not used.',
      '25:3 EndpointSlice n/no-type: addressType is missing; this object is not used.',
      '39:5 EndpointSlice n/s-1: endpoints[].addresses is missing; this object is not used.',
    ]);
    expect(at('cluster-bad-field')).toEqual([
      '17:5 Service n/typed: spec.sessionAffinity should be None or ClientIP, not "Sticky"; it is ignored.',
      '19:7 Service n/typed: spec.ports[].port should be a whole number from 1 to 65535, not "eighty"; it is ignored.',
      '21:7 Service n/typed: spec.ports[].protocol should be TCP, UDP or SCTP, not "ICMP"; it is ignored.',
      '18:5 Service n/typed: spec.ports[] should be an object, not 7; it is ignored.',
      '24:5 Service n/typed: spec.externalIPs should be a list, not "10.0.0.9"; it is ignored.',
      '43:7 EndpointSlice n/s-1: endpoints[].conditions.ready should be true or false, not "yes"; it is ignored.',
    ]);
  });

  it('still reads what is right', () => {
    expect(s.services.map((x) => ({ name: x.name, ports: x.ports.map((p) => `${p.port}/${p.protocol}`), affinity: x.sessionAffinity, externalIPs: x.externalIPs }))).toEqual([
      { name: 'typed', ports: ['81/TCP'], affinity: 'None', externalIPs: [] },
    ]);
    expect(s.endpointSlices.map((x) => x.name)).toEqual(['s-1']);
    expect(s.endpointSlices[0].endpoints).toHaveLength(1);
    expect(s.endpointSlices[0].endpoints[0].conditions).toEqual({ terminating: false });
  });

  it('does not take inherited names for fields', () => {
    const hostile =
      '{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "p", "namespace": "n", "labels": {"__proto__": "x", "constructor": "y"}}, "spec": {"__proto__": {"clusterIP": "1.1.1.1"}, "clusterIP": "10.0.0.6", "ports": [{"port": 80}]}}';
    const r = readClusterFile('f', hostile);
    expect(r.services[0].clusterIPs).toEqual(['10.0.0.6']);
    expect(r.services[0].labels.constructor).toBe('y');
    expect(readClusterFile('f', '{"kind": "Service", "apiVersion": "v1", "metadata": {"name": "q"}, "spec": {"ports": [{"port": 1}]}, "constructor": 1}').services[0].sessionAffinity).toBe('None');
  });

  it('caps a flood of problems', () => {
    const items = Array.from({ length: 3000 }, (_, i) => `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s${i}"}, "spec": {"ports": [{"port": "x"}], "clusterIP": "10.0.0.1"}}`);
    const r = readClusterFile('f', `{"kind": "List", "apiVersion": "v1", "items": [\n${items.join(',\n')}\n]}`);
    expect(r.services).toHaveLength(3000);
    const ds = r.diagnostics[0].diagnostics;
    expect(ds.length).toBe(MAX_DIAGNOSTICS + 1);
    expect(ds.at(-1)!.code).toBe('too-many-problems');
  });
});

describe('hostile input', () => {
  it('deep JSON nesting: a diagnostic, no stack overflow', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(problems(deep)).toEqual(['1:514 error cluster-bad-json']);
    expect(messages(deep)[0]).toMatch(/nested too deeply/);
    const deepObj = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    expect(problems(deepObj)[0]).toMatch(/error cluster-bad-json$/);
  });

  it('deep YAML nesting: a diagnostic, no stack overflow', () => {
    for (const deep of [`a: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`, Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')]) {
      const p = problems(deep);
      expect(
        p.some((x) => /error cluster-(too-deep|bad-yaml)$/.test(x)),
        p.join(),
      ).toBe(true);
    }
  });

  it('a billion laughs: stopped at the alias budget', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n${levels.map((l) => `  ${l}`).join('\n')}\n`;
    expect(problems(text).filter((p) => p.endsWith('cluster-yaml-aliases'))).toHaveLength(1);
    // The ConfigMap is not kube-proxy's, so only counted: the budget, not the reader, stops the expansion.
    expect(problems(text).filter((p) => !p.endsWith('cluster-yaml-aliases'))).toEqual(['1:1 warning cluster-unknown-kind']);
  });

  it('ordinary YAML anchors still work', () => {
    const text = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: anchored\n  namespace: n\n  labels: &l {app: x}\nspec:\n  clusterIP: 10.0.0.7\n  selector: *l\n  ports: [{port: 80}]\n';
    const s = readClusterFile('f', text);
    expect(s.services[0].selector).toEqual({ app: 'x' });
    expect(problems(text)).toEqual([]);
  });

  it('repeated and integer-like JSON keys: positions stay right', () => {
    const text =
      '{"apiVersion": "v1", "kind": "List", "items": [\n{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x", "namespace": "n", "labels": {"1": "a"}}, "spec": {"ports": {}, "ports": [{"port": 80}], "clusterIP": "10.0.0.8"}},\n{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "y", "namespace": "n"}, "spec": {"clusterIP": "10.0.0.9", "ports": [{"port": 81}]}}\n]}';
    const s = readClusterFile('f', text);
    expect(s.services.map((x) => `${x.name} ${x.ports[0]?.port} ${x.source!.range.start.line}`)).toEqual(['x 80 1', 'y 81 2']);
  });

  it('indented JSON whose strings hold object-like text: positions stay right', () => {
    const svc = (name: string, note: string) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { annotations: { note }, name, namespace: 'n' },
      spec: { clusterIP: '10.0.0.1', ports: [{ port: 80 }] },
      status: { loadBalancer: {} },
    });
    for (const note of ['{"a": {}}', 'x": {}', '{\n', '[{}]', '{ }']) {
      const text = JSON.stringify({ apiVersion: 'v1', items: [svc('a', note), svc('b', note)], kind: 'List' }, null, 4);
      const s = readClusterFile('f', text);
      const lines = text.split('\n');
      expect(
        s.services.map((x) => lines[x.source!.range.start.line].trim()),
        note,
      ).toEqual(['"name": "a",', '"name": "b",']);
      const crlf = readClusterFile('f', text.replace(/\n/g, '\r\n'));
      expect(crlf.services.map((x) => x.source!.range.start.line)).toEqual(s.services.map((x) => x.source!.range.start.line));
    }
  });

  it('flow-style YAML that starts like JSON', () => {
    const s = readClusterFile('f', '{apiVersion: v1, kind: Node, metadata: {name: flow}}\n');
    expect(s.nodes.map((n) => n.name)).toEqual(['flow']);
    expect(s.diagnostics[0].diagnostics).toEqual([]);
    expect(problems('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "x"}')).toEqual(['1:63 error cluster-bad-json']);
  });

  it('a byte order mark and CRLF line ends', () => {
    const text = '\ufeff{"apiVersion": "v1", "kind": "List", "items": [\r\n{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}\r\n]}\r\n';
    const s = readClusterFile('f', text);
    expect(s.nodes.map((n) => `${n.name} ${n.source!.range.start.line}`)).toEqual(['n1 1']);
    expect(problems('\ufeffapiVersion: v1\r\nkind: Node\r\nmetadata:\r\n  name: n2\r\n')).toEqual([]);
  });
});

describe('large lists', () => {
  it('a large YAML file: a note that JSON reads faster', () => {
    const text = `apiVersion: v1\nkind: Node\nmetadata: {name: n}\n${`# ${'padding '.repeat(12)}\n`.repeat(45_000)}`;
    expect(text.length).toBeGreaterThan(4 * 1024 * 1024);
    expect(problems(text)).toEqual(['1:1 information cluster-large-yaml']);
    expect(readClusterFile('f', text).nodes).toHaveLength(1);
  });

  const service = (i: number) =>
    `        {\n            "apiVersion": "v1",\n            "kind": "Pod",\n            "metadata": {\n                "name": "pod-${i}",\n                "namespace": "ns-${i % 50}",\n                "labels": {"app": "a${i}", "pod-template-hash": "5d8f7c9b6"}\n            },\n            "spec": {"containers": [{"name": "c", "image": "registry.example/app:1.${i}", "ports": [{"containerPort": 8080, "protocol": "TCP"}]}], "nodeName": "node-${i % 7}"},\n            "status": {"phase": "Running", "podIP": "10.244.${(i >> 8) & 255}.${i & 255}", "conditions": [{"type": "Ready", "status": "True"}]}\n        }`;
  const list = (n: number) => `{\n    "apiVersion": "v1",\n    "items": [\n${Array.from({ length: n }, (_, i) => service(i)).join(',\n')}\n    ],\n    "kind": "List"\n}\n`;

  it('a 50 MB Pod list: one warning, read without trouble', () => {
    const text = list(90_000);
    expect(text.length).toBeGreaterThan(50e6);
    expect(problems(text)).toEqual(['4:9 warning cluster-unknown-kind']);
  });

  perfIt('costs linear time in the number of objects', () => {
    const svc = (i: number) =>
      `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s${i}", "namespace": "n"}, "spec": {"clusterIP": "10.0.${(i >> 8) & 255}.${i & 255}", "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}], "selector": {"app": "s${i}"}}}`;
    const slice = (i: number) =>
      `{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4", "metadata": {"name": "s${i}-x", "namespace": "n", "labels": {"kubernetes.io/service-name": "s${i}"}}, "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}], "endpoints": [{"addresses": ["10.1.${(i >> 8) & 255}.${i & 255}"], "conditions": {"ready": true}, "nodeName": "n1"}]}`;
    const make = (n: number) => `{"apiVersion": "v1", "kind": "List", "items": [\n${Array.from({ length: n }, (_, i) => `${svc(i)},\n${slice(i)}`).join(',\n')}\n]}`;
    expect(costRatio((t) => readClusterFile('f', t), make(150), make(1200))).toBeLessThan(MAX_COST_RATIO_8X);
    // Broken at the end: the exact reader and the salvage are linear too.
    expect(costRatio((t) => readClusterFile('f', t), make(150).slice(0, -3), make(1200).slice(0, -3))).toBeLessThan(MAX_COST_RATIO_8X);
  });
});

describe('fuzzed fixtures', () => {
  // A fixed-seed generator: the same mutations every run.
  let seed = 27;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const mutate = (text: string): string => {
    const at = rand(text.length);
    switch (rand(4)) {
      case 0:
        return text.slice(0, at);
      case 1:
        return text.slice(0, at) + text.slice(at + 1 + rand(40));
      case 2:
        return text.slice(0, at) + '{["\t:-&*!|>\u0000'[rand(12)] + text.slice(at);
      default:
        return text.slice(0, at) + text.slice(rand(text.length));
    }
  };

  it('never throws, and every diagnostic is inside the file', () => {
    for (const name of ['services-endpointslices.json', 'services-endpointslices.yaml', 'kube-proxy-configmap.yaml', 'endpoints-legacy.json']) {
      const original = fixture(name);
      for (let k = 0; k < 40; k++) {
        const text = mutate(original);
        const lines = text.split('\n');
        const s = readClusterFile(name, text);
        for (const d of s.diagnostics.flatMap((x) => x.diagnostics)) {
          expect(d.range.start.line, `${name} #${k} ${d.code}`).toBeLessThan(Math.max(1, lines.length));
          expect(d.range.start.character, `${name} #${k} ${d.code}`).toBeLessThanOrEqual(lines[d.range.start.line]?.length ?? 0);
        }
        for (const x of [...s.services, ...s.endpointSlices, ...s.nodes]) expect(x.source!.range.start.line).toBeLessThan(lines.length);
      }
    }
  });
});
