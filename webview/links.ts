// Markdown links to their text, in time linear in the text's length. A regex does the same job in quadratic
// time on hostile text (every `[` rescans to the end for a `]`; every failed target rescans to the end for a
// `)`), and a dump comment is hostile text. Without backslashes, the same result as
//   text.replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
// (a link's text has no `]`; its target has no `(` or `)` except in one level of balanced parentheses). A
// bracket escaped by a backslash (`\[`, how core/explain/markdown writes dump text) neither opens nor closes one.

/** `[text](target)` → `text`, every other character kept. */
export function stripLinks(text: string): string {
  let targets: TargetEnds | undefined;
  let out = '';
  let copied = 0;
  for (let open = unescaped(text, '[', 0); open >= 0;) {
    const close = unescaped(text, ']', open + 1);
    if (close < 0) break; // no `]` after this `[`, so none after any later one
    const end = text[close + 1] === '(' ? (targets ??= new TargetEnds(text)).endFrom(close + 2) : -1;
    if (end < 0) {
      // Any `[` before `close` finds the same `]` and fails the same way.
      open = unescaped(text, '[', close + 1);
      continue;
    }
    out += text.slice(copied, open) + text.slice(open + 1, close);
    copied = end + 1;
    open = unescaped(text, '[', copied);
  }
  return out + text.slice(copied);
}

/**
 * The first `ch` at or after `from` that no backslash escapes, or -1. Each `[` and `]` is looked at by one call
 * only, and the backslash run before it belongs to it alone, so the scans stay linear.
 */
function unescaped(text: string, ch: '[' | ']', from: number): number {
  for (let at = text.indexOf(ch, from); at >= 0; at = text.indexOf(ch, at + 1)) {
    let slashes = 0;
    while (text[at - slashes - 1] === '\\') slashes++;
    if (slashes % 2 === 0) return at;
  }
  return -1;
}

/**
 * Where a link target that starts at a position ends (its closing `)`), or -1. The scan from a position is
 * deterministic, so scans that meet share the rest of the way: each position's answer is computed once.
 */
class TargetEnds {
  /** Known answers; -2 for not yet known. */
  private readonly end: Int32Array;
  /** The first `)` at or after each position, or -1. */
  private readonly nextClose: Int32Array;

  constructor(private readonly text: string) {
    this.end = new Int32Array(text.length + 1).fill(-2);
    this.nextClose = new Int32Array(text.length + 1).fill(-1);
    for (let i = text.length - 1; i >= 0; i--) this.nextClose[i] = text[i] === ')' ? i : this.nextClose[i + 1];
  }

  endFrom(start: number): number {
    const visited: number[] = [];
    let at = start;
    let result = this.end[at];
    while (result === -2) {
      visited.push(at);
      const ch = this.text[at];
      if (ch === undefined) result = -1;
      else if (ch === ')') result = at;
      else if (ch !== '(') at++;
      else if (this.nextClose[at] < 0) result = -1;
      else at = this.nextClose[at] + 1; // one level of parentheses: `(` up to the first `)`
      if (result === -2) result = this.end[at];
    }
    for (const i of visited) this.end[i] = result;
    return result;
  }
}
