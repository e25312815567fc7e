// The KUBE-* chains of a node's iptables rules: what each name means and who writes it. kube-proxy (iptables and
// IPVS modes) and kubelet write most; kube-router (and k3s' embedded copy of its network policy controller) writes
// KUBE-ROUTER-*, KUBE-NWPLCY-* and KUBE-POD-FW-*. Other KUBE-* names are attributed to no one.

export type KubeChainKind =
  | 'services'
  | 'service'
  | 'service-local'
  | 'external'
  | 'firewall'
  | 'endpoint'
  | 'nodeports'
  | 'mark-masq'
  | 'mark-drop'
  | 'postrouting'
  | 'forward'
  | 'external-services'
  | 'proxy-firewall'
  | 'proxy-canary'
  | 'kubelet-canary'
  | 'kubelet-firewall'
  | 'iptables-hint'
  | 'node-port'
  | 'load-balancer'
  | 'loop-back'
  | 'source-ranges-firewall'
  | 'ipvs-filter'
  | 'ipvs-out-filter'
  | 'legacy-xlb'
  | 'ipvs-lb-firewall'
  | 'userspace-portal'
  | 'hostports'
  | 'hostport'
  | 'kube-router-netpol'
  | 'kube-router-pod-firewall'
  | 'kube-router-policy'
  | 'kube-router-default-policy'
  | 'kube-router-common-policy'
  | 'kube-router-tail-policy'
  | 'kube-router-services'
  | 'kube-router-hairpin'
  | 'kube-router-other'
  | 'other-kube';

/** Who writes a chain of that kind ('unknown': named like Kubernetes components' chains, written by none we know). */
export type KubeChainOwner = 'kube-proxy' | 'kubelet' | 'kube-router' | 'unknown';

// A Map: an object would answer for "constructor" or "toString" (and looks up slower with names cut from a line).
const FIXED = new Map<string, KubeChainKind>(
  Object.entries({
    'KUBE-SERVICES': 'services',
    'KUBE-NODEPORTS': 'nodeports',
    'KUBE-MARK-MASQ': 'mark-masq',
    'KUBE-MARK-DROP': 'mark-drop',
    'KUBE-POSTROUTING': 'postrouting',
    'KUBE-FORWARD': 'forward',
    'KUBE-EXTERNAL-SERVICES': 'external-services',
    'KUBE-PROXY-FIREWALL': 'proxy-firewall',
    'KUBE-PROXY-CANARY': 'proxy-canary',
    'KUBE-KUBELET-CANARY': 'kubelet-canary',
    'KUBE-FIREWALL': 'kubelet-firewall',
    'KUBE-IPTABLES-HINT': 'iptables-hint',
    'KUBE-NODE-PORT': 'node-port',
    'KUBE-LOAD-BALANCER': 'load-balancer',
    'KUBE-LOOP-BACK': 'loop-back',
    'KUBE-SOURCE-RANGES-FIREWALL': 'source-ranges-firewall',
    'KUBE-IPVS-FILTER': 'ipvs-filter',
    'KUBE-IPVS-OUT-FILTER': 'ipvs-out-filter',
    // kube-proxy's userspace mode (removed in 1.26).
    'KUBE-PORTALS-CONTAINER': 'userspace-portal',
    'KUBE-PORTALS-HOST': 'userspace-portal',
    'KUBE-NODEPORT-CONTAINER': 'userspace-portal',
    'KUBE-NODEPORT-HOST': 'userspace-portal',
    // kubelet's hostport manager (kubenet, dockershim; CRI-O keeps a copy of it).
    'KUBE-HOSTPORTS': 'hostports',
    'KUBE-LOCALDEST': 'hostports',
    // kube-router's network policy controller (pkg/controllers/netpol) and service proxy (pkg/controllers/proxy).
    'KUBE-ROUTER-INPUT': 'kube-router-netpol',
    'KUBE-ROUTER-FORWARD': 'kube-router-netpol',
    'KUBE-ROUTER-OUTPUT': 'kube-router-netpol',
    'KUBE-NWPLCY-DEFAULT': 'kube-router-default-policy',
    'KUBE-NWPLCY-COMMON': 'kube-router-common-policy',
    'KUBE-NWPLCY-TAIL': 'kube-router-tail-policy',
    'KUBE-ROUTER-SERVICES': 'kube-router-services',
    'KUBE-ROUTER-HAIRPIN': 'kube-router-hairpin',
  } satisfies Record<string, KubeChainKind>),
);

