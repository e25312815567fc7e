// Two nft parses may interleave (the extension reads a document's rules again while another document is parsed, a
// worker parses while hovers read): all that a parse changes is its own builder's and its LazyRules' document's.
// These tests run one parse inside another (an accelerator that parses a second text at every 13th line of the first),
// read each text's LazyRules in between, and compare everything with the parses made one after the other.
import { describe, expect, it } from 'vitest';
import type { NftRule, NftRuleset } from '../../src/core/model/nft';
import { LineStarts } from '../../src/core/parse/lines';
import type { Accelerator } from '../../src/core/parse/pipeline';
import { LazyRule } from '../../src/core/parse/nft/nodes';
import { NFT_ACCELERATORS, parseNft } from '../../src/core/parse/nft/parser';
import { NftTextBuilder } from '../../src/core/parse/nft/reference';
import type { NftTextSink } from '../../src/core/parse/nft/text-sink';
import { randomServices } from '../../tools/generate/iptables';
import { generateNftDump } from '../../tools/generate/nft';
import { plainModel } from '../helpers/model-plain';

const A = generateNftDump({ services: randomServices(8, 3, 11), style: 'nft-list-ruleset' });
const B = generateNftDump({ services: randomServices(6, 2, 12), style: 'nft-cmds' });
// Unclosed groups and blocks keep units open across lines when the other parse runs.
const C =
  'table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = { 10.0.0.1,\n\t\t\t10.0.0.2,\n\t\t\t10.0.0.3 }\n\t}\n\tchain c {\n\t\tip saddr @s jump d\n\t\tip daddr { 10.1.0.1,\n\t\t\t10.1.0.2 } drop\n\t}\n\tchain d {\n\t\tip saddr 1.2.3.4 accept\n\t}\n';

function rulesOf(model: NftRuleset): NftRule[] {
  return model.tables.flatMap((t) => t.chains.flatMap((c) => c.rules));
}

/** Each rule's statements as plain data (a LazyRule reads them again). */
function statementsOf(model: NftRuleset): unknown[] {
  return rulesOf(model).map((r) => plainModel(r.statements));
}

/** Parses `text` (accelerators on or off) running `inside` before every `every`-th line. */
function parseWith(text: string, fast: boolean, every: number, inside: () => void): NftRuleset {
  const interrupt: Accelerator<NftTextSink> = (_text, _start, _end, sink) => {
    if (sink.line % every === 0) inside();
    return false;
  };
  const builder = new NftTextBuilder(text, new LineStarts(text), fast, fast);
  try {
    return builder.build([interrupt, ...(fast ? NFT_ACCELERATORS : [])]);
  } finally {
    builder.release();
  }
}

describe('nft parses that interleave', () => {
  for (const fast of [true, false]) {
    it(`a parse inside another changes neither model (accelerators ${fast ? 'on' : 'off'})`, () => {
      for (const [outer, inner] of [
        [A, B],
        [C, A],
        [B, C],
      ]) {
        const expectedOuter = parseNft(outer, { accelerators: fast ? 'on' : 'off' });
        const expectedInner = parseNft(inner, { accelerators: fast ? 'on' : 'off' });
        const innerModels: NftRuleset[] = [];
        const outerModel = parseWith(outer, fast, 13, () => {
          const model = parseNft(inner, { accelerators: fast ? 'on' : 'off' });
          // Read the inner text's rules again while the outer parse is between lines.
          statementsOf(model);
          innerModels.push(model);
        });
        expect(innerModels.length).toBeGreaterThan(0);
        expect(plainModel(outerModel)).toStrictEqual(plainModel(expectedOuter));
        expect(statementsOf(outerModel)).toStrictEqual(statementsOf(expectedOuter));
        for (const model of [innerModels[0], innerModels[innerModels.length - 1]]) {
          expect(plainModel(model)).toStrictEqual(plainModel(expectedInner));
          expect(statementsOf(model)).toStrictEqual(statementsOf(expectedInner));
        }
      }
    });
  }

  it("re-reading a text's rules keeps its readings when another text is parsed in between", () => {
    const a = parseNft(A);
    const lazy = rulesOf(a).filter((r): r is LazyRule => r instanceof LazyRule);
    expect(lazy.length).toBeGreaterThan(10);
    const rule = lazy[lazy.length - 1];
    const first = rule.statements;
    parseNft(B);
    for (const other of rulesOf(parseNft(C))) void other.statements;
    // The reading is A's (its ring of last readings), not dropped by the other parse or displaced by its rules.
    expect(rule.statements).toBe(first);
  });

  it('rules of two texts read alternately give what each gives alone', () => {
    const a = parseNft(A);
    const b = parseNft(B);
    const aloneA = statementsOf(parseNft(A));
    const aloneB = statementsOf(parseNft(B));
    const rulesA = rulesOf(a);
    const rulesB = rulesOf(b);
    const readA: unknown[] = [];
    const readB: unknown[] = [];
    for (let k = 0; k < Math.max(rulesA.length, rulesB.length); k++) {
      if (k < rulesA.length) readA.push(plainModel(rulesA[k].statements));
      if (k < rulesB.length) readB.push(plainModel(rulesB[k].statements));
    }
    expect(readA).toStrictEqual(aloneA);
    expect(readB).toStrictEqual(aloneB);
  });
});
