import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';

/** Folds each table (header to COMMIT) and each block of rules of one chain. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerFoldingRangeProvider(DUMP_SELECTOR, {
      provideFoldingRanges(document) {
        const entry = cache.get(document);
        return entry ? entry.features.foldingRanges(entry.analysis).map((f) => new vscode.FoldingRange(f.start, f.end, vscode.FoldingRangeKind.Region)) : [];
      },
    }),
  );
}
