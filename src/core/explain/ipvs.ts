// Plain-words explanations (Markdown) of IPVS and ipset for hovers and, later, trace steps: schedulers,
// forwarding methods, persistence, scheduler flags, ipvsadm's columns, ipset set types and the sets
// kube-proxy creates in IPVS mode. Everything taken from a dump is escaped: dumps are untrusted input.
import { kubeIpsetInfo, type IpSet } from '../model/ipset';
import type { IpvsFamily, IpvsFormat, IpvsForward, Persistence } from '../model/ipvs';
import { t } from '../l10n';
import { nameTable } from '../model/name-table';

/** Escapes Markdown (and HTML) metacharacters in text that came from the dump. */
export function mdEscape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, (c) => `\\${c}`);
}

/** Inline code for text from a dump (backticks replaced, line breaks removed). */
export function code(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/[\r\n]/g, ' ')}\``;
}

export function schedulerTitle(name: string): string {
  const titles: Record<string, string> = nameTable({
    rr: t('Round robin'),
    wrr: t('Weighted round robin'),
    lc: t('Least connection'),
    wlc: t('Weighted least connection'),
    lblc: t('Locality-based least connection'),
    lblcr: t('Locality-based least connection with replication'),
    dh: t('Destination hashing'),
    sh: t('Source hashing'),
    sed: t('Shortest expected delay'),
    nq: t('Never queue'),
    mh: t('Maglev hashing'),
    fo: t('Weighted failover'),
    ovf: t('Weighted overflow'),
    twos: t('Weighted random twos choice'),
  });
  return titles[name] ?? t('Unknown scheduler');
}

/** What a scheduler does with a new connection, in plain words. */
export function explainScheduler(name: string): string {
  const text: Record<string, string> = nameTable({
    rr: t('Each new connection goes to the next real server in turn. Weights are ignored, except that a server with weight 0 gets nothing: with n servers each gets 1/n of new connections. kube-proxy uses rr unless told otherwise.'),
    wrr: t('Like round robin, but a server with weight w gets w turns per round: its share of new connections is its weight divided by the sum of all weights.'),
    lc: t('A new connection goes to the real server with the fewest connections (active ones count 256 times as much as inactive ones). Weights are ignored except 0. Which server that is depends on the live connection counts, not on this dump.'),
    wlc: t('A new connection goes to the real server with the smallest connections-to-weight ratio (active connections count 256 times as much as inactive ones). ipvsadm\'s default. The choice depends on the live connection counts.'),
    lblc: t('For cache clusters: connections to the same destination address go to the same real server as long as it is not overloaded; otherwise to the least-loaded one. Depends on the destination address and live load.'),
    lblcr: t('Like lblc, but a destination address maps to a set of real servers, and the least loaded one in the set is chosen. Depends on the destination address and live load.'),
    dh: t('A static hash of the destination address picks the real server: the same destination always reaches the same server.'),
    sh: t('A static hash of the client (source) address picks the real server: the same client always reaches the same server while the server set stays the same. Across many clients the spread roughly follows the weights.'),
    sed: t('A new connection goes to the real server with the shortest expected delay, (active connections + 1) / weight. Depends on the live connection counts.'),
    nq: t('A new connection goes to an idle real server (no active connections) if there is one, otherwise as with sed. Depends on the live connection counts.'),
    mh: t('Maglev consistent hashing of the client (source) address: the same client reaches the same server, and adding or removing a server moves only a small part of the clients. The spread follows the weights.'),
    fo: t('All new connections go to the available real server with the highest weight; the others are standby.'),
    ovf: t('New connections go to the real server with the highest weight until its active connections exceed its weight, then to the next one.'),
    twos: t('Two real servers are picked at random (in proportion to their weights) and the one with fewer connections wins.'),
  });
  const explained = text[name] ?? t('The kernel has no IPVS scheduler of this name; ipvsadm -R would fail to create the service.');
  return LEAST_CONNECTION.has(name) ? `${explained}\n\n${kubernetesLeastConnectionNote()}` : explained;
}

