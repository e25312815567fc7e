// Lists as long as a dump makes them (a set's elements, a snapshot's Services) must not be spread into one call's
// arguments: some 120,000 of them overflow the stack. Before, such an nft file came out as an internal error at
// 1:1 with none of its tables, and a trace of a snapshot of 150,000 Services crashed.
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile } from '../../src/core/trace';
import { appendAll } from '../../src/core/model/append';
import type { Service } from '../../src/core/kube/service';

const COUNT = 150_000;
const addresses = Array.from({ length: COUNT }, (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
// Four to a line, as nft prints them (a line over 65,536 characters is refused).
const list = addresses
  .map((a, i) => (i % 4 === 3 ? `${a},\n` : `${a}, `))
  .join('')
  .replace(/,\s*$/, '');

function nft(text: string) {
  const f = analyzeFile('big.nft', text, 'nftables')!;
  const a = f.analysis as unknown as { diagnostics: { code: string }[]; ruleset: { tables: { name: string; sets: { name: string; elements: unknown[] }[]; chains: { name: string; rules: unknown[] }[] }[] } };
  expect(a.diagnostics.map((d) => d.code)).toEqual([]);
  return a.ruleset;
}

describe('input-sized lists', () => {
  it('appendAll appends in order, to the same array', () => {
    const target = [1];
    expect(appendAll(target, [2, 3])).toBe(target);
    expect(target).toEqual([1, 2, 3]);
    expect(appendAll([], addresses).length).toBe(COUNT);
  });

  it("nft: a define of 150,000 elements, as a set's elements and in rules", () => {
    const ruleset = nft(
      `define X = { ${list} }\ntable ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = $X\n\t}\n\tchain c {\n\t\ttype filter hook prerouting priority 0;\n\t\tip saddr $X accept\n\t\tip daddr { 1.2.3.4, $X } accept\n\t}\n}\n`,
    );
    const table = ruleset.tables[0];
    expect(table.sets.find((s) => s.name === 's')!.elements.length).toBe(COUNT);
    expect(table.chains.find((c) => c.name === 'c')!.rules.length).toBe(2);
  });

  it('nft: 150,000 elements in a nested anonymous set, in a rule and in a named set', () => {
    const ruleset = nft(
      `table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = { { ${list} } }\n\t}\n\tchain c {\n\t\ttype nat hook prerouting priority -100;\n\t\tip daddr { { ${list} } } dnat to 10.244.0.1\n\t}\n}\ntable ip u {\n}\n`,
    );
    expect(ruleset.tables.map((t) => t.name)).toEqual(['t', 'u']);
    expect(ruleset.tables[0].sets[0].elements.length).toBe(COUNT);
  });

  it('nft -j: a table with 150,000 flags', () => {
    const ruleset = nft(JSON.stringify({ nftables: [{ table: { family: 'ip', name: 't', handle: 1, flags: Array.from({ length: COUNT }, () => 'dormant') } }] }));
    expect(ruleset.tables.map((t) => t.name)).toEqual(['t']);
  });

  it('a trace of a snapshot with 150,000 Services', () => {
    const service = (i: number): Service => ({
      namespace: 'ns',
      name: `s${i}`,
      portName: '',
      protocol: 'tcp',
      frontends: [{ kind: 'clusterIP', address: addresses[i], port: 80 }],
      endpoints: [],
      policies: {},
      objects: [],
      hashChecks: [],
      family: 'ipv4',
    });
    const f = analyzeFile('node.iptables', '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n', 'iptables')!;
    // The catalog of a dump that size, without parsing one (a 20 MB dump takes seconds).
    const analysis = { ...f.analysis, catalog: { mode: 'iptables', services: Array.from({ length: COUNT }, (_, i) => service(i)), diagnostics: [] } } as unknown as SnapshotFile['analysis'];
    const result = traceSnapshot([{ name: f.name, analysis }], { to: '10.96.0.1', dport: 80, protocol: 'tcp', entry: 'pod' });
    expect(result.outcomes.map((o) => o.verdict)).toEqual(['accept']);
  });
});
