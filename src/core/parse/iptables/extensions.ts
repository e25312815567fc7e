/**
 * Knowledge table of the iptables / ip6tables match and target extensions shipped with netfilter
 * iptables 1.8.x, with every option each of them accepts, how many value words follow the option,
 * whether it may be negated with a leading `!`, and a one-line plain-English explanation.
 *
 * Source of truth: the option tables (`struct xt_option_entry` / `struct option`) that the
 * extension libraries of iptables 1.8.9 register (Debian bookworm build, every revision and both
 * address families dumped), checked against iptables-extensions(8) of 1.8.9, against the
 * iptables 1.8.9 binaries themselves for the options whose extension parses extra words by hand
 * (tcp --tcp-flags, sctp --chunk-types, set --match-set, SET --add-set/--del-set/--map-set,
 * rateest --rateest-bps & co.), and against netfilter's own test files (extensions/*.t).
 *
 * Conventions:
 * - Option keys are written with their dashes, exactly as they appear in a rule (`--dport`, `-s`).
 * - `OptionSpec.name` is the canonical spelling, i.e. the one iptables-save prints. For an alias
 *   (`--source-port`, `--destination-ports`, `--src`, `--hashlimit`, ...) it differs from the key.
 * - Options whose only effect in 1.8.9 is to be rejected (e.g. owner's `--pid-owner`, removed with
 *   revision 0 of the kernel match; time's `--days`, never valid) are NOT listed.
 *
 * Pure data plus two lookups; no runtime imports.
 *
 * The summaries are English and are the keys of the l10n bundles: whoever shows one translates it with t(summary)
 * (see explain/iptables.ts), and scripts/l10n-export.mjs collects every summary of these tables.
 */
import { emptyNameTable, nameTable } from '../../model/name-table';

/** How many value tokens follow the option; 'optional' = 0 or 1 (the parser takes one when the next token is not an option/`!`). */
export type Arity = number | 'optional';

export interface OptionSpec {
  /** Canonical spelling with dashes (what iptables-save prints); differs from the table key for aliases. */
  name: string;
  arity: Arity;
  /** True when `! --option` is accepted. */
  negatable?: boolean;
  /** One line, plain English. */
  summary: string;
  /** For an alias spelling (`--source-port`): the canonical option's own summary; `summary` then reads "Same as …". */
  canonicalSummary?: string;
  valueKind?: 'address' | 'addresses' | 'port' | 'ports' | 'mac' | 'mark' | 'number' | 'probability' | 'string' | 'interface' | 'protocol' | 'chain' | 'other';
}

export interface ExtensionSpec {
  /** Canonical extension name (for alias keys such as `ipv6-icmp` this is `icmp6`). */
  name: string;
  kind: 'match' | 'target';
  summary: string;
  /** Keyed by "--name" (aliases included). */
  options: Record<string, OptionSpec>;
  ipv6Only?: boolean;
  ipv4Only?: boolean;
}

type ValueKind = NonNullable<OptionSpec['valueKind']>;

/** Compact option definition; the key of the record holding it is the canonical name. */
interface Def {
  arity: Arity;
  summary: string;
  /** Negatable with a leading `!`. */
  neg?: boolean;
  kind?: ValueKind;
  /** Other spellings iptables accepts for the same option. */
  aliases?: string[];
}

/** "Source port" → "source port", but "TCP source port" stays as written. */
export function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

function d(arity: Arity, kind: ValueKind | undefined, summary: string, extra?: { neg?: boolean; aliases?: string[] }): Def {
  return { arity, kind, summary, neg: extra?.neg, aliases: extra?.aliases };
}
/** A 0-argument flag. */
function flag(summary: string, neg = false): Def {
  return { arity: 0, summary, neg };
}
/** A 1-argument option. */
function one(kind: ValueKind, summary: string, neg = false, aliases?: string[]): Def {
  return { arity: 1, kind, summary, neg, aliases };
}

function buildOptions(defs: Record<string, Def>): Record<string, OptionSpec> {
  const out = emptyNameTable<OptionSpec>();
  for (const [name, def] of Object.entries(defs)) {
    const spec: OptionSpec = { name, arity: def.arity, summary: def.summary };
    if (def.neg) spec.negatable = true;
    if (def.kind && def.arity !== 0) spec.valueKind = def.kind;
    out[name] = Object.freeze(spec);
    for (const alias of def.aliases ?? []) {
      out[alias] = Object.freeze({ ...spec, summary: `Same as ${name}: ${lowerFirst(def.summary)}`, canonicalSummary: def.summary });
    }
  }
  return Object.freeze(out);
}

interface Family {
  ipv4Only?: boolean;
  ipv6Only?: boolean;
}
const V4: Family = { ipv4Only: true };
const V6: Family = { ipv6Only: true };

function ext(kind: 'match' | 'target', name: string, summary: string, defs: Record<string, Def>, family?: Family): ExtensionSpec {
  const spec: ExtensionSpec = { name, kind, summary, options: buildOptions(defs) };
  if (family?.ipv4Only) spec.ipv4Only = true;
  if (family?.ipv6Only) spec.ipv6Only = true;
  return Object.freeze(spec);
}
const m = (name: string, summary: string, defs: Record<string, Def>, family?: Family) => ext('match', name, summary, defs, family);
const tg = (name: string, summary: string, defs: Record<string, Def>, family?: Family) => ext('target', name, summary, defs, family);

// ---------------------------------------------------------------------------------------------
// Shared option groups
// ---------------------------------------------------------------------------------------------

const PORT_PAIR = (proto: string): Record<string, Def> => ({
  '--sport': one('ports', `${proto} source port or port range (first:last; a missing end means 0 or 65535).`, true, ['--source-port']),
  '--dport': one('ports', `${proto} destination port or port range (first:last; a missing end means 0 or 65535).`, true, ['--destination-port']),
});

const CT_ADDR = (which: string): Def => one('addresses', `Address[/mask] of the ${which} in the connection-tracking entry.`, true);
const CT_PORT = (which: string): Def => one('ports', `Port or port range (or GRE key) of the ${which} in the connection-tracking entry.`, true);

// ---------------------------------------------------------------------------------------------
// Match extensions (-m NAME)
// ---------------------------------------------------------------------------------------------

const icmp6 = m(
  'icmp6',
  'Matches ICMPv6 messages by type and code (loaded implicitly by -p ipv6-icmp / -p icmpv6).',
  {
    '--icmpv6-type': one('other', 'ICMPv6 type, type/code pair, or type name such as echo-request or packet-too-big.', true),
  },
  V6,
);

const state = m('state', 'Matches the connection-tracking state of the packet (the older subset of -m conntrack).', {
  '--state': one('other', 'Comma-separated states: INVALID, NEW, ESTABLISHED, RELATED, UNTRACKED.', true),
});

