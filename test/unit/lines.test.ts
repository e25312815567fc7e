// The line cutters every parser uses agree with splitLines (the way VS Code counts lines) on every kind of break.
import { describe, expect, it } from 'vitest';
import { LineCursor, LineSpans, LineStarts, splitLines } from '../../src/core/parse/lines';

const texts = ['', '\n', '\r\n', '\r', 'a', 'a\n', 'a\r\nb', 'a\rb\r', 'a\n\nb\n\n', '\r\n\r\n', 'a\r\r\nb', '\n\ra\n\r', 'x'.repeat(20) + '\r\n' + 'y'];

describe('line cutters', () => {
  it('LineSpans, LineCursor and LineStarts cut as splitLines does', () => {
    // Every text of up to five characters from the break characters and a letter, then the fixed ones.
    const alphabet = ['a', '\n', '\r'];
    const all = [...texts];
    const grow = (prefix: string) => {
      all.push(prefix);
      if (prefix.length < 5) for (const c of alphabet) grow(prefix + c);
    };
    grow('');
    for (const text of all) {
      const expected = splitLines(text);
      const spans = new LineSpans(text);
      const fromSpans: string[] = [];
      while (spans.next()) {
        expect(spans.index).toBe(fromSpans.length);
        fromSpans.push(text.slice(spans.start, spans.end));
      }
      expect(fromSpans, JSON.stringify(text)).toEqual(expected);
      expect(spans.count).toBe(expected.length);
      const cursor = new LineCursor(text);
      const fromCursor: string[] = [];
      for (let line = cursor.next(); line !== undefined; line = cursor.next()) fromCursor.push(line);
      expect(fromCursor, JSON.stringify(text)).toEqual(expected);
      expect(cursor.count).toBe(expected.length);
      const starts = new LineStarts(text);
      expect(
        Array.from({ length: starts.count }, (_, i) => starts.line(i)),
        JSON.stringify(text),
      ).toEqual(expected);
    }
  });
});
