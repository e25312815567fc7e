// Istio's iptables-restore input (test/fixtures/wild/istio-*.iptables; sources in their headers): `* nat` with a
// space after the star, -N chains, -I inserts. Both iptables backends accept it (test/kernel/dialect-verdicts.test.ts);
// it used to give one false error per line of each table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type Outcome, type SnapshotFile as TraceFile, type TraceRequest } from '../../src/core/trace';

const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/wild', name), 'utf8');
const analyse = (name: string) => analyzeFile(name, fixture(name))!;
const trace = (name: string, request: Partial<TraceRequest>) =>
  traceSnapshot([{ name, analysis: analyse(name).analysis as TraceFile['analysis'] }], { to: '10.244.1.5', dport: 8080, protocol: 'tcp', from: '10.244.2.7', entry: 'external', nodeIPs: ['10.244.1.5'], ...request });
const holds = (o: Outcome) => o.conditions.map((c) => `${c.key}${c.holds ? '' : ' NOT'}`);

describe('Istio sidecar, REDIRECT mode (istio-redirect.iptables)', () => {
  it('parses clean: the nat table with its four ISTIO chains', () => {
    const f = analyse('istio-redirect.iptables');
    expect(f.languageId).toBe('iptables');
    expect(f.analysis.diagnostics).toEqual([]);
    const ruleset = (f.analysis as unknown as { ruleset: { tables: { name: string; chains: { name: string }[] }[] } }).ruleset;
    expect(ruleset.tables.map((t) => t.name)).toEqual(['nat']);
    expect(ruleset.tables[0].chains.map((c) => c.name)).toEqual(expect.arrayContaining(['ISTIO_INBOUND', 'ISTIO_REDIRECT', 'ISTIO_IN_REDIRECT', 'ISTIO_OUTPUT']));
  });

  it('an inbound connection is redirected to Envoy inbound port 15006; the excluded port 15020 is not', () => {
    const inbound = trace('istio-redirect.iptables', {});
    expect(inbound.outcomes.map((o) => [o.verdict, o.destination, o.probability])).toEqual([['dnat', '10.244.1.5:15006', 1]]);
    expect(inbound.outcomes[0].path.map((p) => p.chain)).toEqual(['PREROUTING', 'ISTIO_INBOUND', 'ISTIO_IN_REDIRECT']);
    const excluded = trace('istio-redirect.iptables', { dport: 15020 });
    expect(excluded.outcomes.map((o) => [o.verdict, o.destination])).toEqual([['accept', undefined]]);
  });

  it("the application's outbound connection goes to Envoy's 15001; Envoy's own (uid 1337) leaves as it is", () => {
    const r = trace('istio-redirect.iptables', { to: '10.96.0.10', dport: 80, from: '10.244.1.5', entry: 'node' });
    const app = r.outcomes.filter((o) => holds(o).includes('-m owner --uid-owner 1337 NOT') && holds(o).includes('-m owner --gid-owner 1337 NOT') && holds(o).includes('iface out lo NOT'));
    // REDIRECT in OUTPUT goes to loopback (the kernel's nf_nat_redirect), Envoy's outbound listener.
    expect(app.map((o) => [o.verdict, o.destination])).toEqual([['dnat', '127.0.0.1:15001']]);
    const envoy = r.outcomes.filter((o) => holds(o).includes('-m owner --uid-owner 1337') && holds(o).includes('iface out lo NOT'));
    expect(envoy.map((o) => o.verdict)).toEqual(['accept']);
    // `--uid-owner 1337` and `! --uid-owner 1337` are one fact: no outcome assumes it both ways.
    for (const o of r.outcomes) expect(new Set(o.conditions.map((c) => c.key)).size, holds(o).join('; ')).toBe(o.conditions.length);
  });
});

describe('Istio TPROXY mode (istio-tproxy.iptables)', () => {
  it('parses clean: `* mangle`, `* nat`, `* raw`, the -I inserts in place', () => {
    const f = analyse('istio-tproxy.iptables');
    const problems = f.analysis.diagnostics.filter((d) => d.severity !== 'hint');
    expect(problems).toEqual([]);
    // The one hint is true: nothing jumps to the nat table's ISTIO_INBOUND in this mode.
    expect(f.analysis.diagnostics.map((d) => `${d.range.start.line + 1} ${d.code}`)).toEqual(['27 unreferenced-chain']);
    const ruleset = (f.analysis as unknown as { ruleset: { tables: { name: string; rules: { chain: string; operation: string; position?: number }[] }[] } }).ruleset;
    expect(ruleset.tables.map((t) => t.name)).toEqual(['mangle', 'nat', 'raw']);
    expect(ruleset.tables[0].rules.filter((r) => r.operation === 'insert').map((r) => [r.chain, r.position])).toEqual([
      ['ISTIO_INBOUND', 1],
      ['ISTIO_INBOUND', 2],
      ['ISTIO_INBOUND', 3],
    ]);
  });

  it('an inbound connection is let through to the pod (TPROXY hands it to Envoy without rewriting it)', () => {
    const r = trace('istio-tproxy.iptables', {});
    expect(r.outcomes.map((o) => [o.verdict, o.destination])).toEqual([['accept', undefined]]);
    expect(r.outcomes[0].path.map((p) => p.table)).toEqual(expect.arrayContaining(['raw', 'mangle', 'nat']));
  });
});
