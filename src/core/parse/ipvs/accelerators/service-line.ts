// A service line of a plain listing (`TCP  10.96.0.10:53 rr [persistent N]`) with a valid address, a known
// scheduler and a numeric timeout, read in place into the sink's compact service (sink.listedService).
import { pack } from '../nodes';
import type { IpvsSink } from '../sink';
import { FAST_PROTOCOLS, SCHEDULER_NAMES } from '../vocabulary';
import { digitsValue } from '../../digits';
import { cols, fastEndpoint, isDigits, scanWords } from './words';

/** The line at [start, end) of the text; `cols` are relative to the line, the reads add `start`. */
export function tryLine(text: string, start: number, end: number, sink: IpvsSink): boolean {
  const f = sink.format;
  if (f !== undefined && f !== 'list' && f !== 'save' && f !== 'connections') return false;
  const n = scanWords(text, start, end);
  if (n !== 3 && n !== 5) return false;
  // A table, not a chain of comparisons: a listing's UDP and SCTP services come after thousands of TCP ones,
  // and a comparison first made then would throw away the optimised code (no type feedback for it yet).
  const proto = FAST_PROTOCOLS.get(text.slice(start, start + cols[1]));
  if (proto === undefined) return false;
  const ep = fastEndpoint(text, start + cols[2], start + cols[3], sink.addresses);
  if (!ep) return false;
  // The known name's own string, not a slice of the line.
  const scheduler = SCHEDULER_NAMES.get(text.slice(start + cols[4], start + cols[5]));
  if (scheduler === undefined) return false;
  let persistent: { timeout: number; start: number; end: number } | undefined;
  if (n === 5) {
    if (cols[7] - cols[6] !== 10 || !text.startsWith('persistent', start + cols[6]) || !isDigits(text, start + cols[8], start + cols[9], 15)) return false;
    persistent = { timeout: digitsValue(text, start + cols[8], start + cols[9]), start: cols[6], end: cols[9] };
  }
  const last = cols[2 * n - 1];
  // Joined, not concatenated: one flat string, where `+` keeps a pair of strings and a slice of the text that
  // the name map's hashing then copies into a flat one anyway (three strings per service, kept).
  const name = [proto.prefix, text.slice(start + cols[2], start + cols[3])].join('');
  sink.listedService(sink.line, name, proto.protocol, ep, scheduler, { extent: pack(0, last), name: pack(0, cols[3]), scheduler: pack(cols[4], cols[5]) }, persistent);
  sink.lineRead('service');
  return true;
}
