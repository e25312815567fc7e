// kube-proxy's iptables chains: what each name means (iptables and IPVS modes).

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
  | 'other-kube';

// A Map: an object would answer for "constructor" or "toString" (and looks up slower with names cut from a line).
const FIXED = new Map<string, KubeChainKind>(Object.entries({
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
} satisfies Record<string, KubeChainKind>));

const HASHED: [string, KubeChainKind][] = [
  ['KUBE-SVC-', 'service'],
  ['KUBE-SVL-', 'service-local'],
  ['KUBE-EXT-', 'external'],
  ['KUBE-FW-', 'firewall'],
  ['KUBE-SEP-', 'endpoint'],
  ['KUBE-XLB-', 'legacy-xlb'],
];

export interface KubeChainInfo {
  kind: KubeChainKind;
  /** The 16-character hash of hashed chains. */
  hash?: string;
}

/** Classifies a chain name; undefined for names kube-proxy does not write. */
export function classifyKubeChain(name: string): KubeChainInfo | undefined {
  // Everything kube-proxy writes starts with KUBE-: most chain names of other tools are answered here.
  if (!name.startsWith('KUBE-')) return undefined;
  const fixed = FIXED.get(name);
  if (fixed) return { kind: fixed };
  for (const [prefix, kind] of HASHED) {
    if (name.startsWith(prefix)) return { kind, hash: name.slice(prefix.length) };
  }
  return { kind: 'other-kube' };
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
