// Lines of a dump, for every parser.

import { PROGRESS_MASK, reportProgress } from '../progress';

/**
 * Splits text into lines the way VS Code counts them (\r\n, \n or \r); a final line break starts no line.
 * The lines are slices of the text (they share its memory).
 */
export function splitLines(text: string): string[] {
  // Without CRs the native split does it, several times faster than the loop below.
  const lines = text.indexOf('\r') < 0 ? text.split('\n') : splitAtAnyBreak(text);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function splitAtAnyBreak(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      out.push(text.slice(from, i));
      from = i + 1;
    } else if (c === 13) {
      out.push(text.slice(from, i));
      if (text.charCodeAt(i + 1) === 10) i++;
      from = i + 1;
    }
  }
  out.push(text.slice(from));
  return out;
}

// Lines one at a time (docs/performance.md#memory; the ipvsadm and ipset parsers): an array of all 167,000 lines of a 10,000-Service
// listing lives as long as the parse, so V8 promotes it and its line strings to the old generation, where they
// stay as garbage until the next full GC and raise the peak memory. One line at a time, each dies young.

/**
 * Cuts `text` exactly as splitLines does: at \r\n, \n or \r, a final line break starting no line.
 * `next()` answers the lines in order, then undefined.
 */
export class LineCursor {
  readonly #text: string;
  readonly #spans: LineSpans;

  constructor(text: string) {
    this.#text = text;
    this.#spans = new LineSpans(text);
  }

  /** How many lines were answered. */
  get count(): number {
    return this.#spans.count;
  }

  /** The length of the whole text. */
  get length(): number {
    return this.#text.length;
  }

  /** How many lines the text has, or a few more (a \r without \n ends a line too): to size per-line arrays. */
  lineCountHint(): number {
    const text = this.#text;
    let lines = 1;
    for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) lines++;
    return lines;
  }

  next(): string | undefined {
    const spans = this.#spans;
    return spans.next() ? this.#text.slice(spans.start, spans.end) : undefined;
  }
}

/**
 * The lines of `text` as spans, cut exactly as splitLines cuts them, for parsers that read a line's columns in the
 * text itself and make a string only of the lines their fast paths leave (docs/performance.md#memory: a slice per line was some
 * 170,000 strings of garbage for a 10,000-Service ipvsadm listing). Progress is reported every PROGRESS_MASK + 1 lines.
 */
export class LineSpans {
  readonly #text: string;
  readonly #anyBreak: boolean;
  /** Where the next line starts; past the end once the last line was answered. */
  #from = 0;
  /** The current line: its number (from 0), where it starts and where its break is (or the end of the text). */
  index = -1;
  start = 0;
  end = 0;

  constructor(text: string) {
    this.#text = text;
    this.#anyBreak = text.indexOf('\r') >= 0;
  }

  /** Moves to the next line; false after the last. */
  next(): boolean {
    const text = this.#text;
    const from = this.#from;
    if (from > text.length) return false;
    let end = this.#anyBreak ? breakAt(text, from) : text.indexOf('\n', from);
    if (end < 0) {
      end = text.length;
      this.#from = end + 1;
      reportProgress(1, 1); // the last line
      // The empty piece after a final line break is no line (but an empty text is one empty line).
      if (end === from && this.index >= 0) return false;
    } else {
      this.#from = text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
    }
    const index = ++this.index;
    if (((index + 1) & PROGRESS_MASK) === 0) reportProgress(from, text.length);
    this.start = from;
    this.end = end;
    return true;
  }

  /** How many lines were answered. */
  get count(): number {
    return this.index + 1;
  }
}

/** The first \n or \r at or after `from`, or -1. */
function breakAt(text: string, from: number): number {
  for (let k = from; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 10 || c === 13) return k;
  }
  return -1;
}

/**
 * Where each line of a text starts, cut exactly as splitLines cuts it, for a parser that goes back to earlier lines
 * (the nft parser, docs/performance.md#memory): an array of all 591,000 lines of a 10,000-Service dump, a string each, lived as long
 * as the parse and was promoted to the old generation; the starts are one typed array, and a line is made when asked.
 */
export class LineStarts {
  /** How many lines (an empty text is one empty line). */
  readonly count: number;
  readonly #text: string;
  /** Entry i: where line i starts; entry count: one past the last line's break (text.length + 1 without one). */
  readonly #starts: Int32Array;

  constructor(text: string) {
    this.#text = text;
    const anyBreak = text.indexOf('\r') >= 0;
    const next = (from: number) => (anyBreak ? breakAt(text, from) : text.indexOf('\n', from));
    const after = (end: number) => (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1);
    let breaks = 0;
    for (let end = next(0); end >= 0; end = next(after(end))) breaks++;
    // A final line break starts no line (but a text that is only a break is one empty line).
    const endsWithBreak = breaks > 0 && after(lastBreak(text, anyBreak)) === text.length;
    const count = endsWithBreak ? breaks : breaks + 1;
    const starts = new Int32Array(count + 1);
    let line = 0;
    for (let end = next(0); end >= 0 && line < count; end = next(after(end))) starts[++line] = after(end);
    if (!endsWithBreak) starts[count] = text.length + 1;
    this.count = count;
    this.#starts = starts;
  }

  /** Where line `i` starts in the text. */
  start(i: number): number {
    return this.#starts[i];
  }

  /** Where line `i` ends (its break, or the end of the text). */
  end(i: number): number {
    const next = this.#starts[i + 1];
    return this.#text.charCodeAt(next - 1) === 10 && this.#text.charCodeAt(next - 2) === 13 ? next - 2 : next - 1;
  }

  /** Line `i` (a slice of the text), or undefined past the last line. */
  line(i: number): string | undefined {
    return Number.isInteger(i) && i >= 0 && i < this.count ? this.#text.slice(this.start(i), this.end(i)) : undefined;
  }
}

/** Where the last line break of `text` is (it has one). */
function lastBreak(text: string, anyBreak: boolean): number {
  if (!anyBreak) return text.lastIndexOf('\n');
  let k = text.length - 1;
  while (k >= 0 && text.charCodeAt(k) !== 10 && text.charCodeAt(k) !== 13) k--;
  // The \r of a final \r\n.
  return k > 0 && text.charCodeAt(k) === 10 && text.charCodeAt(k - 1) === 13 ? k - 1 : k;
}
