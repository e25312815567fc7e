// Plain-words explanations (Markdown) of IPVS and ipset for hovers and, later, trace steps: schedulers,
// forwarding methods, persistence, scheduler flags, ipvsadm's columns, ipset set types and the sets
// kube-proxy creates in IPVS mode. Everything taken from a dump is escaped: dumps are untrusted input.
import { kubeIpsetInfo, type IpSet } from '../model/ipset';
import type { IpvsFamily, IpvsFormat, IpvsForward, Persistence } from '../model/ipvs';
import { bold, code, join, md, mdT, text, type Md } from './markdown';
import { nameTable } from '../model/name-table';

export function schedulerTitle(name: string): Md {
  const titles: Record<string, Md> = nameTable({
    rr: mdT('Round robin'),
    wrr: mdT('Weighted round robin'),
    lc: mdT('Least connection'),
    wlc: mdT('Weighted least connection'),
    lblc: mdT('Locality-based least connection'),
    lblcr: mdT('Locality-based least connection with replication'),
    dh: mdT('Destination hashing'),
    sh: mdT('Source hashing'),
    sed: mdT('Shortest expected delay'),
    nq: mdT('Never queue'),
    mh: mdT('Maglev hashing'),
    fo: mdT('Weighted failover'),
    ovf: mdT('Weighted overflow'),
    twos: mdT('Weighted random twos choice'),
  });
  return titles[name] ?? mdT('Unknown scheduler');
}

/** What a scheduler does with a new connection, in plain words. */
export function explainScheduler(name: string): Md {
  const known: Record<string, Md> = nameTable({
    rr: mdT(
      'Each new connection goes to the next real server in turn. Weights are ignored, except that a server with weight 0 gets nothing: with n servers each gets 1/n of new connections. kube-proxy uses rr unless told otherwise.',
    ),
    wrr: mdT('Like round robin, but a server with weight w gets w turns per round: its share of new connections is its weight divided by the sum of all weights.'),
    lc: mdT(
      'A new connection goes to the real server with the fewest connections (active ones count 256 times as much as inactive ones). Weights are ignored except 0. Which server that is depends on the live connection counts, not on this dump.',
    ),
    wlc: mdT(
      "A new connection goes to the real server with the smallest connections-to-weight ratio (active connections count 256 times as much as inactive ones). ipvsadm's default. The choice depends on the live connection counts.",
    ),
    lblc: mdT(
      'For cache clusters: connections to the same destination address go to the same real server as long as it is not overloaded; otherwise to the least-loaded one. Depends on the destination address and live load.',
    ),
    lblcr: mdT('Like lblc, but a destination address maps to a set of real servers, and the least loaded one in the set is chosen. Depends on the destination address and live load.'),
    dh: mdT('A static hash of the destination address picks the real server: the same destination always reaches the same server.'),
    sh: mdT(
      'A static hash of the client (source) address picks the real server: the same client always reaches the same server while the server set stays the same. Across many clients the spread roughly follows the weights.',
    ),
    sed: mdT('A new connection goes to the real server with the shortest expected delay, (active connections + 1) / weight. Depends on the live connection counts.'),
    nq: mdT('A new connection goes to an idle real server (no active connections) if there is one, otherwise as with sed. Depends on the live connection counts.'),
    mh: mdT('Maglev consistent hashing of the client (source) address: the same client reaches the same server, and adding or removing a server moves only a small part of the clients. The spread follows the weights.'),
    fo: mdT('All new connections go to the available real server with the highest weight; the others are standby.'),
    ovf: mdT('New connections go to the real server with the highest weight until its active connections exceed its weight, then to the next one.'),
    twos: mdT('Two real servers are picked at random (in proportion to their weights) and the one with fewer connections wins.'),
  });
  const explained = known[name] ?? mdT('The kernel has no IPVS scheduler of this name; ipvsadm -R would fail to create the service.');
  return LEAST_CONNECTION.has(name) ? md`${explained}\n\n${kubernetesLeastConnectionNote()}` : explained;
}

const LEAST_CONNECTION = new Set(['lc', 'wlc', 'sed', 'nq', 'lblc', 'lblcr']);

