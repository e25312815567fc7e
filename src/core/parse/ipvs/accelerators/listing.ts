// The accelerator of plain `ipvsadm -Ln` listings (docs/performance.md#accelerators): service lines, real server
// lines and the title lines, by their first character, each read in place (service-line.ts, server-line.ts,
// titles.ts) into the same sink the reference reader fills; false, having changed nothing, for any other line.
import { FAST_MAX_LINE } from '../nodes';
import type { IpvsSink } from '../sink';
import { tryLine as serverLine } from './server-line';
import { tryLine as serviceLine } from './service-line';
import { tryLine as titles } from './titles';

/** What a line is read as, by its first character (START). */
const SERVER_LINE = 1;
const SERVICE_LINE = 2;
const TITLE_LINE = 3;
const START = new Uint8Array(128);
START[32] = SERVER_LINE; // `  -> …` (or the real server column titles)
for (const c of 'TUS') START[c.charCodeAt(0)] = SERVICE_LINE;
for (const c of 'IP') START[c.charCodeAt(0)] = TITLE_LINE;

export function tryLine(text: string, start: number, end: number, sink: IpvsSink): boolean {
  if (end - start >= FAST_MAX_LINE || end === start) return false;
  // By a table of first characters: a listing's UDP and SCTP services come after thousands of TCP ones, and a
  // comparison first made then would throw away the optimised code (no type feedback for it yet).
  const c0 = text.charCodeAt(start);
  const kind = c0 < 128 ? START[c0] : 0;
  if (kind === SERVER_LINE) return serverLine(text, start, end, sink) || titles(text, start, end, sink);
  if (kind === SERVICE_LINE) return serviceLine(text, start, end, sink);
  if (kind === TITLE_LINE) return titles(text, start, end, sink);
  return false;
}
