// No KUBE-* chain is attributed to kube-proxy without a reason: kubelet's, kube-router's (and k3s' embedded copy of its
// network policy controller) and unknown KUBE-* names are told apart, and the nat table's KUBE-FIREWALL of IPVS mode
// is kube-proxy's load-balancer source-range chain, not kubelet's localhost protection of the filter table.
//
// Sources: kube-proxy's pkg/proxy/ipvs/proxier.go (nat KUBE-FIREWALL: `-A KUBE-LOAD-BALANCER -m set --match-set
// KUBE-LOAD-BALANCER-FW dst,dst -j KUBE-FIREWALL`, `-A KUBE-FIREWALL -m set --match-set KUBE-LOAD-BALANCER-SOURCE-CIDR
// dst,dst,src -j RETURN`, `-A KUBE-FIREWALL -j KUBE-MARK-DROP`, as public IPVS-node dumps show), kubelet's
// pkg/kubelet/kubelet_network_linux.go (KUBE-FIREWALL, KUBE-KUBELET-CANARY, KUBE-IPTABLES-HINT), kube-router's
// kubelet's hostport manager (pkg/kubelet/dockershim/network/hostport: KUBE-HOSTPORTS, KUBE-LOCALDEST, KUBE-HP-<hash>;
// cri-o's internal/hostport copies it), kube-router's pkg/controllers/netpol/network_policy_controller.go and pkg/controllers/proxy/network_services_controller.go
// (KUBE-ROUTER-INPUT/FORWARD/OUTPUT, KUBE-NWPLCY-DEFAULT/COMMON/TAIL, KUBE-NWPLCY-<hash>, KUBE-POD-FW-<hash>,
// KUBE-ROUTER-SERVICES, KUBE-ROUTER-HAIRPIN), kube-proxy's userspace proxier (KUBE-PORTALS-*, KUBE-NODEPORT-*).
import { describe, expect, it } from 'vitest';
import { classifyKubeChain, isKubeletChain, isKubernetesNodeChain, kubeChainOwner, type KubeChainKind } from '../../src/core/kube/chains';
import { explainKubeChainKind, kubeChainKindTitle, kubeChainOwnerText } from '../../src/core/explain/kube-chains';
import { analyzeIptables, hoverAt } from '../../src/core/language/iptables';

const owner = (name: string, table?: string) => kubeChainOwner(classifyKubeChain(name, table)!.kind);

describe('who writes a KUBE-* chain', () => {
  it.each([
    ['KUBE-SERVICES', 'nat', 'kube-proxy'],
    ['KUBE-SVC-ERIFXISQEP7F7OF4', 'nat', 'kube-proxy'],
    ['KUBE-SEP-ABCDEFGHIJKLMNOP', 'nat', 'kube-proxy'],
    ['KUBE-PROXY-CANARY', 'filter', 'kube-proxy'],
    ['KUBE-FIREWALL', 'nat', 'kube-proxy'],
    ['KUBE-PORTALS-CONTAINER', 'nat', 'kube-proxy'],
    ['KUBE-NODEPORT-HOST', 'nat', 'kube-proxy'],
    ['KUBE-FIREWALL', 'filter', 'kubelet'],
    ['KUBE-KUBELET-CANARY', 'mangle', 'kubelet'],
    ['KUBE-IPTABLES-HINT', 'mangle', 'kubelet'],
    ['KUBE-HOSTPORTS', 'nat', 'kubelet'],
    ['KUBE-HP-4YVONL46AKYWSKS3', 'nat', 'kubelet'],
    ['KUBE-ROUTER-INPUT', 'filter', 'kube-router'],
    ['KUBE-ROUTER-FORWARD', 'filter', 'kube-router'],
    ['KUBE-ROUTER-OUTPUT', 'filter', 'kube-router'],
    ['KUBE-ROUTER-SERVICES', 'filter', 'kube-router'],
    ['KUBE-ROUTER-HAIRPIN', 'nat', 'kube-router'],
    ['KUBE-ROUTER-SOMETHING-NEW', 'filter', 'kube-router'],
    ['KUBE-NWPLCY-DEFAULT', 'filter', 'kube-router'],
    ['KUBE-NWPLCY-COMMON', 'filter', 'kube-router'],
    ['KUBE-NWPLCY-TAIL', 'filter', 'kube-router'],
    ['KUBE-NWPLCY-UUSURKE7ERYHUKLA', 'filter', 'kube-router'],
    ['KUBE-POD-FW-XGO22TARY4W3MYW3', 'filter', 'kube-router'],
    ['KUBE-MY-OWN-CHAIN', 'filter', 'unknown'],
    ['KUBE-', 'filter', 'unknown'],
  ])('%s (%s): %s', (name, table, who) => {
    expect(owner(name, table)).toBe(who);
  });

  it("kubelet's chains by table; semantic colouring only for kube-proxy's and kubelet's", () => {
    expect(isKubeletChain('KUBE-FIREWALL', 'filter')).toBe(true);
    expect(isKubeletChain('KUBE-FIREWALL', 'nat')).toBe(false);
    expect(isKubernetesNodeChain('KUBE-SVC-ERIFXISQEP7F7OF4')).toBe(true);
    expect(isKubernetesNodeChain('KUBE-POD-FW-XGO22TARY4W3MYW3')).toBe(false);
    expect(isKubernetesNodeChain('KUBE-MY-OWN-CHAIN')).toBe(false);
    expect(isKubernetesNodeChain('DOCKER')).toBe(false);
  });
});

