// Workspace symbols (Ctrl+T) of node snapshots in every dialect, and List Services of a snapshot: the samples of
// each dialect, and a generated 10,000-Service dump whose queries must be answered from the index.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { analyzeFile, buildSnapshot, type NodeSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { buildSymbolIndex, querySymbols, type SymbolIndex, type WorkspaceSymbolMatch } from '../../src/core/symbols';
import { runDocumentQuery, runSnapshotQuery, snapshotOf } from '../../src/extension/analysis/queries';
import { AnalysisHost } from '../../src/extension/analysis/host';
import { plainData } from '../../src/extension/analysis/plain';
import type { FromWorker, SnapshotAnswer, SnapshotFileSpec } from '../../src/extension/analysis/protocol';

/** The folder's dumps, as the editor reads a snapshot folder (its cluster-state.yaml is no dump). */
function sample(dir: string): NodeSnapshot {
  const files = readdirSync(`samples/${dir}`)
    .sort()
    .map((n) => analyzeFile(n, readFileSync(`samples/${dir}/${n}`, 'utf8')));
  return buildSnapshot(files.filter((f): f is SnapshotFile => f !== undefined));
}

/** The text of the line a symbol points at. */
function lineOf(dir: string, s: NodeSnapshot, fileIndex: number, line: number): string {
  return readFileSync(`samples/${dir}/${s.files[fileIndex].name}`, 'utf8').split('\n')[line];
}

describe('workspace symbols of each dialect', () => {
  for (const dir of ['iptables-legacy', 'iptables-nft', 'nftables']) {
    it(`${dir}: Services by namespace/name:port, ClusterIPs, NodePorts and chains`, () => {
      const s = sample(dir);
      const index = buildSymbolIndex(s);
      const [dns] = querySymbols(index, 'KUBE-SYSTEM/kube-dns:dns');
      expect(dns).toMatchObject({ name: 'kube-system/kube-dns:dns/udp', kind: 'service' });
      expect(lineOf(dir, s, dns.fileIndex, dns.range.start.line)).toMatch(/KUBE-SVC-|service-/);
      const [ip] = querySymbols(index, '10.96.0.10');
      expect(ip.kind).toBe('clusterIP');
      expect(ip.container).toMatch(/^kube-system\/kube-dns/);
      expect(lineOf(dir, s, ip.fileIndex, ip.range.start.line)).toContain('10.96.0.10');
      const [nodePort] = querySymbols(index, ':31443');
      expect(nodePort).toMatchObject({ kind: 'nodePort', container: 'ingress/gateway:https/tcp' });
      expect(lineOf(dir, s, nodePort.fileIndex, nodePort.range.start.line)).toContain('31443');
      const chain = querySymbols(index, dir === 'nftables' ? 'services' : 'KUBE-SERVICES').find((m) => m.kind === 'chain' || m.kind === 'map');
      expect(chain).toBeDefined();
      expect(lineOf(dir, s, chain!.fileIndex, chain!.range.start.line)).toMatch(/KUBE-SERVICES|services/);
    });
  }

  it('an IPVS snapshot: virtual services in the ipvsadm file, ipsets and chains in theirs', () => {
    const s = sample('ipvs');
    const index = buildSymbolIndex(s);
    const [nodePort] = querySymbols(index, ':30080');
    expect(nodePort.kind).toBe('nodePort');
    expect(s.files[nodePort.fileIndex].name).toBe('node1.ipvsadm');
    expect(lineOf('ipvs', s, nodePort.fileIndex, nodePort.range.start.line)).toContain(':30080');
    const services = querySymbols(index, '10.96.0.10').filter((m) => m.kind === 'service');
    expect(services.map((m) => m.name).sort()).toEqual(['10.96.0.10:53/tcp', '10.96.0.10:53/udp']);
    for (const m of services) expect(lineOf('ipvs', s, m.fileIndex, m.range.start.line)).toContain('10.96.0.10:53');
    const set = querySymbols(index, 'KUBE-CLUSTER-IP').find((m) => m.kind === 'set');
    expect(s.files[set!.fileIndex].name).toBe('node1.ipset');
    const chain = querySymbols(index, 'KUBE-SERVICES').find((m) => m.kind === 'chain');
    expect(s.files[chain!.fileIndex].name).toBe('node1.iptables');
  });

  it('chains are named by themselves, not by the outline label that puts their Service first', () => {
    const index = buildSymbolIndex(sample('iptables-nft'));
    const chains = querySymbols(index, 'KUBE-SVC-', 500).filter((m) => m.kind !== 'service');
    expect(chains.length).toBeGreaterThan(0);
    for (const m of chains) expect(m.name).toMatch(/^KUBE-SVC-\w+$/);
  });

  it('ranks exact and prefix matches first and caps the results', () => {
    const index = buildSymbolIndex(sample('iptables-nft'));
    const all = querySymbols(index, 'kube');
    expect(all.length).toBeGreaterThan(10);
    expect(querySymbols(index, 'kube', 5)).toEqual(all.slice(0, 5));
    expect(querySymbols(index, 'KUBE-SERVICES')[0].name).toBe('KUBE-SERVICES');
    expect(querySymbols(index, 'no such name anywhere')).toEqual([]);
  });
});

