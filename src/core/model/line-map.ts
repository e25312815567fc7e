// Per-line indexes of the models (rules, real servers, ipset members by line).
import { grown } from './compact/typed-arrays';

/**
 * A Map keyed by line whose entries live outside the Map itself: everything that iterates goes through the
 * subclass's entries(). (A structured clone sees an empty Map: plainData copies these into plain Maps.)
 */
abstract class LineKeyedMap<V> extends Map<number, V> {
  abstract override entries(): MapIterator<[number, V]>;

  override forEach(callback: (value: V, key: number, map: Map<number, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  override *keys(): MapIterator<number> {
    for (const [k] of this.entries()) yield k;
  }

  override *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  override [Symbol.iterator](): MapIterator<[number, V]> {
    return this.entries();
  }
}

/**
 * A Map from 0-based line numbers, for the per-line indexes that have an entry on most lines (a real server,
 * an ipset member): one array slot per line instead of a hash table entry (about a quarter of the memory).
 * Behaves as a Map whose keys are line numbers added in increasing order (how the parsers add them, each line
 * once, in order): iteration is by increasing line. Values are never undefined.
 */
export class LineMap<V> extends LineKeyedMap<V> {
  #values: Array<unknown> = [];
  #size = 0;

  /** The value of a stored item (a subclass may store something smaller than the value and make it here). */
  protected view(stored: unknown): V {
    return stored as V;
  }

  /** Stores an item that view() turns into the value. */
  protected store(line: number, item: unknown): void {
    this.set(line, item as V);
  }

  /**
   * Makes room for lines 0 to `lines` - 1 at once, before the first entry: an array grown entry by entry leaves
   * its outgrown copies behind as garbage (megabytes for a large dump) and keeps up to half again as many slots.
   */
  reserve(lines: number): void {
    if (this.#size === 0 && this.#values.length === 0 && Number.isInteger(lines) && lines > 0 && lines < 0x40000000) this.#values = new Array(lines);
  }

  override get size(): number {
    return this.#size;
  }

  override get(line: number): V | undefined {
    const v = Number.isInteger(line) && line >= 0 ? this.#values[line] : undefined;
    return v === undefined ? undefined : this.view(v);
  }

  override has(line: number): boolean {
    return Number.isInteger(line) && line >= 0 && this.#values[line] !== undefined;
  }

  override set(line: number, value: V): this {
    if (!(Number.isInteger(line) && line >= 0 && line < 0x40000000)) throw new RangeError(`LineMap: ${line} is not a line number`);
    const values = this.#values;
    if (line < values.length) {
      if (values[line] === undefined) this.#size++;
      values[line] = value;
      return this;
    }
    while (values.length < line) values.push(undefined);
    values.push(value);
    this.#size++;
    return this;
  }

  override delete(line: number): boolean {
    if (!this.has(line)) return false;
    this.#values[line] = undefined;
    this.#size--;
    return true;
  }

  override clear(): void {
    this.#values = [];
    this.#size = 0;
  }

  override *entries(): MapIterator<[number, V]> {
    const values = this.#values;
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      if (v !== undefined) yield [k, this.view(v)];
    }
  }
}

/**
 * A Map from 0-based line numbers for per-line indexes with an entry on some of the lines (the nft rules by the
 * line they start on, some 215,000 of them in a dump of 10,000 Services): the lines in a typed array and the values
 * in an array, both in increasing line order, found by binary search (under half the memory of a hash table's
 * entries). Behaves as a Map whose keys are line numbers added in increasing order, as the parsers add them (a
 * smaller one is inserted in its place, slowly): iteration is by increasing line. Values are never undefined.
 */
export class SortedLineMap<V> extends LineKeyedMap<V> {
  #lines = new Int32Array(16);
  /** The value of each line in #lines; undefined once deleted. */
  #values: (V | undefined)[] = [];
  #size = 0;

  /** The index of `line` in #lines, or of the first line after it (#values.length when none). */
  #find(line: number): number {
    const lines = this.#lines;
    let low = 0;
    let high = this.#values.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (lines[mid] < line) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  override get size(): number {
    return this.#size;
  }

  override get(line: number): V | undefined {
    if (!Number.isInteger(line)) return undefined;
    const k = this.#find(line);
    return k < this.#values.length && this.#lines[k] === line ? this.#values[k] : undefined;
  }

  override has(line: number): boolean {
    return this.get(line) !== undefined;
  }

  override set(line: number, value: V): this {
    if (!(Number.isInteger(line) && line >= 0 && line < 0x7fffffff)) throw new RangeError(`SortedLineMap: ${line} is not a line number`);
    const values = this.#values;
    const n = values.length;
    const k = n > 0 && line > this.#lines[n - 1] ? n : this.#find(line);
    if (k < n && this.#lines[k] === line) {
      if (values[k] === undefined) this.#size++;
      values[k] = value;
      return this;
    }
    if (n === this.#lines.length) this.#lines = grown(this.#lines, n * 2);
    if (k < n) {
      this.#lines.copyWithin(k + 1, k, n);
      values.splice(k, 0, value);
    } else values.push(value);
    this.#lines[k] = line;
    this.#size++;
    return this;
  }

  override delete(line: number): boolean {
    if (!Number.isInteger(line)) return false;
    const k = this.#find(line);
    if (k >= this.#values.length || this.#lines[k] !== line || this.#values[k] === undefined) return false;
    this.#values[k] = undefined;
    this.#size--;
    return true;
  }

  override clear(): void {
    this.#lines = new Int32Array(16);
    this.#values = [];
    this.#size = 0;
  }

  override *entries(): MapIterator<[number, V]> {
    const values = this.#values;
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      if (v !== undefined) yield [this.#lines[k], v];
    }
  }
}