const LEAST_CONNECTION = new Set(['lc', 'wlc', 'sed', 'nq', 'lblc', 'lblcr']);

/** Why connection-count schedulers are less clever under kube-proxy than they sound. */
export function kubernetesLeastConnectionNote(): string {
  return t('In Kubernetes every node runs its own IPVS and counts only the connections it balanced itself: "least connections" is per node. A pod busy with connections from other nodes looks idle here, so with many nodes the choice is close to random; long-lived connections make it worse.');
}

/** The status of kube-proxy's IPVS mode in Kubernetes. */
export function ipvsModeStatusNote(): string {
  return t('kube-proxy\'s IPVS mode is deprecated since Kubernetes 1.35: the IPVS model cannot express all Service semantics and still needs iptables (masquerade, filtering, NodePorts) beside it. nftables mode is the way forward.');
}

/** How the scheduler's choice can be predicted from this dump. */
export function schedulerPredictability(name: string | undefined): string {
  if (name === 'rr' || name === 'wrr') return t('Shares of new connections follow from the weights alone.');
  if (name === 'sh' || name === 'mh') return t('Each client address always lands on the same real server; which one depends on the client\'s address.');
  if (name === 'dh') return t('Each destination address always lands on the same real server.');
  if (name === 'fo') return t('The available server with the highest weight takes all new connections.');
  if (name === 'lc' || name === 'wlc' || name === 'sed' || name === 'nq' || name === 'lblc' || name === 'lblcr' || name === 'ovf' || name === 'twos') {
    return t('The choice depends on live connection counts; the counts in this dump are a snapshot.');
  }
  return '';
}

export function explainForward(forward: IpvsForward, localNode?: boolean): string {
  if (localNode) {
    return [`**${t('Local')}**`, '', t('The real server is an address of this host itself: the connection is delivered to a local socket, without forwarding.')].join('\n');
  }
  switch (forward) {
    case 'masq':
      return [
        `**${t('Masquerading (NAT)')}** — \`-m\``,
        '',
        t('IPVS rewrites the destination address and port to the real server\'s (DNAT) and sends the packet on. Replies must come back through this host to be rewritten back, so the real server\'s route to the client goes through here. The only method that can change the port. kube-proxy always uses it.'),
      ].join('\n');
    case 'route':
      return [
        `**${t('Direct routing (gatewaying)')}** — \`-g\``,
        '',
        t('The packet is sent unchanged to the real server\'s MAC address; the real server must own the virtual address (on a loopback or dummy interface) and answers the client directly. It must be on the same layer-2 network, and the port cannot change.'),
      ].join('\n');
    case 'tunnel':
      return [
        `**${t('Tunnelling')}** — \`-i\``,
        '',
        t('The packet is encapsulated (IP-in-IP, or GUE/GRE) and sent to the real server, which decapsulates it, must own the virtual address and answers the client directly. The real server can be on another network; the port cannot change.'),
      ].join('\n');
  }
}

export function explainWeight(weight: number): string {
  if (weight === 0) {
    return t('Weight 0: the real server takes no new connections, but its existing connections (and persistence templates) go on. kube-proxy sets weight 0 on endpoints that are terminating and removes them once their connections are gone.');
  }
  return t('Weight {0}: the real server\'s relative capacity. Weighted schedulers (wrr, wlc, sed, nq, sh, mh …) give it new connections in proportion to its weight; rr and lc only care whether it is 0.', weight);
}

