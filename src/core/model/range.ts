// The one place where parser coordinates become editor coordinates.
// Positions are 0-based lines and UTF-16 columns, exactly like VS Code's Position.
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export function range(line: number, startCharacter: number, endLine: number, endCharacter: number): Range {
  return { start: { line, character: startCharacter }, end: { line: endLine, character: endCharacter } };
}

/** A range on one line from a start column (inclusive) to an end column (exclusive). */
export function lineRange(line: number, start: number, end: number): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

/** A line's binary data: from its first NUL character, at most 200 characters (the editor shows where it starts). */
export function binaryRange(line: number, text: string): Range {
  const at = Math.max(0, text.indexOf('\u0000'));
  return lineRange(line, at, Math.min(text.length, at + 200));
}

/** Chevrotain tokens carry an inclusive `endOffset`; our ranges are end-exclusive. */
export function tokenRange(line: number, token: { startOffset: number; endOffset?: number; image: string }): Range {
  const end = token.endOffset !== undefined && !Number.isNaN(token.endOffset) ? token.endOffset + 1 : token.startOffset + token.image.length;
  return lineRange(line, token.startOffset, end);
}

export function spanRanges(first: Range, last: Range): Range {
  return { start: first.start, end: last.end };
}

export function containsPosition(r: Range, p: Position): boolean {
  if (p.line < r.start.line || p.line > r.end.line) return false;
  if (p.line === r.start.line && p.character < r.start.character) return false;
  if (p.line === r.end.line && p.character > r.end.character) return false;
  return true;
}

/** 1-based line and column, as people and command-line tools count. */
export function humanPosition(p: Position): { line: number; column: number } {
  return { line: p.line + 1, column: p.character + 1 };
}
