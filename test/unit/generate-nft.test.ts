import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { haveNetnsTools } from '../helpers/netns';
import { expectedCatalog } from '../../tools/generate/iptables';
import {
  asIptablesTruth,
  expectedNftCatalog,
  generateNftDump,
  ipv6Variant,
  mergeIntervals,
  intervalText,
  KUBE_PROXY_NFT_TEST_OPTIONS,
  KUBE_PROXY_NFT_TEST_SERVICES,
  nftObjectNames,
  randomServices,
  type GenServicePort,
  type NftGenOptions,
} from '../../tools/generate/nft';
import { nftEndpointChainNameBase, nftHash8, nftObjectHashOk, nftServiceChainNameBase, parseNftServiceObjectName } from '../../src/core/kube/nft-hash';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

const dir = path.join(CORPUS, 'nft/kube-proxy');
const corpus = (name: string) => readFileSync(path.join(dir, name), 'utf8');

/** kube-proxy's tests compare sorted lines; so do we (blank lines and `# svcN` comments dropped). */
const cmdLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .sort();

const svc = (namespace: string, name: string, clusterIP: string, port: number, endpoints: string[], extra: Partial<GenServicePort> = {}): GenServicePort => ({
  namespace,
  name,
  portName: `p${port}`,
  protocol: 'tcp',
  clusterIP,
  port,
  endpoints: endpoints.map((e) => ({ address: e, port })),
  ...extra,
});

const OVERALL = KUBE_PROXY_NFT_TEST_SERVICES.TestOverallNFTablesRules!;
const TEST = KUBE_PROXY_NFT_TEST_OPTIONS;
const CORPUS_CASES = Object.entries(KUBE_PROXY_NFT_TEST_SERVICES);

describe('kube-proxy nftables object names', () => {
  it('are base32(sha256(name))[:8] + "-" + name, as in kube-proxy’s tests', () => {
    expect(nftHash8('ns1/svc1/tcp/p80')).toBe('ULMVA6XW');
    expect(nftServiceChainNameBase('ns1', 'svc1', 'TCP', 'p80')).toBe('ULMVA6XW-ns1/svc1/tcp/p80');
    expect(nftServiceChainNameBase('ns2', 'svc2', 'tcp', 'p80')).toBe('42NFTM6N-ns2/svc2/tcp/p80');
    expect(nftEndpointChainNameBase('ns1', 'svc1', 'tcp', 'p80', '10.180.0.1', 80)).toBe('5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80');
    expect(nftEndpointChainNameBase('ns5', 'svc5', 'tcp', 'p80', '10.180.0.3', 80)).toBe('GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80');
    // IPv6 endpoints: colons become dots (kube-proxy's TestSyncProxyRulesStartup / IPv6 expectations).
    expect(nftEndpointChainNameBase('ns1', 'svc1', 'tcp', 'p80', 'fd00:10:180::2:1', 80)).toBe('2CRNCTTE-ns1/svc1/tcp/p80__fd00.10.180..2.1/80');
  });

  it('parse back, with the hash checked', () => {
    const p = parseNftServiceObjectName('endpoint-2CRNCTTE-ns1/svc1/tcp/p80__fd00.10.180..2.1/80')!;
    expect(p).toMatchObject({ kind: 'endpoint', hash: '2CRNCTTE', namespace: 'ns1', name: 'svc1', protocol: 'tcp', portName: 'p80', endpoint: { address: 'fd00:10:180::2:1', port: 80 } });
    expect(nftObjectHashOk(p)).toBe(true);
    expect(nftObjectHashOk(parseNftServiceObjectName('service-AAAAAAAA-ns1/svc1/tcp/p80')!)).toBe(false);
    expect(parseNftServiceObjectName('affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80')).toMatchObject({ kind: 'affinity', endpoint: { address: '10.180.0.3', port: 80 } });
    expect(parseNftServiceObjectName('local-ULMVA6XW-ns1/svc1/tcp/')).toMatchObject({ kind: 'local', portName: '' });
    expect(parseNftServiceObjectName('services')).toBeUndefined();
    expect(parseNftServiceObjectName('service-endpoints-check')).toBeUndefined();
    expect(parseNftServiceObjectName('endpoint-5OJB2KTY-ns1/svc1/tcp/p80')).toBeUndefined();
  });

  it('are cut at 240 characters like kube-proxy’s hashAndTruncate (hash then not checkable)', () => {
    const long = 'n'.repeat(63);
    const base = nftEndpointChainNameBase(long, long, 'tcp', long, 'fd00:1234:5678:9abc:def0:1234:5678:9abc', 65535);
    expect(base.length).toBe(240);
    expect(base.endsWith('...')).toBe(true);
    const p = parseNftServiceObjectName(`endpoint-${base}`)!;
    expect(p.truncated).toBe(true);
    expect(nftObjectHashOk(p)).toBeUndefined();
  });

  it('nftObjectNames gives the chains of a service port', () => {
    const names = nftObjectNames(OVERALL[4]!);
    expect(names.service).toBe('service-HVFWP5L3-ns5/svc5/tcp/p80');
    expect(names.firewall).toBe('firewall-HVFWP5L3-ns5/svc5/tcp/p80');
    expect(names.endpoints).toEqual([{ address: '10.180.0.3', port: 80, chain: 'endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80', affinitySet: 'affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80' }]);
  });
});

