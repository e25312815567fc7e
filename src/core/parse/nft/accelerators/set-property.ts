// In a set block, `type WORD`, `flags WORD,WORD…`, `size DIGITS`, `timeout WORD` and `}` alone on their line,
// single spaces (each of a dump's thousands of affinity sets is six such lines): what the reference reader makes of
// their tokens, without them.
import { appendAll } from '../../../model/append';
import { isWordAt, wordyEnd } from './fast-lex';
import type { NftTextSink } from '../text-sink';
import { isDigit, setLineRange, indentEnd } from './ranges';

export function tryLine(_all: string, lineStart: number, lineEnd: number, sink: NftTextSink): boolean {
  const block = sink.lineBlock(lineStart, lineEnd);
  if (block?.kind !== 'set') return false;
  const text = sink.lineText(lineStart, lineEnd);
  const start = indentEnd(text, 0, text.length);
  const n = text.length;
  if (start === n - 1 && text.charCodeAt(start) === 125) {
    sink.closeBlock(setLineRange(sink.line, start, n));
    return true;
  }
  const space = text.indexOf(' ', start);
  if (space < 0 || space - start > 7) return false;
  const property = text.slice(start, space);
  const valueStart = space + 1;
  if (valueStart >= n) return false;
  const set = block.set!;
  switch (property) {
    case 'type':
      // Wordy as the set unit shortcut takes it; a set's type needs no data (a map's would be reported).
      if (wordyEnd(text, valueStart) !== n) return false;
      sink.currentTable = block.table;
      set.keyType = [sink.intern(text.slice(valueStart))];
      set.keyTypeof = false;
      return true;
    case 'flags': {
      const flags: string[] = [];
      for (let at = valueStart; ;) {
        const end = wordyEnd(text, at);
        if (end < 0) return false;
        flags.push(sink.intern(text.slice(at, end)));
        if (end === n) break;
        if (text.charCodeAt(end) !== 44) return false;
        at = end + 1;
      }
      sink.currentTable = block.table;
      appendAll(set.flags, flags);
      return true;
    }
    case 'size':
    case 'timeout': {
      // One Word (a keyword would not start a value the same way): size all digits (no report).
      if (!isWordAt(text, valueStart, n)) return false;
      if (property === 'size') {
        for (let k = valueStart; k < n; k++) if (!isDigit(text.charCodeAt(k))) return false;
      }
      const value = sink.intern(text.slice(valueStart));
      sink.currentTable = block.table;
      if (property === 'size') set.size = Number(value);
      else set.timeout = value;
      return true;
    }
  }
  return false;
}
