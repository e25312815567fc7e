// Plain-words explanations of kube-proxy's nftables mode: every chain, set and map kind of its
// `table ip|ip6 kube-proxy`, and the rule idioms it uses. All user-facing text goes through mdT().
import { mdT, text, type Md } from './markdown';
import { classifyNftKubeObject, type NftKubeObjectKind } from '../kube/nft-catalog';

/** One paragraph on how nftables mode works as a whole (hover on the table, the catalog view's header). */
export function explainNftKubeProxyMode(): Md {
  return mdT(
    'kube-proxy in nftables mode keeps everything in its own table, kube-proxy (one for IPv4, one for IPv6). Where iptables mode walks a list of rules — one per Service frontend in KUBE-SERVICES, then 1/n, 1/(n−1), … probability rules per endpoint — nftables mode does one hash lookup: the verdict map service-ips sends "destination address . protocol . port" straight to the Service\'s chain, and numgen random mod N picks an endpoint in one step. The cost of a packet does not grow with the number of Services, and kube-proxy updates single map elements instead of rewriting chains.',
  );
}

/** The explanation for a chain, set or map of kube-proxy's table, by name; undefined for other names. */
export function explainNftKubeObjectName(name: string): Md | undefined {
  const kind = classifyNftKubeObject(name);
  if (!kind) return undefined;
  return kind === 'base-chain' ? explainNftKubeBaseChain(name) : explainNftKubeObject(kind);
}

export function explainNftKubeObject(kind: Exclude<NftKubeObjectKind, 'base-chain'>): Md {
  switch (kind) {
    case 'services':
      return mdT(
        'Service dispatch, entered from nat-prerouting and nat-output. Its first rule looks the packet up in the service-ips verdict map by destination address, protocol and port; its second rule does the same for NodePorts in service-nodeports, for packets addressed to this node. A packet that matches neither leaves untouched.',
      );
    case 'service-ips':
      return mdT(
        'A verdict map from "destination address . protocol . port" to the chain that handles it: the ClusterIP of every Service port goes to its service-… chain (local-… with internalTrafficPolicy: Local), external and load-balancer IPs go to its external-… chain. Keyed by the concatenation ip daddr . meta l4proto . th dport, one hash lookup finds the Service among thousands, where iptables mode compares rule after rule. Note that nothing in the map tells an external IP from a load-balancer IP.',
      );
    case 'service-nodeports':
      return mdT(
        'A verdict map from "protocol . port" to a Service\'s external-… chain: its NodePorts. Looked up only for packets addressed to one of the node\'s own addresses (the nodeport-ips set, or fib daddr type local when NodePorts listen on all addresses).',
      );
    case 'nodeport-ips':
      return mdT("The node addresses that accept NodePort traffic (--nodeport-addresses, by default the node's primary IP). kube-proxy deletes the set when NodePorts listen on every local address.");
    case 'cluster-ips':
      return mdT('Every ClusterIP of a Service port of this IP family, with or without endpoints. cluster-ips-check uses it to reject connections to ports the ClusterIP does not serve.');
    case 'cluster-ips-check':
      return mdT(
        'Guards the Service CIDR (filter-forward and filter-output, new connections only): a packet still addressed to a ClusterIP at this point matched no Service port — the port is wrong — and is rejected; a packet to an unallocated address of the Service CIDR is dropped. Without it such packets would wander off to the default route.',
      );
    case 'no-endpoint-services':
      return mdT(
        'A verdict map for Service frontends that cannot be served, keyed like service-ips and commented with the Service port\'s name: "goto reject-chain" when the Service has no ready endpoints at all (the client gets an ICMP port-unreachable at once instead of a timeout), "drop" when it has endpoints but none on this node for a Local traffic policy.',
      );
    case 'no-endpoint-nodeports':
      return mdT('The same as no-endpoint-services for NodePorts, keyed by "protocol . port": reject when the Service has no endpoints, drop when externalTrafficPolicy: Local finds none on this node.');
    case 'service-endpoints-check':
      return mdT('Looks new connections up in no-endpoint-services (from filter-input, filter-forward and filter-output) and rejects or drops those to Service frontends without usable endpoints.');
    case 'nodeport-endpoints-check':
      return mdT("Looks new connections to this node's NodePort addresses up in no-endpoint-nodeports (from filter-input) and rejects or drops those to NodePorts without usable endpoints.");
    case 'endpoints-check':
      return mdT("Older kube-proxy's single chain for no-endpoint-services and no-endpoint-nodeports; newer versions split it into service-endpoints-check and nodeport-endpoints-check.");
    case 'reject-chain':
      return mdT('A helper that only says "reject" (ICMP port-unreachable). Map elements cannot carry a reject verdict, so no-endpoint-services and no-endpoint-nodeports use "goto reject-chain" instead.');
    case 'firewall-ips':
      return mdT(
        'A verdict map from "load-balancer IP . protocol . port" to the Service\'s firewall-… chain, for Services with loadBalancerSourceRanges. Its elements are also the only place where the dump says that an address is a load balancer rather than an external IP.',
      );
    case 'firewall-check':
      return mdT('Runs before DNAT (filter-prerouting and filter-output at priority dstnat − 10, new connections only), while the destination is still the load-balancer IP, and looks it up in firewall-ips.');
    case 'mark-for-masquerade':
      return mdT('Sets bit 0x4000 of the packet mark (meta mark set meta mark | 0x00004000). Nothing is rewritten yet: the masquerading chain in nat-postrouting masquerades every packet that leaves with the bit set.');
    case 'masquerading':
      return mdT(
        'Runs in nat-postrouting: packets without mark bit 0x4000 return untouched; marked packets get the bit cleared again and are masqueraded (fully-random source ports), so the endpoint sees the node as the client and its replies come back through this node to be un-NATed.',
      );
    case 'service':
      return mdT(
        "One Service port's load balancer (Cluster traffic policy). It first marks packets from outside the cluster CIDR for masquerade, then — with session affinity — sends clients found in an endpoint's affinity set back to that endpoint, and finally picks one endpoint chain with numgen random mod N: each of the N endpoints gets 1/N of new connections.",
      );
    case 'local':
      return mdT(
        "The Service port's load balancer over the endpoints on this node only (traffic policy Local): used by external traffic with externalTrafficPolicy: Local, which keeps the client's source address, and by all ClusterIP traffic with internalTrafficPolicy: Local.",
      );
    case 'external':
      return mdT(
        'Entry for NodePort, external-IP and load-balancer traffic. With externalTrafficPolicy: Cluster it marks the packet for masquerade and goes to service-…. With Local, traffic from pods and from the node itself still goes to service-… (short-circuit rules); everything else goes to local-…, and is dropped through no-endpoint-services when this node has no endpoint.',
      );
    case 'firewall':
      return mdT('Applies loadBalancerSourceRanges: packets to the load-balancer IP whose source is not in the listed ranges are dropped; the rest continue to DNAT as usual.');
    case 'endpoint':
      return mdT(
        "One endpoint (a pod) of a Service port. It marks hairpin traffic — the pod reaching itself through its own Service — for masquerade, records the client in the endpoint's affinity set when the Service has session affinity, and DNATs the connection to the pod's address and port.",
      );
    case 'affinity':
      return mdT(
        'Session affinity (sessionAffinity: ClientIP) for one endpoint: a dynamic set of client addresses with a timeout (timeoutSeconds, 3h by default). The endpoint chain adds or refreshes the client ("update @… { ip saddr }") on every new connection; the Service chain sends clients found in the set straight back to this endpoint. Empty in a saved dump unless it was taken from a live node.',
      );
  }
}

