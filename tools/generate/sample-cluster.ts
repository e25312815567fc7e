// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// The cluster behind the bundled samples: the API objects of SAMPLE_SERVICES as node1's kube-proxy saw them,
// with a few deliberate, realistic drifts between them and the sample dumps (which stay exactly what
// SAMPLE_SERVICES gives):
//  - shop/web: pod web-…-9 (10.244.3.9) failed its readiness probe, but the rules still send to it
//    (stale-endpoint);
//  - shop/checkout: created in the API, never programmed on node1 (not-programmed);
//  - kube-system/kube-dns: trafficDistribution PreferClose, a third replica in zone-b is left out on node1
//    in zone-a (filtered-by-topology, info);
//  - shop/payments: its only pod is not ready, so kube-proxy rejects (no-endpoints, info);
//  - shop/db: headless, which kube-proxy skips (no finding).
import { PodNamer, type GenCluster, type GenNode, type GenPod, type GenService, type ProxyMode } from './cluster';
import { DRIFT_SEVERITY, infoFindings, joinHostPort, sortFindings, type ExpectedFinding } from './drift';
import { mulberry32 } from './iptables';

export const SAMPLE_NODE = 'node1';

function nodes(nodeIP: string): GenNode[] {
  const zones = ['zone-a', 'zone-a', 'zone-b', 'zone-b'];
  return zones.map((zone, i) => ({
    name: `node${i + 1}`,
    internalIPs: [i === 0 ? nodeIP : `192.168.0.${11 + i}`],
    zone,
    podCIDRs: [`10.244.${i + 1}.0/24`],
  }));
}

type PodSpec = [address: string, ready?: boolean];

function service(
  namer: PodNamer,
  base: Omit<GenService, 'pods' | 'externalIPs' | 'loadBalancerIPs' | 'loadBalancerSourceRanges' | 'externalTrafficPolicy' | 'internalTrafficPolicy'> & Partial<GenService>,
  pods: PodSpec[],
): GenService {
  const rs = namer.replicaSet(base.name);
  return {
    externalIPs: [],
    loadBalancerIPs: [],
    loadBalancerSourceRanges: [],
    externalTrafficPolicy: 'Cluster',
    internalTrafficPolicy: 'Cluster',
    ...base,
    pods: pods.map(([address, ready = true]): GenPod => ({
      name: namer.pod(rs),
      nodeName: `node${address.split('.')[2]}`,
      addresses: [address],
      ready,
      serving: ready,
      terminating: false,
    })),
  };
}

/** The sample cluster for one sample folder: node1 has the address that folder's dump shows. */
export function sampleCluster(mode: ProxyMode, nodeIP: string): GenCluster {
  const n = new PodNamer(mulberry32(29));
  const dns = service(
    n,
    {
      namespace: 'kube-system',
      name: 'kube-dns',
      type: 'ClusterIP',
      clusterIPs: ['10.96.0.10'],
      trafficDistribution: 'PreferClose',
      ports: [
        { name: 'dns', protocol: 'UDP', port: 53, targetPort: 53 },
        { name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: 53 },
      ],
    },
    [['10.244.1.2'], ['10.244.2.3'], ['10.244.3.4']],
  );
  for (const p of dns.pods) p.hints = { forZones: [p.nodeName === 'node3' ? 'zone-b' : 'zone-a'] };
  const services = [
    dns,
    service(n, { namespace: 'shop', name: 'web', type: 'NodePort', clusterIPs: ['10.96.12.40'], ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }] }, [
      ['10.244.1.7'],
      ['10.244.2.8'],
      ['10.244.3.9', false],
    ]),
    service(n, { namespace: 'shop', name: 'cart', type: 'ClusterIP', clusterIPs: ['10.96.12.41'], sessionAffinityTimeout: 10800, ports: [{ name: '', protocol: 'TCP', port: 6379, targetPort: 6379 }] }, [
      ['10.244.2.20'],
      ['10.244.3.21'],
    ]),
    service(n, { namespace: 'shop', name: 'payments', type: 'ClusterIP', clusterIPs: ['10.96.12.42'], ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443 }] }, [['10.244.3.25', false]]),
    service(n, { namespace: 'shop', name: 'checkout', type: 'ClusterIP', clusterIPs: ['10.96.12.43'], ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }] }, [['10.244.2.40'], ['10.244.3.41']]),
    service(n, { namespace: 'shop', name: 'db', type: 'ClusterIP', clusterIPs: ['None'], ports: [{ name: 'postgres', protocol: 'TCP', port: 5432, targetPort: 5432 }] }, [['10.244.4.50']]),
    service(
      n,
      {
        namespace: 'ingress',
        name: 'gateway',
        type: 'LoadBalancer',
        clusterIPs: ['10.96.20.5'],
        loadBalancerIPs: ['203.0.113.10'],
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: 32000,
        ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443, nodePort: 31443 }],
      },
      [['10.244.1.30'], ['10.244.2.31']],
    ),
  ];
  return { services, nodes: nodes(nodeIP), proxy: { mode, clusterCIDR: '10.0.0.0/8' } };
}

/** What a check of a sample folder must report (the same in every mode). */
export function sampleFindings(cluster: GenCluster = sampleCluster('iptables', '192.168.0.10')): ExpectedFinding[] {
  const drift = (code: 'stale-endpoint' | 'not-programmed', name: string, portName: string, endpoint?: string): ExpectedFinding => ({
    code,
    severity: DRIFT_SEVERITY[code],
    service: { namespace: 'shop', name, portName, protocol: 'TCP' },
    ...(endpoint ? { endpoint } : {}),
  });
  return sortFindings([drift('stale-endpoint', 'web', 'http', joinHostPort('10.244.3.9', 8080)), drift('not-programmed', 'checkout', 'http'), ...infoFindings(cluster, SAMPLE_NODE, 'ipv4')]);
}
