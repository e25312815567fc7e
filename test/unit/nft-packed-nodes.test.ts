// The packed nodes of the nft text model (issue #8): ChainNode, ReferenceColumns, LazyRule, ElementNode and VerdictNode keep their ranges as a
// few numbers (or, when those do not fit, as copies) and must give back exactly the ranges they were given; a lazy
// rule reads its line from the whole document, whatever the line breaks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Range } from '../../src/core/model/range';
import { ChainDefinition, ChainNode, LazyRule } from '../../src/core/parse/nft/nodes';
import { readRange, storeRange } from '../../src/core/model/stored-ranges';
import { ReferenceColumns } from '../../src/core/model/reference-columns';
import { parseNft } from '../../src/core/parse/nft/parser';
import { ElementNode, VerdictNode } from '../../src/core/parse/nft/statements';
import { plainData } from '../../src/extension/analysis/plain';

const range = (sl: number, sc: number, el: number, ec: number): Range => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

// Columns around the packed limit (2^15) and lines of any size.
const column = fc.oneof(fc.nat(100), fc.integer({ min: 32_760, max: 32_775 }), fc.nat(2_000_000));
const line = fc.oneof(fc.nat(50), fc.nat(5_000_000));
const anyRange = fc.tuple(line, column, fc.nat(3), column).map(([sl, sc, dl, ec]) => range(sl, sc, sl + dl, ec));
/** A chain's usual ranges: declaration and name on one line, the block from the declaration on. */
const chainRanges = fc.tuple(line, column, column, column, column, fc.oneof(fc.nat(1000), fc.integer({ min: 32_760, max: 32_775 }), fc.nat(5_000_000)), column).map(([l, a, b, c, d, dl, e]) => ({
  decl: range(l, a, l, b),
  name: range(l, c, l, d),
  full: range(l, a, l + dl, e),
}));

describe('ChainNode', () => {
  it('gives back the ranges it was given, packed or not', () => {
    fc.assert(
      fc.property(fc.oneof(chainRanges, fc.record({ decl: anyRange, name: anyRange, full: anyRange })), anyRange, ({ decl, name, full }, other) => {
        const chain = new ChainNode('c', 'ip t', name, decl);
        expect([chain.range, chain.nameRange, chain.fullRange]).toEqual([decl, name, decl]);
        expect(chain.fullRangeIs(decl)).toBe(true);
        chain.fullRange = full;
        expect([chain.range, chain.nameRange, chain.fullRange]).toEqual([decl, name, full]);
        expect(chain.fullRangeIs(full)).toBe(true);
        expect(chain.fullRangeIs(other)).toBe(JSON.stringify(other) === JSON.stringify(full));
        // Each setter changes its own range only (a range that does not fit turns the node to copies and back).
        chain.nameRange = other;
        expect([chain.range, chain.nameRange, chain.fullRange]).toEqual([decl, other, full]);
        chain.nameRange = name;
        chain.range = other;
        expect([chain.range, chain.nameRange, chain.fullRange]).toEqual([other, name, full]);
        chain.range = decl;
        expect([chain.range, chain.nameRange, chain.fullRange]).toEqual([decl, name, full]);
      }),
      { numRuns: 400, seed: 8 },
    );
  });

  it('makes a new range on every read, which the caller may change', () => {
    const chain = new ChainNode('c', 'ip t', range(3, 8, 3, 9), range(3, 2, 3, 11));
    const r = chain.nameRange;
    expect(chain.nameRange).not.toBe(r);
    r.start.line = 99;
    expect(chain.nameRange).toEqual(range(3, 8, 3, 9));
    const wide = new ChainNode('c', 'ip t', range(3, 8, 4, 9), range(3, 2, 3, 11));
    const w = wide.nameRange;
    w.end.character = 0;
    expect(wide.nameRange).toEqual(range(3, 8, 4, 9));
  });

  it('has a definition whose ranges are the chain name and block, as a StoredDefinition had', () => {
    const chain = new ChainNode('c', 'ip t', range(3, 8, 3, 9), range(3, 2, 3, 11));
    const definition = new ChainDefinition('c', 'ip t', chain);
    expect(plainData(definition)).toEqual({ kind: 'chain', name: 'c', scope: 'ip t', range: range(3, 8, 3, 9), fullRange: range(3, 2, 3, 11) });
    definition.fullRange = range(3, 2, 9, 1);
    expect(chain.fullRange).toEqual(range(3, 2, 9, 1));
    expect(definition.fullRangeIs(range(3, 2, 9, 1))).toBe(true);
  });

  it('shares one frozen empty flags array until flags are given', () => {
    const { tables } = parseNft('table ip t {\n\tchain a {\n\t}\n\tchain b {\n\t\tflags offload\n\t}\n}\n');
    const [a, b] = tables[0].chains;
    expect(a.flags).toEqual([]);
    expect(Object.isFrozen(a.flags)).toBe(true);
    expect(b.flags).toEqual(['offload']);
  });
});

