// A rule line of a shape plainRuleLine reads without tokens (most of a kube-proxy dump's rules: `ip daddr 10.96.0.1
// tcp dport 443 jump svc`, `goto endpoint-…`, `meta l4proto tcp dnat to 10.244.0.5:80`), and a Service chain's
// `numgen random mod N vmap { KEY : goto NAME, … }`: the references and the lazy rule the reference reader makes of
// its tokens, without them.
import type { NftTable } from '../../../model/nft';
import { lineRange } from '../../../model/range';
import { isLazyRuleSpan } from '../nodes';
import { isWordAt } from './fast-lex';
import { isPlainConstant, PLAIN_JUMP, PLAIN_SET, plainRuleLine } from '../statements';
import type { NftTextSink } from '../text-sink';
import { isDigit, indentEnd } from './ranges';

export function tryLine(_all: string, lineStart: number, lineEnd: number, sink: NftTextSink): boolean {
  const block = sink.lazyRules ? sink.lineBlock(lineStart, lineEnd) : undefined;
  if (block?.kind !== 'chain') return false;
  const text = sink.lineText(lineStart, lineEnd);
  const start = indentEnd(text, 0, text.length);
  if (!isLazyRuleSpan(start, text.length)) return false;
  const scratch = sink.scratch;
  const refs = plainRuleLine(text, start, scratch);
  if (refs < 0) return numgenLine(text, start, lineStart, block.table!, sink);
  const i = sink.line;
  const table = block.table!;
  sink.currentTable = table;
  for (let k = 0; k < refs; k++) {
    const from = scratch.refStarts[k];
    const to = scratch.refEnds[k];
    const kind = scratch.refKinds[k];
    if (kind === PLAIN_SET) {
      sink.setReference(text.slice(from, to), lineRange(i, from, to));
      continue;
    }
    // The target is the last one more often than not: no slice made then (see chainReference).
    const last = sink.lastTarget;
    const name = table === sink.lastTargetTable && to - from === last.length && text.startsWith(last, from) ? last : text.slice(from, to);
    sink.chainReference(name, lineRange(i, from, to), kind === PLAIN_JUMP ? 'jump' : 'goto');
  }
  sink.addLazyRule(i, lineStart, start, text.length);
  return true;
}

/**
 * `numgen random mod N vmap { KEY : goto|jump NAME, … }` alone on its line, single spaces, plain keys (a Service
 * chain's endpoint selection, the longest lines of a dump). Validated whole first (the reference reader reports
 * nothing of a line it does not take), then reported.
 */
function numgenLine(text: string, start: number, lineStart: number, table: NftTable, sink: NftTextSink): boolean {
  if (!text.startsWith('numgen random mod ', start)) return false;
  let at = start + 18;
  let end = text.indexOf(' ', at);
  if (end <= at || !isWordAt(text, at, end)) return false;
  for (let k = at; k < end; k++) if (!isDigit(text.charCodeAt(k))) return false;
  at = end;
  if (!text.startsWith(' vmap { ', at)) return false;
  at += 8;
  const { vmapStarts, vmapEnds, vmapVerdicts } = sink.scratch;
  let count = 0;
  for (;;) {
    end = text.indexOf(' ', at);
    if (end <= at || !isWordAt(text, at, end) || !isPlainConstant(text.slice(at, end)) || !text.startsWith(' : ', end)) return false;
    at = end + 3;
    const verdict = text.startsWith('goto ', at) ? 1 : text.startsWith('jump ', at) ? 2 : 0;
    if (verdict === 0) return false;
    at += 5;
    end = at;
    while (end < text.length && text.charCodeAt(end) !== 44 && text.charCodeAt(end) !== 32) end++;
    if (end === at || !isWordAt(text, at, end)) return false;
    vmapStarts[count] = at;
    vmapEnds[count] = end;
    vmapVerdicts[count++] = verdict;
    if (text.startsWith(', ', end)) at = end + 2;
    else if (end === text.length - 2 && text.charCodeAt(end + 1) === 125) break;
    else return false;
  }
  const i = sink.line;
  sink.currentTable = table;
  for (let k = 0; k < count; k++) {
    const from = vmapStarts[k];
    const to = vmapEnds[k];
    sink.chainReference(text.slice(from, to), lineRange(i, from, to), vmapVerdicts[k] === 1 ? 'goto' : 'jump');
  }
  sink.addLazyRule(i, lineStart, start, text.length);
  return true;
}
