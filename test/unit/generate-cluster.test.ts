// The generator's cluster (tools/generate/cluster.ts, cluster-objects.ts, drift.ts): the API objects are
// what kubectl prints (shapes per the kubectl outputs cited in cluster-objects.ts, keys sorted, parsed back
// with the yaml library and JSON.parse), kube-proxy's choice of endpoints follows pkg/proxy/topology.go, the
// dumps derived for node-1 parse with 0 errors in every mode and family at 10 and 1,000 service ports, and
// every drift changes exactly what its ground truth says — checked against a small independent diff of the
// two sides (apiDumpDiff below), so that no finding is missing and none is extra.
import { describe, expect, it } from 'vitest';
import { perfIt } from '../helpers/linear';
import { parse, parseAllDocuments } from 'yaml';
import { type Family } from '../../tools/generate/address';
import { THIS_NODE, portView, randomCluster, servicePortsForNode, type GenCluster, type GenNode, type GenPod, type GenService, type ProxyMode } from '../../tools/generate/cluster';
import { clusterObjects, clusterStateFiles } from '../../tools/generate/cluster-objects';
import { DRIFT_KINDS, scenario, type Scenario } from '../../tools/generate/drift';
import { apiDumpDiff } from '../helpers/cluster-diff';
import { generateIptablesDump } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';

const MODES: ProxyMode[] = ['iptables', 'nftables', 'ipvs'];
const FAMILIES: Family[] = ['ipv4', 'ipv6'];
const NODE_IP: Record<Family, string> = { ipv4: '192.168.0.10', ipv6: 'fd00::10' };
const cluster = (services: number, family: Family, mode: ProxyMode = 'iptables', seed = 1) => randomCluster({ services, endpoints: 5, seed, family, nodeIP: NODE_IP[family], mode });