describe.skipIf(!HAVE_CORPUS)(`generator against kube-proxy’s test expectations (${HAVE_CORPUS ? 'shared corpus nft/kube-proxy' : NO_CORPUS_MESSAGE})`, () => {
  for (const [name, services] of CORPUS_CASES) {
    it(`${name}: nft-list-ruleset is byte-identical to real nft list ruleset`, () => {
      expect(generateNftDump({ ...TEST, services, style: 'nft-list-ruleset' })).toBe(corpus(`${name}.nft`));
    });
    it(`${name}: nft-json is byte-identical to real nft -j list ruleset (handles included)`, () => {
      expect(generateNftDump({ ...TEST, services, style: 'nft-json' })).toBe(corpus(`${name}.json`));
    });
    it(`${name}: nft-cmds (adds) has exactly the lines of kube-proxy’s expected transaction`, () => {
      expect(cmdLines(generateNftDump({ ...TEST, services, style: 'nft-cmds', cmds: 'adds' }))).toEqual(cmdLines(corpus(`${name}.nft-cmds`)));
    });
  }

  it('kube-proxy order lists the same objects as the test order, chains and sets only moved', () => {
    const real = generateNftDump({ services: OVERALL, serviceCIDRs: ['172.30.0.0/16'], style: 'nft-list-ruleset' });
    const blocks = (text: string) =>
      text
        .split('\n\n')
        .map((b) => b.trim())
        .sort();
    expect(blocks(real)).toEqual(blocks(corpus('TestOverallNFTablesRules.nft')));
  });
});

/** Replays a command list the way the kernel would: every reference must exist when its command runs. */
function checkLoadable(cmds: string): string[] {
  const problems: string[] = [];
  const chains = new Set<string>();
  const sets = new Set<string>();
  for (const line of cmds.trim().split('\n')) {
    const m = /^(add|flush|delete) (table|chain|set|map|rule|element) ip6? kube-proxy ?(\S*)(.*)$/.exec(line);
    if (!m) {
      problems.push(`unparsed: ${line}`);
      continue;
    }
    const [, verb, obj, name, rest] = m as unknown as [string, string, string, string, string];
    const bare = rest.replace(/"[^"]*"/g, '""');
    const refs = [...bare.matchAll(/(?:goto|jump) (\S+)/g)].map((x) => x[1]!);
    const setRefs = [...bare.matchAll(/@(\S+)/g)].map((x) => x[1]!);
    if (obj === 'chain') {
      if (verb === 'add') chains.add(name);
      else if (!chains.has(name)) problems.push(`${verb} of missing chain: ${line}`);
      if (verb === 'delete') chains.delete(name);
    } else if (obj === 'set' || obj === 'map') {
      if (verb === 'add') sets.add(name);
      else if (!sets.has(name)) problems.push(`${verb} of missing set: ${line}`);
      if (verb === 'delete') sets.delete(name);
    } else if (obj === 'rule' || obj === 'element') {
      if (!(obj === 'rule' ? chains : sets).has(name)) problems.push(`${obj} for missing ${name}: ${line}`);
    }
    for (const r of refs) if (!chains.has(r)) problems.push(`reference to missing chain ${r}: ${line}`);
    for (const r of setRefs) if (!sets.has(r)) problems.push(`reference to missing set ${r}: ${line}`);
  }
  return problems;
}

