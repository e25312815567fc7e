// V8 makes a slice of 13 or more characters a view of the string it was cut from. Kept in a cache that lives
// longer than one parse, a name cut from a line would keep the whole document text (tens of MB) alive after the
// document is closed (issue #8). Shorter slices are copies already.

/** A copy of `s` that keeps no larger string alive. */
export function detached(s: string): string {
  // Concatenating makes a cons string; slicing it flattens it into a new string first.
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/**
 * Makes V8 forget the subject of the last regular-expression match (RegExp.lastMatch and friends): after a
 * parse it is a slice of the document, which keeps the whole text alive until some other match runs.
 */
export function releaseLastMatch(): void {
  /(?:)/.exec('');
}
