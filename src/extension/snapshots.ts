// Finds the node snapshot of a document: every dump in the same folder (DESIGN §1), analysed once per
// version (open documents, through the cache) or per modification time (files on disk).
import * as vscode from 'vscode';
import { analyzeFile, buildSnapshot, type NodeSnapshot, type SnapshotFile } from '../core/snapshot';
import type { DocumentCache } from './documentCache';
import type { Log } from './log';
import { readSettings } from './settings';

const MAX_FILES = 32;
/** Sibling dumps are analysed on the extension host: larger ones are left out until parsing moves to a worker. */
const MAX_SIBLING_BYTES = 8 * 1024 * 1024;

export interface LoadedSnapshot {
  snapshot: NodeSnapshot;
  /** URIs parallel to snapshot.files. */
  uris: vscode.Uri[];
}

export class Snapshots {
  private readonly onDisk = new Map<string, { mtime: number; file: SnapshotFile | undefined }>();
  private readonly skipped = new Set<string>();

  constructor(
    private readonly cache: DocumentCache,
    private readonly log: Log,
  ) {}

  async forDocument(document: vscode.TextDocument): Promise<LoadedSnapshot> {
    const files: SnapshotFile[] = [];
    const uris: vscode.Uri[] = [];
    const own = this.cache.get(document);
    if (own) {
      files.push({ name: document.uri.fsPath, languageId: own.features.languageId, features: own.features, analysis: own.analysis });
      uris.push(document.uri);
    }
    if (document.uri.scheme === 'file' || document.uri.scheme === 'vscode-remote') {
      const folder = vscode.Uri.joinPath(document.uri, '..');
      let entries: [string, vscode.FileType][] = [];
      try {
        entries = await vscode.workspace.fs.readDirectory(folder);
      } catch (e) {
        this.log.warn(`cannot list ${folder.fsPath}: ${(e as Error).message}`);
      }
      for (const [name, type] of entries.sort(([a], [b]) => a.localeCompare(b))) {
        if (type !== vscode.FileType.File || files.length >= MAX_FILES) continue;
        const uri = vscode.Uri.joinPath(folder, name);
        if (uri.toString() === document.uri.toString()) continue;
        const file = await this.load(uri);
        if (file) {
          files.push(file);
          uris.push(uri);
        }
      }
    }
    return { snapshot: buildSnapshot(files), uris };
  }

  private async load(uri: vscode.Uri): Promise<SnapshotFile | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) {
      const entry = this.cache.get(open);
      if (entry) return { name: uri.fsPath, languageId: entry.features.languageId, features: entry.features, analysis: entry.analysis };
    }
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size > Math.min(readSettings().maxDocumentSize, MAX_SIBLING_BYTES) || stat.size === 0) {
        if (stat.size > MAX_SIBLING_BYTES && !this.skipped.has(uri.toString())) {
          this.skipped.add(uri.toString());
          this.log.info(`snapshot: ${uri.fsPath} (${stat.size} bytes) is not read with its neighbours; open it to analyse it`);
        }
        return undefined;
      }
      const cached = this.onDisk.get(uri.toString());
      if (cached && cached.mtime === stat.mtime) return cached.file;
      const bytes = await vscode.workspace.fs.readFile(uri);
      // Sniff before decoding everything: binary files and unrelated text are skipped cheaply.
      const head = new TextDecoder().decode(bytes.subarray(0, 4096));
      if (head.includes('\u0000')) return undefined;
      const file = analyzeFile(uri.fsPath, new TextDecoder().decode(bytes));
      this.onDisk.set(uri.toString(), { mtime: stat.mtime, file });
      if (file) this.log.info(`snapshot: ${uri.fsPath} read as ${file.languageId}`);
      return file;
    } catch (e) {
      this.log.warn(`cannot read ${uri.fsPath}: ${(e as Error).message}`);
      return undefined;
    }
  }
}
