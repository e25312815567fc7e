// "Capture Node Snapshot…": the editor's face of `dataplane collect`. Pick a kubectl context and node (or an ssh
// host, or this machine), run the same collector the CLI runs (core/collect/plan.ts) under a cancellable progress
// notification, write the folder the CLI writes, and show it. Runs only when the user invokes it, and never in
// an untrusted workspace: the kubectl and ssh programs come from settings Restricted Mode does not hand out.
import type * as childProcess from 'node:child_process';
import type * as nodeCrypto from 'node:crypto';
import * as vscode from 'vscode';
import { collectSummary, writeSnapshot } from '../../cli/collect-write';
import { core } from '../loadCore';
import {
  captureFolderName,
  clusterInvocations,
  contextsInvocations,
  debugPodCleanup,
  nameLines,
  nodesInvocation,
  plainName,
  scriptInvocation,
  type CollectRequest,
  type CollectTarget,
  type Invocation,
  type Programs,
  type RunResult,
} from '../../core/collect/plan';
import type { CollectedFile } from '../../core/collect/files';
import type { Log } from '../log';

const LIST_TIMEOUT_MS = 30_000;
const CAPTURE_TIMEOUT_MS = 300_000;

export function register(context: vscode.ExtensionContext, log: Log): void {
  context.subscriptions.push(vscode.commands.registerCommand('dataplane.captureNodeSnapshot', () => capture(log)));
}

/** The programs from the settings (user or default values only in Restricted Mode; the command refuses to run there anyway). */
export function capturePrograms(): Programs {
  const c = vscode.workspace.getConfiguration('dataplane.capture');
  const program = (key: string, fallback: string) => {
    const v = c.get<string>(key);
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : fallback;
  };
  return { kubectl: program('kubectlPath', 'kubectl'), ssh: program('sshPath', 'ssh') };
}

// Loaded on the first capture, not at activation: a fresh process pays some 10 ms for the two modules
// (docs/performance.md#budgets).
const spawnProcess = () => (require('node:child_process') as typeof childProcess).spawn;
const randomBytes = () => (require('node:crypto') as typeof nodeCrypto).randomBytes;

/** Runs one invocation; the abort signal kills it. Never throws: a missing program is an error result. */
export function runInvocation(inv: Invocation, timeoutMs: number, signal?: AbortSignal): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawnProcess()(inv.program, inv.argv, { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs, signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let error: string | undefined;
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => (error = e.message));
    child.stdin.on('error', () => {}); // a program that exits before reading its input
    child.stdin.end(inv.input ?? '');
    child.on('close', (status) => resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), status, ...(error ? { error } : {}) }));
  });
}

type TargetItem = vscode.QuickPickItem & { pick: 'context' | 'ssh' | 'local'; context?: string };

async function pickTarget(programs: Programs, log: Log): Promise<CollectTarget | undefined> {
  const inv = contextsInvocations(programs);
  const [list, current] = await Promise.all([runInvocation(inv.list, LIST_TIMEOUT_MS), runInvocation(inv.current, LIST_TIMEOUT_MS)]);
  if (list.status !== 0) log.warn(`capture: ${programs.kubectl} config get-contexts: ${(list.error ?? list.stderr).trim()}`);
  const active = current.status === 0 ? current.stdout.trim() : '';
  const contexts = list.status === 0 ? nameLines(list.stdout) : [];
  const items: TargetItem[] = [
    ...contexts.map((c): TargetItem => ({
      label: `$(cloud) ${c}`,
      description: c === active ? vscode.l10n.t('current context') : undefined,
      detail: vscode.l10n.t('A node of this cluster, through kubectl debug'),
      pick: 'context',
      context: c,
    })),
    { label: `$(remote) ${vscode.l10n.t('SSH host…')}`, detail: vscode.l10n.t('Runs the collector with ssh HOST sh -s (batch mode: keys or an agent, no password prompt)'), pick: 'ssh' },
    { label: `$(vm) ${vscode.l10n.t('This machine')}`, detail: vscode.l10n.t('Runs the collector here (needs root to read the rules)'), pick: 'local' },
  ];
  const placeHolder = contexts.length ? vscode.l10n.t('Capture from which cluster or host?') : vscode.l10n.t('kubectl lists no contexts ({0}); capture over ssh or from this machine?', programs.kubectl);
  const chosen = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Capture Node Snapshot'), placeHolder });
  if (!chosen) return undefined;
  if (chosen.pick === 'local') return { kind: 'local' };
  if (chosen.pick === 'ssh') {
    const host = await vscode.window.showInputBox({
      title: vscode.l10n.t('Capture Node Snapshot'),
      prompt: vscode.l10n.t('SSH host (user@host or a Host of ~/.ssh/config)'),
      validateInput: (v) => (plainName(v.trim()) ? undefined : vscode.l10n.t('A host name, without spaces or a leading dash')),
    });
    return host ? { kind: 'ssh', host: host.trim() } : undefined;
  }
  return pickNode(programs, chosen.context!);
}

