// The expected dataplane per Service port and family (src/core/cluster/expected.ts), checked against the tables
// of kube-proxy's own tests, kubernetes/kubernetes pkg/proxy: servicechangetracker_test.go
// (TestServiceToServiceMap, TestServiceMapUpdateHeadless, TestUpdateServiceTypeExternalName) for which Services
// and frontends, endpointslicecache_test.go (TestEndpointsMapFromESC, TestEndpointInfoByServicePort) for how a
// Service's slices merge; plus dual-stack, the words for "no endpoints", and node identity.
import { describe, expect, it } from 'vitest';
import { expectedServicePorts, type ExpectedOptions } from '../../src/core/cluster/expected';
import type { ApiEndpointSlice, ApiService, ClusterState, ExpectedServicePort, NodeIdentity } from '../../src/core/cluster/types';
import { endpoint, node, port, service, slice, state } from '../helpers/cluster-objects';

const iptables: ExpectedOptions = { mode: 'iptables' };

function compute(s: ClusterState, n: NodeIdentity = { name: 'host1' }, o: ExpectedOptions = iptables): ExpectedServicePort[] {
  return expectedServicePorts(s, n, o);
}

const keys = (sp: ExpectedServicePort, pick: (e: ExpectedServicePort['endpoints'][number]) => boolean = () => true) => sp.endpoints.filter(pick).map((e) => `${e.address}:${e.port}`);

/** endpointslicecache_test.go generateEndpointSliceWithOffset: endpoint i (from 1) is 10.0.<offset>.<i> on hosts[i % n]. */
function generated(serviceName: string, namespace: string, sliceNum: number, offset: number, count: number, unreadyMod: number, terminatingMod: number, hosts: string[], ports: (number | undefined)[]): ApiEndpointSlice {
  const endpoints = [];
  for (let i = 1; i <= count; i++) {
    const readyCond = i % unreadyMod !== 0;
    const terminating = i % terminatingMod === 0;
    endpoints.push(endpoint(`10.0.${offset}.${i}`, { conditions: { ready: readyCond && !terminating, serving: readyCond, terminating }, nodeName: hosts.length ? hosts[i % hosts.length] : undefined }));
  }
  return slice(serviceName, endpoints, { namespace, name: `${serviceName}-${sliceNum}`, ports: ports.map((p, i) => ({ name: `port-${i}`, protocol: 'TCP', port: p })) });
}

const svc1 = (ports = ['port-0']) => service('svc1', { namespace: 'ns1', ports: ports.map((name, i) => port({ name, port: 80 + i })) });

