// Step 2 of the nft text reference reader (reference.ts): the token stream cut into units. A unit ends at `;`, at
// the end of a line and at block braces; a newline inside `{ … }` of an anonymous set or element list does not end
// it. Whether a `{` opens a block (`chain x {`) or a group (`ip daddr { … }`) depends on the block the reader is
// in: the reader answers (UnitReader.opensBlock). One UnitCutter per parse.
import type { IToken } from 'chevrotain';
import type { Range } from '../../model/range';
import type { Severity } from '../../model/diagnostics';
import { t } from '../../l10n';
import { LBrace, LParen, RBrace, RParen, Semicolon, UnterminatedString } from './lexer';
import type { RangeSites } from './statements';

/** Braces and parentheses nested deeper than this inside one statement are refused (nft itself stops far earlier). */
export const MAX_NESTING = 64;

/** What the cutter asks of the reader. */
export interface UnitReader {
  readonly sites: RangeSites;
  diag(range: Range, severity: Severity, code: string, message: string): void;
  /** Whether `{` after the tokens of `unit` opens a block (it may first close blocks left open). */
  opensBlock(unit: readonly IToken[]): boolean;
  /**
   * A unit: its tokens, whether it was reported broken already, and the `{` after it that opens a block. Called for
   * every non-empty or broken unit, and for every block-opening `{`.
   */
  unit(tokens: IToken[], broken: boolean, blockOpen: IToken | undefined): void;
  /** A `}` outside any group: it closes the innermost block. */
  closeBrace(token: IToken): void;
}

export class UnitCutter {
  private tokens: IToken[] = [];
  /** Braces and parentheses open in the unit. */
  private depth = 0;
  private parens = 0;
  private openGroups: IToken[] = [];
  private broken = false;

  constructor(private readonly reader: UnitReader) {}

  /** Whether nothing is pending: no tokens, no open group, no broken unit (a line can be read on its own). */
  get idle(): boolean {
    return this.depth === 0 && this.tokens.length === 0 && !this.broken;
  }

  /** Whether a `{` of the unit is still open (an element list going on over lines). */
  get inGroup(): boolean {
    return this.depth > 0;
  }

  /** The unit has a problem reported already: it is dropped when it ends. */
  markBroken(): void {
    this.broken = true;
  }

  /** A line's tokens that are one whole unit as they are (see FastUnits.isWholeUnit), taken without feeding them. */
  takeLine(tokens: IToken[]): boolean {
    if (this.tokens.length !== 0 || this.depth !== 0) return false;
    if (tokens.length > 0) this.tokens = tokens;
    return true;
  }

  feed(token: IToken): void {
    switch (token.tokenType) {
      case LBrace:
        if (this.depth === 0 && this.tokens.length > 0 && this.reader.opensBlock(this.tokens)) {
          this.flush(token);
          return;
        }
        this.depth++;
        this.openGroups.push(token);
        this.tokens.push(token);
        this.checkNesting(token);
        return;
      case RBrace:
        if (this.depth === 0) {
          this.flush();
          this.reader.closeBrace(token);
          return;
        }
        this.depth--;
        this.openGroups.pop();
        this.tokens.push(token);
        return;
      case Semicolon:
        if (this.depth === 0) {
          this.flush();
          return;
        }
        this.tokens.push(token);
        return;
      case LParen:
        this.parens++;
        this.tokens.push(token);
        this.checkNesting(token);
        return;
      case RParen:
        if (this.parens > 0) this.parens--;
        this.tokens.push(token);
        return;
      case UnterminatedString:
        this.reader.diag(this.reader.sites.item(token), 'error', 'unterminated-string', t('The quoted string is not closed.'));
        this.broken = true;
        return;
      default:
        this.tokens.push(token);
    }
  }

  private checkNesting(token: IToken): void {
    if (this.depth + this.parens === MAX_NESTING + 1 && !this.broken) {
      this.reader.diag(this.reader.sites.item(token), 'error', 'too-deep', t('Nested more than {0} levels deep; not analysed.', MAX_NESTING));
      this.broken = true;
    }
  }

  /** The end of a line: it ends the unit unless a group is open. */
  endOfLine(): void {
    if (this.depth === 0) this.flush();
  }

  /** Reports the innermost `{` left open. */
  reportOpenGroup(): void {
    const open = this.openGroups[this.openGroups.length - 1];
    if (open) this.reader.diag(this.reader.sites.item(open), 'error', 'missing-brace', t('This { is never closed.'));
  }

  /** A `{` was never closed (a declaration starts while it is open): reported, and the unit dropped. */
  abandonOpenGroup(): void {
    this.reportOpenGroup();
    this.tokens = [];
    this.depth = 0;
    this.parens = 0;
    this.openGroups = [];
    this.broken = false;
  }

  /** Ends the unit (at `blockOpen` when a `{` after it opens a block) and hands it to the reader. */
  flush(blockOpen?: IToken): void {
    const tokens = this.tokens;
    const broken = this.broken;
    // Most lines end an empty unit (`}`, blank lines): allocate nothing for those.
    if (tokens.length > 0) this.tokens = [];
    this.depth = 0;
    this.parens = 0;
    if (this.openGroups.length > 0) this.openGroups = [];
    this.broken = false;
    if ((broken || tokens.length === 0) && blockOpen === undefined) return;
    this.reader.unit(tokens, broken, blockOpen);
  }
}
