// --anonymize (src/core/collect/anonymize.ts): generated dumps of each kube-proxy mode → anonymized → the same
// Service catalog shape (counts, shares, ports, policies), no hash-mismatch hints the original did not have,
// and no original address, namespace or Service name anywhere.
import { describe, expect, it } from 'vitest';
import { Anonymizer } from '../../src/core/collect/anonymize';
import { anonymizeSnapshot } from '../../src/core/collect/anonymize-snapshot';
import type { CollectedFile, SnapshotManifest } from '../../src/core/collect/files';
import { catalogToJson } from '../../src/core/kube/service';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump, ipv6Variant } from '../../tools/generate/nft';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { formatAddress, parseAddress } from '../../src/core/model/address';
import type { CatalogJson } from '../helpers/catalog-json';

const KEY = new Uint8Array(32).fill(7);
const MANIFEST: SnapshotManifest = {
  format: 'dataplane-snapshot/1',
  node: 'worker-prod-eu-3',
  kernel: '6.1.0',
  time: null,
  via: 'ssh root@worker-prod-eu-3',
  complete: true,
  kubeProxyMode: 'iptables',
  commands: [],
  tools: {},
  missing: [],
  anonymized: false,
};

function analysed(files: CollectedFile[]): SnapshotFile[] {
  return files.map((f) => analyzeFile(f.path, f.text)).filter((f): f is SnapshotFile => f !== undefined);
}

function catalog(files: CollectedFile[]): CatalogJson {
  const s = buildSnapshot(analysed(files));
  return catalogToJson(s.catalogs, { mode: s.mode }) as CatalogJson;
}

/** What must survive: everything but the names and addresses. */
function shape(j: CatalogJson): unknown {
  const services = j.services.map((s) =>
    JSON.stringify({
      portName: s.portName,
      protocol: s.protocol,
      frontends: s.frontends.map((f) => `${f.kind}:${f.port}:${f.address ? (f.address.includes(':') ? 6 : 4) : '-'}`).sort(),
      endpoints: s.endpoints.map((e) => `${e.port}:${e.probability}:${e.local ?? false}`).sort(),
      policies: Object.fromEntries(Object.entries(s.policies ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.length : typeof v === 'string' && v.includes('/') ? `cidr/${v.split('/')[1]}` : v])),
    }),
  );
  return { mode: j.mode, services: services.sort() };
}

function diagnosticCodes(files: CollectedFile[]): string[] {
  return analysed(files)
    .flatMap((f) => f.analysis.diagnostics.map((d) => d.code))
    .sort();
}

const V4 = /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w.])/g;
const V6 = /(?<![\w.:])(?:[0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F]{0,4}(?![\w.:])/g;

/** The IPv4 and IPv6 addresses of a text (canonical), but loopback, multicast and masks. */
function addressesOf(text: string): Set<string> {
  const kept = /^(0|127|22[4-9]|2[3-5]\d)\.|^(::1?|fe80:.*|ff.*)$/;
  const found = [...text.matchAll(V4), ...text.matchAll(V6)].map((m) => parseAddress(m[0])).filter((a) => a !== undefined);
  return new Set(found.map(formatAddress).filter((a) => !kept.test(a)));
}

const services = randomServices(24, 3, 11);
const ipvs = generateIpvsSnapshot({ services, nodeIPs: ['192.168.0.10'] });
const CASES: [string, CollectedFile[]][] = [
  ['iptables', [{ path: 'iptables-nft.iptables', text: generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true }) }]],
  ['iptables IPv6', [{ path: 'ip6tables-nft.iptables', text: generateIptablesDump({ services: ipv6Variant(services), style: 'iptables-nft-save', family: 'ipv6' }) }]],
  [
    'nftables text and JSON',
    [
      { path: 'nft-ruleset.nft', text: generateNftDump({ services, style: 'nft-list-ruleset', nodeIPs: ['192.168.0.2'] }) },
      { path: 'extra/nft-ruleset.nft.json', text: generateNftDump({ services, style: 'nft-json', nodeIPs: ['192.168.0.2'] }) },
    ],
  ],
  [
    'ipvs',
    [
      { path: 'ipvs.ipvsadm', text: ipvs['ipvsadm-list'] },
      { path: 'ipset.ipset', text: ipvs['ipset-save'] },
      { path: 'iptables-nft.iptables', text: ipvs['iptables-save'] },
    ],
  ],
];

