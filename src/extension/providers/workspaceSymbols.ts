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

/** One document per snapshot folder: an open dump where there is one, else the folder's first dump file. */
async function snapshotDocuments(token: vscode.CancellationToken): Promise<(vscode.TextDocument | vscode.Uri)[]> {
  const byFolder = new Map<string, vscode.TextDocument | vscode.Uri>();
  for (const d of vscode.workspace.textDocuments) {
    const folder = vscode.Uri.joinPath(d.uri, '..').toString();
    if (isDumpLanguage(d.languageId) && !byFolder.has(folder)) byFolder.set(folder, d);
  }
  const found = await vscode.workspace.findFiles(DUMP_GLOB, '**/node_modules/**', 1000, token);
  for (const uri of found.sort((a, b) => a.toString().localeCompare(b.toString()))) {
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
  const provider: vscode.WorkspaceSymbolProvider = {
    async provideWorkspaceSymbols(query, token) {
      const out: vscode.SymbolInformation[] = [];
      for (const item of await snapshotDocuments(token)) {
        if (token.isCancellationRequested || out.length >= MAX_RESULTS) break;
        try {
          out.push(...(await folderSymbols(item, query, cache, snapshots, token)));
        } catch (e) {
          log.warn(`workspace symbols: ${(e as Error).message}`);
        }
      }
      return token.isCancellationRequested ? [] : out.slice(0, MAX_RESULTS);
    },
  };
  context.subscriptions.push(vscode.languages.registerWorkspaceSymbolProvider(provider));
}
