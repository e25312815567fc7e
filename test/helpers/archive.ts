// Archives built at test time, from a folder or from hand-made entries (hostile ones included), with the same
// libraries the extension reads them with.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { zipSync, type Zippable } from 'fflate';
import * as tar from 'tar-stream';

export interface TarEntry {
  header: Partial<tar.Header> & { name: string };
  body?: Buffer | string;
}

export async function tarOf(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c) => chunks.push(c as Buffer));
  const done = new Promise<void>((ok) => pack.on('end', () => ok()));
  for (const e of entries) {
    await new Promise<void>((ok, fail) => pack.entry(e.header as tar.Header, e.body ?? '', (err) => (err ? fail(err) : ok())));
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** Every regular file of a folder, relative with `/`. */
export function folderFiles(dir: string): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile()) out.push([relative(dir, full).split(sep).join('/'), readFileSync(full)]);
    }
  };
  walk(dir);
  return out.sort(([a], [b]) => (a < b ? -1 : 1));
}

export async function tarOfFolder(dir: string, prefix = ''): Promise<Buffer> {
  return tarOf(folderFiles(dir).map(([name, body]) => ({ header: { name: prefix + name, size: body.length }, body })));
}

export const gzip = (b: Buffer): Buffer => gzipSync(b);

/** xz by the xz program: the test builds the archive, the code under test reads it with a library. */
export const xz = (b: Buffer): Buffer => execFileSync('xz', ['-c', '-6'], { input: b, maxBuffer: 1 << 30 });

export function zipOfFolder(dir: string, prefix = ''): Buffer {
  const files: Zippable = {};
  for (const [name, body] of folderFiles(dir)) files[prefix + name] = new Uint8Array(body);
  return Buffer.from(zipSync(files));
}
