// The ranges the accelerators make, each at an allocation site of its own (see RangeSites in
import type { Range } from '../../../model/range';
import { isSpace } from './fast-lex';
// statements.ts): which objects V8 keeps young depends on it, not what they are.

/** A range only read while a line is (chain headers and their `}`). */
export function headerLineRange(line: number, start: number, end: number): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

/** The ranges of element lines, read into numbers (ElementNode, VerdictNode, references): garbage at once. */
export function elementLineRange(line: number, start: number, end: number): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

/** The ranges of set headers and closing braces, which sets keep. */
export function setLineRange(line: number, start: number, end: number): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

/** Where the first non-blank character of [start, end) of `text` is (end when there is none). */
export function indentEnd(text: string, start: number, end: number): number {
  let at = start;
  while (at < end && isSpace(text.charCodeAt(at))) at++;
  return at;
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
