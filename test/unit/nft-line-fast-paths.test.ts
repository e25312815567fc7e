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
    [
      'redeclared, deleted, renamed, flushed ruleset',
      'table ip t {\n\tchain a {\n\t}\n\tchain a {\n\t}\n}\ndelete chain ip t a\ntable ip t {\n\tchain a {\n\t}\n}\nrename chain ip t a b\ntable ip t {\n\tchain a {\n\t}\n\tchain b {\n\t}\n}\nflush ruleset\ntable ip t {\n\tchain a {\n\t\tjump b\n\t}\n\tchain b {\n\t}\n}\n',
    ],
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
    [
      'affinity sets and map headers',
      'table ip t {\n\tset affinity-ABCDEFGH-ns/svc/tcp/p__10.0.0.1/80 {\n\t\ttype ipv4_addr\n\t\tsize 65535\n\t\tflags dynamic,timeout\n\t\ttimeout 3h\n\t}\n\tmap m {\n\t\ttype ipv4_addr : verdict\n\t}\n\tset a {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t\tflags constant\n\t\ttimeout 1d2h3m4s\n\t\tsize 1\n\t\tsize 2\n\t}\n\tset b {\n\t}\n\tset a {\n\t}\n}\nadd set ip t a { type ipv4_addr; }\ntable ip t {\n\tset a {\n\t\ttimeout 2h\n\t}\n}\n',
    ],
    [
      'set line near misses',
      'define t = 3h\ntable ip t {\n\tset s {\n\t\tsize 0x10\n\t\tsize 1k\n\t\tsize\n\t\tsize  5\n\t\tsize 5 \n\t\tsize 5 # c\n\t\tsize -1\n\t\ttimeout 3h 2m\n\t\ttimeout "x"\n\t\ttimeout $t\n\t\ttimeout type\n\t\ttimeout\n\t\tflags a,,b\n\t\tflags ,a\n\t\tflags a, b\n\t\tflags a b\n\t\tpolicy memory\n\t\tgc-interval 5s\n\t\tcomment "x"\n\t\tauto-merge\n\t} # handle 3\n\tset s2 {\n\t\ttype ipv4_addr\n\t};\n\tset s3 {\n\t }\n\tmap m {\n\t\ttype ipv4_addr\n\t\tsize 5\n\t}\n\tmeter mt {\n\t\tsize 5\n\t}\n}\n',
    ],
    [
      'set headers it leaves alone',
      'table ip t {\n\tset "q" {\n\t}\n\tset type {\n\t}\n\tset a b {\n\t}\n\tset c {}\n\tset d { type ipv4_addr\n\t}\n\tset  e {\n\t}\n\tset f { # handle 9\n\t}\n\tset $v {\n\t}\n\tmap g {\n\t}\n\tset {\n\t}\n}\nset x {\n}\n',
    ],
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
    [
      'near misses',
      '\t\tnumgen random mod 2 vmap { 0 : goto a, 1 : drop }\n\t\tnumgen random mod 2 vmap { 0 : goto a, }\n\t\tnumgen random mod 2 vmap { 0 : goto a,1 : goto b }\n\t\tnumgen random mod 2 vmap {0 : goto a}\n\t\tnumgen random mod x vmap { 0 : goto a }\n\t\tnumgen random mod 2 vmap { 0 : goto a } \n\t\tnumgen random mod 2 vmap { 0 : goto a } counter\n\t\tnumgen random mod 2  vmap { 0 : goto a }\n\t\tnumgen random mod 2 vmap { 0 : goto type }\n\t\tnumgen random mod 2 vmap { 0 : goto "a" }\n\t\tnumgen random mod 2 vmap { x : goto a }\n\t\tnumgen random mod 2 vmap { 0 : goto $v }\n\t\tnumgen random mod 2 vmap { 0 : goto a } # handle 5\n\t\tnumgen random mod 2 vmap { 0 : goto a ; }\n\t\tnumgen inc mod 2 vmap { 0 : goto a }\n\t\tnumgen random mod 2 vmap { 0 : goto [a] }',
    ],
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

