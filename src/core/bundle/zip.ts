// A zip's central directory, read from the bytes: the names, kinds and sizes every entry declares, so that a
// link or a device (kept in the Unix mode bits, which streaming readers never see) is refused before any data
// is inflated, and the data is read where the directory says, not from local headers that may disagree.
import { t } from '../l10n';
import { BundleError, type EntryKind } from './entry';

export interface ZipEntry {
  name: string;
  kind: EntryKind;
  /** 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  size: number;
  /** Where the entry's compressed data starts in the archive. */
  dataStart: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function endOfDirectory(view: DataView): number {
  for (let i = view.byteLength - 22; i >= Math.max(0, view.byteLength - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) return i;
  }
  throw new BundleError(t('not a zip archive (no end of central directory)'));
}

function kindOf(madeBy: number, external: number, name: string): EntryKind {
  const mode = madeBy >> 8 === 3 ? external >>> 16 : 0;
  switch (mode & 0o170000) {
    case 0o120000:
      return 'symlink';
    case 0o020000:
    case 0o060000:
      return 'device';
    case 0o010000:
      return 'fifo';
    case 0o140000:
      return 'other';
    case 0o040000:
      return 'directory';
    default:
      return /[\\/]$/.test(name) ? 'directory' : 'file';
  }
}

/** Every entry of the central directory, in order; a malformed or ZIP64 archive is a BundleError. */
export function zipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = endOfDirectory(view);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw new BundleError(t('a ZIP64 archive, not supported: repack it as .tar.gz'));
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) throw new BundleError(t('a damaged zip archive (central directory)'));
    const nameLength = view.getUint16(at + 28, true);
    const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    if (compressedSize === 0xffffffff || size === 0xffffffff) throw new BundleError(t('a ZIP64 archive, not supported: repack it as .tar.gz'));
    const local = view.getUint32(at + 42, true);
    entries.push({ name, kind: kindOf(view.getUint16(at + 4, true), view.getUint32(at + 38, true), name), method: view.getUint16(at + 10, true), compressedSize, size, dataStart: dataStart(view, local, compressedSize) });
    at += 46 + skip;
  }
  return entries;
}

function dataStart(view: DataView, local: number, compressedSize: number): number {
  if (local + 30 > view.byteLength || view.getUint32(local, true) !== LOCAL) throw new BundleError(t('a damaged zip archive (local header)'));
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  if (start + compressedSize > view.byteLength) throw new BundleError(t('a damaged zip archive (data past its end)'));
  return start;
}
