// Cluster-state files as kubectl prints them (test/fixtures/cluster/README.md says what each imitates) into the
// cluster model: every kind, JSON and YAML alike, API-server defaults, legacy Endpoints, merging, the sniff.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { looksLikeClusterState, mergeClusterStates, readClusterFile } from '../../src/core/cluster/read';
import type { ClusterState } from '../../src/core/cluster/types';

const fixture = (name: string) => readFileSync(`test/fixtures/cluster/${name}`, 'utf8');
const read = (name: string) => readClusterFile(name, fixture(name));
const diagnostics = (s: ClusterState) => s.diagnostics.flatMap((d) => d.diagnostics.map((x) => `${d.file}:${x.range.start.line + 1}:${x.range.start.character + 1} ${x.severity} ${x.code}`));
/** The model without where it came from, to compare JSON with YAML. */
const withoutSources = (s: ClusterState): unknown => JSON.parse(JSON.stringify({ ...s, diagnostics: [] }, (k, v) => (k === 'source' ? undefined : v)));
const lineOf = (name: string, line: number) => fixture(name).split('\n')[line];

describe('kubectl get services,endpointslices -A -o json', () => {
  const s = read('services-endpointslices.json');

  it('reads every Service and EndpointSlice, with no diagnostics', () => {
    expect(diagnostics(s)).toEqual([]);
    expect(s.services.map((x) => `${x.namespace}/${x.name}`)).toEqual(['default/kubernetes', 'kube-system/kube-dns', 'shop/web', 'shop/checkout', 'shop/db']);
    expect(s.endpointSlices.map((x) => `${x.namespace}/${x.name} ${x.addressType} ${x.serviceName}`)).toEqual([
      'default/kubernetes IPv4 kubernetes',
      'kube-system/kube-dns-x2k9d IPv4 kube-dns',
      'shop/web-mq7zt IPv4 web',
      'shop/checkout-v4abc IPv4 checkout',
      'shop/checkout-v6def IPv6 checkout',
      'shop/db-h8s2q IPv4 db',
    ]);
  });

  it('keeps what decides the dataplane: frontends, policies, affinity, dual-stack', () => {
    const checkout = s.services.find((x) => x.name === 'checkout')!;
    expect(checkout).toMatchObject({
      type: 'LoadBalancer',
      clusterIPs: ['10.96.40.7', 'fd00:10:96::4007'],
      ipFamilies: ['IPv4', 'IPv6'],
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443, nodePort: 30443 }],
      // The ipMode: Proxy ingress is not programmed by kube-proxy.
      loadBalancerIPs: ['192.0.2.50'],
      // kube-proxy trims source ranges.
      loadBalancerSourceRanges: ['203.0.113.0/24', '198.51.100.0/24'],
      externalTrafficPolicy: 'Local',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 31780,
      selector: { app: 'checkout' },
    });
    const web = s.services.find((x) => x.name === 'web')!;
    expect(web).toMatchObject({ sessionAffinity: 'ClientIP', sessionAffinityTimeoutSeconds: 600, trafficDistribution: 'PreferClose', ports: [{ targetPort: 'http' }] });
    expect(s.services.find((x) => x.name === 'db')!.clusterIPs).toEqual(['None']);
    expect(s.services.find((x) => x.name === 'kube-dns')!.ports.map((p) => `${p.name}/${p.protocol}`)).toEqual(['dns/UDP', 'dns-tcp/TCP', 'metrics/TCP']);
  });

  it('keeps endpoint conditions, node, zone, hints and pod', () => {
    const web = s.endpointSlices.find((x) => x.serviceName === 'web')!;
    expect(web.managedBy).toBe('endpointslice-controller.k8s.io');
    expect(web.ports).toEqual([{ name: 'http', protocol: 'TCP', port: 8080 }]);
    expect(web.endpoints.map((e) => ({ ...e, source: undefined }))).toEqual([
      {
        addresses: ['10.244.1.7'],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: 'kind-worker',
        zone: 'zone-a',
        hints: { forZones: ['zone-a'] },
        targetRef: 'Pod shop/web-5d8f7c9b6-abcde',
        source: undefined,
      },
      {
        addresses: ['10.244.2.9'],
        conditions: { ready: false, serving: true, terminating: true },
        nodeName: 'kind-worker2',
        zone: 'zone-b',
        hints: { forZones: ['zone-b'] },
        targetRef: 'Pod shop/web-5d8f7c9b6-fghij',
        source: undefined,
      },
      {
        addresses: ['10.244.2.10'],
        conditions: { ready: false, serving: false, terminating: false },
        nodeName: 'kind-worker2',
        zone: 'zone-b',
        hints: { forZones: ['zone-b'] },
        targetRef: 'Pod shop/web-5d8f7c9b6-klmno',
        source: undefined,
      },
    ]);
  });

  it('points each object at its name and each endpoint at its address', () => {
    const name = 'services-endpointslices.json';
    const checkout = s.services.find((x) => x.name === 'checkout')!.source!;
    expect(checkout.file).toBe(name);
    const line = lineOf(name, checkout.range.start.line);
    expect(line.slice(checkout.range.start.character, checkout.range.end.character)).toBe('"checkout"');
    expect(line.trim()).toBe('"name": "checkout",');
    const ep = s.endpointSlices.find((x) => x.serviceName === 'web')!.endpoints[1].source!;
    expect(lineOf(name, ep.range.start.line).slice(ep.range.start.character, ep.range.end.character)).toBe('"10.244.2.9"');
    const slice = s.endpointSlices.find((x) => x.serviceName === 'web')!.source!;
    expect(lineOf(name, slice.range.start.line).trim()).toBe('"name": "web-mq7zt",');
  });

  it('reads the same from -o yaml, with positions in the YAML', () => {
    const y = read('services-endpointslices.yaml');
    expect(diagnostics(y)).toEqual([]);
    expect(withoutSources(y)).toEqual(withoutSources(s));
    const ep = y.endpointSlices.find((x) => x.serviceName === 'web')!.endpoints[1].source!;
    expect(lineOf('services-endpointslices.yaml', ep.range.start.line).trim()).toBe('- 10.244.2.9');
    const svc = y.services.find((x) => x.name === 'checkout')!.source!;
    expect(lineOf('services-endpointslices.yaml', svc.range.start.line).trim()).toBe('name: checkout');
  });

  it('reads multi-document YAML', () => {
    const m = read('multi-document.yaml');
    expect(diagnostics(m)).toEqual([]);
    expect(m.services.map((x) => x.name)).toEqual(['web']);
    expect(m.endpointSlices.map((x) => x.name)).toEqual(['web-mq7zt']);
    expect(withoutSources(m)).toMatchObject({ services: (withoutSources(s) as ClusterState).services.filter((x) => x.name === 'web') });
  });

  it('reads the two lists apart and appended to one file', () => {
    const list = JSON.parse(fixture('services-endpointslices.json')) as { items: { kind: string }[] };
    const part = (kind: string) => JSON.stringify({ apiVersion: 'v1', items: list.items.filter((i) => i.kind === kind), kind: `${kind}List`, metadata: { resourceVersion: '' } }, null, 4);
    const apart = mergeClusterStates([readClusterFile('svc.json', part('Service')), readClusterFile('eps.json', part('EndpointSlice'))]);
    expect(withoutSources(apart)).toEqual(withoutSources(s));
    const appended = readClusterFile('both.json', `${part('Service')}\n${part('EndpointSlice')}\n`);
    expect(diagnostics(appended)).toEqual([]);
    expect(withoutSources(appended)).toEqual(withoutSources(s));
    expect(appended.endpointSlices[0].source!.range.start.line).toBeGreaterThan(appended.services.at(-1)!.source!.range.start.line);
  });
});

