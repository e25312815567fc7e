// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// The sample node snapshots bundled with the project: the same few Services in every mode, so the same
// question can be asked of each. Generated (never copied): `npm run samples` rewrites samples/.
import { generateIptablesDump, type GenServicePort } from './iptables';
import { generateIpvsSnapshot } from './ipvs';
import { generateNftDump } from './nft';
import { clusterStateFiles } from './cluster-objects';
import type { ProxyMode } from './cluster';
import { SAMPLE_NODE, sampleCluster, sampleFindings } from './sample-cluster';

export const SAMPLE_SERVICES: GenServicePort[] = [
  {
    namespace: 'kube-system',
    name: 'kube-dns',
    portName: 'dns',
    protocol: 'udp',
    clusterIP: '10.96.0.10',
    port: 53,
    endpoints: [
      { address: '10.244.1.2', port: 53, local: true },
      { address: '10.244.2.3', port: 53 },
    ],
  },
  {
    namespace: 'kube-system',
    name: 'kube-dns',
    portName: 'dns-tcp',
    protocol: 'tcp',
    clusterIP: '10.96.0.10',
    port: 53,
    endpoints: [
      { address: '10.244.1.2', port: 53, local: true },
      { address: '10.244.2.3', port: 53 },
    ],
  },
  {
    namespace: 'shop',
    name: 'web',
    portName: 'http',
    protocol: 'tcp',
    clusterIP: '10.96.12.40',
    port: 80,
    nodePort: 30080,
    endpoints: [
      { address: '10.244.1.7', port: 8080, local: true },
      { address: '10.244.2.8', port: 8080 },
      { address: '10.244.3.9', port: 8080 },
    ],
  },
  {
    namespace: 'shop',
    name: 'cart',
    portName: '',
    protocol: 'tcp',
    clusterIP: '10.96.12.41',
    port: 6379,
    sessionAffinityTimeout: 10800,
    endpoints: [
      { address: '10.244.2.20', port: 6379 },
      { address: '10.244.3.21', port: 6379 },
    ],
  },
  {
    namespace: 'shop',
    name: 'payments',
    portName: 'https',
    protocol: 'tcp',
    clusterIP: '10.96.12.42',
    port: 443,
    endpoints: [],
  },
  {
    namespace: 'ingress',
    name: 'gateway',
    portName: 'https',
    protocol: 'tcp',
    clusterIP: '10.96.20.5',
    port: 443,
    nodePort: 31443,
    loadBalancerIPs: ['203.0.113.10'],
    externalTrafficPolicy: 'Local',
    healthCheckNodePort: 32000,
    endpoints: [
      { address: '10.244.1.30', port: 8443, local: true },
      { address: '10.244.2.31', port: 8443 },
    ],
  },
];

const DATE = 'Sun Nov 29 12:00:00 2026';

/** Each folder's mode and node1's address as its dump shows it (the nft generator's default NodePort address). */
const FOLDERS: [folder: string, mode: ProxyMode, nodeIP: string][] = [
  ['nftables', 'nftables', '192.168.0.2'],
  ['ipvs', 'ipvs', '192.168.0.10'],
  ['iptables-nft', 'iptables', '192.168.0.10'],
  ['iptables-legacy', 'iptables', '192.168.0.10'],
];

/** Path (relative to samples/) → content. */
export function sampleFiles(): Record<string, string> {
  const ipvs = generateIpvsSnapshot({ services: SAMPLE_SERVICES, nodeIPs: ['192.168.0.10'], date: DATE });
  const clusters = Object.fromEntries(FOLDERS.map(([folder, mode, ip]) => [`${folder}/cluster-state.yaml`, clusterStateFiles(sampleCluster(mode, ip), 'yaml')['cluster-state.yaml']!]));
  return {
    'README.md': samplesReadme(),
    ...clusters,
    'nftables/node1.nft': generateNftDump({ services: SAMPLE_SERVICES, style: 'nft-list-ruleset' }),
    'ipvs/node1.ipvsadm': ipvs['ipvsadm-list'],
    'ipvs/node1.ipset': ipvs['ipset-save'],
    'ipvs/node1.iptables': ipvs['iptables-save'],
    'iptables-nft/node1.iptables': generateIptablesDump({ services: SAMPLE_SERVICES, style: 'iptables-nft-save', nodeRules: true, date: DATE }),
    'iptables-legacy/node1.iptables': generateIptablesDump({ services: SAMPLE_SERVICES, style: 'iptables-legacy-save', nodeRules: true, date: DATE }),
  };
}

function samplesReadme(): string {
  const findings = sampleFindings().map((f) => {
    const port = `${f.service.namespace}/${f.service.name}:${f.service.portName || '(unnamed)'}/${f.service.protocol}`;
    return `- \`${f.code}\` (${f.severity}) ${port}${f.endpoint ? ` endpoint ${f.endpoint}` : ''}`;
  });
  return [
    '# Sample node snapshots',
    '',
    'Written by `npm run samples` (tools/generate/samples.ts); do not edit by hand. Each folder is one',
    `node (\`${SAMPLE_NODE}\`) of the same small cluster in one kube-proxy mode: nftables, ipvs (ipvsadm + ipset +`,
    'iptables), iptables-nft and iptables-legacy.',
    '',
    'Each folder also holds `cluster-state.yaml`: what `kubectl get services,endpointslices,nodes -A -o yaml`',
    'and `kubectl -n kube-system get configmap kube-proxy -o yaml` print for that cluster. It disagrees with the',
    'dumps on purpose, the way real clusters drift, so that checking a folder against it finds:',
    '',
    ...findings,
    '',
    'In words: pod 10.244.3.9 of shop/web failed its readiness probe but the rules still send to it;',
    'shop/checkout exists in the API but node1 never programmed it; kube-dns prefers close endpoints and its',
    'replica in zone-b is left out on node1 (zone-a); shop/payments has no ready pod, so kube-proxy rejects',
    "its traffic; the headless shop/db is not kube-proxy's business.",
    '',
  ].join('\n');
}
