// The Service catalog's fast paths (issue 8) must be invisible: what peekRuleFacts reads from a rule's line is
// exactly what the rule's statements say, on generated kube-proxy dumps, the corpus and randomised lines; the
// hand-written parseNftServiceObjectName gives what its regular expression did; nftEndpointNameShows only
// answers true when parsing the name gives that endpoint.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomServices } from '../../tools/generate/iptables';
import { generateNftDump, ipv6Variant, KUBE_PROXY_NFT_TEST_OPTIONS, KUBE_PROXY_NFT_TEST_SERVICES, type NftGenOptions } from '../../tools/generate/nft';
import {
  endpointAddressFromName,
  NFT_OBJECT_PREFIX,
  nftEndpointNameShows,
  nftHash8,
  nftObjectHashOk,
  nftObjectNameHashOk,
  nftServiceObjectKind,
  parseNftServiceObjectName,
  type NftServiceObjectKind,
  type NftServiceObjectName,
} from '../../src/core/kube/nft-hash';
import { parseNft } from '../../src/core/parse/nft/parser';
import { LazyRule } from '../../src/core/parse/nft/nodes';
import { peekRuleFacts, ruleFactsFromStatements } from '../../src/core/parse/nft/peek';
import { corpusFiles, HAVE_CORPUS } from '../helpers/shared';

/** Rules peeked and rules of per-service chains, failing on the first peek that differs from the statements. */
function comparePeeks(text: string): { peeked: number; serviceRules: number; servicePeeked: number } {
  let peeked = 0;
  let serviceRules = 0;
  let servicePeeked = 0;
  for (const table of parseNft(text).tables) {
    for (const chain of table.chains) {
      const perService = parseNftServiceObjectName(chain.name) !== undefined;
      for (const rule of chain.rules) {
        if (!(rule instanceof LazyRule)) continue;
        if (perService) serviceRules++;
        const facts = peekRuleFacts(rule.raw, rule);
        if (!facts) continue;
        peeked++;
        if (perService) servicePeeked++;
        expect(facts, rule.raw).toStrictEqual(ruleFactsFromStatements(rule.statements));
      }
    }
  }
  return { peeked, serviceRules, servicePeeked };
}

const inChain = (rules: readonly string[]) => `table ip t {\n\tchain c {\n${rules.map((r) => `\t\t${r}\n`).join('')}\t}\n}\n`;

