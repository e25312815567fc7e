// A real server line of a plain listing (`  -> 10.244.1.5:8080  Masq  1  0  0`) with a valid address and
// numeric columns, under a service line: read in place into the sink's compact server (sink.listedServer).
import { forwardAt, pack } from '../nodes';
import type { IpvsSink } from '../sink';
import { digitsValue } from '../../digits';
import { cols, endpointFamily, isDigits, scanWords } from './words';

/** The line at [start, end) of the text; `cols` are relative to the line, the reads add `start`. */
export function tryLine(text: string, start: number, end: number, sink: IpvsSink): boolean {
  const f = sink.format;
  if (!sink.current || (f !== undefined && f !== 'list' && f !== 'save' && f !== 'connections' && f !== 'tun-info')) return false;
  if (scanWords(text, start, end) !== 6) return false;
  if (cols[1] - cols[0] !== 2 || text.charCodeAt(start + cols[0]) !== 45 /* - */ || text.charCodeAt(start + cols[0] + 1) !== 62 /* > */) return false;
  // The server reads its address from the line when asked: the endpoint is only checked here.
  const family = endpointFamily(text, start + cols[2], start + cols[3]);
  if (family === undefined) return false;
  const fwd = forwardAt(text, start + cols[4], start + cols[5]);
  if (fwd === undefined) return false;
  if (!isDigits(text, start + cols[6], start + cols[7], 15) || !isDigits(text, start + cols[8], start + cols[9], 15) || !isDigits(text, start + cols[10], start + cols[11], 15)) return false;
  const weight = digitsValue(text, start + cols[6], start + cols[7]);
  if (weight > 65535) return false; // the reference reader reports it
  sink.listedServer(sink.line, start, end, start + cols[2], start + cols[3], family, fwd, weight, pack(cols[0], cols[11]));
  sink.lineRead('realServer');
  return true;
}