/** Why connection-count schedulers are less clever under kube-proxy than they sound. */
export function kubernetesLeastConnectionNote(): Md {
  return mdT(
    'In Kubernetes every node runs its own IPVS and counts only the connections it balanced itself: "least connections" is per node. A pod busy with connections from other nodes looks idle here, so with many nodes the choice is close to random; long-lived connections make it worse.',
  );
}

/** The status of kube-proxy's IPVS mode in Kubernetes. */
export function ipvsModeStatusNote(): Md {
  return mdT(
    "kube-proxy's IPVS mode is deprecated since Kubernetes 1.35: the IPVS model cannot express all Service semantics and still needs iptables (masquerade, filtering, NodePorts) beside it. nftables mode is the way forward.",
  );
}

/** How the scheduler's choice can be predicted from this dump. */
export function schedulerPredictability(name: string | undefined): Md {
  if (name === 'rr' || name === 'wrr') return mdT('Shares of new connections follow from the weights alone.');
  if (name === 'sh' || name === 'mh') return mdT("Each client address always lands on the same real server; which one depends on the client's address.");
  if (name === 'dh') return mdT('Each destination address always lands on the same real server.');
  if (name === 'fo') return mdT('The available server with the highest weight takes all new connections.');
  if (name === 'lc' || name === 'wlc' || name === 'sed' || name === 'nq' || name === 'lblc' || name === 'lblcr' || name === 'ovf' || name === 'twos') {
    return mdT('The choice depends on live connection counts; the counts in this dump are a snapshot.');
  }
  return md``;
}

export function explainForward(forward: IpvsForward, localNode?: boolean): Md {
  if (localNode) {
    return join([bold(mdT('Local')), md``, mdT('The real server is an address of this host itself: the connection is delivered to a local socket, without forwarding.')]);
  }
  switch (forward) {
    case 'masq':
      return forwardMethod(
        mdT('Masquerading (NAT)'),
        '-m',
        mdT(
          "IPVS rewrites the destination address and port to the real server's (DNAT) and sends the packet on. Replies must come back through this host to be rewritten back, so the real server's route to the client goes through here. The only method that can change the port. kube-proxy always uses it.",
        ),
      );
    case 'route':
      return forwardMethod(
        mdT('Direct routing (gatewaying)'),
        '-g',
        mdT(
          "The packet is sent unchanged to the real server's MAC address; the real server must own the virtual address (on a loopback or dummy interface) and answers the client directly. It must be on the same layer-2 network, and the port cannot change.",
        ),
      );
    case 'tunnel':
      return forwardMethod(
        mdT('Tunnelling'),
        '-i',
        mdT(
          'The packet is encapsulated (IP-in-IP, or GUE/GRE) and sent to the real server, which decapsulates it, must own the virtual address and answers the client directly. The real server can be on another network; the port cannot change.',
        ),
      );
  }
}

/** One forwarding method: its name in bold and its ipvsadm flag, then what it does. */
function forwardMethod(title: Md, flag: string, what: Md): Md {
  return join([md`${bold(title)} — ${code(flag)}`, md``, what]);
}

export function explainWeight(weight: number): Md {
  if (weight === 0) {
    return mdT(
      'Weight 0: the real server takes no new connections, but its existing connections (and persistence templates) go on. kube-proxy sets weight 0 on endpoints that are terminating and removes them once their connections are gone.',
    );
  }
  return mdT("Weight {0}: the real server's relative capacity. Weighted schedulers (wrr, wlc, sed, nq, sh, mh …) give it new connections in proportion to its weight; rr and lc only care whether it is 0.", weight);
}