describe('nodes, the kube-proxy ConfigMap, legacy Endpoints', () => {
  it('reads nodes: InternalIPs, zone, podCIDRs', () => {
    const n = read('nodes.json');
    expect(diagnostics(n)).toEqual([]);
    expect(n.nodes.map(({ name, internalIPs, externalIPs, zone, podCIDRs }) => ({ name, internalIPs, externalIPs, zone, podCIDRs }))).toEqual([
      { name: 'kind-control-plane', internalIPs: ['172.18.0.3'], externalIPs: [], zone: undefined, podCIDRs: ['10.244.0.0/24'] },
      { name: 'kind-worker', internalIPs: ['172.18.0.2'], externalIPs: [], zone: 'zone-a', podCIDRs: ['10.244.1.0/24', 'fd00:10:244:1::/64'] },
      { name: 'kind-worker2', internalIPs: ['172.18.0.4'], externalIPs: [], zone: 'zone-b', podCIDRs: ['10.244.2.0/24', 'fd00:10:244:2::/64'] },
    ]);
  });

  it('reads the kube-proxy configuration out of its ConfigMap', () => {
    const c = read('kube-proxy-configmap.yaml');
    expect(diagnostics(c)).toEqual([]);
    expect({ ...c.proxyConfig, source: undefined }).toEqual({ mode: 'ipvs', clusterCIDR: '10.244.0.0/16', masqueradeAll: false, source: undefined });
    expect(lineOf('kube-proxy-configmap.yaml', c.proxyConfig!.source!.range.start.line).trim()).toBe('config.conf: |-');
  });

  it('reads a KubeProxyConfiguration on its own, and the ConfigMap as JSON', () => {
    const own = readClusterFile('kp.yaml', 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nnodePortAddresses: ["primary"]\n');
    expect({ ...own.proxyConfig, source: undefined }).toEqual({ mode: 'nftables', nodePortAddresses: ['primary'], source: undefined });
    const cm = JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'kube-proxy', namespace: 'kube-system' },
        data: { 'config.conf': 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ""\niptables:\n  masqueradeAll: true\n' },
      },
      null,
      4,
    );
    const json = readClusterFile('cm.json', cm);
    expect(diagnostics(json)).toEqual([]);
    expect({ ...json.proxyConfig, source: undefined }).toEqual({ mode: '', masqueradeAll: true, source: undefined });
  });

  it('turns legacy Endpoints into ready / not-ready slices, which EndpointSlices supersede', () => {
    const legacy = read('endpoints-legacy.json');
    expect(diagnostics(legacy)).toEqual([]);
    const l = legacy.endpointSlices.find((x) => x.serviceName === 'legacy')!;
    expect({ ...l, source: undefined, endpoints: l.endpoints.map((e) => ({ ...e, source: undefined })) }).toEqual({
      namespace: 'shop',
      name: 'legacy',
      serviceName: 'legacy',
      addressType: 'IPv4',
      fromLegacyEndpoints: true,
      source: undefined,
      managedBy: 'endpointslicemirroring-controller.k8s.io',
      ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
      endpoints: [
        { addresses: ['10.244.1.40'], conditions: { ready: true }, nodeName: 'kind-worker', targetRef: 'Pod shop/legacy-7f6d5c4b3-q1w2e', source: undefined },
        { addresses: ['10.244.2.41'], conditions: { ready: false }, nodeName: 'kind-worker2', targetRef: 'Pod shop/legacy-7f6d5c4b3-r3t4y', source: undefined },
      ],
    });
    const merged = mergeClusterStates([read('services-endpointslices.json'), legacy]);
    // shop/web has an EndpointSlice: its Endpoints are not used; shop/legacy has none: they are.
    expect(merged.endpointSlices.filter((x) => x.fromLegacyEndpoints).map((x) => x.name)).toEqual(['legacy']);
  });

  it('leaves out Endpoints marked not to be mirrored', () => {
    const e = readClusterFile(
      'e.yaml',
      'apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: skip\n  namespace: a\n  labels: {endpointslice.kubernetes.io/skip-mirror: "true"}\nsubsets:\n- addresses: [{ip: 10.0.0.1}]\n  ports: [{port: 80}]\n',
    );
    expect(e.endpointSlices).toEqual([]);
  });

  it('splits a dual-stack Endpoints subset by family', () => {
    const e = readClusterFile('e.yaml', 'apiVersion: v1\nkind: Endpoints\nmetadata: {name: ds, namespace: a}\nsubsets:\n- addresses: [{ip: 10.0.0.1}, {ip: "fd00::1"}]\n  ports: [{port: 80}]\n');
    expect(e.endpointSlices.map((x) => `${x.name} ${x.addressType} ${x.endpoints.map((ep) => ep.addresses[0]).join(',')}`)).toEqual(['ds IPv4 10.0.0.1', 'ds-ipv6 IPv6 fd00::1']);
  });
});

