// Navigation across an IPVS node snapshot: iptables → ipset → ipvsadm and back.
import { describe, expect, it } from 'vitest';
import { snapshotDefinitions, snapshotDiagnostics, snapshotReferences } from '../../src/core/crossref';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { SAMPLE_SERVICES } from '../../tools/generate/samples';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';

const dumps = generateIpvsSnapshot({ services: SAMPLE_SERVICES, nodeIPs: ['192.168.0.10'] });
const files = [analyzeFile('node1.iptables', dumps['iptables-save']), analyzeFile('node1.ipset', dumps['ipset-save']), analyzeFile('node1.ipvsadm', dumps['ipvsadm-list'])] as SnapshotFile[];
const snapshot = buildSnapshot(files);
const lines = (i: number) => (i === 0 ? dumps['iptables-save'] : i === 1 ? dumps['ipset-save'] : dumps['ipvsadm-list']).split('\n');
const find = (i: number, pred: (l: string) => boolean, needle: string) => {
  const line = lines(i).findIndex(pred);
  expect(line, needle).toBeGreaterThanOrEqual(0);
  return { line, character: lines(i)[line].indexOf(needle) + 1 };
};
const text = (l: { fileIndex: number; range: { start: { line: number; character: number }; end: { character: number } } }) => lines(l.fileIndex)[l.range.start.line].slice(l.range.start.character, l.range.end.character);

describe('cross-file navigation in an IPVS node snapshot', () => {
  it('F12 on --match-set KUBE-CLUSTER-IP goes to the ipset definition', () => {
    const at = find(0, (l) => l.includes('--match-set KUBE-CLUSTER-IP'), 'KUBE-CLUSTER-IP');
    const defs = snapshotDefinitions(snapshot, 0, at);
    expect(defs.map((d) => [d.fileIndex, text(d)])).toEqual([[1, 'KUBE-CLUSTER-IP']]);
  });

  it('F12 on an ipset member goes to its virtual service', () => {
    const at = find(1, (l) => l.startsWith('add KUBE-CLUSTER-IP 10.96.0.10,udp:53'), '10.96.0.10');
    const defs = snapshotDefinitions(snapshot, 1, at);
    expect(defs).toHaveLength(1);
    expect(defs[0].fileIndex).toBe(2);
    expect(lines(2)[defs[0].range.start.line]).toMatch(/^UDP\s+10\.96\.0\.10:53/);
  });

  it('a virtual service is referenced by its ipset members and the iptables rules matching those sets', () => {
    const at = find(2, (l) => /^UDP\s+10\.96\.0\.10:53/.test(l), '10.96.0.10');
    const refs = snapshotReferences(snapshot, 2, at);
    const members = refs.filter((r) => r.fileIndex === 1).map(text);
    expect(members).toContain('10.96.0.10,udp:53');
    const rules = refs.filter((r) => r.fileIndex === 0).map(text);
    expect(rules.length).toBeGreaterThan(0);
    expect(new Set(rules)).toEqual(new Set(['KUBE-CLUSTER-IP']));
  });
});

describe('snapshot diagnostics', () => {
  it('flags a --match-set naming a set the ipset dump lacks, only when there is an ipset dump', () => {
    expect(snapshotDiagnostics(snapshot, 0)).toEqual([]);
    const edited = dumps['iptables-save'].replace('--match-set KUBE-CLUSTER-IP ', '--match-set KUBE-CLUSTR-IP ');
    const withTypo = buildSnapshot([analyzeFile('node1.iptables', edited)!, files[1], files[2]]);
    const d = snapshotDiagnostics(withTypo, 0);
    expect(d.length).toBeGreaterThan(0);
    expect(d[0]).toMatchObject({ severity: 'warning', code: 'unknown-ipset' });
    expect(snapshotDiagnostics(buildSnapshot([analyzeFile('node1.iptables', edited)!]), 0)).toEqual([]);
  });

  it('a virtual service without real servers is a warning in the ipvsadm file', () => {
    const a = files[2].analysis;
    expect(a.diagnostics.some((d) => d.code === 'no-real-servers' && d.message.includes('10.96.12.42:443'))).toBe(true);
  });
});
