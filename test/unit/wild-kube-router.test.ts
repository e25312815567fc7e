// A standalone kube-router v1.3 node (test/fixtures/wild/kube-router-node.iptables; its header says what it is built
// from): it parses clean, its chains are explained as kube-router's (or kubelet's), never kube-proxy's, and a trace
// through its pod firewalls gives kube-router's answer, with ipset membership as conditions.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { analyzeIptables, hoverAt, iptablesFeatures } from '../../src/core/language/iptables';
import { explainNode } from '../../src/core/explain/node';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile } from '../../src/core/trace';
import { catalogToJson } from '../../src/core/kube/service';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { canRestoreCheck, restoreCheck } from '../helpers/restore-check';

const NAME = 'kube-router-node.iptables';
const TEXT = readFileSync(join(__dirname, '../fixtures/wild', NAME), 'utf8');
const LINES = TEXT.split('\n');

/** The hover on the declaration `:NAME` of the chain in the table whose header is `*table`. */
function chainHover(table: string, chain: string): string {
  const a = analyzeIptables(TEXT);
  const start = LINES.indexOf(`*${table}`);
  const line = LINES.findIndex((l, k) => k > start && l.startsWith(`:${chain} `));
  expect(line, `${table}/${chain}`).toBeGreaterThan(start);
  return String(hoverAt(a, { line, character: 2 })?.markdown ?? '');
}

