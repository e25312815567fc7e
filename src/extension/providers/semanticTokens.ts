import * as vscode from 'vscode';
import { LANGUAGES } from '../../core/language';
import type { DocumentCache } from '../documentCache';

const TOKEN_TYPES = ['function', 'variable', 'namespace', 'class', 'enumMember'];
const TOKEN_MODIFIERS = ['declaration', 'defaultLibrary'];
export const LEGEND = new vscode.SemanticTokensLegend(TOKEN_TYPES, TOKEN_MODIFIERS);

const TYPE_OF: Record<string, number> = { chain: 0, set: 1, map: 1, ipset: 1, table: 2, virtualService: 3 };

/**
 * Semantic tokens from the symbol table: chains as functions, sets and maps as variables, declarations
 * marked, kube-proxy's objects as `defaultLibrary` (themes may colour them apart).
 */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  const selector = LANGUAGES.filter((l) => l.semanticSymbols).map((l) => ({ language: l.languageId }));
  context.subscriptions.push(
    vscode.languages.registerDocumentSemanticTokensProvider(
      selector,
      {
        provideDocumentSemanticTokens(document) {
          const entry = cache.get(document);
          const builder = new vscode.SemanticTokensBuilder(LEGEND);
          for (const s of entry?.features.semanticSymbols?.(entry.analysis) ?? []) {
            const modifiers = (s.declaration ? 1 : 0) | (s.kube ? 2 : 0);
            builder.push(s.range.start.line, s.range.start.character, s.range.end.character - s.range.start.character, TYPE_OF[s.kind] ?? 0, modifiers);
          }
          return builder.build();
        },
      },
      LEGEND,
    ),
  );
}