describe('anonymize', () => {
  it.each(CASES)('%s: same catalog shape, same diagnostics, no original address or name', (_, files) => {
    const main = files.filter((f) => !f.path.startsWith('extra/'));
    const before = catalog(main);
    expect(before.services.length).toBeGreaterThan(20);
    const { files: out, manifest } = anonymizeSnapshot(files, MANIFEST, KEY);
    const after = catalog(out.filter((f) => !f.path.startsWith('extra/')));
    expect(shape(after)).toEqual(shape(before));
    expect(diagnosticCodes(out)).toEqual(diagnosticCodes(files));
    if (files.length > 1 && files[1].path.startsWith('extra/')) expect(shape(catalog([out[1]]))).toEqual(shape(before));
    const text = out.map((f) => f.text).join('\n') + JSON.stringify(manifest);
    const original = addressesOf(files.map((f) => f.text).join('\n'));
    expect(original.size).toBeGreaterThan(10);
    expect([...addressesOf(text)].filter((a) => original.has(a))).toEqual([]);
    for (const s of before.services) {
      if (s.namespace !== 'default' && s.namespace !== 'kube-system') expect(text).not.toMatch(new RegExp(`(?<![\\w.-])${s.namespace}/`));
      if (`${s.namespace}/${s.name}` !== 'default/kubernetes') expect(text).not.toContain(`/${s.name}:`);
    }
    expect(text).not.toContain('worker-prod-eu-3');
    expect(manifest).toMatchObject({ node: 'node-1', via: 'ssh', anonymized: true });
  });

  it('keeps prefixes: addresses of one CIDR stay in the mapped CIDR, loopback and masks stay', () => {
    const a = new Anonymizer(KEY);
    const text = a.rewrite('-s 10.0.0.0/8 -d 10.96.0.10/32 ! -d 127.0.0.0/8 -m addrtype 255.255.255.0 10.96.0.1 10.111.255.1 fd00:10:96::1 fd00:10:96::/112');
    const [, cidr, , one, , , , , , mask, first, last, v6, v6cidr] = text.split(' ');
    expect(cidr).toMatch(/^\d+\.0\.0\.0\/8$/);
    expect(one.split('.')[0]).toBe(cidr.split('.')[0]);
    expect(text).toContain('127.0.0.0/8');
    expect(mask).toBe('255.255.255.0');
    // 10.96.0.0/12: both ends keep their first 12 bits.
    const top12 = (ip: string) =>
      ip
        .split('.')
        .map(Number)
        .reduce((v, o) => v * 256 + o, 0) >>> 20;
    expect(top12(first)).toBe(top12(last));
    expect(v6cidr).toMatch(/:0\/112$/);
    expect(v6.split(':').slice(0, 7)).toEqual(v6cidr.split(':').slice(0, 7));
    expect(a.rewrite('10.96.0.1')).toBe(first);
  });

  it('replaces MACs and link-local interface ids (ip -j addr), keeping fe80::/64 and broadcast', () => {
    const a = new Anonymizer(KEY);
    const addr = '[{"ifname":"eth0","address":"52:54:00:12:34:56","broadcast":"ff:ff:ff:ff:ff:ff","addr_info":[{"local":"fe80::5054:ff:fe12:3456","prefixlen":64},{"local":"192.168.0.2","prefixlen":24}]}]';
    const out = a.rewrite(addr);
    expect(out).not.toMatch(/52:54:00|5054|3456|192\.168\.0\.2/i);
    expect(out).toContain('"broadcast":"ff:ff:ff:ff:ff:ff"');
    expect(JSON.parse(out)[0].addr_info[0].local).toMatch(/^fe80::/);
    expect(a.rewrite('52:54:00:12:34:56')).toBe(JSON.parse(out)[0].address);
  });
});
