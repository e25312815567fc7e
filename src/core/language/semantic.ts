// Semantic tokens from a symbol table: definitions and references of chains, sets and maps, so that a name
// is coloured the same wherever it appears (a map name after `@`, a chain after `goto`, its definition).
import type { SymbolDefinition, SymbolReference, Symbols } from '../model/symbols';
import type { SemanticSymbol } from './types';

const KINDS = new Set(['chain', 'set', 'map', 'table', 'virtualService', 'ipset']);

/**
 * The semantic symbols of the whole document, or of lines [lines.from, lines.to) only (what a range request asks:
 * found through the symbol table's line index, not by sorting the document's hundreds of thousands of names).
 */
export function symbolsToSemantic(symbols: Symbols, isKube: (name: string) => boolean, lines?: { from: number; to: number }): SemanticSymbol[] {
  const out: SemanticSymbol[] = [];
  const add = (entry: SymbolDefinition | SymbolReference, declaration: boolean) => {
    if (!KINDS.has(entry.kind) || entry.range.start.line !== entry.range.end.line) return;
    out.push({ range: entry.range, kind: entry.kind as SemanticSymbol['kind'], declaration, kube: isKube(entry.name) });
  };
  if (lines === undefined) {
    for (const d of symbols.definitions) add(d, true);
    for (const r of symbols.allReferences()) add(r, false);
  } else {
    for (let line = Math.max(0, lines.from); line < lines.to; line++) for (const e of symbols.onLine(line)) add(e, !('role' in e));
  }
  out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  // Overlaps are not allowed in VS Code's token stream: keep the first of overlapping tokens.
  const result: SemanticSymbol[] = [];
  for (const s of out) {
    const last = result[result.length - 1];
    if (last && last.range.start.line === s.range.start.line && s.range.start.character < last.range.end.character) continue;
    result.push(s);
  }
  return result;
}