/** kube-proxy's base chains, by name (the names and priorities changed over versions). */
export function explainNftKubeBaseChain(name: string): Md {
  switch (name) {
    case 'filter-prerouting':
    case 'filter-prerouting-pre-dnat':
      return mdT('Base chain on the prerouting hook at priority dstnat − 10 (−110), just before DNAT: new connections go through firewall-check while their destination is still the load-balancer IP.');
    case 'filter-output-pre-dnat':
      return mdT('Base chain on the output hook at priority −110, before DNAT: new connections from this node go through firewall-check while their destination is still the load-balancer IP.');
    case 'filter-input':
      return mdT('Base chain on the input hook: new connections to this node go through nodeport-endpoints-check and service-endpoints-check, which reject or drop traffic to frontends without usable endpoints.');
    case 'filter-forward':
      return mdT(
        'Base chain on the forward hook: new forwarded connections go through service-endpoints-check (frontends without endpoints) and cluster-ips-check (wrong ports and unallocated addresses of the Service CIDR).',
      );
    case 'filter-output':
      return mdT('Base chain on the output hook: new connections from this node go through service-endpoints-check and cluster-ips-check (and, in older layouts at priority −110, firewall-check).');
    case 'filter-output-post-dnat':
      return mdT('Base chain on the output hook at priority −90, just after DNAT (older layout): new connections from this node go through cluster-ips-check, so only packets that DNAT did not rewrite are checked.');
    case 'nat-prerouting':
      return mdT('Base nat chain on the prerouting hook at priority dstnat (−100): every packet arriving from outside the node or from a pod jumps to services, where DNAT to an endpoint happens.');
    case 'nat-output':
      return mdT('Base nat chain on the output hook at priority −100: packets sent by processes on this node jump to services too, so Services work from the node itself.');
    case 'nat-postrouting':
      return mdT('Base nat chain on the postrouting hook at priority srcnat (100): jumps to masquerading, which SNATs packets marked 0x4000.');
    default:
      return mdT("A base chain of kube-proxy's table, attached to a netfilter hook.");
  }
}

