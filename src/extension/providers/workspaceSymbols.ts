// Ctrl+T: the Services, ClusterIPs, NodePorts, chains, sets and maps of every node snapshot (dump folder) of the
// workspace. Each snapshot answers from its symbol index where its analyses live (the worker for large dumps).
import * as vscode from 'vscode';
import type { WorkspaceSymbolMatch } from '../../core/symbols';
import { toRange } from '../convert';
import type { DocumentCache } from '../documentCache';
import { isDumpLanguage } from '../dumpLanguages';
import type { Log } from '../log';
import type { Snapshots } from '../snapshots';

const MAX_RESULTS = 500;
/** Snapshot folders asked at most (a workspace of thousands of dumps would hold up every keystroke). */
const MAX_FOLDERS = 50;
/** How long a listing of the workspace's dump files is reused (a watcher also drops it when a dump comes or goes). */
const LIST_TTL_MS = 10_000;
const DUMP_GLOB = '**/*.{iptables,iptables-save,rules,nft,nftables,ipvs,ipvsadm,ipset}';

const KIND: Record<WorkspaceSymbolMatch['kind'], vscode.SymbolKind> = {
  service: vscode.SymbolKind.Class,
  clusterIP: vscode.SymbolKind.Constant,
  nodePort: vscode.SymbolKind.Number,
  frontend: vscode.SymbolKind.Constant,
  chain: vscode.SymbolKind.Function,
  set: vscode.SymbolKind.Variable,
  map: vscode.SymbolKind.Variable,
};

/**
 * The workspace's dump files, listed at most every LIST_TTL_MS or after a dump was created or deleted: every query
 * (each keystroke in Ctrl+T) listed them anew, a file search that started a process each time.
 */
class DumpFiles {
  private listed: { at: number; files: Promise<vscode.Uri[]> } | undefined;
  constructor(context: vscode.ExtensionContext) {
    const watcher = vscode.workspace.createFileSystemWatcher(DUMP_GLOB, false, true, false);
    const forget = () => (this.listed = undefined);
    context.subscriptions.push(watcher, watcher.onDidCreate(forget), watcher.onDidDelete(forget), vscode.workspace.onDidChangeWorkspaceFolders(forget));
  }
  get(): Promise<vscode.Uri[]> {
    if (!this.listed || performance.now() - this.listed.at > LIST_TTL_MS) {
      const files = Promise.resolve(vscode.workspace.findFiles(DUMP_GLOB, '**/node_modules/**', 1000)).then((found) => found.sort((a, b) => a.toString().localeCompare(b.toString())));
      const listed = { at: performance.now(), files };
      // A failed search is not kept.
      files.catch(() => this.listed === listed && (this.listed = undefined));
      this.listed = listed;
    }
    return this.listed.files;
  }
}

/** One document per snapshot folder: an open dump where there is one, else the folder's first dump file. */
async function snapshotDocuments(files: DumpFiles): Promise<(vscode.TextDocument | vscode.Uri)[]> {
  const byFolder = new Map<string, vscode.TextDocument | vscode.Uri>();
  for (const d of vscode.workspace.textDocuments) {
    const folder = vscode.Uri.joinPath(d.uri, '..').toString();
    if (isDumpLanguage(d.languageId) && !byFolder.has(folder)) byFolder.set(folder, d);
  }
  for (const uri of await files.get()) {
    const folder = vscode.Uri.joinPath(uri, '..').toString();
    if (!byFolder.has(folder)) byFolder.set(folder, uri);
  }
  return [...byFolder.values()].slice(0, MAX_FOLDERS);
}

type Answer = Awaited<ReturnType<Snapshots['query']>>;

/**
 * The symbols of one snapshot folder: through its open dump, else from its files on disk, read by the worker (not
 * opened here: opening and parsing every folder's dumps on the extension host held it up for seconds). An answer
 * the worker dropped (a document changed meanwhile, the worker restarted) is asked once more: skipped, the folder's
 * Services were missing from that search while a retype found them.
 */
async function folderSymbols(item: vscode.TextDocument | vscode.Uri, query: string, cache: DocumentCache, snapshots: Snapshots, token: vscode.CancellationToken): Promise<vscode.SymbolInformation[]> {
  let answer: Answer;
  for (let attempt = 0; attempt < 2 && !answer && !token.isCancellationRequested; attempt++) {
    if (item instanceof vscode.Uri || item.isClosed) {
      answer = (await snapshots.queryFolder(vscode.Uri.joinPath(item instanceof vscode.Uri ? item : item.uri, '..'), token, 'symbols', query, MAX_RESULTS)) as Answer;
    } else {
      if (!(await cache.get(item))) return [];
      answer = (await snapshots.queryWith(token, item, 'symbols', query, MAX_RESULTS)) as Answer;
    }
  }
  if (!answer || token.isCancellationRequested) return [];
  const { value, uris } = answer as { value: WorkspaceSymbolMatch[]; uris: vscode.Uri[] };
  return value.flatMap((m) => (uris[m.fileIndex] ? [new vscode.SymbolInformation(m.name, KIND[m.kind], m.container, new vscode.Location(uris[m.fileIndex], toRange(m.range)))] : []));
}

export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots, log: Log): void {
  const files = new DumpFiles(context);
  const provider: vscode.WorkspaceSymbolProvider = {
    async provideWorkspaceSymbols(query, token) {
      // Every folder asked at once, the answers kept in folder order: one after another, each waited for the
      // previous one's round trip to the worker (seconds for a workspace of a few folders on a busy machine).
      const asked = (await snapshotDocuments(files)).map((item) =>
        folderSymbols(item, query, cache, snapshots, token).catch((e: Error) => {
          log.warn(`workspace symbols: ${e.message}`);
          return [];
        }),
      );
      const out = (await Promise.all(asked)).flat();
      return token.isCancellationRequested ? [] : out.slice(0, MAX_RESULTS);
    },
  };
  context.subscriptions.push(vscode.languages.registerWorkspaceSymbolProvider(provider));
}