export function explainPersistence(p: Persistence, family: IpvsFamily): string {
  const lines = [`**${t('Persistence')}** — ${code(`persistent ${p.timeout}`)}`, ''];
  lines.push(t('All connections from one client address go to the same real server. IPVS keeps a persistence template per client; it lives {0} seconds after the client\'s last connection ends, and new connections from the client follow it instead of the scheduler. kube-proxy writes this for Services with sessionAffinity: ClientIP (timeoutSeconds, default 10800 = 3 hours).', p.timeout));
  if (p.netmask !== undefined) {
    const all = p.netmask === '0.0.0.0' || p.netmask === '0';
    lines.push('', all
      ? t('mask {0}: every client address falls into the same group, so all clients share one template and go to one real server.', mdEscape(p.netmask))
      : family === 'ipv6'
        ? t('mask {0}: clients in the same /{0} network share a template.', mdEscape(p.netmask))
        : t('mask {0}: clients in the same network under this netmask share a template.', mdEscape(p.netmask)));
  }
  if (p.engine) lines.push('', t('Persistence engine {0}: the template is keyed by protocol data (for sip, the Call-ID) instead of the client address.', code(p.engine)));
  return lines.join('\n');
}

export function explainSchedFlag(flag: string): string {
  const text: Record<string, string> = nameTable({
    'sh-fallback': t('sh-fallback: when the server the hash picks is unavailable (weight 0 or overloaded), try the next one instead of dropping the connection.'),
    'sh-port': t('sh-port: hash the client\'s source port too, so connections from one client spread over the servers.'),
    'mh-fallback': t('mh-fallback: when the server the hash picks is unavailable, try the next one instead of dropping the connection.'),
    'mh-port': t('mh-port: hash the client\'s source port too, so connections from one client spread over the servers.'),
    'flag-1': t('flag-1: scheduler-specific flag 1 (sh-fallback / mh-fallback for the hashing schedulers).'),
    'flag-2': t('flag-2: scheduler-specific flag 2 (sh-port / mh-port for the hashing schedulers).'),
    'flag-3': t('flag-3: scheduler-specific flag 3 (unused by the kernel\'s schedulers).'),
    ops: t('ops (one-packet scheduling): every UDP datagram is scheduled on its own instead of as part of a connection; no connection entry is kept.'),
    synproxy: t('synproxy: the director answers the TCP handshake itself before choosing a real server (a vendor extension, not upstream ipvsadm).'),
  });
  return text[flag] ?? t('Unknown flag {0}.', mdEscape(flag));
}

export function explainIpvsHeader(kind: 'version' | 'columns' | 'real-server-columns' | 'connections' | 'connection-columns' | 'timeout', format: IpvsFormat | undefined, tableSize?: number): string {
  switch (kind) {
    case 'version':
      return [
        `**${t('IP Virtual Server')}**`,
        '',
        t('The kernel\'s IPVS version (1.2.1 in every kernel since 2.6) and the size of its connection hash table ({0} buckets; this is not a limit on connections). IPVS load-balances in the kernel: each virtual service below picks a real server for every new connection.', tableSize ?? '?'),
        '',
        ipvsModeStatusNote(),
      ].join('\n');
    case 'timeout':
      return t('IPVS connection timeouts in seconds: established TCP, TCP after FIN, and UDP.');
    case 'connections':
    case 'connection-columns':
      return t('The IPVS connection table (ipvsadm -Lc): one entry per connection (and per persistence template), with the protocol, time to expiry, TCP state, client, virtual service and chosen real server.');
    default:
      return explainColumns(format);
  }
}

export function explainColumns(format: IpvsFormat | undefined): string {
  switch (format) {
    case 'stats':
      return t('ipvsadm --stats: totals since the service was created: connections, packets and bytes in and out. Numbers over 100 million are shortened (K, M, G, T) unless --exact is given.');
    case 'rate':
      return t('ipvsadm --rate: per-second rates estimated by the kernel: connections, packets and bytes in and out.');
    case 'thresholds':
      return t('ipvsadm --thresholds: the upper and lower connection thresholds of each real server (0 = none): above the upper one a server takes no new connections until it falls below the lower one.');
    case 'persistent-conn':
      return t('ipvsadm --persistent-conn: the weight and the number of persistence templates (clients pinned to the server), with the connection counts.');
    case 'tun-info':
      return t('ipvsadm --tun-info: the tunnel type and options of tunnelling real servers.');
    default:
      return t('Each virtual service line shows protocol, virtual address:port, scheduler and flags; each real server line below it (->) shows its address, forwarding method, weight, ActiveConn (established TCP connections) and InActConn (all other entries: TIME_WAIT, FIN, SYN, UDP).');
  }
}

