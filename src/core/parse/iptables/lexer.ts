// Tokens of one iptables-save / iptables-restore line. Lines are lexed one at a time, so every
// token offset is a column and a bad line can never disturb the next one.
import { createToken, Lexer, type TokenType } from 'chevrotain';
import { lazyLexer } from '../lazyLexer';

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\f\v\r]+/, group: Lexer.SKIPPED });
export const Comment = createToken({ name: 'Comment', pattern: /#.*/ });
export const Counters = createToken({ name: 'Counters', pattern: /\[\d+:\d+\]/ });
export const Bang = createToken({ name: 'Bang', pattern: /!(?![^ \t\f\v\r])/ });
export const TableName = createToken({ name: 'TableName', pattern: /\*[^ \t\f\v\r]*/ });
export const ChainDecl = createToken({ name: 'ChainDecl', pattern: /:[^ \t\f\v\r]*/ });
export const LongOption = createToken({ name: 'LongOption', pattern: /--[A-Za-z0-9][A-Za-z0-9_.-]*(?![^ \t\f\v\r])/ });
export const ShortOption = createToken({ name: 'ShortOption', pattern: /-[A-Za-z0-9](?![^ \t\f\v\r])/ });
// A word: bare characters and double-quoted parts (backslash escapes inside quotes), as iptables-restore joins them.
// Words start with printable ASCII (so the lexer can dispatch on the first character); anything else is
// reported as an unexpected character, which is what it is in a dump.
const PRINTABLE_ASCII = Array.from({ length: 126 - 33 + 1 }, (_, k) => String.fromCharCode(33 + k));
export const Word = createToken({
  name: 'Word',
  pattern: /(?:[^ \t\f\v\r"]|"(?:[^"\\]|\\.)*")+/,
  start_chars_hint: PRINTABLE_ASCII,
});
export const Commit = createToken({ name: 'Commit', pattern: /COMMIT/, longer_alt: Word });
// A quote that is never closed runs to the end of the line.
export const UnterminatedString = createToken({ name: 'UnterminatedString', pattern: /"(?:[^"\\]|\\.)*\\?(?![\s\S])/ });

export const allTokens: TokenType[] = [WhiteSpace, Comment, Counters, Bang, TableName, ChainDecl, LongOption, ShortOption, Commit, Word, UnterminatedString];

export const lineLexer = lazyLexer(allTokens, {
  positionTracking: 'onlyOffset',
  ensureOptimizations: true,
});

/** Removes the quoting of a Word: quotes delimit, and inside them a backslash escapes the next character. */
export function unquote(image: string): string {
  const firstQuote = image.indexOf('"');
  if (firstQuote < 0) return image;
  // The common `"text"`: one slice, not a string built character by character (which would keep a
  // rope of one node per character alive for every comment of a large dump).
  if (firstQuote === 0 && image.length >= 2 && image.charCodeAt(image.length - 1) === 34 && image.indexOf('"', 1) === image.length - 1 && !image.includes('\\')) {
    return image.slice(1, -1);
  }
  const parts: string[] = [];
  let quoted = false;
  let from = 0;
  for (let i = 0; i < image.length; i++) {
    const c = image.charCodeAt(i);
    if (quoted && c === 92 /* \\ */ && i + 1 < image.length) {
      parts.push(image.slice(from, i));
      from = ++i; // the escaped character is kept as it is
    } else if (c === 34 /* " */) {
      parts.push(image.slice(from, i));
      quoted = !quoted;
      from = i + 1;
    }
  }
  parts.push(image.slice(from));
  return parts.join('');
}