export function nftKubeObjectTitle(name: string): Md | undefined {
  const kind = classifyNftKubeObject(name);
  switch (kind) {
    case undefined:
      return undefined;
    case 'base-chain':
      return mdT('kube-proxy base chain');
    case 'services':
      return mdT('Service dispatch');
    case 'service-ips':
      return mdT('Service frontends (verdict map)');
    case 'service-nodeports':
      return mdT('NodePorts (verdict map)');
    case 'nodeport-ips':
      return mdT('NodePort addresses');
    case 'cluster-ips':
      return mdT('Active ClusterIPs');
    case 'cluster-ips-check':
      return mdT('ClusterIP guard');
    case 'no-endpoint-services':
      return mdT('Frontends without endpoints (verdict map)');
    case 'no-endpoint-nodeports':
      return mdT('NodePorts without endpoints (verdict map)');
    case 'service-endpoints-check':
    case 'nodeport-endpoints-check':
    case 'endpoints-check':
      return mdT('Reject or drop without endpoints');
    case 'reject-chain':
      return mdT('Reject helper');
    case 'firewall-ips':
      return mdT('Load balancers with source ranges (verdict map)');
    case 'firewall-check':
      return mdT('Load-balancer source ranges check');
    case 'mark-for-masquerade':
      return mdT('Mark for masquerade');
    case 'masquerading':
      return mdT('Masquerade marked packets');
    case 'service':
      return mdT('Service load balancer');
    case 'local':
      return mdT('Service load balancer, local endpoints');
    case 'external':
      return mdT('External traffic entry');
    case 'firewall':
      return mdT('Load-balancer source ranges');
    case 'endpoint':
      return mdT('Service endpoint');
    case 'affinity':
      return mdT('Session affinity set');
  }
}

export type NftKubeIdiom = 'vmap-by-destination' | 'numgen' | 'affinity-lookup' | 'affinity-update' | 'mark-masq' | 'masq-off-cluster' | 'hairpin' | 'dnat' | 'fib-local' | 'ct-state-new';

/** Explanations of the statements kube-proxy writes (for hovers on a rule and for trace steps). */
export function explainNftKubeIdiom(idiom: NftKubeIdiom, n?: number): Md {
  switch (idiom) {
    case 'vmap-by-destination':
      return mdT(
        'Looks up the concatenation of destination address, layer-4 protocol and destination port in a verdict map and continues with the verdict stored there (usually "goto <chain>"). A miss does nothing and the next rule runs.',
      );
    case 'numgen':
      return n !== undefined && n > 0
        ? mdT(
            'Draws a random number from 0 to {0} for each new connection and jumps to the endpoint chain stored for it: each of the {1} endpoints gets 1/{1} of new connections ({2}). Later packets of the connection follow conntrack, not this rule.',
            n - 1,
            n,
            text(`${Number((100 / n).toFixed(2))}%`),
          )
        : mdT(
            'Draws a random number 0 … N−1 for each new connection and jumps to the endpoint chain stored for it: each endpoint gets 1/N of new connections. Later packets of the connection follow conntrack, not this rule.',
          );
    case 'affinity-lookup':
      return mdT("Session affinity: a client whose address is still in this endpoint's affinity set (it connected before and the timeout has not run out) goes to the same endpoint again, skipping the random choice.");
    case 'affinity-update':
      return mdT("Session affinity: adds the client's address to this endpoint's affinity set, or restarts its timeout.");
    case 'mark-masq':
      return mdT("Jumps to mark-for-masquerade: the packet will be masqueraded (SNATed to the node's address) when it leaves the node.");
    case 'masq-off-cluster':
      return mdT('Marks packets for masquerade whose source is outside the cluster CIDR: such clients reach the ClusterIP through this node, and the reply must come back through it.');
    case 'hairpin':
      return mdT('Hairpin: a pod reaching itself through its own Service. Masquerading makes the reply go back through the node, so the pod does not answer itself directly with the wrong addresses.');
    case 'dnat':
      return mdT("Destination NAT to the endpoint: the connection is rewritten to the pod's address and port (conntrack undoes it on the replies).");
    case 'fib-local':
      return mdT('True when the source address belongs to this node (a process on the node, not a pod or a remote client).');
    case 'ct-state-new':
      return mdT('Only the first packet of a connection is checked; packets of established connections pass without a lookup.');
  }
}