describe("merging a Service's EndpointSlices (endpointslicecache_test.go TestEndpointsMapFromESC)", () => {
  it('1 slice, 2 hosts, ports 80,443', () => {
    const out = compute(state({ services: [svc1(['port-0', 'port-1'])], endpointSlices: [generated('svc1', 'ns1', 1, 1, 3, 999, 999, ['host1', 'host2'], [80, 443])] }));
    expect(keys(out[0]!)).toEqual(['10.0.1.1:80', '10.0.1.2:80', '10.0.1.3:80']);
    expect(keys(out[1]!)).toEqual(['10.0.1.1:443', '10.0.1.2:443', '10.0.1.3:443']);
    // isLocal only for 10.0.1.2 (host1): visible through the Local policy of a NodePort Service.
    const local = compute(
      state({
        services: [service('svc1', { namespace: 'ns1', type: 'NodePort', externalTrafficPolicy: 'Local', ports: [port({ name: 'port-0', nodePort: 30080 })] })],
        endpointSlices: [generated('svc1', 'ns1', 1, 1, 3, 999, 999, ['host1', 'host2'], [80, 443])],
      }),
    );
    expect(keys(local[0]!, (e) => e.inLocal)).toEqual(['10.0.1.2:80']);
  });

  it('2 slices, same port', () => {
    const out = compute(state({ services: [svc1()], endpointSlices: [generated('svc1', 'ns1', 1, 1, 3, 999, 999, [], [80]), generated('svc1', 'ns1', 2, 2, 3, 999, 999, [], [80])] }));
    expect(keys(out[0]!)).toEqual(['10.0.1.1:80', '10.0.1.2:80', '10.0.1.3:80', '10.0.2.1:80', '10.0.2.2:80', '10.0.2.3:80']);
  });

  it('2 overlapping slices, same port (the same slice name: the later one replaces the first)', () => {
    const out = compute(state({ services: [svc1()], endpointSlices: [generated('svc1', 'ns1', 1, 1, 3, 999, 999, [], [80]), generated('svc1', 'ns1', 1, 1, 4, 999, 999, [], [80])] }));
    expect(keys(out[0]!)).toEqual(['10.0.1.1:80', '10.0.1.2:80', '10.0.1.3:80', '10.0.1.4:80']);
  });

  it('2 slices, overlapping endpoints, some endpoints unready in 1 or both', () => {
    const out = compute(state({ services: [svc1()], endpointSlices: [generated('svc1', 'ns1', 1, 1, 10, 3, 999, [], [80]), generated('svc1', 'ns1', 1, 1, 10, 6, 999, [], [80])] }));
    expect(keys(out[0]!, (e) => !e.ready)).toEqual(['10.0.1.6:80']);
    expect(keys(out[0]!)).toHaveLength(10);
  });

  it('2 slices, overlapping endpoints, some endpoints unready and some endpoints terminating', () => {
    const out = compute(state({ services: [svc1()], endpointSlices: [generated('svc1', 'ns1', 1, 1, 10, 3, 5, [], [80]), generated('svc1', 'ns1', 1, 1, 10, 6, 5, [], [80])] }));
    const sp = out[0]!;
    expect(keys(sp, (e) => e.terminating && e.serving && !e.ready)).toEqual(['10.0.1.10:80', '10.0.1.5:80']);
    expect(keys(sp, (e) => !e.ready && !e.serving)).toEqual(['10.0.1.6:80']);
    expect(keys(sp, (e) => e.inCluster)).toHaveLength(7);
  });

  it('2 slices, overlapping endpoints, all unready', () => {
    const out = compute(state({ services: [svc1()], endpointSlices: [generated('svc1', 'ns1', 1, 1, 10, 1, 999, [], [80]), generated('svc1', 'ns1', 1, 1, 10, 1, 999, [], [80])] }));
    expect(keys(out[0]!)).toHaveLength(10);
    expect(keys(out[0]!, (e) => e.inCluster)).toEqual([]);
    expect(out[0]!.noEndpointsReason).toBe('10 endpoints, none ready');
  });

  it('3 slices with different services and namespaces', () => {
    const out = compute(
      state({
        services: [svc1()],
        endpointSlices: [generated('svc1', 'ns1', 1, 1, 3, 999, 999, [], [80]), generated('svc2', 'ns1', 2, 2, 3, 999, 999, [], [80]), generated('svc1', 'ns2', 3, 3, 3, 999, 999, [], [80])],
      }),
    );
    expect(keys(out[0]!)).toEqual(['10.0.1.1:80', '10.0.1.2:80', '10.0.1.3:80']);
  });

  it('Nil port should not break anything', () => {
    const out = compute(state({ services: [svc1()], endpointSlices: [generated('svc1', 'ns1', 1, 1, 3, 999, 999, ['host1', 'host2'], [undefined])] }));
    const sp = out[0]!;
    expect(keys(sp, (e) => e.inCluster)).toEqual([]);
    expect(sp.endpoints.map((e) => e.excludedBecause)).toEqual(['port-missing', 'port-missing', 'port-missing']);
    expect(sp.noEndpointsReason).toBe('no EndpointSlice has port port-0/TCP');
  });

  it('Different endpoints with duplicate IPs should not be filtered (TestEndpointInfoByServicePort too)', () => {
    const out = compute(
      state({
        services: [svc1()],
        endpointSlices: [generated('svc1', 'ns1', 1, 1, 2, 999, 999, ['host1', 'host2'], [80]), generated('svc1', 'ns1', 2, 1, 2, 999, 999, ['host1', 'host2'], [8080])],
      }),
    );
    expect(keys(out[0]!)).toEqual(['10.0.1.1:80', '10.0.1.1:8080', '10.0.1.2:80', '10.0.1.2:8080']);
  });

  it('an IP in two slices keeps the endpoint that is not terminating (a new pod reusing the IP)', () => {
    const old = slice('svc1', [endpoint('10.0.1.1', { conditions: { ready: false, serving: true, terminating: true } })], { namespace: 'ns1', name: 'a', ports: [{ name: 'port-0', protocol: 'TCP', port: 80 }] });
    const fresh = slice('svc1', [endpoint('10.0.1.1')], { namespace: 'ns1', name: 'b', ports: [{ name: 'port-0', protocol: 'TCP', port: 80 }] });
    for (const slices of [
      [old, fresh],
      [fresh, old],
    ]) {
      const sp = compute(state({ services: [svc1()], endpointSlices: slices }))[0]!;
      expect(sp.endpoints).toHaveLength(1);
      expect(sp.endpoints[0]).toMatchObject({ ready: true, inCluster: true });
    }
  });

  it('ignores slices without the service-name label and FQDN slices', () => {
    const unlabeled = slice('svc1', [endpoint('10.0.9.1')], { namespace: 'ns1', serviceName: undefined });
    const fqdn = slice('svc1', [endpoint('example.com')], { namespace: 'ns1', name: 'f', addressType: 'FQDN', ports: [{ name: 'port-0', protocol: 'TCP', port: 80 }] });
    const sp = compute(state({ services: [svc1()], endpointSlices: [unlabeled, fqdn] }))[0]!;
    expect(sp.endpoints).toEqual([]);
    expect(sp.noEndpointsReason).toBe('no EndpointSlice at all');
  });

  it('v1 Endpoints stand in only for a Service without EndpointSlices (kube-proxy reads slices alone)', () => {
    const legacy = slice('svc1', [endpoint('10.0.7.1'), endpoint('10.0.7.2')], { namespace: 'ns1', name: 'svc1', fromLegacyEndpoints: true, managedBy: undefined, ports: [{ name: 'port-0', protocol: 'TCP', port: 80 }] });
    const real = slice('svc1', [endpoint('10.0.7.1')], { namespace: 'ns1', name: 'svc1-x', ports: [{ name: 'port-0', protocol: 'TCP', port: 80 }] });
    expect(keys(compute(state({ services: [svc1()], endpointSlices: [legacy] }))[0]!)).toEqual(['10.0.7.1:80', '10.0.7.2:80']);
    expect(keys(compute(state({ services: [svc1()], endpointSlices: [legacy, real] }))[0]!)).toEqual(['10.0.7.1:80']);
  });

  it('matches slice ports by name and protocol', () => {
    const s = service('dns', { ports: [port({ name: 'dns', protocol: 'UDP', port: 53 }), port({ name: 'dns-tcp', protocol: 'TCP', port: 53 })] });
    const sl = slice('dns', [endpoint('10.244.0.5')], {
      ports: [
        { name: 'dns', protocol: 'UDP', port: 53 },
        { name: 'dns-tcp', protocol: 'TCP', port: 53 },
      ],
    });
    const [udp, tcp] = compute(state({ services: [s], endpointSlices: [sl] }));
    expect(udp).toMatchObject({ portName: 'dns', protocol: 'UDP' });
    expect(keys(udp!, (e) => e.inCluster)).toEqual(['10.244.0.5:53']);
    expect(keys(tcp!, (e) => e.inCluster)).toEqual(['10.244.0.5:53']);
  });
});

