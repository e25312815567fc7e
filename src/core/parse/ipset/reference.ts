// The ipset reference reader: what a line of `ipset save` / `ipset restore` input or of an `ipset list` listing
// means, read the plain way. Start here to learn the dialect.
//
// 1. Tokens (lexer.ts): a line is cut into words, quoted strings, `Key:` list keys and comments.
// 2. Grammar (grammar.ts, a Chevrotain CstParser): a line is a comment, a `Key: value` field of a listing, a
//    command (`create NAME TYPE OPTIONS…`, `add NAME MEMBER OPTIONS…`, `del`, `flush`, `swap`, …), or, inside a
//    listing's Members: section, a member and its options.
// 3. Visitor (lineOf / memberOf in grammar.ts): the concrete syntax tree → a typed IpsetLineCst (kind, keyword,
//    values).
// 4. The sink (sink.ts) makes the model of it: what a command does to the sets, what a field says of one.
//
// The accelerators (accelerators/*.ts) read the commonest lines faster and must make the same model: the harness
// test (test/unit/parse-accelerators.test.ts) parses every input both ways.
import { lineRange, tokenRange, type Range } from '../../model/range';
import { t } from '../../l10n';
import { LINE_LIMITS, lineProblem } from '../pipeline';
import { promptCommand } from '../prompt';
import { IpsetLineParser, lineOf, memberOf } from './grammar';
import { lineLexer } from './lexer';
import type { IpsetSink } from './sink';

// Built on first parse, not at load: the grammar self-analysis costs milliseconds the extension's activation
// does not have. One instance, reused with a new input per line (Chevrotain's performance guide).
let parserInstance: IpsetLineParser | undefined;
const lineParser = (): IpsetLineParser => (parserInstance ??= new IpsetLineParser());

/** The Chevrotain parser, to release its last input after a parse (see releaseInputs). */
export const referenceParser = (): IpsetLineParser | undefined => parserInstance;

/** A line's text without its leading and trailing blanks, as a range. */
export function lineExtent(i: number, text: string): Range {
  const start = text.length - text.trimStart().length;
  return lineRange(i, start, Math.max(start, text.trimEnd().length));
}

/** Reads line `i` (its text, a copy that keeps no document alive) into the sink. */
export function readLine(sink: IpsetSink, i: number, text: string): void {
  if (text.trim() === '') {
    // A blank line ends a listed set (ipset list separates sets with one).
    if (sink.listed) sink.closeListed();
    return;
  }
  const problem = lineProblem(i, text, LINE_LIMITS.ipset);
  if (problem !== undefined) {
    sink.diag(problem.range, problem.severity, problem.code, problem.message);
    return;
  }
  const extent = lineExtent(i, text);
  if (promptCommand(text) !== undefined) {
    sink.closeListed();
    sink.diag(extent, 'information', 'shell-prompt', t('A shell prompt and command, not ipset output: ignored.'));
    return;
  }
  // 1. Tokens.
  const lexed = lineLexer.tokenize(text);
  if (lexed.errors.length > 0 || lexed.tokens.length === 0) {
    sink.notIpset(extent);
    return;
  }
  const unterminated = lexed.tokens.find((tk) => tk.tokenType.name === 'UnterminatedString');
  if (unterminated) {
    sink.diag(tokenRange(i, unterminated), 'error', 'unterminated-string', t('The quoted string is not closed.'));
    return;
  }
  // 2. Grammar, then 3. the visitor: which rule depends on where the line is (a listing's Members: section
  // holds member lines; a new key or a comment still reads as a line).
  const parser = lineParser();
  parser.input = lexed.tokens;
  if (sink.inMembers && lexed.tokens[0].tokenType.name !== 'ListKey' && lexed.tokens[0].tokenType.name !== 'Comment') {
    const cst = parser.memberLine();
    if (parser.errors.length === 0) sink.memberLine(i, memberOf(cst), extent);
    else sink.notIpset(extent);
    return;
  }
  const cst = parser.line();
  const parsed = parser.errors.length === 0 ? lineOf(cst) : undefined;
  // 4. The sink.
  if (!parsed) sink.notIpset(extent);
  else if (parsed.kind === 'field') sink.field(i, parsed, extent);
  else if (parsed.kind !== 'comment') sink.command(i, parsed, extent);
}
