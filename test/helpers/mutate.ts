// Mutations of real dump text for the parsers' property tests: insert (a token of the dialect, random text or
// graphemes), delete, swap or duplicate lines, truncate. The same generator for every dialect; only the
// alphabet of tokens differs.
import fc from 'fast-check';

export type Mutation = { kind: string; at?: number; text?: string; length?: number; a?: number; b?: number };

export function mutationOf(alphabet: readonly string[]): fc.Arbitrary<Mutation> {
  return fc.oneof(
    fc.record({ kind: fc.constant('insert'), at: fc.nat(), text: fc.oneof(fc.constantFrom(...alphabet), fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 4 })) }),
    fc.record({ kind: fc.constant('delete'), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ kind: fc.constant('swapLines'), a: fc.nat(), b: fc.nat() }),
    fc.record({ kind: fc.constant('duplicateLine'), a: fc.nat() }),
    fc.record({ kind: fc.constant('truncate'), at: fc.nat() }),
  );
}

export function mutate(base: string, mutations: readonly Mutation[]): string {
  let text = base;
  for (const m of mutations) {
    const at = (m.at ?? 0) % (text.length + 1);
    if (m.kind === 'insert') text = text.slice(0, at) + m.text + text.slice(at);
    else if (m.kind === 'delete') text = text.slice(0, at) + text.slice(at + (m.length ?? 1));
    else if (m.kind === 'truncate') text = text.slice(0, at);
    else {
      const lines = text.split('\n');
      const i = (m.a ?? 0) % lines.length;
      if (m.kind === 'duplicateLine') lines.splice(i, 0, lines[i]);
      else {
        const j = (m.b ?? 0) % lines.length;
        [lines[i], lines[j]] = [lines[j], lines[i]];
      }
      text = lines.join('\n');
    }
  }
  return text;
}
