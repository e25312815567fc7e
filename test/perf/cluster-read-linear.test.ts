// The cluster reader's way back into the text costs the same wherever it is asked: an offset to a position is a
// binary search over the line starts in any order (sources and diagnostics go back to an object's start after
// reading its end), and a value looked for near an object is looked for only within that object's field window,
// not in the rest of a 76 MB file. Complexity, not speed (test/helpers/linear.ts).
import { describe, expect, it } from 'vitest';
import { LineCursor, ReadContext } from '../../src/core/cluster/read-context';
import { costRatio, MAX_COST_RATIO_8X } from '../helpers/linear';

/** An EndpointSlice's endpoint list as kubectl indents it: one address per object, five lines each. */
const endpoints = (n: number) =>
  Array.from({ length: n }, (_, i) => `            {\n                "addresses": [\n                    "10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}"\n                ],\n            },`).join('\n');

/** Offsets every `step` characters, each followed by one halfway back. */
function forwardAndBack(text: string, step: number): number[] {
  const out: number[] = [];
  for (let at = 0; at < text.length; at += step) out.push(at, at >> 1);
  return out;
}

describe('cluster reader: positions and nearby values', () => {
  it('gives the same positions as counting lines, in any order', () => {
    const text = endpoints(300);
    const cursor = new LineCursor(text);
    for (const at of forwardAndBack(text, 1_013)) {
      const before = text.slice(0, at).split('\n');
      expect(cursor.position(at)).toEqual({ line: before.length - 1, character: before[before.length - 1].length });
    }
  });

  it('going back to an earlier offset does not scan from the start again', () => {
    const positions = (text: string) => {
      const cursor = new LineCursor(text);
      for (const at of forwardAndBack(text, 101)) cursor.position(at);
    };
    expect(costRatio(positions, endpoints(2_000), endpoints(16_000))).toBeLessThan(MAX_COST_RATIO_8X);
  });

  it('a value missing near its object is not searched for in the rest of the file', () => {
    const misses = (text: string) => {
      const ctx = new ReadContext('f', text, new Map(), true);
      for (let at = 0; at < text.length; at += 997) {
        ctx.valueAfter(at, '10.255.255.255');
        ctx.keyOffset(at, 'hostname');
      }
    };
    expect(costRatio(misses, endpoints(2_000), endpoints(16_000))).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
