// Reading the dumps named on the command line, defensively: a glob over a folder from a bug report can name a
// FIFO (opening it waits for a writer forever), a device (/dev/zero never ends), a /proc file (its size says 0)
// or a huge file. Each is refused with a clear message before anything is read; what is read is bounded.
import { closeSync, constants, fstatSync, openSync, readSync, statfsSync, type Stats } from 'node:fs';
import { UsageError } from './args';
import { clip } from './text';

export interface Loaded {
  name: string;
  text: string;
}

/** The default size limit: the editor's dataplane.maxDocumentSize default (there in characters, here in bytes). */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** Linux pseudo file systems: their files say size 0 and make up their content as they are read. */
const PSEUDO_FILE_SYSTEMS = new Map([
  [0x9fa0, '/proc'],
  [0x62656572, '/sys'],
]);

/** `file` (or standard input for `-`) as text, at most `maxBytes` bytes; refuses what is not a text dump. */
export function readInput(file: string, maxBytes: number): Loaded {
  const name = file === '-' ? '<stdin>' : file;
  const bytes = file === '-' ? readBounded(0, name, maxBytes) : readFile(file, maxBytes);
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw new UsageError(`${clip(name)}: binary data (a NUL byte at offset ${nul}), not a text dump`);
  return { name, text: withoutBom(bytes.toString('utf8')) };
}

/** The text without a UTF-8 byte order mark, as the editor reads a file (TextDecoder drops it there too). */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function readFile(file: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    // Non-blocking, so that opening a FIFO with no writer returns at once (and is then refused).
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    throw new UsageError(`cannot read ${clip(file)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const stats = fstatSync(fd);
    const problem = refusal(file, stats, maxBytes);
    if (problem) throw new UsageError(`cannot read ${clip(file)}: ${problem}`);
    return readBounded(fd, file, maxBytes, stats.size);
  } finally {
    closeSync(fd);
  }
}

/** Why `file` is not read, or undefined. */
function refusal(file: string, stats: Stats, maxBytes: number): string | undefined {
  if (!stats.isFile()) return `not a regular file (${fileKind(stats)}); to read a pipe, give - and redirect it to standard input`;
  const pseudo = pseudoFileSystem(file);
  if (pseudo) return `a file of ${pseudo}, not a dump`;
  if (stats.size > maxBytes) return `${stats.size} bytes is above the limit of ${maxBytes} (raise it with --max-size)`;
  return undefined;
}

function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

function pseudoFileSystem(file: string): string | undefined {
  try {
    return PSEUDO_FILE_SYSTEMS.get(Number(statfsSync(file).type));
  } catch {
    return undefined; // statfs is not available everywhere; the read is bounded anyway
  }
}

/**
 * At most maxBytes bytes from fd; more is an error (a file that grows, a stream that does not end). Read into
 * one buffer sized by `expected` (a regular file's size), so that a large file is not copied again from chunks;
 * a stream, or a file longer than it said, grows the buffer by doubling.
 */
function readBounded(fd: number, name: string, maxBytes: number, expected = 0): Buffer {
  const tooLarge = () => new UsageError(`${clip(name)}: more than ${maxBytes} bytes (raise the limit with --max-size)`);
  let buffer = Buffer.allocUnsafe(Math.min(Math.max(expected + 1, 1 << 16), maxBytes + 1));
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (total > maxBytes) throw tooLarge();
      const larger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(larger, 0, 0, total);
      buffer = larger;
    }
    const n = readSome(fd, buffer.subarray(total), name);
    if (n === 0) break;
    total += n;
  }
  return buffer.subarray(0, total);
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** One read; waits and retries while a non-blocking descriptor (a pipe on standard input) has nothing yet. */
function readSome(fd: number, chunk: Buffer, name: string): number {
  for (;;) {
    try {
      return readSync(fd, chunk, 0, chunk.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EOF') return 0;
      if (code !== 'EAGAIN') throw new UsageError(`cannot read ${clip(name)}: ${code ?? (e as Error).message}`);
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}