const lb = (o: Partial<ApiService> = {}) =>
  service('load-balancer', {
    namespace: 'ns1',
    type: 'LoadBalancer',
    clusterIPs: ['172.16.55.11'],
    ports: [port({ name: 'port3', protocol: 'UDP', port: 8675, nodePort: 30061, targetPort: 7000 }), port({ name: 'port4', protocol: 'UDP', port: 8676, nodePort: 30062, targetPort: 7001 })],
    loadBalancerIPs: ['10.1.2.4'],
    ...o,
  });

describe('which Services and frontends (servicechangetracker_test.go TestServiceToServiceMap)', () => {
  it('headless service, headless sctp service, headless service without port (TestServiceMapUpdateHeadless)', () => {
    const headless = service('headless', { clusterIPs: ['None'], ports: [port({ name: 'rpc', protocol: 'UDP', port: 1234 })] });
    const sctp = service('headless', { clusterIPs: ['None'], ports: [port({ name: 'sip', protocol: 'SCTP', port: 7777 })] });
    const noPort = service('headless-without-port', { clusterIPs: ['None'], ports: [] });
    expect(compute(state({ services: [headless, sctp, noPort] }))).toEqual([]);
  });

  it('external name service (TestUpdateServiceTypeExternalName)', () => {
    const s = service('external-name', { type: 'ExternalName', clusterIPs: ['172.16.55.4'], ports: [port({ name: 'portz', protocol: 'UDP', port: 1235 })] });
    expect(compute(state({ services: [s] }))).toEqual([]);
  });

  it('a Service without ports programs nothing', () => {
    expect(compute(state({ services: [service('empty', { ports: [] })] }))).toEqual([]);
  });

  it('cluster ip service', () => {
    const s = service('cluster-ip', { clusterIPs: ['172.16.55.4'], ports: [port({ name: 'p1', protocol: 'UDP', port: 1234 }), port({ name: 'p2', protocol: 'UDP', port: 1235 })] });
    const out = compute(state({ services: [s] }));
    expect(out.map((p) => [p.portName, p.frontends])).toEqual([
      ['p1', [{ kind: 'clusterIP', address: '172.16.55.4', port: 1234 }]],
      ['p2', [{ kind: 'clusterIP', address: '172.16.55.4', port: 1235 }]],
    ]);
  });

  it('nodeport service', () => {
    const s = service('node-port', {
      type: 'NodePort',
      clusterIPs: ['172.16.55.10'],
      ports: [port({ name: 'port1', protocol: 'UDP', port: 345, nodePort: 678 }), port({ name: 'port2', protocol: 'TCP', port: 344, nodePort: 677 })],
    });
    const out = compute(state({ services: [s] }));
    expect(out[1]!.frontends).toEqual([
      { kind: 'clusterIP', address: '172.16.55.10', port: 344 },
      { kind: 'nodePort', port: 677 },
    ]);
  });

  it('load balancer service', () => {
    const out = compute(state({ services: [lb()] }));
    expect(out[0]!.frontends).toEqual([
      { kind: 'clusterIP', address: '172.16.55.11', port: 8675 },
      { kind: 'nodePort', port: 30061 },
      { kind: 'loadBalancer', address: '10.1.2.4', port: 8675 },
    ]);
    expect(out[0]!.frontends.some((f) => f.kind === 'healthCheckNodePort')).toBe(false);
  });

  // "load balancer service ipMode Proxy feature gate enabled": the reader leaves such ingress IPs out.

  it('load balancer service with only local traffic policy', () => {
    const s = lb({ name: 'only-local-load-balancer', clusterIPs: ['172.16.55.12'], loadBalancerIPs: ['10.1.2.3'], externalTrafficPolicy: 'Local', healthCheckNodePort: 345 });
    const out = compute(state({ services: [s] }));
    expect(out).toHaveLength(2);
    for (const p of out) {
      expect(p.frontends).toContainEqual({ kind: 'healthCheckNodePort', port: 345 });
      expect(p.externalTrafficPolicy).toBe('Local');
    }
  });

  it('eTP Local on a ClusterIP Service without externalIPs is Cluster (apiservice.ExternalPolicyLocal)', () => {
    const out = compute(state({ services: [service('x', { externalTrafficPolicy: 'Local', healthCheckNodePort: 345 })] }));
    expect(out[0]!.externalTrafficPolicy).toBe('Cluster');
    expect(out[0]!.frontends.map((f) => f.kind)).toEqual(['clusterIP']);
  });

  it('service with ipv6 clusterIP under ipv4 mode, service should be filtered (and the reverse)', () => {
    const v6 = service('invalidIPv6InIPV4Mode', { clusterIPs: ['2001:db8:85a3:0:0:8a2e:370:7334'], ipFamilies: [], loadBalancerIPs: ['8.8.8.8', '2001:db8:85a3:0:0:8a2e:370:7335'] });
    expect(compute(state({ services: [v6] }), undefined, { mode: 'iptables', families: ['IPv4'] })).toEqual([]);
    const v4 = service('invalidIPv4InIPV6Mode', { clusterIPs: ['10.0.0.1'], ipFamilies: [] });
    expect(compute(state({ services: [v4] }), undefined, { mode: 'iptables', families: ['IPv6'] })).toEqual([]);
  });

  const both = (clusterIP: string) =>
    service('filter', {
      type: '',
      clusterIPs: [clusterIP],
      ipFamilies: [],
      externalIPs: ['8.8.8.8', '2001:db8:85a3:0:0:8a2e:370:7335'],
      loadBalancerSourceRanges: ['0.0.0.0/1', '2001:db8::/32'],
      loadBalancerIPs: ['8.8.8.8', '2001:db8:85a3:0:0:8a2e:370:7335'],
      ports: [port({ name: 'testPort', port: 12345 })],
    });

  it('service with both ipv4 and ipv6 configurations under ipv4 mode, ipv6 fields should be filtered', () => {
    const [p] = compute(state({ services: [both('10.0.0.1')] }));
    expect(p!.family).toBe('IPv4');
    expect(p!.frontends.filter((f) => f.kind !== 'clusterIP').map((f) => f.address)).toEqual(['8.8.8.8', '8.8.8.8']);
    expect(p!.loadBalancerSourceRanges).toEqual(['0.0.0.0/1']);
  });

  it('service with both ipv4 and ipv6 configurations under ipv6 mode, ipv4 fields should be filtered', () => {
    const [p] = compute(state({ services: [both('2001:db8:85a3:0:0:8a2e:370:7334')] }));
    expect(p!.family).toBe('IPv6');
    // Printed as kube-proxy prints the parsed net.IP.
    expect(p!.frontends.filter((f) => f.kind !== 'clusterIP').map((f) => f.address)).toEqual(['2001:db8:85a3::8a2e:370:7335', '2001:db8:85a3::8a2e:370:7335']);
    expect(p!.loadBalancerSourceRanges).toEqual(['2001:db8::/32']);
  });

  it('service with extra space in LoadBalancerSourceRanges', () => {
    const [p] = compute(state({ services: [service('extra-space', { loadBalancerSourceRanges: [' 10.1.2.0/28'] })] }));
    expect(p!.loadBalancerSourceRanges).toEqual(['10.1.2.0/28']);
  });

  it('session affinity: ClientIP with its timeout, default 10800 (serviceport.go stickyMaxAgeSeconds)', () => {
    const out = compute(state({ services: [service('a', { sessionAffinity: 'ClientIP', sessionAffinityTimeoutSeconds: 60 }), service('b', { sessionAffinity: 'ClientIP' }), service('c')] }));
    expect(out.map((p) => p.sessionAffinityTimeoutSeconds)).toEqual([60, 10800, undefined]);
  });
});

