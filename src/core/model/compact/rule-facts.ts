// What the Service catalog reads of a rule (comment, protocol, first source, destination port, session-affinity
// check and its seconds), kept as columns of the rule's line in one row of numbers per rule that has any: the
// parser fills them, the catalog reads them (docs/performance.md#memory). Rows are added in line order.
import { grown } from './typed-arrays';

/** Column slots of a row: the rule's line, then packed columns (packColumns) of value tokens, -1 when absent. */
export const FACT_LINE = 0;
export const FACT_COMMENT = 1;
export const FACT_PROTOCOL = 2;
export const FACT_SOURCE = 3;
export const FACT_PORT = 4;
export const FACT_SECONDS = 5;
export const FACT_FLAGS = 6;
const WIDTH = 7;

/** Flag bits of FACT_FLAGS. DOUBT: the line could not be read with certainty; the rule's details tell. */
export const DOUBT = 1;
export const AFFINITY = 2;
export const HAS_SOURCE = 4;
export const SOURCE_NEGATED = 8;
export const HAS_PORT = 16;
export const PORT_NEGATED = 32;
/** The comment is several words (kept whole in `commentWords`). */
export const COMMENT_WORDS = 64;
/** Quoted value tokens (to unquote): shifted by the slot (QUOTED << slot). */
export const QUOTED = 128;

export class RuleFactRows {
  private rows = new Int32Array(WIDTH * 64);
  count = 0;
  /** The comments of several words, by line (rare: kube-proxy quotes its comments). */
  readonly commentWords = new Map<number, string>();

  /** A new row for `line` (after any row added before), its columns absent; returns its index. */
  add(line: number): number {
    if ((this.count + 1) * WIDTH > this.rows.length) this.rows = grown(this.rows, this.rows.length * 2);
    const row = this.count++;
    const at = row * WIDTH;
    this.rows.fill(-1, at, at + WIDTH);
    this.rows[at + FACT_LINE] = line;
    this.rows[at + FACT_FLAGS] = 0;
    return row;
  }

  /** Drops the last row (it held nothing). */
  dropLast(): void {
    this.count--;
  }

  get(row: number, slot: number): number {
    return this.rows[row * WIDTH + slot];
  }

  set(row: number, slot: number, value: number): void {
    this.rows[row * WIDTH + slot] = value;
  }

  /** The row of `line`, or -1 (binary search: rows are in line order). */
  find(line: number): number {
    let low = 0;
    let high = this.count - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const at = this.rows[mid * WIDTH + FACT_LINE];
      if (at === line) return mid;
      if (at < line) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** Releases the spare room once the parse is done. */
  trim(): void {
    this.rows = this.rows.slice(0, this.count * WIDTH);
  }
}
