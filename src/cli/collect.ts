// `dataplane collect`: runs collect.sh once (here, over ssh, or in a kubectl debug pod on the node), splits its
// output into the snapshot folder's files and writes snapshot.json. Never prompts: ssh runs in batch mode and
// kubectl gets no terminal.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { anonymizeSnapshot } from '../core/collect/anonymize';
import { snapshotOf, type CollectedFile } from '../core/collect/files';
import { collectScript, parseCollectStream } from '../core/collect/stream';
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
  kube-proxy's chain hashes recomputed, for sharing in a public bug report.
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
  // The API objects carry pod names, UIDs and labels that the rewriting does not know yet.
  if (args.flags.has('--anonymize') && args.flags.has('--cluster')) throw new UsageError('--anonymize cannot be used with --cluster yet (the API objects would keep their names)');
  for (const name of ['--ssh', '--kubectl-node', '--context', '--namespace']) {
    const v = args.values.get(name);
    // Passed as one argument each (no shell), but a leading dash would read as an option.
    if (v !== undefined && (v === '' || v.startsWith('-') || /[\s\x00-\x1f]/.test(v))) throw new UsageError(`${name} ${clip(v)}: not a plain name`);
  }
  return args;
}

interface Ran {
  stdout: string;
  stderr: string;
  status: number | null;
  error?: string;
}

function runProgram(program: string, argv: string[], input: string | undefined, timeoutMs: number): Ran {
  const r = spawnSync(program, argv, { input: input ?? '', encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1024 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
  return { stdout: r.stdout ?? '', stderr: r.stderr ?? '', status: r.status, error: r.error ? r.error.message : undefined };
}

function kubectlBase(args: CollectArgs): string[] {
  const context = args.values.get('--context');
  return context ? ['--context', context] : [];
}

/** The debug pod's name, from what kubectl says when it creates it. */
export function debugPodName(text: string): string | undefined {
  return /Creating debugging pod (\S+) with container/.exec(text)?.[1];
}

interface Paths {
  kubectl: string;
  ssh: string;
}

/** Runs the script on the target; the raw output, how it went, and the commands run (for snapshot.json). */
function runScript(args: CollectArgs, paths: Paths, marker: string, timeoutMs: number, err: (s: string) => void): { ran: Ran; via: string } {
  const conntrack = args.flags.has('--conntrack');
  if (args.flags.has('--local')) return { ran: runProgram('sh', ['-s'], collectScript({ marker, conntrack }), timeoutMs), via: 'local' };
  const host = args.values.get('--ssh');
  if (host !== undefined) return { ran: runProgram(paths.ssh, ['-o', 'BatchMode=yes', '-T', host, 'sh', '-s'], collectScript({ marker, conntrack }), timeoutMs), via: `ssh ${host}` };
  const node = args.values.get('--kubectl-node')!;
  const ns = args.values.get('--namespace') ?? 'default';
  const image = args.values.get('--image') ?? 'busybox';
  const script = collectScript({ marker, conntrack, quiet: true });
  const debug = [...kubectlBase(args), '-n', ns, 'debug', `node/${node}`, '--profile=sysadmin', `--image=${image}`, '--attach=true', '--', 'chroot', '/host', 'sh', '-c', script];
  const ran = runProgram(paths.kubectl, debug, undefined, timeoutMs);
  const pod = debugPodName(ran.stdout) ?? debugPodName(ran.stderr);
  if (pod) {
    const del = runProgram(paths.kubectl, [...kubectlBase(args), '-n', ns, 'delete', 'pod', pod, '--wait=false'], undefined, 60_000);
    if (del.status !== 0) err(`warning: could not delete the debug pod ${pod} (namespace ${ns}): ${clip(del.stderr.trim() || del.error || '')}`);
  } else err('warning: kubectl did not name the debug pod; look for a node-debugger-… pod to delete');
  return { ran, via: `kubectl debug node/${node}` };
}

/** --cluster: the API objects beside the dumps. */
function clusterFiles(args: CollectArgs, paths: Paths, timeoutMs: number, err: (s: string) => void): CollectedFile[] {
  const files: CollectedFile[] = [];
  const asks: [string, string[]][] = [
    ['cluster-state.json', ['get', 'services,endpointslices,nodes', '-A', '-o', 'json']],
    ['kube-proxy-configmap.yaml', ['-n', 'kube-system', 'get', 'configmap', 'kube-proxy', '-o', 'yaml']],
  ];
  for (const [path, argv] of asks) {
    const r = runProgram(paths.kubectl, [...kubectlBase(args), ...argv], undefined, timeoutMs);
    if (r.status === 0 && r.stdout.trim() !== '') files.push({ path, text: r.stdout });
    else err(`warning: kubectl ${argv.join(' ')}: ${clip(r.stderr.trim() || r.error || `exit ${r.status}`)}`);
  }
  return files;
}

export function collectCommand(argv: string[], out: (s: string) => void, err: (s: string) => void, env: NodeJS.ProcessEnv = process.env): number {
  const args = parseCollectArgs(argv);
  const paths = { kubectl: args.values.get('--kubectl') ?? env.DATAPLANE_KUBECTL ?? 'kubectl', ssh: args.values.get('--ssh-path') ?? env.DATAPLANE_SSH ?? 'ssh' };
  const seconds = Number(args.values.get('--timeout') ?? 300);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError('--timeout SECONDS: a positive number');
  const timeoutMs = seconds * 1000;
  const marker = `@@dpx-${randomBytes(8).toString('hex')}@@`;
  const { ran, via } = runScript(args, paths, marker, timeoutMs, err);
  const stream = parseCollectStream(ran.stdout, marker);
  if (!stream.started) {
    err(`dataplane: collect via ${via} failed: ${clip((ran.error ?? ran.stderr.trim()) || `exit ${ran.status}`, 400)}`);
    return 1;
  }
  const collected = snapshotOf(stream, via);
  // A fresh key per run, never written: the same snapshot anonymized twice does not map alike.
  const { files, manifest } = args.flags.has('--anonymize') ? anonymizeSnapshot(collected.files, collected.manifest, randomBytes(32)) : collected;
  if (args.flags.has('--cluster')) files.push(...clusterFiles(args, paths, timeoutMs, err));
  const dir = args.values.get('--out')!;
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.text);
  }
  writeFileSync(join(dir, 'snapshot.json'), JSON.stringify(manifest, null, 2) + '\n');
  if (args.flags.has('--json')) out(JSON.stringify({ dir, files: files.map((f) => f.path), manifest }, null, 2));
  else out(`${dir}: ${files.length} files from ${manifest.node ?? 'the node'} (${via})${manifest.missing.length ? `; missing: ${manifest.missing.join(', ')}` : ''}`);
  if (!manifest.complete) err(`warning: the collector stopped early${stream.truncated ? ` (in ${stream.truncated})` : ''}: ${clip(ran.error ?? ran.stderr.trim(), 300)}`);
  return manifest.complete ? 0 : 1;
}
