// Ctrl+T: the Services, ClusterIPs, NodePorts, chains, sets and maps of every node snapshot (dump folder) of the
// workspace. Each snapshot answers from its symbol index where its analyses live (the worker for large dumps).
import * as vscode from 'vscode';
import type { WorkspaceSymbolMatch } from '../../core/symbols';
import { toRange } from '../convert';
import type { DocumentCache } from '../documentCache';
import { isDumpLanguage } from '../dumpLanguages';
import type { Log } from '../log';
import { answerWithin } from '../partialAnswer';
import type { Snapshots } from '../snapshots';

const MAX_RESULTS = 500;
/** Snapshot folders asked at most (a workspace of thousands of dumps would hold up every keystroke). */
const MAX_FOLDERS = 50;
/** How long a listing of the workspace's dump files is reused (a watcher also drops it when a dump comes or goes). */
const LIST_TTL_MS = 10_000;
/** When the dump files are first listed after activation (ms). */
const LIST_EARLY_MS = 3_000;
/** An answer slower than this is logged (with its parts). */
const SLOW_MS = 100;
/** How long an answer waits for snapshot folders the worker is still reading: the next keystroke includes them. */
const DEADLINE_MS = 300;
/** Folders read ahead of Ctrl+T once a dump was analysed in the worker: one folder's dumps at most (bytes)... */
const WARM_FOLDER_BYTES = 4 * 1024 * 1024;
/** ...and all of them together; larger folders are read when Ctrl+T first asks. */
const WARM_TOTAL_BYTES = 32 * 1024 * 1024;
/** After an analysis, how long the warm-up waits (the open dump's own preparation goes first). */
const WARM_DELAY_MS = 1_000;
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
 * The workspace's dump files, listed once and again after a dump was created or deleted: every query (each
 * keystroke in Ctrl+T) listed them anew, a file search that started a process each time. A listing older than
 * LIST_TTL_MS is still answered with while a new one runs (the watcher misses nothing it was asked to watch).
 */
class DumpFiles {
  private listed: { at: number; files: Promise<vscode.Uri[]> } | undefined;
  private relisting: Promise<vscode.Uri[]> | undefined;
  constructor(context: vscode.ExtensionContext) {
    const watcher = vscode.workspace.createFileSystemWatcher(DUMP_GLOB, false, true, false);
    const forget = () => (this.listed = undefined);
    context.subscriptions.push(watcher, watcher.onDidCreate(forget), watcher.onDidDelete(forget), vscode.workspace.onDidChangeWorkspaceFolders(forget));
  }
  get(): Promise<vscode.Uri[]> {
    if (!this.listed) return this.list().files;
    if (performance.now() - this.listed.at > LIST_TTL_MS && !this.relisting) {
      const next = this.list(false);
      this.relisting = next.files.finally(() => (this.relisting = undefined));
      void next.files.then(() => (this.listed = next)).catch(() => {});
    }
    return this.listed.files;
  }
  /** A new listing, kept at once when `keep` (a failed one is not kept). */
  private list(keep = true): { at: number; files: Promise<vscode.Uri[]> } {
    const files = Promise.resolve(vscode.workspace.findFiles(DUMP_GLOB, '**/node_modules/**', 1000)).then((found) => found.sort((a, b) => a.toString().localeCompare(b.toString())));
    const listed = { at: performance.now(), files };
    files.catch(() => this.listed === listed && (this.listed = undefined));
    if (keep) this.listed = listed;
    return listed;
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
      answer = (await snapshots.queryFolder(folderOf(item), token, 'symbols', query, MAX_RESULTS)) as Answer;
    } else {
      if (!(await cache.get(item))) return [];
      answer = (await snapshots.queryWith(token, item, 'symbols', query, MAX_RESULTS)) as Answer;
    }
  }
  if (!answer || token.isCancellationRequested) return [];
  const { value, uris } = answer as { value: WorkspaceSymbolMatch[]; uris: vscode.Uri[] };
  return value.flatMap((m) => (uris[m.fileIndex] ? [new vscode.SymbolInformation(m.name, KIND[m.kind], m.container, new vscode.Location(uris[m.fileIndex], toRange(m.range)))] : []));
}

const folderOf = (item: vscode.TextDocument | vscode.Uri) => vscode.Uri.joinPath(item instanceof vscode.Uri ? item : item.uri, '..');

/** A token nobody cancels: a folder's first reading goes on when the keystroke that asked is superseded. */
const NEVER = new vscode.CancellationTokenSource().token;

/**
 * The snapshot folders with no open dump, whose first reading by the worker takes up to seconds each: read ahead
 * once a dump was analysed in the worker (small folders, one at a time, behind any question), and never waited for
 * past DEADLINE_MS by Ctrl+T; a first reading goes on when its keystroke is superseded, so that the next one finds
 * the folder ready.
 */
