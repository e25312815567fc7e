// Opening a support bundle: a folder is read in place; an archive (.tar, .tar.gz, .tar.xz, .zip) is expanded by
// libraries (never a shell) into a fresh temporary folder. Only regular files and folders are written there, each
// opened with O_EXCL|O_NOFOLLOW under a path checked to stay inside; bytes are counted as they stream, so a
// decompression bomb stops at the cap. Anything refused is a BundleError and the folder is removed.
import { constants, createReadStream, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Inflate } from 'fflate';
import * as tar from 'tar-stream';
import { XzReadableStream } from 'xz-decompress';
import { Budget, BundleError, DEFAULT_LIMITS, kindRefusal, linkStaysInside, safeSegments, shown, type EntryKind, type Limits } from '../core/bundle/entry';
import { zipEntries } from '../core/bundle/zip';
import { t } from '../core/l10n';
import { groupBundle, type BundleNode } from '../core/bundle/classify';
import { SNIFF_BYTES } from '../core/detect';
import { commandSections, sectionFileName } from '../core/bundle/sections';

export { BundleError, DEFAULT_LIMITS, type Limits };

export interface OpenedBundle {
  /** The folder the files are in: the bundle itself, or the temporary extraction. */
  root: string;
  /** Regular files, relative to root with `/`, sorted. */
  files: string[];
  /** Entries not written (links inside the bundle, special files of a folder), with why. */
  skipped: { name: string; why: string }[];
  archive?: 'tar' | 'tar.gz' | 'tar.xz' | 'zip';
  /** Where a listed file is on disk (a folder's inner archives are expanded elsewhere). */
  locate(path: string): string;
  /** Removes the temporary extraction (nothing for a folder); safe to call twice. */
  dispose(): void;
}

export interface OpenOptions {
  limits?: Partial<Limits>;
  /** Where the temporary folder is made (the system's by default). */
  tempParent?: string;
}

type Format = NonNullable<OpenedBundle['archive']>;