export function explainConnectionState(state: string): string {
  const text: Record<string, string> = nameTable({
    ESTABLISHED: t('ESTABLISHED: the TCP connection is open (counted in ActiveConn).'),
    SYN_RECV: t('SYN_RECV: the client\'s SYN was forwarded, the handshake is not complete.'),
    SYN_SENT: t('SYN_SENT: a SYN was seen from the real server side.'),
    FIN_WAIT: t('FIN_WAIT: the connection is closing (counted in InActConn).'),
    TIME_WAIT: t('TIME_WAIT: the connection has closed; the entry waits to absorb late packets.'),
    CLOSE: t('CLOSE: the connection is closed.'),
    CLOSE_WAIT: t('CLOSE_WAIT: one side has closed the connection.'),
    LAST_ACK: t('LAST_ACK: waiting for the final ACK.'),
    LISTEN: t('LISTEN'),
    SYNACK: t('SYNACK: the real server answered the SYN.'),
    UDP: t('UDP: a UDP "connection", kept until the UDP timeout expires.'),
    NONE: t('NONE: a persistence template (or a fwmark/UDP entry without state): it pins the client to the real server until it expires.'),
    ERR: t('ERR: an entry in an error state.'),
  });
  return text[state] ?? t('State {0}.', mdEscape(state));
}

// ---- ipset --------------------------------------------------------------------------------------------

/** What a set type stores and how a packet is matched against it. */
export function explainIpsetType(type: string): string {
  const text: Record<string, string> = nameTable({
    'hash:ip': t('hash:ip stores IP addresses (a network given with netmask is stored as its network address).'),
    'hash:net': t('hash:net stores networks of any prefix length; the most specific match wins, and nomatch entries carve exceptions out of larger ones.'),
    'hash:ip,port': t('hash:ip,port stores address + protocol:port pairs; a rule matches it with two directions, e.g. dst,dst for destination address and port. kube-proxy keeps Service addresses and ports in such sets.'),
    'hash:net,port': t('hash:net,port stores network + protocol:port pairs.'),
    'hash:ip,port,ip': t('hash:ip,port,ip stores address + protocol:port + a second address, e.g. destination, port and source matched with dst,dst,src.'),
    'hash:ip,port,net': t('hash:ip,port,net stores address + protocol:port + a network, e.g. a load balancer address and port with an allowed source range (dst,dst,src).'),
    'hash:net,port,net': t('hash:net,port,net stores network + protocol:port + network.'),
    'hash:net,net': t('hash:net,net stores pairs of networks.'),
    'hash:net,iface': t('hash:net,iface stores network + interface name pairs.'),
    'hash:ip,mark': t('hash:ip,mark stores address + packet mark pairs.'),
    'hash:mac': t('hash:mac stores MAC addresses.'),
    'hash:ip,mac': t('hash:ip,mac stores address + MAC address pairs.'),
    'bitmap:port': t('bitmap:port stores port numbers in a fixed range as a bitmap: a lookup is one bit test. The protocol is not stored, so kube-proxy keeps one set per protocol.'),
    'bitmap:ip': t('bitmap:ip stores IPv4 addresses (or equal-sized networks) of one fixed range as a bitmap.'),
    'bitmap:ip,mac': t('bitmap:ip,mac stores IPv4 addresses of a fixed range, each with an optional MAC address.'),
    'list:set': t('list:set is a list of other sets: a packet matches when it matches any member set, tried in order.'),
  });
  return text[type] ?? t('Set type {0}.', mdEscape(type));
}

