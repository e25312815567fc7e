// V8 makes a slice of 13 or more characters a view of the string it was cut from. Kept in a cache that lives
// longer than one parse, a name cut from a line would keep the whole document text (tens of MB) alive after the
// document is closed (docs/performance.md#memory). Shorter slices are copies already.

/**
 * A copy of `s` that keeps no larger string alive, of exactly its length: models keep many such strings (ipset
 * members as written, cache keys), and a slice of a flattened `' ' + s` would be a view of a copy, twice the memory.
 */
export function detached(s: string): string {
  // JSON.parse makes a new flat string (lone surrogates and quotes survive the round trip).
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/**
 * Makes V8 forget the subject of the last regular-expression match (RegExp.lastMatch and friends): after a
 * parse it is a slice of the document, which keeps the whole text alive until some other match runs.
 */
export function releaseLastMatch(): void {
  /(?:)/.exec('');
}
