// What `dataplane collect` and "Capture Node Snapshot…" run, as program + arguments (no shell anywhere), and how
// their answers become a snapshot. Pure: the CLI runs the invocations synchronously, the extension with a
// cancellable child process; both hand the outputs back here.
import { collectScript } from './stream';

export type CollectTarget = { kind: 'local' } | { kind: 'ssh'; host: string } | { kind: 'kubectl'; node: string; context?: string; namespace?: string; image?: string };

export interface CollectRequest {
  target: CollectTarget;
  conntrack?: boolean;
  /** Also the cluster's Services, EndpointSlices, Nodes and the kube-proxy ConfigMap (kubectl). */
  cluster?: boolean;
  anonymize?: boolean;
  /** kubectl's context for --cluster when the target is not a kubectl node. */
  context?: string;
}

export interface Programs {
  kubectl: string;
  ssh: string;
}

export interface Invocation {
  program: string;
  argv: string[];
  /** Standard input (the script, for `sh -s`). */
  input?: string;
}

export const DEFAULT_DEBUG_IMAGE = 'busybox';

/** A context, node, host or namespace passed as one argument: not empty, no leading dash, no blanks or controls. */
export function plainName(value: string): boolean {
  return value !== '' && !value.startsWith('-') && !/[\s\x00-\x1f\x7f]/.test(value);
}

function contextArgs(context: string | undefined): string[] {
  return context ? ['--context', context] : [];
}

function kubectlContext(req: CollectRequest): string | undefined {
  return req.target.kind === 'kubectl' ? req.target.context : req.context;
}

/** The one run of the collector on the target, and how snapshot.json names it. */
export function scriptInvocation(req: CollectRequest, programs: Programs, marker: string): { invocation: Invocation; via: string } {
  const conntrack = req.conntrack === true;
  const t = req.target;
  if (t.kind === 'local') return { invocation: { program: 'sh', argv: ['-s'], input: collectScript({ marker, conntrack }) }, via: 'local' };
  if (t.kind === 'ssh') return { invocation: { program: programs.ssh, argv: ['-o', 'BatchMode=yes', '-T', t.host, 'sh', '-s'], input: collectScript({ marker, conntrack }) }, via: `ssh ${t.host}` };
  const script = collectScript({ marker, conntrack, quiet: true });
  const argv = [
    ...contextArgs(t.context),
    '-n',
    t.namespace ?? 'default',
    'debug',
    `node/${t.node}`,
    '--profile=sysadmin',
    `--image=${t.image ?? DEFAULT_DEBUG_IMAGE}`,
    '--attach=true',
    '--',
    'chroot',
    '/host',
    'sh',
    '-c',
    script,
  ];
  return { invocation: { program: programs.kubectl, argv }, via: `kubectl debug node/${t.node}` };
}

/** The debug pod's name, from what kubectl says when it creates it. */
export function debugPodName(text: string): string | undefined {
  return /Creating debugging pod (\S+) with container/.exec(text)?.[1];
}

/** Deleting the debug pod kubectl named in its output (kubectl targets only). */
export function debugPodCleanup(req: CollectRequest, programs: Programs, output: string): { pod?: string; invocation?: Invocation } {
  const t = req.target;
  if (t.kind !== 'kubectl') return {};
  const pod = debugPodName(output);
  if (!pod) return {};
  return { pod, invocation: { program: programs.kubectl, argv: [...contextArgs(t.context), '-n', t.namespace ?? 'default', 'delete', 'pod', pod, '--wait=false'] } };
}

/** --cluster: the API objects saved beside the dumps, file name → invocation. */
export function clusterInvocations(req: CollectRequest, programs: Programs): { path: string; invocation: Invocation }[] {
  if (!req.cluster) return [];
  const ctx = contextArgs(kubectlContext(req));
  return [
    { path: 'cluster-state.json', invocation: { program: programs.kubectl, argv: [...ctx, 'get', 'services,endpointslices,nodes', '-A', '-o', 'json'] } },
    { path: 'kube-proxy-configmap.yaml', invocation: { program: programs.kubectl, argv: [...ctx, '-n', 'kube-system', 'get', 'configmap', 'kube-proxy', '-o', 'yaml'] } },
  ];
}

/** kubectl's contexts (`-o name`: one a line) and the current one. */
export function contextsInvocations(programs: Programs): { list: Invocation; current: Invocation } {
  return { list: { program: programs.kubectl, argv: ['config', 'get-contexts', '-o', 'name'] }, current: { program: programs.kubectl, argv: ['config', 'current-context'] } };
}

/** The cluster's nodes (`-o name` prints `node/NAME`). */
export function nodesInvocation(programs: Programs, context?: string): Invocation {
  return { program: programs.kubectl, argv: [...contextArgs(context), 'get', 'nodes', '-o', 'name'] };
}

/** Names one a line, `node/` dropped, only plain ones (nothing from kubectl's output becomes an option). */
export function nameLines(text: string): string[] {
  const names = text
    .split('\n')
    .map((l) => l.trim().replace(/^node\//, ''))
    .filter(plainName);
  return [...new Set(names)];
}

export interface RunResult {
  stdout: string;
  stderr: string;
  status: number | null;
  error?: string;
}

/** The snapshot folder's name: the node (or host) and the capture time, safe as one path segment. */
export function captureFolderName(target: CollectTarget, now: Date, anonymize = false): string {
  // An anonymized snapshot's folder does not name its node either.
  const who = anonymize ? 'anonymized' : target.kind === 'kubectl' ? target.node : target.kind === 'ssh' ? target.host.replace(/^.*@/, '') : 'local';
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `${who.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${stamp}`;
}
