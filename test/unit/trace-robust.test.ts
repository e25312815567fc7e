// The tracer on adversarial rulesets: numgen maps over huge ranges, random matches whose branches multiply, and
// kube-proxy's largest legal shapes, which must stay complete and exact.
import { describe, expect, it } from 'vitest';
import { generateIptablesDump, type GenServicePort } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';
import { analyzeFile, type SnapshotFile } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';
import { traceProblems } from '../helpers/shared';

const asTrace = (files: SnapshotFile[]): TraceFile[] => files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));
const files = (...named: [string, string][]) => asTrace(named.map(([name, text]) => analyzeFile(name, text)!));
const trace = (fs: TraceFile[], to: string, dport = 80) => traceSnapshot(fs, { to, dport, protocol: 'tcp', from: '10.0.0.250', entry: 'pod', nodeIPs: ['192.168.0.10'] });
const total = (r: ReturnType<typeof trace>) => r.outcomes.reduce((s, o) => s + o.probability, 0);
const byKey = (r: ReturnType<typeof trace>) => Object.fromEntries(r.outcomes.map((o) => [o.destination ?? o.verdict, o.probability]));
const STOPPED = /stopped after creating \d+ branches.*incomplete.*not 100%/;

const nftTable = (pre: string, chains: string) => `table ip t {
\tchain pre {
\t\ttype nat hook prerouting priority dstnat; policy accept;
${pre}
\t}
${chains}
}
`;
const dnatChain = (name: string, to: string) => `\tchain ${name} {\n\t\tdnat to ${to}\n\t}`;

describe('numgen verdict maps are split by element, not by value', () => {
  it("mod 4294967295 with a value and a range answers at once with each element's share", () => {
    const text = nftTable('\t\tnumgen random mod 4294967295 vmap { 0 : jump a, 1-2147483647 : jump b }', [dnatChain('a', '10.244.0.1'), dnatChain('b', '10.244.0.2')].join('\n'));
    const fs = files(['numgen.nft', text]);
    const r = trace(fs, '10.0.0.5');
    // One branch per value would have stopped at the cap on branches (and taken minutes before there was one).
    expect(r.warnings.join(' ')).not.toMatch(/stopped/);
    expect(r.outcomes).toHaveLength(3);
    const n = 4294967295;
    const shares = byKey(r);
    expect(shares['10.244.0.1:80']).toBe(1 / n);
    expect(shares['10.244.0.2:80']).toBe(2147483647 / n);
    expect(shares.accept).toBe((n - 2147483648) / n); // the values no element has: no match, the policy accepts
    expect(total(r)).toBeCloseTo(1, 12);
    const notes = (dst: string) =>
      r.outcomes
        .find((o) => o.destination === dst)!
        .path.map((p) => p.note)
        .join(' ');
    expect(notes('10.244.0.1:80')).toContain('numgen picked 0 of 4294967295 (1/4294967295).');
    expect(notes('10.244.0.2:80')).toContain('numgen picked a value in 1-2147483647 (2147483647 of its 4294967295 values).');
  });

  it('a kube-proxy map (mod 3, one element per endpoint) gives 1/3 each, as one branch per value did', () => {
    const text = nftTable('\t\tnumgen random mod 3 vmap { 0 : goto e0, 1 : goto e1, 2 : goto e2 }', [0, 1, 2].map((i) => dnatChain(`e${i}`, `10.244.0.${i + 1}:8080`)).join('\n'));
    const r = trace(files(['kube.nft', text]), '10.0.0.5');
    expect(r.outcomes.map((o) => [o.destination, o.probability])).toEqual([
      ['10.244.0.1:8080', 1 / 3],
      ['10.244.0.2:8080', 1 / 3],
      ['10.244.0.3:8080', 1 / 3],
    ]);
    expect(r.outcomes.map((o) => o.path[0].note)).toEqual([0, 1, 2].map((k) => `numgen picked ${k} of 3 (1/3). Share of new connections: 1/3. Go to e${k} (no return here).`));
    expect(traceProblems(r.warnings)).toEqual([]);
  });

  it('offset, exact keys before intervals, overlaps and values out of range', () => {
    // Values 10..19. Exact 15 wins over the interval 12-17 written before it; 0-11 only has 10 and 11 in range.
    const text = nftTable('\t\tnumgen inc mod 10 offset 10 vmap { 12-17 : jump b, 15 : jump a, 0-11 : jump c, 17-18 : jump d }', ['a', 'b', 'c', 'd'].map((c, i) => dnatChain(c, `10.244.0.${i + 1}`)).join('\n'));
    const shares = byKey(trace(files(['offset.nft', text]), '10.0.0.5'));
    // a: 15; b: 12-14, 16, 17; c: 10, 11; d: 18; no element: 19.
    expect(shares).toEqual({ '10.244.0.1:80': 1 / 10, '10.244.0.2:80': 5 / 10, '10.244.0.3:80': 2 / 10, '10.244.0.4:80': 1 / 10, accept: 1 / 10 });
  });

  it('a named interval map', () => {
    const text = `table ip t {
\tmap m {
\t\ttype integer : verdict
\t\tflags interval
\t\telements = { 0-1 : jump a, 2 : jump b }
\t}
\tchain pre {
\t\ttype nat hook prerouting priority dstnat; policy accept;
\t\tnumgen random mod 4 vmap @m
\t}
${dnatChain('a', '10.244.0.1')}
${dnatChain('b', '10.244.0.2')}
}
`;
    expect(byKey(trace(files(['named.nft', text]), '10.0.0.5'))).toEqual({ '10.244.0.1:80': 2 / 4, '10.244.0.2:80': 1 / 4, accept: 1 / 4 });
  });
});