async function pickNode(programs: Programs, context: string): Promise<CollectTarget | undefined> {
  const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Listing the nodes of {0}…', context) }, () =>
    runInvocation(nodesInvocation(programs, context), LIST_TIMEOUT_MS),
  );
  const nodes = r.status === 0 ? nameLines(r.stdout) : [];
  if (nodes.length === 0) {
    void vscode.window.showErrorMessage(vscode.l10n.t('kubectl could not list the nodes of {0}: {1}', context, clipped((r.error ?? r.stderr).trim()) || vscode.l10n.t('no nodes')));
    return undefined;
  }
  const node = await vscode.window.showQuickPick(nodes, { title: vscode.l10n.t('Capture Node Snapshot'), placeHolder: vscode.l10n.t('Which node of {0}?', context) });
  return node ? { kind: 'kubectl', node, context } : undefined;
}

type OptionItem = vscode.QuickPickItem & { option: 'cluster' | 'conntrack' | 'anonymize' };

async function pickOptions(target: CollectTarget): Promise<Omit<CollectRequest, 'target'> | undefined> {
  const items: OptionItem[] = [
    ...(target.kind === 'kubectl'
      ? [
          {
            label: vscode.l10n.t('Cluster state'),
            detail: vscode.l10n.t("Also the cluster's Services, EndpointSlices, Nodes and the kube-proxy ConfigMap, for the cluster check"),
            option: 'cluster' as const,
            picked: true,
          },
        ]
      : []),
    { label: vscode.l10n.t('Connection tracking table'), detail: vscode.l10n.t('Also conntrack -L (can be large)'), option: 'conntrack' },
    { label: vscode.l10n.t('Anonymize'), detail: vscode.l10n.t('Rewrite addresses and names alike in every file, for a public bug report'), option: 'anonymize' },
  ];
  const chosen = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Capture Node Snapshot'), placeHolder: vscode.l10n.t('What else to save? (Enter to capture)'), canPickMany: true });
  if (!chosen) return undefined;
  const has = (o: OptionItem['option']) => chosen.some((i) => i.option === o);
  return { cluster: has('cluster'), conntrack: has('conntrack'), anonymize: has('anonymize') };
}

/** A new folder under the workspace's dataplane-snapshots/, or under a folder the user picks. */
async function outputFolder(target: CollectTarget, anonymize: boolean): Promise<vscode.Uri | undefined> {
  const name = captureFolderName(target, new Date(), anonymize);
  const workspace = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  if (workspace) return vscode.Uri.joinPath(workspace.uri, 'dataplane-snapshots', name);
  const parent = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: vscode.l10n.t('Save Snapshot Here') });
  return parent?.[0] ? vscode.Uri.joinPath(parent[0], name) : undefined;
}