describe('dual-stack: one ExpectedServicePort per family', () => {
  const ds = service('web', { clusterIPs: ['10.96.0.20', 'fd00::20'], ipFamilies: ['IPv4', 'IPv6'] });
  const v4 = slice('web', [endpoint('10.244.1.5', { nodeName: 'host1' })], { name: 'web-v4' });
  const v6 = slice('web', [endpoint('fd00:244::5', { nodeName: 'host1' })], { name: 'web-v6', addressType: 'IPv6' });

  it('each family gets its own ClusterIP and its own endpoints', () => {
    const out = compute(state({ services: [ds], endpointSlices: [v4, v6] }));
    expect(out.map((p) => [p.family, p.frontends[0]!.address, keys(p)])).toEqual([
      ['IPv4', '10.96.0.20', ['10.244.1.5:8080']],
      ['IPv6', 'fd00::20', ['fd00:244::5:8080']],
    ]);
  });

  it('addresses are spelled as kube-proxy prints them, so two spellings of one IP are one endpoint', () => {
    const sp = service('web', { clusterIPs: ['FD00:0:0::20'], ipFamilies: ['IPv6'] });
    const a = slice('web', [endpoint('fd00:244:0::5')], { name: 'a', addressType: 'IPv6' });
    const b = slice('web', [endpoint('FD00:244::5')], { name: 'b', addressType: 'IPv6' });
    const [p] = compute(state({ services: [sp], endpointSlices: [a, b] }));
    expect(p!.frontends[0]!.address).toBe('fd00::20');
    expect(keys(p!)).toEqual(['fd00:244::5:8080']);
  });

  it('families limits what is computed to what the dump programs', () => {
    const out = compute(state({ services: [ds], endpointSlices: [v4, v6] }), undefined, { mode: 'nftables', families: ['IPv6'] });
    expect(out.map((p) => p.family)).toEqual(['IPv6']);
  });

  it('an endpoint of a family the Service lacks is listed as other-family, and the reason says so', () => {
    const single = service('web', { clusterIPs: ['10.96.0.20'] });
    const [p] = compute(state({ services: [single], endpointSlices: [v6] }));
    expect(p!.endpoints).toMatchObject([{ address: 'fd00:244::5', inCluster: false, excludedBecause: 'other-family', detail: 'IPv6 address, but the Service has no IPv6 ClusterIP' }]);
    expect(p!.noEndpointsReason).toBe('1 endpoint, not IPv4');
  });
});

