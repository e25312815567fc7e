// Plain-words explanations of the KUBE-* chains (kube-proxy's, kubelet's, kube-router's), keyed by chain kind (and
// table where it matters), and who writes them.
import { mdT, type Md } from './markdown';
import { kubeChainOwner, type KubeChainKind } from '../kube/chains';

export function explainKubeChainKind(kind: KubeChainKind, table: string): Md {
  switch (kind) {
    case 'services':
      return table === 'filter'
        ? mdT('kube-proxy rejects connections here to Services that have no endpoints (instead of letting them hang), one rule per ClusterIP and port.')
        : mdT(
            "kube-proxy's entry point for Service traffic (entered from nat PREROUTING and OUTPUT). One rule per Service frontend — ClusterIP, external IP, load-balancer IP — compares destination address and port and jumps to that Service's chain. The last rule sends packets addressed to this node to KUBE-NODEPORTS.",
          );
    case 'service':
      return mdT(
        "One Service port's load balancer for traffic from inside the cluster. It first marks packets from outside the cluster CIDR for masquerade, then picks one endpoint chain (KUBE-SEP-…): with n endpoints rule k matches with probability 1/(n−k+1), so every endpoint receives 1/n of new connections.",
      );
    case 'service-local':
      return mdT(
        "The Service port's load balancer over the endpoints on this node only (traffic policy Local). Used for external traffic with externalTrafficPolicy: Local (client source address preserved) or for all cluster traffic with internalTrafficPolicy: Local.",
      );
    case 'external':
      return mdT(
        "Entry for traffic that reaches the Service from outside the cluster: NodePort, external IP and load-balancer IP. With externalTrafficPolicy: Cluster it marks the packet for masquerade and continues to KUBE-SVC; with Local it keeps the client's address and uses only this node's endpoints (KUBE-SVL), except for pod and node-local traffic, which still goes to all endpoints.",
      );
    case 'firewall':
      return mdT('Applies loadBalancerSourceRanges: only sources in the listed ranges continue to KUBE-EXT; everything else falls through and is dropped by KUBE-PROXY-FIREWALL in the filter table.');
    case 'endpoint':
      return mdT("One endpoint (a pod) of a Service port. It marks hairpin traffic — the pod reaching itself through its own Service — for masquerade, then DNATs the connection to the pod's address and port.");
    case 'nodeports':
      return table === 'filter'
        ? mdT('Accepts traffic to health-check node ports of Services with externalTrafficPolicy: Local, so load balancers can probe this node.')
        : mdT("NodePort frontends: reached from the last rule of KUBE-SERVICES for packets addressed to one of this node's own addresses; one rule per node port jumps to the Service's KUBE-EXT chain.");
    case 'mark-masq':
      return mdT(
        "Sets bit 0x4000 of the packet mark. Nothing is rewritten yet: when the packet leaves the node, KUBE-POSTROUTING masquerades (SNATs to the outgoing interface's address) every packet that carries the bit.",
      );
    case 'mark-drop':
      return mdT('Sets bit 0x8000 of the packet mark; KUBE-FIREWALL drops marked packets. Written by older kube-proxy and kubelet versions.');
    case 'postrouting':
      return mdT(
        'Runs in nat POSTROUTING: packets without mark bit 0x4000 return untouched; marked packets get the bit cleared and are MASQUERADEd, so the endpoint sees the node as the client and replies come back through this node.',
      );
    case 'forward':
      return mdT(
        'filter FORWARD for Service traffic: drops conntrack-INVALID packets, accepts packets marked 0x4000 and packets of established connections, so Service traffic is forwarded even where the FORWARD policy is DROP.',
      );
    case 'external-services':
      return mdT('filter rules for external traffic (NodePort, external and load-balancer IPs): drops or rejects it for Services without (local) endpoints.');
    case 'proxy-firewall':
      return mdT('filter rules that drop load-balancer traffic from sources outside loadBalancerSourceRanges (allowed sources were sent on by KUBE-FW before).');
    case 'proxy-canary':
      return mdT('An empty chain kube-proxy creates so it notices when someone flushes the tables (for example a firewalld restart) and then re-syncs all rules.');
    case 'kubelet-canary':
      return mdT('An empty chain kubelet creates so it notices when someone flushes the tables and then recreates its rules.');
    case 'kubelet-firewall':
      return mdT('Drops packets to 127.0.0.0/8 that do not come from localhost (guarding NodePorts on localhost when route_localnet is on); older versions also drop packets marked 0x8000.');
    case 'iptables-hint':
      return mdT(
        'An empty chain kubelet creates in the mangle table of the iptables backend it uses. kube-proxy and other containerized tools look for it to pick the same backend (iptables-nft or iptables-legacy) as the host, so that all rules end up in one place.',
      );
    case 'node-port':
      return mdT('IPVS mode: matches NodePort traffic through the KUBE-NODE-PORT-* ipsets and marks it for masquerade where needed.');
    case 'load-balancer':
      return mdT('IPVS mode: matches load-balancer IP traffic through the KUBE-LOAD-BALANCER* ipsets, applying source ranges and traffic policy.');
    case 'loop-back':
      return mdT('IPVS mode: masquerades hairpin traffic (a pod reaching itself through its own Service), listed in the KUBE-LOOP-BACK ipset.');
    case 'source-ranges-firewall':
      return mdT('IPVS mode: drops load-balancer traffic whose source is outside loadBalancerSourceRanges (allowed sources are listed in the KUBE-LOAD-BALANCER-SOURCE-* ipsets).');
    case 'ipvs-filter':
      return mdT('IPVS mode: stops traffic to addresses bound on kube-ipvs0 (ClusterIPs, load-balancer IPs) on ports that are no Service, so they do not reach host processes by accident.');
    case 'ipvs-out-filter':
      return mdT('IPVS mode: filters traffic leaving towards kube-ipvs0 addresses that are no Service.');
    case 'legacy-xlb':
      return mdT("Older kube-proxy's chain for externalTrafficPolicy: Local (only this node's endpoints); newer versions use KUBE-EXT and KUBE-SVL instead.");
    case 'ipvs-lb-firewall':
      return mdT(
        "kube-proxy in IPVS mode, nat table: load-balancer traffic of Services with loadBalancerSourceRanges (ipset KUBE-LOAD-BALANCER-FW) comes here; sources in the allowed ranges (ipsets KUBE-LOAD-BALANCER-SOURCE-CIDR and KUBE-LOAD-BALANCER-SOURCE-IP) return, the rest is marked for drop (KUBE-MARK-DROP). Not kubelet's KUBE-FIREWALL of the filter table, which has the same name.",
      );
    case 'userspace-portal':
      return mdT(
        "kube-proxy's userspace mode (removed in Kubernetes 1.26): redirects connections to a Service's ClusterIP (PORTALS) or NodePort (NODEPORT) to a port the kube-proxy process listens on, which relays them to an endpoint. CONTAINER chains see traffic from pods (PREROUTING), HOST chains traffic from the node itself (OUTPUT).",
      );
    case 'hostports':
      return mdT(
        "Pod hostPort mappings of kubelet's hostport manager (kubenet and dockershim, before Kubernetes 1.24; CRI-O writes the same chains): traffic to a node address on a mapped port jumps to that mapping's KUBE-HP-… chain.",
      );
    case 'hostport':
      return mdT("One pod's hostPort mapping (kubelet's hostport manager, or CRI-O): DNATs the node port to the pod's address and port, and marks hairpin traffic for masquerade.");
    default:
      return explainKubeRouterKind(kind);
  }
}