// Every kind: a title and an explanation; kube-router's and unknown ones never say kube-proxy wrote them.
const ALL_KINDS = [
  ...new Set(
    [
      'KUBE-SERVICES',
      'KUBE-NODEPORTS',
      'KUBE-MARK-MASQ',
      'KUBE-MARK-DROP',
      'KUBE-POSTROUTING',
      'KUBE-FORWARD',
      'KUBE-EXTERNAL-SERVICES',
      'KUBE-PROXY-FIREWALL',
      'KUBE-PROXY-CANARY',
      'KUBE-KUBELET-CANARY',
      'KUBE-FIREWALL',
      'KUBE-IPTABLES-HINT',
      'KUBE-NODE-PORT',
      'KUBE-LOAD-BALANCER',
      'KUBE-LOOP-BACK',
      'KUBE-SOURCE-RANGES-FIREWALL',
      'KUBE-IPVS-FILTER',
      'KUBE-IPVS-OUT-FILTER',
      'KUBE-SVC-A',
      'KUBE-SVL-A',
      'KUBE-EXT-A',
      'KUBE-FW-A',
      'KUBE-SEP-A',
      'KUBE-XLB-A',
      'KUBE-PORTALS-HOST',
      'KUBE-HOSTPORTS',
      'KUBE-HP-A',
      'KUBE-ROUTER-INPUT',
      'KUBE-POD-FW-A',
      'KUBE-NWPLCY-A',
      'KUBE-NWPLCY-DEFAULT',
      'KUBE-NWPLCY-COMMON',
      'KUBE-NWPLCY-TAIL',
      'KUBE-ROUTER-SERVICES',
      'KUBE-ROUTER-HAIRPIN',
      'KUBE-ROUTER-X',
      'KUBE-X',
    ].map((n) => classifyKubeChain(n, 'filter')!.kind),
  ),
  'ipvs-lb-firewall' as KubeChainKind,
];

