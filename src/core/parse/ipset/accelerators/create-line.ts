// A `create` line of words of printable ASCII between spaces, without quotes or `#`, none ending in `:`: the
// lexer cuts it into these same words (a Command, then Words or Commands; no ListKey ends a word otherwise) and
// the grammar reads them as a command line, so the sink gets the same command() call the reference reader makes,
// without the lexer and parser being built and run (a kube-proxy save then needs neither: tens of milliseconds
// at start).
import type { IToken } from 'chevrotain';
import { detached } from '../../detach';
import { lineExtent } from '../reference';
import type { IpsetSink } from '../sink';
import { acceleratable, isWordChar } from './words';

export function tryLine(all: string, start: number, end: number, sink: IpsetSink): boolean {
  if (!acceleratable(sink, start, end) || !all.startsWith('create ', start)) return false;
  for (let k = start; k < end; k++) {
    const c = all.charCodeAt(k);
    if (c !== 32 && !isWordChar(c)) return false;
  }
  // A copy, as the reference reader reads (what is cut from the line must not keep the whole dump alive).
  const line = detached(all.slice(start, end));
  const words: IToken[] = [];
  for (let k = 0; k < line.length;) {
    if (line.charCodeAt(k) === 32) {
      k++;
      continue;
    }
    const from = k;
    while (k < line.length && line.charCodeAt(k) !== 32) k++;
    if (line.charCodeAt(k - 1) === 58 /* : */) return false;
    words.push({ image: line.slice(from, k), startOffset: from, endOffset: k - 1 } as IToken);
  }
  sink.extendSet();
  sink.command(sink.line, { kind: 'command', keyword: words[0], values: words.slice(1) }, lineExtent(sink.line, line));
  return true;
}
