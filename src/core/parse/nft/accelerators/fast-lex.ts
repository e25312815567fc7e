// The fast line lexer, an accelerator of the nft text reader (ParseOptions.accelerators 'on'): the tokens of a
// line as the reference lexer (lexer.ts, Chevrotain) gives them, or undefined for a line it leaves to that lexer.
import type { IToken, TokenType } from 'chevrotain';
import {
  Amp,
  Assign,
  Bang,
  Caret,
  Colon,
  Comma,
  Comment,
  Dot,
  EqEq,
  Greater,
  GreaterEq,
  KEYWORDS,
  LBrace,
  LParen,
  Less,
  LessEq,
  Minus,
  NotEq,
  Pipe,
  Plus,
  RBrace,
  RParen,
  RawPayload,
  Semicolon,
  SetRef,
  ShiftLeft,
  ShiftRight,
  Slash,
  StringTok,
  Variable,
  Word,
} from '../lexer';

// Chevrotain's lexer tries the token patterns one after another at every position; for
// a 600,000-line dump that is most of the lexing time. This hand-written scanner produces exactly the same
// tokens (image, startOffset, tokenTypeIdx, tokenType, plus the builder's startLine) as `lineLexer` for every
// line it accepts, and gives up (returns undefined) on anything the lexer would report as an error or that it
// does not model (unclosed `[`, non-ASCII outside strings and comments), so the caller falls back to
// `lineLexer`. test/unit/nft-fast-path.test.ts checks the equivalence.

const enum C {
  Tab = 9,
  Vt = 11,
  Ff = 12,
  Cr = 13,
  Space = 32,
  Bang = 33,
  Quote = 34,
  Hash = 35,
  Dollar = 36,
  Percent = 37,
  Amp = 38,
  LParen = 40,
  RParen = 41,
  Star = 42,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  D0 = 48,
  D9 = 57,
  Colon = 58,
  Semi = 59,
  Less = 60,
  Eq = 61,
  Greater = 62,
  At = 64,
  LBracket = 91,
  RBracket = 93,
  Caret = 94,
  Underscore = 95,
  LBrace = 123,
  Pipe = 124,
  RBrace = 125,
  Tilde = 126,
}

/** [A-Za-z0-9_*%~] as a table of the ASCII codes (one load per character of a word, instead of up to seven comparisons). */
const BASIC_CODES = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*%~') BASIC_CODES[c.charCodeAt(0)] = 1;

/** [A-Za-z0-9_*%~] */
function isBasic(c: number): boolean {
  return c < 128 && BASIC_CODES[c] === 1;
}

/** [A-Za-z0-9_] */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= C.D0 && c <= C.D9) || c === C.Underscore;
}

/** Whether fastLexLine skips `c` between tokens. */
export function isSpace(c: number): boolean {
  return c === C.Space || c === C.Tab || c === C.Cr || c === C.Ff || c === C.Vt;
}

/** `\[[^\]\s]*\]` at i: the end, or -1. */
function bracketEnd(s: string, i: number): number {
  const n = s.length;
  let k = i + 1;
  while (k < n) {
    const c = s.charCodeAt(k);
    if (c === C.RBracket) return k + 1;
    // \s: the ASCII blanks and the Unicode spaces; anything else non-ASCII is left to the Chevrotain lexer.
    if (isSpace(c) || c === 10 || c >= 0x80) return -1;
    k++;
  }
  return -1;
}

/** A maximal run of [-+/.:] (with `colon`) or [-+/.] at i, then whether a word character or `[` follows. */
function connectorEnd(s: string, i: number, colon: boolean): number {
  const n = s.length;
  let k = i;
  while (k < n) {
    const c = s.charCodeAt(k);
    if (c === C.Minus || c === C.Plus || c === C.Slash || c === C.Dot || (colon && c === C.Colon)) k++;
    else break;
  }
  if (k === i || k >= n) return -1;
  const c = s.charCodeAt(k);
  return isBasic(c) || c === C.LBracket ? k : -1;
}

