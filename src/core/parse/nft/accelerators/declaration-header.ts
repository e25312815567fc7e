// `chain NAME {`, `set NAME {` or `map NAME {` in a table block, NAME a plain word (a dump declares 100,000 chains
// and thousands of affinity sets): what the tokens `chain`, NAME and `{` come to in the reference reader (the
// declaration opened), without the tokens, the CST and their ranges.
import { isWordAt, MAX_INTERNED } from './fast-lex';
import { SHORT_LIVED_RANGES } from '../statements';
import type { NftTextSink } from '../text-sink';
import { headerLineRange, setLineRange, indentEnd } from './ranges';

export function tryLine(_all: string, lineStart: number, lineEnd: number, sink: NftTextSink): boolean {
  const block = sink.lineBlock(lineStart, lineEnd);
  if (block?.kind !== 'table') return false;
  const text = sink.lineText(lineStart, lineEnd);
  const start = indentEnd(text, 0, text.length);
  const object = text.startsWith('chain ', start) ? 'chain' : text.startsWith('set ', start) ? 'set' : text.startsWith('map ', start) ? 'map' : undefined;
  if (object === undefined) return false;
  const nameStart = start + object.length + 1;
  const nameEnd = text.length - 2;
  if (nameEnd <= nameStart || text.charCodeAt(nameEnd) !== 32 || text.charCodeAt(nameEnd + 1) !== 123 || !isWordAt(text, nameStart, nameEnd)) return false;
  // As the lexer shares the token's image.
  const sliced = text.slice(nameStart, nameEnd);
  const name = sliced.length <= MAX_INTERNED ? sink.intern(sliced) : sliced;
  const table = block.table!;
  const i = sink.line;
  sink.currentTable = table;
  if (object !== 'chain') {
    sink.openDeclaration(table, object, name, setLineRange(i, nameStart, nameEnd), setLineRange(i, start, text.length), true);
    return true;
  }
  // As the reference reader reads a chain header: what it makes is garbage once the chain has its numbers.
  const sites = sink.sites;
  sink.sites = SHORT_LIVED_RANGES;
  try {
    sink.openDeclaration(table, 'chain', name, headerLineRange(i, nameStart, nameEnd), headerLineRange(i, start, text.length), true);
  } finally {
    sink.sites = sites;
  }
  return true;
}
