// `dataplane collect`: runs collect.sh once (here, over ssh, or in a kubectl debug pod on the node), splits its
// output into the snapshot folder's files and writes snapshot.json. Never prompts: ssh runs in batch mode and
// kubectl gets no terminal.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { CollectedFile } from '../core/collect/files';
import { assembleSnapshot } from '../core/collect/assemble';
import { collectSummary, writeSnapshot } from './collect-write';
import { clusterInvocations, debugPodCleanup, plainName, scriptInvocation, type CollectRequest, type CollectTarget, type Invocation, type Programs, type RunResult } from '../core/collect/plan';
import { UsageError } from './args';
import { clip } from './text';

export const COLLECT_HELP = `dataplane collect --out DIR (--local | --ssh HOST | --kubectl-node NODE [--context C] [--namespace NS]
                 [--image IMAGE]) [--conntrack] [--cluster] [--kubectl PATH] [--ssh-path PATH] [--timeout SECONDS]
                                             save a node's dumps into DIR (one script, run once, as root),
                                             named so that the editor and 'dataplane services DIR/*' read them,
                                             with DIR/snapshot.json: node, time, commands, exit codes, tools
  --local: this machine; --ssh: 'ssh -o BatchMode=yes HOST sh -s'; --kubectl-node: 'kubectl debug node/NODE
  --profile=sysadmin --image=IMAGE (default busybox) -- chroot /host sh -c …', the debug pod deleted after.
  --anonymize rewrites addresses (prefix-preserving), node, namespace and Service names alike in every file,
  kube-proxy's chain hashes recomputed, with --cluster the API objects too (uids, annotations, node info dropped),
  for sharing in a public bug report.
  --conntrack adds conntrack -L (large); --cluster adds 'kubectl get services,endpointslices,nodes -A -o json'
  and the kube-proxy ConfigMap. kubectl and ssh: --kubectl / --ssh-path, else $DATAPLANE_KUBECTL /
  $DATAPLANE_SSH, else from PATH.`;

const VALUES = new Set(['--out', '--ssh', '--kubectl-node', '--context', '--namespace', '--image', '--kubectl', '--ssh-path', '--timeout']);
const FLAGS = new Set(['--local', '--conntrack', '--cluster', '--anonymize', '--json']);

export interface CollectArgs {
  values: Map<string, string>;
  flags: Set<string>;
}