/** WORD_RE at i: the end of the word, -1 when no word starts here, -2 when the scanner cannot tell. */
function wordEnd(s: string, i: number): number {
  const n = s.length;
  const c = s.charCodeAt(i);
  let k: number;
  // First item: [BASIC] | \[…\] | :: | [-+/.]+(?=[BASIC\[]) | :(?=[0-9\[])
  if (isBasic(c)) k = i + 1;
  else if (c === C.LBracket) {
    k = bracketEnd(s, i);
    if (k < 0) return -2;
  } else if (c === C.Colon && i + 1 < n && s.charCodeAt(i + 1) === C.Colon) k = i + 2;
  else if (c === C.Minus || c === C.Plus || c === C.Slash || c === C.Dot) {
    k = connectorEnd(s, i, false);
    if (k < 0) return -1;
  } else if (c === C.Colon && i + 1 < n && ((s.charCodeAt(i + 1) >= C.D0 && s.charCodeAt(i + 1) <= C.D9) || s.charCodeAt(i + 1) === C.LBracket)) k = i + 1;
  else return -1;
  // More items: [BASIC] | \[…\] | [-+/.:]+(?=[BASIC\[]) | :: | [-/]+
  while (k < n) {
    const d = s.charCodeAt(k);
    if (isBasic(d)) {
      k++;
      continue;
    }
    if (d === C.LBracket) {
      const e = bracketEnd(s, k);
      if (e < 0) return -2;
      k = e;
      continue;
    }
    if (d === C.Minus || d === C.Plus || d === C.Slash || d === C.Dot || d === C.Colon) {
      const e = connectorEnd(s, k, true);
      if (e >= 0) {
        k = e;
        continue;
      }
      if (d === C.Colon && k + 1 < n && s.charCodeAt(k + 1) === C.Colon) {
        k += 2;
        continue;
      }
      if (d === C.Minus || d === C.Slash) {
        while (k < n && (s.charCodeAt(k) === C.Minus || s.charCodeAt(k) === C.Slash)) k++;
        continue;
      }
    }
    break;
  }
  return k;
}

/** Where the Word or keyword token fastLexLine reads at `i` (where a token starts) ends, or -1 when none starts there. */
export function wordyEnd(s: string, i: number): number {
  const end = wordEnd(s, i);
  return end > i ? end : -1;
}

const KEYWORD_BY_IMAGE = new Map<string, TokenType>(KEYWORDS.map((k) => [(k.PATTERN as RegExp).source.replace(/\\-/g, '-'), k]));
/** The lengths of the keywords: words of other lengths (most names and addresses) are not looked up. */
const KEYWORD_MIN = Math.min(...[...KEYWORD_BY_IMAGE.keys()].map((k) => k.length));
const KEYWORD_MAX = Math.max(...[...KEYWORD_BY_IMAGE.keys()].map((k) => k.length));

/** Whether fastLexLine reads `s` from `start` (where a token starts) as one Word token ending at `end`. */
export function isWordAt(s: string, start: number, end: number): boolean {
  if (end <= start || wordEnd(s, start) !== end) return false;
  const c = s.charCodeAt(start);
  const length = end - start;
  return !(c >= 97 && c <= 122 && length >= KEYWORD_MIN && length <= KEYWORD_MAX && KEYWORD_BY_IMAGE.has(s.slice(start, end)));
}

const RAW_PAYLOAD_AT = /@(?:ll|nh|th|ih|\d+),\d+,\d+/y;
const SET_REF_AT = /@\$?[A-Za-z0-9_]+(?:[-./]+[A-Za-z0-9_]+)*[-/]*/y;
/** Where `#.*` stops (lines never hold \n or \r, but the scanner does not rely on that). */
const LINE_SEPARATORS = /[\n\r\u2028\u2029]/;
/** V8 copies substrings shorter than 13 characters (longer ones are slices of the line): those are worth sharing. */
export const MAX_INTERNED = 12;

/** Where the SetRef token fastLexLine reads at `i` (an `@`) ends, or -1 when it reads another token or none there. */
export function setRefEnd(s: string, i: number): number {
  RAW_PAYLOAD_AT.lastIndex = i;
  if (RAW_PAYLOAD_AT.test(s)) return -1;
  SET_REF_AT.lastIndex = i;
  const m = SET_REF_AT.exec(s);
  return m ? i + m[0].length : -1;
}

/**
 * One run of fastLexLine: the tokens made so far, the line they are stamped with, and which allocation site makes
 * them. Made per call (never shared), so the scanner carries no state from one call to the next.
 */
