// Chevrotain grammar of one line of iptables-save / iptables-restore input.
import { CstParser, type CstNode, type IToken } from 'chevrotain';
import { allTokens, Bang, ChainDecl, Comment, Commit, Counters, LongOption, ShortOption, TableName, Word } from './lexer';

const VALUE_TOKENS = new Set([Word, Commit, Counters, ChainDecl, TableName]);

export class IptablesLineParser extends CstParser {
  constructor() {
    super(allTokens, { recoveryEnabled: false, maxLookahead: 3 });
    this.performSelfAnalysis();
  }

  public line = this.RULE('line', () => {
    this.OPTION(() => {
      this.OR([
        { ALT: () => this.CONSUME(Comment) },
        { ALT: () => this.SUBRULE(this.tableLine) },
        { ALT: () => this.SUBRULE(this.chainLine) },
        { ALT: () => this.SUBRULE(this.commitLine) },
        { ALT: () => this.SUBRULE(this.commandLine) },
      ]);
    });
  });

  private tableLine = this.RULE('tableLine', () => {
    this.CONSUME(TableName);
  });

  // :NAME POLICY [packets:bytes]
  private chainLine = this.RULE('chainLine', () => {
    this.CONSUME(ChainDecl);
    this.OPTION(() => {
      this.OR([{ ALT: () => this.CONSUME(Word, { LABEL: 'policy' }) }, { ALT: () => this.CONSUME(Commit, { LABEL: 'policy' }) }]);
      this.OPTION2(() => this.CONSUME(Counters));
    });
  });

  private commitLine = this.RULE('commitLine', () => {
    this.CONSUME(Commit);
  });

  // [p:b] -A CHAIN item…   (the command is the first item; the builder checks its shape)
  private commandLine = this.RULE('commandLine', () => {
    this.OPTION(() => this.CONSUME(Counters));
    this.AT_LEAST_ONE(() => this.SUBRULE(this.item));
  });

  // ! --option value…   (a `!` right after the option is the pre-1.4.3 syntax; kept so it can be reported)
  private item = this.RULE('item', () => {
    this.OPTION(() => this.CONSUME(Bang, { LABEL: 'negation' }));
    this.OR([{ ALT: () => this.CONSUME(LongOption, { LABEL: 'option' }) }, { ALT: () => this.CONSUME(ShortOption, { LABEL: 'option' }) }]);
    this.OPTION2({
      GATE: () => VALUE_TOKENS.has(this.LA(2).tokenType),
      DEF: () => this.CONSUME2(Bang, { LABEL: 'lateNegation' }),
    });
    this.MANY(() => {
      this.OR2([
        { ALT: () => this.CONSUME2(Word, { LABEL: 'value' }) },
        { ALT: () => this.CONSUME2(Commit, { LABEL: 'value' }) },
        { ALT: () => this.CONSUME2(Counters, { LABEL: 'value' }) },
        // Only special at the start of a line: `-s ::1/128`, `--log-prefix *x`, `--comment #1`.
        { ALT: () => this.CONSUME2(ChainDecl, { LABEL: 'value' }) },
        { ALT: () => this.CONSUME2(TableName, { LABEL: 'value' }) },
        { ALT: () => this.CONSUME2(Comment, { LABEL: 'value' }) },
      ]);
    });
  });
}

export interface ItemCst {
  negation?: IToken;
  option: IToken;
  lateNegation?: IToken;
  values: IToken[];
}

export function itemOf(node: CstNode): ItemCst {
  const c = node.children as Record<string, IToken[] | undefined>;
  return {
    negation: c.negation?.[0],
    option: c.option![0],
    lateNegation: c.lateNegation?.[0],
    values: c.value ?? [],
  };
}
