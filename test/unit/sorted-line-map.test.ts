// SortedLineMap (issue #8: the nft rules by line) must behave as a Map whose keys come in increasing order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedLineMap } from '../../src/core/model/line-map';

type Op = { op: 'set'; line: number; value: number } | { op: 'delete'; line: number } | { op: 'get'; line: number };

describe('SortedLineMap', () => {
  it('answers as a Map on random operations, iterating by increasing line', () => {
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('set' as const), line: fc.nat(200), value: fc.integer() }),
      fc.record({ op: fc.constant('delete' as const), line: fc.nat(200) }),
      fc.record({ op: fc.constant('get' as const), line: fc.oneof(fc.nat(210), fc.constant(-1), fc.constant(1.5)) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const sorted = new SortedLineMap<number>();
        const map = new Map<number, number>();
        for (const o of ops) {
          if (o.op === 'set') {
            expect(sorted.set(o.line, o.value)).toBe(sorted);
            map.set(o.line, o.value);
          } else if (o.op === 'delete') expect(sorted.delete(o.line)).toBe(map.delete(o.line));
          else expect([sorted.get(o.line), sorted.has(o.line)]).toEqual([map.get(o.line), map.has(o.line)]);
          expect(sorted.size).toBe(map.size);
        }
        const expected = [...map].sort((a, b) => a[0] - b[0]);
        expect([...sorted]).toEqual(expected);
        expect([...sorted.keys()]).toEqual(expected.map(([k]) => k));
        expect([...sorted.values()]).toEqual(expected.map(([, v]) => v));
        const seen: [number, number][] = [];
        sorted.forEach((v, k, m) => {
          expect(m).toBe(sorted);
          seen.push([k, v]);
        });
        expect(seen).toEqual(expected);
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it('keeps the order of a Map when lines come in increasing order, with deletions and sets again', () => {
    const sorted = new SortedLineMap<string>();
    const map = new Map<number, string>();
    for (let line = 0; line < 5000; line += 3) {
      sorted.set(line, `r${line}`);
      map.set(line, `r${line}`);
      if (line % 7 === 0) {
        sorted.delete(line);
        map.delete(line);
        sorted.set(line, 'again');
        map.set(line, 'again');
      }
      if (line % 11 === 0) {
        sorted.delete(line - 30);
        map.delete(line - 30);
      }
    }
    expect([...sorted]).toEqual([...map]);
    sorted.clear();
    expect([sorted.size, [...sorted]]).toEqual([0, []]);
  });

  it('takes line numbers only', () => {
    const sorted = new SortedLineMap<number>();
    expect(() => sorted.set(-1, 1)).toThrow(RangeError);
    expect(() => sorted.set(0.5, 1)).toThrow(RangeError);
    expect(sorted.delete(Number.NaN)).toBe(false);
  });
});
