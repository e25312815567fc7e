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
    const { files, uris } = await this.specs([{ uri: document.uri, open: document, analysis: own }, ...siblings]);
    const answer = await this.ask(files, uris, method, args);
    return answer && !document.isClosed && document.version === own.version ? answer : undefined;
  }

  /**
   * Asks a question about the node snapshot of a folder's dumps without opening any of them (Ctrl+T across the
   * workspace): the worker reads the files on disk; open ones go as they are in the editor.
   */
  async queryFolder<M extends SnapshotMethod>(folder: vscode.Uri, method: M, ...args: SnapshotArgs<M>): Promise<SnapshotQueryAnswer<SnapshotResult<M>> | undefined> {
    const { files, uris } = await this.specs(await this.filesIn(folder));
    return files.length > 0 ? this.ask(files, uris, method, args) : undefined;
  }

  /** The worker's answer, undefined when it dropped the question (a document changed, the worker restarted). */
  private async ask<M extends SnapshotMethod>(files: SnapshotFileSpec[], uris: vscode.Uri[], method: M, args: SnapshotArgs<M>): Promise<SnapshotQueryAnswer<SnapshotResult<M>> | undefined> {
    try {
      const answer = await this.cache.whileWorkerWorks(() => this.cache.worker.request<SnapshotAnswer<SnapshotResult<M>>>({ type: 'snapshot', files, method, args }));
      return { value: answer.value, uris: answer.included.map((i) => uris[i]), where: 'worker' };
    } catch (e) {
      if (e instanceof RequestError && e.kind !== 'error') return undefined;
      throw e;
    }
  }

  /** How the worker gets each file: an open document as the editor has it, a file on disk by its path. */
  private async specs(places: Sibling[]): Promise<{ files: SnapshotFileSpec[]; uris: vscode.Uri[] }> {
    const files: SnapshotFileSpec[] = [];
    const uris: vscode.Uri[] = [];
    const maxSize = readSettings().maxDocumentSize;
    for (const place of places) {
      const { uri } = place;
      if ('open' in place) {
        const { open, analysis } = place;
        files.push(analysis.where === 'worker'
          ? { kind: 'document', key: open.uri.toString() }
          : { kind: 'text', key: open.uri.toString(), version: open.version, name: open.uri.fsPath, languageId: open.languageId, text: open.getText() });
      } else if (uri.scheme === 'file') {
        files.push({ kind: 'path', name: uri.fsPath, path: uri.fsPath, maxSize });
      } else if (place.size <= maxSize) {
        const bytes = await vscode.workspace.fs.readFile(uri);
        if (bytes.subarray(0, 4096).includes(0)) continue;
        // No language: the worker detects it, as for files it reads itself.
        files.push({ kind: 'text', key: uri.toString(), version: place.mtime, name: uri.fsPath, text: new TextDecoder().decode(bytes) });
      } else {
        continue;
      }
      uris.push(uri);
    }
    return { files, uris };
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
    return this.filesIn(vscode.Uri.joinPath(document.uri, '..'), document.uri);
  }

  /** The files of a folder (but `except`): open ones with their analysis, others with their size. */
  private async filesIn(folder: vscode.Uri, except?: vscode.Uri): Promise<Sibling[]> {
    let entries: [string, vscode.FileType][] = [];
    try {
      entries = await vscode.workspace.fs.readDirectory(folder);
    } catch (e) {
      this.log.warn(`cannot list ${folder.fsPath}: ${(e as Error).message}`);
    }
    const out: Sibling[] = [];
    const maxSize = readSettings().maxDocumentSize;
    for (const [name, type] of entries.sort(([a], [b]) => a.localeCompare(b))) {
      if (type !== vscode.FileType.File || out.length >= MAX_FILES - (except ? 1 : 0)) continue;
      const uri = vscode.Uri.joinPath(folder, name);
      if (uri.toString() === except?.toString()) continue;
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
