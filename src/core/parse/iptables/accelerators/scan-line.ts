// The accelerator of well-formed rule and COMMIT lines: read by hand (scanLine) into the same token table and items
// the reference reader's Chevrotain parser produces, which its visitor then reads: the same sink calls by the same
// code. The visitor reads the line's columns in a string of the line, which the reference reader makes of a line the
// scan leaves too (once). See docs/performance.md.
import { FULL_COUNTERS, K_BANG, K_LONG, K_SHORT, K_VALUE, scanLine } from '../nodes';
import type { LineScratch } from '../scratch';
import { LINE_LIMITS, type Accelerator } from '../../pipeline';
import type { IptablesSink } from '../sink';

/** What the scan hands its items to: the reference reader's visitor of a command line and of COMMIT. */
export interface ItemVisitor {
  readonly s: LineScratch;
  /** The line at [start, end) of the document, as the string the visitor reads (made once per line). */
  lineOf(text: string, start: number, end: number): string;
  commitLine(i: number, text: string): void;
  commandLine(i: number, text: string, prefix: number, itemCount: number, offsets: number[] | undefined): void;
}

/** The scan as an Accelerator of the pipeline, handing its items to `reader`. */
export function scanAccelerator(reader: ItemVisitor): Accelerator<IptablesSink> {
  return (text, start, end, sink) => end - start <= LINE_LIMITS.iptables.maxLength && tryScanLine(reader.lineOf(text, start, end), sink.line, reader);
}

/**
 * Returns false, having changed nothing but the scratch state, for any line it does not fully understand; the
 * reference reader reads those (and reports their errors).
 */
export function tryScanLine(text: string, i: number, reader: ItemVisitor): boolean {
  const s = reader.s;
  const tokens = s.tokens;
  const n = scanLine(text, tokens);
  if (n <= 0 || tokens.start[0] !== 0) return false;
  const kinds = tokens.kind;
  const c0 = text.charCodeAt(0);
  if (c0 === 67 /* C */) {
    if (n !== 1 || tokens.end[0] !== 6 || !text.startsWith('COMMIT')) return false;
    reader.commitLine(i, text);
    return true;
  }
  if (c0 !== 45 /* - */ && c0 !== 91 /* [ */) return false;
  let k = 0;
  let prefix = -1;
  if (c0 === 91) {
    if (tokens.quoted[0] || !FULL_COUNTERS.test(text.slice(tokens.start[0], tokens.end[0]))) return false;
    prefix = 0;
    k = 1;
  }
  s.ensureItems((n >> 1) + 1);
  let m = 0;
  while (k < n) {
    let neg = -1;
    if (kinds[k] === K_BANG) {
      neg = k++;
      if (k >= n) return false;
    }
    const kind = kinds[k];
    if (kind !== K_LONG && kind !== K_SHORT) return false;
    const opt = k++;
    // `--opt ! value` (pre-1.4.3 negation): an error the reference reader reports.
    if (k + 1 < n && kinds[k] === K_BANG && kinds[k + 1] === K_VALUE) return false;
    const v0 = k;
    while (k < n && kinds[k] === K_VALUE) k++;
    s.neg[m] = neg;
    s.opt[m] = opt;
    s.late[m] = -1;
    s.v0[m] = v0;
    s.nv[m] = k - v0;
    m++;
  }
  if (m === 0) return false;
  reader.commandLine(i, text, prefix, m, undefined);
  return true;
}
