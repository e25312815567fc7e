// Support bundles on the command line: a FILE that is a folder or an archive is opened (extracted into a temporary
// folder, removed afterwards), its dumps grouped per node, and the command answers for each node in turn.
import { basename } from 'node:path';
import { BundleError, bundleNodes, isBundle, openBundle, type LocatedNodes, type OpenedBundle } from '../bundle/extract';
import type { BundleNode } from '../core/bundle/classify';
import { parseArgs, UsageError } from './args';
import { clip } from './text';

type Out = (s: string) => void;
/** The command line for plain files (main.ts's run), passed in so that this module does not import main.ts. */
export type Run = (argv: string[], out: Out, err: Out) => number;

/** Runs the command line, opening the one bundle among its FILEs if there is one. */
export async function runWithBundles(run: Run, argv: string[], out: Out, err: Out): Promise<number> {
  let args;
  try {
    args = parseArgs(argv);
  } catch {
    return run(argv, out, err); // run words the usage error
  }
  const bundles = args.files.filter((f) => f !== '-' && isBundle(f));
  if (bundles.length === 0 || args.flags.has('--help') || args.flags.has('-h') || args.flags.has('--version')) return run(argv, out, err);
  if (bundles.length > 1) return usage(err, 'give one bundle (a folder or an archive) at a time');
  let opened: OpenedBundle | undefined;
  // Interrupted (Ctrl-C), the temporary extraction is removed all the same.
  const interrupted = (signal: NodeJS.Signals) => {
    opened?.dispose();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    opened = await openBundle(bundles[0]);
    return answerPerNode(run, argv, bundles[0], opened, args.values.get('--node')?.at(-1), args.flags.has('--json'), out, err);
  } catch (e) {
    if (e instanceof BundleError || e instanceof UsageError) return usage(err, `${clip(bundles[0])}: ${e.message}`);
    throw e;
  } finally {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    opened?.dispose();
  }
}

function usage(err: Out, message: string): number {
  err(`dataplane: ${message}`);
  return 2;
}

function answerPerNode(run: Run, argv: string[], bundle: string, opened: OpenedBundle, wanted: string | undefined, json: boolean, out: Out, err: Out): number {
  const located = bundleNodes(opened, basename(bundle));
  try {
    return answerFor(run, argv, bundle, located, wanted, json, out, err);
  } finally {
    located.dispose();
  }
}

function answerFor(run: Run, argv: string[], bundle: string, located: LocatedNodes, wanted: string | undefined, json: boolean, out: Out, err: Out): number {
  const all = located.nodes;
  if (all.length === 0) throw new UsageError('no iptables, nft, ipvsadm or ipset dump found in the bundle');
  const nodes = wanted === undefined ? all : all.filter((n) => n.name === wanted);
  const names = all.map((n) => n.name).join(', ');
  if (nodes.length === 0) throw new UsageError(`no node named ${clip(wanted!)} in the bundle (it has: ${names})`);
  if (json && nodes.length > 1) throw new UsageError(`--json answers for one node: pick one with --node (the bundle has: ${names})`);
  let status = 0;
  for (const node of nodes) {
    err(`dataplane: node ${node.name} (name from ${node.nameFrom}): ${node.dumps.map((d) => d.path).join(', ')}`);
    if (!json) out(`== node ${node.name} ==`);
    status = Math.max(status, run(nodeArgv(argv, bundle, located, node), out, err));
  }
  return status;
}

/** The command line with the bundle replaced by the node's dumps. */
function nodeArgv(argv: string[], bundle: string, located: LocatedNodes, node: BundleNode): string[] {
  const i = argv.indexOf(bundle);
  const words = [...argv.slice(0, i), ...node.dumps.map((d) => located.locate(d.path)), ...argv.slice(i + 1)];
  const command = parseArgs(argv).command;
  return command === 'check' || command === 'trace' ? words : withoutNodeOption(words);
}

/** parse and services take --node only to pick a bundle's node: it is not passed on. */
function withoutNodeOption(words: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '--') return [...kept, ...words.slice(i)];
    if (words[i] === '--node') i++;
    else if (!words[i].startsWith('--node=')) kept.push(words[i]);
  }
  return kept;
}
