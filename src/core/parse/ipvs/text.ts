// Where an ipvsadm line ends once trimmed, without making the trimmed string.

/**
 * `text.trimEnd().length` without making the trimmed string (ipvsadm ends its real server lines with spaces):
 * trailing spaces are counted here, any other trailing character that may be whitespace is left to trimEnd.
 */
export function trimmedLength(text: string): number {
  return trimmedEnd(text, 0, text.length);
}

/** Where the line at [start, end) of `text` ends once trimmed (trimmedLength in place). */
export function trimmedEnd(text: string, start: number, end: number): number {
  let k = end;
  while (k > start && text.charCodeAt(k - 1) === 32) k--;
  if (k === start) return start;
  const c = text.charCodeAt(k - 1);
  return c > 32 && c < 127 ? k : start + text.slice(start, end).trimEnd().length;
}
