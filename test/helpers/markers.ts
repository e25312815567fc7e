// `<|>` marks a cursor position and `<<…>>` a range in a fixture; both are removed from the text.
import type { Position, Range } from '../../src/core/model/range';

export interface Marked {
  text: string;
  cursors: Position[];
  ranges: Range[];
}

export function mark(source: string): Marked {
  const cursors: Position[] = [];
  const ranges: Range[] = [];
  const lines = source.split('\n');
  const out: string[] = [];
  lines.forEach((raw, line) => {
    let text = '';
    let openAt: number | undefined;
    for (let i = 0; i < raw.length;) {
      if (raw.startsWith('<|>', i)) {
        cursors.push({ line, character: text.length });
        i += 3;
      } else if (raw.startsWith('<<', i)) {
        openAt = text.length;
        i += 2;
      } else if (raw.startsWith('>>', i) && openAt !== undefined) {
        ranges.push({ start: { line, character: openAt }, end: { line, character: text.length } });
        openAt = undefined;
        i += 2;
      } else {
        text += raw[i++];
      }
    }
    out.push(text);
  });
  return { text: out.join('\n'), cursors, ranges };
}
