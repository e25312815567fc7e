// Seeds and hostile material for the perf tier's property tests: dumps from the project's own generators, the
// tokens of each dialect, and payloads a stranger's dump may carry (Markdown and HTML links, `command:` URIs,
// images, `$(icon)`, NULs, huge numbers, invalid prefixes, concatenations, CR, unicode, shallow `define`s).
import fc from 'fast-check';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';
import { analyzeFile, type SnapshotFile } from '../../src/core/snapshot';
import { mutate, mutationOf, type Mutation } from '../helpers/mutate';
import type { InputKind } from './harness';

/** Every planted link target contains PWN (harness.liveInjection looks for it). */
export const HOSTILE = [
  '[Show in Graph](command:dataplane.showGraph?%5B%22PWN%22%5D)',
  '[t](command:dataplane.tracePacket?%5B%22PWN%22%5D)',
  '[x](https://PWN.example/a)',
  '![b](https://PWN.example/p.png)',
  '<img src=x onerror=PWN>',
  '<a href="https://PWN.example">x</a>',
  '[r]: https://PWN.example',
  '$(alert~spin)',
  '$(icon)',
  '\u0000',
  '\r',
  '\r\n',
  '99999999999999999999',
  '4294967296',
  '18446744073709551616',
  '1e400',
  '-1',
  '0x',
  '0xffffffffffffffffff',
  '10.0.0.0/99',
  '::/200',
  '10.96.0.10',
  '\u202e',
  '\ufeff',
  'e\u0301',
  '\u2028',
  '中文',
  '😀',
  '`',
  '``',
  '*_~',
];

const IPTABLES_TOKENS = [
  '-',
  '--',
  '!',
  '"',
  '\\',
  ' ',
  '\t',
  ':',
  '*',
  '#',
  '[',
  ']',
  '0',
  'COMMIT',
  '-A',
  '-j',
  '-m',
  '-N',
  '-P',
  '-I',
  '-D',
  '--comment',
  'statistic',
  '--probability',
  'DNAT',
  '--to-destination',
  'KUBE-MARK-MASQ',
  '\n',
];
const NFT_TOKENS = [
  '{',
  '}',
  '(',
  ')',
  ';',
  ',',
  '.',
  ':',
  '-',
  '/',
  '"',
  '#',
  '@',
  '$',
  '=',
  '!=',
  '\n',
  '\t',
  ' ',
  'table',
  'chain',
  'vmap',
  'map',
  'set',
  'add',
  'jump',
  'goto',
  'elements',
  'type',
  'hook',
  'priority',
  'numgen random mod 3',
  'dnat to',
  'ip daddr',
  '. tcp dport',
  'define d0 = 10.0.0.1',
  '$d0',
  'policy',
  'comment',
];
const IPVS_TOKENS = ['-', '->', ' ', '\t', ':', '[', ']', '(', ')', ',', '0', '65535', 'TCP', 'UDP', 'FWM', 'rr', 'sh', 'persistent', 'mask', 'Masq', 'Route', '-A', '-a', '-t', '-u', '-r', '-w', '-s', '-p', '#', '\n'];
const IPSET_TOKENS = ['-', ' ', '\t', ':', ',', '/', '"', '\\', '0', '65535', 'add', 'del', 'create', 'Name:', 'Type:', 'Members:', 'hash:ip,port', 'hash:net', 'list:set', 'timeout', 'comment', 'nomatch', '#', '\n'];