export function explainPersistence(p: Persistence, family: IpvsFamily): Md {
  const lines = [md`${bold(mdT('Persistence'))} — ${code(`persistent ${p.timeout}`)}`, md``];
  lines.push(
    mdT(
      "All connections from one client address go to the same real server. IPVS keeps a persistence template per client; it lives {0} seconds after the client's last connection ends, and new connections from the client follow it instead of the scheduler. kube-proxy writes this for Services with sessionAffinity: ClientIP (timeoutSeconds, default 10800 = 3 hours).",
      p.timeout,
    ),
  );
  if (p.netmask !== undefined) {
    const all = p.netmask === '0.0.0.0' || p.netmask === '0';
    lines.push(
      md``,
      all
        ? mdT('mask {0}: every client address falls into the same group, so all clients share one template and go to one real server.', text(p.netmask))
        : family === 'ipv6'
          ? mdT('mask {0}: clients in the same /{0} network share a template.', text(p.netmask))
          : mdT('mask {0}: clients in the same network under this netmask share a template.', text(p.netmask)),
    );
  }
  if (p.engine) lines.push(md``, mdT('Persistence engine {0}: the template is keyed by protocol data (for sip, the Call-ID) instead of the client address.', code(p.engine)));
  return join(lines);
}

export function explainSchedFlag(flag: string): Md {
  const known: Record<string, Md> = nameTable({
    'sh-fallback': mdT('sh-fallback: when the server the hash picks is unavailable (weight 0 or overloaded), try the next one instead of dropping the connection.'),
    'sh-port': mdT("sh-port: hash the client's source port too, so connections from one client spread over the servers."),
    'mh-fallback': mdT('mh-fallback: when the server the hash picks is unavailable, try the next one instead of dropping the connection.'),
    'mh-port': mdT("mh-port: hash the client's source port too, so connections from one client spread over the servers."),
    'flag-1': mdT('flag-1: scheduler-specific flag 1 (sh-fallback / mh-fallback for the hashing schedulers).'),
    'flag-2': mdT('flag-2: scheduler-specific flag 2 (sh-port / mh-port for the hashing schedulers).'),
    'flag-3': mdT("flag-3: scheduler-specific flag 3 (unused by the kernel's schedulers)."),
    ops: mdT('ops (one-packet scheduling): every UDP datagram is scheduled on its own instead of as part of a connection; no connection entry is kept.'),
    synproxy: mdT('synproxy: the director answers the TCP handshake itself before choosing a real server (a vendor extension, not upstream ipvsadm).'),
  });
  return known[flag] ?? mdT('Unknown flag {0}.', text(flag));
}

export function explainIpvsHeader(kind: 'version' | 'columns' | 'real-server-columns' | 'connections' | 'connection-columns' | 'timeout', format: IpvsFormat | undefined, tableSize?: number): Md {
  switch (kind) {
    case 'version':
      return join([
        bold(mdT('IP Virtual Server')),
        md``,
        mdT(
          "The kernel's IPVS version (1.2.1 in every kernel since 2.6) and the size of its connection hash table ({0} buckets; this is not a limit on connections). IPVS load-balances in the kernel: each virtual service below picks a real server for every new connection.",
          tableSize ?? text('?'),
        ),
        md``,
        ipvsModeStatusNote(),
      ]);
    case 'timeout':
      return mdT('IPVS connection timeouts in seconds: established TCP, TCP after FIN, and UDP.');
    case 'connections':
    case 'connection-columns':
      return mdT('The IPVS connection table (ipvsadm -Lc): one entry per connection (and per persistence template), with the protocol, time to expiry, TCP state, client, virtual service and chosen real server.');
    default:
      return explainColumns(format);
  }
}

export function explainColumns(format: IpvsFormat | undefined): Md {
  switch (format) {
    case 'stats':
      return mdT('ipvsadm --stats: totals since the service was created: connections, packets and bytes in and out. Numbers over 100 million are shortened (K, M, G, T) unless --exact is given.');
    case 'rate':
      return mdT('ipvsadm --rate: per-second rates estimated by the kernel: connections, packets and bytes in and out.');
    case 'thresholds':
      return mdT('ipvsadm --thresholds: the upper and lower connection thresholds of each real server (0 = none): above the upper one a server takes no new connections until it falls below the lower one.');
    case 'persistent-conn':
      return mdT('ipvsadm --persistent-conn: the weight and the number of persistence templates (clients pinned to the server), with the connection counts.');
    case 'tun-info':
      return mdT('ipvsadm --tun-info: the tunnel type and options of tunnelling real servers.');
    default:
      return mdT(
        'Each virtual service line shows protocol, virtual address:port, scheduler and flags; each real server line below it (->) shows its address, forwarding method, weight, ActiveConn (established TCP connections) and InActConn (all other entries: TIME_WAIT, FIN, SYN, UDP).',
      );
  }
}

