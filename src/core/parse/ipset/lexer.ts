// Tokens of one line of `ipset save` / `ipset restore` input or of `ipset list` output. Lines are lexed one
// at a time, so every token offset is a column.
import { createToken, Lexer, type TokenType } from 'chevrotain';
import { lazyLexer } from '../lazyLexer';

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\f\v\r]+/, group: Lexer.SKIPPED });
/** `ipset restore` skips lines that start with `#` (leading whitespace allowed). */
export const Comment = createToken({ name: 'Comment', pattern: /#.*/ });
/** The field names of `ipset list`: `Name:`, `Type:`, `Revision:`, `Header:`, `Size in memory:`, `References:`, `Number of entries:`, `Members:`. */
export const ListKey = createToken({
  name: 'ListKey',
  pattern: /(?:Name|Type|Revision|Header|Size in memory|References|Number of entries|Members):(?![^ \t\f\v\r])/,
});
const PRINTABLE_ASCII = Array.from({ length: 126 - 33 + 1 }, (_, k) => String.fromCharCode(33 + k));
/** A word: bare characters and double-quoted parts (a member comment: `comment "ns/svc:port"`). */
export const Word = createToken({
  name: 'Word',
  pattern: /(?:[^ \t\f\v\r"]|"(?:[^"\\]|\\.)*")+/,
  start_chars_hint: PRINTABLE_ASCII,
});
/** Restore commands and their short aliases. */
export const Command = createToken({
  name: 'Command',
  pattern: /(?:create|add|del|test|destroy|flush|rename|swap|-N|-A|-D|-T|-X|-F|-E|-W)(?![^ \t\f\v\r])/,
  longer_alt: Word,
});
/** A quote that is never closed runs to the end of the line. */
export const UnterminatedString = createToken({ name: 'UnterminatedString', pattern: /"(?:[^"\\]|\\.)*\\?(?![\s\S])/ });

export const allTokens: TokenType[] = [WhiteSpace, Comment, ListKey, Command, Word, UnterminatedString];

export const lineLexer = lazyLexer(allTokens, {
  positionTracking: 'onlyOffset',
  ensureOptimizations: true,
});

/** Removes the quoting of a Word: quotes delimit, and inside them a backslash escapes the next character. */
export function unquote(image: string): string {
  if (!image.includes('"')) return image;
  let out = '';
  let quoted = false;
  for (let i = 0; i < image.length; i++) {
    const c = image[i];
    if (quoted && c === '\\' && i + 1 < image.length) {
      out += image[++i];
    } else if (c === '"') {
      quoted = !quoted;
    } else {
      out += c;
    }
  }
  return out;
}
