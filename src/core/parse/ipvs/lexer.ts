// Tokens of one line of ipvsadm output (`-L`, `-Ln`, `--stats`, `--rate`, `-c`, …) or of `ipvsadm -S` /
// `ipvsadm -R` input. Lines are lexed one at a time, so every token offset is a column.
import { createToken, Lexer, type TokenType } from 'chevrotain';
import { lazyLexer } from '../lazyLexer';

const END = '(?![^ \\t\\f\\v\\r])';
const word = (source: string) => new RegExp(source + END);

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\f\v\r]+/, group: Lexer.SKIPPED });
/** ipvsadm prints no comments; people add them (and `ipset restore`-style files have them). */
export const Comment = createToken({ name: 'Comment', pattern: /#.*/ });
const PRINTABLE_ASCII = Array.from({ length: 126 - 33 + 1 }, (_, k) => String.fromCharCode(33 + k));
export const Word = createToken({ name: 'Word', pattern: /[^ \t\f\v\r]+/, start_chars_hint: PRINTABLE_ASCII });
/** `IP Virtual Server version 1.2.1 (size=4096)` */
export const VersionHeader = createToken({ name: 'VersionHeader', pattern: /IP Virtual Server version(?![^ \t\f\v\r])/ });
/** `IPVS connection entries` (ipvsadm -Lc) */
export const ConnectionsHeader = createToken({ name: 'ConnectionsHeader', pattern: /IPVS connection entries(?![^ \t\f\v\r])/ });
/** `Timeout (tcp tcpfin udp): 900 120 300` (ipvsadm -L --timeout) */
export const TimeoutHeader = createToken({ name: 'TimeoutHeader', pattern: /Timeout \(tcp tcpfin udp\):/ });
/** `Prot LocalAddress:Port …` column titles */
export const Prot = createToken({ name: 'Prot', pattern: word('Prot'), longer_alt: Word });
/** `pro expire state source virtual destination` (connection table titles) */
export const Pro = createToken({ name: 'Pro', pattern: word('pro'), longer_alt: Word });
export const Arrow = createToken({ name: 'Arrow', pattern: word('->'), longer_alt: Word });
export const Protocol = createToken({ name: 'Protocol', pattern: word('(?:TCP|UDP|SCTP)'), longer_alt: Word });
export const Fwm = createToken({ name: 'Fwm', pattern: word('FWM'), longer_alt: Word });
/** The `expire` column of a connection entry: `14:59`, `180:00`. */
export const Expire = createToken({ name: 'Expire', pattern: word('\\d{1,6}:[0-5]\\d'), longer_alt: Word });
export const LongOption = createToken({ name: 'LongOption', pattern: word('--[A-Za-z][A-Za-z0-9-]*'), longer_alt: Word });
export const ShortOption = createToken({ name: 'ShortOption', pattern: word('-[A-Za-z0-9]'), longer_alt: Word });

export const allTokens: TokenType[] = [WhiteSpace, Comment, VersionHeader, ConnectionsHeader, TimeoutHeader, Prot, Pro, Arrow, Protocol, Fwm, Expire, LongOption, ShortOption, Word];

export const lineLexer = lazyLexer(allTokens, {
  positionTracking: 'onlyOffset',
  ensureOptimizations: true,
});
