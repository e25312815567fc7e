// The cluster check as the editor sees it: the snapshot built with the cluster-state files beside the dumps (on this
// thread and in the analysis worker, which reads them from disk by path), the findings as diagnostics on the dump
// line or the cluster file's object, the check kept per file version, and the API side of a Service's hover. The
// samples' cluster-state.yaml holds the drifts samples/README.md lists.
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knownNodeNames } from '../../src/core/cluster/node';
import { buildSnapshotWithCluster, clusterDiagnostics, docsLineOf, readClusterInput, type ClusterInput } from '../../src/core/cluster/snapshot';
import { apiSideAt, apiSideMarkdown } from '../../src/core/explain/cluster-hover';
import { analyzeFile, type SnapshotFile } from '../../src/core/snapshot';
import { AnalysisHost } from '../../src/extension/analysis/host';
import type { FromWorker, SnapshotAnswer, SnapshotFileSpec } from '../../src/extension/analysis/protocol';
import type { ClusterFileDiagnostics } from '../../src/core/cluster/snapshot';

const SAMPLES = join(__dirname, '../../samples');

function sample(mode: string): { files: SnapshotFile[]; cluster: ClusterInput; dir: string } {
  const dir = join(SAMPLES, mode);
  const files = readdirSync(dir)
    .filter((n) => n !== 'cluster-state.yaml')
    .sort()
    .map((n) => analyzeFile(join(dir, n), readFileSync(join(dir, n), 'utf8'))!);
  const name = join(dir, 'cluster-state.yaml');
  return { files, cluster: readClusterInput(name, readFileSync(name, 'utf8'))!, dir };
}

const lineOf = (file: string, needle: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle));

function summary(diagnostics: ClusterFileDiagnostics[]): string[] {
  return diagnostics.flatMap((f) => f.diagnostics.map((d) => `${f.file.split('/').pop()}:${d.range.start.line} ${d.severity} ${d.code}`)).sort();
}

describe('the snapshot with its cluster state', () => {
  it.each(['iptables-nft', 'iptables-legacy', 'nftables', 'ipvs'])('%s sample: stale rules on the dump line, what the rules lack on the Service object', (mode) => {
    const { files, cluster, dir } = sample(mode);
    const snapshot = buildSnapshotWithCluster(files, [cluster], mode);
    expect(snapshot.cluster?.files).toEqual([cluster.name]);
    const diagnostics = clusterDiagnostics(snapshot);
    const state = join(dir, 'cluster-state.yaml');
    const dump = files.find((f) => diagnostics.some((d) => d.file === f.name && !d.cluster))!.name;
    const s = summary(diagnostics);
    // The stale endpoint on the line that sends to 10.244.3.9:8080 (iptables comment, nft vmap, ipvsadm real server).
    const stale = s.filter((x) => x.includes('stale-endpoint'));
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatch(new RegExp(`^${dump.split('/').pop()!.replace('.', '\\.')}:\\d+ error`));
    expect(readFileSync(dump, 'utf8').split('\n')[Number(stale[0].split(':')[1].split(' ')[0])]).toMatch(/10\.244\.3\.9[:/]8080/);
    // The Service the rules lack, on its name in the cluster file.
    const checkout = readFileSync(state, 'utf8').split('\n').indexOf('    name: checkout');
    expect(s.filter((x) => x.includes('not-programmed'))).toEqual([`cluster-state.yaml:${checkout} error not-programmed`]);
    expect(s.filter((x) => x.includes(' information '))).toHaveLength(3); // two filtered-by-topology, one no-endpoints
    expect(s.filter((x) => x.includes(' error ') || x.includes(' warning '))).toHaveLength(2);
  });

  it('says why in the message, once', () => {
    const { files, cluster } = sample('iptables-nft');
    const all = clusterDiagnostics(buildSnapshotWithCluster(files, [cluster])).flatMap((f) => f.diagnostics);
    expect(all.find((d) => d.code === 'stale-endpoint')!.message).toMatch(/10\.244\.3\.9:8080.* Why: not ready/);
    for (const d of all) expect(d.message.split(' Why: ').length).toBeLessThanOrEqual(2);
  });

  it('no cluster file, no dump: no check; a text that is no cluster state is not read unless picked', () => {
    const { files, cluster } = sample('nftables');
    expect(buildSnapshotWithCluster(files, []).cluster).toBeUndefined();
    expect(buildSnapshotWithCluster([], [cluster]).cluster).toBeUndefined();
    expect(readClusterInput('notes.yaml', 'hello: world\n')).toBeUndefined();
    const picked = readClusterInput('pods.yaml', 'apiVersion: v1\nkind: PodList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n', true)!;
    expect(picked.state.diagnostics[0].diagnostics.map((d) => d.code)).toContain('cluster-unknown-kind');
  });

  it('a bad cluster file: its problems on its lines, the dumps still checked against the rest', () => {
    const { files, cluster } = sample('iptables-nft');
    const bad = readClusterInput('/x/more.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n\tname: broken\n')!;
    const snapshot = buildSnapshotWithCluster(files, [cluster, bad]);
    const more = clusterDiagnostics(snapshot).find((f) => f.file === '/x/more.yaml')!;
    expect(more.cluster).toBe(true);
    expect(more.diagnostics.length).toBeGreaterThan(0);
    expect(more.diagnostics[0].range.start.line).toBe(3);
    expect(snapshot.cluster!.check.findings.some((f) => f.code === 'stale-endpoint')).toBe(true);
  });

  it('checks once per version of the files: the same analyses and state reuse the check, a new state makes a new one', () => {
    const { files, cluster } = sample('iptables-nft');
    const first = buildSnapshotWithCluster(files, [cluster], 'x');
    expect(buildSnapshotWithCluster(files, [cluster], 'x').cluster).toBe(first.cluster);
    const again = readClusterInput(cluster.name, readFileSync(cluster.name, 'utf8'))!;
    const second = buildSnapshotWithCluster(files, [again], 'x');
    expect(second.cluster).not.toBe(first.cluster);
    expect(second.cluster!.check.findings).toEqual(first.cluster!.check.findings);
  });

  it("the node the user chose is the check's node, not inferred, and is part of what the check is kept by", () => {
    const { files, cluster } = sample('iptables-nft');
    const inferred = buildSnapshotWithCluster(files, [cluster], 'x');
    const known = knownNodeNames(cluster.state);
    const other = known.find((n) => n !== inferred.cluster!.check.node.name)!;
    expect(other).toBeDefined();
    const chosen = buildSnapshotWithCluster(files, [cluster], 'x', other);
    expect(chosen.cluster!.check.node).toMatchObject({ name: other });
    expect(chosen.cluster!.check.node.inferredFrom).toBeUndefined();
    expect(chosen.cluster).not.toBe(inferred.cluster);
    expect(buildSnapshotWithCluster(files, [cluster], 'x', other).cluster).toBe(chosen.cluster);
  });
});

