// Semantic tokens from a symbol table: definitions and references of chains, sets and maps, so that a name
// is coloured the same wherever it appears (a map name after `@`, a chain after `goto`, its definition).
import type { Symbols } from '../model/symbols';
import type { SemanticSymbol } from './types';

const KINDS = new Set(['chain', 'set', 'map', 'table', 'virtualService', 'ipset']);

export function symbolsToSemantic(symbols: Symbols, isKube: (name: string) => boolean): SemanticSymbol[] {
  const out: SemanticSymbol[] = [];
  for (const d of symbols.definitions) {
    if (!KINDS.has(d.kind) || d.range.start.line !== d.range.end.line) continue;
    out.push({ range: d.range, kind: d.kind as SemanticSymbol['kind'], declaration: true, kube: isKube(d.name) });
  }
  for (const r of symbols.allReferences()) {
    if (!KINDS.has(r.kind) || r.range.start.line !== r.range.end.line) continue;
    out.push({ range: r.range, kind: r.kind as SemanticSymbol['kind'], declaration: false, kube: isKube(r.name) });
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