function clipped(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

async function capture(log: Log): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Capture Node Snapshot runs kubectl or ssh: trust this workspace first.'));
    return;
  }
  const programs = capturePrograms();
  const target = await pickTarget(programs, log);
  if (!target) return;
  const options = await pickOptions(target);
  if (!options) return;
  const folder = await outputFolder(target, options.anonymize === true);
  if (!folder) return;
  const req: CollectRequest = { target, ...options };
  const title = vscode.l10n.t('Capturing a snapshot of {0}…', target.kind === 'kubectl' ? target.node : target.kind === 'ssh' ? target.host : vscode.l10n.t('this machine'));
  const done = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => runCapture(req, programs, folder.fsPath, token, progress, log));
  if (done) await showSnapshot(folder, done);
}

/** Runs the collector (and --cluster's kubectl calls), writes the folder; the first dump file's name, or undefined. */
async function runCapture(req: CollectRequest, programs: Programs, dir: string, token: vscode.CancellationToken, progress: vscode.Progress<{ message?: string }>, log: Log): Promise<string | undefined> {
  const abort = new AbortController();
  const cancel = token.onCancellationRequested(() => abort.abort());
  try {
    const marker = `@@dpx-${randomBytes()(8).toString('hex')}@@`;
    const { invocation, via } = scriptInvocation(req, programs, marker);
    log.info(`capture: ${invocation.program} ${invocation.argv.slice(0, 8).join(' ')}…`);
    const ran = await runInvocation(invocation, CAPTURE_TIMEOUT_MS, abort.signal);
    // Also after a cancel: kubectl may have made the debug pod already.
    const cleanup = debugPodCleanup(req, programs, `${ran.stdout}\n${ran.stderr}`);
    if (cleanup.invocation) {
      const del = await runInvocation(cleanup.invocation, LIST_TIMEOUT_MS);
      if (del.status !== 0) log.warn(`capture: could not delete the debug pod ${cleanup.pod}: ${del.stderr.trim()}`);
    }
    if (token.isCancellationRequested) return undefined;
    const cluster: CollectedFile[] = [];
    for (const { path, invocation: inv } of clusterInvocations(req, programs)) {
      progress.report({ message: path });
      const r = await runInvocation(inv, LIST_TIMEOUT_MS, abort.signal);
      if (r.status === 0 && r.stdout.trim() !== '') cluster.push({ path, text: r.stdout });
      else log.warn(`capture: kubectl ${inv.argv.join(' ')}: ${(r.error ?? r.stderr).trim()}`);
    }
    if (token.isCancellationRequested) return undefined;
    // Anonymizing reads the dumps: the parsers load now, not at activation.
    const snap = core().assembleSnapshot(req, ran.stdout, marker, via, cluster, randomBytes()(32));
    if (!snap.started) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Capture via {0} failed: {1}', via, clipped((ran.error ?? ran.stderr).trim()) || `exit ${ran.status}`));
      return undefined;
    }
    writeSnapshot(dir, snap.files, snap.manifest);
    log.info(`capture: ${collectSummary(dir, snap.files, snap.manifest)}`);
    if (!snap.manifest.complete) void vscode.window.showWarningMessage(vscode.l10n.t('The collector stopped early; the snapshot holds what it saved before.'));
    return snap.files.find((f) => !f.path.includes('/') && !f.path.endsWith('.json') && !f.path.endsWith('.yaml') && !f.path.endsWith('.txt'))?.path ?? 'snapshot.json';
  } finally {
    cancel.dispose();
  }
}

/** Inside the workspace: revealed in the Explorer with its first dump open; elsewhere: added to the workspace. */
async function showSnapshot(folder: vscode.Uri, first: string): Promise<void> {
  const inside = vscode.workspace.getWorkspaceFolder(folder);
  if (!inside) {
    vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders?.length ?? 0, 0, { uri: folder });
    return;
  }
  const file = vscode.Uri.joinPath(folder, first);
  await vscode.window.showTextDocument(file, { preview: false });
  await vscode.commands.executeCommand('revealInExplorer', file);
}
