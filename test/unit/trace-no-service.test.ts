// A trace to an address no Service owns says so, in each of kube-proxy's modes (samples/iptables-nft,
// samples/nftables, samples/ipvs), and the core words nothing as a CLI flag: the CLI and the editor each say how
// to give the node's address (result.advice), so no message the editor shows names `--node-ip`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, traceToJson, type SnapshotFile as TraceFile, type TraceRequest } from '../../src/core/trace';

const sample = (path: string) => readFileSync(`samples/${path}`, 'utf8');
const snapshot = (entries: [string, string][]): TraceFile[] => entries.map(([name, text]) => ({ name, analysis: analyzeFile(name, text)!.analysis as TraceFile['analysis'] }));
const MODES: Record<string, () => [string, string][]> = {
  iptables: () => [['node1.iptables', sample('iptables-nft/node1.iptables')]],
  nftables: () => [['node1.nft', sample('nftables/node1.nft')]],
  ipvs: () => ['node1.ipvsadm', 'node1.ipset', 'node1.iptables'].map((n) => [n, sample(`ipvs/${n}`)]),
};
const trace = (files: TraceFile[], request: Partial<TraceRequest>) => traceSnapshot(files, { to: '10.96.12.99', dport: 80, protocol: 'tcp', entry: 'pod', ...request });
const NO_SERVICE = /No Service matches 10\.96\.12\.99:80: not translated, routed as is/;

describe.each(Object.keys(MODES))('a trace to an address no Service owns (%s mode)', (mode) => {
  const files = snapshot(MODES[mode]());

  it.each(['pod', 'node', 'external'] as const)('from %s: says no Service matches, in the result and its JSON', (entry) => {
    const r = trace(files, { entry, nodeIPs: ['192.168.0.10'] });
    expect(r.outcomes.some((o) => o.verdict === 'dnat')).toBe(false);
    expect(r.noService).toBe(true);
    expect(r.warnings.join('\n')).toMatch(NO_SERVICE);
    expect((traceToJson(r, []) as { noService?: boolean }).noService).toBe(true);
  });

  it('a Service ClusterIP is matched: no such note', () => {
    const r = trace(files, { to: '10.96.12.40' });
    expect(r.noService).toBeUndefined();
    expect(r.warnings.join('\n')).not.toMatch(/No Service matches/);
  });

  it('another port of a Service address is no Service either', () => {
    const r = trace(files, { to: '10.96.12.40', dport: 81 });
    expect(r.warnings.join('\n')).toMatch(/No Service matches 10\.96\.12\.40:81:/);
  });
});

describe("a dump without Services (a host's own firewall)", () => {
  it('has no Service to name: no such note', () => {
    const files = snapshot([['host.iptables', '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 22 -j ACCEPT\nCOMMIT\n']]);
    const r = trace(files, { to: '192.168.1.1', dport: 22, entry: 'external' });
    expect(r.noService).toBeUndefined();
    expect(r.warnings.join('\n')).not.toMatch(/No Service matches/);
  });
});

describe('messages name no CLI flag; the advice is structured', () => {
  const files = snapshot(MODES.iptables());

  it('a stand-in source: advice node-address, no `--` in any warning or reason', () => {
    const r = trace(files, { to: '10.96.12.40', entry: 'node' });
    expect(r.source?.origin).toBe('stand-in');
    expect(r.advice).toEqual(['node-address']);
    for (const text of [...r.warnings, r.source!.text]) expect(text).not.toMatch(/--\w/);
  });

  it('a NodePort taken to be this node: advice node-address, no `--` in the warning', () => {
    const nodePort = files
      .flatMap((f) => (f.analysis.dialect === 'iptables' ? f.analysis.catalog.services : []))
      .flatMap((s) => s.frontends)
      .find((f) => f.kind === 'nodePort')!;
    const r = trace(files, { to: '192.168.7.7', dport: nodePort.port, entry: 'external' });
    expect(r.warnings.join('\n')).toMatch(/taken to be this node/);
    expect(r.advice).toEqual(['node-address']);
    for (const text of r.warnings) expect(text).not.toMatch(/--\w/);
  });

  it('a given node address: no advice', () => {
    expect(trace(files, { to: '10.96.12.40', entry: 'node', nodeIPs: ['192.168.0.10'] }).advice).toBeUndefined();
  });

  it('the CLI words the advice as its flag', () => {
    const out: string[] = [];
    run(
      ['trace', 'samples/iptables-nft/node1.iptables', '--to', '10.96.12.40:80', '--entry', 'node'],
      (s) => out.push(s),
      (s) => out.push(s),
    );
    expect(out.join('\n')).toMatch(/hint: give this node's address with --node-ip ADDRESS/);
  });

  it('no message in the l10n bundle (core and editor text) names a command-line flag', () => {
    const bundle = JSON.parse(readFileSync('l10n/bundle.l10n.json', 'utf8')) as Record<string, string>;
    expect(Object.keys(bundle).filter((k) => /--(node-ip|from|to|entry|json)(?![\w-])/.test(k))).toEqual([]);
  });
});