describe('every KUBE-* explanation names its writer honestly', () => {
  it.each(ALL_KINDS)('%s', (kind) => {
    expect(String(kubeChainKindTitle(kind)).length).toBeGreaterThan(0);
    const text = String(explainKubeChainKind(kind, 'filter'));
    const who = kubeChainOwner(kind);
    const ownerText = kubeChainOwnerText(kind);
    if (who === 'kube-router') {
      expect(text).toMatch(/kube-router/);
      expect(String(ownerText)).toMatch(/^Written by kube-router/);
    }
    if (who === 'unknown') {
      expect(ownerText).toBeUndefined();
      expect(text).toMatch(/^A chain named like Kubernetes components' chains/);
    }
    if (who === 'kubelet') expect(String(ownerText)).toMatch(/^Written by kubelet( \(or CRI-O\))?, not kube-proxy\.$/);
    if (who === 'kube-proxy') expect(String(ownerText)).toMatch(/^Written by kube-proxy/);
  });
});

// kube-proxy 1.2x in IPVS mode, a LoadBalancer Service with loadBalancerSourceRanges (nat table), and kubelet's
// KUBE-FIREWALL of the same node (filter table).
const IPVS_NODE = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]',
  ':OUTPUT ACCEPT [0:0]',
  ':POSTROUTING ACCEPT [0:0]',
  ':KUBE-FIREWALL - [0:0]',
  ':KUBE-LOAD-BALANCER - [0:0]',
  ':KUBE-MARK-DROP - [0:0]',
  ':KUBE-MARK-MASQ - [0:0]',
  ':KUBE-SERVICES - [0:0]',
  '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
  '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
  '-A KUBE-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port + source cidr for packet filter purpose" -m set --match-set KUBE-LOAD-BALANCER-SOURCE-CIDR dst,dst,src -j RETURN',
  '-A KUBE-FIREWALL -j KUBE-MARK-DROP',
  '-A KUBE-LOAD-BALANCER -m comment --comment "Kubernetes service load balancer ip + port for load balancer with sourceRange" -m set --match-set KUBE-LOAD-BALANCER-FW dst,dst -j KUBE-FIREWALL',
  '-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ',
  '-A KUBE-MARK-DROP -j MARK --set-xmark 0x8000/0x8000',
  '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000',
  '-A KUBE-SERVICES -m comment --comment "Kubernetes service lb portal" -m set --match-set KUBE-LOAD-BALANCER dst,dst -j KUBE-LOAD-BALANCER',
  '-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT',
  'COMMIT',
  '*filter',
  ':INPUT ACCEPT [0:0]',
  ':OUTPUT ACCEPT [0:0]',
  ':KUBE-FIREWALL - [0:0]',
  '-A INPUT -j KUBE-FIREWALL',
  '-A OUTPUT -j KUBE-FIREWALL',
  '-A KUBE-FIREWALL -m comment --comment "kubernetes firewall for dropping marked packets" -m mark --mark 0x8000/0x8000 -j DROP',
  '-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
  'COMMIT',
  '',
].join('\n');

describe('the two KUBE-FIREWALL chains', () => {
  const a = analyzeIptables(IPVS_NODE);
  const lines = IPVS_NODE.split('\n');
  const hover = (line: number) => String(hoverAt(a, { line, character: 3 })?.markdown ?? '');

  it('nat KUBE-FIREWALL (IPVS mode) is the load-balancer source-range chain, on its declaration and on a jump to it', () => {
    const declaration = lines.indexOf(':KUBE-FIREWALL - [0:0]');
    for (const h of [
      hover(declaration),
      String(
        hoverAt(a, {
          line: lines.findIndex((l) => l.endsWith('-j KUBE-FIREWALL') && l.startsWith('-A KUBE-LOAD-BALANCER')),
          character: lines.find((l) => l.endsWith('-j KUBE-FIREWALL') && l.startsWith('-A KUBE-LOAD-BALANCER'))!.length - 3,
        })?.markdown,
      ),
    ]) {
      expect(h).toContain('Load-balancer source ranges (IPVS mode, nat table)');
      expect(h).toContain('Written by kube-proxy.');
      expect(h).not.toContain('Localhost protection');
    }
  });

  it("filter KUBE-FIREWALL is kubelet's localhost protection", () => {
    const declaration = lines.lastIndexOf(':KUBE-FIREWALL - [0:0]');
    const h = hover(declaration);
    expect(h).toContain('Localhost protection');
    expect(h).toContain('Written by kubelet, not kube-proxy.');
  });

  it('an unknown KUBE-* chain gets the neutral explanation', () => {
    const text = ['*filter', ':INPUT ACCEPT [0:0]', ':KUBE-MY-OWN-CHAIN - [0:0]', '-A INPUT -j KUBE-MY-OWN-CHAIN', 'COMMIT', ''].join('\n');
    const h = String(hoverAt(analyzeIptables(text), { line: 2, character: 3 })?.markdown ?? '');
    expect(h).toContain('Chain named like Kubernetes chains');
    expect(h).toContain('not one kube-proxy, kubelet or kube-router writes');
    expect(h).not.toMatch(/Written by/);
  });
});
