// `iptables -S` and `iptables -L` pastes: which of the two a text is, what a pasted prompt line says about the
// command that printed the lines after it, and which table a run of lines without a `*table` header belongs to.
// Shared by the spec reader (spec-format.ts) and the list reader (list-format.ts).
import { promptCommand } from '../prompt';

export type PasteFormat = 'save' | 'spec' | 'list';

/** `Chain INPUT (policy ACCEPT …)`, `Chain X (2 references)`: a chain header of `iptables -L`. */
export const LIST_CHAIN_HEADER = /^Chain (\S+) \((?:policy (\S+)(?: (\S+) packets, (\S+) bytes)?|(\d+) references)\)\s*$/;
/** A line of `iptables -S`: a policy, a new chain or a rule (`-A -t …` is ipvsadm's). */
const SPEC_LINE = /^-(?:P \S+ \S+|N \S+|A [^-\s]\S*(?: |$))/;

/** The format of a pasted text from its first meaningful line (prompts and `#` comments skipped). */
export function pasteFormatOf(text: string): PasteFormat {
  if (/(?:^|[\r\n])[ \t]*\*/.test(text)) return 'save';
  const lines = /([^\r\n]*)(?:\r\n|\r|\n|$)/g;
  let seen = 0;
  for (let m = lines.exec(text); m && m[0] !== '' && seen < 50; m = lines.exec(text)) {
    const line = m[1].trimEnd();
    if (line.trim() === '' || promptCommand(line) !== undefined || line.startsWith('#')) continue;
    seen++;
    if (LIST_CHAIN_HEADER.test(line)) return 'list';
    if (SPEC_LINE.test(line)) return 'spec';
    return 'save';
  }
  return 'save';
}

/** What a prompt line's ip(6)tables command says about the lines it printed. */
export interface PastedCommand {
  table?: string;
  ipv6: boolean;
  format: 'spec' | 'list';
  /** `-S CHAIN` / `-L CHAIN`: one chain only. */
  chain?: string;
}

/** The ip(6)tables command of a prompt line (`# iptables -t nat -S`, `$ sudo iptables -L -n -v`), else undefined. */
export function pastedCommand(line: string): PastedCommand | undefined {
  const command = promptCommand(line);
  if (command === undefined) return undefined;
  const words = command.trim().split(/\s+/);
  let k = 0;
  while (k < words.length && (words[k] === 'sudo' || (k > 0 && words[k - 1] === 'sudo' && words[k].startsWith('-')))) k++;
  const tool = /^(?:\S*\/)?(ip6?)tables(?:-nft|-legacy)?$/.exec(words[k] ?? '');
  if (!tool) return undefined;
  const out: Partial<PastedCommand> = { ipv6: tool[1] === 'ip6' };
  for (k++; k < words.length; k++) {
    const w = words[k];
    const next = words[k + 1];
    const takesChain = next !== undefined && !next.startsWith('-');
    if (w === '-t' || w === '--table') out.table = words[++k];
    else if (w.startsWith('--table=')) out.table = w.slice(8);
    else if (/^-t\w+$/.test(w)) out.table = w.slice(2);
    else if (w === '-S' || w === '--list-rules' || w === '-L' || w === '--list') {
      out.format = w === '-S' || w === '--list-rules' ? 'spec' : 'list';
      if (takesChain) out.chain = words[++k];
    } else if (/^-[nvxL]+$/.test(w) && w.includes('L')) out.format = 'list';
    else if (/^-[nvS]+$/.test(w) && w.includes('S')) out.format = 'spec';
  }
  return out.format === undefined ? undefined : (out as PastedCommand);
}

/** Targets only one table accepts (iptables refuses them elsewhere). */
const TABLE_OF_TARGET: Record<string, string> = { DNAT: 'nat', SNAT: 'nat', MASQUERADE: 'nat', REDIRECT: 'nat', NETMAP: 'nat', CT: 'raw', NOTRACK: 'raw', TPROXY: 'mangle' };
/** kube-proxy's chains of the nat table. */
const NAT_CHAIN = /^KUBE-(SVC|SEP|SVL|EXT|FW|XLB|MARK-MASQ|POSTROUTING|LOAD-BALANCER|LOOP-BACK)(-|$)/;

/** The table a run of lines without a header belongs to, and the evidence (what a diagnostic names). */
export interface TableGuess {
  table: string;
  evidence: string;
}

/**
 * Guesses a table from what its lines use: a target only one table accepts, kube-proxy's nat chains, then the
 * built-in chains present (FORWARD with PREROUTING only in mangle, PREROUTING/POSTROUTING without FORWARD in nat);
 * else filter, as iptables without -t.
 */
export function guessTable(builtins: ReadonlySet<string>, chains: ReadonlySet<string>, targets: ReadonlySet<string>): TableGuess {
  for (const target of targets) {
    const table = TABLE_OF_TARGET[target];
    if (table) return { table, evidence: `-j ${target}` };
  }
  // The nat table refuses DROP and REJECT.
  const filtering = targets.has('DROP') ? 'DROP' : targets.has('REJECT') ? 'REJECT' : undefined;
  if (!filtering) for (const chain of chains) if (NAT_CHAIN.test(chain)) return { table: 'nat', evidence: chain };
  const forward = builtins.has('FORWARD');
  const pre = builtins.has('PREROUTING') ? 'PREROUTING' : builtins.has('POSTROUTING') ? 'POSTROUTING' : undefined;
  if (forward && pre) return { table: 'mangle', evidence: `FORWARD, ${pre}` };
  if (pre && filtering) return { table: builtins.has('POSTROUTING') || builtins.has('INPUT') ? 'mangle' : 'raw', evidence: `${pre}, -j ${filtering}` };
  if (pre) return { table: 'nat', evidence: pre };
  if (filtering) return { table: 'filter', evidence: `-j ${filtering}` };
  if (forward) return { table: 'filter', evidence: 'FORWARD' };
  return { table: 'filter', evidence: '' };
}