/** What kube-proxy does with one of its IPVS-mode sets; undefined for other names. */
export function explainKubeIpset(name: string): string | undefined {
  const info = kubeIpsetInfo(name);
  if (!info) return undefined;
  const text: Record<string, string> = nameTable({
    'KUBE-LOOP-BACK': t('Hairpin traffic: each member is an endpoint address and port plus the same endpoint address as source. kube-proxy masquerades (KUBE-POSTROUTING, match dst,dst,src) packets of a pod that reaches itself through its Service, so the reply goes back through IPVS instead of straight to the pod.'),
    'KUBE-CLUSTER-IP': t('Every Service ClusterIP and port. In KUBE-SERVICES, packets to a member from outside the cluster CIDR (or all of them with masquerade-all) are marked for masquerade; then IPVS load-balances them.'),
    'KUBE-EXTERNAL-IP': t('Service external IPs and ports. Traffic to them is marked for masquerade and accepted towards IPVS.'),
    'KUBE-EXTERNAL-IP-LOCAL': t('External IPs and ports of Services with externalTrafficPolicy: Local: accepted without masquerade, so the endpoints see the client\'s address.'),
    'KUBE-LOAD-BALANCER': t('LoadBalancer ingress IPs and ports. KUBE-SERVICES sends packets to them (dst,dst) to the KUBE-LOAD-BALANCER chain, which marks them for masquerade.'),
    'KUBE-LOAD-BALANCER-LOCAL': t('LoadBalancer IPs and ports of Services with externalTrafficPolicy: Local: KUBE-LOAD-BALANCER returns early for them, so they are not masqueraded and keep the client\'s address.'),
    'KUBE-LOAD-BALANCER-FW': t('LoadBalancer IPs and ports of Services with loadBalancerSourceRanges: their traffic goes through KUBE-SOURCE-RANGES-FIREWALL, which only lets allowed sources through.'),
    'KUBE-LOAD-BALANCER-SOURCE-IP': t('Allowed single source addresses per LoadBalancer IP and port (members: LB address, port, source address). Matching packets (dst,dst,src) pass the source-range firewall.'),
    'KUBE-LOAD-BALANCER-SOURCE-CIDR': t('Allowed source ranges per LoadBalancer IP and port (members: LB address, port, source network), from loadBalancerSourceRanges. Matching packets (dst,dst,src) pass the source-range firewall; others are dropped.'),
    'KUBE-NODE-PORT-TCP': t('TCP node ports. KUBE-NODE-PORT marks packets to these ports on the node\'s addresses for masquerade (KUBE-MARK-MASQ).'),
    'KUBE-NODE-PORT-LOCAL-TCP': t('TCP node ports of Services with externalTrafficPolicy: Local: KUBE-NODE-PORT returns before masquerading them, so endpoints see the client\'s address (only endpoints on this node are used).'),
    'KUBE-NODE-PORT-UDP': t('UDP node ports, marked for masquerade in KUBE-NODE-PORT.'),
    'KUBE-NODE-PORT-LOCAL-UDP': t('UDP node ports of Services with externalTrafficPolicy: Local: not masqueraded.'),
    'KUBE-NODE-PORT-SCTP-HASH': t('SCTP node ports, as node address + port pairs (a bitmap cannot be used for SCTP here), marked for masquerade.'),
    'KUBE-NODE-PORT-LOCAL-SCTP-HASH': t('SCTP node ports of Services with externalTrafficPolicy: Local, as node address + port pairs: not masqueraded.'),
    'KUBE-HEALTH-CHECK-NODE-PORT': t('Health-check node ports of Services with externalTrafficPolicy: Local: the filter rules accept them so load balancers can probe this node.'),
    'KUBE-IPVS-IPS': t('Every address bound to kube-ipvs0 (ClusterIPs, external and LB IPs). KUBE-IPVS-FILTER rejects traffic to these addresses on ports that are not Services, so it does not reach the node\'s own sockets.'),
  });
  const lines = [
    `**${mdEscape(name)}** — ${t('kube-proxy IPVS-mode set')} (${info.family === 'inet6' ? 'IPv6' : 'IPv4'})`,
    '',
    text[info.base] ?? '',
    '',
    t('kube-proxy creates it as {0}; its comment: "{1}".', code(info.type), mdEscape(info.comment)),
  ];
  if (info.family === 'inet6') lines.push('', t('IPv6 sets are named KUBE-6-… (cut to 31 characters) so that both families can exist side by side.'));
  return lines.join('\n');
}

