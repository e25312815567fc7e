import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { NftRuleset } from '../../src/core/model/nft';
import { expectedNftCatalog, generateNftDump, ipv6Variant, KUBE_PROXY_NFT_TEST_OPTIONS, KUBE_PROXY_NFT_TEST_SERVICES, randomServices, type ExpectedNftCatalogEntry, type NftGenOptions } from '../../tools/generate/nft';
import { buildNftCatalog, classifyNftKubeObject, isKubeProxyNftTable, normalizeAddressIntervals, parseNftTime, type NftCatalog, type NftService } from '../../src/core/kube/nft-catalog';
import { explainNftKubeIdiom, explainNftKubeObjectName, explainNftKubeProxyMode, nftKubeObjectTitle } from '../../src/core/explain/kube-nft';
import { setTranslator } from '../../src/core/l10n';
import { nftEndpointChainNameBase, nftHash8, nftServiceChainNameBase } from '../../src/core/kube/nft-hash';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

// The parser lives in src/core/parse/nft (written alongside); find whichever module exports it.
async function findExport(name: string): Promise<((text: string) => NftRuleset) | undefined> {
  const dir = path.resolve(__dirname, '../../src/core/parse/nft');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort((a, b) => (a === 'index.ts' ? -1 : b === 'index.ts' ? 1 : a.localeCompare(b)));
  for (const f of files) {
    const mod = (await import(path.join(dir, f))) as Record<string, unknown>;
    if (typeof mod[name] === 'function') return mod[name] as (text: string) => NftRuleset;
  }
  return undefined;
}
const parseNft = (await findExport('parseNft'))!;
const parseNftJson = await findExport('parseNftJson');
const JSON_SKIP = 'parseNftJson not found in src/core/parse/nft; JSON form skipped';

type Style = NftGenOptions['style'] | 'nft-cmds-adds';

