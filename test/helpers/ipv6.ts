import type { GenServicePort } from '../../tools/generate/iptables';

/** The same Services with IPv6 ClusterIPs and endpoints (and no external, load-balancer or source-range addresses). */
export const ipv6Services = (services: GenServicePort[]): GenServicePort[] =>
  services.map((s, i) => ({
    ...s,
    clusterIP: `fd00:96::${(i + 1).toString(16)}`,
    externalIPs: undefined,
    loadBalancerIPs: undefined,
    loadBalancerSourceRanges: undefined,
    endpoints: s.endpoints.map((e, k) => ({ ...e, address: `fd00:10::${(i * 16 + k + 1).toString(16)}` })),
  }));
