// iptables-save / iptables-restore text → the iptables model (DESIGN §3): the reference reader (reference.ts) with
// its accelerators (accelerators/) reads the lines on the shared line loop (pipeline.ts) into the sink (sink.ts),
// which makes the model. Problems are
// returned as diagnostics; nothing here throws.
import { MAX_DIAGNOSTICS } from '../../model/diagnostics';
import type { IptablesRuleset } from '../../model/iptables';
import { LineStarts } from '../lines';
import { acceleratorsOn, guardedParse, type ParseOptions } from '../pipeline';
import { IptablesReader, type ParseMode } from './reference';
import { IptablesSink, type LineEndings } from './sink';
import { pasteFormatOf } from './paste-format';
import { readSpec } from './spec-format';
import { ListReader } from './list-format';

export { MAX_LINE_LENGTH, type ParseMode } from './reference';
export { targetKindOf } from './vocabulary';
export { addressProblem } from './address-problem';
// Past the shared cap a file is clearly not this dialect; the rest are summarised in one.
export { MAX_DIAGNOSTICS };

/**
 * Parses an iptables-save / iptables-restore text. `accelerators: 'off'` (or `mode: 'chevrotain'`) reads every line
 * with the reference reader (the tests check that both build the same model); `mode: 'scan'` keeps only the scan
 * accelerator. A bug of the parser becomes a diagnostic, never a throw.
 */
export function parseIptables(text: string, options: IptablesParseOptions = {}): IptablesRuleset {
  const mode: ParseMode = acceleratorsOn({ accelerators: options.accelerators }) ? (options.mode ?? 'fast') : 'chevrotain';
  return guardedParse('iptables', text, (input) => parse(input, mode));
}

export type IptablesParseOptions = Omit<ParseOptions, 'mode'> & { mode?: ParseMode };

function parse(text: string, mode: ParseMode): IptablesRuleset {
  // Where the lines start, not an array of them: the sink is kept with the model (rules read their line again
  // through it), and all 400,000 lines of a large dump as strings were some 16 MB of what it kept.
  const lines = new LineStarts(text);
  const sink = new IptablesSink(lines, lineEndings(text, lines));
  const format = pasteFormatOf(text);
  if (format === 'save') {
    new IptablesReader(sink, mode).read(text);
    return sink.finish();
  }
  const list = format === 'list' ? new ListReader(sink) : undefined;
  if (list) list.read(text);
  else readSpec(text, sink, new IptablesReader(sink, mode));
  const ruleset = sink.finish();
  ruleset.listing = { format, losses: [...(list?.losses ?? [])].sort() };
  return ruleset;
}

/** What the line breaks of a text mean to iptables-restore, which reads lines with fgets (ending at \n only). */
function lineEndings(text: string, lines: LineStarts): LineEndings {
  const finalBreak = text.endsWith('\n') || text.endsWith('\r');
  const tableLines = /(?:^|[\r\n])[ \t]*\*/.test(text);
  if (text.indexOf('\r') < 0) return { finalBreak, tableLines };
  // From one carriage return to the next, each time over the fgets line holding it: linear in the text.
  for (let cr = text.indexOf('\r'); cr >= 0;) {
    const from = text.lastIndexOf('\n', cr) + 1;
    let end = text.indexOf('\n', cr);
    if (end < 0) end = text.length;
    if (crFails(text.slice(from, end))) {
      const table =
        text.charCodeAt(from) === 42 /* * */
          ? text
              .slice(from + 1, end)
              .trim()
              .split(/[ \t]/)[0]
              .replace(/\r.*/s, '')
          : undefined;
      return { finalBreak, tableLines, firstFailure: { line: lineAt(lines, from), crlf: text.charCodeAt(cr + 1) === 10, table } };
    }
    cr = text.indexOf('\r', end);
  }
  return { finalBreak, tableLines };
}

/** Whether iptables-restore fails on a line (up to its \n) holding a carriage return. */
function crFails(line: string): boolean {
  const c = line.charCodeAt(0);
  if (c === 35 /* # */) return false;
  // `:NAME POLICY [p:b]\r`: the counters swallow it unless restoring them.
  if (c === 58 /* : */)
    return /\r/.test(
      line
        .slice(1)
        .trimStart()
        .split(/[ \t]+/, 2)
        .join(' '),
    );
  return true;
}

/** Our line number of the line starting at `offset` (VS Code also ends lines at a lone \r). */
function lineAt(lines: LineStarts, offset: number): number {
  let lo = 0;
  let hi = lines.count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines.start(mid) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
