// ipvsadm output and restore input → the IPVS model (DESIGN §3).
// Reads `ipvsadm -L[n]` (plain, --stats, --rate, --thresholds, --persistent-conn, --tun-info), `ipvsadm -L[n]c`
// connection tables and `ipvsadm -S[n]` / `ipvsadm -R` input, also several of them pasted into one file.
// Each line is read on its own: by the accelerator when it takes it (accelerators/listing.ts), else by the
// reference reader (reference.ts); both tell the sink (sink.ts), the only code that makes the model. Problems are
// returned as diagnostics; nothing here throws (see pipeline.ts).
import type { IpvsDump } from '../../model/ipvs';
import { guardedLineParse, LINE_LIMITS, MAX_DIAGNOSTICS, readLines, type ParseOptions } from '../pipeline';
import { tryLine as listingLine } from './accelerators/listing';
import { readLine, referenceParser } from './reference';
import { IpvsSink } from './sink';

export { parseEndpoint } from './endpoint';
export { AddressCache, ServerKeys } from './keys';
export { trimmedLength } from './text';
/** Lines longer than this are not lexed (no ipvsadm line comes near it). */
export const MAX_LINE_LENGTH = LINE_LIMITS.ipvsadm.maxLength;
// Past the shared cap a file is clearly not this dialect; the rest are summarised in one.
export { MAX_DIAGNOSTICS };

/** `accelerators: 'off'` reads every line with the reference reader (the accelerators' oracle, for tests). */
export type ParseIpvsadmOptions = ParseOptions;

export function parseIpvsadm(text: string, options: ParseIpvsadmOptions = {}): IpvsDump {
  return guardedLineParse('ipvsadm', text, options, read, referenceParser);
}

function read(text: string, accelerators: boolean): IpvsDump {
  const sink = new IpvsSink(text);
  // Read in place: the accelerator reads a line's columns in the text itself, and only a line it leaves is made
  // a string (see LineSpans).
  const reference = (i: number, start: number, end: number) => readLine(sink, i, text.slice(start, end));
  const lines = readLines(text, { sink, accelerators: [listingLine], reference }, accelerators);
  return sink.finish(lines);
}