export function parseCollectArgs(argv: string[]): CollectArgs {
  const args: CollectArgs = { values: new Map(), flags: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (FLAGS.has(word)) args.flags.add(word);
    else if (VALUES.has(word)) {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${word} needs a value`);
      if (args.values.has(word)) throw new UsageError(`${word} is given twice`);
      args.values.set(word, value);
    } else throw new UsageError(`collect: unexpected ${clip(word)}`);
  }
  const targets = ['--local', '--ssh', '--kubectl-node'].filter((t) => args.flags.has(t) || args.values.has(t));
  if (targets.length !== 1) throw new UsageError('collect needs exactly one of --local, --ssh HOST, --kubectl-node NODE');
  if (!args.values.has('--out')) throw new UsageError('collect needs --out DIR');
  for (const name of ['--ssh', '--kubectl-node', '--context', '--namespace']) {
    const v = args.values.get(name);
    // Passed as one argument each (no shell), but a leading dash would read as an option.
    if (v !== undefined && !plainName(v)) throw new UsageError(`${name} ${clip(v)}: not a plain name`);
  }
  return args;
}

function runProgram(inv: Invocation, timeoutMs: number): RunResult {
  const r = spawnSync(inv.program, inv.argv, { input: inv.input ?? '', encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1024 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
  return { stdout: r.stdout ?? '', stderr: r.stderr ?? '', status: r.status, error: r.error ? r.error.message : undefined };
}

/** The command line's request. */
export function collectRequest(args: CollectArgs): CollectRequest {
  const host = args.values.get('--ssh');
  const node = args.values.get('--kubectl-node');
  const v = (name: string) => args.values.get(name);
  const target: CollectTarget = host !== undefined ? { kind: 'ssh', host } : node !== undefined ? { kind: 'kubectl', node, context: v('--context'), namespace: v('--namespace'), image: v('--image') } : { kind: 'local' };
  return { target, conntrack: args.flags.has('--conntrack'), cluster: args.flags.has('--cluster'), anonymize: args.flags.has('--anonymize'), context: v('--context') };
}

/** Runs the script on the target (and deletes a debug pod after). */
function runScript(req: CollectRequest, programs: Programs, marker: string, timeoutMs: number, err: (s: string) => void): { ran: RunResult; via: string } {
  const { invocation, via } = scriptInvocation(req, programs, marker);
  const ran = runProgram(invocation, timeoutMs);
  if (req.target.kind !== 'kubectl') return { ran, via };
  const cleanup = debugPodCleanup(req, programs, `${ran.stdout}\n${ran.stderr}`);
  if (cleanup.invocation) {
    const del = runProgram(cleanup.invocation, 60_000);
    if (del.status !== 0) err(`warning: could not delete the debug pod ${cleanup.pod} (namespace ${req.target.namespace ?? 'default'}): ${clip(del.stderr.trim() || del.error || '')}`);
  } else err('warning: kubectl did not name the debug pod; look for a node-debugger-… pod to delete');
  return { ran, via };
}

/** --cluster: the API objects beside the dumps. */
function clusterFiles(req: CollectRequest, programs: Programs, timeoutMs: number, err: (s: string) => void): CollectedFile[] {
  const files: CollectedFile[] = [];
  for (const { path, invocation } of clusterInvocations(req, programs)) {
    const r = runProgram(invocation, timeoutMs);
    if (r.status === 0 && r.stdout.trim() !== '') files.push({ path, text: r.stdout });
    else err(`warning: kubectl ${invocation.argv.join(' ')}: ${clip(r.stderr.trim() || r.error || `exit ${r.status}`)}`);
  }
  return files;
}

export function collectCommand(argv: string[], out: (s: string) => void, err: (s: string) => void, env: NodeJS.ProcessEnv = process.env): number {
  const args = parseCollectArgs(argv);
  const req = collectRequest(args);
  const programs = { kubectl: args.values.get('--kubectl') ?? env.DATAPLANE_KUBECTL ?? 'kubectl', ssh: args.values.get('--ssh-path') ?? env.DATAPLANE_SSH ?? 'ssh' };
  const seconds = Number(args.values.get('--timeout') ?? 300);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError('--timeout SECONDS: a positive number');
  const timeoutMs = seconds * 1000;
  const marker = `@@dpx-${randomBytes(8).toString('hex')}@@`;
  const { ran, via } = runScript(req, programs, marker, timeoutMs, err);
  const cluster = clusterFiles(req, programs, timeoutMs, err);
  // A fresh key per run, never written: the same snapshot anonymized twice does not map alike.
  const snap = assembleSnapshot(req, ran.stdout, marker, via, cluster, randomBytes(32));
  if (!snap.started) {
    err(`dataplane: collect via ${via} failed: ${clip((ran.error ?? ran.stderr.trim()) || `exit ${ran.status}`, 400)}`);
    return 1;
  }
  const { files, manifest } = snap;
  const dir = args.values.get('--out')!;
  writeSnapshot(dir, files, manifest);
  if (args.flags.has('--json')) out(JSON.stringify({ dir, files: files.map((f) => f.path), manifest }, null, 2));
  else out(collectSummary(dir, files, manifest));
  if (!manifest.complete) err(`warning: the collector stopped early${snap.truncated ? ` (in ${snap.truncated})` : ''}: ${clip(ran.error ?? ran.stderr.trim(), 300)}`);
  return manifest.complete ? 0 : 1;
}