describe('the three modes', () => {
  it('choose the same endpoints: every proxier calls CategorizeEndpoints (iptables, nftables, ipvs proxier.go)', () => {
    const s = state({
      services: [service('web', { type: 'NodePort', externalTrafficPolicy: 'Local', ports: [port({ nodePort: 30080 })] })],
      endpointSlices: [slice('web', [endpoint('10.0.0.1', { nodeName: 'host1' }), endpoint('10.0.0.2', { nodeName: 'host2' })])],
    });
    const [a, b, c] = (['iptables', 'nftables', 'ipvs'] as const).map((mode) => compute(s, { name: 'host1' }, { mode }));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });
});

describe('no endpoints: the reason in words', () => {
  const reason = (s: ApiService, slices: ApiEndpointSlice[] = []) => compute(state({ services: [s], endpointSlices: slices }))[0]!.noEndpointsReason;

  it('no EndpointSlice at all', () => {
    expect(reason(service('a'))).toBe('no EndpointSlice at all');
    expect(reason(service('a', { selector: undefined }))).toBe('no EndpointSlice at all, and the Service has no selector (its endpoints are managed by hand)');
  });
  it('selector matches nothing', () => {
    expect(reason(service('a'), [slice('a', [])])).toBe('selector matches nothing (its EndpointSlices are empty)');
  });
  it('N endpoints, none ready; with terminating ones counted', () => {
    const notReady = { conditions: { ready: false, serving: false, terminating: false } };
    const gone = { conditions: { ready: false, serving: false, terminating: true } };
    expect(reason(service('a'), [slice('a', [endpoint('10.0.0.1', notReady), endpoint('10.0.0.2', notReady)])])).toBe('2 endpoints, none ready');
    expect(reason(service('a'), [slice('a', [endpoint('10.0.0.1', notReady)])])).toBe('1 endpoint, not ready');
    expect(reason(service('a'), [slice('a', [endpoint('10.0.0.1', notReady), endpoint('10.0.0.2', gone)])])).toBe('2 endpoints, none ready (1 terminating and no longer serving)');
  });
  it('serving-and-terminating endpoints are used when none is ready: no reason', () => {
    const draining = { conditions: { ready: false, serving: true, terminating: true } };
    const p = compute(state({ services: [service('a')], endpointSlices: [slice('a', [endpoint('10.0.0.1', draining)])] }))[0]!;
    expect(p.noEndpointsReason).toBeUndefined();
    expect(p.endpoints[0]).toMatchObject({ inCluster: true });
  });
  it('unknown conditions count as ready (newEndpointSliceInfo)', () => {
    const p = compute(state({ services: [service('a')], endpointSlices: [slice('a', [endpoint('10.0.0.1', { conditions: {} })])] }))[0]!;
    expect(p.endpoints[0]).toMatchObject({ ready: true, serving: true, terminating: false, inCluster: true });
  });
});

