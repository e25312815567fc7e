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

export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots, log: Log): void {
  const provider: vscode.WorkspaceSymbolProvider = {
    async provideWorkspaceSymbols(query, token) {
      const out: vscode.SymbolInformation[] = [];
      for (const item of await snapshotDocuments(token)) {
        if (token.isCancellationRequested || out.length >= MAX_RESULTS) break;
        try {
          const document = item instanceof vscode.Uri ? await vscode.workspace.openTextDocument(item) : item;
          if (!isDumpLanguage(document.languageId) || !(await cache.get(document))) continue;
          const answer = await snapshots.query(document, 'symbols', query, MAX_RESULTS - out.length);
          if (!answer || token.isCancellationRequested) continue;
          for (const m of answer.value) {
            const uri = answer.uris[m.fileIndex];
            if (uri) out.push(new vscode.SymbolInformation(m.name, KIND[m.kind], m.container, new vscode.Location(uri, toRange(m.range))));
          }
        } catch (e) {
          log.warn(`workspace symbols: ${(e as Error).message}`);
        }
      }
      return token.isCancellationRequested ? [] : out;
    },
  };
  context.subscriptions.push(vscode.languages.registerWorkspaceSymbolProvider(provider));
}