describe('generated dumps', () => {
  const variants: [string, Omit<NftGenOptions, 'style'>][] = [
    ['seed 1', { services: randomServices(120, 3, 1) }],
    ['seed 2, post-dnat layout', { services: randomServices(120, 3, 2), baseChains: 'post-dnat' }],
    ['seed 3, nodePortAddresses all, masqueradeAll', { services: randomServices(120, 3, 3), nodePortAddresses: 'all', masqueradeAll: true }],
    ['IPv6', { services: ipv6Variant(randomServices(60, 3, 4)), family: 'ipv6' }],
  ];
  for (const [name, o] of variants) {
    it(`${name}: kube-proxy's transaction and its add-only form reference nothing before it exists`, () => {
      expect(checkLoadable(generateNftDump({ ...o, style: 'nft-cmds' }))).toEqual([]);
      expect(checkLoadable(generateNftDump({ ...o, style: 'nft-cmds', cmds: 'adds' }))).toEqual([]);
    });
  }

  it('the transaction is what knftables writes: add+delete of base chains, flushes, Go %#08x mark', () => {
    const text = generateNftDump({ services: OVERALL.slice(0, 1), style: 'nft-cmds' });
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['add table ip kube-proxy { comment "rules for kube-proxy" ; }', 'add chain ip kube-proxy filter-prerouting-pre-dnat', 'delete chain ip kube-proxy filter-prerouting-pre-dnat']);
    expect(lines).toContain('add chain ip kube-proxy filter-prerouting-pre-dnat { type filter hook prerouting priority -110 ; }');
    expect(lines).toContain('add rule ip kube-proxy mark-for-masquerade mark set mark or 0x00004000');
    expect(lines).toContain('flush map ip kube-proxy service-ips');
    // Endpoint chains are created before the service chain that jumps to them.
    const ep = lines.indexOf('add chain ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80');
    const sv = lines.indexOf('add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80');
    expect(ep).toBeGreaterThan(0);
    expect(sv).toBeGreaterThan(ep);
  });

  it('IPv6: ip6 table, ip6 matches, bracketed DNAT, one address per line', () => {
    const services = ipv6Variant(OVERALL);
    const text = generateNftDump({ services, family: 'ipv6', style: 'nft-list-ruleset' });
    expect(text.startsWith('table ip6 kube-proxy {')).toBe(true);
    expect(text).toContain('\t\ttype ipv6_addr . inet_proto . inet_service : verdict');
    expect(text).toMatch(/ip6 daddr fd00:10:96::2c ip6 saddr != fd00:10::\/64 jump mark-for-masquerade/);
    expect(text).toMatch(/meta l4proto tcp dnat to \[fd00:10::a:b4:0:1\]:80/);
    expect(text).toContain('elements = { fd00:10:96::29,\n\t\t\t     fd00:10:96::2a,');
    expect(text).toContain('ip6 saddr != 2001:db8::cb:0:71:0/121 drop');
    // IPv4 services are not in the IPv6 table and vice versa.
    expect(generateNftDump({ services, style: 'nft-list-ruleset' })).not.toContain('fd00:');
  });

  it('anonymous interval sets are merged and sorted as nft prints them', () => {
    expect(mergeIntervals(['10.96.0.0/12', '10.112.0.0/12', '172.30.0.0/16']).map(intervalText)).toEqual(['10.96.0.0/11', '172.30.0.0/16']);
    expect(mergeIntervals(['1.0.0.0/8', '3.0.0.0/8', '2.0.0.0/8', '5.6.7.8/32']).map(intervalText)).toEqual(['1.0.0.0-3.255.255.255', '5.6.7.8']);
    const text = generateNftDump({
      services: [svc('a', 'lb', '10.96.0.20', 443, ['10.244.0.9'], { loadBalancerIPs: ['192.168.100.7'], nodePort: 30443, loadBalancerSourceRanges: ['203.0.113.128/25', '203.0.113.0/25', '192.168.0.0/24'] })],
      style: 'nft-list-ruleset',
    });
    // The node (192.168.0.2) is inside a source range: kube-proxy also allows the LB IP itself.
    expect(text).toContain('ip saddr != { 192.168.0.0/24, 192.168.100.7, 203.0.113.0/24 } drop');
  });

  it('priorities, marks and timeouts are printed the way nft 1.0.6 prints them', () => {
    const text = generateNftDump({ services: [svc('a', 'b', '10.96.0.30', 80, ['10.244.1.1'], { sessionAffinityTimeout: 90061 })], style: 'nft-list-ruleset', baseChains: 'post-dnat', masqueradeBit: 13 });
    expect(text).toContain('type filter hook prerouting priority dstnat - 10; policy accept;');
    expect(text).toContain('type filter hook output priority -90; policy accept;');
    expect(text).toContain('type nat hook postrouting priority srcnat; policy accept;');
    expect(text).toContain('meta mark set meta mark | 0x00002000');
    expect(text).toContain('meta mark & 0x00002000 == 0x00000000 return');
    expect(text).toContain('timeout 1d1h1m1s');
    expect(text).toContain('ip daddr 10.96.0.30 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade');
  });

  it('set elements are sorted the way nft sorts them: concatenations as little-endian numbers', () => {
    const services = [
      svc('a', 'one', '10.96.0.9', 3001, ['10.244.0.2'], { nodePort: 3001 }),
      svc('a', 'two', '10.96.0.10', 2745, ['10.244.0.3'], { nodePort: 2745 }),
      { ...svc('a', 'three', '10.96.0.11', 3001, ['10.244.0.4'], { nodePort: 3002 }), protocol: 'udp' as const },
    ];
    const text = generateNftDump({ services, style: 'nft-list-ruleset' });
    // 2745 = 0x0ab9 and 3001 = 0x0bb9 share the low byte 0xb9, which is compared first.
    expect(text).toContain('elements = { tcp . 2745 : goto external-');
    expect(text.indexOf('tcp . 2745 : goto')).toBeLessThan(text.indexOf('tcp . 3001 : goto'));
    expect(text.indexOf('tcp . 3001 : goto')).toBeLessThan(text.indexOf('udp . 3002 : goto'));
    // Plain address sets sort numerically: 10.96.0.9 before 10.96.0.10.
    expect(text).toContain('elements = { 10.96.0.9, 10.96.0.10,\n\t\t\t     10.96.0.11 }');
  });

  it('expectedNftCatalog agrees with the iptables truth except where nft cannot tell load balancers from external IPs', () => {
    for (const seed of [1, 2, 3]) {
      const services = randomServices(150, 4, seed);
      const nft = asIptablesTruth(expectedNftCatalog(services));
      const ipt = expectedCatalog(services).map((e) => ({
        ...e,
        frontends: e.frontends
          .map((f) =>
            f.kind === 'loadBalancer' && !services.find((s) => s.namespace === e.namespace && s.name === e.name && s.portName === e.portName)?.loadBalancerSourceRanges?.length ? { ...f, kind: 'externalIP' as const } : f,
          )
          .sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : (a.address ?? '').localeCompare(b.address ?? ''))),
      }));
      expect(nft).toEqual(ipt);
    }
  });
});

