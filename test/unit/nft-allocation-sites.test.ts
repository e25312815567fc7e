// Issue 8 (peak memory): the nft parser makes the objects that are dropped soon (a LazyRule's readings, tokens of
// one line) at allocation sites of their own, so V8 does not pretenure them with the ones the model keeps; and a
// line that is one whole unit becomes the unit without a copy. None of this may change a single value: these
// tests compare each variant with the plain one.
import { describe, expect, it } from 'vitest';
import { randomServices } from '../../tools/generate/iptables';
import { generateNftDump, ipv6Variant, type NftGenOptions } from '../../tools/generate/nft';
import { fastLexLine } from '../../src/core/parse/nft/accelerators/fast-lex';
import { NFT_ACCELERATORS, parseNft } from '../../src/core/parse/nft/parser';
import { NftTextBuilder } from '../../src/core/parse/nft/reference';
import { KEPT_RANGES, SHORT_LIVED_RANGES } from '../../src/core/parse/nft/statements';
import { LineStarts, splitLines } from '../../src/core/parse/lines';

const GENERATED: [string, NftGenOptions][] = [
  ['seed 3', { services: randomServices(40, 4, 3), style: 'nft-list-ruleset' }],
  ['IPv6 seed 6', { services: ipv6Variant(randomServices(30, 3, 6)), family: 'ipv6', style: 'nft-list-ruleset' }],
  ['seed 8, nft -f commands', { services: randomServices(30, 3, 8), style: 'nft-cmds' }],
];

/** Lines whose units start, continue or end around the "line is the unit" shortcut of the builder. */
const TRICKY = [
  'table ip t {\n\tchain c {\n\t\tip daddr { 10.0.0.3,\n\t\t\t10.0.0.4 } drop\n\t\tip saddr 1.2.3.4 accept\n\t}\n}',
  'table ip t {\n\tchain c {\n\t\tip saddr "open accept\n\t\tip saddr 1.2.3.4 accept\n\t\ttcp dport ( 22 ) accept\n\t\tip saddr 1.2.3.5 drop; ip saddr 1.2.3.6 drop\n\t}\n}',
  'table ip t {\n\tchain c {\n\t\tip saddr ( 1.2.3.4\n\t\tip saddr 1.2.3.4 ) accept\n\t\t# only a comment\n\n\t\tip saddr 1.2.3.7 accept # handle 9\n\t}\n}',
  'table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = { 10.0.0.1,\n\t\t\t10.0.0.2 }\n\t}\n\tchain c {\n\t\tip saddr @s accept\n\t\tip saddr @s numgen random mod 2 vmap { 0 : goto c, 1 : drop }\n\t}\n}\n}',
  'table ip t {\n\tchain c {\n\t\tip daddr { 10.0.0.1,\n\ttable ip u {\n\tchain d {\n\t\tip saddr 10.0.0.9 accept\n\t}\n}',
  'add table ip t\nadd chain ip t c\nadd rule ip t c ip saddr 10.0.0.1 accept\nadd rule ip t c ip saddr { 10.0.0.2,\n\t10.0.0.3 } accept\nadd element ip t s { 10.0.0.4 }',
];

describe('nft allocation-site variants give the same values', () => {
  it('tokens made to outlive their line equal the ones made for one line', () => {
    const texts = [...GENERATED.map(([, o]) => generateNftDump(o)), ...TRICKY];
    for (const text of texts) {
      for (const [n, line] of splitLines(text).entries()) {
        const short = fastLexLine(line, new Map(), n);
        const held = fastLexLine(line, new Map(), n, 0, line.length, true);
        expect(held, line).toStrictEqual(short);
      }
    }
  });

  it('ranges made as short-lived equal kept ones', () => {
    const tokens = fastLexLine('\tip daddr { 10.0.0.1, 10.0.0.2 } accept', undefined, 4)!.tokens;
    const kept = tokens.map((t) => KEPT_RANGES.item({ ...t }));
    const keptSpan = KEPT_RANGES.items(
      tokens.map((t) => ({ ...t })),
      1,
      4,
    );
    expect(tokens.map((t) => SHORT_LIVED_RANGES.item({ ...t }))).toStrictEqual(kept);
    expect(
      SHORT_LIVED_RANGES.items(
        tokens.map((t) => ({ ...t })),
        1,
        4,
      ),
    ).toStrictEqual(keptSpan);
    expect(SHORT_LIVED_RANGES.between(kept[0].start, kept[2].end)).toStrictEqual({ start: kept[0].start, end: kept[2].end });
    expect(SHORT_LIVED_RANGES.simpleVerdict('drop')).toStrictEqual(KEPT_RANGES.simpleVerdict('drop'));
  });

  it('a parse reading everything as short-lived gives the model of a normal parse', () => {
    for (const text of [...GENERATED.map(([, o]) => generateNftDump(o)), ...TRICKY]) {
      const normal = parseNft(text);
      // A builder starting short-lived stays so: each switch back restores what it started with.
      const builder = new NftTextBuilder(text, new LineStarts(text), true, true);
      builder.sites = SHORT_LIVED_RANGES;
      let shortLived;
      try {
        shortLived = builder.build(NFT_ACCELERATORS);
      } finally {
        builder.release();
      }
      expect(shortLived, text.slice(0, 60)).toStrictEqual(normal);
    }
  });

  it('lines that are one whole unit give the model of the full parser', () => {
    for (const text of TRICKY) {
      const fast = parseNft(text);
      const full = parseNft(text, { fastPath: false });
      expect(fast.diagnostics, text).toStrictEqual(full.diagnostics);
      expect(fast, text).toStrictEqual(full);
    }
  });
});
