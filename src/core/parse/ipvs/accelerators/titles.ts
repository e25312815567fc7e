// The three title lines of a plain `ipvsadm -Ln` exactly as ipvsadm prints them: the same sink calls the
// reference reader makes for them (a kube-proxy listing then needs no Chevrotain parser at all).
import { lineRange } from '../../../model/range';
import type { IpvsSink } from '../sink';

const VERSION_RE = /^IP Virtual Server version (\d+\.\d+\.\d+) \(size=(\d+)\)$/;
const COLUMNS = 'Prot LocalAddress:Port Scheduler Flags';
const SERVER_COLUMNS_RE = /^ +-> RemoteAddress:Port +Forward +Weight +ActiveConn +InActConn$/;

export function tryLine(all: string, start: number, end: number, sink: IpvsSink): boolean {
  const text = all.slice(start, end);
  const i = sink.line;
  const trimmed = text.trimEnd();
  // Trailing spaces only (other whitespace the lexer and trim() may see differently).
  for (let k = trimmed.length; k < text.length; k++) if (text.charCodeAt(k) !== 32) return false;
  const version = VERSION_RE.exec(trimmed);
  if (version) {
    sink.versionTitle(i, version[1], Number(version[2]), trimmed, lineRange(i, 0, trimmed.length));
    sink.lineRead('version');
    return true;
  }
  if (trimmed === COLUMNS) {
    sink.columnTitles(i, 'list', trimmed, lineRange(i, 0, trimmed.length));
    sink.lineRead('columns');
    return true;
  }
  if (SERVER_COLUMNS_RE.test(trimmed)) {
    const from = trimmed.indexOf('-');
    sink.realServerTitles(false, trimmed.slice(from), lineRange(i, from, trimmed.length));
    sink.lineRead('realServer');
    return true;
  }
  return false;
}
