// The fast paths of the nft text parser (issue 8) must be invisible: the hand-written line scanner gives
// exactly Chevrotain's tokens, and a parse with the fast paths gives exactly the model of a parse without
// them (tables, chains, sets, maps, rules, statements, ranges, symbols, diagnostics), on generated kube-proxy
// dumps and on every nft text dump of the shared corpus.
import { readFileSync } from 'node:fs';
import type { IToken } from 'chevrotain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomServices } from '../../tools/generate/iptables';
import { generateNftDump, ipv6Variant, type NftGenOptions } from '../../tools/generate/nft';
import { lineLexer } from '../../src/core/parse/nft/lexer';
import { fastLexLine } from '../../src/core/parse/nft/accelerators/fast-lex';
import { parseNft } from '../../src/core/parse/nft/parser';
import { splitLines } from '../../src/core/parse/lines';
import { LazyRule } from '../../src/core/parse/nft/nodes';
import type { NftRuleset } from '../../src/core/model/nft';
import { plainNft } from '../helpers/model-plain';
import { expectSamePlain } from '../helpers/same-plain';
import { corpusFiles, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

/** What Chevrotain's lexer makes of a line, when it lexes it without errors. */
function chevrotainLine(line: string) {
  const lexed = lineLexer.tokenize(line);
  return { errors: lexed.errors.length, tokens: lexed.tokens, comment: lexed.groups.comments?.[0], comments: lexed.groups.comments?.length ?? 0 };
}

/** Lines the fast scanner took and lines where it disagrees with Chevrotain. */
function compareLexers(lines: readonly string[]): { taken: number; mismatches: string[] } {
  let taken = 0;
  const mismatches: string[] = [];
  // The fast tokens also carry the builder's line stamp and an empty range cache.
  const chevrotainShape = (t: IToken | undefined, line: number) => t && { ...t, startLine: line, r: undefined };
  for (const [n, line] of lines.entries()) {
    const fast = fastLexLine(line, new Map(), n);
    if (!fast) continue;
    taken++;
    const slow = chevrotainLine(line);
    try {
      expect(slow.errors).toBe(0);
      expect(slow.comments).toBeLessThanOrEqual(1);
      expect(fast.tokens).toStrictEqual(slow.tokens.map((t) => chevrotainShape(t, n)));
      expect(fast.comment).toStrictEqual(chevrotainShape(slow.comment, n));
    } catch {
      mismatches.push(line);
    }
  }
  return { taken, mismatches };
}

const GENERATED: [string, NftGenOptions][] = [
  ['seed 1', { services: randomServices(60, 4, 1), style: 'nft-list-ruleset' }],
  ['seed 7, 1 endpoint', { services: randomServices(80, 1, 7), style: 'nft-list-ruleset' }],
  ['seed 23, masquerade-all, nodePortAddresses all', { services: randomServices(60, 3, 23), style: 'nft-list-ruleset', masqueradeAll: true, nodePortAddresses: 'all' }],
  ['IPv6 seed 4', { services: ipv6Variant(randomServices(60, 3, 4)), family: 'ipv6', style: 'nft-list-ruleset' }],
  ['seed 5, nft -f commands', { services: randomServices(40, 3, 5), style: 'nft-cmds' }],
  ['seed 9, nft -f adds', { services: randomServices(40, 3, 9), style: 'nft-cmds', cmds: 'adds' }],
];

/** Each generated dump, made once for the three describes that read it. */
const dumps = new Map<string, string>();
const generated = (name: string, options: NftGenOptions): string => dumps.get(name) ?? dumps.set(name, generateNftDump(options)).get(name)!;

/** Hand-written lines and scripts around the edges of the scanner and of the plain-unit builder. */
const EDGES = [
  'table ip t {\n\tchain c {\n\t\ttype filter hook input priority filter; policy accept;\n\t\tip saddr { 10.0.0.1, 10.0.0.2 } ( tcp dport 22 ) accept\n\t}\n}',
  'table ip t {\n\tchain c {\n\t\tip saddr { 10.0.0.1; 10.0.0.2 } accept\n\t\tip daddr ( 1 } drop\n\t\ttcp dport ) accept\n\t}\n}',
  'table ip t {\n\tset s {\n\t\ttype ipv4_addr . inet_service\n\t\tflags interval,timeout\n\t\telements = { 10.0.0.0/8 . 80, 192.168.0.1-192.168.0.9 . 443 }\n\t}\n\tchain c {\n\t\tip saddr . tcp dport @s counter packets 0 bytes 0 accept # handle 3\n\t}\n}',
  'table ip6 t {\n\tchain c {\n\t\tip6 daddr [fd00::1] dnat to [fd00::2]:80\n\t\tip6 saddr fd00:10::/64 dnat ip6 to [fd00::1\n\t\tmeta l4proto tcp redirect to :8080\n\t}\n}',
  'define ports = { 22, 80 }\ntable inet t {\n\tchain c {\n\t\ttcp dport $ports accept\n\t\ttcp dport $undefined drop\n\t\t@th,16,16 0x50 accept\n\t\tmeta mark set mark and 0xff00 | 0x4000 return\n\t}\n}',
  'table ip t {\n\tchain c {\n\t\tip saddr "unterminated accept\n\t\tip saddr 1.2.3.4 ` drop\n\t\tip saddr @ drop\n\t\tdevices = { eth0 }\n\t}\n}\n}',
  'add table ip t\nadd chain ip t c { type nat hook prerouting priority dstnat - 10 ; }\nadd rule ip t c jump d\nadd chain ip t d\nadd rule ip t d ip daddr 10.0.0.1 tcp dport 80 dnat to 10.0.0.2:8080\ntypes ip t\ntypeof\ntype x y\nflagsx a',
  'table ip t {\n\tmap m {\n\t\ttype ipv4_addr : verdict\n\t\telements = { 10.0.0.1 comment "a/b:c" : goto x,\n\t\t\t     10.0.0.2 : drop }\n\t}\n\tchain x {\n\t}\n\tchain c {\n\t\tip daddr vmap @m\n\t\tnumgen random mod 2 vmap { 0 : goto x, 1 : goto x }\n\t\tct state established,related accept\n\t\tiifname != "lo" fib daddr type local drop\n\t}',
];

describe('nft fast line scanner', () => {
  it('takes every line of generated kube-proxy dumps and agrees with the Chevrotain lexer on each', () => {
    for (const [name, options] of GENERATED) {
      const lines = splitLines(generated(name, options));
      const { taken, mismatches } = compareLexers(lines);
      expect(mismatches, name).toEqual([]);
      expect(taken, name).toBe(lines.length);
    }
  });

  it('agrees with the Chevrotain lexer on hand-written edge cases and leaves lexer errors to it', () => {
    const lines = EDGES.flatMap((e) => splitLines(e));
    expect(compareLexers(lines).mismatches).toEqual([]);
    // Started at any token (and stopped before any later one), the scanner gives that part of the line's tokens.
    for (const [n, line] of lines.entries()) {
      const all = fastLexLine(line, undefined, n)?.tokens;
      if (!all) continue;
      for (let k = 0; k < all.length; k++) {
        for (const j of [k + 1, all.length]) {
          const to = j < all.length ? all[j].startOffset : line.length;
          expect(fastLexLine(line, undefined, n, all[k].startOffset, to)?.tokens, `${line} @${k}..${j}`).toStrictEqual(all.slice(k, j));
        }
      }
    }
    for (const bad of ['ip saddr "open', 'ip saddr @ drop', 'a ` b', 'x [::1 y', 'policy $', 'é', 'a\u00a0b', '# comment\u2028more', '# comment\rmore']) {
      expect(fastLexLine(bad, new Map()), bad).toBeUndefined();
    }
  });

  it('agrees with the Chevrotain lexer on random lines of nft-like pieces', () => {
    const piece = fc.constantFrom(
      ...['a', 'ip', 'type', 'typeof', 'types', 'device', 'devices', 'flags', 'elements', 'include', 'define', 'redefine', 'undefine', 'hook', 'priority', 'policy'],
      ...[':', '::', '.', '-', '+', '/', '[', ']', '[::1]', '[fd00::1]:80', '@', '@th,16,16', '@nh,0,8', '@set-1/x', '@$v', '$', '$var', '"', '"a b"', '#', '# c'],
      ...[' ', '\t', '{', '}', '(', ')', ';', ',', '=', '==', '!', '!=', '<', '<=', '<<', '>', '>=', '>>', '&', '|', '^', '*', '%', '~', '_'],
      ...['1', '0x10', '10.0.0.1', '10.0.0.0/8', '1024-65535', 'fd00', 'fd00::', 'x-', 'y/', 'é', '\u00a0', '\r', '\u2028', '`', "'"],
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 10 }), (parts) => {
        expect(compareLexers([parts.join('')]).mismatches).toEqual([]);
      }),
      { numRuns: 3000, seed: 8 },
    );
  });
});