/** Prefixes of kube-router's per-object chains, after the fixed names above. */
const KUBE_ROUTER_PREFIXES: [string, KubeChainKind][] = [
  ['KUBE-POD-FW-', 'kube-router-pod-firewall'],
  ['KUBE-NWPLCY-', 'kube-router-policy'],
  ['KUBE-ROUTER-', 'kube-router-other'],
];

const HASHED: [string, KubeChainKind][] = [
  ['KUBE-SVC-', 'service'],
  ['KUBE-SVL-', 'service-local'],
  ['KUBE-EXT-', 'external'],
  ['KUBE-FW-', 'firewall'],
  ['KUBE-SEP-', 'endpoint'],
  ['KUBE-XLB-', 'legacy-xlb'],
  ['KUBE-HP-', 'hostport'],
];

export interface KubeChainInfo {
  kind: KubeChainKind;
  /** The 16-character hash of hashed chains. */
  hash?: string;
}

/**
 * Classifies a chain name; undefined for names that do not start with KUBE-. `table` tells the two KUBE-FIREWALL
 * chains apart: kubelet's in the filter table, kube-proxy IPVS mode's load-balancer source ranges in the nat table.
 */
export function classifyKubeChain(name: string, table?: string): KubeChainInfo | undefined {
  // Everything Kubernetes components write starts with KUBE-: most chain names of other tools are answered here.
  if (!name.startsWith('KUBE-')) return undefined;
  const fixed = FIXED.get(name);
  if (fixed) return { kind: fixed === 'kubelet-firewall' && table === 'nat' ? 'ipvs-lb-firewall' : fixed };
  for (const [prefix, kind] of HASHED) {
    if (name.startsWith(prefix)) return { kind, hash: name.slice(prefix.length) };
  }
  for (const [prefix, kind] of KUBE_ROUTER_PREFIXES) if (name.startsWith(prefix)) return { kind };
  return { kind: 'other-kube' };
}

const KUBELET_KINDS: ReadonlySet<KubeChainKind> = new Set(['kubelet-canary', 'kubelet-firewall', 'iptables-hint', 'hostports', 'hostport']);

/** Who writes chains of `kind`. KUBE-MARK-DROP/MASQ and KUBE-POSTROUTING: kube-proxy (older kubelets create them too). */
export function kubeChainOwner(kind: KubeChainKind): KubeChainOwner {
  if (kind === 'other-kube') return 'unknown';
  if (kind.startsWith('kube-router-')) return 'kube-router';
  return KUBELET_KINDS.has(kind) ? 'kubelet' : 'kube-proxy';
}

/** kubelet's own chain (KUBE-KUBELET-CANARY, KUBE-IPTABLES-HINT, the filter table's KUBE-FIREWALL, its hostport chains). */
export function isKubeletChain(name: string, table: string): boolean {
  const info = classifyKubeChain(name, table);
  return info !== undefined && kubeChainOwner(info.kind) === 'kubelet';
}

/**
 * A chain kube-proxy or kubelet writes (what themes colour as Kubernetes' own), not kube-router's nor an unknown
 * KUBE-* name. Asked for every name of a document: it makes no object.
 */
export function isKubernetesNodeChain(name: string): boolean {
  if (!name.startsWith('KUBE-')) return false;
  const fixed = FIXED.get(name);
  // Both KUBE-FIREWALL chains (kubelet's, kube-proxy IPVS mode's) count: the table does not matter here.
  if (fixed) return kubeChainOwner(fixed) !== 'kube-router';
  for (const [prefix] of HASHED) if (name.startsWith(prefix)) return true;
  return false;
}

/** Chains whose suffix is portProtoHash(servicePortName, protocol). */
export function isServiceHashedKind(kind: KubeChainKind): boolean {
  return kind === 'service' || kind === 'service-local' || kind === 'external' || kind === 'firewall' || kind === 'legacy-xlb';
}

/** kube-proxy's session affinity: KUBE-SEP-* lists set in their KUBE-SEP chain and checked with --reap in the Service chain. */
export function isKubeProxyAffinity(name: string, chain: string, command: string | undefined, reap: boolean): boolean {
  if (!name.startsWith('KUBE-SEP-')) return false;
  if (command === '--set') return chain.startsWith('KUBE-SEP-');
  return command === '--rcheck' && reap && /^KUBE-(SVC|SVL|XLB)-/.test(chain);
}