/** Whole lines that put a payload where dump text reaches hovers and labels (names, policies, comments, priorities). */
function hostileLines(p: string): Record<InputKind, string[]> {
  return {
    iptables: [
      `:PREROUTING ${p} [0:0]`,
      `:${p} - [0:0]`,
      `*${p}`,
      `-A KUBE-SERVICES -m comment --comment "ns/${p}:p cluster IP" -m tcp -p tcp -d 10.96.0.10/32 --dport 80 -j KUBE-SVC-X`,
      `-A ${p} -j ACCEPT`,
      `-A KUBE-SVC-X -m comment --comment "${p}" -j KUBE-SEP-${p}`,
    ],
    'nft-text': [
      `table ip ${p} {`,
      `chain ${p} {`,
      `type nat hook prerouting priority ${p}; policy accept;`,
      `comment "${p}"`,
      `add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap { 10.96.0.10 . tcp . 80 : goto ${p} }`,
      `add element ip kube-proxy service-ips { 10.96.0.10 . tcp . 80 comment "${p}" : goto service-X }`,
      `define ${p} = 1`,
    ],
    'nft-json': [p],
    ipvsadm: [`TCP  ${p}:80 rr`, `  -> ${p}:8080 Masq 1 0 0`, `-A -t ${p} -s rr`, `-a -t 10.96.0.10:80 -r ${p} -m -w 1`, `TCP  10.96.0.10:80 ${p}`],
    ipset: [
      `create ${p} hash:ip,port family inet hashsize 1024 maxelem 65536`,
      `add ${p} 10.96.0.10,tcp:80`,
      `add KUBE-CLUSTER-IP 10.96.0.10,tcp:80 comment "${p}"`,
      `Name: ${p}`,
      `Type: ${p}`,
      `create KUBE-CLUSTER-IP ${p}`,
    ],
  };
}

/** Malformed matches the tracer must answer (a concatenated key against one value, an invalid prefix). */
const MALFORMED: Record<InputKind, string[]> = {
  iptables: ['-A KUBE-SERVICES -d 10.0.0.0/99 -p tcp -m tcp --dport 80 -j ACCEPT', '-A PREROUTING -s ::/200 -j DROP'],
  'nft-text': ['ip daddr . tcp dport 10.96.0.10 accept', 'ip daddr 10.0.0.0/99 accept', 'ip daddr . tcp dport { 10.96.0.10 . 80 } drop'],
  'nft-json': [],
  ipvsadm: ['TCP  10.96.0.10:99999 rr', '  -> 10.0.0.0/99:80 Masq 1 0 0'],
  ipset: ['add KUBE-LOAD-BALANCER-SOURCE-CIDR 10.96.0.10,tcp:80,10.0.0.0/99'],
};

const MARKUP = HOSTILE.slice(0, 7);
export const HOSTILE_LINES: Record<InputKind, string[]> = Object.fromEntries(
  (['iptables', 'nft-text', 'nft-json', 'ipvsadm', 'ipset'] as const).map((k) => [k, [...MARKUP.flatMap((p) => hostileLines(p)[k]), ...MALFORMED[k]]]),
) as Record<InputKind, string[]>;

const ALPHABET: Record<InputKind, string[]> = {
  iptables: IPTABLES_TOKENS,
  'nft-text': NFT_TOKENS,
  'nft-json': ['{', '}', '[', ']', ',', ':', '"', '\\', 'null', '0', '-1e999', '"nftables"'],
  ipvsadm: IPVS_TOKENS,
  ipset: IPSET_TOKENS,
};

/**
 * The generic mutations plus two hostile ones: insert a payload or a payload-carrying line, and rename every
 * occurrence of a word of the dump to a payload (so that it reaches every place the name is shown).
 */
export type HostileMutation = Mutation | { kind: 'rename'; at: number; text: string };

