import * as vscode from 'vscode';
import type { OutlineItem } from '../../core/language/types';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { toRange } from '../convert';

function toSymbol(item: OutlineItem): vscode.DocumentSymbol {
  const kind = {
    table: vscode.SymbolKind.Namespace,
    chain: vscode.SymbolKind.Function,
    set: vscode.SymbolKind.Array,
    map: vscode.SymbolKind.Object,
    object: vscode.SymbolKind.Variable,
    service: vscode.SymbolKind.Class,
  }[item.kind];
  const symbol = new vscode.DocumentSymbol(item.name, item.detail, kind, toRange(item.range), toRange(item.selectionRange));
  symbol.children = item.children.map(toSymbol);
  return symbol;
}

/** At most this many chains in the outline: more would stall the extension host (see limitOutline). */
const OUTLINE_LIMIT = 5000;

/** Outline and breadcrumbs: table → chains (rule count, policy, Service). */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  context.subscriptions.push(
    vscode.languages.registerDocumentSymbolProvider(
      DUMP_SELECTOR,
      {
        async provideDocumentSymbols(document, token) {
          const outline = await (await cache.get(document))?.queryWith(token, 'outline', OUTLINE_LIMIT);
          return outline?.map(toSymbol) ?? [];
        },
      },
      { label: 'Dataplane Explorer' },
    ),
  );
}
