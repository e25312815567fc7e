import * as vscode from 'vscode';
import { foldingRanges } from '../../core/language/iptables';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';

/** Folds each table (header to COMMIT) and each block of rules of one chain. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerFoldingRangeProvider(DUMP_SELECTOR, {
      provideFoldingRanges(document) {
        const analysis = cache.get(document);
        return analysis ? foldingRanges(analysis).map((f) => new vscode.FoldingRange(f.start, f.end, vscode.FoldingRangeKind.Region)) : [];
      },
    }),
  );
}
