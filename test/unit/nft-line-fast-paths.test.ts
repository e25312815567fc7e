// The line fast paths of the nft text parser (chain headers, the `}` closing a chain, `type`/`flags` of a set,
// the shared string of repeated jump targets) and the catalog's endpoint chains of alike hashes: each must give
// exactly what the general path gives, on the shapes it takes and on the near misses it must leave alone.
import { describe, expect, it } from 'vitest';
import { parseNft } from '../../src/core/parse/nft/parser';
import { buildNftCatalog } from '../../src/core/kube/nft-catalog';
import { analyzeNft } from '../../src/core/language/nft';

const same = (text: string) => {
  const fast = parseNft(text);
  const full = parseNft(text, { fastPath: false });
  expect(fast.diagnostics, text).toStrictEqual(full.diagnostics);
  expect(fast.tables, text).toStrictEqual(full.tables);
  expect(fast.symbols, text).toStrictEqual(full.symbols);
  expect(fast, text).toStrictEqual(full);
  // Ranges the chains make on demand (fullRange is set when the chain block closes).
  const ranges = (r: typeof fast) => r.tables.flatMap((tb) => tb.chains.map((c) => [c.name, c.range, c.nameRange, c.fullRange, c.rules.length]));
  expect(ranges(fast), text).toStrictEqual(ranges(full));
  return fast;
};

describe('nft chain header and closing-brace lines', () => {
  it.each([
    ['plain chains', 'table ip t {\n\tchain a {\n\t\tjump b\n\t}\n\n\tchain b {\n\t\taccept\n\t}\n}\n'],
    ['keyword and odd names', 'table ip t {\n\tchain type {\n\t}\n\tchain flags {\n\t}\n\tchain ct {\n\t}\n\tchain service-X/ns/svc/tcp/ {\n\t}\n\tchain "quoted" {\n\t}\n}\n'],
    ['spaces, tabs and trailing text', 'table ip t {\n  chain a  {\n  }\n\tchain b {  \n\t} \n\tchain c { # handle 4\n\t} # handle 4\n\tchain d {}\n\tchain e { accept\n\t}\n}\n'],
    ['a comment line closing nothing and `}` closing the table', 'table ip t {\n\tchain a {\n\t}\n}\n}\nchain x {\n'],
    ['a chain not closed before the next', 'table ip t {\n\tchain a {\n\t\taccept\n\tchain b {\n\t}\n}\n'],
    ['chain header outside a table and inside a set', 'chain a {\n}\ntable ip t {\n\tset s {\n\t\tchain b {\n\t}\n\t}\n}\n'],
    ['redeclared, deleted, renamed, flushed ruleset', 'table ip t {\n\tchain a {\n\t}\n\tchain a {\n\t}\n}\ndelete chain ip t a\ntable ip t {\n\tchain a {\n\t}\n}\nrename chain ip t a b\ntable ip t {\n\tchain a {\n\t}\n\tchain b {\n\t}\n}\nflush ruleset\ntable ip t {\n\tchain a {\n\t\tjump b\n\t}\n\tchain b {\n\t}\n}\n'],
    ['removed table declared again', 'table ip t {\n\tchain a {\n\t}\n}\ndelete table ip t\ntable ip t {\n\tchain a {\n\t}\n}\n'],
    ['rules referenced before their chains', 'add rule ip t a jump b\ntable ip t {\n\tchain a {\n\t}\n\tchain b {\n\t}\n}\n'],
    ['an element list left open', 'table ip t {\n\tset s {\n\t\telements = { 1.2.3.4,\n\tchain a {\n\t}\n}\n'],
  ])('%s', (_name, text) => {
    same(text);
  });

  it('gives the chain its full range from the header to the `}`', () => {
    const r = same('table ip t {\n\tchain a {\n\t\taccept\n\t}\n}\n');
    const chain = r.tables[0].chains[0];
    expect(chain.fullRange).toEqual({ start: { line: 1, character: 1 }, end: { line: 3, character: 2 } });
    expect(chain.nameRange).toEqual({ start: { line: 1, character: 7 }, end: { line: 1, character: 8 } });
    expect(r.symbols.definition('chain', 'ip t', 'a')?.fullRange).toEqual(chain.fullRange);
  });
});

