// Growing the typed arrays that parsers and indexes fill one entry at a time.

/** A copy of `array`, of the same kind, with room for `size` elements (the rest zero). */
export function grown<T extends Int32Array | Float64Array | Uint8Array>(array: T, size: number): T {
  const out = new (array.constructor as new (length: number) => T)(size);
  out.set(array as ArrayLike<number>);
  return out;
}

/** `size` doubled until it holds `capacity` (scratch arrays grow this way: few regrowths, at most twice the need). */
export function doubledTo(size: number, capacity: number): number {
  let n = Math.max(size, 1);
  while (n < capacity) n *= 2;
  return n;
}
