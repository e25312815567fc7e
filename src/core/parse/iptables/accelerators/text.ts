// Character tests of the accelerators: words, digits, names, read in place without slicing the line.

export const textIs = (text: string, start: number, end: number, word: string): boolean => end - start === word.length && text.startsWith(word, start);

/** Letters, digits, `_`, `.` and `-`: the characters of the chain names kubeRule reads. */
export const WORD_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) WORD_CHAR[c] = /[A-Za-z0-9_.-]/.test(String.fromCharCode(c)) ? 1 : 0;

/** The end of the name starting at `start` (a letter, digit or `_` first) followed by a space or `length`; else -1. */
export function wordEnd(text: string, start: number, length: number): number {
  if (start >= length) return -1;
  const first = text.charCodeAt(start);
  if (!(first < 128 && WORD_CHAR[first]) || first === 45 || first === 46) return -1;
  let p = start + 1;
  for (; p < length; p++) {
    const c = text.charCodeAt(p);
    if (c === 32) break;
    if (!(c < 128 && WORD_CHAR[c])) return -1;
  }
  return p;
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The end of the 1 to 15 digits (exact as numbers) at `start`, or -1. */
export function digitsEnd(text: string, start: number, length: number): number {
  let p = start;
  while (p < length && isDigit(text.charCodeAt(p))) p++;
  return p > start && p - start <= 15 ? p : -1;
}