/** The dumps of a scenario, as the CLI writes them, analysed; every error diagnostic fails the test. */
function dumpsParse(s: Scenario): ReturnType<typeof buildSnapshot> {
  const nodeIPs = s.cluster.nodes.find((n) => n.name === s.node)!.internalIPs;
  const files: [string, string, string][] = [];
  if (s.mode === 'iptables') files.push(['node.iptables', 'iptables', generateIptablesDump({ services: s.services, style: 'iptables-nft-save', family: s.family, nodeRules: true })]);
  if (s.mode === 'nftables') files.push(['node.nft', 'nftables', generateNftDump({ services: s.services, style: 'nft-list-ruleset', family: s.family, nodeIPs })]);
  if (s.mode === 'ipvs') {
    const snap = generateIpvsSnapshot({ services: s.services, family: s.family, nodeIPs });
    files.push(['node.ipvsadm', 'ipvsadm', snap['ipvsadm-list']], ['node.ipset', 'ipset', snap['ipset-save']], ['node.iptables', 'iptables', snap['iptables-save']]);
  }
  const analysed = files.map(([name, lang, text]) => {
    const file = analyzeFile(name, text, lang)!;
    expect(file.analysis.diagnostics.filter((d) => d.severity === 'error').map((d) => `${name}:${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
    return file;
  });
  return buildSnapshot(analysed);
}

describe('generated cluster: determinism', () => {
  it('the same options give the same objects, dumps and findings; another seed does not', () => {
    const a = scenario(cluster(40, 'ipv4'), { node: THIS_NODE, family: 'ipv4', mode: 'nftables', drifts: DRIFT_KINDS, seed: 3 });
    const b = scenario(cluster(40, 'ipv4'), { node: THIS_NODE, family: 'ipv4', mode: 'nftables', drifts: DRIFT_KINDS, seed: 3 });
    expect(clusterStateFiles(b.cluster, 'yaml')).toEqual(clusterStateFiles(a.cluster, 'yaml'));
    expect(b.services).toEqual(a.services);
    expect(b.findings).toEqual(a.findings);
    expect(clusterStateFiles(cluster(40, 'ipv4', 'iptables', 2), 'yaml')).not.toEqual(clusterStateFiles(cluster(40, 'ipv4'), 'yaml'));
  });

  it('scenario() leaves its input cluster alone', () => {
    const c = cluster(20, 'ipv4');
    const before = JSON.stringify(c);
    scenario(c, { node: THIS_NODE, family: 'ipv4', mode: 'ipvs', drifts: DRIFT_KINDS });
    expect(JSON.stringify(c)).toBe(before);
  });
});

describe('generated cluster: the objects are what kubectl prints', () => {
  const c = scenario(cluster(60, 'ipv4'), { node: THIS_NODE, family: 'ipv4', mode: 'ipvs', drifts: ['filtered-by-topology', 'no-endpoints'] }).cluster;
  const yamlText = clusterStateFiles(c, 'yaml')['cluster-state.yaml']!;
  const json = clusterStateFiles(c, 'json');
  const docs = parseAllDocuments(yamlText);

  it('YAML: a List then the kube-proxy ConfigMap, no errors, the same objects as the JSON files', () => {
    if (!Array.isArray(docs)) throw new Error('one document only');
    expect(docs).toHaveLength(2);
    const [list, cm] = docs.map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJS();
    });
    expect(list.kind).toBe('List');
    expect(list.metadata).toEqual({ resourceVersion: '' });
    expect(cm.kind).toBe('ConfigMap');
    const services = JSON.parse(json['services.json']!);
    const nodes = JSON.parse(json['nodes.json']!);
    expect(list.items).toEqual([...services.items, ...nodes.items]);
    expect(JSON.parse(json['kube-proxy.json']!)).toEqual(cm);
    expect(parse(cm.data['config.conf'])).toMatchObject({ kind: 'KubeProxyConfiguration', mode: 'ipvs', clusterCIDR: '10.244.0.0/14' });
    // go-yaml quotes what YAML 1.1 would read as another type; kubectl prints timestamps and versions so.
    expect(yamlText).toMatch(/\n {4}creationTimestamp: "2026-11-29T10:00:00Z"\n/);
    expect(yamlText).toMatch(/\n {4}resourceVersion: "\d+"\n/);
  });

  it('every key is in alphabetical order at every level (kubectl prints unstructured maps)', () => {
    const sorted = (v: unknown, path: string): void => {
      if (Array.isArray(v)) return v.forEach((x, i) => sorted(x, `${path}[${i}]`));
      if (v === null || typeof v !== 'object') return;
      const keys = Object.keys(v);
      expect(keys, path).toEqual([...keys].sort());
      for (const k of keys) sorted((v as Record<string, unknown>)[k], `${path}.${k}`);
    };
    const o = clusterObjects(c);
    sorted([...o.services, ...o.endpointSlices, ...o.nodes, o.configMap], '');
  });

  it('Services carry every field kubectl prints for their type', () => {
    for (const s of clusterObjects(c).services as any[]) {
      expect(Object.keys(s)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
      expect(Object.keys(s.metadata)).toEqual(expect.arrayContaining(['creationTimestamp', 'labels', 'name', 'namespace', 'resourceVersion', 'uid']));
      expect(s.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Object.keys(s.spec)).toEqual(expect.arrayContaining(['clusterIP', 'clusterIPs', 'internalTrafficPolicy', 'ipFamilies', 'ipFamilyPolicy', 'ports', 'selector', 'sessionAffinity', 'type']));
      if (s.spec.type !== 'ClusterIP') expect(s.spec.externalTrafficPolicy).toMatch(/^(Cluster|Local)$/);
      if (s.spec.type === 'LoadBalancer') expect(s.status.loadBalancer.ingress[0]).toEqual({ ip: expect.any(String), ipMode: 'VIP' });
      for (const p of s.spec.ports) expect(p).toMatchObject({ port: expect.any(Number), protocol: expect.stringMatching(/^(TCP|UDP|SCTP)$/), targetPort: expect.any(Number) });
      if (s.spec.sessionAffinity === 'ClientIP') expect(s.spec.sessionAffinityConfig.clientIP.timeoutSeconds).toBeGreaterThan(0);
    }
  });

  it("EndpointSlices are the controller's: labels, owner, generateName, conditions, nodeName, zone, targetRef, hints", () => {
    const o = clusterObjects(c);
    const uids = new Map(o.services.map((s: any) => [`${s.metadata.namespace}/${s.metadata.name}`, s.metadata.uid]));
    let hinted = 0;
    let placeholders = 0;
    for (const e of o.endpointSlices as any[]) {
      const svc = e.metadata.labels['kubernetes.io/service-name'];
      expect(e.metadata.labels['endpointslice.kubernetes.io/managed-by']).toBe('endpointslice-controller.k8s.io');
      expect(e.metadata.generateName).toBe(`${svc}-`);
      expect(e.metadata.name).toMatch(new RegExp(`^${svc}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(e.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', blockOwnerDeletion: true, controller: true, kind: 'Service', name: svc, uid: uids.get(`${e.metadata.namespace}/${svc}`) }]);
      expect(e.addressType).toBe('IPv4');
      if (e.endpoints === null) {
        placeholders++;
        expect(e.ports).toBeNull();
        continue;
      }
      expect(e.endpoints.length).toBeLessThanOrEqual(100);
      for (const p of e.ports) expect(Object.keys(p)).toEqual(['name', 'port', 'protocol']);
      for (const ep of e.endpoints) {
        expect(ep.addresses).toHaveLength(1);
        expect(Object.keys(ep.conditions)).toEqual(['ready', 'serving', 'terminating']);
        expect(ep.nodeName).toMatch(/^node-\d$/);
        expect(ep.zone).toMatch(/^zone-[abc]$/);
        expect(ep.targetRef).toMatchObject({ kind: 'Pod', namespace: e.metadata.namespace, name: expect.stringMatching(new RegExp(`^${svc}-[a-z0-9]{10}-[a-z0-9]{5}$`)) });
        if (ep.hints) {
          hinted++;
          expect(ep.hints.forZones).toEqual([{ name: ep.zone }]);
        }
      }
    }
    expect(hinted).toBeGreaterThan(0);
    expect(placeholders).toBeGreaterThan(0);
  });

  it('Nodes: InternalIP, zone label, podCIDRs; each pod address is inside its node’s podCIDR', () => {
    const nodes = clusterObjects(c).nodes as any[];
    expect(nodes.map((n) => n.metadata.name)).toEqual(['node-1', 'node-2', 'node-3', 'node-4']);
    expect(nodes[0].status.addresses).toEqual([
      { address: '192.168.0.10', type: 'InternalIP' },
      { address: 'node-1', type: 'Hostname' },
    ]);
    expect(nodes.map((n) => n.metadata.labels['topology.kubernetes.io/zone'])).toEqual(['zone-a', 'zone-b', 'zone-c', 'zone-a']);
    expect(nodes.map((n) => n.spec.podCIDRs)).toEqual([['10.244.0.0/16'], ['10.245.0.0/16'], ['10.246.0.0/16'], ['10.247.0.0/16']]);
    const second = (ip: string) => Number(ip.split('.')[1]);
    for (const s of c.services) for (const p of s.pods) expect(second(p.addresses[0]!) - 244, p.name).toBe(Number(p.nodeName.slice(5)) - 1);
  });
});

describe("generated cluster: kube-proxy's endpoint choice (pkg/proxy/topology.go)", () => {
  const node: GenNode = { name: 'n1', internalIPs: ['192.168.0.1'], zone: 'a', podCIDRs: ['10.1.0.0/16'] };
  const pod = (name: string, nodeName: string, c: Partial<GenPod> = {}): GenPod => ({ name, nodeName, addresses: [`10.1.0.${name.slice(1)}`], ready: true, serving: true, terminating: false, ...c });
  const svc = (pods: GenPod[], extra: Partial<GenService> = {}): GenService => ({
    namespace: 'ns',
    name: 's',
    type: 'ClusterIP',
    clusterIPs: ['10.96.0.1'],
    ports: [{ name: 'p', protocol: 'TCP', port: 80, targetPort: 80 }],
    externalIPs: [],
    loadBalancerIPs: [],
    loadBalancerSourceRanges: [],
    externalTrafficPolicy: 'Cluster',
    internalTrafficPolicy: 'Cluster',
    pods,
    ...extra,
  });
  const names = (pods: GenPod[]) => pods.map((p) => p.name);
  const view = (s: GenService) => portView(s, s.ports[0]!, 'ipv4', node);
  const terminating = { ready: false, serving: true, terminating: true };

  it('ready endpoints, else serving-terminating ones (TestCategorizeEndpoints "only Serving and Terminating")', () => {
    expect(names(view(svc([pod('p1', 'n1'), pod('p2', 'n2', terminating)])).cluster)).toEqual(['p1']);
    expect(names(view(svc([pod('p1', 'n1', terminating), pod('p2', 'n2', { ready: false, serving: false })])).cluster)).toEqual(['p1']);
    expect(view(svc([pod('p1', 'n1', { ready: false, serving: false })])).hasAny).toBe(false);
  });

  it('zone hints apply only when every ready endpoint has one and one is for this zone', () => {
    const hinted = (zone: string) => ({ hints: { forZones: [zone] } });
    const both = view(svc([pod('p1', 'n1', hinted('a')), pod('p2', 'n2', hinted('b'))]));
    expect([names(both.cluster), both.filteredByTopology]).toEqual([['p1'], true]);
    const missing = view(svc([pod('p1', 'n1', hinted('a')), pod('p2', 'n2')]));
    expect([names(missing.cluster), missing.filteredByTopology]).toEqual([['p1', 'p2'], false]);
    const otherZone = view(svc([pod('p1', 'n1', hinted('b')), pod('p2', 'n2', hinted('c'))]));
    expect([names(otherZone.cluster), otherZone.filteredByTopology]).toEqual([['p1', 'p2'], false]);
    const nodeHints = view(svc([pod('p1', 'n1', { hints: { forNodes: ['n1'] } }), pod('p2', 'n2', { hints: { forNodes: ['n2'] } })]));
    expect(names(nodeHints.cluster)).toEqual(['p1']);
  });

  it('Local policies: local ready endpoints, else local serving-terminating ones; external only when accessible', () => {
    const local = svc([pod('p1', 'n1', terminating), pod('p2', 'n2')], { internalTrafficPolicy: 'Local' });
    expect([view(local).usesCluster, names(view(local).local), view(local).hasAny]).toEqual([false, ['p1'], true]);
    const etp = svc([pod('p1', 'n1'), pod('p2', 'n2')], { externalTrafficPolicy: 'Local' });
    expect(view(etp).usesLocal).toBe(false); // ClusterIP only: not externally accessible
    etp.ports[0]!.nodePort = 30001;
    expect([view(etp).usesCluster, view(etp).usesLocal, names(view(etp).local)]).toEqual([true, true, ['p1']]);
  });

  it('both policies Local on an externally accessible port: cluster endpoints too (UsesClusterEndpoints, serviceport.go)', () => {
    const both = svc([pod('p1', 'n1'), pod('p2', 'n2')], { type: 'NodePort', internalTrafficPolicy: 'Local', externalTrafficPolicy: 'Local' });
    both.ports[0]!.nodePort = 30001;
    const v = view(both);
    expect([v.usesCluster, v.usesLocal, names(v.cluster), names(v.local)]).toEqual([true, true, ['p1', 'p2'], ['p1']]);
    // The dump gets the remote endpoint as a cluster endpoint, not only as a DROP/REJECT decider.
    const [port] = servicePortsForNode({ services: [both], nodes: [node] }, 'n1', 'ipv4');
    expect(port!.endpoints).toEqual([
      { address: '10.1.0.1', port: 80, local: true },
      { address: '10.1.0.2', port: 80 },
    ]);
  });
});

describe('generated cluster: drifts and their ground truth', () => {
  for (const family of FAMILIES) {
    it(`${family}: without drift, the two sides agree; only infos are expected`, () => {
      const s = scenario(cluster(200, family), { node: THIS_NODE, family, mode: 'iptables' });
      expect(s.findings.filter((f) => f.severity !== 'info')).toEqual([]);
      expect(apiDumpDiff(s)).toEqual(s.findings);
      expect(new Set(s.findings.map((f) => f.code))).toEqual(new Set(['no-endpoints', 'filtered-by-topology']));
    });

    for (const kind of DRIFT_KINDS) {
      it(`${family}: ${kind} changes exactly what its findings say`, () => {
        const base = scenario(cluster(40, family), { node: THIS_NODE, family, mode: 'nftables' });
        const s = scenario(cluster(40, family), { node: THIS_NODE, family, mode: 'nftables', drifts: [kind] });
        expect(apiDumpDiff(s)).toEqual(s.findings);
        const added = s.findings.filter((f) => !base.findings.some((b) => JSON.stringify(b) === JSON.stringify(f)));
        expect(added.length).toBeGreaterThan(0);
        expect(new Set(added.map((f) => f.code))).toEqual(new Set([kind]));
        const services = new Set(added.map((f) => `${f.service.namespace}/${f.service.name}`));
        expect(services.size).toBe(1);
        if (kind === 'missing-endpoint' || kind === 'stale-endpoint') expect(added.every((f) => /^(\d+\.){3}\d+:\d+$|^\[[0-9a-f:]+\]:\d+$/.test(f.endpoint!))).toBe(true);
        if (kind === 'mode-mismatch') expect(s.cluster.proxy!.mode).not.toBe('nftables');
      });
    }
  }

  it('all drifts at once, in a cluster too small to have a plain Service for each: fresh Services take them', () => {
    const s = scenario(cluster(10, 'ipv4'), { node: THIS_NODE, family: 'ipv4', mode: 'ipvs', drifts: DRIFT_KINDS });
    expect(apiDumpDiff(s)).toEqual(s.findings);
    expect(new Set(s.findings.map((f) => f.code))).toEqual(new Set(DRIFT_KINDS));
    expect(s.cluster.services.some((svc) => /-x\d+$/.test(svc.name))).toBe(true);
  });
});

describe('generated cluster: the derived dumps parse with 0 errors', () => {
  for (const size of [10, 1000]) {
    for (const mode of MODES) {
      for (const family of FAMILIES) {
        (size > 100 ? perfIt : it)(`${size} service ports, ${mode}, ${family}, all drifts`, () => {
          const s = scenario(cluster(size, family, mode), { node: THIS_NODE, family, mode, drifts: DRIFT_KINDS, seed: size });
          const snap = dumpsParse(s);
          expect(snap.mode).toBe(mode);
          // IPVS keeps no names: count Service ports by their ClusterIP frontends, in every mode.
          const clusterIPs = snap.services.flatMap((e) => e.frontends.filter((f) => f.kind === 'clusterIP').map((f) => `${f.address}:${f.port}/${e.protocol}`));
          expect(new Set(clusterIPs).size).toBe(s.services.length);
          expect(apiDumpDiff(s)).toEqual(s.findings);
        });
      }
    }
  }
});

describe('generated cluster: dual-stack', () => {
  const c = randomCluster({ services: 60, endpoints: 4, seed: 5, family: 'ipv4', nodeIP: '192.168.0.10', mode: 'iptables', dualStack: { otherNodeIP: 'fd00::10' } });

  it('PreferDualStack Services with a ClusterIP per family, an EndpointSlice per family, nodes with both', () => {
    const o = clusterObjects(c) as any;
    for (const s of o.services) {
      expect(s.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
      if (s.spec.clusterIP === 'None') continue;
      expect(s.spec.ipFamilyPolicy).toBe('PreferDualStack');
      expect(s.spec.clusterIPs.map((ip: string) => ip.includes(':'))).toEqual([false, true]);
    }
    const types = (name: string) => o.endpointSlices.filter((e: any) => e.metadata.labels['kubernetes.io/service-name'] === name).map((e: any) => e.addressType);
    for (const s of o.services) expect(types(s.metadata.name)).toEqual(['IPv4', 'IPv6']);
    expect(o.nodes[0].status.addresses.slice(0, 2)).toEqual([
      { address: '192.168.0.10', type: 'InternalIP' },
      { address: 'fd00::10', type: 'InternalIP' },
    ]);
    expect(o.nodes[1].spec.podCIDRs).toEqual(['10.245.0.0/16', 'fd00:10:0:2::/64']);
  });

  for (const family of FAMILIES) {
    it(`the ${family} dump of a dual-stack node: its own family only, drifts found exactly, parses clean`, () => {
      const s = scenario(c, { node: THIS_NODE, family, mode: 'iptables', drifts: DRIFT_KINDS });
      expect(s.services.every((sp) => sp.clusterIP.includes(':') === (family === 'ipv6'))).toBe(true);
      expect(s.services.flatMap((sp) => sp.endpoints).every((e) => e.address.includes(':') === (family === 'ipv6'))).toBe(true);
      expect(apiDumpDiff(s)).toEqual(s.findings);
      dumpsParse(s);
    });
  }
});

describe('generated cluster: Services kube-proxy skips', () => {
  it('headless and ExternalName Services are in the API, never in the derived dump', () => {
    const c: GenCluster = cluster(100, 'ipv4');
    const headless = c.services.filter((s) => s.clusterIPs[0] === 'None');
    expect(headless.length).toBeGreaterThan(0);
    c.services.push({ ...headless[0]!, name: 'external-db', type: 'ExternalName', externalName: 'db.example.com', clusterIPs: [], pods: [] });
    const names = new Set(servicePortsForNode(c, THIS_NODE, 'ipv4').map((sp) => sp.name));
    for (const s of [...headless, c.services.at(-1)!]) expect(names.has(s.name), s.name).toBe(false);
    expect(clusterObjects(c).services.at(-1)).toMatchObject({ spec: { externalName: 'db.example.com', type: 'ExternalName' } });
  });
});