describe('defaults the API server fills in', () => {
  it('fills protocol, affinity, policies, targetPort, clusterIPs and ipFamilies', () => {
    const s = readClusterFile('m.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: bare\nspec:\n  clusterIP: fd00::10\n  sessionAffinity: ClientIP\n  ports:\n  - port: 80\n');
    expect(diagnostics(s)).toEqual([]);
    expect({ ...s.services[0], source: undefined }).toEqual({
      namespace: 'default',
      name: 'bare',
      type: 'ClusterIP',
      clusterIPs: ['fd00::10'],
      ipFamilies: ['IPv6'],
      ports: [{ name: '', protocol: 'TCP', port: 80, targetPort: 80 }],
      externalIPs: [],
      loadBalancerIPs: [],
      loadBalancerSourceRanges: [],
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      sessionAffinity: 'ClientIP',
      sessionAffinityTimeoutSeconds: 10800,
      annotations: {},
      labels: {},
      source: undefined,
    });
  });

  it('reads v1beta1 slices: topology gives node and zone', () => {
    const s = readClusterFile(
      'b.yaml',
      'apiVersion: discovery.k8s.io/v1beta1\nkind: EndpointSlice\nmetadata:\n  name: old-abc\n  namespace: a\n  labels: {kubernetes.io/service-name: old}\naddressType: IPv4\nports: [{port: 80}]\nendpoints:\n- addresses: [10.1.1.1]\n  conditions: {ready: true}\n  topology:\n    kubernetes.io/hostname: n1\n    topology.kubernetes.io/zone: z1\n',
    );
    expect(diagnostics(s)).toEqual([]);
    expect(s.endpointSlices[0].endpoints[0]).toMatchObject({ nodeName: 'n1', zone: 'z1', conditions: { ready: true } });
    expect(s.endpointSlices[0].ports).toEqual([{ name: '', protocol: 'TCP', port: 80 }]);
  });

  it('marks a Service being deleted, and keeps a selector-less Service without one', () => {
    const s = readClusterFile('d.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: gone, namespace: a, deletionTimestamp: "2026-12-01T00:00:00Z"}\nspec: {clusterIP: 10.0.0.9, ports: [{port: 80}], selector: {}}\n');
    expect(s.services[0].deleting).toBe(true);
    expect(s.services[0].selector).toBeUndefined();
  });
});

