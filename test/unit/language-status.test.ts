// The language status item: a short text (backend · kube-proxy mode · Services) and the rest in the detail line,
// for every dialect and producer. Samples are those of samples/; the nft JSON imitates `nft -j list ruleset`
// (libnftables' JSON schema: metainfo, table, chain objects).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { iptablesFeatures } from '../../src/core/language/iptables';
import { ipsetFeatures } from '../../src/core/language/ipset';
import { ipvsadmFeatures } from '../../src/core/language/ipvsadm';
import { nftFeatures } from '../../src/core/language/nft';
import { statusText } from '../../src/core/language/status';
import type { LanguageFeatures } from '../../src/core/language/types';
import { formatMessage, setTranslator } from '../../src/core/l10n';

const sample = (path: string) => readFileSync(`samples/${path}`, 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const words = (features: LanguageFeatures<any>, text: string) => statusText(features.statusSummary(features.analyze(text)));

const nftJson = JSON.stringify({
  nftables: [
    { metainfo: { version: '1.0.9', release_name: 'Old Doc Yak #3', json_schema_version: 1 } },
    { table: { family: 'ip', name: 'kube-proxy', handle: 1 } },
    { chain: { family: 'ip', table: 'kube-proxy', name: 'services', handle: 1 } },
    { chain: { family: 'ip', table: 'kube-proxy', name: 'nat-prerouting', handle: 2, type: 'nat', hook: 'prerouting', prio: -100, policy: 'accept' } },
  ],
});

describe('language status text', () => {
  afterEach(() => setTranslator(undefined));

  it('iptables-legacy: backend, kube-proxy mode, Services; the counts in the detail', () => {
    const w = words(iptablesFeatures, sample('iptables-legacy/node1.iptables'));
    expect(w.text).toBe('iptables-legacy · kube-proxy iptables · 6 Services');
    expect(w.detail).toBe('iptables-save v1.8.9 · 3 tables, 48 chains, 82 rules · 0 errors, 0 warnings');
  });

  it('iptables-nft: only iptables-save output marked (nf_tables) is iptables-nft', () => {
    const w = words(iptablesFeatures, sample('iptables-nft/node1.iptables'));
    expect(w.text).toBe('iptables-nft · kube-proxy iptables · 6 Services');
    const unmarked = '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n';
    expect(words(iptablesFeatures, unmarked).text).toBe('iptables · no kube-proxy · 0 Services');
  });

  it('nft text of kube-proxy nftables mode is nftables, never iptables-nft', () => {
    const w = words(nftFeatures, sample('nftables/node1.nft'));
    expect(w.text).toBe('nftables · kube-proxy nftables · 6 Services');
    expect(w.text + w.detail).not.toContain('iptables');
    expect(words(nftFeatures, 'table inet filter {\n\tchain input {\n\t\ttype filter hook input priority 0; policy accept;\n\t}\n}\n').text).not.toContain('iptables-nft');
  });

  it('nft JSON is nftables JSON, never iptables-nft', () => {
    const w = words(nftFeatures, nftJson);
    expect(w.text).toBe('nftables JSON · kube-proxy nftables · 0 Services');
    expect(w.detail).toContain('1 tables, 2 chains, 0 rules');
  });

  it('ipvsadm counts virtual services and real servers, not "0 Services"', () => {
    const w = words(ipvsadmFeatures, sample('ipvs/node1.ipvsadm'));
    expect(w.text).toBe('ipvsadm · 9 virtual services · 16 real servers');
    expect(w.text).not.toMatch(/\b0 Services/i);
    expect(w.detail).toContain('0 errors, 1 warnings');
  });

  it('the iptables dump of an IPVS snapshot says where the Services are instead of "0 Services"', () => {
    const w = words(iptablesFeatures, sample('ipvs/node1.iptables'));
    expect(w.text).toBe('iptables-nft · kube-proxy ipvs');
    expect(w.detail).toContain('the Services are in the ipvsadm dump');
  });

  it('ipset counts sets and members', () => {
    expect(words(ipsetFeatures, sample('ipvs/node1.ipset')).text).toBe('ipset · 17 sets · 22 members');
  });

  it('the text stays short: every sample fits in 60 characters', () => {
    const all = [
      words(iptablesFeatures, sample('iptables-legacy/node1.iptables')),
      words(iptablesFeatures, sample('iptables-nft/node1.iptables')),
      words(iptablesFeatures, sample('ipvs/node1.iptables')),
      words(nftFeatures, sample('nftables/node1.nft')),
      words(nftFeatures, nftJson),
      words(ipvsadmFeatures, sample('ipvs/node1.ipvsadm')),
      words(ipsetFeatures, sample('ipvs/node1.ipset')),
    ];
    for (const w of all) expect(w.text.length).toBeLessThanOrEqual(60);
  });

  it('every message has a Simplified Chinese translation', () => {
    const zh = JSON.parse(readFileSync('l10n/bundle.l10n.zh-cn.json', 'utf8')) as Record<string, string>;
    const asked: string[] = [];
    setTranslator((message, args) => {
      asked.push(message);
      return formatMessage(zh[message] ?? `MISSING ${message}`, args);
    });
    const w = [
      words(iptablesFeatures, sample('iptables-nft/node1.iptables')),
      words(iptablesFeatures, sample('ipvs/node1.iptables')),
      words(iptablesFeatures, '*nat\nCOMMIT\n'),
      words(ipvsadmFeatures, sample('ipvs/node1.ipvsadm')),
      words(ipsetFeatures, sample('ipvs/node1.ipset')),
    ];
    expect(asked.filter((m) => zh[m] === undefined)).toEqual([]);
    expect(w[0].text).toBe('iptables-nft · kube-proxy iptables 模式 · 6 个 Service');
    expect(w[3].text).toBe('ipvsadm · 9 个虚拟服务 · 16 个真实服务器');
  });
});
