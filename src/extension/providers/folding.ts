import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';

/** Folds each table (header to COMMIT) and each block of rules of one chain. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerFoldingRangeProvider(DUMP_SELECTOR, {
      async provideFoldingRanges(document, _context, token) {
        // VS Code keeps no more than editor.foldingMaximumRegions ranges: more are not worth sending.
        const limit = vscode.workspace.getConfiguration('editor', document).get<number>('foldingMaximumRegions', 5000);
        const pairs = (await (await cache.get(document))?.queryWith(token, 'foldingRanges', limit)) ?? [];
        const ranges: vscode.FoldingRange[] = [];
        for (let i = 0; i + 1 < pairs.length; i += 2) ranges.push(new vscode.FoldingRange(pairs[i], pairs[i + 1], vscode.FoldingRangeKind.Region));
        return ranges;
      },
    }),
  );
}
