// Tokens of nft text (`nft list ruleset` output and `nft -f` scripts). Lines are lexed one at a time (a
// token never spans lines in nft), so token offsets are columns; the builder stamps each token's line.
//
// nft words are permissive: names such as `service-ULMVA6XW-ns1/svc1/tcp/p80__10.180.0.1/80`, addresses
// with prefixes and ranges (`10.0.0.0/8`, `10.0.0.1-10.0.0.9`), IPv6 (`dead:beef::/64`, `[::1]:80`), MACs and
// `addr:port` are one Word each. A `.`, `:`, `-`, `+` or `/` only continues a word when a word character
// follows, so the operators nft prints with spaces around them (` . `, ` : `, `dstnat - 10`, `syn / syn,ack`)
// are tokens of their own.
import { createToken, Lexer, type IToken, type TokenType } from 'chevrotain';
import { lazyLexer } from '../lazyLexer';

/** Everything the grammar accepts as one item of a statement (all tokens but braces, parens, `;`). */
export const Atom = createToken({ name: 'Atom', pattern: Lexer.NA });

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\f\v\r]+/, group: Lexer.SKIPPED });
export const Comment = createToken({ name: 'Comment', pattern: /#.*/, group: 'comments' });
export const StringTok = createToken({ name: 'String', pattern: /"[^"]*"/, categories: [Atom] });
export const UnterminatedString = createToken({ name: 'UnterminatedString', pattern: /"[^"]*/ });

export const LBrace = createToken({ name: 'LBrace', pattern: /\{/ });
export const RBrace = createToken({ name: 'RBrace', pattern: /\}/ });
export const LParen = createToken({ name: 'LParen', pattern: /\(/ });
export const RParen = createToken({ name: 'RParen', pattern: /\)/ });
export const Semicolon = createToken({ name: 'Semicolon', pattern: /;/ });
export const Comma = createToken({ name: 'Comma', pattern: /,/, categories: [Atom] });

export const EqEq = createToken({ name: 'EqEq', pattern: /==/, categories: [Atom] });
export const NotEq = createToken({ name: 'NotEq', pattern: /!=/, categories: [Atom] });
export const LessEq = createToken({ name: 'LessEq', pattern: /<=/, categories: [Atom] });
export const GreaterEq = createToken({ name: 'GreaterEq', pattern: /\>=/, categories: [Atom] });
export const ShiftLeft = createToken({ name: 'ShiftLeft', pattern: /<</, categories: [Atom] });
export const ShiftRight = createToken({ name: 'ShiftRight', pattern: />>/, categories: [Atom] });
export const Less = createToken({ name: 'Less', pattern: /</, categories: [Atom] });
export const Greater = createToken({ name: 'Greater', pattern: />/, categories: [Atom] });
export const Assign = createToken({ name: 'Assign', pattern: /=/, categories: [Atom] });
export const Bang = createToken({ name: 'Bang', pattern: /!/, categories: [Atom] });
export const Amp = createToken({ name: 'Amp', pattern: /&/, categories: [Atom] });
export const Pipe = createToken({ name: 'Pipe', pattern: /\|/, categories: [Atom] });
export const Caret = createToken({ name: 'Caret', pattern: /\^/, categories: [Atom] });

/** `@th,16,16`, `@nh,0,8`, `tcp option @42,16,4`: raw payload offsets, not set references. */
export const RawPayload = createToken({ name: 'RawPayload', pattern: /@(?:ll|nh|th|ih|\d+),\d+,\d+/, categories: [Atom] });
export const SetRef = createToken({ name: 'SetRef', pattern: /@\$?[A-Za-z0-9_]+(?:[-./]+[A-Za-z0-9_]+)*[-/]*/, categories: [Atom] });
export const Variable = createToken({ name: 'Variable', pattern: /\$[A-Za-z_][A-Za-z0-9_]*/, categories: [Atom] });

// A word: basic characters, bracketed IPv6 literals, connectors followed by a word character, and a trailing `::`.
const BASIC = 'A-Za-z0-9_*%~';
// A word does not start with a single `:` before a letter: `redirect to :tcp dport map { … }` is a port expression.
// It may end in `-` or `/` (nft identifiers may: kube-proxy names chains of unnamed ports `service-…/ns/svc/tcp/`).
const WORD_RE = new RegExp(`(?:[${BASIC}]|\\[[^\\]\\s]*\\]|::|[-+/.]+(?=[${BASIC}\\[])|:(?=[0-9\\[]))(?:[${BASIC}]|\\[[^\\]\\s]*\\]|[-+/.:]+(?=[${BASIC}\\[])|::|[-/]+)*`);
const WORD_START = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*%~[-+/.:'];

/** Names, keywords, numbers and addresses. Keywords below are in this category so a name may be any word. */
export const Identifier = createToken({ name: 'Identifier', pattern: Lexer.NA });
export const Word = createToken({ name: 'Word', pattern: WORD_RE, start_chars_hint: WORD_START, categories: [Identifier, Atom] });

export const Dot = createToken({ name: 'Dot', pattern: /\./, categories: [Atom] });
export const Colon = createToken({ name: 'Colon', pattern: /:/, categories: [Atom] });
export const Minus = createToken({ name: 'Minus', pattern: /-/, categories: [Atom] });
export const Plus = createToken({ name: 'Plus', pattern: /\+/, categories: [Atom] });
export const Slash = createToken({ name: 'Slash', pattern: /\//, categories: [Atom] });

function keyword(word: string): TokenType {
  const name = 'Kw_' + word.replace(/-/g, '_');
  return createToken({ name, pattern: new RegExp(word.replace(/-/g, '\\-')), longer_alt: Word, categories: [Identifier, Atom] });
}

// Only the words the grammar itself needs; statement keywords (`ip`, `meta`, `accept`, …) stay Words.
export const Include = keyword('include');
export const Define = keyword('define');
export const Redefine = keyword('redefine');
export const Undefine = keyword('undefine');
export const Typeof = keyword('typeof');
export const TypeKw = keyword('type');
export const Hook = keyword('hook');
export const Priority = keyword('priority');
export const Policy = keyword('policy');
export const Device = keyword('device');
export const Devices = keyword('devices');
export const Flags = keyword('flags');
export const Elements = keyword('elements');

export const KEYWORDS: TokenType[] = [Include, Define, Redefine, Undefine, Typeof, TypeKw, Hook, Priority, Policy, Devices, Device, Flags, Elements];

export const allTokens: TokenType[] = [
  WhiteSpace,
  Comment,
  StringTok,
  UnterminatedString,
  LBrace,
  RBrace,
  LParen,
  RParen,
  Semicolon,
  Comma,
  EqEq,
  NotEq,
  LessEq,
  GreaterEq,
  ShiftLeft,
  ShiftRight,
  Less,
  Greater,
  Assign,
  Bang,
  Amp,
  Pipe,
  Caret,
  RawPayload,
  SetRef,
  Variable,
  ...KEYWORDS,
  Word,
  Identifier,
  Dot,
  Colon,
  Minus,
  Plus,
  Slash,
  Atom,
];

export const lineLexer = lazyLexer(allTokens, {
  positionTracking: 'onlyOffset',
  ensureOptimizations: true,
});

/** Token types that name something (a Word or one of the keywords). */
const WORDY = new Set<TokenType>([Word, ...KEYWORDS]);

export function isWordy(token: IToken): boolean {
  return WORDY.has(token.tokenType);
}

/** The line a token was lexed from (stamped by the builder). */
export function lineOf(token: IToken): number {
  return token.startLine ?? 0;
}

/** The contents of a String token; other tokens as they are. */
export function unquote(image: string): string {
  return image.length >= 2 && image.charCodeAt(0) === 34 && image.charCodeAt(image.length - 1) === 34 ? image.slice(1, -1) : image;
}
