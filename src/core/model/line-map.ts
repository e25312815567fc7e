// Per-line indexes of the models (rules, real servers, ipset members by line).

/**
 * A Map from 0-based line numbers, for the per-line indexes that have an entry on most lines (a real server,
 * an ipset member): one array slot per line instead of a hash table entry (about a quarter of the memory).
 * Behaves as a Map whose keys are line numbers added in increasing order (how the parsers add them, each line
 * once, in order): iteration is by increasing line. Values are never undefined.
 */
export class LineMap<V> extends Map<number, V> {
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

  override forEach(callback: (value: V, key: number, map: Map<number, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  override *entries(): MapIterator<[number, V]> {
    const values = this.#values;
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      if (v !== undefined) yield [k, this.view(v)];
    }
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
