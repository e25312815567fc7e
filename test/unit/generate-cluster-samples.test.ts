// The samples' cluster state (samples/<mode>/cluster-state.yaml, written by `npm run samples` from
// tools/generate/sample-cluster.ts) and the generator CLI's --cluster and --drift options: the sample
// dumps stay what SAMPLE_SERVICES gives, the cluster-state file disagrees with them by exactly the drifts the
// samples' README lists, and the CLI writes the objects and the ground truth next to the dumps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { GENERATE_USAGE, generateCli, type GenerateCliResult } from '../../tools/generate/cli';
import { servicePortsForNode } from '../../tools/generate/cluster';
import { DRIFT_KINDS, type ExpectedFinding } from '../../tools/generate/drift';
import { SAMPLE_NODE, sampleCluster, sampleFindings } from '../../tools/generate/sample-cluster';
import { SAMPLE_SERVICES, sampleFiles } from '../../tools/generate/samples';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';
import { apiDumpDiff } from '../helpers/cluster-diff';

const SAMPLES = join(__dirname, '../../samples');
const FOLDERS = [
  ['nftables', 'nftables', '192.168.0.2'],
  ['ipvs', 'ipvs', '192.168.0.10'],
  ['iptables-nft', 'iptables', '192.168.0.10'],
  ['iptables-legacy', 'iptables', '192.168.0.10'],
] as const;

describe('sample cluster state', () => {
  it('without its two drifts, the sample cluster gives exactly SAMPLE_SERVICES on node1', () => {
    const derived = servicePortsForNode(sampleCluster('iptables', '192.168.0.10'), SAMPLE_NODE, 'ipv4');
    const undrifted = derived.filter((sp) => sp.name !== 'checkout');
    undrifted.find((sp) => sp.name === 'web')!.endpoints.push({ address: '10.244.3.9', port: 8080 });
    expect(undrifted).toEqual(SAMPLE_SERVICES);
  });

  for (const [folder, mode, nodeIP] of FOLDERS) {
    it(`${folder}: parses, names node1 with the dump's address and the folder's mode, is no dump itself`, () => {
      const text = readFileSync(join(SAMPLES, folder, 'cluster-state.yaml'), 'utf8');
      const docs = parseAllDocuments(text);
      if (!Array.isArray(docs)) throw new Error('one document only');
      expect(docs.map((d) => d.errors)).toEqual([[], []]);
      const [list, cm] = docs.map((d) => d.toJS());
      const node1 = list.items.find((o: any) => o.kind === 'Node' && o.metadata.name === SAMPLE_NODE);
      expect(node1.status.addresses[0]).toEqual({ address: nodeIP, type: 'InternalIP' });
      expect(parse(cm.data['config.conf']).mode).toBe(mode);
      expect(analyzeFile(`${folder}/cluster-state.yaml`, text)).toBeUndefined();
      if (folder === 'nftables') expect(readFileSync(join(SAMPLES, folder, 'node1.nft'), 'utf8')).toContain(`elements = { ${nodeIP} }`);
      if (folder === 'ipvs') expect(readFileSync(join(SAMPLES, folder, 'node1.ipvsadm'), 'utf8')).toContain(`${nodeIP}:30080`);
    });

    it(`${folder}: disagrees with the dump by exactly the drifts of the README`, () => {
      const cluster = sampleCluster(mode, nodeIP);
      const findings = sampleFindings(cluster);
      expect(apiDumpDiff({ cluster, services: SAMPLE_SERVICES, mode, family: 'ipv4', node: SAMPLE_NODE, findings })).toEqual(findings);
    });
  }

  it('the findings: one stale endpoint, one Service not programmed, kube-dns filtered by topology, payments without endpoints', () => {
    const line = (f: ExpectedFinding) => `${f.code} ${f.severity} ${f.service.namespace}/${f.service.name}:${f.service.portName}/${f.service.protocol}${f.endpoint ? ` ${f.endpoint}` : ''}`;
    expect(sampleFindings().map(line)).toEqual([
      'filtered-by-topology info kube-system/kube-dns:dns/UDP',
      'filtered-by-topology info kube-system/kube-dns:dns-tcp/TCP',
      'no-endpoints info shop/payments:https/TCP',
      'not-programmed error shop/checkout:http/TCP',
      'stale-endpoint error shop/web:http/TCP 10.244.3.9:8080',
    ]);
    const readme = sampleFiles()['README.md']!;
    for (const f of sampleFindings()) expect(readme).toContain(`\`${f.code}\` (${f.severity}) ${f.service.namespace}/${f.service.name}`);
  });
});