describe('nft set type and flags lines', () => {
  it.each([
    ['set', 'table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\tflags dynamic,timeout\n\t\tsize 65535\n\t\ttimeout 3h\n\t}\n}\n'],
    ['map without data', 'table ip t {\n\tmap m {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t}\n}\n'],
    ['near misses', 'table ip t {\n\tset s {\n\t\ttype ipv4_addr . inet_service\n\t\tflags a,\n\t\tflags\n\t\tflags a b\n\t\tflags a,b,c\n\t\ttype\n\t\ttype "x"\n\t\ttype flags\n\t\tflags $f\n\t}\n}\n'],
    ['typeof and data', 'define f = interval\ntable ip t {\n\tmap m {\n\t\ttypeof ip saddr : verdict\n\t\tflags $f,timeout\n\t}\n\tset s {\n\t\ttype a : b\n\t}\n}\n'],
    ['flags of a table, chain and flowtable', 'table ip t {\n\tflags dormant\n\tchain c {\n\t\tflags offload\n\t}\n\tflowtable f {\n\t\tflags offload\n\t}\n}\n'],
  ])('%s', (_name, text) => {
    same(text);
  });
});

describe('nft jump targets', () => {
  it('the same target in another table, or after its chain is renamed, is that table’s', () => {
    const text =
      'table ip t {\n\tchain m {\n\t}\n\tchain a {\n\t\tip saddr 10.0.0.1 jump m\n\t\tip saddr 10.0.0.2 jump m\n\t}\n}\n' +
      'table ip u {\n\tchain a {\n\t\tip saddr 10.0.0.1 jump m\n\t}\n\tchain m {\n\t}\n}\n' +
      'rename chain ip t m n\ntable ip t {\n\tchain b {\n\t\tip saddr 10.0.0.3 jump m\n\t\tip saddr 10.0.0.3 goto m\n\t\tjump m\n\t}\n}\n';
    const r = same(text);
    expect(r.symbols.referencesTo('chain', 'ip t', 'm').length).toBeGreaterThanOrEqual(4);
    expect(r.symbols.referencesTo('chain', 'ip u', 'm').length).toBe(1);
  });
});

describe('nft catalog: endpoint chains whose hashes start alike', () => {
  it('tells apart endpoint chains whose hashes start alike', () => {
    // Hash mismatches are fine here (hints): the DNAT of each chain says which chain was found.
    const text = [
      'table ip kube-proxy {',
      '\tchain endpoint-AAAAAAB2-ns/svc/tcp/p__10.0.0.1/80 {',
      '\t\tmeta l4proto tcp dnat to 10.9.9.1:80',
      '\t}',
      '\tchain endpoint-AAAAAAC3-ns/svc/tcp/p__10.0.0.2/80 {',
      '\t\tmeta l4proto tcp dnat to 10.9.9.2:80',
      '\t}',
      '\tchain endpoint-AAAAAAXD-ns/svc/tcp/p__10.0.0.3/80 {',
      '\t\tmeta l4proto tcp dnat to 10.9.9.3:80',
      '\t}',
      '\tchain service-ZZZZZZZZ-ns/svc/tcp/p {',
      '\t\tnumgen random mod 4 vmap { 0 : goto endpoint-AAAAAAC3-ns/svc/tcp/p__10.0.0.2/80, 1 : goto endpoint-AAAAAAB2-ns/svc/tcp/p__10.0.0.1/80, 2 : goto endpoint-AAAAAAXD-ns/svc/tcp/p__10.0.0.3/80, 3 : goto endpoint-AAAAAAB7-ns/svc/tcp/p__10.0.0.4/80 }',
      '\t}',
      '}',
      '',
    ].join('\n');
    const catalog = buildNftCatalog(parseNft(text));
    expect(catalog.services).toHaveLength(1);
    const endpoints = catalog.services[0].endpoints.map((e) => [e.address, e.port, e.chain]);
    // The fourth target has no chain: its endpoint is read from its name.
    expect(endpoints).toEqual([
      ['10.0.0.4', 80, 'endpoint-AAAAAAB7-ns/svc/tcp/p__10.0.0.4/80'],
      ['10.9.9.1', 80, 'endpoint-AAAAAAB2-ns/svc/tcp/p__10.0.0.1/80'],
      ['10.9.9.2', 80, 'endpoint-AAAAAAC3-ns/svc/tcp/p__10.0.0.2/80'],
      ['10.9.9.3', 80, 'endpoint-AAAAAAXD-ns/svc/tcp/p__10.0.0.3/80'],
    ]);
    // Every endpoint chain is referenced: none is reported as stale.
    expect(catalog.diagnostics.filter((d) => d.code !== 'hash-mismatch' && d.code !== 'kube-endpoint-name-mismatch')).toEqual([]);
    const a = analyzeNft(text);
    expect(a.serviceByObject.byEndpointPart.get('ip kube-proxy')?.get('ns/svc/tcp/p')).toBe(a.catalog.services[0]);
  });
});