export const MATCH_EXTENSIONS: Record<string, ExtensionSpec> = nameTable({
  addrtype: m('addrtype', 'Matches on the kind of address (local, broadcast, multicast, ...) the kernel routing table assigns to the source or destination.', {
    '--src-type': one('other', 'Source address type, e.g. LOCAL, UNICAST, BROADCAST, MULTICAST, BLACKHOLE, UNREACHABLE, PROHIBIT, UNSPEC (comma list allowed).', true),
    '--dst-type': one('other', 'Destination address type, e.g. LOCAL, UNICAST, BROADCAST, MULTICAST, BLACKHOLE, UNREACHABLE, PROHIBIT, UNSPEC (comma list allowed).', true),
    '--limit-iface-in': flag('Only look up the address type on the interface the packet came in on.'),
    '--limit-iface-out': flag('Only look up the address type on the interface the packet goes out on.'),
  }),
  ah: m('ah', 'Matches fields of the IPsec Authentication Header (use with -p ah on IPv4).', {
    '--ahspi': one('other', 'Security Parameter Index, or a range first:last.', true),
    '--ahlen': one('number', 'Total length of the AH header in octets (ip6tables only).', true),
    '--ahres': flag('Matches if the reserved field is zero (ip6tables only).'),
  }),
  bpf: m('bpf', 'Runs a BPF program (classic bytecode or a pinned eBPF object) on the packet and matches if it returns non-zero.', {
    '--bytecode': one('other', 'Classic BPF program: instruction count, then comma-separated "code jt jf k" instructions.'),
    '--object-pinned': one('string', 'Path of a pinned eBPF object in the bpf filesystem.'),
  }),
  cgroup: m('cgroup', 'Matches packets of sockets belonging to a control group.', {
    '--cgroup': one('number', "net_cls classid of the socket's cgroup.", true),
    '--path': one('string', "cgroup v2 path (relative to the cgroup2 root) of the socket's owner, including sub-groups.", true),
  }),
  cluster: m('cluster', 'Decides by hashing whether this node of a load-sharing cluster handles the packet.', {
    '--cluster-total-nodes': one('number', 'Number of nodes in the cluster.'),
    '--cluster-local-node': one('number', "This node's number (1-based).", true),
    '--cluster-local-nodemask': one('number', 'Bit mask of node numbers handled by this node (instead of --cluster-local-node).', true),
    '--cluster-hash-seed': one('number', 'Seed of the Jenkins hash; must be the same on every node.'),
  }),
  comment: m('comment', 'Attaches a free-text comment (up to 255 characters) to the rule; matches every packet.', {
    '--comment': one('string', 'The comment text.'),
  }),
  connbytes: m('connbytes', 'Matches by how many bytes or packets a connection has transferred so far, or its average packet size.', {
    '--connbytes': one('other', 'Amount range from[:to]; without to, only the lower bound is checked.', true),
    '--connbytes-dir': one('other', 'Which direction to count: original, reply or both.'),
    '--connbytes-mode': one('other', 'What to count: packets, bytes or avgpkt.'),
  }),
  connlabel: m('connlabel', 'Matches (and optionally sets) a connection label, a bit-flag attached to the conntrack entry.', {
    '--label': one('other', 'Label name from connlabel.conf, or a label bit number.', true),
    '--set': flag('Set the label on the connection if it is not set yet.'),
  }),
  connlimit: m('connlimit', 'Limits the number of parallel connections per client address (or address block).', {
    '--connlimit-upto': one('number', 'Matches while the number of existing connections is at most this.', true),
    '--connlimit-above': one('number', 'Matches when the number of existing connections is above this.', true),
    '--connlimit-mask': one('number', 'Prefix length that groups addresses (32 or 128 = per address).'),
    '--connlimit-saddr': flag('Count connections per source address group (the default).'),
    '--connlimit-daddr': flag('Count connections per destination address group.'),
  }),
  connmark: m('connmark', 'Matches the mark stored on the connection (set with -j CONNMARK).', {
    '--mark': one('mark', 'Connection mark value[/mask]; the mask is ANDed with the ctmark before comparing.', true),
  }),
  conntrack: m('conntrack', "Matches properties of the packet's connection-tracking entry: state, addresses, ports, status, expiry.", {
    '--ctstate': one('other', 'Comma-separated states: INVALID, NEW, ESTABLISHED, RELATED, UNTRACKED, SNAT, DNAT.', true),
    '--ctproto': one('protocol', 'Layer-4 protocol of the connection (name or number).', true),
    '--ctorigsrc': CT_ADDR('original source'),
    '--ctorigdst': CT_ADDR('original destination'),
    '--ctreplsrc': CT_ADDR('reply source'),
    '--ctrepldst': CT_ADDR('reply destination'),
    '--ctorigsrcport': CT_PORT('original source'),
    '--ctorigdstport': CT_PORT('original destination'),
    '--ctreplsrcport': CT_PORT('reply source'),
    '--ctrepldstport': CT_PORT('reply destination'),
    '--ctstatus': one('other', 'Comma-separated statuses: NONE, EXPECTED, SEEN_REPLY, ASSURED, CONFIRMED.', true),
    '--ctexpire': one('other', 'Remaining lifetime in seconds, or a range first:last.', true),
    '--ctdir': one('other', 'Only packets flowing in this direction: ORIGINAL or REPLY.'),
  }),
  cpu: m('cpu', 'Matches the number of the CPU handling the packet.', {
    '--cpu': one('number', 'CPU number, counted from 0.', true),
  }),
  dccp: m('dccp', 'Matches DCCP header fields (loaded implicitly by -p dccp).', {
    ...PORT_PAIR('DCCP'),
    '--dccp-types': one('other', 'Comma-separated packet types: REQUEST, RESPONSE, DATA, ACK, DATAACK, CLOSEREQ, CLOSE, RESET, SYNC, SYNCACK, INVALID.', true),
    '--dccp-option': one('number', 'Matches if this DCCP option number is present.', true),
  }),
  devgroup: m('devgroup', 'Matches the device group of the incoming or outgoing interface.', {
    '--src-group': one('other', 'Device group (name or number[/mask]) of the incoming interface.', true),
    '--dst-group': one('other', 'Device group (name or number[/mask]) of the outgoing interface.', true),
  }),
  dscp: m('dscp', 'Matches the 6-bit DSCP field of the IP header.', {
    '--dscp': one('number', 'DSCP value 0-63 (decimal or hex).', true),
    '--dscp-class': one('other', 'DiffServ class name: BE, EF, AFxx or CSx.', true),
  }),
  dst: m(
    'dst',
    'Matches the IPv6 Destination Options extension header.',
    {
      '--dst-len': one('number', 'Total length of the header in octets.', true),
      '--dst-opts': one('other', 'Comma-separated list of option type[:length].'),
    },
    V6,
  ),
  ecn: m('ecn', 'Matches the Explicit Congestion Notification bits of the IP and TCP headers.', {
    '--ecn-tcp-cwr': flag('Matches if the TCP CWR (congestion window reduced) bit is set.', true),
    '--ecn-tcp-ece': flag('Matches if the TCP ECE (ECN echo) bit is set.', true),
    '--ecn-ip-ect': one('number', 'Matches this ECN codepoint (0-3) of the IP header.', true),
  }),
  esp: m('esp', 'Matches the SPI of the IPsec Encapsulating Security Payload header (loaded implicitly by -p esp).', {
    '--espspi': one('other', 'Security Parameter Index, or a range first:last.', true),
  }),
  eui64: m('eui64', 'Matches if the low 64 bits of the IPv6 source address are the EUI-64 derived from the source MAC address.', {}, V6),
  frag: m(
    'frag',
    'Matches fields of the IPv6 Fragment extension header.',
    {
      '--fragid': one('other', 'Fragment identification, or a range first:last.', true),
      '--fraglen': one('number', 'Length of the fragment header (meaningless on kernels since 2.6.10).', true),
      '--fragres': flag('Matches if the reserved fields are zero.'),
      '--fragfirst': flag('Matches the first fragment.'),
      '--fragmore': flag('Matches if more fragments follow.'),
      '--fraglast': flag('Matches the last fragment.'),
    },
    V6,
  ),
  hashlimit: m('hashlimit', 'Rate-limits per group of packets (by source/destination address and/or port) using one token bucket per group.', {
    '--hashlimit-upto': one('other', 'Matches while the rate is at most this: n[/second|/minute|/hour|/day] or bytes like 10mb/s.', true, ['--hashlimit']),
    '--hashlimit-above': one('other', 'Matches when the rate is above this: n[/second|/minute|/hour|/day] or bytes like 10mb/s.', true),
    '--hashlimit-burst': one('other', 'Initial burst allowed before the limit applies (packets, or bytes such as 1mb); default 5.'),
    '--hashlimit-mode': one('other', 'Comma-separated keys that form a group: srcip, srcport, dstip, dstport.'),
    '--hashlimit-srcmask': one('number', 'Prefix length applied to source addresses before grouping.'),
    '--hashlimit-dstmask': one('number', 'Prefix length applied to destination addresses before grouping.'),
    '--hashlimit-name': one('string', 'Name of the hash table (shown in /proc/net/ipt_hashlimit/).'),
    '--hashlimit-htable-size': one('number', 'Number of buckets of the hash table.'),
    '--hashlimit-htable-max': one('number', 'Maximum number of entries in the hash table.'),
    '--hashlimit-htable-expire': one('number', 'Milliseconds after which an idle entry expires.'),
    '--hashlimit-htable-gcinterval': one('number', 'Milliseconds between garbage-collection runs.'),
    '--hashlimit-rate-match': flag('Only classify flows by whether they exceed the rate instead of rate-limiting them.'),
    '--hashlimit-rate-interval': one('number', 'Seconds between rate samples (with --hashlimit-rate-match).'),
  }),
  hbh: m(
    'hbh',
    'Matches the IPv6 Hop-by-Hop Options extension header.',
    {
      '--hbh-len': one('number', 'Total length of the header in octets.', true),
      '--hbh-opts': one('other', 'Comma-separated list of option type[:length].'),
    },
    V6,
  ),
  helper: m('helper', 'Matches packets of connections set up by a conntrack helper (e.g. ftp data connections).', {
    '--helper': one('string', 'Helper name, optionally with -port, e.g. ftp or ftp-2121.', true),
  }),
  hl: m(
    'hl',
    'Matches the IPv6 Hop Limit field.',
    {
      '--hl-eq': one('number', 'Matches if the hop limit equals this value.', true, ['--hl']),
      '--hl-lt': one('number', 'Matches if the hop limit is less than this value.'),
      '--hl-gt': one('number', 'Matches if the hop limit is greater than this value.'),
    },
    V6,
  ),
  icmp: m(
    'icmp',
    'Matches ICMP messages by type and code (loaded implicitly by -p icmp).',
    {
      '--icmp-type': one('other', 'ICMP type, type/code pair, or type name such as echo-request or any.', true),
    },
    V4,
  ),
  icmp6,
  // iptables maps these spellings to the icmp6 module too (libxtables' xtables_find_match).
  icmpv6: icmp6,
  'ipv6-icmp': icmp6,
  ipcomp: m('ipcomp', 'Matches the CPI of the IPComp header (loaded implicitly by -p ipcomp).', {
    '--ipcompspi': one('other', 'Compression Parameter Index, or a range first:last.', true),
    '--compres': flag('Matches if the reserved field is filled with zero.'),
  }),
  iprange: m('iprange', 'Matches source or destination addresses inside an arbitrary from-to range.', {
    '--src-range': one('addresses', 'Source address range from[-to].', true),
    '--dst-range': one('addresses', 'Destination address range from[-to].', true),
  }),
  ipv6header: m(
    'ipv6header',
    'Matches which IPv6 extension headers (and upper-layer header) the packet carries.',
    {
      '--header': one('other', 'Comma-separated headers: hop-by-hop, dst, route, frag, auth, esp, none, prot (or protocol names/numbers).', true),
      '--soft': flag('Match if any of the listed headers is present instead of exactly that set.'),
    },
    V6,
  ),
  ipvs: m('ipvs', 'Matches properties of the IPVS (kernel load balancer) connection a packet belongs to.', {
    '--ipvs': flag('Matches if the packet belongs to an IPVS connection.', true),
    '--vproto': one('protocol', 'Protocol of the virtual service (name or number).', true),
    '--vaddr': one('addresses', 'Address[/mask] of the virtual service.', true),
    '--vport': one('port', 'Port of the virtual service (number or name).', true),
    '--vdir': one('other', 'Flow direction: ORIGINAL or REPLY.'),
    '--vmethod': one('other', 'IPVS forwarding method: GATE, IPIP or MASQ.', true),
    '--vportctl': one('port', 'Virtual-service port of the controlling connection (e.g. 21 for FTP).', true),
  }),
  length: m('length', 'Matches the length of the layer-3 payload (the packet without its IP header).', {
    '--length': one('other', 'Length or range first:last in bytes.', true),
  }),
  limit: m('limit', 'Matches at most a given average rate, using a token bucket (commonly to throttle logging).', {
    '--limit': one('other', 'Average rate n[/second|/minute|/hour|/day]; default 3/hour.'),
    '--limit-burst': one('number', 'Number of packets allowed in a burst before the rate applies; default 5.'),
  }),
  mac: m('mac', 'Matches the source MAC address of packets that arrived on an Ethernet device.', {
    '--mac-source': one('mac', 'Source MAC address XX:XX:XX:XX:XX:XX.', true),
  }),
  mark: m('mark', 'Matches the packet mark (fwmark) set by -j MARK or elsewhere.', {
    '--mark': one('mark', 'Mark value[/mask]; the mask is ANDed with the packet mark before comparing.', true),
  }),
  mh: m(
    'mh',
    'Matches the type of an IPv6 Mobility Header (loaded implicitly by -p mh).',
    {
      '--mh-type': one('other', 'Mobility Header type, range first:last, or type name.', true),
    },
    V6,
  ),
  multiport: m('multiport', 'Matches up to 15 source or destination ports or port ranges at once (tcp, udp, udplite, dccp, sctp).', {
    '--sports': one('ports', 'Comma-separated source ports or port ranges (first:last).', true, ['--source-ports']),
    '--dports': one('ports', 'Comma-separated destination ports or port ranges (first:last).', true, ['--destination-ports']),
    '--ports': one('ports', 'Comma-separated ports or ranges matched against either the source or the destination port.', true),
  }),
  nfacct: m('nfacct', 'Counts matching traffic in an extended-accounting object created with nfacct(8); matches every packet.', {
    '--nfacct-name': one('string', 'Name of the accounting object.'),
  }),
  osf: m(
    'osf',
    'Passive OS fingerprinting of TCP SYN packets.',
    {
      '--genre': one('string', 'Operating-system genre to match, e.g. Linux or Windows.', true),
      '--ttl': one('number', 'TTL check level: 0 compare exactly, 1 allow lower TTL, 2 do not compare.'),
      '--log': one('number', 'Log determined genres: 0 all, 1 only the first, 2 only known matches.'),
    },
    V4,
  ),
  owner: m('owner', 'Matches the user, group or socket of locally generated packets (OUTPUT and POSTROUTING only).', {
    '--uid-owner': one('other', "User name, UID, or UID range first-last of the socket's owner.", true),
    '--gid-owner': one('other', "Group name, GID, or GID range first-last of the socket's owner.", true),
    '--suppl-groups': flag("Also check the --gid-owner group against the process's supplementary groups."),
    '--socket-exists': flag('Matches if the packet is associated with a socket.', true),
  }),
  physdev: m('physdev', 'Matches the bridge ports a bridged packet enters or leaves through.', {
    '--physdev-in': one('interface', 'Bridge port the packet was received on (a trailing + matches any suffix).', true),
    '--physdev-out': one('interface', 'Bridge port the packet will be sent from (a trailing + matches any suffix).', true),
    '--physdev-is-in': flag('Matches if the packet entered through a bridge port.', true),
    '--physdev-is-out': flag('Matches if the packet will leave through a bridge port.', true),
    '--physdev-is-bridged': flag('Matches if the packet is being bridged rather than routed.', true),
  }),
  pkttype: m('pkttype', 'Matches the link-layer packet type.', {
    '--pkt-type': one('other', 'unicast, broadcast or multicast.', true),
  }),
  policy: m('policy', 'Matches the IPsec policy used to decapsulate (or that will encapsulate) the packet.', {
    '--dir': one('other', 'Which policy: in (decapsulation) or out (encapsulation).'),
    '--pol': one('other', 'none or ipsec: whether the packet is subject to IPsec processing.'),
    '--strict': flag('Match the exact policy element by element instead of any element.'),
    '--reqid': one('number', 'reqid of the policy rule.', true),
    '--spi': one('number', 'Security Parameter Index of the SA.', true),
    '--proto': one('protocol', 'Encapsulation protocol: ah, esp or ipcomp.', true),
    '--mode': one('other', 'Encapsulation mode: tunnel or transport.', true),
    '--tunnel-src': one('addresses', 'Source endpoint address[/mask] of a tunnel-mode SA.', true),
    '--tunnel-dst': one('addresses', 'Destination endpoint address[/mask] of a tunnel-mode SA.', true),
    '--next': flag('Starts the next policy element (with --strict).'),
  }),
  quota: m('quota', 'Matches until a byte quota, decremented by every matching packet, is used up.', {
    '--quota': one('number', 'Quota in bytes.', true),
  }),
  rateest: m('rateest', 'Compares rates measured by -j RATEEST estimators with a value or with each other.', {
    '--rateest': one('string', 'Name of the single estimator (absolute mode).'),
    '--rateest1': one('string', 'Name of the first estimator (relative mode).'),
    '--rateest2': one('string', 'Name of the second estimator (relative mode).'),
    '--rateest-delta': flag('Compare the difference between the estimated rate and the given bps/pps value.'),
    '--rateest-lt': flag('Matches if the rate is less than the given rate or estimator.', true),
    '--rateest-gt': flag('Matches if the rate is greater than the given rate or estimator.', true),
    '--rateest-eq': flag('Matches if the rate equals the given rate or estimator.', true),
    '--rateest-bps': d('optional', 'other', 'Compare bytes per second, against this rate if given (e.g. 5kbit).'),
    '--rateest-pps': d('optional', 'number', 'Compare packets per second, against this rate if given.'),
    '--rateest-bps1': d('optional', 'other', 'Bytes-per-second value for the first estimator (e.g. 2mbit).'),
    '--rateest-bps2': d('optional', 'other', 'Bytes-per-second value for the second estimator.'),
    '--rateest-pps1': d('optional', 'number', 'Packets-per-second value for the first estimator.'),
    '--rateest-pps2': d('optional', 'number', 'Packets-per-second value for the second estimator.'),
  }),
  realm: m(
    'realm',
    'Matches the routing realm of the route the packet took.',
    {
      '--realm': one('other', 'Realm number[/mask] or realm name from /etc/iproute2/rt_realms.', true),
    },
    V4,
  ),
  recent: m('recent', 'Keeps dynamic lists of recently seen addresses and matches packets against them.', {
    '--name': one('string', 'List to use; default DEFAULT.'),
    '--set': flag("Add (or refresh) the packet's address in the list; always matches.", true),
    '--rcheck': flag("Matches if the packet's address is in the list.", true),
    '--update': flag('Like --rcheck, and refreshes the "last seen" time when it matches.', true),
    '--remove': flag('Matches if the address is in the list, and removes it.', true),
    '--rsource': flag('Use the source address (the default).'),
    '--rdest': flag('Use the destination address.'),
    '--mask': one('address', 'Netmask applied to addresses before they are stored or looked up.'),
    '--seconds': one('number', 'Only match if the address was seen within this many seconds.'),
    '--reap': flag('Purge entries older than --seconds.'),
    '--hitcount': one('number', 'Only match if the address was seen at least this many times.'),
    '--rttl': flag('Only match if the TTL equals that of the packet that added the address.'),
  }),
  rpfilter: m('rpfilter', 'Reverse-path filter: matches if a reply to the packet would leave through the interface it arrived on.', {
    '--loose': flag('Accept any interface that has a route back, not only the arrival one.'),
    '--validmark': flag('Use the packet mark in the reverse route lookup.'),
    '--accept-local': flag('Also accept packets whose source address is a local address.'),
    '--invert': flag('Invert: match packets that fail the reverse-path check.'),
  }),
  rt: m(
    'rt',
    'Matches the IPv6 Routing extension header.',
    {
      '--rt-type': one('number', 'Routing header type.', true),
      '--rt-segsleft': one('other', 'Segments-left field, or a range first:last.', true),
      '--rt-len': one('number', 'Length of the header.', true),
      '--rt-0-res': flag('Also match the reserved field (type 0).'),
      '--rt-0-addrs': one('addresses', 'Comma-separated addresses of a type-0 routing header.'),
      '--rt-0-not-strict': flag('The --rt-0-addrs list need not be complete.'),
    },
    V6,
  ),
  sctp: m('sctp', 'Matches SCTP header fields (loaded implicitly by -p sctp).', {
    ...PORT_PAIR('SCTP'),
    '--chunk-types': d(2, 'other', 'Two words: all, any or only, then comma-separated chunk types with optional :flags (e.g. all INIT,DATA:Be).', { neg: true }),
  }),
  set: m('set', 'Matches packets whose addresses/ports are in an ipset.', {
    '--match-set': d(2, 'other', 'Two words: the set name, then comma-separated src/dst flags saying which packet fields to look up.', { neg: true, aliases: ['--set'] }),
    '--return-nomatch': flag('Reverse the result for elements flagged nomatch in the set.'),
    '--update-counters': flag("Update the element's packet/byte counters; written negated to stop updating them.", true),
    '--update-subcounters': flag('Update counters of the member set of a list:set; written negated to stop updating them.', true),
    '--packets-eq': one('number', "Also require the element's packet counter to equal this.", true),
    '--packets-lt': one('number', "Also require the element's packet counter to be less than this."),
    '--packets-gt': one('number', "Also require the element's packet counter to be greater than this."),
    '--bytes-eq': one('number', "Also require the element's byte counter to equal this.", true),
    '--bytes-lt': one('number', "Also require the element's byte counter to be less than this."),
    '--bytes-gt': one('number', "Also require the element's byte counter to be greater than this."),
  }),
  socket: m('socket', 'Matches if an open local TCP/UDP socket is found for the packet (used for transparent proxying).', {
    '--transparent': flag('Only consider transparent sockets.'),
    '--nowildcard': flag('Also consider sockets bound to the any-address.'),
    '--restore-skmark': flag("Set the packet mark from the matching socket's mark."),
  }),
  srh: m(
    'srh',
    'Matches fields of the IPv6 Segment Routing Header.',
    {
      '--srh-next-hdr': one('number', 'Next Header field.', true),
      '--srh-hdr-len-eq': one('number', 'Header length equals this.', true),
      '--srh-hdr-len-gt': one('number', 'Header length is greater than this.', true),
      '--srh-hdr-len-lt': one('number', 'Header length is less than this.', true),
      '--srh-segs-left-eq': one('number', 'Segments Left equals this.', true),
      '--srh-segs-left-gt': one('number', 'Segments Left is greater than this.', true),
      '--srh-segs-left-lt': one('number', 'Segments Left is less than this.', true),
      '--srh-last-entry-eq': one('number', 'Last Entry equals this.', true),
      '--srh-last-entry-gt': one('number', 'Last Entry is greater than this.', true),
      '--srh-last-entry-lt': one('number', 'Last Entry is less than this.', true),
      '--srh-tag': one('number', 'Tag field equals this.', true),
      '--srh-psid': one('addresses', 'Previous segment ID address[/prefix].', true),
      '--srh-nsid': one('addresses', 'Next segment ID address[/prefix].', true),
      '--srh-lsid': one('addresses', 'Last segment ID address[/prefix].', true),
    },
    V6,
  ),
  state,
  statistic: m('statistic', 'Matches a random fraction of packets, or every n-th packet.', {
    '--mode': one('other', 'random or nth.'),
    '--probability': one('probability', 'Chance (0.0-1.0) that a packet matches in random mode.', true),
    '--every': one('number', 'Match one packet in every n (nth mode).', true),
    '--packet': one('number', 'Initial counter value 0..n-1 for nth mode.'),
  }),
  string: m('string', 'Matches a byte pattern anywhere (or in a window) of the packet.', {
    '--algo': one('other', 'Search algorithm: bm (Boyer-Moore) or kmp (Knuth-Morris-Pratt).'),
    '--from': one('number', 'Byte offset where the search starts; default 0.'),
    '--to': one('number', 'Byte offset where the search stops; default the packet end.'),
    '--string': one('string', 'Text pattern to look for.', true),
    '--hex-string': one('string', 'Pattern with bytes in hex between pipes, e.g. |0d 0a|.', true),
    '--icase': flag('Ignore case when searching.'),
  }),
  tcp: m('tcp', 'Matches TCP header fields (loaded implicitly by -p tcp).', {
    ...PORT_PAIR('TCP'),
    '--tcp-flags': d(2, 'other', 'Two words: the flags to examine, then the flags that must be set (SYN ACK FIN RST URG PSH ALL NONE, comma-separated).', { neg: true }),
    '--syn': flag('Matches connection-opening segments: SYN set, ACK, RST and FIN clear (same as --tcp-flags FIN,SYN,RST,ACK SYN).', true),
    '--tcp-option': one('number', 'Matches if this TCP option number is present.', true),
  }),
  tcpmss: m('tcpmss', 'Matches the MSS option of TCP SYN and SYN/ACK segments.', {
    '--mss': one('other', 'MSS value or range first:last.', true),
  }),
  time: m('time', 'Matches if the packet arrives within a date, time-of-day, weekday or day-of-month window (UTC unless --kerneltz).', {
    '--datestart': one('other', 'Start date-time YYYY[-MM[-DD[Thh[:mm[:ss]]]]].'),
    '--datestop': one('other', 'End date-time YYYY[-MM[-DD[Thh[:mm[:ss]]]]].'),
    '--timestart': one('other', 'Daily start time hh:mm[:ss].'),
    '--timestop': one('other', 'Daily stop time hh:mm[:ss].'),
    '--monthdays': one('other', 'Comma-separated days of the month, 1-31.', true),
    '--weekdays': one('other', 'Comma-separated weekdays: Mon..Sun, Mo..Su or 1-7.', true),
    '--contiguous': flag('When the stop time is earlier than the start time, treat it as one period over midnight.'),
    '--kerneltz': { ...flag("Use the kernel's timezone instead of UTC."), aliases: ['--localtz'] },
    '--utc': flag('Interpret times as UTC (the default; accepted for compatibility).'),
  }),
  tos: m('tos', 'Matches the 8-bit Type of Service / traffic class field.', {
    '--tos': one('other', 'TOS value[/mask] or a name such as Minimize-Delay or Normal-Service.', true),
  }),
  ttl: m(
    'ttl',
    'Matches the IPv4 Time To Live field.',
    {
      '--ttl-eq': one('number', 'Matches if the TTL equals this value.', true, ['--ttl']),
      '--ttl-gt': one('number', 'Matches if the TTL is greater than this value.'),
      '--ttl-lt': one('number', 'Matches if the TTL is less than this value.'),
    },
    V4,
  ),
  u32: m('u32', 'Extracts up to 4 bytes at computed offsets of the packet and tests them against values or ranges.', {
    '--u32': one('other', 'A u32 test program, e.g. "0>>22&0x3C@12>>26&0x3C@0=0x474554".', true),
  }),
  udp: m('udp', 'Matches UDP header fields (loaded implicitly by -p udp).', {
    ...PORT_PAIR('UDP'),
  }),
});