function files(result: GenerateCliResult): Extract<GenerateCliResult, { kind: 'files' }> {
  if (result.kind !== 'files') throw new Error(`expected files, got ${JSON.stringify(result)}`);
  return result;
}

describe('generate CLI: --cluster and --drift', () => {
  it('--cluster yaml writes the cluster state and its (info only) expected findings next to the dump', () => {
    const r = files(generateCli(['--services', '30', '--cluster', 'yaml', '--out', 'D']));
    expect(Object.keys(r.files)).toEqual(['node.iptables', 'cluster-state.yaml', 'expected-findings.json']);
    const truth = JSON.parse(r.files['expected-findings.json']!);
    expect(truth).toMatchObject({ node: 'node-1', mode: 'iptables', family: 'ipv4' });
    expect(truth.findings.filter((f: ExpectedFinding) => f.severity !== 'info')).toEqual([]);
    expect(r.notes[0]).toMatch(/^cluster: \d+ Services, 4 nodes; the dump is node-1's$/);
  });

  for (const mode of ['iptables', 'nftables', 'ipvs']) {
    it(`--mode ${mode} --drift all: every kind in the ground truth, the dumps parse clean`, () => {
      const r = files(generateCli(['--mode', mode, '--services', '25', '--drift', 'all', '--family', 'ipv6', '--out', 'D']));
      const truth = JSON.parse(r.files['expected-findings.json']!);
      expect(new Set(truth.findings.map((f: ExpectedFinding) => f.code))).toEqual(new Set(DRIFT_KINDS));
      const dumps = Object.entries(r.files).filter(([name]) => name.startsWith('node.'));
      const analysed = dumps.map(([name, text]) => analyzeFile(name, text)!);
      for (const a of analysed) expect(a.analysis.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(buildSnapshot(analysed).mode).toBe(mode);
    });
  }

  it('--cluster json writes the three files kubectl would; --drift takes a list', () => {
    const r = files(generateCli(['--mode', 'nftables', '--services', '12', '--cluster', 'json', '--drift', 'stale-endpoint,policy-mismatch', '--out', 'D']));
    expect(Object.keys(r.files)).toEqual(['node.nft', 'services.json', 'nodes.json', 'kube-proxy.json', 'expected-findings.json']);
    expect(JSON.parse(r.files['services.json']!).kind).toBe('List');
    const codes = JSON.parse(r.files['expected-findings.json']!).findings.map((f: ExpectedFinding) => f.code);
    expect(codes).toContain('stale-endpoint');
    expect(codes).toContain('policy-mismatch');
    expect(codes).not.toContain('not-programmed');
  });

  it('the same command line writes the same files; another seed other ones', () => {
    const argv = ['--mode', 'ipvs', '--services', '40', '--drift', 'all', '--out', 'D'];
    expect(files(generateCli(argv)).files).toEqual(files(generateCli(argv)).files);
    expect(files(generateCli([...argv, '--seed', '2'])).files['cluster-state.yaml']).not.toBe(files(generateCli(argv)).files['cluster-state.yaml']);
  });

  it('usage errors', () => {
    expect(generateCli(['--cluster', 'yaml'])).toEqual({ kind: 'error', message: '--cluster and --drift write several files: give --out DIR' });
    expect(generateCli(['--drift', 'all'])).toEqual({ kind: 'error', message: '--cluster and --drift write several files: give --out DIR' });
    expect(generateCli(['--cluster', 'xml', '--out', 'D'])).toEqual({ kind: 'error', message: '--cluster must be one of yaml, json (got "xml")' });
    expect(generateCli(['--drift', 'stale,not-programmed', '--out', 'D'])).toEqual({ kind: 'error', message: `--drift takes all or some of ${DRIFT_KINDS.join(', ')} (got "stale")` });
    for (const word of ['--cluster yaml|json', '--drift KIND', ...DRIFT_KINDS]) expect(GENERATE_USAGE).toContain(word);
  });
});
