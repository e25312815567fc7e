// Compact nodes of the nft text model (issue #8): they keep positions as numbers and make their ranges (plain
// `{ start, end }` objects, equal to what the parser used to store) when asked, so a 29 MB kube-proxy dump does
// not keep millions of Range and Position objects.
//
// LazyRule: a rule whose statements are read again when asked instead of being kept. A kube-proxy dump of
// 10,000 Services holds some 215,000 rules; their statements, expressions and ranges were most of the heap
// the analysis kept. A rule on one line that the fast line scanner reads, without `$variables` (their value
// depends on where the rule is) and without `;` inside it, keeps only its line, its columns and what its
// first reading found (comment, handle); `statements`, `raw` and `range` are made from the line on demand and
// equal what the first reading gave (test/unit/nft-fast-path.test.ts compares them with eager rules). The
// first reading reported the diagnostics and recorded the symbol references; reading again does neither.
//
// ReferenceNode, ChainNode: symbol references and chains with numeric ranges (definitions: StoredDefinition).
import type { IToken } from 'chevrotain';
import type { CstNode } from 'chevrotain';
import type { NftChain, NftExpression, NftRule, NftStatement } from '../../model/nft';
import type { ReferenceRole, SymbolKind, SymbolReference } from '../../model/symbols';
import { lineRange, type Range } from '../../model/range';
import { DeclarationRanges } from '../../model/stored-ranges';
import type { Item } from './grammar';
import { fastLexLine, LBrace, LParen, RBrace, RParen, Semicolon, Variable } from './lexer';
import { setShortLivedReading, StatementReader, type StatementHost } from './statements';

/** The items of a token list as the grammar groups them (`{ … }` and `( … )`), or undefined when unbalanced. */
export function groupItems(tokens: readonly IToken[], from = 0, to = tokens.length): Item[] | undefined {
  // Most rules have no group: their items are their tokens.
  let plain = true;
  for (let k = from; k < to; k++) {
    const type = tokens[k].tokenType;
    if (type === LBrace || type === LParen || type === RBrace || type === RParen || type === Semicolon) {
      plain = false;
      break;
    }
  }
  if (plain) return from === 0 && to === tokens.length ? (tokens as Item[]) : tokens.slice(from, to);
  const top: Item[] = [];
  const lists: Item[][] = [top];
  const opens: IToken[] = [];
  for (let k = from; k < to; k++) {
    const token = tokens[k];
    const type = token.tokenType;
    if (type === LBrace || type === LParen) {
      opens.push(token);
      lists.push([]);
    } else if (type === RBrace || type === RParen) {
      const open = opens.pop();
      if (!open || (open.tokenType === LBrace) !== (type === RBrace)) return undefined;
      const items = lists.pop()!;
      const children: CstNode['children'] = type === RBrace ? { LBrace: [open] } : { LParen: [open] };
      if (items.length > 0) children.item = items;
      if (type === RBrace) children.RBrace = [token];
      else children.RParen = [token];
      lists[lists.length - 1].push({ name: type === RBrace ? 'braceGroup' : 'parenGroup', children });
    } else if (type === Semicolon) {
      return undefined;
    } else {
      lists[lists.length - 1].push(token);
    }
  }
  return opens.length > 0 ? undefined : top;
}

/** Reading again: text from the rule's line; no diagnostics, no references (the first reading made them). */
class RereadHost implements StatementHost {
  line = '';
  text(range: Range): string {
    return this.line.slice(range.start.character, range.end.character);
  }
  chainReference(): void {}
  setReference(): void {}
  variable(): NftExpression | undefined {
    return undefined;
  }
  diag(): void {}
}

const host = new RereadHost();
const reader = new StatementReader(host);

/** The last line canRereadRule lexed whole, and whether the fast scanner reads it. */
let lastLine: string | undefined;
let lastLineLexes = false;

/**
 * Whether the rule spanning columns [start, end) of `line` can be read again from the line alone: the fast
 * scanner reads the line, and the rule has no variable and no `;`. Both parser paths decide it the same way
 * (the fast path knows it from the tokens it has; the full path, test-only, asks here).
 */
