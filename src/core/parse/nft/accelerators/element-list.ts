// `elements = { … }` of a set or map block, written as nft lists them (`KEY . KEY comment "…" : goto NAME, …` with
// single spaces, words as keys and chain names, plain verdicts), over one line or many: the elements and references
// the reference reader makes of the list's tokens, without the tokens (a dump's service-ips list of 12,000 lines
// kept all of its tokens until its `}`, then went through the Chevrotain parser). The whole list is checked before
// anything is made; the lines after the first are then read already (see read-ahead.ts).
import type { NftElement, NftVerdictValue } from '../../../model/nft';
import { LINE_LIMITS } from '../../pipeline';
import { isSpace, wordyEnd } from './fast-lex';
import { ElementNode, VerdictNode } from '../statements';
import { LINE_START_DECLARATIONS, type NftTextSink } from '../text-sink';
import { elementLineRange } from './ranges';

/** scanElements: the line ends with `,` (the list goes on), or with ` }`. */
const LIST_GOES_ON = 1;
const LIST_CLOSED = 2;
/** The verdicts of map elements that are one word. */
const ELEMENT_VERDICTS = new Set(['accept', 'drop', 'continue', 'return']);

export function tryLine(doc: string, lineStart: number, lineEnd: number, sink: NftTextSink): boolean {
  if (sink.mayHoldNul) return false;
  const block = sink.lineBlock(lineStart, lineEnd);
  if (block === undefined || (block.kind !== 'set' && block.kind !== 'map')) return false;
  const set = block.set;
  const table = block.table;
  if (set === undefined || table === undefined) return false;
  const first = sink.line;
  const lines = sink.lines;
  let pos = elementLineStart(sink, first);
  if (!doc.startsWith('elements = { ', pos)) return false;
  pos += 13;
  const from = pos;
  let last = first;
  for (;;) {
    if (lines.end(last) - lines.start(last) > LINE_LIMITS.nftables.maxLength) return false;
    const state = scanElements(sink, last, pos, undefined);
    if (state === LIST_CLOSED) break;
    if (state !== LIST_GOES_ON || last + 1 >= lines.count) return false;
    last++;
    pos = elementLineStart(sink, last);
    const end = wordyEnd(doc, pos);
    if (end > pos && end - pos <= 8 && LINE_START_DECLARATIONS.has(doc.slice(pos, end))) return false;
  }
  sink.currentTable = table;
  for (let line = first; line <= last; line++) scanElements(sink, line, line === first ? from : elementLineStart(sink, line), set.elements);
  sink.readThrough = last;
  return true;
}

/** Where the first token of line `line` of an element list starts. */
function elementLineStart(sink: NftTextSink, line: number): number {
  const doc = sink.document;
  const end = sink.lines.end(line);
  let pos = sink.lines.start(line);
  while (pos < end && isSpace(doc.charCodeAt(pos))) pos++;
  return pos;
}

/**
 * The elements of an element list on line `line` from `pos`: LIST_GOES_ON when the line ends with `,`, LIST_CLOSED
 * when with ` }`, -1 for anything else. With `out`, the elements are made, their chains referenced, and added to
 * `out`.
 */
function scanElements(sink: NftTextSink, line: number, pos: number, out: NftElement[] | undefined): number {
  const doc = sink.document;
  const lineStart = sink.lines.start(line);
  const end = sink.lines.end(line);
  const key = sink.scratch.elementKey;
  for (;;) {
    // KEY ( . KEY )*
    const keyStart = pos;
    key.length = 0;
    for (;;) {
      const wordEnd = wordyEnd(doc, pos);
      if (wordEnd < 0 || wordEnd > end) return -1;
      if (out !== undefined) key.push(sink.intern(doc.slice(pos, wordEnd)));
      pos = wordEnd;
      if (!doc.startsWith(' . ', pos)) break;
      pos += 3;
    }
    const keyEnd = pos;
    // comment "…"
    let commentStart = -1;
    let commentEnd = -1;
    if (doc.startsWith(' comment "', pos)) {
      commentStart = pos + 10;
      commentEnd = doc.indexOf('"', commentStart);
      if (commentEnd < 0 || commentEnd >= end) return -1;
      pos = commentEnd + 1;
    }
    // : accept|drop|continue|return, : goto|jump NAME
    let valueStart = -1;
    let verdict = '';
    let nameStart = -1;
    if (doc.startsWith(' : ', pos)) {
      valueStart = pos + 3;
      const wordEnd = wordyEnd(doc, valueStart);
      if (wordEnd < 0 || wordEnd > end || wordEnd - valueStart > 8) return -1;
      verdict = doc.slice(valueStart, wordEnd);
      pos = wordEnd;
      if (verdict === 'goto' || verdict === 'jump') {
        if (doc.charCodeAt(pos) !== 32) return -1;
        nameStart = pos + 1;
        pos = wordyEnd(doc, nameStart);
        if (pos < 0 || pos > end) return -1;
      } else if (!ELEMENT_VERDICTS.has(verdict)) return -1;
    }
    const elementEnd = pos;
    let state = 0;
    if (pos === end - 1 && doc.charCodeAt(pos) === 44) state = LIST_GOES_ON;
    else if (pos === end - 2 && doc.startsWith(' }', pos)) state = LIST_CLOSED;
    else if (doc.startsWith(', ', pos) && pos + 2 < end && !isSpace(doc.charCodeAt(pos + 2))) pos += 2;
    else return -1;
    if (out !== undefined) {
      const element = new ElementNode(key.slice(), elementLineRange(line, keyStart - lineStart, elementEnd - lineStart), elementLineRange(line, keyStart - lineStart, keyEnd - lineStart));
      if (commentStart >= 0) element.comment = doc.slice(commentStart, commentEnd);
      if (valueStart >= 0) {
        if (nameStart >= 0) {
          const chainRange = elementLineRange(line, nameStart - lineStart, elementEnd - lineStart);
          const kind = verdict === 'goto' ? 'goto' : 'jump';
          sink.chainReference(doc.slice(nameStart, elementEnd), chainRange, kind);
          // The chain's shared name (chainReference), not a copy per element.
          element.value = new VerdictNode(kind, sink.lastTarget, chainRange);
        } else element.value = { kind: verdict as NftVerdictValue['kind'] };
        element.valueRange = elementLineRange(line, valueStart - lineStart, elementEnd - lineStart);
      }
      out.push(element);
    }
    if (state !== 0) return state;
  }
}
