// A Chevrotain lexer built on first use. `new Lexer(...)` validates and analyses every token pattern (tens of
// milliseconds for the four dialects together), which would otherwise run when the extension's bundle is loaded
// and count against activation (docs/performance.md#budgets: activation ≤ 50 ms). One instance per dialect, as before.
import { Lexer, type ILexerConfig, type ILexingResult, type TokenType } from 'chevrotain';

export interface LineLexer {
  tokenize(text: string): ILexingResult;
}

export function lazyLexer(tokens: TokenType[], config: ILexerConfig): LineLexer {
  let lexer: Lexer | undefined;
  return {
    tokenize: (text) => (lexer ??= new Lexer(tokens, config)).tokenize(text),
  };
}