// ---------------------------------------------------------------------------------------------
// Target extensions (-j NAME)
// ---------------------------------------------------------------------------------------------

const NAT_RANGE_TAIL = 'optionally :port[-port] when the rule also has -p tcp/udp/sctp/dccp';

export const TARGET_EXTENSIONS: Record<string, ExtensionSpec> = nameTable({
  ACCEPT: tg('ACCEPT', 'Lets the packet through: stops traversing this chain and its callers in this table.', {}),
  DROP: tg('DROP', 'Silently discards the packet.', {}),
  RETURN: tg('RETURN', "Leaves the current chain and continues in the calling chain (or applies the built-in chain's policy).", {}),
  QUEUE: tg('QUEUE', 'Hands the packet to userspace on queue 0 (same as -j NFQUEUE --queue-num 0).', {}),
  AUDIT: tg('AUDIT', 'Writes an audit record for the packet; the rule continues with the next rule.', {
    '--type': one('other', 'Record type: accept, drop or reject (ignored since Linux 4.12).'),
  }),
  CHECKSUM: tg('CHECKSUM', 'Fills in a missing layer-4 checksum (workaround for old DHCP clients); mangle table only.', {
    '--checksum-fill': flag('Compute and fill in the checksum.'),
  }),
  CLASSIFY: tg('CLASSIFY', "Sets the packet's priority, i.e. its traffic-control class.", {
    '--set-class': one('other', 'Class major:minor, in hexadecimal.'),
  }),
  CLUSTERIP: tg(
    'CLUSTERIP',
    'Deprecated: shares one IP and MAC address among cluster nodes, each answering a hash share of connections.',
    {
      '--new': flag('Create a new ClusterIP (needed on the first rule of it).'),
      '--hashmode': one('other', 'What to hash: sourceip, sourceip-sourceport or sourceip-sourceport-destport.'),
      '--clustermac': one('mac', 'Multicast MAC address shared by the cluster.'),
      '--total-nodes': one('number', 'Number of nodes in the cluster.'),
      '--local-node': one('number', "This node's number."),
      '--hash-init': one('number', 'Random seed for the hash.'),
    },
    V4,
  ),
  CONNMARK: tg('CONNMARK', "Sets, saves or restores the mark stored on the packet's connection.", {
    '--set-xmark': one('mark', 'Clear the bits in mask, then XOR value into the connection mark: value[/mask].'),
    '--set-mark': one('mark', 'Set the connection mark bits selected by mask to value: value[/mask].'),
    '--and-mark': one('mark', 'Binary-AND the connection mark with bits.'),
    '--or-mark': one('mark', 'Binary-OR the connection mark with bits.'),
    '--xor-mark': one('mark', 'Binary-XOR the connection mark with bits.'),
    '--save-mark': flag('Copy the packet mark to the connection mark (masks from --nfmask/--ctmask or --mask).'),
    '--restore-mark': flag('Copy the connection mark to the packet mark (masks from --nfmask/--ctmask or --mask); mangle table only.'),
    '--nfmask': one('mark', 'Mask applied to the packet mark by --save-mark/--restore-mark.'),
    '--ctmask': one('mark', 'Mask applied to the connection mark by --save-mark/--restore-mark.'),
    '--mask': one('mark', 'Same mask for both marks with --save-mark/--restore-mark (older form).'),
    '--left-shift-mark': one('number', 'Shift the mark left by this many bits while copying.'),
    '--right-shift-mark': one('number', 'Shift the mark right by this many bits while copying.'),
  }),
  CONNSECMARK: tg('CONNSECMARK', 'Copies the security (SELinux) mark between packet and connection.', {
    '--save': flag("Copy the packet's security mark to the connection if it has none."),
    '--restore': flag("Copy the connection's security mark to the packet if it has none."),
  }),
  CT: tg('CT', "Sets connection-tracking parameters for the packet's future connection (raw table): no tracking, helper, zone, events, timeouts.", {
    '--notrack': flag("Do not track this packet's connection at all."),
    '--helper': one('string', 'Conntrack helper to attach, e.g. ftp.'),
    '--ctevents': one('other', 'Comma-separated conntrack events to generate: new, related, destroy, reply, assured, protoinfo, helper, mark, natseqinfo, secmark.'),
    '--expevents': one('other', 'Comma-separated expectation events to generate: new.'),
    '--zone': one('other', 'Conntrack zone id, or mark to take it from the packet mark (both directions).'),
    '--zone-orig': one('other', 'Conntrack zone id or mark for the original direction.'),
    '--zone-reply': one('other', 'Conntrack zone id or mark for the reply direction.'),
    '--timeout': one('string', 'Name of a timeout policy defined with nfct(8).'),
  }),
  DNAT: tg('DNAT', 'Rewrites the destination address (and optionally port) of the connection; nat table, PREROUTING/OUTPUT.', {
    '--to-destination': one('addresses', `New destination: address or address range first-last, ${NAT_RANGE_TAIL} (/baseport for a shifted map).`),
    '--random': flag('Randomize the source-port mapping.'),
    '--persistent': flag('Give a client the same address for every connection.'),
  }),
  DNPT: tg(
    'DNPT',
    'Stateless IPv6 destination network-prefix translation (RFC 6296); mangle table.',
    {
      '--src-pfx': one('addresses', 'Prefix/length to translate from.'),
      '--dst-pfx': one('addresses', 'Prefix/length to translate to.'),
    },
    V6,
  ),
  DSCP: tg('DSCP', 'Rewrites the DSCP field of the IP header; mangle table.', {
    '--set-dscp': one('number', 'DSCP value 0-63 (decimal or hex).'),
    '--set-dscp-class': one('other', 'DiffServ class name: BE, EF, AFxx or CSx.'),
  }),
  ECN: tg(
    'ECN',
    'Rewrites ECN bits, e.g. to work around ECN blackholes; mangle table.',
    {
      '--ecn-tcp-remove': flag('Clear all ECN bits from the TCP header.'),
      '--ecn-tcp-cwr': one('number', 'Set the TCP CWR bit to 0 or 1.'),
      '--ecn-tcp-ece': one('number', 'Set the TCP ECE bit to 0 or 1.'),
      '--ecn-ip-ect': one('number', 'Set the IP ECT codepoint (0-3).'),
    },
    V4,
  ),
  HL: tg(
    'HL',
    'Sets, increments or decrements the IPv6 Hop Limit; mangle table.',
    {
      '--hl-set': one('number', 'Set the hop limit to this value.'),
      '--hl-dec': one('number', 'Decrement the hop limit by this amount.'),
      '--hl-inc': one('number', 'Increment the hop limit by this amount.'),
    },
    V6,
  ),
  HMARK: tg('HMARK', 'Sets the packet mark to a hash of chosen header fields, spread over a range of marks.', {
    '--hmark-tuple': one('other', 'Comma-separated fields to hash: src, dst, sport, dport, spi, proto, ct.'),
    '--hmark-mod': one('number', 'Modulus of the hash: number of distinct marks.'),
    '--hmark-offset': one('number', 'First mark value of the range.'),
    '--hmark-src-prefix': one('number', 'Prefix length applied to the source address before hashing.'),
    '--hmark-dst-prefix': one('number', 'Prefix length applied to the destination address before hashing.'),
    '--hmark-sport-mask': one('number', '16-bit mask applied to the source port.'),
    '--hmark-dport-mask': one('number', '16-bit mask applied to the destination port.'),
    '--hmark-spi-mask': one('number', '32-bit mask applied to the IPsec SPI.'),
    '--hmark-proto-mask': one('number', '8-bit mask applied to the layer-4 protocol number.'),
    '--hmark-rnd': one('number', '32-bit random value fed to the hash.'),
    '--hmark-sport': one('number', 'Fixed source-port value used in the hash.'),
    '--hmark-dport': one('number', 'Fixed destination-port value used in the hash.'),
    '--hmark-spi': one('number', 'Fixed SPI value used in the hash.'),
  }),
  IDLETIMER: tg('IDLETIMER', 'Restarts a named timer on each packet so userspace is notified when traffic has been idle that long.', {
    '--timeout': one('number', 'Idle time in seconds that triggers the notification.'),
    '--label': one('string', 'Name of the timer (up to 27 characters).'),
    '--alarm': flag('Use an alarm timer that can wake the system from suspend.'),
  }),
  LED: tg('LED', 'Drives an LED trigger (netfilter-NAME) when packets hit the rule.', {
    '--led-trigger-id': one('string', 'Name of the trigger (prefixed with netfilter-).'),
    '--led-delay': one('other', 'Milliseconds the LED stays on, or inf.'),
    '--led-always-blink': flag('Blink on every packet even if the LED is already on.'),
  }),
  LOG: tg('LOG', 'Logs the packet headers to the kernel log; the rule continues with the next rule.', {
    '--log-level': one('other', 'Syslog level: number or emerg, alert, crit, error, warning, notice, info, debug.'),
    '--log-prefix': one('string', 'Text (up to 29 characters) put in front of the log message.'),
    '--log-tcp-sequence': flag('Log TCP sequence numbers.'),
    '--log-tcp-options': flag('Log TCP header options.'),
    '--log-ip-options': flag('Log IP/IPv6 header options.'),
    '--log-uid': flag('Log the user id of the sending process.'),
    '--log-macdecode': flag('Decode MAC addresses and protocol.'),
  }),
  MARK: tg('MARK', 'Sets or changes the packet mark (fwmark), used e.g. by policy routing and tc.', {
    '--set-xmark': one('mark', 'Clear the bits in mask, then XOR value into the mark: value[/mask].'),
    '--set-mark': one('mark', 'Set the mark bits selected by mask to value: value[/mask].'),
    '--and-mark': one('mark', 'Binary-AND the mark with bits.'),
    '--or-mark': one('mark', 'Binary-OR the mark with bits.'),
    '--xor-mark': one('mark', 'Binary-XOR the mark with bits.'),
  }),
  MASQUERADE: tg('MASQUERADE', 'Source-NATs to the address of the outgoing interface (for dynamic addresses); nat table, POSTROUTING.', {
    '--to-ports': one('ports', 'Source port or range first-last to use (needs -p tcp/udp/sctp/dccp).'),
    '--random': flag('Randomize the source-port mapping.'),
    '--random-fully': flag('Fully randomize the source-port mapping.'),
  }),
  NETMAP: tg('NETMAP', 'Maps a whole network onto another network 1:1, keeping the host part; nat table.', {
    '--to': one('addresses', 'Network address[/mask] to map to.'),
  }),
  NFLOG: tg('NFLOG', 'Sends the packet to a netlink logging group (e.g. ulogd); the rule continues with the next rule.', {
    '--nflog-group': one('number', 'Netlink log group 0-65535; default 0.'),
    '--nflog-prefix': one('string', 'Text (up to 64 characters) attached to the logged packet.'),
    '--nflog-range': one('number', 'Bytes to copy (never worked; use --nflog-size).'),
    '--nflog-size': one('number', 'Number of bytes of the packet to copy to userspace.'),
    '--nflog-threshold': one('number', 'Packets to queue in the kernel before sending them to userspace.'),
  }),
  NFQUEUE: tg('NFQUEUE', 'Hands the packet to a userspace program through an nfnetlink queue, which decides its verdict.', {
    '--queue-num': one('number', 'Queue number 0-65535; default 0.'),
    '--queue-balance': one('other', 'Range first:last of queues to spread connections over.'),
    '--queue-bypass': flag('Accept the packet instead of dropping it when no program listens.'),
    '--queue-cpu-fanout': flag('Pick the queue by CPU id (with --queue-balance).'),
  }),
  NOTRACK: tg('NOTRACK', 'Disables connection tracking for the packet (same as -j CT --notrack); raw table.', {}),
  RATEEST: tg('RATEEST', 'Measures the rate of matching packets into a named estimator for -m rateest; the rule continues.', {
    '--rateest-name': one('string', 'Name of the estimator.'),
    '--rateest-interval': one('other', 'Measurement interval with unit s, ms or us, e.g. 250ms.'),
    '--rateest-ewmalog': one('other', 'Averaging time constant with unit, e.g. 500ms.'),
  }),
  REDIRECT: tg('REDIRECT', 'Redirects the packet to the local machine (destination NAT to a local address); nat table.', {
    '--to-ports': one('ports', 'Destination port or range first-last to use (needs -p tcp/udp/sctp/dccp).'),
    '--random': flag('Randomize the port mapping.'),
  }),
  REJECT: tg('REJECT', 'Drops the packet and sends back an error (ICMP unreachable or TCP reset).', {
    '--reject-with': one('other', 'Error to send, e.g. icmp-port-unreachable, icmp-host-prohibited, icmp6-adm-prohibited or tcp-reset.'),
  }),
  SECMARK: tg('SECMARK', "Sets the packet's security (SELinux) mark; security or mangle table.", {
    '--selctx': one('string', 'Security context, e.g. system_u:object_r:http_packet_t:s0.'),
  }),
  SET: tg('SET', "Adds or deletes the packet's addresses/ports to or from an ipset, or maps packet properties from one.", {
    '--add-set': d(2, 'other', "Two words: set name, then comma-separated src/dst flags; adds the packet's entry to the set."),
    '--del-set': d(2, 'other', "Two words: set name, then comma-separated src/dst flags; deletes the packet's entry from the set."),
    '--map-set': d(2, 'other', 'Two words: set name, then comma-separated src/dst flags; takes mark/priority/queue from the matching entry.'),
    '--timeout': one('number', "Timeout for added entries instead of the set's default."),
    '--exist': flag('When adding an existing entry, reset its timeout.'),
    '--map-mark': flag('With --map-set, set the packet mark from the entry.'),
    '--map-prio': flag('With --map-set, set the tc priority from the entry.'),
    '--map-queue': flag('With --map-set, set the hardware queue from the entry.'),
  }),
  SNAT: tg('SNAT', 'Rewrites the source address (and optionally port) of the connection; nat table, POSTROUTING/INPUT.', {
    '--to-source': one('addresses', `New source: address or address range first-last, ${NAT_RANGE_TAIL}.`),
    '--random': flag('Randomize the source-port mapping (hash based).'),
    '--random-fully': flag('Fully randomize the source-port mapping.'),
    '--persistent': flag('Give a client the same address for every connection.'),
  }),
  SNPT: tg(
    'SNPT',
    'Stateless IPv6 source network-prefix translation (RFC 6296); mangle table.',
    {
      '--src-pfx': one('addresses', 'Prefix/length to translate from.'),
      '--dst-pfx': one('addresses', 'Prefix/length to translate to.'),
    },
    V6,
  ),
  SYNPROXY: tg('SYNPROXY', 'Answers TCP handshakes with SYN cookies itself and only then connects to the server (SYN-flood protection).', {
    '--mss': one('number', 'MSS announced to clients; must match the backend.'),
    '--wscale': one('number', 'Window scale announced to clients; must match the backend.'),
    '--sack-perm': flag("Pass the client's selective-acknowledgement option to the backend."),
    '--timestamp': flag("Pass the client's timestamp option to the backend."),
    '--ecn': flag("Pass the client's ECN support to the backend."),
  }),
  TCPMSS: tg('TCPMSS', 'Rewrites the MSS option of TCP SYN segments (clamps it to the path MTU or a fixed value).', {
    '--set-mss': one('number', 'Set the MSS to this value (never raised).'),
    '--clamp-mss-to-pmtu': flag('Set the MSS to the path MTU minus 40 (IPv4) or 60 (IPv6).'),
  }),
  TCPOPTSTRIP: tg('TCPOPTSTRIP', 'Replaces chosen TCP options with no-ops; mangle table.', {
    '--strip-options': one('other', 'Comma-separated TCP option names or numbers to strip.'),
  }),
  TEE: tg('TEE', 'Sends a copy of the packet to another host on the local network; the original continues.', {
    '--gateway': one('address', 'Address of the host that receives the copy.'),
    '--oif': one('interface', 'Interface to send the copy through.'),
  }),
  TOS: tg('TOS', 'Rewrites the Type of Service / traffic class field; mangle table.', {
    '--set-tos': one('other', 'value[/mask] or a name such as Minimize-Delay.'),
    '--and-tos': one('number', 'Binary-AND the TOS field with bits.'),
    '--or-tos': one('number', 'Binary-OR the TOS field with bits.'),
    '--xor-tos': one('number', 'Binary-XOR the TOS field with bits.'),
  }),
  TPROXY: tg('TPROXY', 'Delivers the packet to a local (transparent proxy) socket without changing its header; mangle PREROUTING.', {
    '--on-port': one('port', 'Local port to deliver to (0 = the original port).'),
    '--on-ip': one('address', "Local address to deliver to (default: the incoming interface's)."),
    '--tproxy-mark': one('mark', 'Mark value[/mask] to set on the packet for policy routing.'),
  }),
  TRACE: tg('TRACE', 'Marks the packet so every rule it traverses is logged (raw table); the rule continues.', {}),
  TTL: tg(
    'TTL',
    'Sets, increments or decrements the IPv4 TTL; mangle table.',
    {
      '--ttl-set': one('number', 'Set the TTL to this value.'),
      '--ttl-dec': one('number', 'Decrement the TTL by this amount.'),
      '--ttl-inc': one('number', 'Increment the TTL by this amount.'),
    },
    V4,
  ),
  ULOG: tg(
    'ULOG',
    'Deprecated IPv4 predecessor of NFLOG: multicasts the packet to a netlink group; needs a kernel older than 3.17.',
    {
      '--ulog-nlgroup': one('number', 'Netlink group 1-32; default 1.'),
      '--ulog-prefix': one('string', 'Text (up to 32 characters) attached to the logged packet.'),
      '--ulog-cprange': one('number', 'Bytes to copy to userspace; 0 = whole packet.'),
      '--ulog-qthreshold': one('number', 'Packets to queue in the kernel before sending.'),
    },
    V4,
  ),
});

