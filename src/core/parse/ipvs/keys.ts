// Tables of the ipvsadm sink that keep a 10,000-Service listing small: one string per IPv4 address, and the
// real server endpoints under the current service (to report one listed twice) without a string per line.
import { endpointNumber } from '../../model/address';

/**
 * One string per IPv4 address where it is cheap (an endpoint backs several virtual services): a fixed table of
 * the last address seen per hash slot. A Map of every address would be ~7 MB on a 10,000-Service node, garbage
 * once the parse is done but promoted to the old generation by then (docs/performance.md#memory: peak memory).
 */
export class AddressCache {
  readonly #values: Int32Array;
  readonly #strings: Array<string | undefined>;
  readonly #mask: number;

  /** `slots`: a power of two. */
  constructor(slots: number) {
    this.#values = new Int32Array(slots);
    this.#strings = new Array<string | undefined>(slots).fill(undefined);
    this.#mask = slots - 1;
  }

  /** The text at [start, end), which is the dotted address of `value` (ipv4Value), as the string kept for it. */
  address(value: number, text: string, start: number, end: number): string {
    const slot = (Math.imul(value, 0x9e3779b1) >>> 16) & this.#mask;
    const known = this.#strings[slot];
    if (known !== undefined && this.#values[slot] === value) return known;
    const address = text.slice(start, end);
    this.#strings[slot] = address;
    this.#values[slot] = value;
    return address;
  }
}

/**
 * The endpoint texts of the real servers listed under one service line, to report one listed twice. A dotted
 * `address:port` (nearly all) is kept as its endpointNumber in one open-addressing table reused for every
 * service (a Set of key strings per service made a string and a hash table per line and service, docs/performance.md#memory);
 * another text in a Set of strings.
 */
export class ServerKeys {
  #keys = new Float64Array(64);
  /** The generation (#generation) an entry of #keys belongs to: older entries are empty slots. */
  #stamps = new Int32Array(64);
  #generation = 1;
  #count = 0;
  #strings: Set<string> | undefined;

  /** Forgets every text (a new service line). */
  clear(): void {
    if (this.#count === 0 && this.#strings === undefined) return;
    this.#count = 0;
    this.#strings = undefined;
    if (++this.#generation === 0x7fffffff) {
      this.#stamps.fill(0);
      this.#generation = 1;
    }
  }

  /** Adds the text at [start, end) of `text`; whether it was there already. */
  add(text: string, start: number, end: number): boolean {
    const key = endpointNumber(text, start, end);
    if (Number.isNaN(key)) {
      const s = text.slice(start, end);
      const strings = (this.#strings ??= new Set());
      if (strings.has(s)) return true;
      strings.add(s);
      return false;
    }
    if (2 * (this.#count + 1) > this.#keys.length) this.#grow();
    if (this.#insert(key)) return true;
    this.#count++;
    return false;
  }

  /** Inserts `key`; whether it was there already. */
  #insert(key: number): boolean {
    const keys = this.#keys;
    const stamps = this.#stamps;
    const mask = keys.length - 1;
    const generation = this.#generation;
    // address * 65536 + port < 2^48: mix its two halves.
    const hash = Math.imul((key >>> 0) ^ Math.imul((key / 4294967296) | 0, 0x85ebca6b), 0x9e3779b1);
    for (let slot = hash ^ (hash >>> 15); ; slot++) {
      slot &= mask;
      if (stamps[slot] !== generation) {
        stamps[slot] = generation;
        keys[slot] = key;
        return false;
      }
      if (keys[slot] === key) return true;
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const stamps = this.#stamps;
    const generation = this.#generation;
    this.#keys = new Float64Array(keys.length * 2);
    this.#stamps = new Int32Array(keys.length * 2);
    for (let k = 0; k < keys.length; k++) if (stamps[k] === generation) this.#insert(keys[k]);
  }
}
