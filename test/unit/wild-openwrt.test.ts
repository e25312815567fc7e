// OpenWrt firewall4's rendered ruleset (test/fixtures/wild/openwrt-fw4.nft; sources in its header): `include`
// inside the table (an error here before), defines, ct helpers, a flowtable, zones and a port forward.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type Outcome, type SnapshotFile as TraceFile, type TraceRequest } from '../../src/core/trace';

const NAME = 'openwrt-fw4.nft';
const text = readFileSync(join(__dirname, '../fixtures/wild', NAME), 'utf8');
const file = () => analyzeFile(NAME, text)!;
const trace = (request: Partial<TraceRequest>) =>
  traceSnapshot([{ name: NAME, analysis: file().analysis as TraceFile['analysis'] }], { to: '10.11.12.5', dport: 8080, protocol: 'tcp', from: '203.0.113.7', entry: 'external', nodeIPs: ['10.11.12.5'], ...request });
const holds = (o: Outcome, key: string) => o.conditions.some((c) => c.key === key && c.holds);

describe('OpenWrt firewall4 ruleset', () => {
  it('parses clean; the include inside the table is information, not an error', () => {
    const f = file();
    expect(f.languageId).toBe('nftables');
    const line = text.split('\n').findIndex((l) => l.trim().startsWith('include '));
    expect(f.analysis.diagnostics.map((d) => `${d.range.start.line} ${d.severity} ${d.code}`)).toEqual([`${line} information include`]);
    const ruleset = (f.analysis as unknown as { ruleset: { tables: { name: string; chains: unknown[] }[]; includes: { path: string }[] } }).ruleset;
    expect(ruleset.tables.map((t) => t.name)).toEqual(['fw4']);
    expect(ruleset.tables[0].chains).toHaveLength(29);
    expect(ruleset.includes.map((i) => i.path)).toEqual(['/etc/nftables.d/*.nft']);
  });

  it('the port forward: from the wan, tcp 8080 is DNATed to 192.168.1.10:80; from nowhere else', () => {
    const r = trace({});
    const dnat = r.outcomes.filter((o) => o.verdict === 'dnat');
    expect(dnat.length).toBeGreaterThan(0);
    for (const o of dnat) {
      expect(o.destination).toBe('192.168.1.10:80');
      expect(holds(o, 'iface in pppoe-wan')).toBe(true);
      expect(o.path.map((p) => p.chain)).toEqual(expect.arrayContaining(['dstnat_wan', 'forward_wan']));
    }
  });

  it('ssh from the wan is rejected (handle_reject), unless it comes in on the lan', () => {
    const r = trace({ dport: 22 });
    const wan = r.outcomes.filter((o) => holds(o, 'iface in pppoe-wan'));
    expect(wan.length).toBeGreaterThan(0);
    // `icmp type 8` (Allow-Ping) cannot match a TCP packet: no outcome assumes it.
    for (const o of wan) expect(o.verdict).toBe('reject');
    expect(r.outcomes.flatMap((o) => o.conditions.map((c) => c.key)).filter((k) => k.startsWith('icmp'))).toEqual([]);
    const lan = r.outcomes.filter((o) => holds(o, 'iface in br-lan'));
    expect(lan.length).toBeGreaterThan(0);
    for (const o of lan.filter((x) => !x.conditions.some((c) => c.key.includes('limit') && !c.holds))) expect(o.verdict).toBe('accept');
  });
});