describe("the link of a diagnostic's code", () => {
  it('every finding code has its row in docs/cluster-check.md; a reading problem goes to Inputs', () => {
    const docs = readFileSync(join(__dirname, '../../docs/cluster-check.md'), 'utf8');
    const lines = docs.split('\n');
    const codes = ['not-programmed', 'stale-service', 'missing-endpoint', 'stale-endpoint', 'frontend-mismatch', 'policy-mismatch', 'no-endpoints', 'filtered-by-topology', 'mode-mismatch'];
    for (const code of codes) expect(lines[docsLineOf(docs, code) - 1]).toMatch(new RegExp(`^\\| \`${code}\` \\|`));
    expect(lines[docsLineOf(docs, 'cluster-yaml-syntax') - 1]).toBe('## Inputs');
    // The VSIX ships the page the links open.
    expect(readFileSync(join(__dirname, '../../.vscodeignore'), 'utf8').split('\n')).toContain('!docs/cluster-check.md');
  });
});

describe('the API side in a Service hover', () => {
  const { files, cluster } = sample('iptables-nft');
  const snapshot = buildSnapshotWithCluster(files, [cluster]);
  const ref = (namespace: string, name: string, portName: string, protocol: string) => ({ namespace, name, portName, protocol, family: 'ipv4' as const });

  it('counts ready, terminating and hinted endpoints next to the rules, and says whether they match', () => {
    expect(apiSideMarkdown(snapshot, ref('kube-system', 'kube-dns', 'dns', 'udp'))).toBe('**API**: 3 ready, 1 hinted for zone-b; **rules**: 2 — matches');
    expect(apiSideMarkdown(snapshot, ref('ingress', 'gateway', 'https', 'tcp'))).toContain('1 on other nodes (Local policy)');
  });

  it('names what differs, with the finding', () => {
    const web = apiSideMarkdown(snapshot, ref('shop', 'web', 'http', 'tcp'))!;
    expect(web.split('\n')[0]).toBe('**API**: 2 ready, 1 not ready; **rules**: 3 — differs: 1 stale-endpoint');
    expect(web).toContain('10.244.3.9:8080');
  });

  it('says so when the API has no such Service port, and nothing without a cluster state', () => {
    expect(apiSideMarkdown(snapshot, ref('shop', 'gone', 'http', 'tcp'))).toMatch(/^\*\*API\*\*: no such Service port/);
    expect(apiSideMarkdown(buildSnapshotWithCluster(files, []), ref('shop', 'web', 'http', 'tcp'))).toBeUndefined();
  });

  it('an IPVS virtual service: found by its line, since ipvsadm names no Service', () => {
    const ipvs = sample('ipvs');
    const withState = buildSnapshotWithCluster(ipvs.files, [ipvs.cluster]);
    const index = ipvs.files.findIndex((f) => f.languageId === 'ipvsadm');
    const line = readFileSync(ipvs.files[index].name, 'utf8')
      .split('\n')
      .findIndex((l) => l.startsWith('TCP  10.96.12.40:80'));
    expect(apiSideAt(withState, index, { line, character: 8 })?.split('\n')[0]).toBe('**API**: 2 ready, 1 not ready; **rules**: 3 — differs: 1 stale-endpoint');
    expect(apiSideAt(withState, index, { line: line + 1, character: 8 })).toBeUndefined();
  });

  it('the hover of a Service chain names its Service port, for the editor to ask', () => {
    const dump = files[0];
    const text = readFileSync(dump.name, 'utf8').split('\n');
    const line = text.findIndex((l) => l.startsWith('-A KUBE-SVC-67NZLRHBNDSAWJRO'));
    const hover = dump.features.hoverAt(dump.analysis, { line, character: 5 });
    expect(hover?.service).toEqual({ namespace: 'shop', name: 'web', portName: 'http', protocol: 'tcp', family: 'ipv4' });
  });
});

