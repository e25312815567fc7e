import * as vscode from 'vscode';
import { SEMANTIC_LANGUAGE_IDS, SEMANTIC_TOKEN_MODIFIERS, SEMANTIC_TOKEN_TYPES } from '../dumpLanguages';
import type { DocumentCache } from '../documentCache';

export const LEGEND = new vscode.SemanticTokensLegend(SEMANTIC_TOKEN_TYPES, SEMANTIC_TOKEN_MODIFIERS);

/**
 * Semantic tokens from the symbol table: chains as functions, sets and maps as variables, declarations
 * marked, kube-proxy's objects as `defaultLibrary` (themes may colour them apart).
 */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  const selector = SEMANTIC_LANGUAGE_IDS.map((language) => ({ language }));
  context.subscriptions.push(
    vscode.languages.registerDocumentSemanticTokensProvider(
      selector,
      {
        async provideDocumentSemanticTokens(document) {
          // Encoded where the analysis lives (one typed array, see analysis/queries.ts).
          const data = await (await cache.get(document))?.query('semanticTokens');
          return new vscode.SemanticTokens(data ?? new Uint32Array(0));
        },
      },
      LEGEND,
    ),
  );
}