/** kube-router's chains, and KUBE-* names no known component writes. */
function explainKubeRouterKind(kind: KubeChainKind): Md {
  switch (kind) {
    case 'kube-router-netpol':
      return mdT(
        "kube-router's network policy controller (also embedded in k3s), not kube-proxy. Entered from filter INPUT, FORWARD and OUTPUT: sends traffic from and to each pod on this node to that pod's KUBE-POD-FW-… chain and accepts what those chains marked as allowed (mark 0x20000). In INPUT, traffic to the Service IP range and to NodePorts returns first, untouched.",
      );
    case 'kube-router-pod-firewall':
      return mdT(
        "kube-router's firewall for one pod on this node (NetworkPolicy enforcement; also in k3s): accepts established connections, drops invalid ones, lets the node itself reach the pod, runs the NetworkPolicy chains (KUBE-NWPLCY-…) that select the pod, or the default chain where none does, then logs (NFLOG) and rejects what no policy marked as allowed (mark 0x10000).",
      );
    case 'kube-router-policy':
      return mdT(
        "One Kubernetes NetworkPolicy as kube-router enforces it (also in k3s): each rule marks the traffic the policy allows (mark 0x10000; sources and destinations in KUBE-SRC-…/KUBE-DST-… ipsets of pod addresses) and returns to the pod's chain. The name is a hash of the policy's namespace and name.",
      );
    case 'kube-router-default-policy':
      return mdT("kube-router's chain for pods that no NetworkPolicy selects in a direction: it marks their traffic as allowed (mark 0x10000).");
    case 'kube-router-common-policy':
      return mdT("kube-router's rules shared by every pod firewall chain: accepts established connections, drops invalid ones and lets the ICMP messages pods need through.");
    case 'kube-router-tail-policy':
      return mdT(
        "kube-router's closing network policy rules, jumped to at the end of KUBE-ROUTER-INPUT, -FORWARD and -OUTPUT: accepts traffic the pod chains marked as allowed (mark 0x20000) and, with default deny enabled, rejects pod traffic no pod chain has handled yet.",
      );
    case 'kube-router-services':
      return mdT(
        "kube-router's service proxy (IPVS), not kube-proxy: traffic to a Service address (ipset kube-router-service-ips) comes here from filter INPUT; it accepts the ports that are IPVS virtual services and a few ICMP messages and rejects the rest, except to the node's own addresses.",
      );
    case 'kube-router-hairpin':
      return mdT(
        "kube-router's service proxy: a pod that reaches itself through a Service (hairpin) is SNATed to the Service address, so that its reply goes back through IPVS. Entered from nat POSTROUTING for IPVS traffic.",
      );
    case 'kube-router-other':
      return mdT("A chain named like kube-router's (KUBE-ROUTER-…) that this version does not know in detail. Not kube-proxy's.");
    default:
      return mdT("A chain named like Kubernetes components' chains (KUBE-…), but not one kube-proxy, kubelet or kube-router writes as far as this version knows: another tool may have picked the name.");
  }
}

