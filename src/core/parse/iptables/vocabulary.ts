// The words of an iptables-save line: options and their aliases, commands, targets and the extension option specs,
// shared by the reference reader and the accelerators.
import { type ChainCommand, type RuleOperation, type TargetKind, BUILTIN_CHAINS } from '../../model/iptables';
import { nameTable } from '../../model/name-table';
import { detached } from '../detach';
import { lookupMatchOption, lookupTargetOption, MATCH_EXTENSIONS, TARGET_EXTENSIONS, type OptionSpec } from './extensions';

export const TABLE_NAMES = new Set(Object.keys(BUILTIN_CHAINS));

export const PARAM_ALIASES = new Map<string, string>(
  Object.entries({
    '-s': '-s',
    '--source': '-s',
    '--src': '-s',
    '-d': '-d',
    '--destination': '-d',
    '--dst': '-d',
    '-p': '-p',
    '--protocol': '-p',
    '-i': '-i',
    '--in-interface': '-i',
    '-o': '-o',
    '--out-interface': '-o',
    '-f': '-f',
    '--fragment': '-f',
    '-4': '-4',
    '--ipv4': '-4',
    '-6': '-6',
    '--ipv6': '-6',
  }),
);
export const PARAM_ARITY: Record<string, number> = nameTable({ '-s': 1, '-d': 1, '-p': 1, '-i': 1, '-o': 1, '-f': 0, '-4': 0, '-6': 0 });

export const COMMAND_ALIASES = new Map<string, ChainCommand['command'] | RuleOperation>(
  Object.entries({
    '-A': 'append',
    '--append': 'append',
    '-I': 'insert',
    '--insert': 'insert',
    '-D': 'delete',
    '--delete': 'delete',
    '-R': 'replace',
    '--replace': 'replace',
    '-N': 'new',
    '--new-chain': 'new',
    '-X': 'delete',
    '--delete-chain': 'delete',
    '-F': 'flush',
    '--flush': 'flush',
    '-P': 'policy',
    '--policy': 'policy',
    '-Z': 'zero',
    '--zero': 'zero',
    '-E': 'rename',
    '--rename-chain': 'rename',
  }),
);
export const RULE_COMMANDS = new Set(['-A', '--append', '-I', '--insert', '-D', '--delete', '-R', '--replace']);

/** Protocol names after `-p` that make iptables load a match of the same name implicitly. */
export const IMPLICIT_PROTOCOL_MATCH: Record<string, string> = nameTable({
  tcp: 'tcp',
  udp: 'udp',
  udplite: 'udplite',
  sctp: 'sctp',
  dccp: 'dccp',
  icmp: 'icmp',
  icmpv6: 'icmp6',
  'ipv6-icmp': 'icmp6',
  icmp6: 'icmp6',
  '6': 'tcp',
  '17': 'udp',
  '1': 'icmp',
  '58': 'icmp6',
  '132': 'sctp',
  '33': 'dccp',
});

export const VERDICTS = new Set(['ACCEPT', 'DROP', 'QUEUE']);
// Sets rather than `in` on the tables: a chain named "constructor" or "toString" is not an extension.
export const TARGET_EXTENSION_NAMES = new Set(Object.keys(TARGET_EXTENSIONS));
export const MATCH_EXTENSION_NAMES = new Set(Object.keys(MATCH_EXTENSIONS));

export function targetKindOf(name: string, isChain: boolean, goto: boolean): TargetKind {
  if (isChain) return goto ? 'goto' : 'jump';
  if (VERDICTS.has(name)) return 'verdict';
  switch (name) {
    case 'RETURN':
      return 'return';
    case 'DNAT':
      return 'dnat';
    case 'SNAT':
      return 'snat';
    case 'MASQUERADE':
      return 'masquerade';
    case 'REDIRECT':
      return 'redirect';
    case 'MARK':
    case 'CONNMARK':
      return 'mark';
    case 'REJECT':
      return 'reject';
    case 'LOG':
    case 'NFLOG':
    case 'ULOG':
      return 'log';
    default:
      return goto ? 'goto' : 'other';
  }
}

/** Caches of extension option lookups: module (or target) → option → spec (null when unknown). */
export const matchSpecCache = new Map<string, Map<string, OptionSpec | null>>();
export const targetSpecCache = new Map<string, Map<string, OptionSpec | null>>();

function cachedSpec(cache: Map<string, Map<string, OptionSpec | null>>, owner: string, option: string, lookup: (owner: string, option: string) => OptionSpec | undefined): OptionSpec | undefined {
  let byOption = cache.get(owner);
  if (byOption === undefined) {
    // Bounded: hostile input could name any number of modules.
    if (cache.size >= 2_000) return lookup(owner, option);
    cache.set(detached(owner), (byOption = new Map()));
  }
  let spec = byOption.get(option);
  if (spec === undefined) {
    spec = lookup(owner, option) ?? null;
    if (byOption.size < 2_000) byOption.set(detached(option), spec);
  }
  return spec ?? undefined;
}

export const matchSpec = (module: string, option: string) => cachedSpec(matchSpecCache, module, option, lookupMatchOption);
export const targetSpec = (target: string, option: string) => cachedSpec(targetSpecCache, target, option, lookupTargetOption);