// Opt-in (root, nft and ip needed): DPX_KERNEL_TESTS=1 npx vitest run test/unit/generate-nft.test.ts
const KERNEL = process.env.DPX_KERNEL_TESTS === '1' && haveNetnsTools;

describe.skipIf(!KERNEL)('kernel: kube-proxy transaction loaded with nft -f in a throw-away network namespace', () => {
  const cases: [string, Omit<NftGenOptions, 'style'>][] = [
    ['200 service ports', { services: randomServices(200, 3, 11) }],
    ['IPv6, nodePortAddresses all', { services: ipv6Variant(randomServices(80, 3, 12)), family: 'ipv6', nodePortAddresses: 'all' }],
    ['post-dnat layout, masqueradeAll', { services: randomServices(80, 3, 13), baseChains: 'post-dnat', masqueradeAll: true }],
  ];
  for (const [name, o] of cases) {
    it(`${name}: nft list ruleset / nft -j list ruleset equal the generated ones`, () => {
      const work = mkdtempSync(path.join(tmpdir(), 'dpx-nft-'));
      const ns = `dpx-gen-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
      try {
        const file = path.join(work, 'cmds.nft');
        writeFileSync(file, generateNftDump({ ...o, style: 'nft-cmds' }));
        execFileSync('ip', ['netns', 'add', ns]);
        execFileSync('ip', ['netns', 'exec', ns, 'nft', '-f', file]);
        const listed = execFileSync('ip', ['netns', 'exec', ns, 'nft', 'list', 'ruleset'], { encoding: 'utf8', maxBuffer: 1 << 28 });
        const json = execFileSync('ip', ['netns', 'exec', ns, 'nft', '-j', 'list', 'ruleset'], { encoding: 'utf8', maxBuffer: 1 << 28 });
        expect(listed).toBe(generateNftDump({ ...o, style: 'nft-list-ruleset' }));
        const version = /"version": "([^"]+)"/.exec(json)?.[1];
        if (version === '1.0.6') expect(json).toBe(generateNftDump({ ...o, style: 'nft-json' }));
      } finally {
        try {
          execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
        } catch {
          // not created
        }
        rmSync(work, { recursive: true, force: true });
      }
    });
  }
});