describe('ReferenceColumns', () => {
  it('give back each reference, its range packed or not, across chunks', () => {
    fc.assert(
      fc.property(fc.array(anyRange, { minLength: 1, maxLength: 40 }), fc.nat(9000), (ranges, skip) => {
        const columns = new ReferenceColumns();
        // Past the first chunk (8,192 entries) now and then.
        for (let k = 0; k < skip; k++) columns.push('chain', 'filler', 'ip t', 'jump', range(k, 0, k, 1));
        const first = columns.length;
        ranges.forEach((r, k) => columns.push(k % 2 ? 'set' : 'chain', `n${k}`, k % 3 ? 'ip t' : 'inet u', k % 2 ? 'lookup' : 'goto', r));
        ranges.forEach((r, k) => {
          const i = first + k;
          expect(columns.reference(i)).toEqual({ kind: k % 2 ? 'set' : 'chain', name: `n${k}`, scope: k % 3 ? 'ip t' : 'inet u', role: k % 2 ? 'lookup' : 'goto', range: r });
          expect(columns.line(i)).toBe(r.start.line);
          // A new object each time.
          expect(columns.range(i)).not.toBe(columns.range(i));
        });
      }),
      { numRuns: 60, seed: 9 },
    );
  });

  it('give back every kind and role, and a kind set later', () => {
    const kinds = ['chain', 'set', 'map', 'ipset', 'virtualService', 'table'] as const;
    const roles = ['jump', 'goto', 'command', 'rule-owner', 'lookup'] as const;
    const columns = new ReferenceColumns();
    for (const kind of kinds) {
      for (const role of roles) {
        const i = columns.push(kind, 'n', 'ip t', role, range(1, 2, 1, 3));
        expect([columns.kind(i), columns.role(i)]).toEqual([kind, role]);
        for (const later of kinds) {
          columns.setKind(i, later);
          expect([columns.kind(i), columns.role(i)]).toEqual([later, role]);
        }
      }
    }
    expect(() => columns.push('chain', 'n', 'ip t', 'other' as never, range(1, 2, 1, 3))).toThrow(RangeError);
    expect(() => columns.push('other' as never, 'n', 'ip t', 'jump', range(1, 2, 1, 3))).toThrow(RangeError);
  });

  it('are what the nft text parser keeps its references in: listed, found by name and by position', () => {
    const r = parseNft('table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t}\n\tchain a {\n\t\tip saddr @s jump b\n\t\tgoto b\n\t}\n\tchain b {\n\t}\n}\n');
    expect(r.symbols.references).toEqual([]);
    const all = r.symbols.allReferences();
    expect(all).toEqual([
      { kind: 'set', name: 's', scope: 'ip t', role: 'lookup', range: range(5, 12, 5, 13) },
      { kind: 'chain', name: 'b', scope: 'ip t', role: 'jump', range: range(5, 19, 5, 20) },
      { kind: 'chain', name: 'b', scope: 'ip t', role: 'goto', range: range(6, 7, 6, 8) },
    ]);
    expect(r.symbols.referencesTo('chain', 'ip t', 'b')).toEqual([all[1], all[2]]);
    expect(r.symbols.at({ line: 6, character: 7 })).toEqual({ type: 'reference', reference: all[2] });
    expect(r.symbols.resolve({ line: 5, character: 12 })?.name).toBe('s');
  });
});

describe('storeRange', () => {
  it('gives back the range it kept, packed or not, as a new object each time', () => {
    fc.assert(
      fc.property(anyRange, (r) => {
        const stored = storeRange(r);
        expect(typeof stored === 'number').toBe(r.start.line === r.end.line && r.start.character < 32_768 && r.end.character < 32_768);
        const back = readRange(r.start.line, stored);
        expect(back).toEqual(r);
        back.end.character = -1;
        expect(readRange(r.start.line, stored)).toEqual(r);
      }),
      { numRuns: 400, seed: 10 },
    );
  });
});

