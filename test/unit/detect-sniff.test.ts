// Detection reads the first meaningful lines of a paste, not only its first line: what people save around a dump
// (`# Completed on` of a previous table, iptables-nft's legacy warning, blank lines, the shell prompt and command).
import { describe, expect, it } from 'vitest';
import { detectDialect } from '../../src/core/detect';

const IPT = '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n';
const NFT = 'table ip nat {\n\tchain PREROUTING {\n\t}\n}\n';

describe('detectDialect sniffs past what precedes the dump', () => {
  it('a trailer, a warning or blank lines before the dump', () => {
    expect(detectDialect(`# Completed on Mon Dec  7 07:00:00 2026\n${IPT}`)).toBe('iptables');
    expect(detectDialect(`# Warning: iptables-legacy tables present, use iptables-legacy-save to see them\n${IPT}`)).toBe('iptables');
    expect(detectDialect(`\n\n  \r\n${IPT}`)).toBe('iptables');
    expect(detectDialect(`\n\n${NFT}`)).toBe('nftables');
  });

  it('a shell prompt line before the dump', () => {
    expect(detectDialect(`root@node:~# iptables-save\n${IPT}`)).toBe('iptables');
    expect(detectDialect(`$ sudo nft list ruleset\n${NFT}`)).toBe('nftables');
    expect(detectDialect('$ sudo nft -j list ruleset\n{"nftables": [{"metainfo": {}}]}\n')).toBe('nftables-json');
    expect(detectDialect('root@node:~# nft -j list ruleset | jq\n{\n  "nftables": [\n')).toBe('nftables-json');
  });

  it("the prompt's command decides when the dump's own lines do not (a partial paste)", () => {
    expect(detectDialect('root@node:~# iptables-save -t nat\n-A KUBE-SERVICES -j KUBE-NODEPORTS\n')).toBe('iptables');
    expect(detectDialect('[root@node ~]# ip6tables -t nat -S\n-A X -j Y\n')).toBe('iptables');
    expect(detectDialect('$ sudo ipvsadm -Ln\nTCP  10.96.0.1:443 rr\n')).toBe('ipvsadm');
    expect(detectDialect('# ipset save\nadd KUBE-CLUSTER-IP 10.96.0.1,tcp:443\n')).toBe('ipset');
    expect(detectDialect('$ nft list chain ip nat KUBE-SERVICES\n')).toBe('nftables');
    // The dump's own header wins over the command that was typed.
    expect(detectDialect(`$ cat dump\n${NFT}`)).toBe('nftables');
    expect(detectDialect(`$ iptables-save\n${NFT}`)).toBe('nftables');
  });

  it('comments and other commands are not prompts', () => {
    expect(detectDialect('# Completed on Mon Dec  7 07:00:00 2026\n')).toBeUndefined();
    expect(detectDialect('$ ls\nfoo\n')).toBeUndefined();
  });

  it('reads at most 50 non-empty lines and 64 KB', () => {
    const noise = 'noise\n'.repeat(50);
    expect(detectDialect(`${noise.slice(0, -6 * 1)}${IPT}`)).toBe('iptables');
    expect(detectDialect(`${noise}${IPT}`)).toBeUndefined();
    expect(detectDialect(`${'\n'.repeat(64 * 1024)}${IPT}`)).toBeUndefined();
    expect(detectDialect(`${noise}${IPT}`, 'node.iptables')).toBe('iptables');
  });
});