export function explainConnectionState(state: string): Md {
  const known: Record<string, Md> = nameTable({
    ESTABLISHED: mdT('ESTABLISHED: the TCP connection is open (counted in ActiveConn).'),
    SYN_RECV: mdT("SYN_RECV: the client's SYN was forwarded, the handshake is not complete."),
    SYN_SENT: mdT('SYN_SENT: a SYN was seen from the real server side.'),
    FIN_WAIT: mdT('FIN_WAIT: the connection is closing (counted in InActConn).'),
    TIME_WAIT: mdT('TIME_WAIT: the connection has closed; the entry waits to absorb late packets.'),
    CLOSE: mdT('CLOSE: the connection is closed.'),
    CLOSE_WAIT: mdT('CLOSE_WAIT: one side has closed the connection.'),
    LAST_ACK: mdT('LAST_ACK: waiting for the final ACK.'),
    LISTEN: mdT('LISTEN'),
    SYNACK: mdT('SYNACK: the real server answered the SYN.'),
    UDP: mdT('UDP: a UDP "connection", kept until the UDP timeout expires.'),
    NONE: mdT('NONE: a persistence template (or a fwmark/UDP entry without state): it pins the client to the real server until it expires.'),
    ERR: mdT('ERR: an entry in an error state.'),
  });
  return known[state] ?? mdT('State {0}.', text(state));
}

// ---- ipset --------------------------------------------------------------------------------------------

/** What a set type stores and how a packet is matched against it. */
export function explainIpsetType(type: string): Md {
  const known: Record<string, Md> = nameTable({
    'hash:ip': mdT('hash:ip stores IP addresses (a network given with netmask is stored as its network address).'),
    'hash:net': mdT('hash:net stores networks of any prefix length; the most specific match wins, and nomatch entries carve exceptions out of larger ones.'),
    'hash:ip,port': mdT(
      'hash:ip,port stores address + protocol:port pairs; a rule matches it with two directions, e.g. dst,dst for destination address and port. kube-proxy keeps Service addresses and ports in such sets.',
    ),
    'hash:net,port': mdT('hash:net,port stores network + protocol:port pairs.'),
    'hash:ip,port,ip': mdT('hash:ip,port,ip stores address + protocol:port + a second address, e.g. destination, port and source matched with dst,dst,src.'),
    'hash:ip,port,net': mdT('hash:ip,port,net stores address + protocol:port + a network, e.g. a load balancer address and port with an allowed source range (dst,dst,src).'),
    'hash:net,port,net': mdT('hash:net,port,net stores network + protocol:port + network.'),
    'hash:net,net': mdT('hash:net,net stores pairs of networks.'),
    'hash:net,iface': mdT('hash:net,iface stores network + interface name pairs.'),
    'hash:ip,mark': mdT('hash:ip,mark stores address + packet mark pairs.'),
    'hash:mac': mdT('hash:mac stores MAC addresses.'),
    'hash:ip,mac': mdT('hash:ip,mac stores address + MAC address pairs.'),
    'bitmap:port': mdT('bitmap:port stores port numbers in a fixed range as a bitmap: a lookup is one bit test. The protocol is not stored, so kube-proxy keeps one set per protocol.'),
    'bitmap:ip': mdT('bitmap:ip stores IPv4 addresses (or equal-sized networks) of one fixed range as a bitmap.'),
    'bitmap:ip,mac': mdT('bitmap:ip,mac stores IPv4 addresses of a fixed range, each with an optional MAC address.'),
    'list:set': mdT('list:set is a list of other sets: a packet matches when it matches any member set, tried in order.'),
  });
  return known[type] ?? mdT('Set type {0}.', text(type));
}

/** What kube-proxy does with one of its IPVS-mode sets; undefined for other names. */
export function explainKubeIpset(name: string): Md | undefined {
  const body = kubeIpsetBody(name);
  const info = kubeIpsetInfo(name);
  if (!body || !info) return undefined;
  return join([md`${bold(text(name))} — ${mdT('kube-proxy IPVS-mode set')} (${info.family === 'inet6' ? md`IPv6` : md`IPv4`})`, md``, body]);
}

