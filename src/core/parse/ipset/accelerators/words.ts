// What the ipset accelerators share: which lines they may read at all, and the characters of a plain word.
import { MAX_PACKED_COLUMN } from '../../../model/compact/columns';
import type { IpsetSink } from '../sink';

/** A character of an accelerated word: printable ASCII but the quote and `#` (those are the lexer's). */
export function isWordChar(c: number): boolean {
  return c > 32 && c < 127 && c !== 34 && c !== 35;
}

/** Whether an accelerator may read the line at [start, end): not inside a listing, and short enough to pack. */
export function acceleratable(sink: IpsetSink, start: number, end: number): boolean {
  return !sink.listed && !sink.inMembers && end - start < MAX_PACKED_COLUMN;
}
