// Finds the node snapshot of a document: every dump in the same folder (DESIGN §1), and answers questions about
// it (snapshot queries, analysis/queries.ts) where the analyses live. A snapshot of open documents analysed on
// the extension host is built there; one with a large document, or with any file on disk beside the document, is
// built and asked in the analysis worker, which reads the files on disk itself (see snapshotInWorker).
import * as vscode from 'vscode';
import type { ClusterInput } from '../core/cluster/snapshot';
import type { NodeSnapshot, SnapshotFile } from '../core/snapshot';
import type { SnapshotAnswer, SnapshotFileSpec } from './analysis/protocol';
import type { SnapshotArgs, SnapshotMethod, SnapshotResult } from './analysis/queries';
import { RequestError, type CancelSignal } from './analysis/client';
import { snapshotInWorker } from './analysis/route';
import type { DocumentAnalysis, DocumentCache } from './documentCache';
import { core } from './loadCore';
import type { Log } from './log';
import { isDumpLanguage } from './dumpLanguages';
import { readSettings } from './settings';

const MAX_FILES = 32;

interface LoadedSnapshot {
  snapshot: NodeSnapshot;
  /** URIs parallel to snapshot.files. */
  uris: vscode.Uri[];
  /** URIs parallel to snapshot.cluster.files. */
  clusterUris: vscode.Uri[];
}

export interface SnapshotQueryAnswer<T> {
  value: T;
  /** URIs parallel to the snapshot's files (what `fileIndex` in the answer refers to). */
  uris: vscode.Uri[];
  /** Where the snapshot was asked. */
  where: 'extension-host' | 'worker';
  /** URIs parallel to the snapshot's cluster-state files (the cluster check's `files`). */
  clusterUris: vscode.Uri[];
}

/**
 * A file beside the document: an open dump with its analysis, an open small cluster-state file (read here), or a
 * file only on disk (the worker reads it, dump or cluster-state file).
 */
type Sibling =
  | { uri: vscode.Uri; open: vscode.TextDocument; analysis: DocumentAnalysis }
  | { uri: vscode.Uri; open: vscode.TextDocument; cluster: true; picked?: boolean }
  | { uri: vscode.Uri; size: number; mtime: number; picked?: boolean };

/** Where a sibling is read, for the routing: open cluster-state files are small ones, read on the extension host. */
function place(s: Sibling): { analysis: { where: 'extension-host' | 'worker' } } | { size: number } {
  if ('analysis' in s) return s;
  return 'cluster' in s ? { analysis: { where: 'extension-host' } } : s;
}

export class Snapshots {
  /** Cluster-state files read on the extension host, per URI, at one version. */
  private readonly clusterTexts = new Map<string, { version: number; picked: boolean; input: ClusterInput | undefined }>();
  /** The cluster-state file the user picked for a snapshot folder (see clusterCheck.ts). */
  pickedCluster: (folder: vscode.Uri) => vscode.Uri | undefined = () => undefined;
  /** The node the user said a snapshot folder's dumps come from (see clusterCheck.ts). */
  pickedNode: (folder: vscode.Uri) => string | undefined = () => undefined;

  constructor(
    private readonly cache: DocumentCache,
    private readonly log: Log,
  ) {}

  /**
   * Asks a question about the node snapshot of `document` (file 0). Undefined when the document is no analysed
   * dump (other language, too large, failed) or changed while the answer was computed.
   */
  query<M extends SnapshotMethod>(document: vscode.TextDocument, method: M, ...args: SnapshotArgs<M>): Promise<SnapshotQueryAnswer<SnapshotResult<M>> | undefined> {
    return this.queryWith(undefined, document, method, ...args);
  }

  /** As query, for a provider VS Code may cancel: undefined once `token` fires; the worker skips it if not started. */
  async queryWith<M extends SnapshotMethod>(token: CancelSignal | undefined, document: vscode.TextDocument, method: M, ...args: SnapshotArgs<M>): Promise<SnapshotQueryAnswer<SnapshotResult<M>> | undefined> {
    const own = await this.cache.get(document);
    if (!own) return undefined;
    const siblings = await this.siblings(document);
    if (token?.isCancellationRequested) return undefined;
    if (!snapshotInWorker(own, siblings.map(place))) {
      const { snapshot, uris, clusterUris } = this.local(document, own, siblings);
      return { value: core().runSnapshotQuery(snapshot, method, args), uris, clusterUris, where: 'extension-host' };
    }
    const { files, uris } = await this.specs([{ uri: document.uri, open: document, analysis: own }, ...siblings]);
    const answer = await this.ask(files, uris, method, args, { folder: snapshotFolderName(document.uri), node: this.pickedNode(vscode.Uri.joinPath(document.uri, '..')) }, token);
    return answer && !document.isClosed && document.version === own.version ? answer : undefined;
  }

  /**
   * Asks a question about the node snapshot of a folder's dumps without opening any of them (Ctrl+T across the
   * workspace): the worker reads the files on disk; open ones go as they are in the editor.
   */
  async queryFolder<M extends SnapshotMethod>(folder: vscode.Uri, token: CancelSignal | undefined, method: M, ...args: SnapshotArgs<M>): Promise<SnapshotQueryAnswer<SnapshotResult<M>> | undefined> {
    const { files, uris } = await this.specs(await this.filesIn(folder));
    return files.length > 0 ? this.ask(files, uris, method, args, { folder: folder.path.split('/').pop() || undefined, node: this.pickedNode(folder) }, token) : undefined;
  }