describe('pending references', () => {
  // The parser keeps them in chunks of 8,192 with their tables and commands as runs: every reference must still
  // be resolved in its own table, against its own command, in order.
  const special = [0, 1, 2, 8191, 8192, 8193, 8194, 16383, 16384, 16385, 19999];
  const count = 20_000;
  const tableOf = (k: number) => (k % 2 === 1 ? 'ip u' : 'ip t');
  const otherTable = (k: number) => (k % 2 === 1 ? 'ip t' : 'ip u');
  const targetOf = (k: number) => (!special.includes(k) ? 'c' : k % 3 === 0 ? `late${k}` : `elsewhere${k}`);

  it('in commands (one run per reference)', () => {
    const lines = ['add table ip t', 'add table ip u', 'add chain ip t a', 'add chain ip u a', 'add chain ip t c', 'add chain ip u c'];
    const ruleLine = new Map<number, number>();
    for (let k = 0; k < count; k++) {
      ruleLine.set(k, lines.length);
      lines.push(`add rule ${tableOf(k)} a jump ${targetOf(k)}`);
    }
    const definedOn = new Map<number, number>();
    for (const k of special) {
      definedOn.set(k, lines.length);
      lines.push(k % 3 === 0 ? `add chain ${tableOf(k)} late${k}` : `add chain ${otherTable(k)} elsewhere${k}`);
    }
    const r = parseNft(lines.join('\n'));
    const jumps = r.symbols.allReferences().filter((ref) => ref.role === 'jump');
    expect(jumps.map((ref) => [ref.scope, ref.name, ref.range.start.line])).toEqual([...Array(count).keys()].map((k) => [tableOf(k), targetOf(k), ruleLine.get(k)]));
    const found = r.diagnostics.filter((d) => d.code === 'undefined-chain' || d.code === 'defined-later').map((d) => [d.range.start.line, d.code, d.message]);
    expect(found).toEqual(
      special.map((k) => [
        ruleLine.get(k),
        k % 3 === 0 ? 'defined-later' : 'undefined-chain',
        k % 3 === 0 ? `late${k} is only added on line ${definedOn.get(k)! + 1}: nft -f runs commands in order, so this one fails ("No such file or directory").` : `No chain elsewhere${k} in table ${tableOf(k)}.`,
      ]),
    );
  });

  it('in table blocks (one run per table)', () => {
    const block = (table: string, parity: number) => {
      const out = [`table ${table} {`, '\tchain c {', '\t}', '\tchain a {'];
      for (let k = parity; k < count; k += 2) out.push(`\t\tjump ${targetOf(k)}`);
      out.push('\t}', '}');
      return out;
    };
    const text = [...block('ip t', 0), ...block('ip u', 1)].join('\n');
    const r = parseNft(text);
    const jumps = r.symbols.allReferences().filter((ref) => ref.role === 'jump');
    const order = [...[...Array(count).keys()].filter((k) => k % 2 === 0), ...[...Array(count).keys()].filter((k) => k % 2 === 1)];
    expect(jumps.map((ref) => [ref.scope, ref.name])).toEqual(order.map((k) => [tableOf(k), targetOf(k)]));
    const found = r.diagnostics.filter((d) => d.code === 'undefined-chain').map((d) => d.message);
    expect(found).toEqual(order.filter((k) => special.includes(k)).map((k) => `No chain ${targetOf(k)} in table ${tableOf(k)}.`));
  });
});

describe('LazyRule', () => {
  const dump = (breakText: string, pad: number) =>
    ['table ip t {', '\tchain a {', `\t\t${' '.repeat(pad)}ip daddr 10.0.0.1 tcp dport 80 counter accept comment "x"`, '\t\tmeta mark 0x1 jump b # after', '\t}', '\tchain b {', '\t}', '}', ''].join(breakText);

  for (const [label, breakText] of [
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
    ['\\r', '\r'],
  ] as const) {
    it(`reads its rule from the document with ${label} line breaks, as an eager rule does`, () => {
      for (const pad of [0, 40_000]) {
        const text = dump(breakText, pad);
        const lazy = parseNft(text);
        const eager = parseNft(text, { lazyRules: false });
        const rules = lazy.tables[0].chains[0].rules;
        // Past the packed columns a rule is eager (it keeps its statements).
        expect(rules.map((r) => r instanceof LazyRule)).toEqual([pad === 0, true]);
        expect(plainData(rules.map(({ tableId, chain, index, raw, range: r, statements, comment }) => ({ tableId, chain, index, raw, range: r, statements, comment })))).toEqual(
          plainData(eager.tables[0].chains[0].rules.map(({ tableId, chain, index, raw, range: r, statements, comment }) => ({ tableId, chain, index, raw, range: r, statements, comment }))),
        );
        expect(rules[1].raw).toBe('meta mark 0x1 jump b');
      }
    });
  }

  it('keeps the document out of plain data', () => {
    const rule = parseNft(dump('\n', 0)).tables[0].chains[0].rules[0];
    expect(Object.keys(plainData(rule)).sort()).toEqual(['chain', 'comment', 'index', 'line', 'range', 'raw', 'statements', 'tableId']);
  });
});