// ---------------------------------------------------------------------------------------------
// Options of the rule itself (no -m needed)
// ---------------------------------------------------------------------------------------------

export const BASIC_OPTIONS: Record<string, OptionSpec> = (() => {
  const defs: Record<string, Def & { long: string[] }> = {
    '-A': { arity: 1, kind: 'chain', summary: 'Appends the rule to this chain (how iptables-save writes every rule).', long: ['--append'] },
    '-s': { arity: 1, kind: 'addresses', neg: true, summary: 'Source address[/mask], or a comma-separated list of them.', long: ['--source', '--src'] },
    '-d': { arity: 1, kind: 'addresses', neg: true, summary: 'Destination address[/mask], or a comma-separated list of them.', long: ['--destination', '--dst'] },
    '-p': { arity: 1, kind: 'protocol', neg: true, summary: "Layer-4 protocol by name or number (tcp, udp, icmp, all, ...); also enables that protocol's match options.", long: ['--protocol'] },
    '-i': { arity: 1, kind: 'interface', neg: true, summary: 'Interface the packet arrived on (a trailing + matches any suffix).', long: ['--in-interface'] },
    '-o': { arity: 1, kind: 'interface', neg: true, summary: 'Interface the packet will leave through (a trailing + matches any suffix).', long: ['--out-interface'] },
    '-f': { arity: 0, neg: true, summary: 'Matches second and later fragments of fragmented IPv4 packets (iptables only).', long: ['--fragment', '--fragments'] },
    '-4': { arity: 0, summary: 'The rule applies only to IPv4 (iptables-restore ignores it in ip6tables input).', long: ['--ipv4'] },
    '-6': { arity: 0, summary: 'The rule applies only to IPv6 (iptables-restore ignores it in iptables input).', long: ['--ipv6'] },
    '-c': { arity: 2, kind: 'number', summary: 'Initial packet and byte counters: two numbers (iptables also accepts one word "packets,bytes").', long: ['--set-counters'] },
    '-j': { arity: 1, kind: 'chain', summary: 'Target: a built-in verdict, a target extension, or a user chain to jump to (and return from).', long: ['--jump'] },
    '-g': { arity: 1, kind: 'chain', summary: "Goes to a user chain without returning here: its RETURN goes back to this chain's caller.", long: ['--goto'] },
    '-m': { arity: 1, kind: 'other', summary: 'Loads a match extension by name; its options follow.', long: ['--match'] },
  };
  const out = emptyNameTable<OptionSpec>();
  for (const [short, def] of Object.entries(defs)) {
    const spec: OptionSpec = { name: short, arity: def.arity, summary: def.summary };
    if (def.neg) spec.negatable = true;
    if (def.kind && def.arity !== 0) spec.valueKind = def.kind;
    out[short] = Object.freeze(spec);
    for (const l of def.long) out[l] = Object.freeze({ ...spec });
  }
  return Object.freeze(out);
})();