  /** The worker's answer, undefined when it dropped the question (a document changed, the worker restarted). */
  private async ask<M extends SnapshotMethod>(
    files: SnapshotFileSpec[],
    uris: vscode.Uri[],
    method: M,
    args: SnapshotArgs<M>,
    place: { folder?: string; node?: string },
    token?: CancelSignal,
  ): Promise<SnapshotQueryAnswer<SnapshotResult<M>> | undefined> {
    try {
      const answer = await this.cache.whileWorkerWorks(() => this.cache.worker.request<SnapshotAnswer<SnapshotResult<M>>>({ type: 'snapshot', files, method, args, ...place }, token));
      return { value: answer.value, uris: answer.included.map((i) => uris[i]), clusterUris: (answer.clusterIncluded ?? []).map((i) => uris[i]), where: 'worker' };
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
    for (const s of places) {
      const { uri } = s;
      const picked = 'picked' in s && s.picked === true ? { cluster: true } : {};
      if ('open' in s && 'analysis' in s) {
        const { open, analysis } = s;
        files.push(
          analysis.where === 'worker'
            ? { kind: 'document', key: open.uri.toString() }
            : { kind: 'text', key: open.uri.toString(), version: open.version, name: open.uri.fsPath, languageId: open.languageId, text: open.getText() },
        );
      } else if ('open' in s) {
        // An open cluster-state file: its text as edited, not as saved.
        files.push({ kind: 'text', key: uri.toString(), version: s.open.version, name: uri.fsPath, text: s.open.getText(), ...picked });
      } else if (uri.scheme === 'file') {
        files.push({ kind: 'path', name: uri.fsPath, path: uri.fsPath, maxSize, ...picked });
      } else if (s.size <= maxSize) {
        const bytes = await vscode.workspace.fs.readFile(uri);
        if (bytes.subarray(0, 4096).includes(0)) continue;
        // No language: the worker detects it, as for files it reads itself.
        files.push({ kind: 'text', key: uri.toString(), version: s.mtime, name: uri.fsPath, text: new TextDecoder().decode(bytes), ...picked });
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
    for (const s of siblings) if ('analysis' in s) add(s.uri, s.open, s.analysis);
    const clusters: ClusterInput[] = [];
    const clusterUris: vscode.Uri[] = [];
    for (const s of siblings) {
      const input = 'cluster' in s ? this.clusterInput(s.open, s.picked === true) : undefined;
      if (!input) continue;
      clusters.push(input);
      clusterUris.push(s.uri);
    }
    return { snapshot: core().buildSnapshotWithCluster(files, clusters, snapshotFolderName(document.uri), this.pickedNode(vscode.Uri.joinPath(document.uri, '..'))), uris, clusterUris };
  }

  /** An open cluster-state file, read once per version. */
  private clusterInput(open: vscode.TextDocument, picked: boolean): ClusterInput | undefined {
    const key = open.uri.toString();
    const kept = this.clusterTexts.get(key);
    if (kept && kept.version === open.version && kept.picked === picked) return kept.input;
    const input = core().readClusterInput(open.uri.fsPath, open.getText(), picked);
    this.clusterTexts.set(key, { version: open.version, picked, input });
    return input;
  }

  /** Forgets what was read of a closed document. */
  forget(uri: vscode.Uri): void {
    this.clusterTexts.delete(uri.toString());
  }

  /** The other files in the document's folder: open ones with their analysis, others with their size. */
  private async siblings(document: vscode.TextDocument): Promise<Sibling[]> {
    if (document.uri.scheme !== 'file' && document.uri.scheme !== 'vscode-remote') return [];
    return this.filesIn(vscode.Uri.joinPath(document.uri, '..'), document.uri);
  }

  /** The files of a folder (but `except`), and the cluster-state file picked for it wherever it is. */
  private async filesIn(folder: vscode.Uri, except?: vscode.Uri): Promise<Sibling[]> {
    let entries: [string, vscode.FileType][] = [];
    try {
      entries = await vscode.workspace.fs.readDirectory(folder);
    } catch (e) {
      this.log.warn(`cannot list ${folder.fsPath}: ${(e as Error).message}`);
    }
    const out: Sibling[] = [];
    const picked = this.pickedCluster(folder);
    const uris = entries
      .sort(([a], [b]) => a.localeCompare(b))
      .filter(([, type]) => type === vscode.FileType.File)
      .map(([name]) => vscode.Uri.joinPath(folder, name));
    if (picked && !uris.some((u) => u.toString() === picked.toString())) uris.unshift(picked);
    for (const uri of uris) {
      if (out.length >= MAX_FILES - (except ? 1 : 0)) break;
      if (uri.toString() === except?.toString()) continue;
      const sibling = await this.sibling(uri, picked !== undefined && uri.toString() === picked.toString());
      if (sibling) out.push(sibling);
    }
    return out;
  }

  private async sibling(uri: vscode.Uri, picked: boolean): Promise<Sibling | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const analysis = open && !picked ? await this.cache.get(open) : undefined;
    if (open && analysis) return { uri, open, analysis };
    // A small open cluster-state file is read on the extension host, as edited.
    if (open && !isDumpLanguage(open.languageId) && this.cache.size(open) <= readSettings().workerThreshold && (picked || core().looksLikeClusterState(open.getText()))) {
      return { uri, open, cluster: true, picked };
    }
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size > 0 && stat.size <= readSettings().maxDocumentSize) return { uri, size: stat.size, mtime: stat.mtime, picked };
    } catch (e) {
      this.log.warn(`cannot read ${uri.fsPath}: ${(e as Error).message}`);
    }
    return undefined;
  }
}

/** The snapshot folder's name, which may be the node's (the cluster check's last way to name it). */
export function snapshotFolderName(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file' && uri.scheme !== 'vscode-remote') return undefined;
  const parts = uri.path.split('/');
  return parts.length > 2 ? parts[parts.length - 2] || undefined : undefined;
}
