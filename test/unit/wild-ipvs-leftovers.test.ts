// test/fixtures/wild/ipvs-leftovers.*: a kubeadm node switched from iptables mode to IPVS mode without
// `kube-proxy --cleanup` (kubernetes/kubernetes#102314), its iptables-save, ipvsadm -Ln (NodePort on loopback and
// the node addresses, as in the public dumps of such nodes) and ipset save. It must parse clean, be called IPVS mode
// with iptables-mode leftovers, and trace as IPVS does. When root, the real iptables-restore --test judges it inside
// a throw-away namespace holding the fixture's ipsets (both backends).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';
import { explainNode } from '../../src/core/explain/node';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';

const DIR = `${__dirname}/../fixtures/wild`;
const NAMES = ['ipvs-leftovers.iptables', 'ipvs-leftovers.ipvsadm', 'ipvs-leftovers.ipset'];
const text = (name: string) => readFileSync(`${DIR}/${name}`, 'utf8');
const files = (names = NAMES) => names.map((n) => analyzeFile(`${DIR}/${n}`, text(n))!);

function trace(names: string[], to: string, dport: number, protocol: 'tcp' | 'udp', entry: 'pod' | 'node' | 'external', extra: { from?: string; nodeIPs?: string[] } = {}) {
  const traceFiles: TraceFile[] = files(names).map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));
  const r = traceSnapshot(traceFiles, { to, dport, protocol, entry, ...extra });
  return r.outcomes.map((o) => `${o.verdict}${o.destination ? ` ${o.destination}` : ''} ${o.probability.toFixed(3)}${o.masquerade ? ' masq' : ''}${o.assumptions.length ? ` [${o.assumptions.join('; ')}]` : ''}`).sort();
}

describe('wild: an IPVS node with iptables-mode leftovers', () => {
  it.each(NAMES)('%s parses clean: no errors, no warnings', (name) => {
    const [f] = files([name]);
    expect(f.analysis.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')).toEqual([]);
  });

  it('is IPVS mode; the iptables-mode chains are leftovers, the filter ones still jumped to', () => {
    const snap = buildSnapshot(files());
    expect(snap.mode).toBe('ipvs');
    expect(snap.leftovers).toHaveLength(1);
    const chains = snap.leftovers[0].chains!;
    expect([chains.of, chains.serviceChains, chains.chains.length, chains.reachedServiceChains]).toEqual(['iptables', 5, 18, 0]);
    expect(chains.reached.map((c) => c.name).sort()).toEqual(['KUBE-EXTERNAL-SERVICES', 'KUBE-NODEPORTS', 'KUBE-SERVICES']);
    const e = explainNode(snap);
    expect([e.mode, e.modes]).toEqual(['ipvs', ['ipvs']]);
    expect(e.sections.find((s) => s.id === 'leftovers')!.items[0].text).toMatch(/^5 KUBE-SVC chains \(and 13 other iptables-mode chains\) are leftovers from iptables mode/);
  });

  it('the Services come from IPVS: the NodePort on four node addresses joins its ClusterIP, certain with the ipsets', () => {
    const web = buildSnapshot(files()).services.find((s) => s.frontends.some((f) => f.address === '10.107.12.34'))!;
    expect(web.frontends.map((f) => `${f.kind} ${f.address}:${f.port}${f.kindUncertain ? ' ?' : ''}`)).toEqual([
      'clusterIP 10.107.12.34:80',
      'nodePort 10.0.0.4:30080',
      'nodePort 10.244.0.0:30080',
      'nodePort 10.244.0.1:30080',
      'nodePort 127.0.0.1:30080',
    ]);
    expect(web.endpoints.map((e) => `${e.address}:${e.port}${e.local ? ' local' : ''}`)).toEqual(['10.244.0.5:8080 local', '10.244.1.7:8080']);
    // Without the ipset dump: the same grouping, each kind said to be a guess.
    const guessed = buildSnapshot(files(NAMES.slice(0, 2))).services.find((s) => s.frontends.some((f) => f.address === '10.107.12.34'))!;
    expect(guessed.frontends.map((f) => `${f.kind} ${f.address}:${f.port}${f.kindUncertain ? ' ?' : ''}`)).toEqual([
      'clusterIP 10.107.12.34:80 ?',
      'nodePort 10.0.0.4:30080 ?',
      'nodePort 10.244.0.0:30080 ?',
      'nodePort 10.244.0.1:30080 ?',
      'nodePort 127.0.0.1:30080 ?',
    ]);
  });

  it.each([
    ['with the ipset dump', NAMES],
    ['without it (memberships inferred)', NAMES.slice(0, 2)],
  ])('traces as IPVS does, never through the leftover KUBE-SVC chains, %s', (_how, use) => {
    // A pod of this node (10.244.0.0/24) to the ClusterIP: IPVS picks either endpoint; no masquerade.
    expect(trace(use, '10.107.12.34', 80, 'tcp', 'pod', { from: '10.244.0.9' })).toEqual(['dnat 10.244.0.5:8080 0.500', 'dnat 10.244.1.7:8080 0.500']);
    // From outside to the NodePort: masqueraded (KUBE-NODE-PORT marks it), the old endpoint 10.244.0.4 never appears.
    expect(trace(use, '10.0.0.4', 30080, 'tcp', 'external', { nodeIPs: ['10.0.0.4'] })).toEqual(['dnat 10.244.0.5:8080 0.500 masq', 'dnat 10.244.1.7:8080 0.500 masq']);
    expect(trace(use, '10.96.0.10', 53, 'udp', 'pod', { from: '10.244.0.9' })).toEqual(['dnat 10.244.0.2:53 0.500', 'dnat 10.244.0.3:53 0.500']);
    // The Service deleted since the switch: its stale REJECT in filter KUBE-SERVICES still answers.
    expect(trace(use, '10.96.45.7', 8080, 'tcp', 'pod', { from: '10.244.0.9' })).toEqual(['reject 1.000']);
  });

  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const have = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
  const skip = !root ? 'needs root' : !have('ipset') || !have('ip') ? 'needs ip and ipset' : '';
  it.skipIf(skip !== '')('the real iptables-restore --test accepts it, both backends, beside its ipsets', () => {
    const ns = `dpk-${process.pid}-wild-ipvs`;
    const exec = (cmd: string[], input?: string) => spawnSync('ip', ['netns', 'exec', ns, ...cmd], { input, encoding: 'utf8' });
    expect(spawnSync('ip', ['netns', 'add', ns]).status).toBe(0);
    try {
      const sets = exec(['ipset', 'restore'], text('ipvs-leftovers.ipset'));
      expect(sets.stderr).toBe('');
      for (const restore of ['iptables-legacy-restore', 'iptables-nft-restore']) {
        if (!have(restore)) continue;
        const r = exec([restore, '--test'], text('ipvs-leftovers.iptables'));
        expect(`${restore}: ${r.status} ${r.stderr}`).toBe(`${restore}: 0 `);
      }
    } finally {
      spawnSync('ip', ['netns', 'delete', ns]);
    }
  });
});
