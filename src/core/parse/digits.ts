// Numbers read in place by the parsers' fast paths (no slice, no Number()).

/**
 * The number the digits at [start, end) of `text` write, as Number() reads them. The caller has checked that they
 * are digits, at most 15 of them (exact as a double).
 */
export function digitsValue(text: string, start: number, end: number): number {
  let n = 0;
  for (let k = start; k < end; k++) n = n * 10 + (text.charCodeAt(k) - 48);
  return n;
}