describe('peekRuleFacts reads what the statements say', () => {
  it('on generated kube-proxy dumps, where it reads nearly every per-service rule', () => {
    const dumps: NftGenOptions[] = [];
    for (const seed of [2, 5]) {
      const services = randomServices(30, 4, seed);
      for (const style of ['nft-list-ruleset', 'nft-cmds'] as const) {
        dumps.push({ services, style });
        dumps.push({ services: ipv6Variant(services), family: 'ipv6', style });
      }
      dumps.push({ services, style: 'nft-list-ruleset', masqueradeAll: true });
    }
    for (const services of Object.values(KUBE_PROXY_NFT_TEST_SERVICES)) dumps.push({ services, style: 'nft-list-ruleset', ...KUBE_PROXY_NFT_TEST_OPTIONS });
    for (const options of dumps) {
      const { serviceRules, servicePeeked } = comparePeeks(generateNftDump(options));
      expect(servicePeeked).toBeGreaterThanOrEqual(serviceRules * 0.8);
    }
  });

  it.skipIf(!HAVE_CORPUS)('on the corpus', () => {
    const files = corpusFiles('nft').filter((f) => /\.(nft|nft-cmds)$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) comparePeeks(readFileSync(file, 'utf8'));
  });

  it('on lines close to kube-proxy’s shapes', () => {
    const rules = [
      'ip daddr 10.96.0.1 ip saddr != 10.0.0.0/8 jump mark-for-masquerade',
      'ip daddr 10.96.0.1 ip saddr != 10.0.0.0/08 jump mark-for-masquerade',
      'ip saddr != 10.0.0.0/8 ip saddr 1.2.3.4 jump mark-for-masquerade comment "a # b"',
      'ip6 saddr != fd00:10::/64 jump mark-for-masquerade',
      'ip6 saddr != fd00::/64 jump mark-for-masquerade',
      'ip6 saddr fd00:: goto x',
      'ip6 saddr ::1 goto x',
      'ip6 saddr fd00: goto x',
      'ip saddr 1.2.3.4-1.2.3.9 goto x',
      'ip saddr 1.2.3.4 - 1.2.3.9 goto x',
      'ip saddr @affinity-ABCDEFGH-ns/svc/tcp/p80__10.0.0.1/80 goto endpoint-ABCDEFGH-ns/svc/tcp/p80__10.0.0.1/80',
      'ip saddr != @s goto endpoint-x/',
      'ip saddr @th,16,16 goto x',
      'ip saddr @s- goto a.-',
      'ip saddr and 1.2.3.4 goto x',
      'ip saddr eq 1.2.3.4 goto x',
      'ip saddr 1.2.3.4 goto type',
      'ip saddr 1.2.3.4 goto "quoted"',
      'ip saddr 1.2.3.4 goto x comment "c" counter',
      'ip saddr 1.2.3.4  goto x',
      'ip saddr 1.2.3.4 jump x+y',
      'ip saddr 1.2.3.4 jump a:b',
      'ip saddr 1.2.3.4 accept',
      'iifname lo jump x',
      'jump mark-for-masquerade',
      'goto service-ABCDEFGH-ns/svc/tcp/',
      'meta l4proto tcp dnat to 10.180.0.1:80',
      'meta l4proto udp dnat ip to 10.180.0.1:80',
      'meta l4proto sctp dnat ip6 to [fd00:10:180::1]:080',
      'meta l4proto tcp dnat to [fd00::1.2.3.4]:80',
      'meta l4proto tcp dnat to 10.180.0.1',
      'meta l4proto tcp dnat to 10.180.0.1:80 fully-random',
      'meta l4proto tcp dnat to 10.180.0.1:80-90',
      'meta l4proto tcp dnat to 1234.1.1.1:80',
      'meta l4proto and dnat to 10.180.0.1:80',
      'update @affinity-x { ip saddr }',
      'add @affinity-x { ip6 saddr }',
      'update @affinity-x { ip saddr timeout 3h }',
      'update @affinity-x { ip saddr } counter',
      'numgen random mod 2 vmap { 0 : goto a, 1 : goto b }',
      'numgen random mod 2 vmap { 0 : goto a , 1 : jump b }',
      'numgen inc mod 3 offset 1 vmap { 0-1 : goto a, 2 : goto b/ }',
      'numgen random mod 02 vmap { 0 : goto a, 1 : drop }',
      'numgen random mod 2 vmap { 0 : goto a, 1 : goto b, }',
      'numgen random mod 2 vmap @m',
      'numgen random mod 2 vmap { 0 : goto a,1 : goto b }',
    ];
    comparePeeks(inChain(rules));
    comparePeeks(rules.map((r) => `add rule ip t c ${r}`).join('\n'));
    // One line may hold several rules.
    comparePeeks(`table ip t { chain c { ${rules.join('; ')} ; }; }`);
  });

  it('on randomised lines', () => {
    const word = fc.constantFrom(
      'ip',
      'ip6',
      'saddr',
      'daddr',
      '!=',
      '!',
      '==',
      'jump',
      'goto',
      'comment',
      '"x"',
      '"a#b"',
      '"',
      'meta',
      'l4proto',
      'tcp',
      'udp',
      'dnat',
      'to',
      'update',
      'add',
      '{',
      '}',
      ',',
      ':',
      ' , ',
      'numgen',
      'random',
      'inc',
      'mod',
      'offset',
      'vmap',
      'accept',
      'drop',
      'counter',
      'fully-random',
      'fib',
      '10.0.0.1',
      '10.0.0.0/8',
      '10.0.0.0/08',
      '1.2.3.4-1.2.3.9',
      '256.1.1.1',
      'fd00::1',
      'fd00::/64',
      'fd00:',
      '::1',
      'a:b:c',
      '10.0.0.1:80',
      '[fd00::1]:80',
      '[fd00::1]',
      ':80',
      '80',
      '0',
      '1-2',
      '0x1',
      '@s',
      '@affinity-x/y',
      '@th,16,16',
      '@s-',
      'x',
      'a.-',
      'x+y',
      'n/',
      'type',
      'and',
      'eq',
      'endpoint-A__1.2.3.4/80',
    );
    const sep = fc.constantFrom(...new Array<string>(30).fill(' '), '  ', '\t', '');
    const shape = fc.constantFrom(
      ['ip', 'daddr', '10.96.0.1', 'ip', 'saddr', '!=', '10.0.0.0/8', 'jump', 'mark-for-masquerade'],
      ['ip6', 'saddr', '@affinity-x', 'goto', 'endpoint-x'],
      ['meta', 'l4proto', 'tcp', 'dnat', 'to', '10.0.0.1:80'],
      ['update', '@affinity-x', '{', 'ip', 'saddr', '}'],
      ['numgen', 'random', 'mod', '2', 'vmap', '{', '0', ':', 'goto', 'a,', '1', ':', 'goto', 'b', '}'],
      ['ip', 'saddr', '10.0.0.0/8', 'goto', 'service-x', 'comment', '"short-circuit pod traffic"'],
    );
    // kube-proxy's shapes with a few words replaced, inserted or dropped, and random word lists.
    const edited = fc.tuple(shape, fc.array(fc.tuple(fc.nat(), fc.nat(2), word), { maxLength: 3 })).map(([words, edits]) => {
      const out: string[] = [...words];
      for (const [at, op, w] of edits) {
        const i = at % (out.length + 1);
        if (op === 0) out.splice(i, 0, w);
        else if (op === 1) out.splice(i, 1, w);
        else out.splice(i, 1);
      }
      return out;
    });
    const rule = fc
      .oneof(edited, fc.array(word, { minLength: 1, maxLength: 12 }))
      .chain((words) => fc.array(sep, { minLength: words.length, maxLength: words.length }).map((seps) => words.map((w, i) => (i === 0 ? w : seps[i] + w)).join('')));
    let peeked = 0;
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 4 }), (rules) => {
        peeked += comparePeeks(inChain(rules)).peeked;
      }),
      { numRuns: 1500, seed: 8 },
    );
    expect(peeked).toBeGreaterThan(200);
  });
});