/** Who writes chains of `kind`, in one sentence; undefined when no known component does. */
export function kubeChainOwnerText(kind: KubeChainKind): Md | undefined {
  if (kind === 'mark-masq' || kind === 'mark-drop' || kind === 'postrouting') return mdT('Written by kube-proxy; older kubelet versions create it too.');
  if (kind === 'hostports' || kind === 'hostport') return mdT('Written by kubelet (or CRI-O), not kube-proxy.');
  switch (kubeChainOwner(kind)) {
    case 'kube-proxy':
      return mdT('Written by kube-proxy.');
    case 'kubelet':
      return mdT('Written by kubelet, not kube-proxy.');
    case 'kube-router':
      return mdT('Written by kube-router (or the copy of its network policy controller embedded in k3s), not kube-proxy.');
    case 'unknown':
      return undefined;
  }
}

export function kubeChainKindTitle(kind: KubeChainKind): Md {
  switch (kind) {
    case 'services':
      return mdT('Service dispatch');
    case 'service':
      return mdT('Service load balancer');
    case 'service-local':
      return mdT('Service load balancer, local endpoints');
    case 'external':
      return mdT('External traffic entry');
    case 'firewall':
      return mdT('Load-balancer source ranges');
    case 'endpoint':
      return mdT('Service endpoint');
    case 'nodeports':
      return mdT('NodePorts');
    case 'mark-masq':
      return mdT('Mark for masquerade');
    case 'mark-drop':
      return mdT('Mark for drop');
    case 'postrouting':
      return mdT('Masquerade marked packets');
    case 'forward':
      return mdT('Forwarding of Service traffic');
    case 'external-services':
      return mdT('External traffic without endpoints');
    case 'proxy-firewall':
      return mdT('Load-balancer firewall');
    case 'proxy-canary':
      return mdT('kube-proxy canary');
    case 'kubelet-canary':
      return mdT('kubelet canary');
    case 'kubelet-firewall':
      return mdT('Localhost protection');
    case 'iptables-hint':
      return mdT('iptables backend hint');
    case 'node-port':
      return mdT('NodePorts (IPVS mode)');
    case 'load-balancer':
      return mdT('Load balancers (IPVS mode)');
    case 'loop-back':
      return mdT('Hairpin masquerade (IPVS mode)');
    case 'source-ranges-firewall':
      return mdT('Load-balancer source ranges (IPVS mode)');
    case 'ipvs-filter':
      return mdT('Non-Service ports on Service addresses (IPVS mode)');
    case 'ipvs-out-filter':
      return mdT('Outgoing filter (IPVS mode)');
    case 'legacy-xlb':
      return mdT('Local endpoints (older kube-proxy)');
    case 'ipvs-lb-firewall':
      return mdT('Load-balancer source ranges (IPVS mode, nat table)');
    case 'userspace-portal':
      return mdT('Userspace proxy portal (old kube-proxy)');
    case 'hostports':
      return mdT('Pod hostPorts');
    case 'hostport':
      return mdT('Pod hostPort mapping');
    case 'kube-router-netpol':
      return mdT('kube-router network policy entry');
    case 'kube-router-pod-firewall':
      return mdT('kube-router pod firewall');
    case 'kube-router-policy':
      return mdT('kube-router NetworkPolicy');
    case 'kube-router-default-policy':
      return mdT('kube-router default policy');
    case 'kube-router-common-policy':
      return mdT('kube-router common policy rules');
    case 'kube-router-tail-policy':
      return mdT('kube-router closing policy rules');
    case 'kube-router-services':
      return mdT('kube-router Service address firewall');
    case 'kube-router-hairpin':
      return mdT('kube-router hairpin SNAT');
    case 'kube-router-other':
      return mdT('kube-router chain');
    case 'other-kube':
      return mdT('Chain named like Kubernetes chains');
  }
}
