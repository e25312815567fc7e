// ipset save / restore input and `ipset list` output → the ipset model (DESIGN §3).
// Each line is read on its own: by an accelerator when one takes it (accelerators/*.ts), else by the reference
// reader (reference.ts); both tell the sink (sink.ts), the only code that makes the model. Problems are returned
// as diagnostics; nothing here throws (see pipeline.ts).
import type { IpsetDump } from '../../model/ipset';
import { detached, guardedLineParse, LINE_LIMITS, LineCursor, MAX_DIAGNOSTICS, readLines, type ParseOptions } from '../pipeline';
import { addLineAccelerator } from './accelerators/add-line';
import { tryLine as createLine } from './accelerators/create-line';
import { readLine, referenceParser } from './reference';
import { IpsetSink } from './sink';

export { parseMemberParts } from './members';
export const MAX_LINE_LENGTH = LINE_LIMITS.ipset.maxLength;
// Past the shared cap a file is clearly not this dialect; the rest are summarised in one.
export { MAX_DIAGNOSTICS };

/** `accelerators: 'off'` reads every line with the reference reader (the accelerators' oracle, for tests). */
export type ParseIpsetOptions = ParseOptions;

export function parseIpset(text: string, options: ParseIpsetOptions = {}): IpsetDump {
  return guardedLineParse('ipset', text, options, read, referenceParser);
}

function read(text: string, accelerators: boolean): IpsetDump {
  const sink = new IpsetSink(new LineCursor(text).lineCountHint());
  const reference = (i: number, start: number, end: number) => {
    sink.extendSet();
    // A copy: the names, types and members cut from the line must not keep the whole dump alive.
    readLine(sink, i, detached(text.slice(start, end)));
  };
  // Read in place: only a line the accelerators leave is made a string (see LineSpans).
  const lines = readLines(text, { sink, accelerators: [addLineAccelerator(), createLine], reference }, accelerators);
  return sink.finish(lines);
}