// The regular expression parseNftServiceObjectName used before it was written out by hand.
const OBJECT_NAME = /^(service|local|external|firewall|endpoint|affinity)-([A-Z2-7]{8})-(.+)$/;
function parseWithRegExp(objectName: string): NftServiceObjectName | undefined {
  const m = OBJECT_NAME.exec(objectName);
  if (!m) return undefined;
  const kind = m[1] as NftServiceObjectKind;
  const hashed = m[3]!;
  const truncated = hashed.endsWith('...') && objectName.length - NFT_OBJECT_PREFIX[kind].length === 240;
  const [servicePart, endpointPart] = hashed.split('__', 2) as [string, string | undefined];
  const parts = servicePart.split('/');
  if (parts.length !== 4) return undefined;
  const [namespace, name, protocol, portName] = parts as [string, string, string, string];
  if (!namespace || !name || !/^(tcp|udp|sctp)$/.test(protocol)) return undefined;
  if ((kind === 'endpoint' || kind === 'affinity') !== (endpointPart !== undefined)) return undefined;
  const out: NftServiceObjectName = { kind, hash: m[2]!, hashed, namespace, name, protocol, portName, truncated };
  if (endpointPart !== undefined) {
    const slash = endpointPart.lastIndexOf('/');
    const port = Number(endpointPart.slice(slash + 1));
    const text = endpointPart.slice(0, slash);
    const parts4 = text.split('.');
    const address = parts4.length === 4 && parts4.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255) ? text : text.replace(/\./g, ':');
    if (slash > 0 && Number.isInteger(port)) out.endpoint = { address, port };
    else if (!truncated) return undefined;
  }
  return out;
}