/** The archive format from the first bytes (the name only breaks a tie for a bare tar). */
export function archiveFormat(path: string): Format | undefined {
  const head = Buffer.alloc(512);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let n: number;
  try {
    n = readSync(fd, head, 0, 512, 0);
  } finally {
    closeSync(fd);
  }
  if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (n >= 6 && head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return 'tar.xz';
  if (n >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5)) return 'zip';
  if (n >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar') return 'tar';
  if (/\.tar$/i.test(path) && n === 512) return 'tar';
  return undefined;
}

/** True when `path` is a folder or an archive this module opens. */
export function isBundle(path: string): boolean {
  try {
    const stats = lstatSync(path);
    if (stats.isDirectory()) return true;
    return stats.isFile() && archiveFormat(path) !== undefined;
  } catch {
    return false;
  }
}

export async function openBundle(path: string, options: OpenOptions = {}): Promise<OpenedBundle> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const stats = lstatSync(path);
  if (stats.isDirectory()) return readFolder(resolve(path), limits, options);
  const format = stats.isFile() ? archiveFormat(path) : undefined;
  if (!format) throw new BundleError(t('{0}: neither a folder nor a .tar, .tar.gz, .tar.xz or .zip archive', shown(path)));
  const root = mkdtempSync(join(options.tempParent ?? tmpdir(), 'dataplane-bundle-'));
  const dispose = () => rmSync(root, { recursive: true, force: true });
  const skipped: OpenedBundle['skipped'] = [];
  try {
    const budget = new Budget(limits);
    await extractArchive(path, format, new Writer(root, budget, skipped), limits);
    await expandNested(root, budget, limits, skipped, NESTING);
    return { root, files: listFiles(root, limits, []), skipped, archive: format, locate: (p) => join(root, p), dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}

async function extractArchive(path: string, format: Format, writer: Writer, limits: Limits): Promise<void> {
  if (format === 'zip') await extractZip(path, writer, limits);
  else await extractTar(decompressed(path, format, limits), writer);
}

/** A compressed file that is no tar (a rotated log inside a sosreport): refused at the top, kept when nested. */
class NotAnArchive extends BundleError {}

/** How deep archives inside archives are opened: a sysdump holds one bugtool archive per agent, no deeper. */
const NESTING = 2;

/**
 * Archives found inside the extraction (cilium sysdump's per-agent bugtool archives, antctl's per-agent
 * tarballs) are expanded next to themselves, within the same byte and entry budget, then removed.
 */
async function expandNested(root: string, budget: Budget, limits: Limits, skipped: OpenedBundle['skipped'], depth: number): Promise<void> {
  if (depth === 0) return;
  for (const name of listFiles(root, limits, [])) {
    const path = join(root, name);
    const inner = await expandOne(path, path, budget, limits, skipped, exists);
    if (!inner) continue;
    rmSync(path);
    await expandNested(inner, budget, limits, skipped, depth - 1);
  }
}

/**
 * Expands the archive at `path` into a fresh folder named after `at` without its extension; undefined (and
 * nothing left) when it is no archive. `taken` says whether a candidate folder name is in use.
 */
async function expandOne(path: string, at: string, budget: Budget, limits: Limits, skipped: OpenedBundle['skipped'], taken: (p: string) => boolean): Promise<string | undefined> {
  const format = archiveFormat(path);
  if (!format) return undefined;
  const base = at.replace(/\.(?:tar(?:\.gz|\.xz)?|tgz|txz|zip)$/i, '');
  let inner = base;
  for (let n = 1; taken(inner); n++) inner = `${base}~${n}`;
  mkdirSync(inner, { recursive: true, mode: 0o700 });
  try {
    await extractArchive(path, format, new Writer(inner, budget, skipped), limits);
    return inner;
  } catch (e) {
    rmSync(inner, { recursive: true, force: true });
    if (e instanceof NotAnArchive) return undefined;
    throw e;
  }
}

/** A folder's regular files, without following links (they are listed as skipped). */
async function readFolder(root: string, limits: Limits, options: OpenOptions): Promise<OpenedBundle> {
  const skipped: OpenedBundle['skipped'] = [];
  const files = listFiles(root, limits, skipped);
  const archives = files.filter((f) => archiveFormat(join(root, f)) !== undefined);
  if (archives.length === 0) return { root, files, skipped, locate: (p) => join(root, p), dispose: () => undefined };
  // An unpacked sysdump still holds one archive per agent: those are expanded into a temporary folder.
  const temp = mkdtempSync(join(options.tempParent ?? tmpdir(), 'dataplane-bundle-'));
  const dispose = () => rmSync(temp, { recursive: true, force: true });
  try {
    const budget = new Budget(limits);
    const expanded = new Set<string>();
    for (const archive of archives) {
      const inner = await expandOne(join(root, archive), join(temp, archive), budget, limits, skipped, (p) => exists(p) || exists(join(root, relative(temp, p))));
      if (!inner) continue;
      expanded.add(archive);
      await expandNested(inner, budget, limits, skipped, NESTING - 1);
    }
    const inTemp = new Set(listFiles(temp, limits, []));
    const all = [...files.filter((f) => !expanded.has(f)), ...inTemp].sort();
    return { root, files: all, skipped, locate: (p) => (inTemp.has(p) ? join(temp, p) : join(root, p)), dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function listFiles(root: string, limits: Limits, skipped: OpenedBundle['skipped']): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const name = relative(root, full).split(sep).join('/');
      if (files.length + skipped.length >= limits.maxEntries) throw new BundleError(t('more than {0} entries (at {1})', limits.maxEntries, shown(name)));
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.push(name);
      else skipped.push({ name, why: entry.isSymbolicLink() ? t('a symbolic link') : t('not a regular file') });
    }
  };
  walk(root);
  return files.sort();
}

/** The tar stream of a compressed file, counted: past the cap (contents plus headers) it fails. */
function decompressed(path: string, format: Exclude<Format, 'zip'>, limits: Limits): Readable {
  const source = createReadStream(path);
  const cap = limits.maxTotalBytes + limits.maxEntries * 1536 + 1024 * 1024;
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > cap) done(new BundleError(t('more than {0} bytes once decompressed: refused as a decompression bomb', cap)));
      else done(null, chunk);
    },
  });
  let inner: Readable = source;
  if (format === 'tar.gz') inner = source.pipe(createGunzip());
  if (format === 'tar.xz') inner = Readable.fromWeb(new XzReadableStream(Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>) as never);
  inner.on('error', (e) => counter.destroy(e));
  // Stopping early must end the decompressor too: the xz library holds one process-wide lock until cancelled.
  counter.on('close', () => {
    inner.destroy();
    source.destroy();
  });
  return inner.pipe(counter);
}