describe('nft numgen vmap lines', () => {
  it.each([
    ['plain', '\t\tnumgen random mod 3 vmap { 0 : goto a, 1 : jump b, 2 : goto c }'],
    ['one element', '\t\tnumgen random mod 1 vmap { 0 : goto a }'],
    ['ranges and addresses as keys', '\t\tnumgen random mod 4 vmap { 0-1 : goto a, 10.0.0.1 : goto b, tcp : goto c }'],
    ['names ending in - and /', '\t\tnumgen random mod 2 vmap { 0 : goto service-X/ns/svc/tcp/, 1 : goto b- }'],
    ['undefined targets', '\t\tnumgen random mod 2 vmap { 0 : goto nowhere, 1 : goto a }'],
    ['near misses', '\t\tnumgen random mod 2 vmap { 0 : goto a, 1 : drop }\n\t\tnumgen random mod 2 vmap { 0 : goto a, }\n\t\tnumgen random mod 2 vmap { 0 : goto a,1 : goto b }\n\t\tnumgen random mod 2 vmap {0 : goto a}\n\t\tnumgen random mod x vmap { 0 : goto a }\n\t\tnumgen random mod 2 vmap { 0 : goto a } \n\t\tnumgen random mod 2 vmap { 0 : goto a } counter\n\t\tnumgen random mod 2  vmap { 0 : goto a }\n\t\tnumgen random mod 2 vmap { 0 : goto type }\n\t\tnumgen random mod 2 vmap { 0 : goto "a" }\n\t\tnumgen random mod 2 vmap { x : goto a }\n\t\tnumgen random mod 2 vmap { 0 : goto $v }\n\t\tnumgen random mod 2 vmap { 0 : goto a } # handle 5\n\t\tnumgen random mod 2 vmap { 0 : goto a ; }\n\t\tnumgen inc mod 2 vmap { 0 : goto a }\n\t\tnumgen random mod 2 vmap { 0 : goto [a] }'],
  ])('%s', (_name, rules) => {
    const text = `define v = a\ntable ip t {\n\tchain a {\n\t}\n\tchain b {\n\t}\n\tchain c {\n${rules}\n\t}\n}\n`;
    const r = same(text);
    // As the lazy rules are read again, so are eager ones: equal statements either way.
    const eager = parseNft(text, { lazyRules: false });
    const rules_ = (x: typeof r) => x.tables[0].chains.flatMap((c) => c.rules.map((rule) => [rule.raw, rule.range, rule.statements, rule.handle]));
    expect(rules_(r)).toStrictEqual(rules_(eager));
    expect(r.symbols.allReferences().map((x) => [x.name, x.range, x.role])).toStrictEqual(eager.symbols.allReferences().map((x) => [x.name, x.range, x.role]));
  });
});
