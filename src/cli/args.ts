// The command line's words: options that take a value consume the next word, whatever it is (`--from -h` is
// the address "-h", refused as one, not a request for help), `--` ends the options, `-` is standard input.
import { clip } from './text';

/** Bad usage or an unreadable file: one line on standard error, exit status 2. */
export class UsageError extends Error {}

export interface Args {
  command?: string;
  files: string[];
  /** Every value of each option that takes one, in order. */
  values: Map<string, string[]>;
  flags: Set<string>;
}

/** Options that take a value, and the commands that accept each. */
const VALUE_OPTIONS = new Map([
  ['--to', ['trace']],
  ['--from', ['trace']],
  ['--entry', ['trace']],
  ['--node-ip', ['trace']],
  ['--max-size', ['parse', 'services', 'trace', 'check']],
  ['--cluster', ['check', 'trace']],
  ['--node', ['check', 'trace']],
]);
const FLAGS = new Set(['--json', '--help', '-h', '--version']);

export function parseArgs(argv: string[]): Args {
  const args: Args = { files: [], values: new Map(), flags: new Set() };
  const words: string[] = [];
  let optionsEnded = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (optionsEnded || word === '-' || !word.startsWith('-')) words.push(word);
    else if (word === '--') optionsEnded = true;
    else if (FLAGS.has(word)) args.flags.add(word);
    else {
      const eq = word.startsWith('--') ? word.indexOf('=') : -1;
      const name = eq > 0 ? word.slice(0, eq) : word;
      if (!VALUE_OPTIONS.has(name)) throw new UsageError(`unknown option ${clip(word)}`);
      const value = eq > 0 ? word.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      args.values.set(name, [...(args.values.get(name) ?? []), value]);
    }
  }
  [args.command, ...args.files] = words;
  return args;
}

/** Refuses options that `command` does not take. */
export function checkOptions(args: Args, command: string): void {
  for (const name of args.values.keys()) {
    if (!VALUE_OPTIONS.get(name)!.includes(command)) throw new UsageError(`${command} does not take ${name}`);
  }
}

/** `--max-size`: bytes, or with a K, M or G suffix (powers of 1024; 200M, 200MiB and 200MB are the same). */
export function parseSize(text: string): number | undefined {
  const m = /^(\d{1,15})(?:([KMG])i?)?B?$/i.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * 1024 ** ' KMG'.indexOf((m[2] ?? ' ').toUpperCase());
}
