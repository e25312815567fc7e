// The token-level accelerators of the nft text reader (ParseOptions.accelerators 'on'): the reader (reference.ts)
// lexes lines with fastLexLine instead of Chevrotain's lexer, takes a line's tokens as its unit, and makes the CST
// of plain units (rules, `type`/`flags` of sets) directly instead of running the grammar. Each gives exactly what
// the reference path gives (test/unit/parse-accelerators.test.ts, nft-fast-path.test.ts); with 'off' the reader
// goes lexer → grammar → visitor only. One FastUnits per parse.
import type { CstNode, IToken } from 'chevrotain';
import type { Item } from '../grammar';
import { Comma, Flags, isWordy, LBrace, LParen, RBrace, RParen, Semicolon, TypeKw, UnterminatedString, Variable, Word } from '../lexer';
import { groupItems } from '../nodes';
import type { BlockKind } from '../text-sink';
import { fastLexLine } from './fast-lex';

export class FastUnits {
  /** The current line's tokens when fastLexLine read it (canReread looks at them). */
  private lineTokens: IToken[] | undefined;
  private lineTokenCursor = 0;

  /** A new line: the last one's tokens are forgotten. */
  newLine(): void {
    this.lineTokens = undefined;
  }

  /** The tokens and comment of line `line`, or undefined for the reference lexer (see fastLexLine). */
  lexLine(text: string, intern: Map<string, string> | undefined, line: number, outliveLine: boolean): { tokens: IToken[]; comment: IToken | undefined } | undefined {
    const lexed = fastLexLine(text, intern, line, 0, text.length, outliveLine);
    this.lineTokens = lexed?.tokens;
    this.lineTokenCursor = 0;
    return lexed;
  }

  /** Whether a line's tokens are one whole unit as they are: nothing in them for the unit cutter to act on. */
  isWholeUnit(tokens: readonly IToken[]): boolean {
    return !hasStructureToken(tokens);
  }

  /** A chain's unit starting with a word (a rule, a chain's comment or flags) as items, without the CST. */
  chainItems(tokens: IToken[]): Item[] | undefined {
    return tokens[0].tokenType === Word ? groupItems(tokens) : undefined;
  }

  /** The CST the grammar builds for a plain unit in a block of kind `ctx`, or undefined when the grammar is needed. */
  plainUnit(tokens: IToken[], ctx: BlockKind | 'top'): CstNode | undefined {
    return plainItemsUnit(tokens, ctx) ?? (ctx === 'set' || ctx === 'map' ? plainSetUnit(tokens) : undefined);
  }

  /**
   * Whether the rule in columns [start, end) of the line lexLine read last can be read again from its line: the
   * line lexes fast, and the rule has no variable and no `;` (as RereadCheck answers for the reference path).
   */
  canReread(start: number, end: number): boolean {
    const tokens = this.lineTokens;
    if (tokens === undefined) return false;
    // Rules of one line come in order: go on from where the last one ended (no quadratic scan of long lines).
    let k = this.lineTokenCursor;
    while (k < tokens.length && tokens[k].startOffset < start) k++;
    let ok = true;
    for (; k < tokens.length && tokens[k].startOffset < end; k++) {
      const type = tokens[k].tokenType;
      if (type === Variable || type === Semicolon) ok = false;
    }
    this.lineTokenCursor = k;
    return ok;
  }
}

/**
 * The CST of a unit that is a plain list of items (a rule, a property, a command): what the grammar's
 * `items` alternative builds, without running the parser. A unit starting with a Word always takes that
 * alternative (the others start with keyword tokens); undefined when the grammar would reject the unit or
 * when the parser is needed (`;` or unbalanced braces and parentheses inside the unit).
 */
function plainItemsUnit(tokens: IToken[], ctx: BlockKind | 'top'): CstNode | undefined {
  if (tokens[0].tokenType !== Word) return undefined;
  const top = groupItems(tokens);
  if (top === undefined) return undefined;
  const name = ctx === 'top' ? 'topUnit' : ctx === 'chain' ? 'chainUnit' : ctx === 'set' || ctx === 'map' ? 'setUnit' : 'plainUnit';
  return { name, children: { items: [{ name: 'items', children: { item: top } }] } };
}

/**
 * `type WORD` and `flags WORD, WORD…` in a set or map block (each of a dump's thousands of affinity sets has both):
 * the CST the grammar's setUnit builds, as far as setUnit reads it; undefined for other units.
 */
function plainSetUnit(tokens: IToken[]): CstNode | undefined {
  const n = tokens.length;
  const first = tokens[0].tokenType;
  if (first === TypeKw) {
    if (n !== 2 || !isWordy(tokens[1])) return undefined;
    return { name: 'setUnit', children: { typeSpec: [{ name: 'typeSpec', children: { keyword: [tokens[0]], key: [{ name: 'typeExpr', children: { item: [tokens[1]] } }] } }] } };
  }
  if (first !== Flags || n % 2 !== 0) return undefined;
  const flag: IToken[] = [];
  const commas: IToken[] = [];
  for (let k = 1; k < n; k += 2) {
    if (!isWordy(tokens[k])) return undefined;
    flag.push(tokens[k]);
    if (k + 1 === n) break;
    if (tokens[k + 1].tokenType !== Comma) return undefined;
    commas.push(tokens[k + 1]);
  }
  const children: CstNode['children'] = { Flags: [tokens[0]], flag };
  if (commas.length > 0) children.Comma = commas;
  return { name: 'setUnit', children: { flagsSpec: [{ name: 'flagsSpec', children }] } };
}

/** Whether one of the tokens is one feed() does more with than add it to the unit. */
function hasStructureToken(tokens: readonly IToken[]): boolean {
  for (let k = 0; k < tokens.length; k++) {
    const type = tokens[k].tokenType;
    if (type === LBrace || type === RBrace || type === Semicolon || type === LParen || type === RParen || type === UnterminatedString) return true;
  }
  return false;
}