describe('rare fields (defineRareFields)', () => {
  it('belong to the object they were set on, and travel as data', () => {
    const base = new ChainNode('input', 'ip t', range(1, 7, 1, 12), range(1, 1, 1, 14));
    const other = new ChainNode('c', 'ip t', range(5, 7, 5, 8), range(5, 1, 5, 10));
    base.hook = 'input';
    base.priority = { value: 0, text: 'filter', range: range(2, 20, 2, 26) };
    expect([base.hook, base.type, other.hook, other.priority]).toEqual(['input', undefined, undefined, undefined]);
    other.policy = 'drop';
    expect([base.policy, other.policy]).toEqual([undefined, 'drop']);
    expect(Object.keys(base)).not.toContain('hook');
    expect(plainData(base)).toMatchObject({ name: 'input', hook: 'input', priority: { value: 0, text: 'filter' } });
  });
});

describe('ElementNode and VerdictNode', () => {
  it("give back the ranges they were given, on the element's line or not", () => {
    fc.assert(
      fc.property(anyRange, anyRange, fc.option(anyRange, { nil: undefined }), fc.boolean(), (whole, key, value, keyOnLine) => {
        const keyRange = keyOnLine ? range(whole.start.line, key.start.character, whole.start.line, key.end.character) : key;
        const element = new ElementNode(['10.0.0.1', 'tcp', '80'], whole, keyRange);
        element.valueRange = value;
        expect([element.range, element.keyRange, element.valueRange]).toEqual([whole, keyRange, value]);
        expect(plainData(element)).toEqual({ key: ['10.0.0.1', 'tcp', '80'], range: whole, keyRange, ...(value ? { valueRange: value } : {}) });
        const verdict = new VerdictNode('goto', 'service-X', key);
        expect(verdict.chainRange).toEqual(key);
        expect(plainData(verdict)).toEqual({ kind: 'goto', chain: 'service-X', chainRange: key });
      }),
    );
  });

  it('keep the fields few elements have apart, and compare by their ranges in tests', () => {
    const element = new ElementNode(['1.2.3.4'], range(7, 4, 7, 30), range(7, 4, 7, 11));
    expect([element.timeout, element.expires, element.statements, element.comment, element.value]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    element.timeout = '3h';
    element.statements = ['counter packets 0 bytes 0'];
    element.comment = 'ns/svc:p80';
    expect([element.timeout, element.expires, element.statements, element.comment]).toEqual(['3h', undefined, ['counter packets 0 bytes 0'], 'ns/svc:p80']);
    // The equality tester of test/helpers/equality.ts reads the getters: nodes that differ only in a range differ.
    expect(new ElementNode(['a'], range(1, 0, 1, 5), range(1, 0, 1, 1))).not.toEqual(new ElementNode(['a'], range(1, 0, 1, 6), range(1, 0, 1, 1)));
    expect(new ElementNode(['a'], range(1, 0, 1, 5), range(1, 0, 1, 1))).toStrictEqual(new ElementNode(['a'], range(1, 0, 1, 5), range(1, 0, 1, 1)));
    expect(new VerdictNode('goto', 'c', range(2, 3, 2, 4))).not.toEqual(new VerdictNode('goto', 'c', range(2, 3, 2, 5)));
    expect(new VerdictNode('jump', 'c', range(2, 3, 2, 4))).toEqual({ kind: 'jump', chain: 'c', chainRange: range(2, 3, 2, 4) });
  });

  it("are what a set's elements and a verdict map's values are made of", () => {
    const text = 'table ip t {\n\tmap m {\n\t\ttype ipv4_addr : verdict\n\t\telements = { 10.0.0.1 comment "a" : goto c,\n\t\t\t     10.0.0.2 : drop }\n\t}\n\tchain c {\n\t}\n}\n';
    const m = parseNft(text).tables[0].mapByName.get('m')!;
    expect(m.elements.map((e) => e instanceof ElementNode)).toEqual([true, true]);
    const [first, second] = m.elements;
    expect(first).toEqual({
      key: ['10.0.0.1'],
      comment: 'a',
      value: { kind: 'goto', chain: 'c', chainRange: range(3, 43, 3, 44) },
      range: range(3, 15, 3, 44),
      keyRange: range(3, 15, 3, 23),
      valueRange: range(3, 38, 3, 44),
    });
    expect(first.value).toBeInstanceOf(VerdictNode);
    expect(second).toEqual({ key: ['10.0.0.2'], value: { kind: 'drop' }, range: range(4, 8, 4, 23), keyRange: range(4, 8, 4, 16), valueRange: range(4, 19, 4, 23) });
  });
});