/** What kube-proxy does with one of its IPVS-mode sets, without the title line. */
function kubeIpsetBody(name: string): Md | undefined {
  const info = kubeIpsetInfo(name);
  if (!info) return undefined;
  const known: Record<string, Md> = nameTable({
    'KUBE-LOOP-BACK': mdT(
      'Hairpin traffic: each member is an endpoint address and port plus the same endpoint address as source. kube-proxy masquerades (KUBE-POSTROUTING, match dst,dst,src) packets of a pod that reaches itself through its Service, so the reply goes back through IPVS instead of straight to the pod.',
    ),
    'KUBE-CLUSTER-IP': mdT(
      'Every Service ClusterIP and port. In KUBE-SERVICES, packets to a member from outside the cluster CIDR (or all of them with masquerade-all) are marked for masquerade; then IPVS load-balances them.',
    ),
    'KUBE-EXTERNAL-IP': mdT('Service external IPs and ports. Traffic to them is marked for masquerade and accepted towards IPVS.'),
    'KUBE-EXTERNAL-IP-LOCAL': mdT("External IPs and ports of Services with externalTrafficPolicy: Local: accepted without masquerade, so the endpoints see the client's address."),
    'KUBE-LOAD-BALANCER': mdT('LoadBalancer ingress IPs and ports. KUBE-SERVICES sends packets to them (dst,dst) to the KUBE-LOAD-BALANCER chain, which marks them for masquerade.'),
    'KUBE-LOAD-BALANCER-LOCAL': mdT("LoadBalancer IPs and ports of Services with externalTrafficPolicy: Local: KUBE-LOAD-BALANCER returns early for them, so they are not masqueraded and keep the client's address."),
    'KUBE-LOAD-BALANCER-FW': mdT('LoadBalancer IPs and ports of Services with loadBalancerSourceRanges: their traffic goes through KUBE-SOURCE-RANGES-FIREWALL, which only lets allowed sources through.'),
    'KUBE-LOAD-BALANCER-SOURCE-IP': mdT('Allowed single source addresses per LoadBalancer IP and port (members: LB address, port, source address). Matching packets (dst,dst,src) pass the source-range firewall.'),
    'KUBE-LOAD-BALANCER-SOURCE-CIDR': mdT(
      'Allowed source ranges per LoadBalancer IP and port (members: LB address, port, source network), from loadBalancerSourceRanges. Matching packets (dst,dst,src) pass the source-range firewall; others are dropped.',
    ),
    'KUBE-NODE-PORT-TCP': mdT("TCP node ports. KUBE-NODE-PORT marks packets to these ports on the node's addresses for masquerade (KUBE-MARK-MASQ)."),
    'KUBE-NODE-PORT-LOCAL-TCP': mdT(
      "TCP node ports of Services with externalTrafficPolicy: Local: KUBE-NODE-PORT returns before masquerading them, so endpoints see the client's address (only endpoints on this node are used).",
    ),
    'KUBE-NODE-PORT-UDP': mdT('UDP node ports, marked for masquerade in KUBE-NODE-PORT.'),
    'KUBE-NODE-PORT-LOCAL-UDP': mdT('UDP node ports of Services with externalTrafficPolicy: Local: not masqueraded.'),
    'KUBE-NODE-PORT-SCTP-HASH': mdT('SCTP node ports, as node address + port pairs (a bitmap cannot be used for SCTP here), marked for masquerade.'),
    'KUBE-NODE-PORT-LOCAL-SCTP-HASH': mdT('SCTP node ports of Services with externalTrafficPolicy: Local, as node address + port pairs: not masqueraded.'),
    'KUBE-HEALTH-CHECK-NODE-PORT': mdT('Health-check node ports of Services with externalTrafficPolicy: Local: the filter rules accept them so load balancers can probe this node.'),
    'KUBE-IPVS-IPS': mdT(
      "Every address bound to kube-ipvs0 (ClusterIPs, external and LB IPs). KUBE-IPVS-FILTER rejects traffic to these addresses on ports that are not Services, so it does not reach the node's own sockets.",
    ),
  });
  const lines = [known[info.base] ?? md``, md``, mdT('kube-proxy creates it as {0}; its comment: "{1}".', code(info.type), text(info.comment))];
  if (info.family === 'inet6') lines.push(md``, mdT('IPv6 sets are named KUBE-6-… (cut to 31 characters) so that both families can exist side by side.'));
  return join(lines);
}