class LineScan {
  readonly tokens: IToken[] = [];
  constructor(
    readonly line: number,
    /** The caller keeps the tokens past the next lines (see heldToken). */
    readonly outliveLine: boolean,
  ) {}

  /** The token, pushed: `next`, the index after it. */
  push(image: string, startOffset: number, tokenType: TokenType, next: number): number {
    this.tokens.push(tok(this, image, startOffset, tokenType));
    return next;
  }
}

function tok(scan: LineScan, image: string, startOffset: number, tokenType: TokenType): IToken {
  // Chevrotain's tokens with positionTracking 'onlyOffset' (Lexer.createOffsetOnlyToken), plus the two
  // properties the builder adds to every token (its line, and the range cache of statements.ts) declared up
  // front, which saves V8 a map transition and an out-of-object property store per token.
  return scan.outliveLine ? heldToken(image, startOffset, tokenType, scan.line) : lineToken(image, startOffset, tokenType, scan.line);
}

// Two allocation sites for the same token (see ReadingSites in statements.ts): the tokens of a unit
// spanning lines (an element list of 10,000 lines) live until the unit ends, and V8 would then allocate every
// later token, which dies with its line, in the old generation.
function lineToken(image: string, startOffset: number, tokenType: TokenType, startLine: number): IToken {
  return { image, startOffset, tokenTypeIdx: tokenType.tokenTypeIdx!, tokenType, startLine, r: undefined } as IToken;
}

function heldToken(image: string, startOffset: number, tokenType: TokenType, startLine: number): IToken {
  return { image, startOffset, tokenTypeIdx: tokenType.tokenTypeIdx!, tokenType, startLine, r: undefined } as IToken;
}

/** What the token scanners below answer when the character does not start their kind of token. */
const NOT_HERE = -1;
/** What they answer for a token the fast scanner leaves to Chevrotain (the whole line goes there). */
const NOT_FAST = -2;

/** The one-character tokens, by character code: their image and token type. */
const SINGLE_CHARACTER: (readonly [string, TokenType] | undefined)[] = [];
for (const [code, image, type] of [
  [C.LBrace, '{', LBrace],
  [C.RBrace, '}', RBrace],
  [C.LParen, '(', LParen],
  [C.RParen, ')', RParen],
  [C.Semi, ';', Semicolon],
  [C.Comma, ',', Comma],
  [C.Amp, '&', Amp],
  [C.Pipe, '|', Pipe],
  [C.Caret, '^', Caret],
] as const) {
  SINGLE_CHARACTER[code] = [image, type];
}

/** The bracket, `;`, `,` or operator at i, pushed: the index after it, or NOT_HERE. */
function punctuationEnd(s: string, i: number, c: number, scan: LineScan): number {
  const single = SINGLE_CHARACTER[c];
  if (single !== undefined) {
    return scan.push(single[0], i, single[1], i + 1);
  }
  return comparisonEnd(s, i, c, scan);
}

/** `=`, `==`, `!`, `!=`, `<`, `<=`, `<<`, `>`, `>=`, `>>` at i, pushed: the index after it, or NOT_HERE. */
function comparisonEnd(s: string, i: number, c: number, scan: LineScan): number {
  const d = s.charCodeAt(i + 1);
  switch (c) {
    case C.Eq:
      if (d !== C.Eq) return scan.push('=', i, Assign, i + 1);
      return scan.push('==', i, EqEq, i + 2);
    case C.Bang:
      if (d !== C.Eq) return scan.push('!', i, Bang, i + 1);
      return scan.push('!=', i, NotEq, i + 2);
    case C.Less:
      if (d === C.Eq) return scan.push('<=', i, LessEq, i + 2);
      if (d === C.Less) return scan.push('<<', i, ShiftLeft, i + 2);
      return scan.push('<', i, Less, i + 1);
    case C.Greater:
      if (d === C.Eq) return scan.push('>=', i, GreaterEq, i + 2);
      if (d === C.Greater) return scan.push('>>', i, ShiftRight, i + 2);
      return scan.push('>', i, Greater, i + 1);
  }
  return NOT_HERE;
}