describe('wild: kube-router node', () => {
  it('parses clean: no errors, no warnings', () => {
    const a = analyzeIptables(TEXT);
    expect(a.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')).toEqual([]);
    expect(a.catalog.services).toEqual([]);
  });

  it.each([
    ['filter', 'KUBE-ROUTER-INPUT', 'kube-router network policy entry'],
    ['filter', 'KUBE-ROUTER-FORWARD', 'kube-router network policy entry'],
    ['filter', 'KUBE-ROUTER-OUTPUT', 'kube-router network policy entry'],
    ['filter', 'KUBE-POD-FW-EVVRJ4WWDAYMGFFV', 'kube-router pod firewall'],
    ['filter', 'KUBE-NWPLCY-UUSURKE7ERYHUKLA', 'kube-router NetworkPolicy'],
    ['filter', 'KUBE-NWPLCY-DEFAULT', 'kube-router default policy'],
    ['filter', 'KUBE-ROUTER-SERVICES', 'kube-router Service address firewall'],
    ['nat', 'KUBE-ROUTER-HAIRPIN', 'kube-router hairpin SNAT'],
  ])("%s/%s is explained as kube-router's, not kube-proxy's", (table, chain, title) => {
    const hover = chainHover(table, chain);
    expect(hover).toContain(title);
    expect(hover).toContain('Written by kube-router');
    expect(hover).not.toContain('Written by kube-proxy');
  });

  it("kubelet's chains are kubelet's", () => {
    for (const [table, chain] of [
      ['filter', 'KUBE-FIREWALL'],
      ['filter', 'KUBE-KUBELET-CANARY'],
      ['mangle', 'KUBE-KUBELET-CANARY'],
    ]) {
      const hover = chainHover(table, chain);
      expect(hover, `${table}/${chain}`).toContain('Written by kubelet, not kube-proxy');
    }
    expect(chainHover('filter', 'KUBE-FIREWALL')).toContain('Localhost protection');
  });

  it("semantic tokens mark kubelet's chains as Kubernetes' own, kube-router's not", () => {
    const a = analyzeIptables(TEXT);
    const symbols = iptablesFeatures.semanticSymbols!(a);
    const kube = new Set(symbols.filter((s) => s.kube).map((s) => LINES[s.range.start.line].slice(s.range.start.character, s.range.end.character)));
    expect([...kube].sort()).toEqual(['KUBE-FIREWALL', 'KUBE-KUBELET-CANARY', 'KUBE-MARK-DROP', 'KUBE-MARK-MASQ', 'KUBE-POSTROUTING']);
  });

  it('Explain This Node names kube-router, not an nftables-mode kube-proxy nor "only kubelet\'s chains"', () => {
    const e = explainNode(buildSnapshot([analyzeFile(NAME, TEXT)!]), [TEXT]);
    expect(e.headline).toBe("No kube-proxy Service rules in these dumps: kubelet's and kube-router's chains only.");
    const claims = e.sections.flatMap((x) => x.items).map((x) => x.text);
    expect(claims.some((c) => /nftables mode/.test(c))).toBe(false);
    expect(claims.some((c) => /^Only kubelet/.test(c))).toBe(false);
    const proxy = e.sections[0].items.find((x) => /kube-router's service proxy runs on this node/.test(x.text))!;
    expect(proxy.evidence.map((ev) => ev.quote)).toEqual([':KUBE-ROUTER-HAIRPIN - [0:0]', ':KUBE-ROUTER-SERVICES - [0:0]']);
    expect(e.sections[0].items.some((x) => /kube-router enforces NetworkPolicy here/.test(x.text))).toBe(true);
  });

  const files: SnapshotFile[] = [{ name: NAME, analysis: analyzeFile(NAME, TEXT)!.analysis as SnapshotFile['analysis'] }];
  const trace = (dport: number) => traceSnapshot(files, { to: '10.1.0.7', dport, protocol: 'tcp', from: '10.1.0.5', entry: 'pod' });

  it("trace: coredns → web:8080 passes only when both pods are in the policy's ipsets", () => {
    const outcomes = trace(8080).outcomes;
    const accepted = outcomes.filter((o) => o.verdict === 'accept');
    expect(accepted.length).toBeGreaterThan(0);
    for (const o of accepted) {
      expect(o.assumptions).toContain('assuming the packet is in ipset KUBE-SRC-YG2IA4CLP6ISIPKD');
      expect(o.assumptions).toContain('assuming the packet is in ipset KUBE-DST-RUU2SXJL2RWW46LA');
    }
    expect(outcomes.filter((o) => o.verdict !== 'accept').every((o) => o.verdict === 'reject')).toBe(true);
  });

  it('trace: coredns → web:9999 is rejected by the pod firewall, whatever the ipsets hold', () => {
    const outcomes = trace(9999).outcomes;
    expect(outcomes.length).toBeGreaterThan(0);
    expect(outcomes.every((o) => o.verdict === 'reject')).toBe(true);
  });

  // The ipsets the rules name must exist for iptables-restore to accept `-m set`.
  const SETS = [
    'create kube-router-pod-subnets hash:net family inet hashsize 1024 maxelem 65536 timeout 0',
    ...['kube-router-node-ips', 'kube-router-service-ips', 'kube-router-local-ips', 'KUBE-SRC-YG2IA4CLP6ISIPKD', 'KUBE-DST-RUU2SXJL2RWW46LA'].map(
      (s) => `create ${s} hash:ip family inet hashsize 1024 maxelem 65536 timeout 0`,
    ),
    'create kube-router-ipvs-services hash:ip,port family inet hashsize 1024 maxelem 65536 timeout 0',
    '',
  ].join('\n');
  it.skipIf(!canRestoreCheck || !hasIpset())('iptables-restore --test accepts it (root only, throw-away namespace)', () => {
    const r = restoreCheck(TEXT, 'ipv4', SETS);
    // A kernel without ip_vs only warns that it cannot check `-m ipvs`.
    const complaints = r.output.split('\n').filter((l) => l !== '' && !/^Warning: Extension ipvs revision 0 not supported/.test(l));
    expect({ status: r.status, complaints }).toEqual({ status: 0, complaints: [] });
  });
});

/**
 * A k3s node: kube-proxy in iptables mode (the generator's dump) with k3s' embedded kube-router network policy
 * controller, whose filter chains and jumps are the fixture's (without kube-router's service proxy).
 */
function k3sNode(plain: string): string {
  const fixture = LINES.slice(LINES.indexOf('*filter'));
  const netpol = (name: string) => /^KUBE-(ROUTER-(INPUT|FORWARD|OUTPUT)|POD-FW-|NWPLCY-)/.test(name);
  const declarations = fixture.filter((l) => l.startsWith(':') && netpol(l.slice(1)));
  const jumps = fixture.filter((l) => /^-A (INPUT|FORWARD|OUTPUT) -m comment --comment "kube-router netpol/.test(l));
  const rules = fixture.filter((l) => l.startsWith('-A ') && netpol(l.split(' ')[1]));
  const out = plain.split('\n');
  const start = out.indexOf('*filter');
  out.splice(out.indexOf('COMMIT', start), 0, ...rules);
  out.splice(out.indexOf(':OUTPUT ACCEPT [0:0]', start) + 1, 0, ...declarations);
  const firstRule = out.findIndex((l, k) => k > start && l.startsWith('-A '));
  out.splice(firstRule, 0, ...jumps);
  return out.join('\n');
}

describe("wild: k3s node (kube-proxy iptables mode beside kube-router's network policy)", () => {
  const plain = generateIptablesDump({ services: randomServices(20, 2, 9), style: 'iptables-legacy-save', nodeRules: true });
  const text = k3sNode(plain);

  it('parses clean and lists the same Services as without kube-router', () => {
    const a = analyzeIptables(text);
    expect(a.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')).toEqual([]);
    expect(a.ruleset.tables.find((tb) => tb.name === 'filter')!.chainByName.has('KUBE-POD-FW-XGO22TARY4W3MYW3')).toBe(true);
    expect(catalogToJson([a.catalog])).toEqual(catalogToJson([analyzeIptables(plain).catalog]));
  });

  it('Explain This Node: kube-proxy in iptables mode, and kube-router enforcing NetworkPolicy', () => {
    const e = explainNode(buildSnapshot([analyzeFile('k3s.iptables', text)!]), [text]);
    expect(e.mode).toBe('iptables');
    const verdict = e.sections[0].items.map((x) => x.text);
    expect(verdict.some((c) => /^kube-router enforces NetworkPolicy here/.test(c))).toBe(true);
    expect(verdict.some((c) => /kube-router's service proxy/.test(c))).toBe(false);
  });
});

function hasIpset(): boolean {
  return spawnSync('sh', ['-c', 'command -v ipset'], { encoding: 'utf8' }).status === 0;
}