describe('why an endpoint is not used', () => {
  const etpLocal = service('web', { type: 'NodePort', externalTrafficPolicy: 'Local', ports: [port({ nodePort: 30080 })] });
  const eps = [
    endpoint('10.0.0.1', { nodeName: 'host1' }),
    endpoint('10.0.0.2', { nodeName: 'host2' }),
    endpoint('10.0.0.3', { nodeName: 'host1', conditions: { ready: false, serving: true, terminating: true } }),
    endpoint('10.0.0.4', { conditions: { ready: false, serving: false, terminating: false } }),
  ];

  it('names the node, the condition, and says when this node is unknown', () => {
    const [p] = compute(state({ services: [etpLocal], endpointSlices: [slice('web', eps)] }));
    expect(p!.endpoints.map((e) => [e.address, e.inCluster, e.inLocal, e.excludedBecause, e.detail])).toEqual([
      ['10.0.0.1', true, true, undefined, undefined],
      ['10.0.0.2', true, false, 'not-local', 'on node host2, not on this node'],
      ['10.0.0.3', false, false, 'terminating', 'terminating (serving): kube-proxy uses the ready endpoints instead'],
      ['10.0.0.4', false, false, 'not-ready', 'not ready'],
    ]);
    const [anon] = compute(state({ services: [etpLocal], endpointSlices: [slice('web', eps)] }), {});
    expect(anon!.endpoints[0]).toMatchObject({ inLocal: false, excludedBecause: 'not-local', detail: "this node's name is unknown, so no endpoint counts as local" });
  });

  it('Local policy with endpoints only elsewhere: the DROP is explained (topology_test.go "iTP: Local, eTP: Local, all endpoints remote")', () => {
    const both = service('web', { type: 'NodePort', externalTrafficPolicy: 'Local', internalTrafficPolicy: 'Local', ports: [port({ nodePort: 30080 })] });
    const remote = [endpoint('10.0.0.1', { nodeName: 'host2' }), endpoint('10.0.0.2', { nodeName: 'host3' })];
    const [p] = compute(state({ services: [both], endpointSlices: [slice('web', remote)] }));
    expect(p!.noEndpointsReason).toBeUndefined();
    expect(p!.noLocalEndpointsReason).toBe('no endpoint on this node host1 (2 usable elsewhere)');
    expect(keys(p!, (e) => e.inCluster)).toEqual(['10.0.0.1:8080', '10.0.0.2:8080']);
    const [cluster] = compute(state({ services: [service('web')], endpointSlices: [slice('web', remote)] }));
    expect(cluster!.noLocalEndpointsReason).toBeUndefined();
  });

  it('Local policy whose local endpoints are neither ready nor serving', () => {
    const down = { nodeName: 'host1', conditions: { ready: false, serving: false, terminating: false } };
    const [p] = compute(state({ services: [etpLocal], endpointSlices: [slice('web', [endpoint('10.0.0.1', down), endpoint('10.0.0.2', { nodeName: 'host2' })])] }));
    expect(p!.noLocalEndpointsReason).toBe('1 endpoint on this node host1, neither ready nor serving');
  });

  it('topology that leaves nothing out is not "applied"', () => {
    const hinted = [endpoint('10.0.0.1', { hints: { forZones: ['zone-a'] } }), endpoint('10.0.0.2', { hints: { forZones: ['zone-a', 'zone-b'] } })];
    const [p] = compute(state({ services: [service('web')], endpointSlices: [slice('web', hinted)] }), { name: 'host1', zone: 'zone-a' });
    expect(p).toMatchObject({ topologyMode: 'PreferSameZone', topologyApplied: false });
  });

  it('an endpoint without nodeName is never local', () => {
    const [p] = compute(state({ services: [etpLocal], endpointSlices: [slice('web', [endpoint('10.0.0.9')])] }));
    expect(p!.endpoints[0]).toMatchObject({ inCluster: true, inLocal: false, excludedBecause: 'not-local', detail: 'the endpoint names no node, so it is never local' });
    expect(p!.noLocalEndpointsReason).toBe('no endpoint on this node host1 (1 usable elsewhere)');
  });

  it('takes the zone from the Node object when the identity lacks it, and names the hint', () => {
    const hinted = [endpoint('10.0.0.1', { nodeName: 'host1', hints: { forZones: ['zone-a'] } }), endpoint('10.0.0.2', { nodeName: 'host2', hints: { forZones: ['zone-b'] } })];
    const s = state({ services: [service('web')], endpointSlices: [slice('web', hinted)], nodes: [node('host1', 'zone-a'), node('host2', 'zone-b')] });
    const [p] = compute(s, { name: 'host1' });
    expect(p!.topologyApplied).toBe(true);
    expect(p!.topologyMode).toBe('PreferSameZone');
    expect(p!.endpoints[1]).toMatchObject({ inCluster: false, excludedBecause: 'topology', detail: "hinted for zone zone-b, not for this node's zone zone-a" });
    const [noZone] = compute(s, { name: 'nowhere' });
    expect(noZone!.topologyApplied).toBe(false);
    expect(noZone!.topologyNote).toBe('hints ignored: this node has no topology.kubernetes.io/zone label');
  });

  it('node hints cannot apply without the node name, and the note says so', () => {
    const hinted = [endpoint('10.0.0.1', { hints: { forNodes: ['host1'], forZones: ['zone-a'] } }), endpoint('10.0.0.2', { hints: { forNodes: ['host2'], forZones: ['zone-b'] } })];
    const s = state({ services: [service('web', { trafficDistribution: 'PreferSameNode' })], endpointSlices: [slice('web', hinted)] });
    const [named] = compute(s, { name: 'host1', zone: 'zone-a' });
    expect(named).toMatchObject({ topologyMode: 'PreferSameNode' });
    expect(named!.endpoints[1]).toMatchObject({ excludedBecause: 'topology', detail: 'hinted for node host2, not for this node (host1)' });
    const [anon] = compute(s, { zone: 'zone-a' });
    expect(anon).toMatchObject({ topologyMode: 'PreferSameZone', topologyNote: "node hints ignored: this node's name is unknown; zone hints used" });
  });

  it('says when the Service asks for topology but its endpoints carry no hints', () => {
    const s = state({ services: [service('web', { trafficDistribution: 'PreferClose' })], endpointSlices: [slice('web', [endpoint('10.0.0.1'), endpoint('10.0.0.2')])] });
    const [p] = compute(s, { name: 'host1', zone: 'zone-a' });
    expect(p).toMatchObject({ topologyApplied: false, topologyNote: 'the Service asks for topology-aware routing, but no endpoint has a hint (the EndpointSlice controller withholds them when zones are unbalanced)' });
    expect(p!.endpoints.every((e) => e.inCluster)).toBe(true);
  });

  it('the 1.27–1.31 rules want the annotation (deprecated topology-aware-hints first)', () => {
    const hinted = [endpoint('10.0.0.1', { hints: { forZones: ['zone-a'] } }), endpoint('10.0.0.2', { hints: { forZones: ['zone-b'] } })];
    const run = (annotations: Record<string, string>) =>
      compute(state({ services: [service('web', { annotations })], endpointSlices: [slice('web', hinted)] }), { name: 'n', zone: 'zone-a' }, { mode: 'ipvs', topologyRules: 'annotation' })[0]!.topologyApplied;
    expect(run({})).toBe(false);
    expect(run({ 'service.kubernetes.io/topology-mode': 'Auto' })).toBe(true);
    expect(run({ 'service.kubernetes.io/topology-aware-hints': 'disabled', 'service.kubernetes.io/topology-mode': 'Auto' })).toBe(false);
  });
});