describe('nft fast paths give the model of the full parser', () => {
  const same = (text: string, name: string) => {
    const fast = parseNft(text);
    const full = parseNft(text, { fastPath: false });
    // Through the getters: ranges kept packed in private fields are invisible to toStrictEqual (a chain's name
    // range one character longer on the fast path passed it).
    expectSamePlain(plainNft(fast), plainNft(full), name);
    try {
      expect(fast, name).toStrictEqual(full);
    } catch (whole) {
      // Compared whole once (each part again cost as much): on a difference, the part that differs, for a short diff.
      expect(fast.diagnostics, name).toStrictEqual(full.diagnostics);
      expect(fast.tables, name).toStrictEqual(full.tables);
      expect(fast.symbols, name).toStrictEqual(full.symbols);
      throw whole;
    }
    return fast;
  };

  it.each(GENERATED)('generated dump: %s', (name, options) => {
    const r = same(generated(name, options), name);
    expect(r.tables.flatMap((t) => t.chains).length).toBeGreaterThan(50);
  });

  it('hand-written edge cases (errors included)', () => {
    for (const text of EDGES) same(text, text.slice(0, 40));
    expect(parseNft(EDGES[1]).diagnostics.length).toBeGreaterThan(0);
  });

  it.skipIf(!HAVE_CORPUS)(`every nft text dump of the corpus (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
    const files = corpusFiles('nft', /json|\.tsv$|\.txt$|\.md$/);
    expect(files.length).toBeGreaterThan(100);
    for (const f of files) same(readFileSync(f, 'utf8'), f);
  });
});

describe('nft lazy rules (statements read again on demand) give the rules of an eager parse', () => {
  /** Every rule with what its getters give, and every symbol reference with its range. */
  const view = (r: NftRuleset) => ({
    rules: r.tables.flatMap((t) =>
      t.chains.flatMap((c) =>
        c.rules.map((rule) => ({ tableId: rule.tableId, chain: rule.chain, index: rule.index, raw: rule.raw, range: rule.range, handle: rule.handle, comment: rule.comment, statements: rule.statements })),
      ),
    ),
    references: r.symbols.references.map((x) => ({ kind: x.kind, name: x.name, scope: x.scope, role: x.role, range: x.range })),
    ruleLines: [...r.ruleByLine.keys()],
    diagnostics: r.diagnostics,
  });
  const same = (text: string, name: string): number => {
    const lazy = parseNft(text);
    const eager = parseNft(text, { lazyRules: false });
    const full = parseNft(text, { fastPath: false, lazyRules: false });
    const v = view(lazy);
    expect(v, name).toStrictEqual(view(eager));
    expect(v, name).toStrictEqual(view(full));
    // Asked twice (past the cache of recently read rules), a lazy rule gives equal statements again.
    const rules = lazy.tables.flatMap((t) => t.chains.flatMap((c) => c.rules));
    expect(
      rules.map((x) => x.statements),
      name,
    ).toStrictEqual(v.rules.map((x) => x.statements));
    expect(eager.tables.flatMap((t) => t.chains.flatMap((c) => c.rules)).some((x) => x instanceof LazyRule)).toBe(false);
    return rules.filter((x) => x instanceof LazyRule).length;
  };

  it.each(GENERATED)('generated dump: %s', (name, options) => {
    const lazyCount = same(generated(name, options), name);
    expect(lazyCount, name).toBeGreaterThan(100);
  });

  it('hand-written edge cases: rules with variables or over several lines stay eager', () => {
    for (const text of EDGES) same(text, text.slice(0, 40));
    const r = parseNft('define p = 22\ntable ip t {\n\tchain c {\n\t\ttcp dport $p accept\n\t\tip daddr { 10.0.0.3,\n\t\t\t10.0.0.4 } drop\n\t\tip daddr 1.2.3.4 counter accept comment "x" # handle 7\n\t}\n}');
    const rules = r.tables[0].chains[0].rules;
    expect(rules.map((x) => x instanceof LazyRule)).toEqual([false, false, true]);
    expect(rules[2]).toMatchObject({ raw: 'ip daddr 1.2.3.4 counter accept comment "x"', handle: 7, comment: 'x', index: 3, range: { start: { line: 6, character: 2 }, end: { line: 6, character: 45 } } });
    expect(rules[2].statements.map((s) => s.kind)).toEqual(['match', 'counter', 'verdict', 'comment']);
    // Several rules on one line (`;`): each is read again from its own columns only.
    const oneLine = 'table ip t {\n\tchain x {\n\t}\n\tchain c { ' + Array.from({ length: 50 }, (_, i) => `ip saddr 10.0.0.${i} tcp dport { 22, 80 } jump x`).join('; ') + ' }\n}\n';
    expect(same(oneLine, 'one line')).toBe(50);
    const c = parseNft(oneLine).tables[0].chainByName.get('c')!;
    expect(c.rules[49].raw).toBe('ip saddr 10.0.0.49 tcp dport { 22, 80 } jump x');
    expect(c.rules[49].statements.map((s) => s.text)).toEqual(['ip saddr 10.0.0.49', 'tcp dport { 22, 80 }', 'jump x']);
  });

  it.skipIf(!HAVE_CORPUS)(`every nft text dump of the corpus (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
    const files = corpusFiles('nft', /json|\.tsv$|\.txt$|\.md$/);
    expect(files.length).toBeGreaterThan(100);
    let lazy = 0;
    for (const f of files) lazy += same(readFileSync(f, 'utf8'), f);
    expect(lazy).toBeGreaterThan(1000);
  });
});