/** Hover summary of a set: type, family, options, member count and, for kube-proxy's sets, their meaning. */
export function explainIpset(set: IpSet): Md {
  const facts = [code(set.type || '?')];
  if (set.family) facts.push(set.family === 'inet6' ? md`IPv6` : md`IPv4`);
  facts.push(set.members.length === 1 ? mdT('1 member') : mdT('{0} members', set.members.length));
  if (set.references !== undefined) facts.push(set.references === 1 ? mdT('1 reference') : mdT('{0} references', set.references));
  const lines = [bold(text(set.name)), md``, join(facts, ' · ')];
  const kube = kubeIpsetBody(set.name);
  if (kube) lines.push(md``, kube);
  if (set.type) lines.push(md``, explainIpsetType(set.type));
  const extras: Md[] = [];
  if (set.timeout !== undefined) extras.push(mdT('members expire after {0} s by default', set.timeout));
  if (set.counters) extras.push(mdT('packet and byte counters'));
  if (set.comment) extras.push(mdT('member comments'));
  if (set.skbinfo) extras.push(mdT('skbinfo (marks, priorities, queues)'));
  if (set.maxelem !== undefined) extras.push(mdT('at most {0} members', set.maxelem));
  if (set.range) extras.push(mdT('range {0}', text(set.range.text)));
  if (extras.length > 0) lines.push(md``, join(extras, ' · '));
  return join(lines);
}

/** A create option or a field of the `Header:` line. */
export function explainIpsetOption(name: string, value: string | undefined): Md {
  const v = text(value ?? '');
  const known: Record<string, Md> = nameTable({
    family: mdT('family {0}: the set holds {1} addresses.', v, value === 'inet6' ? md`IPv6` : md`IPv4`),
    hashsize: mdT('hashsize {0}: the initial number of hash buckets; the set grows it as needed.', v),
    maxelem: mdT('maxelem {0}: the most members the set can hold; adding more fails.', v),
    bucketsize: mdT('bucketsize {0}: how many members share one bucket before the hash is resized.', v),
    initval: mdT('initval {0}: the random seed of the hash function (differs between nodes; not meaningful to compare).', v),
    timeout: mdT('timeout {0}: members expire after {0} seconds unless added with their own timeout (0 = never).', v),
    counters: mdT('counters: every member counts the packets and bytes that matched it.'),
    comment: mdT('comment: members can carry a text comment.'),
    skbinfo: mdT('skbinfo: members can carry a mark, priority and queue that the SET target applies to matching packets.'),
    forceadd: mdT('forceadd: when the set is full, adding a member evicts a random existing one.'),
    netmask: mdT('netmask {0}: addresses are stored as their /{0} network.', v),
    markmask: mdT('markmask {0}: marks are masked with it before they are stored or compared.', v),
    range: mdT('range {0}: the fixed range a bitmap set covers; members outside it are refused.', v),
    size: mdT('size {0}: the most member sets a list:set can hold.', v),
  });
  return known[name] ?? mdT('Option {0}.', text(name));
}

/** A field of `ipset list` output. */
export function explainIpsetField(key: string): Md {
  const known: Record<string, Md> = nameTable({
    Name: mdT('The set name, as iptables rules refer to it (-m set --match-set NAME …).'),
    Type: mdT('The set type: storage method and what each member holds.'),
    Revision: mdT('The revision of the kernel set type module (newer revisions add options).'),
    Header: mdT("The set's creation options."),
    'Size in memory': mdT('Bytes of kernel memory the set uses.'),
    References: mdT('How many iptables rules (or list:set sets) use the set right now. A set with references cannot be destroyed; 0 means nothing matches against it.'),
    'Number of entries': mdT('How many members the set has.'),
    Members: mdT('The members follow, one per line, until a blank line.'),
  });
  return known[key] ?? key;
}
