// Finds the node snapshot of a document: every dump in the same folder (DESIGN §1), and answers questions about
// it (snapshot queries, analysis/queries.ts) where the analyses live. A snapshot of open documents analysed on
// the extension host is built there; one with a large document, or with any file on disk beside the document, is
// built and asked in the analysis worker, which reads the files on disk itself (see snapshotInWorker).
import * as vscode from 'vscode';
import type { NodeSnapshot, SnapshotFile } from '../core/snapshot';
import type { SnapshotAnswer, SnapshotFileSpec } from './analysis/protocol';
import type { SnapshotArgs, SnapshotMethod, SnapshotResult } from './analysis/queries';
import { RequestError } from './analysis/client';
import { snapshotInWorker } from './analysis/route';
import type { DocumentAnalysis, DocumentCache } from './documentCache';
import { core } from './loadCore';
import type { Log } from './log';
import { readSettings } from './settings';

const MAX_FILES = 32;

interface LoadedSnapshot {
  snapshot: NodeSnapshot;
  /** URIs parallel to snapshot.files. */
  uris: vscode.Uri[];
}

export interface SnapshotQueryAnswer<T> {
  value: T;
  /** URIs parallel to the snapshot's files (what `fileIndex` in the answer refers to). */
  uris: vscode.Uri[];
  /** Where the snapshot was asked. */
  where: 'extension-host' | 'worker';
}

/** A file beside the document. */
type Sibling =
  | { uri: vscode.Uri; open: vscode.TextDocument; analysis: DocumentAnalysis }
  | { uri: vscode.Uri; size: number; mtime: number };

export class Snapshots {
  constructor(
    private readonly cache: DocumentCache,
    private readonly log: Log,
  ) {}

  /**
   * Asks a question about the node snapshot of `document` (file 0). Undefined when the document is no analysed
   * dump (other language, too large, failed) or changed while the answer was computed.
   */
  async query<M extends SnapshotMethod>(document: vscode.TextDocument, method: M, ...args: SnapshotArgs<M>): Promise<SnapshotQueryAnswer<SnapshotResult<M>> | undefined> {
    const own = await this.cache.get(document);
    if (!own) return undefined;
    const siblings = await this.siblings(document);
    if (!snapshotInWorker(own, siblings)) {
      const { snapshot, uris } = this.local(document, own, siblings);
      return { value: core().runSnapshotQuery(snapshot, method, args), uris, where: 'extension-host' };
    }
    const files: SnapshotFileSpec[] = [];
    const uris: vscode.Uri[] = [];
    const add = async (uri: vscode.Uri, open: vscode.TextDocument | undefined, analysis: DocumentAnalysis | undefined, disk?: { size: number; mtime: number }) => {
      if (open && analysis) {
        files.push(analysis.where === 'worker'
          ? { kind: 'document', key: open.uri.toString() }
          : { kind: 'text', key: open.uri.toString(), version: open.version, name: open.uri.fsPath, languageId: open.languageId, text: open.getText() });
      } else if (uri.scheme === 'file') {
        files.push({ kind: 'path', name: uri.fsPath, path: uri.fsPath, maxSize: readSettings().maxDocumentSize });
      } else if (disk && disk.size <= readSettings().maxDocumentSize) {
        const bytes = await vscode.workspace.fs.readFile(uri);
        if (bytes.subarray(0, 4096).includes(0)) return;
        // No language: the worker detects it, as for files it reads itself.
        files.push({ kind: 'text', key: uri.toString(), version: disk.mtime, name: uri.fsPath, text: new TextDecoder().decode(bytes) });
      } else {
        return;
      }
      uris.push(uri);
    };
    await add(document.uri, document, own);
    for (const s of siblings) await add(s.uri, 'open' in s ? s.open : undefined, 'open' in s ? s.analysis : undefined, 'size' in s ? s : undefined);
    try {
      const answer = await this.cache.whileWorkerWorks(() => this.cache.worker.request<SnapshotAnswer<SnapshotResult<M>>>({ type: 'snapshot', files, method, args }));
      if (document.isClosed || document.version !== own.version) return undefined;
      return { value: answer.value, uris: answer.included.map((i) => uris[i]), where: 'worker' };
    } catch (e) {
      if (e instanceof RequestError && e.kind !== 'error') return undefined;
      throw e;
    }
  }

  /** The snapshot of open documents analysed on the extension host (see snapshotInWorker). */
  private local(document: vscode.TextDocument, own: DocumentAnalysis, siblings: Sibling[]): LoadedSnapshot {
    const files: SnapshotFile[] = [];
    const uris: vscode.Uri[] = [];
    const add = (uri: vscode.Uri, open: vscode.TextDocument, analysis: DocumentAnalysis) => {
      if (!analysis.local) return;
      files.push({ name: uri.fsPath, languageId: analysis.languageId, features: analysis.local.features, analysis: analysis.local.analysis, text: () => open.getText() });
      uris.push(uri);
    };
    add(document.uri, document, own);
    for (const s of siblings) if ('open' in s) add(s.uri, s.open, s.analysis);
    return { snapshot: core().buildSnapshot(files), uris };
  }

  /** The other dumps in the document's folder: open ones with their analysis, others with their size. */
  private async siblings(document: vscode.TextDocument): Promise<Sibling[]> {
    if (document.uri.scheme !== 'file' && document.uri.scheme !== 'vscode-remote') return [];
    const folder = vscode.Uri.joinPath(document.uri, '..');
    let entries: [string, vscode.FileType][] = [];
    try {
      entries = await vscode.workspace.fs.readDirectory(folder);
    } catch (e) {
      this.log.warn(`cannot list ${folder.fsPath}: ${(e as Error).message}`);
    }
    const out: Sibling[] = [];
    const maxSize = readSettings().maxDocumentSize;
    for (const [name, type] of entries.sort(([a], [b]) => a.localeCompare(b))) {
      if (type !== vscode.FileType.File || out.length >= MAX_FILES - 1) continue;
      const uri = vscode.Uri.joinPath(folder, name);
      if (uri.toString() === document.uri.toString()) continue;
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      const analysis = open ? await this.cache.get(open) : undefined;
      if (open && analysis) {
        out.push({ uri, open, analysis });
        continue;
      }
      try {
        const stat = await vscode.workspace.fs.stat(uri);
        if (stat.size > 0 && stat.size <= maxSize) out.push({ uri, size: stat.size, mtime: stat.mtime });
      } catch (e) {
        this.log.warn(`cannot read ${uri.fsPath}: ${(e as Error).message}`);
      }
    }
    return out;
  }
}
