// An ipset dump decides `-m set` matches in every kube-proxy mode, not only beside an ipvsadm dump: a Weave or
// Calico node in iptables mode matches pods by ipset, and with the sets given there is nothing left to assume.
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile, type TraceRequest } from '../../src/core/trace';

const RULES = [
  '*filter',
  ':FORWARD ACCEPT [0:0]',
  ':BLOCKED - [0:0]',
  '-A FORWARD -m set --match-set blocked-pods src -j BLOCKED',
  '-A FORWARD -m set ! --match-set allowed-ports dst,dst -j DROP',
  '-A BLOCKED -j REJECT',
  'COMMIT',
  '',
].join('\n');
const SETS = [
  'create blocked-pods hash:ip family inet hashsize 1024 maxelem 65536',
  'add blocked-pods 10.32.0.9',
  'create allowed-ports hash:ip,port family inet hashsize 1024 maxelem 65536',
  'add allowed-ports 10.0.0.2,tcp:80',
  '',
].join('\n');

const file = (name: string, text: string): SnapshotFile => ({ name, analysis: analyzeFile(name, text)!.analysis as SnapshotFile['analysis'] });
const trace = (files: SnapshotFile[], request: Partial<TraceRequest>) => traceSnapshot(files, { to: '10.0.0.2', dport: 80, protocol: 'tcp', from: '10.32.0.5', entry: 'pod', ...request });
const summary = (r: ReturnType<typeof trace>) => r.outcomes.map((o) => `${o.verdict}${o.assumptions.length ? ` [${o.assumptions.join('; ')}]` : ''}`);

describe('ipsets decide -m set in iptables mode', () => {
  const withSets = [file('node.iptables', RULES), file('node.ipset', SETS)];

  it('a source in the set and a port not in it are facts, not assumptions', () => {
    expect(summary(trace(withSets, {}))).toEqual(['accept']);
    expect(summary(trace(withSets, { from: '10.32.0.9' }))).toEqual(['reject']);
    expect(summary(trace(withSets, { dport: 81 }))).toEqual(['drop']);
  });

  it('without the ipset dump the same memberships stay conditions', () => {
    const r = trace([file('node.iptables', RULES)], {});
    expect(r.outcomes.length).toBeGreaterThan(1);
    expect(r.outcomes.every((o) => o.conditions.length > 0)).toBe(true);
  });

  it('an ipset dump alone does not make the node an IPVS node: no IPVS step on the path', () => {
    const r = trace(withSets, {});
    expect(r.outcomes.flatMap((o) => o.path.map((p) => p.table))).not.toContain('ipvs');
  });
});