/** 60 chains, each sending every packet on to the next by two routes (a random match, then the rest). */
function iptablesDiamond(levels: number): string {
  const lines = ['*nat', ':PREROUTING ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]'];
  for (let i = 0; i < levels; i++) lines.push(`:D${i} - [0:0]`);
  lines.push('-A PREROUTING -j D0');
  for (let i = 0; i < levels - 1; i++) lines.push(`-A D${i} -m statistic --mode random --probability 0.5 -j D${i + 1}`, `-A D${i} -j D${i + 1}`);
  lines.push(`-A D${levels - 1} -p tcp -j DNAT --to-destination 10.244.0.1:80`, 'COMMIT', '');
  return lines.join('\n');
}

function nftDiamond(levels: number): string {
  const chains: string[] = [];
  for (let i = 0; i < levels - 1; i++) chains.push(`\tchain d${i} {\n\t\tnumgen random mod 2 vmap { 0 : jump d${i + 1}, 1 : jump d${i + 1} }\n\t}`);
  chains.push(dnatChain(`d${levels - 1}`, '10.244.0.1'));
  return nftTable('\t\tjump d0', chains.join('\n'));
}

describe('branches that multiply stop at a cap and say the answer is incomplete', () => {
  it('iptables: 60 chains of 50% random matches (2^59 paths)', () => {
    const r = trace(files(['diamond.iptables', iptablesDiamond(60)]), '10.0.0.5');
    expect(r.warnings[0]).toMatch(STOPPED);
    expect(r.warnings[0]).toContain('< 0.01%');
    expect(total(r)).toBeLessThan(0.01);
    expect(r.outcomes.every((o) => o.verdict === 'dnat')).toBe(true); // what it shows is true, only not all of it
  });

  it('nft: 60 chains of numgen mod 2', () => {
    const r = trace(files(['diamond.nft', nftDiamond(60)]), '10.0.0.5');
    expect(r.warnings[0]).toMatch(STOPPED);
    expect(total(r)).toBeLessThan(0.01);
  });

  it('a short diamond (10 chains) stays complete and exact', () => {
    for (const [name, text] of [
      ['d.iptables', iptablesDiamond(10)],
      ['d.nft', nftDiamond(10)],
    ]) {
      const r = trace(files([name, text]), '10.0.0.5');
      expect(traceProblems(r.warnings), name).toEqual([]);
      expect(byKey(r), name).toEqual({ '10.244.0.1:80': 1 });
    }
  });

  it('iptables: 8 levels of 0.5 splits give 256 outcomes of 1/256, complete', () => {
    // Each level sets one bit of the mark at random; the mark then picks one of 256 destinations.
    const lines = ['*nat', ':PREROUTING ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]'];
    for (let b = 0; b < 8; b++) lines.push(`-A PREROUTING -m statistic --mode random --probability 0.5 -j MARK --or-mark 0x${(1 << b).toString(16)}`);
    for (let m = 0; m < 256; m++) lines.push(`-A PREROUTING -m mark --mark 0x${m.toString(16)}/0xff -j DNAT --to-destination 10.1.0.${m}:80`);
    lines.push('COMMIT', '');
    const r = trace(files(['bits.iptables', lines.join('\n')]), '10.0.0.5');
    expect(traceProblems(r.warnings)).toEqual([]);
    expect(r.outcomes).toHaveLength(256);
    expect(r.outcomes.every((o) => o.probability === 1 / 256 && o.verdict === 'dnat')).toBe(true);
    expect(new Set(r.outcomes.map((o) => o.destination)).size).toBe(256);
    expect(total(r)).toBe(1);
  });

  it('nft: 8 levels of numgen mod 2 give 256 outcomes of 1/256, complete', () => {
    const pre: string[] = [];
    const chains: string[] = [];
    for (let b = 0; b < 8; b++) {
      pre.push(`\t\tnumgen random mod 2 vmap { 1 : jump bit${b} }`);
      chains.push(`\tchain bit${b} {\n\t\tmeta mark set meta mark | 0x${(1 << b).toString(16)}\n\t}`);
    }
    for (let m = 0; m < 256; m++) pre.push(`\t\tmeta mark 0x${m.toString(16)} dnat to 10.1.0.${m}:80`);
    const r = trace(files(['bits.nft', nftTable(pre.join('\n'), chains.join('\n'))]), '10.0.0.5');
    expect(traceProblems(r.warnings)).toEqual([]);
    expect(r.outcomes).toHaveLength(256);
    expect(r.outcomes.every((o) => o.probability === 1 / 256 && o.verdict === 'dnat')).toBe(true);
    expect(new Set(r.outcomes.map((o) => o.destination)).size).toBe(256);
    expect(total(r)).toBe(1);
  });
});