function tarKind(type: tar.Header['type']): EntryKind {
  switch (type) {
    case 'file':
    case 'contiguous-file':
    case undefined:
    case null:
      return 'file';
    case 'directory':
      return 'directory';
    case 'symlink':
      return 'symlink';
    case 'link':
      return 'hardlink';
    case 'character-device':
    case 'block-device':
      return 'device';
    case 'fifo':
      return 'fifo';
    default:
      return 'other';
  }
}

async function extractTar(stream: Readable, writer: Writer): Promise<void> {
  const extract = tar.extract();
  const feeding = pipeline(stream, extract);
  feeding.catch(() => undefined);
  try {
    for await (const entry of extract) {
      const h = entry.header;
      const kind = tarKind(h.type);
      await writer.entry(h.name, kind, h.linkname ?? '', h.size ?? 0, entry as AsyncIterable<Uint8Array>);
    }
    await feeding;
  } catch (e) {
    stream.destroy();
    extract.destroy();
    throw e instanceof BundleError ? e : new NotAnArchive(t('not a readable tar archive: {0}', (e as Error).message));
  }
}

async function extractZip(path: string, writer: Writer, limits: Limits): Promise<void> {
  // A zip is read whole (its directory is at its end): no larger than what it may expand to.
  const size = lstatSync(path).size;
  if (size > limits.maxTotalBytes) throw new BundleError(t('a zip archive of {0} bytes is above the limit of {1}', size, limits.maxTotalBytes));
  const bytes = new Uint8Array(await readFile(path));
  for (const e of zipEntries(bytes)) {
    if (e.kind === 'file' && e.method !== 0 && e.method !== 8) throw new BundleError(t('entry {0}: compression method {1} is not supported', shown(e.name), e.method));
    const data = bytes.subarray(e.dataStart, e.dataStart + e.compressedSize);
    const chunks = e.kind === 'file' ? (e.method === 0 ? sliced(data) : inflated(data)) : sliced(new Uint8Array());
    await writer.entry(e.name, e.kind, '', e.size, chunks);
  }
}

/** Compressed data pushed 16 KiB at a time, so one push expands to at most ~16 MiB before it is counted. */
function* inflated(data: Uint8Array): Generator<Uint8Array> {
  const out: Uint8Array[] = [];
  const inflate = new Inflate((chunk) => out.push(chunk));
  for (let i = 0; i < data.length || i === 0; i += 16384) {
    inflate.push(data.subarray(i, i + 16384), i + 16384 >= data.length);
    yield* out.splice(0);
  }
}

function* sliced(data: Uint8Array): Generator<Uint8Array> {
  for (let i = 0; i < data.length; i += 65536) yield data.subarray(i, i + 65536);
}

/** Writes entries under root, refusing what may not be written. */
class Writer {
  constructor(
    private readonly root: string,
    private readonly budget: Budget,
    private readonly skipped: OpenedBundle['skipped'],
  ) {}

