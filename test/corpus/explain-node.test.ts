// "Explain This Node" on kube-proxy's own test dumps (shared corpus): iptables mode through both backends and
// as restore input, nftables mode (text and JSON), iptables mode as `nft list ruleset` shows it through
// iptables-nft, and IPVS virtual services. Every evidence quotes the lines it points at.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explainNode, type NodeExplanation } from '../../src/core/explain/node';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

function explainFile(path: string): NodeExplanation {
  const text = readFileSync(path, 'utf8');
  const file = analyzeFile(path, text);
  if (!file) throw new Error(`${path}: not recognised`);
  const e = explainNode(buildSnapshot([file]), [text]);
  const lines = text.split(/\r\n|\r|\n/);
  for (const ev of e.evidence) {
    const quote = lines
      .slice(ev.range.start.line, ev.range.end.line + 1)
      .map((l) => l.trim())
      .join('\n');
    expect(ev.quote, `${path}:${ev.range.start.line + 1}`).toBe(quote.length > 240 ? `${quote.slice(0, 239)}…` : quote);
  }
  return e;
}

const list = (dir: string, re: RegExp) =>
  readdirSync(join(CORPUS, dir))
    .filter((f) => re.test(f))
    .sort()
    .map((f) => join(CORPUS, dir, f));

describe.skipIf(!HAVE_CORPUS)(`Explain This Node on kube-proxy's dumps (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  if (!HAVE_CORPUS) return;

  it("iptables-save of kube-proxy's iptables mode: iptables mode, the backend from each header", () => {
    const files = list('iptables/kube-proxy', /^Test(OverallIPTablesRules|SyncProxyRulesRepeated__01|BadIPs)\..*iptables-save$/);
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const path of files) {
      const e = explainFile(path);
      expect(e.mode, path).toBe('iptables');
      const expected = /kernel-nft/.test(path) ? 'nf_tables' : /kernel-legacy/.test(path) ? 'legacy' : 'unknown';
      expect(e.backend, path).toBe(expected);
      expect(
        e.sections.some((s) => s.id === 'iptables-nft'),
        path,
      ).toBe(expected === 'nf_tables');
      const how = e.sections.find((s) => s.id === 'evidence')!.items[0].evidence.map((ev) => ev.quote);
      expect(
        how.some((q) => q.startsWith(':KUBE-SERVICES')),
        path,
      ).toBe(true);
      // One endpoint per Service (TestBadIPs) needs no -m statistic rule; the others have some.
      const text = readFileSync(path, 'utf8');
      expect(
        how.some((q) => /-m statistic --mode random --probability/.test(q)),
        path,
      ).toBe(/--probability/.test(text));
      expect(
        how.some((q) => /^(\[\d+:\d+\] )?-A KUBE-SEP-\S+ .*-j DNAT/.test(q)),
        path,
      ).toBe(true);
    }
  });

  it("nft list ruleset and nft -j of kube-proxy's nftables mode: nftables mode, table ip kube-proxy", () => {
    const files = list('nft/kube-proxy', /^TestOverallNFTablesRules\.(nft|json)$|^TestSyncProxyRulesRepeated__0[1-3].*\.nft$/);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const path of files) {
      const e = explainFile(path);
      expect([e.mode, e.backend], path).toEqual(['nftables', undefined]);
      const quotes = e.sections.find((s) => s.id === 'evidence')!.items[0].evidence.map((ev) => ev.quote);
      if (path.endsWith('.nft')) {
        expect(quotes[0], path).toBe('table ip kube-proxy {');
        expect(quotes, path).toContain('ip daddr . meta l4proto . th dport vmap @service-ips');
      } else {
        expect(quotes.length, path).toBeGreaterThan(0);
      }
    }
  });

  it('iptables mode seen through nft (iptables-nft tables): iptables mode, never nftables mode', () => {
    const files = list('nft/kube-proxy-iptables-mode-via-iptables-nft', /\.nft$/);
    expect(files.length).toBeGreaterThan(0);
    for (const path of files) {
      const e = explainFile(path);
      expect([e.mode, e.backend], path).toEqual(['iptables', 'nf_tables']);
      const backend = e.sections.find((s) => s.id === 'backend')!.items.flatMap((i) => i.evidence.map((ev) => ev.quote));
      expect(backend[0], path).toMatch(/^# Warning: table ip \S+ is managed by iptables-nft, do not touch!$/);
      expect(
        e.sections.map((s) => s.id),
        path,
      ).toContain('iptables-nft');
      expect(
        e.evidence.some((ev) => /^chain KUBE-(SVC|SEP)-/.test(ev.quote)),
        path,
      ).toBe(true);
    }
  });

  it("ipvsadm -Ln from kube-proxy's documentation: IPVS mode, asks for the iptables and ipset dumps", () => {
    const files = list('ipvs/pristine', /./);
    expect(files.length).toBeGreaterThan(0);
    let withServices = 0;
    for (const path of files) {
      const e = explainFile(path);
      if (e.mode !== 'ipvs') continue;
      withServices++;
      const how = e.sections.find((s) => s.id === 'evidence')!.items;
      expect(how[0].evidence.length, path).toBeGreaterThan(0);
      expect(how[1].text, path).toContain('ipset save');
    }
    expect(withServices).toBeGreaterThanOrEqual(files.length - 1);
  });

  it('real-world firewalls without Kubernetes: no kube-proxy mode, no crash', () => {
    const files = list('iptables/real-world', /\.iptables-save$/).slice(0, 25);
    expect(files.length).toBeGreaterThan(0);
    for (const path of files) {
      const e = explainFile(path);
      expect(['none', 'kubelet-only'], path).toContain(e.mode);
    }
  });
});