describe("kube-proxy's largest Services stay far below the caps", () => {
  const endpoints = Array.from({ length: 1000 }, (_, i) => ({ address: `10.244.${Math.floor(i / 250)}.${(i % 250) + 1}`, port: 8080 }));
  const service: GenServicePort = { namespace: 'default', name: 'big', portName: '', protocol: 'tcp', clusterIP: '10.96.0.50', port: 80, nodePort: 30080, endpoints };
  const check = (r: ReturnType<typeof trace>) => {
    expect(r.warnings.join(' ')).not.toMatch(/stopped/);
    expect(r.outcomes).toHaveLength(1000);
    expect(total(r)).toBeCloseTo(1, 9);
    for (const o of r.outcomes) expect(o.probability).toBeCloseTo(1 / 1000, 8);
  };

  it('iptables: a Service of 1,000 endpoints', () => {
    check(trace(files(['node.iptables', generateIptablesDump({ services: [service], style: 'iptables-nft-save', nodeRules: true })]), '10.96.0.50'));
  });

  it('nftables: a Service of 1,000 endpoints', () => {
    check(trace(files(['node.nft', generateNftDump({ services: [service], style: 'nft-list-ruleset' })]), '10.96.0.50'));
  });

  it('IPVS: a Service of 1,000 real servers', () => {
    const d = generateIpvsSnapshot({ services: [service], nodeIPs: ['192.168.0.10'] });
    check(trace(files(['node.iptables', d['iptables-save']], ['node.ipset', d['ipset-save']], ['node.ipvsadm', d['ipvsadm-save']]), '10.96.0.50'));
  });
});

describe('IPVS real servers the trace cannot use', () => {
  it('a real server without a readable address is left out of the shares, which still add up to 1', () => {
    const r = trace(files(['node.ipvsadm', 'TCP  10.96.0.10:8080 rr\n  -> 10.244.0.2:8080 Masq 1 0 0\n  -> [ Masq 1 0 0']), '10.96.0.10', 8080);
    expect(r.outcomes.map((o) => [o.verdict, o.destination, o.probability])).toEqual([['dnat', '10.244.0.2:8080', 1]]);
    expect(r.warnings.join(' ')).toContain('real server [ of');
  });

  it('with no server that takes connections (weight 0, unreadable) the client is rejected, not lost', () => {
    const r = trace(files(['node.ipvsadm', 'TCP  10.96.0.10:8080 rr\n  -> 10.244.0.2:8080 Masq 0 0 0\n  -> [ Masq 1 0 0']), '10.96.0.10', 8080);
    expect(r.outcomes.map((o) => [o.verdict, o.probability])).toEqual([['reject', 1]]);
  });
});