/** Hover summary of a set: type, family, options, member count and, for kube-proxy's sets, their meaning. */
export function explainIpset(set: IpSet): string {
  const facts = [code(set.type || '?')];
  if (set.family) facts.push(set.family === 'inet6' ? 'IPv6' : 'IPv4');
  facts.push(set.members.length === 1 ? t('1 member') : t('{0} members', set.members.length));
  if (set.references !== undefined) facts.push(set.references === 1 ? t('1 reference') : t('{0} references', set.references));
  const lines = [`**${mdEscape(set.name)}**`, '', facts.join(' · ')];
  const kube = explainKubeIpset(set.name);
  if (kube) lines.push('', kube.split('\n').slice(2).join('\n'));
  if (set.type) lines.push('', explainIpsetType(set.type));
  const extras: string[] = [];
  if (set.timeout !== undefined) extras.push(t('members expire after {0} s by default', set.timeout));
  if (set.counters) extras.push(t('packet and byte counters'));
  if (set.comment) extras.push(t('member comments'));
  if (set.skbinfo) extras.push(t('skbinfo (marks, priorities, queues)'));
  if (set.maxelem !== undefined) extras.push(t('at most {0} members', set.maxelem));
  if (set.range) extras.push(t('range {0}', mdEscape(set.range.text)));
  if (extras.length > 0) lines.push('', extras.join(' · '));
  return lines.join('\n');
}

/** A create option or a field of the `Header:` line. */
export function explainIpsetOption(name: string, value: string | undefined): string {
  const v = value === undefined ? '' : mdEscape(value);
  const text: Record<string, string> = nameTable({
    family: t('family {0}: the set holds {1} addresses.', v, value === 'inet6' ? 'IPv6' : 'IPv4'),
    hashsize: t('hashsize {0}: the initial number of hash buckets; the set grows it as needed.', v),
    maxelem: t('maxelem {0}: the most members the set can hold; adding more fails.', v),
    bucketsize: t('bucketsize {0}: how many members share one bucket before the hash is resized.', v),
    initval: t('initval {0}: the random seed of the hash function (differs between nodes; not meaningful to compare).', v),
    timeout: t('timeout {0}: members expire after {0} seconds unless added with their own timeout (0 = never).', v),
    counters: t('counters: every member counts the packets and bytes that matched it.'),
    comment: t('comment: members can carry a text comment.'),
    skbinfo: t('skbinfo: members can carry a mark, priority and queue that the SET target applies to matching packets.'),
    forceadd: t('forceadd: when the set is full, adding a member evicts a random existing one.'),
    netmask: t('netmask {0}: addresses are stored as their /{0} network.', v),
    markmask: t('markmask {0}: marks are masked with it before they are stored or compared.', v),
    range: t('range {0}: the fixed range a bitmap set covers; members outside it are refused.', v),
    size: t('size {0}: the most member sets a list:set can hold.', v),
  });
  return text[name] ?? t('Option {0}.', mdEscape(name));
}

/** A field of `ipset list` output. */
export function explainIpsetField(key: string): string {
  const text: Record<string, string> = nameTable({
    Name: t('The set name, as iptables rules refer to it (-m set --match-set NAME …).'),
    Type: t('The set type: storage method and what each member holds.'),
    Revision: t('The revision of the kernel set type module (newer revisions add options).'),
    Header: t('The set\'s creation options.'),
    'Size in memory': t('Bytes of kernel memory the set uses.'),
    References: t('How many iptables rules (or list:set sets) use the set right now. A set with references cannot be destroyed; 0 means nothing matches against it.'),
    'Number of entries': t('How many members the set has.'),
    Members: t('The members follow, one per line, until a blank line.'),
  });
  return text[key] ?? key;
}
