import * as vscode from 'vscode';
import { SEMANTIC_LANGUAGE_IDS, SEMANTIC_TOKEN_MODIFIERS, SEMANTIC_TOKEN_TYPES } from '../dumpLanguages';
import type { DocumentCache } from '../documentCache';

export const LEGEND = new vscode.SemanticTokensLegend(SEMANTIC_TOKEN_TYPES, SEMANTIC_TOKEN_MODIFIERS);

/**
 * Semantic tokens from the symbol table: chains as functions, sets and maps as variables, declarations
 * marked, kube-proxy's objects as `defaultLibrary` (themes may colour them apart).
 *
 * A dump analysed on the extension host gets its whole document's tokens at once. A large dump (analysed in the
 * worker) gets the lines the editor shows: its whole document's tokens were 630,000 names of a 49 MB dump, two
 * seconds of the worker's time and a 12 MB message that the extension host and the window copied and decoded
 * again after every edit. The document provider declines such a dump with a cancellation, which VS Code takes
 * as "not available now" (nothing logged), and then asks the range provider for the viewport as it scrolls.
 * (A dump that grows past dataplane.workerThreshold while open keeps the whole-document tokens it had, which
 * VS Code moves along with edits, until it is reopened: VS Code asks no range provider while it has those.)
 */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  const selector = SEMANTIC_LANGUAGE_IDS.map((language) => ({ language }));
  context.subscriptions.push(
    vscode.languages.registerDocumentSemanticTokensProvider(
      selector,
      {
        async provideDocumentSemanticTokens(document, token) {
          if (cache.inWorker(document)) throw new vscode.CancellationError();
          // Encoded where the analysis lives (one typed array, see analysis/queries.ts).
          const data = await (await cache.get(document))?.queryWith(token, 'semanticTokens');
          return new vscode.SemanticTokens(data ?? new Uint32Array(0));
        },
      },
      LEGEND,
    ),
    vscode.languages.registerDocumentRangeSemanticTokensProvider(
      selector,
      {
        async provideDocumentRangeSemanticTokens(document, range, token) {
          // Whole lines (the viewport's ranges are); a range that ends at a line's start leaves that line out.
          const to = range.end.character > 0 || range.end.line === range.start.line ? range.end.line + 1 : range.end.line;
          const data = await (await cache.get(document))?.queryWith(token, 'semanticTokensOfLines', range.start.line, to);
          return new vscode.SemanticTokens(data ?? new Uint32Array(0));
        },
      },
      LEGEND,
    ),
  );
}