describe('List Services of a snapshot', () => {
  it('an IPVS snapshot lists the Services the graph shows, each in its own file', () => {
    const s = sample('ipvs');
    const ipvsadm = s.files.findIndex((f) => f.name === 'node1.ipvsadm');
    // The ipvsadm dump alone knows no Services: they need the ipsets and iptables beside it.
    expect(runDocumentQuery(s.files[ipvsadm].features, s.files[ipvsadm].analysis, 'serviceItems', [])).toEqual([]);
    const items = runSnapshotQuery(s, 'serviceItems', []);
    expect(items.length).toBe(runSnapshotQuery(s, 'graph', []).services.length);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(item.fileIndex).toBe(ipvsadm);
  });

  it('an iptables snapshot lists its Services in the dump', () => {
    const s = sample('iptables-nft');
    const items = runSnapshotQuery(s, 'serviceItems', []);
    expect(items.map((i) => i.label)).toContain('kube-system/kube-dns:dns/udp');
    expect(items.every((i) => i.fileIndex === 0)).toBe(true);
  });
});

/** The index with its key list counting the entries a query reads. */
function counting(index: SymbolIndex): { index: SymbolIndex; reads: () => number } {
  let n = 0;
  const keys = new Proxy(index.keys, { get: (t, p, r) => (typeof p === 'string' && /^\d+$/.test(p) && n++, Reflect.get(t, p, r)) });
  return { index: { ...index, keys }, reads: () => n };
}

describe('a 10,000-Service dump', () => {
  const text = generateIptablesDump({ services: randomServices(10_000, 2, 26), style: 'iptables-nft-save', family: 'ipv4', comments: true });
  const s = buildSnapshot([analyzeFile('big.iptables', text)!]);

  it('answers a name from the index, reading a few entries, not all of them', () => {
    const { index, reads } = counting(buildSymbolIndex(s));
    expect(index.keys.length).toBeGreaterThan(30_000);
    const target = s.services[7_777];
    const name = `${target.namespace}/${target.name}`;
    const found = querySymbols(index, name);
    expect(found.some((m) => m.kind === 'service' && m.name.startsWith(name))).toBe(true);
    expect(reads()).toBeLessThan(index.keys.length / 100);
  });

  it('the snapshot query keeps the index between requests of the same analyses', () => {
    const first = runSnapshotQuery(s, 'symbols', ['KUBE-SERVICES', 10]);
    // A new snapshot of the same analyses (the worker builds one per request) reuses the index.
    const again = buildSnapshot(s.files);
    expect(runSnapshotQuery(again, 'symbols', ['KUBE-SERVICES', 10])[0]).toBe(first[0]);
  });
});

describe('a second Ctrl+T question of the same analyses', () => {
  /** The files of a sample snapshot, their features counting the Service lists asked of them. */
  function counted(dir: string): { files: SnapshotFile[]; calls: () => number } {
    let calls = 0;
    const files = sample(dir).files.map((f) => {
      const { services } = f.features;
      return { ...f, features: { ...f.features, services: ((a: never) => (calls++, services(a))) as never } };
    });
    return { files, calls: () => calls };
  }

  it('builds no snapshot again: the one of these analyses is reused, a copy with the files asked with', () => {
    const { files, calls } = counted('iptables-nft');
    const first = snapshotOf(files);
    const before = calls();
    expect(before).toBeGreaterThan(0);
    const again = files.map((f) => ({ ...f }));
    const second = snapshotOf(again);
    expect(calls()).toBe(before);
    expect(second.files).toBe(again);
    expect(second).not.toBe(first);
    expect(second.services).toBe(first.services);
    // A cluster check added to one answer's snapshot does not reach the next.
    Object.assign(second, { cluster: {} });
    expect(snapshotOf(files).cluster).toBeUndefined();
  });

  it('answers a query asked before with the answer kept, and a new query by filtering the same index', () => {
    const { files } = counted('nftables');
    const found = runSnapshotQuery(snapshotOf(files), 'symbols', ['kube', 20]);
    expect(found.length).toBeGreaterThan(0);
    expect(runSnapshotQuery(snapshotOf(files), 'symbols', ['kube', 20])).toBe(found);
    const narrower = runSnapshotQuery(snapshotOf(files), 'symbols', ['kube-dns', 20]);
    expect(narrower[0]).toBe(found.find((m) => m === narrower[0]));
    expect(runSnapshotQuery(snapshotOf(files), 'symbols', ['kube', 5])).toEqual(found.slice(0, 5));
  });
});

describe('a snapshot folder without an open dump', () => {
  it('is read by the worker from its files on disk and answers as the snapshot of those files does', () => {
    const posted: FromWorker[] = [];
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => fn(),
      () => [],
    );
    // The folder's dumps (its cluster-state file is no dump).
    const names = readdirSync('samples/ipvs')
      .filter((n) => n.startsWith('node1.'))
      .sort();
    const files: SnapshotFileSpec[] = names.map((n) => ({ kind: 'path', name: n, path: `samples/ipvs/${n}`, maxSize: 64 << 20 }));
    host.receive({ type: 'snapshot', files, method: 'symbols', args: [':30080', 50], id: 1 });
    const answer = posted.find((m) => m.id === 1) as { ok: boolean; value: SnapshotAnswer<WorkspaceSymbolMatch[]> };
    expect(answer.ok).toBe(true);
    const { included, value } = answer.value;
    expect(included).toEqual([0, 1, 2]);
    expect(value).toEqual(plainData(querySymbols(buildSymbolIndex(sample('ipvs')), ':30080', 50)));
    expect(value.some((m) => m.kind === 'nodePort' && names[m.fileIndex].endsWith('.ipvsadm'))).toBe(true);
  });
});
