import * as vscode from 'vscode';
import { outline, type OutlineItem } from '../../core/language/iptables';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toRange } from '../convert';

function toSymbol(item: OutlineItem): vscode.DocumentSymbol {
  const kind = item.kind === 'table' ? vscode.SymbolKind.Namespace : vscode.SymbolKind.Function;
  const symbol = new vscode.DocumentSymbol(item.name, item.detail, kind, toRange(item.range), toRange(item.selectionRange));
  symbol.children = item.children.map(toSymbol);
  return symbol;
}

/** Outline and breadcrumbs: table → chains (rule count, policy, Service). */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerDocumentSymbolProvider(
      DUMP_SELECTOR,
      {
        provideDocumentSymbols(document) {
          const analysis = cache.get(document);
          return analysis ? outline(analysis).map(toSymbol) : [];
        },
      },
      { label: 'Dataplane Explorer' },
    ),
  );
}