export function hostileMutation(kind: InputKind): fc.Arbitrary<HostileMutation> {
  const payload = fc.constantFrom(...HOSTILE);
  return fc.oneof(
    { weight: 4, arbitrary: mutationOf([...ALPHABET[kind], ...HOSTILE]) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert'), at: fc.nat(), text: fc.constantFrom(...HOSTILE_LINES[kind]).map((l) => `\n${l}\n`) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), at: fc.nat(), text: payload }) },
  );
}

export function applyMutations(base: string, ms: readonly HostileMutation[]): string {
  let text = base;
  for (const m of ms) text = m.kind === 'rename' ? rename(text, m.at ?? 0, m.text ?? '') : mutate(text, [m as Mutation]);
  return text;
}

/** Every occurrence of the word at (or after) `at` replaced by `text`. */
function rename(text: string, at: number, replacement: string): string {
  const word = /[A-Za-z][\w.-]{2,}/g;
  word.lastIndex = at % (text.length + 1);
  const m = word.exec(text) ?? /[A-Za-z][\w.-]{2,}/.exec(text);
  return m ? text.split(m[0]).join(replacement) : text;
}

const SERVICES = randomServices(8, 3, 24);
const IPVS = generateIpvsSnapshot({ services: SERVICES, nodeIPs: ['192.168.0.10'] });

/** A short nft script with what kube-proxy never writes (defines kept shallow: expansion cost is another branch's). */
const NFT_SCRIPT = `#!/usr/sbin/nft -f
flush ruleset
define wan = "eth0"
define ok = { 10.0.0.0/8, 192.168.1.1 }
define both = { $ok, 10.1.0.0/16 }
table inet filter {
\tset blocked { type ipv4_addr; flags interval; elements = { 1.2.3.0/24, 5.6.7.8 } }
\tmap ports { type inet_service : verdict; elements = { 22 : jump ssh, 80 : accept } }
\tmap svc { type ipv4_addr . inet_proto . inet_service : verdict; elements = { 10.96.0.10 . tcp . 80 : goto a } }
\tchain input { type filter hook input priority filter; policy drop;
\t\tct state established,related accept
\t\tiifname $wan ip saddr $both tcp dport vmap @ports
\t\tip saddr @blocked counter packets 0 bytes 0 drop comment "bad # guys"
\t\tip daddr . meta l4proto . th dport vmap @svc
\t\tmeta mark set meta mark | 0x00004000
\t\tnumgen random mod 2 vmap { 0 : goto a, 1 : goto b }
\t}
\tchain pre { type nat hook prerouting priority dstnat; policy accept;
\t\tip daddr 10.96.0.0/12 jump input
\t}
\tchain ssh { reject with tcp reset; }
\tchain a { dnat ip to 10.0.0.1:8080; }
\tchain b { masquerade fully-random; }
}
`;

/** The seed dumps of each kind, as whole texts (the tests mutate slices of their lines). */
export const SEEDS: Record<InputKind, string[]> = {
  iptables: [generateIptablesDump({ services: SERVICES, style: 'iptables-nft-save', counters: true, nodeRules: true }), IPVS['iptables-save']],
  'nft-text': [generateNftDump({ services: SERVICES, style: 'nft-list-ruleset' }), generateNftDump({ services: SERVICES.slice(0, 3), style: 'nft-cmds' }), NFT_SCRIPT],
  'nft-json': [generateNftDump({ services: SERVICES.slice(0, 3), style: 'nft-json' })],
  ipvsadm: [IPVS['ipvsadm-list'], IPVS['ipvsadm-save']],
  ipset: [IPVS['ipset-save'], IPVS['ipset-list']],
};

/** The other dumps of the IPVS node, analysed once: an ipvsadm or ipset input is read together with them. */
export function ipvsCompanions(kind: InputKind): SnapshotFile[] {
  if (kind !== 'ipvsadm' && kind !== 'ipset') return [];
  const named: [string, string][] = [
    ['node.iptables', IPVS['iptables-save']],
    ['kube.ipset', IPVS['ipset-save']],
  ];
  if (kind === 'ipset') named.push(['node.ipvsadm', IPVS['ipvsadm-list']]);
  // The ipset input comes with the node's whole ipset save too: without kube-proxy's sets every `--match-set` of the
  // iptables dump splits the trace in two (thousands of outcomes, a second per trace), which the tier cannot afford
  // 10⁵ times; the mutated sets still reach analysis, catalog, graph, explain and trace.
  return named.map(([name, text]) => analyzeFile(name, text)!);
}

/** Random lines of a dialect's tokens and payloads. */
export function tokenLines(kind: InputKind): fc.Arbitrary<string> {
  const token = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ALPHABET[kind].filter((t) => t.trim().length > 0)) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE) },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  );
  const line = fc.array(token, { maxLength: 12 }).map((ts) => ts.join(' '));
  return fc.array(fc.oneof({ weight: 3, arbitrary: line }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_LINES[kind]) }), { maxLength: 24 }).map((ls) => ls.join('\n'));
}

/** Arbitrary strings, binary and Latin-1 bytes. */
export const ARBITRARY = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
);
