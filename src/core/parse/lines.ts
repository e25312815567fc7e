// Lines of a dump, for every parser.

/**
 * Splits text into lines the way VS Code counts them (\r\n, \n or \r); a final line break starts no line.
 * The lines are slices of the text (they share its memory).
 */
export function splitLines(text: string): string[] {
  // Without CRs the native split does it, several times faster than the loop below.
  const lines = text.indexOf('\r') < 0 ? text.split('\n') : splitAtAnyBreak(text);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function splitAtAnyBreak(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      out.push(text.slice(from, i));
      from = i + 1;
    } else if (c === 13) {
      out.push(text.slice(from, i));
      if (text.charCodeAt(i + 1) === 10) i++;
      from = i + 1;
    }
  }
  out.push(text.slice(from));
  return out;
}