class Folders {
  /** The latest question per folder still running (a later one waits for it: the first reads the files). */
  private readonly running = new Map<string, Promise<unknown>>();
  private readonly ready = new Set<string>();
  private warming = false;
  constructor(
    private readonly files: DumpFiles,
    private readonly cache: DocumentCache,
    private readonly snapshots: Snapshots,
    private readonly log: Log,
  ) {}

  symbols(item: vscode.TextDocument | vscode.Uri, query: string, token: vscode.CancellationToken): Promise<vscode.SymbolInformation[]> {
    if (!(item instanceof vscode.Uri)) return folderSymbols(item, query, this.cache, this.snapshots, token);
    return this.inTurn(item, (key) => folderSymbols(item, query, this.cache, this.snapshots, this.ready.has(key) ? token : NEVER));
  }

  /** Runs a folder's question after the one still running there; the folder is ready once one answered. */
  private inTurn<T>(item: vscode.Uri, ask: (key: string) => Promise<T>): Promise<T> {
    const key = folderOf(item).toString();
    const next = (this.running.get(key) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => ask(key))
      .then((value) => (this.ready.add(key), value));
    this.running.set(key, next);
    void next.catch(() => undefined).finally(() => this.running.get(key) === next && this.running.delete(key));
    return next;
  }

  /** Reads the small folders ahead of the first Ctrl+T, once, after a dump was analysed in the worker. */
  warm(document: vscode.TextDocument): void {
    if (this.warming || !isDumpLanguage(document.languageId)) return;
    void this.cache.get(document).then((analysis) => {
      if (analysis?.where !== 'worker' || this.warming) return;
      this.warming = true;
      setTimeout(() => void this.warmAll().catch((e: Error) => this.log.warn(`workspace symbols: reading ahead: ${e.message}`)), WARM_DELAY_MS);
    });
  }

  private async warmAll(): Promise<void> {
    const bytes = new Map<string, number>();
    for (const uri of await this.files.get()) {
      const key = folderOf(uri).toString();
      const size = await vscode.workspace.fs.stat(uri).then(
        (s) => s.size,
        () => Infinity,
      );
      bytes.set(key, (bytes.get(key) ?? 0) + size);
    }
    let total = 0;
    for (const item of await snapshotDocuments(this.files)) {
      const key = folderOf(item).toString();
      const size = bytes.get(key) ?? Infinity;
      if (!(item instanceof vscode.Uri) || this.ready.has(key) || size > WARM_FOLDER_BYTES || total + size > WARM_TOTAL_BYTES) continue;
      total += size;
      await this.inTurn(item, () => this.snapshots.queryFolder(folderOf(item), NEVER, 'warmSymbols'));
    }
  }
}

export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots, log: Log): void {
  const files = new DumpFiles(context);
  const folders = new Folders(files, cache, snapshots, log);
  // Listed ahead of the first Ctrl+T (a file search takes a second on a busy machine), not during activation.
  const early = setTimeout(() => void files.get().catch(() => {}), LIST_EARLY_MS);
  context.subscriptions.push(
    { dispose: () => clearTimeout(early) },
    cache.onDidAnalyze((d) => folders.warm(d)),
  );
  const provider: vscode.WorkspaceSymbolProvider = {
    async provideWorkspaceSymbols(query, token) {
      const started = performance.now();
      // Every folder asked at once, the answers kept in folder order: one after another, each waited for the
      // previous one's round trip to the worker (seconds for a workspace of a few folders on a busy machine).
      const documents = await snapshotDocuments(files);
      const listed = performance.now();
      const asked = documents.map((item) =>
        folders.symbols(item, query, token).catch((e: Error) => {
          log.warn(`workspace symbols: ${e.message}`);
          return [];
        }),
      );
      // The open dumps are waited for (the user looks at them); the folders still being read are not.
      const open = documents.map((item) => !(item instanceof vscode.Uri));
      const { results, pending } = await answerWithin(asked, open, DEADLINE_MS, []);
      const out = results.flat();
      const ms = performance.now() - started;
      if (ms >= SLOW_MS || pending > 0)
        log.info(
          `workspace symbols: ${out.length} for "${query.slice(0, 80)}" from ${documents.length - pending} of ${documents.length} snapshots in ${Math.round(ms)} ms (listing ${Math.round(listed - started)} ms)${pending > 0 ? `, partial: ${pending} still being read` : ''}${token.isCancellationRequested ? ', cancelled' : ''}`,
        );
      return token.isCancellationRequested ? [] : out.slice(0, MAX_RESULTS);
    },
  };
  context.subscriptions.push(vscode.languages.registerWorkspaceSymbolProvider(provider));
}
