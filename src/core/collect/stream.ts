// The collector's output (collect.sh): one stream of records, split here into the snapshot's files. Pure: text
// in, files and a manifest out; the CLI runs the script and writes them.
import script from './collect.sh';

export const COLLECT_SCRIPT: string = script;

export interface CollectRecord {
  /** The script's name for it, e.g. `iptables/iptables-nft`, `nft/json`, `meta/hostname`. */
  name: string;
  text: string;
  exitCode: number;
}

export interface CollectStream {
  records: CollectRecord[];
  /** Tools the node does not have. */
  missing: string[];
  /** The script started and printed its last line (a stream cut short still gives the records before). */
  started: boolean;
  complete: boolean;
  /** A record opened and not closed (the stream ended inside it). */
  truncated?: string;
}

export interface CollectOptions {
  /** The record marker: random per run, so a dump's own text never looks like one. */
  marker: string;
  conntrack?: boolean;
  /** Standard error goes to /dev/null on the node (where it would be mixed into standard output). */
  quiet?: boolean;
}

/** The script with its settings in front: what `sh -s` reads or `sh -c` runs. */
export function collectScript(o: CollectOptions): string {
  if (!/^[A-Za-z0-9@_.-]{8,64}$/.test(o.marker)) throw new Error('collect marker must be 8–64 plain characters');
  return `DPX_B='${o.marker}'\nDPX_CONNTRACK=${o.conntrack ? 1 : 0}\nDPX_QUIET=${o.quiet ? 1 : 0}\n${COLLECT_SCRIPT}`;
}

/** Splits the script's standard output into records; lines outside records (a remote banner) are ignored. */
export function parseCollectStream(text: string, marker: string): CollectStream {
  const out: CollectStream = { records: [], missing: [], started: false, complete: false };
  const prefix = `${marker} `;
  let open: { name: string; start: number } | undefined;
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    const next = nl < 0 ? text.length : nl + 1;
    if (text.startsWith(prefix, at)) {
      const words = text
        .slice(at + prefix.length, end)
        .replace(/\r$/, '')
        .split(' ');
      if (open && words[0] === 'END' && words[1] === open.name) {
        // The script printed a newline of its own before END.
        const body = text.slice(open.start, Math.max(open.start, at - 1));
        out.records.push({ name: open.name, text: body, exitCode: Number(words[2] ?? NaN) });
        open = undefined;
      } else if (!open) markerLine(out, words, (name) => (open = { name, start: next }));
    }
    at = next;
  }
  if (open) out.truncated = open.name;
  return out;
}

function markerLine(out: CollectStream, words: string[], begin: (name: string) => void): void {
  if (words[0] === 'START') out.started = true;
  else if (words[0] === 'DONE') out.complete = true;
  else if (words[0] === 'MISSING' && words[1] && !out.missing.includes(words[1])) out.missing.push(words[1]);
  else if (words[0] === 'BEGIN' && words[1]) begin(words[1]);
}