describe('merging and recognising files', () => {
  it('keeps the first copy of an object read twice and says so at the second', () => {
    const a = read('services-endpointslices.json');
    const b = read('services-endpointslices.yaml');
    const m = mergeClusterStates([a, b]);
    expect(m.services).toHaveLength(5);
    expect(m.services.every((x) => x.source!.file === 'services-endpointslices.json')).toBe(true);
    const dupes = m.diagnostics.find((d) => d.file === 'services-endpointslices.yaml')!.diagnostics;
    expect(dupes).toHaveLength(11);
    expect(dupes.every((d) => d.code === 'cluster-duplicate-object' && d.severity === 'information')).toBe(true);
    expect(m.diagnostics.find((d) => d.file === 'services-endpointslices.json')!.diagnostics).toEqual([]);
  });

  it('gives each file its diagnostics once, also when merged again', () => {
    const a = read('services-endpointslices.json');
    const twice = mergeClusterStates([a, a]);
    expect(twice.diagnostics.map((d) => `${d.file} ${d.diagnostics.length}`)).toEqual(['services-endpointslices.json 11']);
    expect(mergeClusterStates([mergeClusterStates([a, read('services-endpointslices.yaml')])]).diagnostics.map((d) => d.diagnostics.length)).toEqual([0, 11]);
  });

  it('recognises cluster-state files by content, whatever their name', () => {
    for (const f of ['services-endpointslices.json', 'services-endpointslices.yaml', 'multi-document.yaml', 'nodes.json', 'kube-proxy-configmap.yaml', 'endpoints-legacy.json']) {
      expect(looksLikeClusterState(fixture(f)), f).toBe(true);
    }
    expect(looksLikeClusterState(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', data: { 'config.conf': 'kind: KubeProxyConfiguration\n' } }))).toBe(true);
  });

  it('does not take dumps, other JSON or other Kubernetes objects for cluster state', () => {
    for (const text of [
      '*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n',
      '{"nftables": [{"metainfo": {"version": "1.0.6"}}]}',
      'table ip kube-proxy {\n}\n',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n',
      '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"Corefile": ".:53 {}"}}',
      'kind: Service\n',
      '\u0000\u0001apiVersion: v1\nkind: Service\n',
      '',
    ])
      expect(looksLikeClusterState(text), text).toBe(false);
  });
});
