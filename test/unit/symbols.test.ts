import { describe, expect, it } from 'vitest';
import { Symbols, type SymbolDefinition, type SymbolReference } from '../../src/core/model/symbols';
import type { Range } from '../../src/core/model/range';
import { chainDefinition } from '../../src/core/model/compact/declarations';
import { ReferenceColumns } from '../../src/core/model/compact/references';

const r = (line: number, from: number, to: number): Range => ({ start: { line, character: from }, end: { line, character: to } });
const chain = (name: string, scope: string, range: Range): SymbolDefinition => ({ kind: 'chain', name, scope, range, fullRange: range });
const jump = (name: string, scope: string, range: Range): SymbolReference => ({ kind: 'chain', name, scope, range, role: 'jump' });

describe('Symbols', () => {
  it('keeps kinds, scopes and names apart, and the first definition of a name', () => {
    const s = new Symbols();
    const a = chain('X', 'ip filter', r(0, 3, 4));
    const b = chain('X', 'ip nat', r(1, 3, 4));
    const again = chain('X', 'ip filter', r(2, 3, 4));
    const set: SymbolDefinition = { kind: 'set', name: 'X', scope: 'ip filter', range: r(3, 4, 5), fullRange: r(3, 0, 9) };
    for (const d of [a, b, again, set]) s.define(d);
    expect(s.definition('chain', 'ip filter', 'X')).toBe(a);
    expect(s.definition('chain', 'ip nat', 'X')).toBe(b);
    expect(s.definition('set', 'ip filter', 'X')).toBe(set);
    expect(s.definition('map', 'ip filter', 'X')).toBeUndefined();
    expect(s.definition('chain', 'ip raw', 'X')).toBeUndefined();
    // Names that would collide if joined into one string stay apart.
    s.define(chain('b\u0000c', 'a', r(4, 0, 1)));
    expect(s.definition('chain', 'a\u0000b', 'c')).toBeUndefined();
    expect(s.definitions).toEqual([a, b, again, set, chain('b\u0000c', 'a', r(4, 0, 1))]);
  });

  it('lists the references to a name in the order they were added, however many', () => {
    const s = new Symbols();
    const refs = Array.from({ length: 12 }, (_, i) => jump('T', 't', r(i, 10, 11)));
    const other = jump('U', 't', r(20, 10, 11));
    s.reference(refs[0]);
    s.reference(other);
    expect(s.referencesTo('chain', 't', 'T')).toEqual([refs[0]]);
    for (const ref of refs.slice(1)) s.reference(ref);
    expect(s.referencesTo('chain', 't', 'T')).toEqual(refs);
    expect(s.referencesTo('chain', 't', 'U')).toEqual([other]);
    expect(s.referencesTo('chain', 'u', 'T')).toEqual([]);
    expect(s.referencesTo('set', 't', 'T')).toEqual([]);
    expect(s.references).toEqual([refs[0], other, ...refs.slice(1)]);
  });

  it('keeps the references of each name in order while long lists of names referenced in turn and across scopes grow', () => {
    const s = new Symbols();
    const expected = new Map<string, SymbolReference[]>();
    // Long runs of one name (grown in place), interleaved names, a scope and a kind between two runs of one name.
    const plan = [...Array(30).fill('M'), 'A', ...Array(10).fill('M'), 'B', 'A', ...Array(5).fill('A'), 'M', 'M', 'C', ...Array(20).fill('B')];
    plan.forEach((name, i) => {
      for (const scope of i % 7 === 0 ? ['t', 'u'] : ['t']) {
        const ref = jump(name, scope, r(i, scope === 't' ? 0 : 5, 4));
        s.reference(ref);
        expected.set(`${scope} ${name}`, [...(expected.get(`${scope} ${name}`) ?? []), ref]);
      }
      if (i % 11 === 0) s.reference({ ...jump(name, 't', r(i, 9, 10)), kind: 'set' });
    });
    for (const [key, refs] of expected) {
      const [scope, name] = key.split(' ');
      expect(s.referencesTo('chain', scope, name), key).toEqual(refs);
    }
  });

  it('defineNew stores a first definition as define does', () => {
    const a = new Symbols();
    const b = new Symbols();
    const defs = [chain('X', 't', r(0, 1, 2)), chain('Y', 't', r(1, 1, 2)), chain('X', 'u', r(2, 1, 2))];
    for (const d of defs) {
      a.define(d);
      b.defineNew(d);
    }
    for (const d of defs) expect(b.definition('chain', d.scope, d.name)).toBe(a.definition('chain', d.scope, d.name));
    expect(b.definitions).toEqual(a.definitions);
    expect(b.at({ line: 1, character: 1 })).toEqual(a.at({ line: 1, character: 1 }));
  });

  it('finds what is under a position, entries of one line in the order they were added', () => {
    const s = new Symbols();
    const def = chain('A', 't', r(5, 3, 4));
    // References come in after definitions and out of line order, as parsers that resolve names at the end add them.
    s.reference(jump('A', 't', r(9, 0, 20)));
    s.define(def);
    s.reference(jump('A', 't', r(2, 6, 7)));
    const wide = jump('A', 't', r(5, 0, 10));
    s.reference(wide);
    expect(s.at({ line: 5, character: 3 })).toEqual({ type: 'definition', definition: def });
    expect(s.at({ line: 5, character: 8 })).toEqual({ type: 'reference', reference: wide });
    expect(s.at({ line: 2, character: 6 })?.type).toBe('reference');
    expect(s.at({ line: 2, character: 9 })).toBeUndefined();
    expect(s.at({ line: 3, character: 0 })).toBeUndefined();
    expect(s.at({ line: 1_000_000, character: 0 })).toBeUndefined();
    expect(s.at({ line: -1, character: 0 })).toBeUndefined();
    expect(s.resolve({ line: 9, character: 15 })).toBe(def);
    expect(s.resolve({ line: 5, character: 3 })).toBe(def);
  });

  it('lists the entries of a line as the definitions and then allReferences list them, whatever order they came in', () => {
    const s = new Symbols();
    const columns = new ReferenceColumns();
    // Interleaved: column, reference, definition, reference, column, definition; all on line 4 at character 2.
    s.indexColumn(columns, columns.push('chain', 'C1', 't', 'jump', r(4, 2, 4)));
    const ref1 = jump('R1', 't', r(4, 2, 4));
    s.reference(ref1);
    const def1 = chain('D1', 't', r(4, 2, 4));
    s.define(def1);
    const ref2 = jump('R2', 't', r(4, 2, 4));
    s.reference(ref2, 4, false);
    s.indexColumn(columns, columns.push('chain', 'C2', 't', 'goto', r(4, 2, 4)));
    const def2 = chain('D2', 't', r(4, 2, 4));
    s.define(def2);
    const derived = jump('OWNER', 't', r(4, 2, 4));
    s.derive({ at: (line) => (line === 4 ? derived : undefined), all: () => [derived] });
    const names = (entries: { name: string }[]) => entries.map((e) => e.name);
    const whole = [...s.definitions, ...s.allReferences()].filter((e) => e.range.start.line === 4);
    expect(names(s.onLine(4))).toEqual(['D1', 'D2', 'R1', 'R2', 'C1', 'C2', 'OWNER']);
    expect(names(s.onLine(4))).toEqual(names(whole));
    expect(s.onLine(3)).toEqual([]);
    expect(s.onLine(-1)).toEqual([]);
    expect(s.onLine(1_000_000)).toEqual([]);
  });

  it('sized for a number of lines, finds entries on those lines and past them the same', () => {
    for (const lineCount of [0, 1, 3, 10]) {
      const s = new Symbols(lineCount);
      const first = chain('A', 't', r(0, 0, 1));
      const last = jump('A', 't', r(2, 4, 5));
      const past = jump('A', 't', r(7, 4, 5));
      s.define(first);
      s.reference(past);
      s.reference(last);
      expect(s.at({ line: 0, character: 0 })).toEqual({ type: 'definition', definition: first });
      expect(s.at({ line: 2, character: 4 })).toEqual({ type: 'reference', reference: last });
      expect(s.at({ line: 7, character: 4 })).toEqual({ type: 'reference', reference: past });
      expect(s.at({ line: 1, character: 0 })).toBeUndefined();
      expect(s.at({ line: 9, character: 4 })).toBeUndefined();
      expect(s.referencesTo('chain', 't', 'A')).toEqual([past, last]);
    }
  });

  it('handles many entries on one line (a one-line JSON ruleset)', () => {
    const s = new Symbols();
    const n = 5000;
    for (let i = 0; i < n; i++) s.define(chain(`c${i}`, 't', r(0, i * 10, i * 10 + 4)));
    for (let i = 0; i < n; i++) s.reference(jump(`c${i}`, 't', r(0, i * 10 + 5, i * 10 + 9)));
    expect(s.at({ line: 0, character: 4321 * 10 + 6 })).toEqual({ type: 'reference', reference: s.references[4321] });
    expect(s.resolve({ line: 0, character: 4321 * 10 + 6 })).toBe(s.definitions[4321]);
    expect(s.at({ line: 0, character: 99 * 10 + 2 })).toEqual({ type: 'definition', definition: s.definitions[99] });
  });

  it('indexes a reference by the line it is given (ranges made on demand)', () => {
    const s = new Symbols();
    let made = 0;
    const lazy: SymbolReference = {
      kind: 'chain',
      name: 'L',
      scope: 't',
      role: 'rule-owner',
      get range() {
        made++;
        return r(7, 3, 4);
      },
    };
    s.reference(lazy, 7);
    expect(made).toBe(0);
    expect(s.referencesTo('chain', 't', 'L')).toEqual([lazy]);
    expect(s.at({ line: 7, character: 3 })).toEqual({ type: 'reference', reference: lazy });
  });

  it('a reference kept out of the name index is still found by position and listed', () => {
    const s = new Symbols();
    const owner: SymbolReference = { kind: 'chain', name: 'C', scope: 't', role: 'rule-owner', range: r(2, 3, 4) };
    const jump: SymbolReference = { kind: 'chain', name: 'C', scope: 't', role: 'jump', range: r(5, 10, 11) };
    s.reference(owner, 2, false);
    s.reference(jump);
    expect(s.referencesTo('chain', 't', 'C')).toEqual([jump]);
    expect(s.references).toEqual([owner, jump]);
    expect(s.at({ line: 2, character: 3 })).toEqual({ type: 'reference', reference: owner });
  });
  it('answers lookups by name the same whether they come between additions or after all of them', () => {
    // The nft, IPVS and ipset parsers look names up while they add entries: each lookup must see every earlier one.
    let seed = 7;
    const random = (n: number) => Math.floor((seed = (seed * 1103515245 + 12345) % 2147483648) / 65536) % n;
    const eager = new Symbols(); // asked after every step
    const lazy = new Symbols(); // asked at the end
    const defs: SymbolDefinition[] = [];
    const named: SymbolReference[] = [];
    const hidden: SymbolReference[] = [];
    const keys = ['s0', 's1'].flatMap((scope) => Array.from({ length: 6 }, (_, k) => [scope, `C${k}`] as const));
    const answers = (s: Symbols) => keys.map(([scope, name]) => [s.definition('chain', scope, name), s.referencesTo('chain', scope, name)]);
    const expected = () => keys.map(([scope, name]) => [defs.find((d) => d.scope === scope && d.name === name), named.filter((x) => x.scope === scope && x.name === name)]);
    for (let line = 0; line < 400; line++) {
      const op = random(4);
      const name = `C${random(6)}`;
      const scope = `s${random(2)}`;
      const range = r(line, 0, 2);
      if (op === 0) {
        const d = chain(name, scope, range);
        defs.push(d);
        for (const s of [eager, lazy]) s.define(d);
      } else {
        const ref = jump(name, scope, range);
        (op === 3 ? hidden : named).push(ref);
        for (const s of [eager, lazy]) s.reference(ref, line, op !== 3);
      }
      expect(answers(eager)).toEqual(expected());
    }
    expect(answers(lazy)).toEqual(expected());
    // Left out by name (byName false), still found by position.
    expect(hidden.length).toBeGreaterThan(0);
    for (const ref of hidden) expect(lazy.at({ line: ref.range.start.line, character: 1 })).toEqual({ type: 'reference', reference: ref });
  });
});