// ---------------------------------------------------------------------------------------------
// Lookups
// ---------------------------------------------------------------------------------------------

/** `-p` protocol numbers whose /etc/protocols name iptables uses to load an implicit match. */
const PROTOCOL_NUMBER_MODULES: Record<string, string> = nameTable({
  '1': 'icmp',
  '6': 'tcp',
  '17': 'udp',
  '33': 'dccp',
  '50': 'esp',
  '51': 'ah',
  '58': 'icmp6',
  '108': 'ipcomp',
  '132': 'sctp',
});

function resolveOption(specExt: ExtensionSpec | undefined, option: string): OptionSpec | undefined {
  if (!specExt) return undefined;
  const key = option.startsWith('-') ? option : `--${option}`;
  const exact = specExt.options[key];
  if (exact) return exact;
  // getopt_long accepts any unambiguous prefix of a long option ("--to-port" for "--to-ports");
  // candidates that are spellings of one option (e.g. --dport/--destination-port) are not ambiguous.
  if (!key.startsWith('--') || key.length < 3) return undefined;
  let found: OptionSpec | undefined;
  for (const [k, spec] of Object.entries(specExt.options)) {
    if (!k.startsWith(key)) continue;
    if (found && found.name !== spec.name) return undefined;
    found = found ?? spec;
  }
  return found;
}

/**
 * The spec of `option` (e.g. "--dport") of match `module` (as written after -m, any case; a `-p`
 * protocol name or number such as "6" or "ipv6-icmp" also resolves to its implicit match).
 * Exact spellings first, then an unambiguous prefix as getopt_long allows. Undefined if unknown.
 */
export function lookupMatchOption(module: string, option: string): OptionSpec | undefined {
  const name = module.toLowerCase();
  // Prototype-less tables (nameTable): `constructor` and the like find nothing.
  const spec = MATCH_EXTENSIONS[name] ?? (PROTOCOL_NUMBER_MODULES[name] !== undefined ? MATCH_EXTENSIONS[PROTOCOL_NUMBER_MODULES[name]] : undefined);
  return resolveOption(spec, option);
}

/**
 * The spec of `option` of target `target` (as written after -j; target names are case-sensitive).
 * Exact spellings first, then an unambiguous prefix as getopt_long allows. Undefined if unknown.
 */
export function lookupTargetOption(target: string, option: string): OptionSpec | undefined {
  const spec = Object.prototype.hasOwnProperty.call(TARGET_EXTENSIONS, target) ? TARGET_EXTENSIONS[target] : undefined;
  return resolveOption(spec, option);
}