describe('kube-proxy object names', () => {
  const names: string[] = [];
  for (const family of ['ipv4', 'ipv6'] as const) {
    const services = randomServices(20, 3, 4);
    const text = generateNftDump({ services: family === 'ipv6' ? ipv6Variant(services) : services, family, style: 'nft-list-ruleset' });
    for (const m of text.matchAll(/(?:chain|set) (\S+) \{/g)) names.push(m[1]!);
  }
  const long = `endpoint-ABCDEFGH-${'n'.repeat(200)}/svc/tcp/p__10.0.0.1/80`;
  names.push(long, long.slice(0, 237 + 9) + '...', 'service-ABCDEFGH-a/b/tcp/', 'service-ABCDEFG1-a/b/tcp/', 'local-ABCDEFGH-a/b/udp/x\n', 'affinity-ABCDEFGH-a/b/sctp/p__fd00..1/0');

  it('the hand-written parser gives what the regular expression did', () => {
    for (const name of names) expect(parseNftServiceObjectName(name), name).toStrictEqual(parseWithRegExp(name));
    const piece = fc.constantFrom(
      'service-',
      'endpoint-',
      'affinity-',
      'local-',
      'external-',
      'firewall-',
      'ABCDEFGH-',
      'ABCD2345-',
      'abcdefgh-',
      '/',
      '//',
      '__',
      '___',
      '_',
      'tcp',
      'udp',
      'sctp',
      'TCP',
      'ns',
      'svc',
      'p80',
      '10.0.0.1',
      '1.2.3.256',
      'fd00..1',
      '.',
      '/80',
      '/x',
      '80',
      '...',
      '-',
      '\n',
      '\u2028',
      ' ',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const name = pieces.join('');
        expect(parseNftServiceObjectName(name)).toStrictEqual(parseWithRegExp(name));
      }),
      { numRuns: 5000, seed: 3 },
    );
    const mutated = fc.tuple(fc.constantFrom(...names), fc.nat(), fc.nat(3), piece).map(([name, at, cut, p]) => {
      const i = at % (name.length + 1);
      return name.slice(0, i) + p + name.slice(i + cut);
    });
    fc.assert(
      fc.property(mutated, (name) => {
        expect(parseNftServiceObjectName(name)).toStrictEqual(parseWithRegExp(name));
      }),
      { numRuns: 5000, seed: 4 },
    );
  });

  it('nftServiceObjectKind and nftObjectNameHashOk answer what the parsed name does', () => {
    const check = (name: string) => {
      const parsed = parseNftServiceObjectName(name);
      const kind = nftServiceObjectKind(name);
      expect(kind, name).toBe(parsed?.kind);
      if (parsed && kind) expect(nftObjectNameHashOk(name, kind), name).toBe(nftObjectHashOk(parsed));
    };
    // Names whose hash matches, and ports Number() reads in other ways.
    const hashed = ['ns/svc/tcp/p__10.0.0.1/80', 'ns/svc/udp/__fd00..1/0', 'a/b/sctp/x__1.2.3.4/'];
    const odd = ['/ 8', '/0x10', '/1e3', '/8.0', '/8.5', '/-1', '/+2', '/1234567890', '/12345678901234567890', '/x', '/', '/8 '];
    for (const text of [...hashed, ...odd.map((p) => `ns/svc/tcp/p__10.0.0.1${p}`)]) {
      for (const prefix of ['endpoint-', 'affinity-']) check(`${prefix}${nftHash8(text)}-${text}`);
    }
    for (const name of names) check(name);
    const piece = fc.constantFrom(
      'service-',
      'endpoint-',
      'affinity-',
      'local-',
      'external-',
      'firewall-',
      'ABCDEFGH-',
      'ABCD2345-',
      '/',
      '//',
      '__',
      '_',
      'tcp',
      'udp',
      'sctp',
      'ns',
      'p80',
      '10.0.0.1',
      '.',
      '/80',
      '/ 8',
      '/0x1',
      '/1e2',
      '/8.0',
      '/-1',
      '80',
      '...',
      '-',
      '\n',
      ' ',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => check(pieces.join(''))),
      { numRuns: 5000, seed: 5 },
    );
    const mutated = fc.tuple(fc.constantFrom(...names), fc.nat(), fc.nat(3), piece).map(([name, at, cut, p]) => {
      const i = at % (name.length + 1);
      return name.slice(0, i) + p + name.slice(i + cut);
    });
    fc.assert(fc.property(mutated, check), { numRuns: 5000, seed: 6 });
  });

  it('nftEndpointNameShows answers what comparing the name’s end with the endpoint’s text does', () => {
    const shows = (name: string, address: string, port: number) => {
      const written = address.replace(/:/g, '.');
      if (written === '' || written.includes('_') || written.includes('/')) return false;
      const tail = `__${written}/${port}`;
      return name.endsWith(tail) && name.indexOf('__') === name.length - tail.length && endpointAddressFromName(written) === address;
    };
    const endpoints: [string, number][] = [
      ['10.0.0.1', 80],
      ['10.0.0.1', 8],
      ['0.0.0.1', 80],
      ['fd00::1', 0],
      ['fd00..1', 0],
      ['1:2:3:4', 80],
      ['1.2.3.4', 80],
      ['x', 80],
      ['', 80],
      ['10.0.0.1', NaN],
      ['10.0.0.1', 1.5],
    ];
    const names2 = [
      'endpoint-ABCDEFGH-a/b/tcp/p__10.0.0.1/80',
      'endpoint-ABCDEFGH-a/b/tcp/p__10.0.0.1/8',
      'x__10.0.0.1/80',
      '__10.0.0.1/80',
      '10.0.0.1/80',
      'a__b__10.0.0.1/80',
      'a__fd00..1/0',
      'a__1.2.3.4/80',
      'a__x/80',
      'a__10.0.0.1/NaN',
      'a__10.0.0.1/1.5',
      'a__10.0.0.1x80',
    ];
    for (const name of [...names, ...names2]) for (const [address, port] of endpoints) expect(nftEndpointNameShows(name, address, port), `${name} ${address} ${port}`).toBe(shows(name, address, port));
    const piece = fc.constantFrom('__', '_', '/', '10.0.0.1', 'fd00..1', '1.2.3.4', '.', ':', '80', '8', '0', 'x', 'a');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.constantFrom(...endpoints), (pieces, [address, port]) => {
        const name = pieces.join('');
        expect(nftEndpointNameShows(name, address, port)).toBe(shows(name, address, port));
      }),
      { numRuns: 5000, seed: 7 },
    );
  });

  it('nftEndpointNameShows answers true only for the endpoint the name parses to, and does so for kube-proxy’s names', () => {
    const endpoints = names.flatMap((n) => (parseNftServiceObjectName(n)?.endpoint ? [parseNftServiceObjectName(n)!.endpoint!] : []));
    endpoints.push({ address: '1:2:3:4', port: 80 }, { address: '1.2.3.4', port: 8 }, { address: '', port: 80 }, { address: 'a_b', port: 1 }, { address: 'a/b', port: 1 });
    let shown = 0;
    for (const name of names) {
      const parsed = parseNftServiceObjectName(name);
      if (!parsed) continue;
      if (parsed.endpoint && !parsed.truncated) expect(nftEndpointNameShows(name, parsed.endpoint.address, parsed.endpoint.port), name).toBe(true);
      for (const e of endpoints) {
        if (!nftEndpointNameShows(name, e.address, e.port)) continue;
        shown++;
        expect(parsed.endpoint, name).toStrictEqual(e);
      }
    }
    expect(shown).toBeGreaterThan(50);
  });
});