describe('the analysis worker reads the cluster-state file beside the dumps', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dataplane-cluster-editor-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function ask(host: AnalysisHost, posted: FromWorker[], files: SnapshotFileSpec[], id: number): SnapshotAnswer<ClusterFileDiagnostics[]> {
    host.receive({ type: 'snapshot', files, method: 'clusterDiagnostics', args: [], folder: 'node1', id });
    const answer = posted.find((m) => m.id === id)!;
    if (!('ok' in answer) || !answer.ok) throw new Error(JSON.stringify(answer));
    return answer.value as SnapshotAnswer<ClusterFileDiagnostics[]>;
  }

  it('by its content whatever its name, once per version on disk; a picked file is read as one whatever it holds', () => {
    const posted: FromWorker[] = [];
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => fn(),
    );
    const dump = join(dir, 'node1.iptables');
    const state = join(dir, 'objects.txt');
    writeFileSync(dump, readFileSync(join(SAMPLES, 'iptables-nft/node1.iptables')));
    writeFileSync(state, readFileSync(join(SAMPLES, 'iptables-nft/cluster-state.yaml')));
    writeFileSync(join(dir, 'notes.md'), '# notes\n');
    const specs = (picked?: boolean): SnapshotFileSpec[] => [dump, state, join(dir, 'notes.md')].map((path, i) => ({ kind: 'path', name: path, path, maxSize: 1 << 20, ...(i === 2 && picked ? { cluster: true } : {}) }));
    const first = ask(host, posted, specs(), 1);
    expect(first.included).toEqual([0]);
    expect(first.clusterIncluded).toEqual([1]);
    expect(summary(first.value)).toContain(`node1.iptables:${lineOf(dump, 'shop/web:http -> 10.244.3.9:8080')} error stale-endpoint`);
    // The pod passes its readiness probe: the file changed on disk, the check follows.
    writeFileSync(state, readFileSync(state, 'utf8').replace('- 10.244.3.9\n    conditions:\n      ready: false\n      serving: false', '- 10.244.3.9\n    conditions:\n      ready: true\n      serving: true'));
    utimesSync(state, new Date(), new Date(Date.now() + 5000));
    expect(summary(ask(host, posted, specs(), 2).value).join('\n')).not.toContain('stale-endpoint');
    const picked = ask(host, posted, specs(true), 3);
    expect(picked.clusterIncluded).toEqual([1, 2]);
    expect(picked.value.find((f) => f.file.endsWith('notes.md'))?.diagnostics.length).toBeGreaterThan(0);
  });

  it('an open cluster-state file travels as text and is read as edited', () => {
    const posted: FromWorker[] = [];
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => fn(),
    );
    const dumpText = readFileSync(join(SAMPLES, 'nftables/node1.nft'), 'utf8');
    const stateText = readFileSync(join(SAMPLES, 'nftables/cluster-state.yaml'), 'utf8');
    const specs = (version: number, text: string): SnapshotFileSpec[] => [
      { kind: 'text', key: 'd', version: 1, name: '/n/node1.nft', languageId: 'nftables', text: dumpText },
      { kind: 'text', key: 'c', version, name: '/n/cluster.yaml', text },
    ];
    expect(summary(ask(host, posted, specs(1, stateText), 1).value).filter((x) => x.includes('stale-endpoint'))).toHaveLength(1);
    // The pod passes its readiness probe in the edited, unsaved text.
    const edited = stateText.replace('- 10.244.3.9\n    conditions:\n      ready: false\n      serving: false', '- 10.244.3.9\n    conditions:\n      ready: true\n      serving: true');
    expect(edited).not.toBe(stateText);
    expect(summary(ask(host, posted, specs(2, edited), 2).value).filter((x) => x.includes('stale-endpoint'))).toHaveLength(0);
  });
});
