// The accelerator of user-defined chain declarations as iptables-save prints them (a third of the lines of a large
// kube-proxy dump): what the reference reader's chainLine makes of them, without its token table.
import { lineRange } from '../../../model/range';
import { digitsValue } from '../../digits';
import type { IptablesSink } from '../sink';
import { digitsEnd, wordEnd } from './text';

/**
 * `:NAME - [PACKETS:BYTES]`; false, having changed nothing, for anything else (policies, long names, odd
 * spacing…), outside a table and on a second reading. An Accelerator of the pipeline: the line is [start, end) of
 * the document `text`, read in place.
 */
export function tryChainDeclaration(text: string, start: number, end: number, sink: IptablesSink): boolean {
  const table = sink.table;
  if (table === undefined || sink.reading !== undefined || end - start < 2 || text.charCodeAt(start) !== 58 /* : */) return false;
  const i = sink.line;
  const nameEnd = wordEnd(text, start + 1, end);
  // Names longer than 28 characters are reported by chainLine.
  if (nameEnd < 0 || nameEnd - start > 29 || nameEnd + 5 > end || !text.startsWith(' - [', nameEnd)) return false;
  const countersStart = nameEnd + 3;
  const packetsEnd = digitsEnd(text, countersStart + 1, end);
  if (packetsEnd < 0 || text.charCodeAt(packetsEnd) !== 58 /* : */) return false;
  const bytesEnd = digitsEnd(text, packetsEnd + 1, end);
  if (bytesEnd !== end - 1 || text.charCodeAt(bytesEnd) !== 93 /* ] */) return false;
  const length = end - start;
  const chain = sink.declareChain(table, text.slice(start + 1, nameEnd), lineRange(i, 0, length), lineRange(i, 1, nameEnd - start));
  chain.counters = { packets: digitsValue(text, countersStart + 1, packetsEnd), bytes: digitsValue(text, packetsEnd + 1, bytesEnd), range: lineRange(i, countersStart - start, length) };
  return true;
}
