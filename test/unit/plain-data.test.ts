// Worker answers become plain data before the structured clone (issue #8: models make ranges with getters).
import { describe, expect, it } from 'vitest';
import { plainData } from '../../src/extension/analysis/plain';
import { SortedLineMap } from '../../src/core/model/line-map';

class Lazy {
  made = 0;
  constructor(private readonly line: number) {}
  get range() {
    this.made++;
    return { start: { line: this.line, character: 0 }, end: { line: this.line, character: 5 } };
  }
}
class Child extends Lazy {
  get name() {
    return 'child';
  }
}

describe('plainData', () => {
  it('turns getters (inherited ones too) into properties, deeply, through arrays, Maps and Sets', () => {
    const value = { list: [new Child(3)], byKey: new Map([['a', { inner: new Lazy(4) }]]), set: new Set([new Lazy(5)]) };
    const plain = plainData(value);
    const cloned = structuredClone(plain);
    expect(cloned.list[0]).toEqual({ made: 0, line: 3, range: { start: { line: 3, character: 0 }, end: { line: 3, character: 5 } }, name: 'child' });
    expect((cloned.byKey.get('a')!.inner as unknown as { range: unknown }).range).toEqual({ start: { line: 4, character: 0 }, end: { line: 4, character: 5 } });
    expect([...cloned.set][0]).toHaveProperty('range.start.line', 5);
  });

  it('returns plain data as it is (no copy)', () => {
    const value = { a: [1, { b: 'x' }], m: new Map([[1, { c: 2 }]]), t: new Uint32Array([1, 2]) };
    const plain = plainData(value);
    expect(plain).toBe(value);
  });

  it('copies Map subclasses that keep their entries elsewhere (LineMap, SortedLineMap) into plain Maps', () => {
    const byLine = new SortedLineMap<{ n: number }>();
    byLine.set(3, { n: 1 }).set(9, { n: 2 });
    const cloned = structuredClone(plainData({ byLine }));
    expect(cloned.byLine).toBeInstanceOf(Map);
    expect([...cloned.byLine]).toEqual([
      [3, { n: 1 }],
      [9, { n: 2 }],
    ]);
  });

  it('a structured clone alone would lose what getters answer', () => {
    expect(structuredClone({ x: new Lazy(1) }).x).not.toHaveProperty('range');
  });
});

describe('plainData on shared and cyclic values', () => {
  it('keeps shared objects shared and follows a cycle without looping', () => {
    const shared = { range: new Lazy(1) };
    const cyclic: { self?: unknown; lazy: Lazy } = { lazy: new Lazy(2) };
    cyclic.self = cyclic;
    const plain = plainData({ a: shared, b: shared, cyclic });
    expect(plain.a).toBe(plain.b);
    expect(structuredClone(plain).a.range).toHaveProperty('range.start.line', 1);
    expect(plain.cyclic.lazy).toHaveProperty('range.start.line', 2);
  });
});