export function canRereadRule(text: string, line: number, start: number, end: number): boolean {
  if (text !== lastLine) {
    lastLine = text;
    lastLineLexes = fastLexLine(text, undefined, line) !== undefined;
  }
  if (!lastLineLexes) return false;
  const lexed = fastLexLine(text, undefined, line, start, end)!;
  for (const token of lexed.tokens) if (token.tokenType === Variable || token.tokenType === Semicolon) return false;
  return true;
}

/**
 * The statements of the rules read last: consumers go over the few rules of a chain several times in a row
 * (the Service catalog does). A ring of CACHE_SIZE entries; what it holds is garbage once it moves on.
 */
const CACHE_SIZE = 64;
const cachedRules: (LazyRule | undefined)[] = new Array(CACHE_SIZE).fill(undefined);
const cachedStatements: NftStatement[][] = new Array(CACHE_SIZE).fill([]);
let cacheNext = 0;

/**
 * Forgets the lines and rules remembered above: they hold slices of a document's text, which would keep the
 * whole text alive after the document is closed (called when a new text is parsed).
 */
export function forgetRereadCache(): void {
  lastLine = undefined;
  cachedRules.fill(undefined);
  cachedStatements.fill([]);
}

export class LazyRule implements NftRule {
  index = 0;
  constructor(
    public tableId: string,
    public chain: string,
    /** The whole line the rule is on. */
    private readonly lineText: string,
    /** 0-based line. */
    readonly line: number,
    private readonly start: number,
    private readonly end: number,
  ) {}

  get raw(): string {
    return this.lineText.slice(this.start, this.end);
  }

  get range(): Range {
    return lineRange(this.line, this.start, this.end);
  }

  get statements(): NftStatement[] {
    for (let k = 0; k < CACHE_SIZE; k++) if (cachedRules[k] === this) return cachedStatements[k];
    // Only the rule's part of the line (a line may hold thousands of `;`-separated rules).
    const items = groupItems(fastLexLine(this.lineText, undefined, this.line, this.start, this.end)!.tokens)!;
    host.line = this.lineText;
    // Most readings are dropped once looked at (the ring below holds the last few).
    const wasShortLived = setShortLivedReading(true);
    let statements: NftStatement[];
    try {
      statements = reader.readRule(items);
    } finally {
      setShortLivedReading(wasShortLived);
    }
    cachedRules[cacheNext] = this;
    cachedStatements[cacheNext] = statements;
    cacheNext = (cacheNext + 1) % CACHE_SIZE;
    return statements;
  }
}

/**
 * A symbol reference that keeps its position as numbers and makes its range when asked (a dump of 10,000
 * Services has some 250,000 references; most of their ranges had no other owner once rules are lazy).
 */
export class ReferenceNode implements SymbolReference {
  readonly role: ReferenceRole;
  readonly startLine: number;
  private readonly startCharacter: number;
  private readonly endLine: number;
  private readonly endCharacter: number;
  constructor(
    public kind: SymbolKind,
    readonly name: string,
    readonly scope: string,
    range: Range,
    role: ReferenceRole,
  ) {
    // The role may be a token's own copy of `jump` / `goto`: keep the one shared constant instead.
    this.role = role === 'jump' ? 'jump' : role === 'goto' ? 'goto' : role;
    this.startLine = range.start.line;
    this.startCharacter = range.start.character;
    this.endLine = range.end.line;
    this.endCharacter = range.end.character;
  }

  get range(): Range {
    return { start: { line: this.startLine, character: this.startCharacter }, end: { line: this.endLine, character: this.endCharacter } };
  }
}


/** A chain keeping its three ranges as numbers (a kube-proxy dump of 10,000 Services has some 110,000 chains). */
export class ChainNode extends DeclarationRanges implements NftChain {
  flags: string[] = [];
  rules: NftRule[] = [];
  declared = false;
  constructor(
    public name: string,
    readonly tableId: string,
    nameRange: Range,
    declRange: Range,
  ) {
    super();
    this.range = declRange;
    this.nameRange = nameRange;
    this.fullRange = declRange;
  }
}