describe('chainDefinition', () => {
  it('answers as a plain definition, packed when its ranges are on one line and fit, else stored', () => {
    const cases: [Range, Range][] = [
      [r(3, 1, 20), r(3, 0, 31)],
      [r(0, 0, 0), r(0, 0, 0)],
      [r(7, 40_000, 40_010), r(7, 0, 40_020)], // columns past the packed width
      [r(2, 1, 5), { start: { line: 2, character: 0 }, end: { line: 9, character: 3 } }], // a full range over lines
      [r(2 ** 31 + 5, 1, 5), r(2 ** 31 + 5, 0, 9)], // a line past a small integer
    ];
    for (const [range, fullRange] of cases) {
      for (const builtin of [false, true]) {
        const d = chainDefinition('KUBE-SVC-X', '0/nat', range, fullRange, builtin);
        expect({ kind: d.kind, name: d.name, scope: d.scope, range: d.range, fullRange: d.fullRange, builtin: d.builtin }).toEqual({ kind: 'chain', name: 'KUBE-SVC-X', scope: '0/nat', range, fullRange, builtin });
        if (range.start.line > 0x7fffffff) continue; // not indexed by line (see Symbols)
        const s = new Symbols();
        s.define(d);
        expect(s.at(range.start)).toEqual({ type: 'definition', definition: d });
      }
    }
  });
});
