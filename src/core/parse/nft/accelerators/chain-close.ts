// A line that is only `}` closing a chain block (a dump's 100,000 chains each end with one): what the reference
// reader does with its token, without the token.
import { SHORT_LIVED_RANGES } from '../statements';
import type { NftTextSink } from '../text-sink';
import { headerLineRange, indentEnd } from './ranges';

export function tryLine(text: string, start: number, end: number, sink: NftTextSink): boolean {
  if (sink.lineBlock(start, end)?.kind !== 'chain') return false;
  const at = indentEnd(text, start, end);
  if (at !== end - 1 || text.charCodeAt(at) !== 125) return false;
  // A chain keeps its full range as numbers: the ranges made to close it are garbage.
  const sites = sink.sites;
  sink.sites = SHORT_LIVED_RANGES;
  sink.closeBlock(headerLineRange(sink.line, at - start, at - start + 1));
  sink.sites = sites;
  return true;
}