describe('nft element list lines', () => {
  // The elements' ranges are kept as numbers and made when read: compared here, as the model comparison does not see them.
  const elements = (r: ReturnType<typeof parseNft>) =>
    r.tables.flatMap((tb) =>
      [...tb.sets, ...tb.maps].flatMap((s) =>
        s.elements.map((e) => [s.name, e.key, e.comment, e.value, e.range, e.keyRange, e.valueRange, e.value && typeof e.value !== 'string' && 'chainRange' in e.value ? e.value.chainRange : undefined]),
      ),
    );
  const sameElements = (text: string) => {
    const r = same(text);
    expect(elements(r), text).toStrictEqual(elements(parseNft(text, { fastPath: false })));
    expect(r.symbols.allReferences().map((x) => [x.name, x.range, x.role])).toStrictEqual(
      parseNft(text, { fastPath: false })
        .symbols.allReferences()
        .map((x) => [x.name, x.range, x.role]),
    );
    return r;
  };
  const inMap = (lines: string) => `table ip t {\n\tchain c {\n\t}\n\tmap m {\n\t\ttype ipv4_addr . inet_proto . inet_service : verdict\n${lines}\n\t}\n\tset s {\n\t\ttype ipv4_addr\n\t}\n}\n`;

  it.each([
    [
      'kube-proxy maps',
      '\t\telements = { 10.0.0.1 . tcp . 80 : goto c,\n\t\t\t     10.0.0.2 . udp . 53 comment "ns/svc:dns" : goto reject-chain,\n\t\t\t     10.0.0.3 . sctp . 9 comment "ns/a-b:p" : drop,\n\t\t\t     10.0.0.4 . tcp . 1 : jump c }',
    ],
    ['two per line, one line', '\t\telements = { 10.0.0.1, 10.0.0.2,\n\t\t\t     10.0.0.3, 10.0.0.4,\n\t\t\t     10.0.0.5 }\n\t\telements = { 192.168.0.2 }'],
    [
      'keys of every kind',
      '\t\telements = { fd00::1 . tcp . 80 : accept, [fd00::2] . udp . 1-5 : return,\n\t\t\t     10.0.0.0/8 . tcp . 0x10 : continue, 10.0.0.1-10.0.0.9 . tcp . 8 : drop,\n\t\t\t     comment . type . elements : goto type, tcp . comment "" : goto elements }',
    ],
    ['comments holding what ends lists', '\t\telements = { 1 comment "a, b } # c : goto d" : goto c,\n\t\t\t     2 comment "é ü" : drop,\n\t\t\t     3 comment "x" }'],
    ['targets defined later or nowhere', '\t\telements = { 1 : goto later, 2 : goto nowhere, 3 : goto later }\n\t}\n\tchain later {'],
    [
      'a trailing comma, spaces, a last `}` alone',
      '\t\telements = { 1 : goto c, }\n\t\telements = { 1 : goto c,  2 : drop }\n\t\telements = {  1 : drop }\n\t\telements = { 1 : drop } \n\t\telements = { 1 : drop, \n\t\t\t2 : drop }\n\t\telements = { 1 : drop,\n\t\t}\n\t\telements = {1 : drop}\n\t\telements  = { 1 : drop }',
    ],
    [
      'values and options it leaves alone',
      '\t\telements = { 1 : queue }\n\t\telements = { 1 : 10.0.0.1 . 80 }\n\t\telements = { 1 : goto "c" }\n\t\telements = { 1 : goto $v }\n\t\telements = { 1 timeout 3s : drop }\n\t\telements = { 1 counter : drop }\n\t\telements = { 1 comment x : drop }\n\t\telements = { 1 comment "x" comment "y" : drop }\n\t\telements = { 1 : goto c d }\n\t\telements = { 1 : dropx }\n\t\telements = { "a" : drop }\n\t\telements = { $v : drop }\n\t\telements = { 1 | 2 : drop }\n\t\telements = { - 1 : drop }',
    ],
    [
      'what ends the line after the list',
      '\t\telements = { 1 : drop } # handle 4\n\t\telements = { 1 : drop }; comment "x"\n\t\telements = { 1 : drop } }\n\t\telements = $s\n\t\telements = { 1 : drop, # x\n\t\t\t2 : drop }',
    ],
    ['lines in the middle of a list', '\t\telements = { 1 : drop,\n\n\t\t\t2 : drop }\n\t\telements = { 1 : drop,\n\t\t\t# a comment\n\t\t\t2 : drop }\n\t\telements = { 1 : drop,\n\t\t\tcomment "x" : drop }'],
    ['a declaration ends a list left open', '\t\telements = { 1 : drop,\n\t\t\t     table . 1 : drop }\n\t\telements = { 1 : drop,\n\tchain d {\n\t}\n\tmap n {\n\t\telements = { 1 : drop,\n\t\t\t     add . 1 : drop }'],
    ['a list not closed at the end', '\t\telements = { 1 : drop,\n\t\t\t2 : drop,'],
  ])('%s', (_name, lines) => {
    sameElements(`define v = c\ndefine s = { 1 }\n${inMap(lines)}`);
  });

  it('in a set, a CRLF file and a file with NUL', () => {
    sameElements('table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = { 10.0.0.1, 10.0.0.2,\n\t\t\t     10.0.0.3 }\n\t}\n}\n');
    sameElements('table ip t {\r\n\tset s {\r\n\t\ttype ipv4_addr\r\n\t\telements = { 10.0.0.1, 10.0.0.2,\r\n\t\t\t     10.0.0.3 }\r\n\t}\r\n}\r\n');
    sameElements('table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = { 10.0.0.1, 10.0.0.2 }\n\t}\n}\n# \u0000\n');
  });

  it('reads the elements, their ranges and references', () => {
    const r = sameElements(inMap('\t\telements = { 10.0.0.1 . tcp . 80 comment "ns/svc:p" : goto c,\n\t\t\t     10.0.0.2 . tcp . 81 : drop }'));
    const [a, b] = r.tables[0].maps[0].elements;
    expect(a.key).toEqual(['10.0.0.1', 'tcp', '80']);
    expect(a.comment).toBe('ns/svc:p');
    expect(a.value).toMatchObject({ kind: 'goto', chain: 'c' });
    expect(a.range).toEqual({ start: { line: 5, character: 15 }, end: { line: 5, character: 62 } });
    expect(a.keyRange).toEqual({ start: { line: 5, character: 15 }, end: { line: 5, character: 34 } });
    expect(b.value).toEqual({ kind: 'drop' });
    expect(r.symbols.referencesTo('chain', 'ip t', 'c')).toHaveLength(1);
  });
});