function catalogOf(text: string, style: Style): NftCatalog {
  const ruleset = style === 'nft-json' ? parseNftJson!(text) : parseNft(text);
  // The generator's dumps load into the kernel as they are (see generate-nft.test.ts): nothing to complain about.
  expect(ruleset.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning').slice(0, 3)).toEqual([]);
  return buildNftCatalog(ruleset);
}

interface Normal {
  id: string;
  frontends: string[];
  endpoints: { at: string; p: number; local: boolean }[];
  policies: ExpectedNftCatalogEntry['policies'];
}

const round = (p: number) => Math.round(p * 1e9) / 1e9;
const frontendText = (f: { kind: string; address?: string; port: number; kindUncertain?: boolean }) => `${f.kind}${f.kindUncertain ? '?' : ''} ${f.address ?? '*'}:${f.port}`;
const at = (address: string, port: number) => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);
const clean = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function normalizedCatalog(services: NftService[]): Normal[] {
  return services
    .map((s) => ({
      id: `${s.namespace}/${s.name}:${s.portName}/${s.protocol}`,
      frontends: s.frontends.map(frontendText).sort(),
      endpoints: s.endpoints.map((e) => ({ at: at(e.address, e.port), p: round(e.probability), local: Boolean(e.local) })).sort((a, b) => a.at.localeCompare(b.at)),
      policies: clean({
        sessionAffinityTimeoutSeconds: s.policies.sessionAffinity?.timeoutSeconds,
        externalTrafficPolicy: s.policies.externalTrafficPolicy,
        internalTrafficPolicy: s.policies.internalTrafficPolicy,
        loadBalancerSourceRanges: s.policies.loadBalancerSourceRanges,
        noEndpoints: s.policies.noEndpoints,
        clusterCIDR: s.policies.clusterCIDR,
        masqueradeAll: s.policies.masqueradeAll,
      }),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

function normalizedTruth(entries: ExpectedNftCatalogEntry[]): Normal[] {
  return entries
    .map((s) => ({
      id: `${s.namespace}/${s.name}:${s.portName}/${s.protocol}`,
      frontends: s.frontends.map(frontendText).sort(),
      endpoints: s.endpoints.map((e) => ({ at: at(e.address, e.port), p: round(e.probability), local: Boolean(e.local) })).sort((a, b) => a.at.localeCompare(b.at)),
      policies: s.policies,
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

function check(o: Omit<NftGenOptions, 'style'>, style: Style): NftCatalog {
  const family = o.family ?? 'ipv4';
  const services = o.services.filter((s) => (family === 'ipv6') === s.clusterIP.includes(':'));
  const text = generateNftDump({ ...o, style: style === 'nft-cmds-adds' ? 'nft-cmds' : style, ...(style === 'nft-cmds-adds' ? { cmds: 'adds' as const } : {}) });
  const catalog = catalogOf(text, style);
  expect(catalog.diagnostics).toEqual([]);
  expect(normalizedCatalog(catalog.services)).toEqual(normalizedTruth(expectedNftCatalog(services, o)));
  return catalog;
}

const STYLES: Style[] = ['nft-list-ruleset', 'nft-cmds', 'nft-cmds-adds', 'nft-json'];

describe('nftables catalog against generated kube-proxy dumps (ground truth from the generator)', () => {
  for (const seed of [1, 2, 3, 7, 42]) {
    for (const style of STYLES) {
      it.skipIf(style === 'nft-json' && !parseNftJson)(`seed ${seed}, ${style}${style === 'nft-json' && !parseNftJson ? ` (${JSON_SKIP})` : ''}`, () => {
        check({ services: randomServices(60, 4, seed) }, style);
      });
    }
  }
  const variants: [string, Omit<NftGenOptions, 'style'>][] = [
    ['IPv6', { services: ipv6Variant(randomServices(50, 3, 8)), family: 'ipv6' }],
    ['post-dnat layout (~1.31), dport in the masquerade rule', { services: randomServices(50, 3, 9), baseChains: 'post-dnat' }],
    ['NodePorts on all addresses, --masquerade-all', { services: randomServices(50, 3, 10), nodePortAddresses: 'all', masqueradeAll: true }],
    ['other cluster CIDR and mark bit', { services: randomServices(50, 3, 11), clusterCIDR: '10.244.0.0/16', masqueradeBit: 12 }],
    [
      'source ranges that merge and contain the node',
      {
        services: randomServices(80, 2, 12).map((s) => (s.loadBalancerSourceRanges ? { ...s, loadBalancerSourceRanges: [...s.loadBalancerSourceRanges, '192.168.0.0/24', '203.0.113.128/25'] } : s)),
      },
    ],
  ];
  for (const [name, o] of variants) {
    for (const style of STYLES) {
      it.skipIf(style === 'nft-json' && !parseNftJson)(`${name}, ${style}`, () => {
        check(o, style);
      });
    }
  }

  it('probabilities are exactly 1/N per numgen value and sum to 1 over the ClusterIP endpoints', () => {
    const endpoints = Array.from({ length: 7 }, (_, k) => ({ address: `10.1.0.${k + 1}`, port: 8080 }));
    const text = generateNftDump({ style: 'nft-list-ruleset', services: [{ namespace: 'web', name: 'api', portName: 'http', protocol: 'tcp', clusterIP: '10.96.0.20', port: 80, endpoints }] });
    const s = buildNftCatalog(parseNft(text)).services[0]!;
    expect(s.endpoints.map((e) => e.probability)).toEqual(Array(7).fill(1 / 7));
    expect(s.endpoints.reduce((sum, e) => sum + e.probability, 0)).toBeCloseTo(1, 12);
    expect(s.endpoints[0]!.chain).toBe(`endpoint-${nftEndpointChainNameBase('web', 'api', 'tcp', 'http', '10.1.0.1', 8080)}`);
  });

  it('reads uneven hand-written vmaps (ranges of values, missing values) as they really act', () => {
    const text = [
      'table ip kube-proxy {',
      '\tmap service-ips {',
      '\t\ttype ipv4_addr . inet_proto . inet_service : verdict',
      '\t\telements = { 10.96.0.1 . tcp . 80 : goto service-AAAAAAAA-a/b/tcp/http }',
      '\t}',
      '\tchain service-AAAAAAAA-a/b/tcp/http {',
      '\t\tnumgen random mod 4 vmap { 0-1 : goto endpoint-AAAAAAAA-a/b/tcp/http__10.0.0.1/80, 2 : goto endpoint-BBBBBBBB-a/b/tcp/http__10.0.0.2/80 }',
      '\t}',
      '\tchain endpoint-AAAAAAAA-a/b/tcp/http__10.0.0.1/80 {',
      '\t\tmeta l4proto tcp dnat to 10.0.0.1:80',
      '\t}',
      '\tchain endpoint-BBBBBBBB-a/b/tcp/http__10.0.0.2/80 {',
      '\t\tmeta l4proto tcp dnat to 10.0.0.2:80',
      '\t}',
      '}',
      '',
    ].join('\n');
    const catalog = buildNftCatalog(parseNft(text));
    const s = catalog.services[0]!;
    expect(s.endpoints.map((e) => [e.address, e.probability])).toEqual([
      ['10.0.0.1', 0.5],
      ['10.0.0.2', 0.25],
    ]);
    // Hand-made names: every hash is flagged.
    expect(catalog.diagnostics.filter((d) => d.code === 'hash-mismatch')).toHaveLength(3);
    expect(s.hashChecks.every((h) => !h.ok)).toBe(true);
    expect(s.hashChecks.find((h) => h.chain === 'service-AAAAAAAA-a/b/tcp/http')?.expected).toBe(`service-${nftHash8('a/b/tcp/http')}-a/b/tcp/http`);
  });

  it('objects: chains, map and set elements and affinity sets, with ranges', () => {
    const services = KUBE_PROXY_NFT_TEST_SERVICES.TestOverallNFTablesRules!;
    const text = generateNftDump({ ...KUBE_PROXY_NFT_TEST_OPTIONS, services, style: 'nft-list-ruleset' });
    const lines = text.split('\n');
    const s = buildNftCatalog(parseNft(text)).services.find((x) => x.name === 'svc5')!;
    const roles = s.objects.map((o) => `${o.role} ${o.name}`).sort();
    expect(roles).toEqual([
      'affinity-set affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80',
      'endpoint-chain endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80',
      'external-chain external-HVFWP5L3-ns5/svc5/tcp/p80',
      'firewall-chain firewall-HVFWP5L3-ns5/svc5/tcp/p80',
      'map-element firewall-ips',
      'map-element service-ips',
      'map-element service-ips',
      'map-element service-nodeports',
      'service-chain service-HVFWP5L3-ns5/svc5/tcp/p80',
      'set-element cluster-ips',
    ]);
    const chainRef = s.objects.find((o) => o.role === 'service-chain')!;
    expect(lines[chainRef.range.start.line]).toContain('chain service-HVFWP5L3-ns5/svc5/tcp/p80 {');
    const lb = s.frontends.find((f) => f.kind === 'loadBalancer')!;
    expect(lines[lb.range!.start.line]).toContain('5.6.7.8 . tcp . 80');
    expect(s.hash).toBe('HVFWP5L3');
    expect(s.hashChecks.length).toBe(5);
    expect(s.hashChecks.every((h) => h.ok)).toBe(true);
    expect(s.family).toBe('ipv4');
  });

  it('a renamed chain (hash no longer matching) gets a hint naming what kube-proxy would write', () => {
    const text = generateNftDump({ ...KUBE_PROXY_NFT_TEST_OPTIONS, services: KUBE_PROXY_NFT_TEST_SERVICES.TestOverallNFTablesRules!, style: 'nft-list-ruleset' }).replaceAll(
      'service-ULMVA6XW-ns1/svc1/tcp/p80',
      'service-ULMVA6XW-ns1/svc1/tcp/p81',
    );
    const catalog = buildNftCatalog(parseNft(text));
    const hints = catalog.diagnostics.filter((d) => d.code === 'hash-mismatch');
    expect(hints).toHaveLength(1);
    expect(hints[0]!.message).toContain(`service-${nftServiceChainNameBase('ns1', 'svc1', 'tcp', 'p81')}`);
    expect(catalog.services.find((s) => s.name === 'svc1')?.portName).toBe('p81');
  });
});

// ---------------------------------------------------------------------------------------------------------
// kube-proxy's own expectations

/** Every service port the dump names: cluster-ips members x the service-ips / no-endpoint-services keys. */
function servicesIn(cmds: string): string[] {
  const out = new Set<string>();
  for (const m of cmds.matchAll(/add element ip6? \S+ (?:service-ips|no-endpoint-services) \{ (\S+) \. (\w+) \. (\d+)(?: comment "([^"]+)")? : (?:goto|jump) (\S+) \}/g)) {
    const [, , protocol, , comment, target] = m as unknown as string[];
    const named = /^(?:service|local)-[A-Z2-7]{8}-([^/]+)\/([^/]+)\/(\w+)\/(.*)$/.exec(target!);
    if (named) out.add(`${named[1]}/${named[2]}:${named[4]}/${named[3]}`);
    else if (comment) {
      const [nsName, port] = comment.split(':');
      out.add(`${nsName}:${port ?? ''}/${protocol}`);
    }
  }
  for (const m of cmds.matchAll(/add element ip6? \S+ no-endpoint-services \{ (\S+) \. (\w+) \. (\d+) comment "([^"]+)" : drop \}/g)) {
    const [nsName, port] = m[4]!.split(':');
    out.add(`${nsName}:${port ?? ''}/${m[2]}`);
  }
  return [...out].sort();
}

const corpusDir = path.join(CORPUS, 'nft/kube-proxy');
const KUBE_FILES = HAVE_CORPUS
  ? readdirSync(corpusDir)
      .filter((f) => /\.(nft|json|nft-cmds)$/.test(f) && !f.startsWith('helpers_test'))
      .sort()
  : [];

describe.skipIf(!HAVE_CORPUS)(`nftables catalog of kube-proxy’s test expectations (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  it('found the dumps', () => expect(KUBE_FILES.length).toBeGreaterThan(0));
  for (const file of KUBE_FILES) {
    const json = file.endsWith('.json');
    it.skipIf(json && !parseNftJson)(`${file}: the services kube-proxy's test defines, no error`, () => {
      const text = readFileSync(path.join(corpusDir, file), 'utf8');
      const ruleset = json ? parseNftJson!(text) : parseNft(text);
      expect(ruleset.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(ruleset.tables.every(isKubeProxyNftTable)).toBe(true);
      const catalog = buildNftCatalog(ruleset);
      const cmds = readFileSync(path.join(corpusDir, file.replace(/\.(nft|json|nft-cmds)$/, '.nft-cmds')), 'utf8');
      expect(catalog.services.map((s) => `${s.namespace}/${s.name}:${s.portName}/${s.protocol}`).sort()).toEqual(servicesIn(cmds));
      for (const s of catalog.services) expect(s.hashChecks.every((h) => h.ok)).toBe(true);
      expect(catalog.diagnostics.filter((d) => d.code !== 'kube-stale-chain')).toEqual([]);
      // Where the generator reproduces the file, the catalog equals its truth.
      const key = file.replace(/\.(nft|json|nft-cmds)$/, '');
      const services = KUBE_PROXY_NFT_TEST_SERVICES[key];
      if (services) expect(normalizedCatalog(catalog.services)).toEqual(normalizedTruth(expectedNftCatalog(services)));
    });
  }

  it('hand-checked: TestOverallNFTablesRules.nft', () => {
    const catalog = buildNftCatalog(parseNft(readFileSync(path.join(corpusDir, 'TestOverallNFTablesRules.nft'), 'utf8')));
    const by = (name: string) => catalog.services.find((s) => s.name === name)!;
    // svc2: LoadBalancer with externalTrafficPolicy Local and its only endpoint on another node.
    const svc2 = by('svc2');
    expect(svc2.frontends.map(frontendText)).toEqual(['clusterIP 172.30.0.42:80', 'nodePort *:3001', 'externalIP? 1.2.3.4:80', 'externalIP? 192.168.99.22:80']);
    expect(svc2.endpoints).toMatchObject([{ address: '10.180.0.2', port: 80, probability: 1 }]);
    expect(svc2.endpoints[0]!.local).toBeUndefined();
    // Pods (10.0.0.0/8) and this node short-circuit to the cluster chain; everyone else finds no local endpoint.
    expect(svc2.policies).toEqual({
      internalTrafficPolicy: 'Cluster',
      externalTrafficPolicy: 'Local',
      noEndpoints: 'drop',
      clusterCIDR: '10.0.0.0/8',
      shortCircuit: { podSource: '10.0.0.0/8', node: true },
      noLocalEndpoints: { external: true },
    });
    // svc4: two endpoints, half each.
    expect(by('svc4').endpoints.map((e) => [e.address, e.probability])).toEqual([
      ['10.180.0.4', 0.5],
      ['10.180.0.5', 0.5],
    ]);
    // svc5: source ranges make 5.6.7.8 a known load balancer; ClientIP affinity for 3h.
    const svc5 = by('svc5');
    expect(svc5.frontends.map(frontendText)).toEqual(['clusterIP 172.30.0.45:80', 'nodePort *:3002', 'loadBalancer 5.6.7.8:80']);
    expect(svc5.policies).toEqual({
      internalTrafficPolicy: 'Cluster',
      externalTrafficPolicy: 'Cluster',
      clusterCIDR: '10.0.0.0/8',
      sessionAffinity: { kind: 'ClientIP', timeoutSeconds: 10800 },
      loadBalancerSourceRanges: ['203.0.113.0/25'],
    });
    // svc6: no endpoints, rejected.
    expect(by('svc6')).toMatchObject({ frontends: [{ kind: 'clusterIP', address: '172.30.0.46', port: 80 }], endpoints: [], policies: { noEndpoints: 'reject' } });
  });

  it('hand-checked: TestSyncProxyRulesRepeated__09 (svc3 lost its endpoints; its chains are flushed, not yet deleted)', () => {
    const text = readFileSync(path.join(corpusDir, 'TestSyncProxyRulesRepeated__09_empty_svc3_endpoints_chains_flushed.nft'), 'utf8');
    const catalog = buildNftCatalog(parseNft(text));
    expect(catalog.services.map((s) => `${s.name} ${s.frontends.map(frontendText).join(',')} -> ${s.endpoints.map((e) => `${e.address}:${e.port}@${e.probability}`).join(',')} ${s.policies.noEndpoints ?? ''}`)).toEqual([
      'svc1 clusterIP 172.30.0.41:80 -> 10.0.1.1:80@1 ',
      'svc3 clusterIP 172.30.0.43:80 ->  reject',
      'svc4 clusterIP 172.30.0.44:80 -> 10.0.4.1:80@1 ',
    ]);
    const stale = catalog.diagnostics.filter((d) => d.code === 'kube-stale-chain');
    const lines = text.split('\n');
    expect(stale.map((d) => lines[d.range.start.line]!.trim()).sort()).toEqual(['chain endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80 {', 'chain endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80 {']);
  });
});

describe('helpers', () => {
  it('normalizeAddressIntervals merges and sorts like nft', () => {
    expect(normalizeAddressIntervals(['203.0.113.128/25', '203.0.113.0/25', '10.0.0.1', '10.0.0.2-10.0.0.3', '2001:db8::/64'])).toEqual(['10.0.0.1-10.0.0.3', '203.0.113.0/24', '2001:db8::/64']);
  });
  it('parseNftTime reads nft durations', () => {
    expect(parseNftTime('3h')).toBe(10800);
    expect(parseNftTime('10800s')).toBe(10800);
    expect(parseNftTime('1d1h1m1s')).toBe(90061);
    expect(parseNftTime('10800')).toBe(10800);
    expect(parseNftTime('soon')).toBeUndefined();
  });
});

describe('explanations of kube-proxy’s nftables objects', () => {
  afterEach(() => setTranslator(undefined));
  const NAMES = [
    'services',
    'service-ips',
    'service-nodeports',
    'nodeport-ips',
    'cluster-ips',
    'cluster-ips-check',
    'no-endpoint-services',
    'no-endpoint-nodeports',
    'service-endpoints-check',
    'nodeport-endpoints-check',
    'endpoints-check',
    'reject-chain',
    'firewall-ips',
    'firewall-check',
    'mark-for-masquerade',
    'masquerading',
    'filter-prerouting',
    'filter-prerouting-pre-dnat',
    'filter-input',
    'filter-forward',
    'filter-output',
    'filter-output-pre-dnat',
    'filter-output-post-dnat',
    'nat-prerouting',
    'nat-output',
    'nat-postrouting',
    'service-ULMVA6XW-ns1/svc1/tcp/p80',
    'local-ULMVA6XW-ns1/svc1/tcp/p80',
    'external-ULMVA6XW-ns1/svc1/tcp/p80',
    'firewall-ULMVA6XW-ns1/svc1/tcp/p80',
    'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80',
    'affinity-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80',
  ];

  it('every chain, set and map kind has a title and an explanation, all through t()', () => {
    const seen: string[] = [];
    setTranslator((message) => {
      seen.push(message);
      return `«${message}»`;
    });
    for (const name of NAMES) {
      expect(classifyNftKubeObject(name), name).toBeDefined();
      expect(explainNftKubeObjectName(name), name).toMatch(/^«.{40,}»$/s);
      expect(nftKubeObjectTitle(name), name).toMatch(/^«.+»$/);
    }
    expect(explainNftKubeObjectName('my-own-chain')).toBeUndefined();
    expect(explainNftKubeProxyMode()).toMatch(/^«.*one hash lookup.*numgen random mod N.*»$/s);
    for (const idiom of ['vmap-by-destination', 'numgen', 'affinity-lookup', 'affinity-update', 'mark-masq', 'masq-off-cluster', 'hairpin', 'dnat', 'fib-local', 'ct-state-new'] as const) {
      expect(explainNftKubeIdiom(idiom)).toMatch(/^«.+»$/s);
    }
    expect(seen.length).toBeGreaterThan(60);
  });

  it('numgen explanations state the share', () => {
    expect(explainNftKubeIdiom('numgen', 4)).toContain('1/4');
    expect(explainNftKubeIdiom('numgen', 3)).toContain('33.33%');
  });

  it('explains every object of the corpus kube-proxy tables', () => {
    if (!HAVE_CORPUS) return;
    const ruleset = parseNft(readFileSync(path.join(corpusDir, 'TestOverallNFTablesRules.nft'), 'utf8'));
    const table = ruleset.tables[0]!;
    for (const name of [...table.chains.map((c) => c.name), ...table.sets.map((s) => s.name), ...table.maps.map((m) => m.name)]) {
      expect(explainNftKubeObjectName(name), name).toBeTruthy();
    }
  });
});

describe('endpoint chains declared on one line', () => {
  // The catalog keeps its facts on endpoint chains by the line each is declared on; chains sharing a line (a
  // ruleset on one line) must give what the same ruleset over many lines gives.
  const lines = [
    'table ip kube-proxy {',
    'chain service-AAAAAAAA-ns/web/tcp/http { ip daddr 10.96.0.1 tcp dport 80 numgen random mod 2 vmap { 0 : goto endpoint-BBBBBBBB-ns/web/tcp/http__10.0.0.1/80, 1 : goto endpoint-CCCCCCCC-ns/web/tcp/http__10.0.0.2/80 } }',
    'chain endpoint-BBBBBBBB-ns/web/tcp/http__10.0.0.1/80 { meta l4proto tcp dnat to 10.0.0.1:80 }',
    'chain endpoint-CCCCCCCC-ns/web/tcp/http__10.0.0.2/80 { meta l4proto tcp dnat to 10.0.0.2:80 }',
    'chain endpoint-DDDDDDDD-ns/old/tcp/http__10.0.0.9/80 { }',
    'map service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; elements = { 10.96.0.1 . tcp . 80 : goto service-AAAAAAAA-ns/web/tcp/http } }',
    '}',
  ];
  const summary = (text: string) => {
    const c = buildNftCatalog(parseNft(text));
    return {
      services: c.services.map((s) => ({
        name: `${s.namespace}/${s.name}`,
        endpoints: s.endpoints.map((e) => `${e.address}:${e.port} ${round(e.probability)} ${e.chain}`),
        checks: s.hashChecks.map((h) => `${h.chain} ${h.ok}`),
      })),
      diagnostics: c.diagnostics.map((d) => `${d.code} ${d.message}`).sort(),
    };
  };

  it('gives the Services, hash checks and stale chains of the same ruleset over many lines', () => {
    const many = summary(lines.join('\n'));
    expect(many.services[0].endpoints).toHaveLength(2);
    expect(many.diagnostics.filter((d) => d.startsWith('kube-stale-chain'))).toHaveLength(1);
    expect(summary(lines.join(' '))).toEqual(many);
  });
});
