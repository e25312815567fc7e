// Every dialect's diagnostics stay bounded and inside the document: the parsers' own and those found after
// parsing (catalog checks, the IPVS "no real servers" warning) share one cap and one "N more" summary, and no
// range reaches past the end of the text, with or without a final line break.
import { describe, expect, it } from 'vitest';
import { analyzeIpset } from '../../src/core/language/ipset';
import { analyzeIptables } from '../../src/core/language/iptables';
import { analyzeIpvsadm } from '../../src/core/language/ipvsadm';
import { analyzeNft } from '../../src/core/language/nft';
import { MAX_DIAGNOSTICS, type Diagnostic } from '../../src/core/model/diagnostics';
import { splitLines } from '../../src/core/parse/lines';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateNftDump } from '../../tools/generate/nft';

const analyzers = { iptables: analyzeIptables, nft: analyzeNft, ipvsadm: analyzeIpvsadm, ipset: analyzeIpset };

function expectCapped(diagnostics: readonly Diagnostic[]): void {
  // The parser's summary and the later checks' one at most.
  expect(diagnostics.length).toBeLessThanOrEqual(MAX_DIAGNOSTICS + 2);
  expect(diagnostics.some((d) => d.code === 'too-many-problems' && /^\d+ /.test(d.message))).toBe(true);
}

describe('diagnostics found after parsing share the cap', () => {
  const n = MAX_DIAGNOSTICS + 500;
  it('ipvsadm: virtual services without real servers', () => {
    const text = Array.from({ length: n }, (_, i) => `-A -t 10.0.${i >> 8}.${i & 255}:80 -s rr`).join('\n');
    const a = analyzeIpvsadm(text);
    expectCapped(a.diagnostics);
    expect(a.diagnostics.filter((d) => d.code === 'no-real-servers')).toHaveLength(MAX_DIAGNOSTICS);
    expect(a.diagnostics.at(-1)!.message).toContain('500');
  });

  it('iptables and nft: kube-proxy chain names whose hash does not match their Service', () => {
    // 400 Services with their Service and endpoint chains, every name with a wrong hash.
    const services = randomServices(400, 3, 7);
    const ipt = generateIptablesDump({ services, style: 'iptables-nft-save', family: 'ipv4', comments: true, nodeRules: true }).replace(/KUBE-(SVC|SEP)-[A-Z0-9]{16}/g, (m) => `${m.slice(0, -4)}QQQQ`);
    const nft = generateNftDump({ services, style: 'nft-list-ruleset' }).replace(/(service|endpoint)-[A-Z0-9]{8}-/g, (_, kind) => `${kind}-QQQQQQQQ-`);
    for (const diagnostics of [analyzeIptables(ipt).diagnostics, analyzeNft(nft).diagnostics]) {
      expectCapped(diagnostics);
      expect(diagnostics.filter((d) => d.code === 'hash-mismatch')).toHaveLength(MAX_DIAGNOSTICS);
    }
  });
});

describe('diagnostic ranges stay inside the document, also at its end without a line break', () => {
  const texts: Record<keyof typeof analyzers, string[]> = {
    iptables: ['*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment "open', '*nat\n-A', '*filter\n-A X -j', '*raw\n-A PREROUTING -p tcp --dport'],
    nft: [
      '{"nftables": [',
      '{"nftables": [{"rule": {"family": "ip"',
      '{"nftables": [{"table"',
      '{"nft',
      '{"nftables": []}\n{',
      'table ip t {\n\tchain c {\n\t\tip saddr {',
      'table ip t { chain c { ip daddr "x',
      'define x = {',
    ],
    ipvsadm: ['-A -t 10.0.0.1:80 -s', 'TCP  10.0.0.1:80 rr\n  -> 10.0.0.2:80 Masq', '-a -t 10.0.0.1:80 -r', 'IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\nTCP  10.96.0.1:443 r'],
    ipset: ['create s hash:ip comment\nadd s 10.0.0.1 comment "x', 'create s hash:ip,port\nadd s 10.0.0.1,', 'Name: s\nType: hash:ip\nMembers:\n10.0.0.', 'create'],
  };
  it.each(Object.keys(texts) as (keyof typeof analyzers)[])('%s', (dialect) => {
    for (const text of texts[dialect]) {
      for (const variant of [text, `${text}\n`, `${text}\r\n`]) {
        const lines = splitLines(variant);
        const diagnostics = analyzers[dialect](variant).diagnostics;
        expect(diagnostics.length, variant).toBeGreaterThan(0);
        for (const { range } of diagnostics) {
          for (const p of [range.start, range.end]) {
            expect(p.line, variant).toBeLessThan(lines.length);
            expect(p.character, variant).toBeLessThanOrEqual(lines[p.line].length);
          }
        }
      }
    }
  });
});