  async entry(name: string, kind: EntryKind, linkTarget: string, declared: number, data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    this.budget.entry(name);
    const segments = safeSegments(name);
    if ((kind === 'symlink' || kind === 'hardlink') && linkStaysInside(kind, segments, linkTarget)) {
      this.skipped.push({ name, why: t('{0} to {1}, not followed', kindRefusal(kind)!, linkTarget) });
      return drain(data);
    }
    const refusal = kindRefusal(kind);
    if (refusal && linkTarget) throw new BundleError(t('entry {0}: {1} to {2}, outside the bundle; only regular files and folders are extracted', shown(name), refusal, shown(linkTarget)));
    if (refusal) throw new BundleError(t('entry {0}: {1}; only regular files and folders are extracted', shown(name), refusal));
    if (segments.length === 0) return drain(data);
    const target = this.inside(segments, name);
    if (kind === 'directory') {
      mkdirSync(target, { recursive: true, mode: 0o700 });
      return drain(data);
    }
    this.budget.declared(name, declared);
    mkdirSync(join(target, '..'), { recursive: true, mode: 0o700 });
    await this.write(target, name, data);
  }

  private inside(segments: string[], name: string): string {
    const target = resolve(this.root, ...segments);
    if (!target.startsWith(this.root + sep)) throw new BundleError(t('entry {0}: a path outside the bundle', shown(name)));
    return target;
  }

  private async write(target: string, name: string, data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    let file;
    try {
      file = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    } catch (e) {
      throw new BundleError(t('entry {0}: cannot be written ({1}; a duplicate entry?)', shown(name), (e as NodeJS.ErrnoException).code ?? (e as Error).message));
    }
    try {
      let size = 0;
      for await (const chunk of data) {
        size += chunk.length;
        this.budget.bytes(name, size, chunk.length);
        await file.write(chunk);
      }
    } finally {
      await file.close();
    }
  }
}

async function drain(data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
  for await (const _ of data) void _;
}

/** The first bytes of a file, as the detector reads them. */
function head(path: string): string {
  const buffer = Buffer.alloc(SNIFF_BYTES);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    return buffer.subarray(0, readSync(fd, buffer, 0, SNIFF_BYTES, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** A bundle's dumps per node, with where each is on disk (a section of a combined file is written apart). */
export interface LocatedNodes {
  nodes: BundleNode[];
  /** The file on disk of a dump's path. */
  locate(path: string): string;
  /** Removes the sections written apart. */
  dispose(): void;
}

/** The opened bundle's dumps, per node; combined files (Retina's) are split into one file per command. */
export function bundleNodes(bundle: OpenedBundle, bundleName: string): LocatedNodes {
  const located = new Map<string, string>();
  let sectionsRoot: string | undefined;
  const files: { path: string; head: string }[] = [];
  for (const path of bundle.files) {
    const full = bundle.locate(path);
    const first = head(full);
    const sections = first.startsWith('Summary:') ? commandSections(readBounded(full)) : undefined;
    if (!sections) {
      files.push({ path, head: first });
      continue;
    }
    sectionsRoot ??= mkdtempSync(join(tmpdir(), 'dataplane-sections-'));
    sections.forEach((section, i) => {
      const name = sectionFileName(path, i, section.command);
      // Named after the section, so that messages about it say which file and command it came from.
      const folder = join(sectionsRoot!, String(located.size));
      mkdirSync(folder, { mode: 0o700 });
      const target = join(folder, name.split('/').pop()!);
      writeFileSync(target, section.text, { flag: 'wx', mode: 0o600 });
      located.set(name, target);
      files.push({ path: name, head: section.text.slice(0, SNIFF_BYTES) });
    });
  }
  return {
    nodes: groupBundle(files, bundleName),
    locate: (path) => located.get(path) ?? bundle.locate(path),
    dispose: () => sectionsRoot && rmSync(sectionsRoot, { recursive: true, force: true }),
  };
}

/** A whole file (a combined one), within the per-file limit. */
function readBounded(path: string): string {
  const size = lstatSync(path).size;
  if (size > DEFAULT_LIMITS.maxFileBytes) throw new BundleError(t('{0}: {1} bytes is above the limit of {2} per file', shown(path), size, DEFAULT_LIMITS.maxFileBytes));
  return readFileSync(path, 'utf8');
}