/** A string, `@set` or raw payload, or `$variable` at i, pushed: the index after it, NOT_FAST or NOT_HERE. */
function quotedOrReferenceEnd(s: string, i: number, c: number, scan: LineScan): number {
  switch (c) {
    case C.Quote: {
      const close = s.indexOf('"', i + 1);
      if (close < 0) return NOT_FAST;
      return scan.push(s.slice(i, close + 1), i, StringTok, close + 1);
    }
    case C.At: {
      RAW_PAYLOAD_AT.lastIndex = i;
      let m = RAW_PAYLOAD_AT.exec(s);
      let type = RawPayload;
      if (!m) {
        SET_REF_AT.lastIndex = i;
        m = SET_REF_AT.exec(s);
        type = SetRef;
      }
      if (!m) return NOT_FAST;
      return scan.push(m[0], i, type, i + m[0].length);
    }
    case C.Dollar: {
      let k = i + 1;
      const d = s.charCodeAt(k);
      if (!((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || d === C.Underscore)) return NOT_FAST;
      while (k < s.length && isNameChar(s.charCodeAt(k))) k++;
      return scan.push(s.slice(i, k), i, Variable, k);
    }
  }
  return NOT_HERE;
}

/** `.`, `:`, `-`, `+` or `/` standing alone at i, pushed: the index after it, or NOT_HERE. */
function separatorEnd(i: number, c: number, scan: LineScan): number {
  switch (c) {
    case C.Dot:
      return scan.push('.', i, Dot, i + 1);
    case C.Colon:
      return scan.push(':', i, Colon, i + 1);
    case C.Minus:
      return scan.push('-', i, Minus, i + 1);
    case C.Plus:
      return scan.push('+', i, Plus, i + 1);
    case C.Slash:
      return scan.push('/', i, Slash, i + 1);
  }
  return NOT_HERE;
}

/** The word (or keyword) in [i, end), pushed. */
function pushWord(s: string, i: number, end: number, c: number, intern: Map<string, string> | undefined, scan: LineScan): void {
  let image = s.slice(i, end);
  if (intern !== undefined && end - i <= MAX_INTERNED) {
    // Short words repeat (`ip`, `saddr`, `goto`, addresses): share one string instead of a copy per token.
    const known = intern.get(image);
    if (known === undefined) intern.set(image, image);
    else image = known;
  }
  const length = end - i;
  scan.push(image, i, (c >= 97 && c <= 122 && length >= KEYWORD_MIN && length <= KEYWORD_MAX && KEYWORD_BY_IMAGE.get(image)) || Word, end);
}

/**
 * The tokens and the comment of line number `line`, exactly as `lineLexer.tokenize` gives them (with
 * `startLine` set to `line`, as the builder stamps it), or undefined when the
 * line has something this scanner leaves to Chevrotain (lexer errors, unusual characters).
 */
export function fastLexLine(s: string, intern?: Map<string, string>, line = 0, from = 0, to = s.length, outliveLine = false): { tokens: IToken[]; comment: IToken | undefined } | undefined {
  // `from` must be where a token starts (or 0): the scanner carries no state from one token to the next, so the
  // tokens from there on are the line's. It stops before the first token at or after `to`. `outliveLine`: the
  // caller keeps the tokens past the next lines (they only differ in where V8 allocates them).
  const scan = new LineScan(line, outliveLine);
  let comment: IToken | undefined;
  const n = s.length;
  let i = from;
  while (i < n) {
    if (i >= to && !isSpace(s.charCodeAt(i))) break;
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === C.Hash) {
      const rest = s.slice(i);
      if (LINE_SEPARATORS.test(rest)) return undefined;
      comment = tok(scan, rest, i, Comment);
      i = n;
      continue;
    }
    let next = punctuationEnd(s, i, c, scan);
    if (next === NOT_HERE) next = quotedOrReferenceEnd(s, i, c, scan);
    if (next === NOT_FAST) return undefined;
    if (next !== NOT_HERE) {
      i = next;
      continue;
    }
    const end = wordEnd(s, i);
    if (end === -2) return undefined;
    if (end > i) {
      pushWord(s, i, end, c, intern, scan);
      i = end;
      continue;
    }
    next = separatorEnd(i, c, scan);
    if (next === NOT_HERE) return undefined;
    i = next;
  }
  return { tokens: scan.tokens, comment };
}
