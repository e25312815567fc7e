// Without an ipset dump, what kube-proxy's own IPVS-mode sets hold for a packet follows, for most of them, from the
// IPVS table it programs from the same Services (pkg/proxy/ipvs/proxier.go adds each ClusterIP:port to KUBE-CLUSTER-IP
// as it creates its virtual service, each NodePort to KUBE-NODE-PORT-<PROTO>, each kube-ipvs0 address to
// KUBE-IPVS-IPS, each local endpoint to KUBE-LOOP-BACK). What the table cannot tell (traffic policies, source
// ranges, health check ports, the kind of an address the catalog only guesses) stays a condition of the trace.
import type { FrontendKind, Service } from '../kube/service';
import { t } from '../l10n';
import { addressText, formatAddress, type Address } from '../model/address';

export interface InferredIpsets {
  /** protocol|address|port of every frontend, with its kinds. */
  frontends: Map<string, FrontendKind[]>;
  /** protocol|port of the NodePorts. */
  nodePorts: Set<string>;
  /** Addresses kube-proxy binds on kube-ipvs0 (every frontend address but the node's own, NodePorts'). */
  ipvsAddresses: Set<string>;
  /** protocol|address|port of every endpoint. */
  endpoints: Set<string>;
}

/** The memberships the Services of an IPVS catalog imply. */
export function inferIpsets(services: readonly Service[]): InferredIpsets {
  const inferred: InferredIpsets = { frontends: new Map(), nodePorts: new Set(), ipvsAddresses: new Set(), endpoints: new Set() };
  for (const s of services) {
    for (const f of s.frontends) {
      const address = f.address === undefined ? undefined : addressText(f.address);
      if (f.kind === 'nodePort') inferred.nodePorts.add(`${s.protocol}|${f.port}`);
      if (address === undefined) continue;
      const k = `${s.protocol}|${address}|${f.port}`;
      inferred.frontends.set(k, [...(inferred.frontends.get(k) ?? []), f.kind]);
      if (f.kind !== 'nodePort') inferred.ipvsAddresses.add(address);
    }
    for (const e of s.endpoints) {
      const address = addressText(e.address);
      if (address !== undefined) inferred.endpoints.add(`${s.protocol}|${address}|${e.port}`);
    }
  }
  return inferred;
}

export interface SetPacket {
  src: Address;
  dst: Address;
  dport: number;
  protocol: string;
}

/** The kind a kube-proxy hash:ip,port set of frontends lists (by its name without KUBE-/KUBE-6-). */
const FRONTEND_SETS: Record<string, FrontendKind> = { 'CLUSTER-IP': 'clusterIP', 'LOAD-BALANCER': 'loadBalancer', 'EXTERNAL-IP': 'externalIP', 'NODE-PORT-SCTP-HASH': 'nodePort' };

/**
 * Whether kube-proxy's set `name`, matched with `flags` as kube-proxy matches it, holds the packet, as the IPVS table
 * implies; undefined for a set (or a way of matching it) the table says nothing about.
 */
export function inferredMember(inferred: InferredIpsets, name: string, flags: string, p: SetPacket): boolean | undefined {
  const base = /^KUBE-(?:6-)?(.+)$/.exec(name)?.[1];
  if (base === undefined) return undefined;
  const dst = formatAddress(p.dst);
  const kind = FRONTEND_SETS[base];
  if (kind !== undefined && flags === 'dst,dst') {
    if (base === 'NODE-PORT-SCTP-HASH' && p.protocol !== 'sctp') return false;
    return inferred.frontends.get(`${p.protocol}|${dst}|${p.dport}`)?.includes(kind) ?? false;
  }
  const nodePort = /^NODE-PORT-(TCP|UDP)$/.exec(base)?.[1];
  // A bitmap:port set: kube-proxy's rule tests the protocol (-p tcp) before it.
  if (nodePort !== undefined && flags === 'dst') return inferred.nodePorts.has(`${nodePort.toLowerCase()}|${p.dport}`);
  if (base === 'IPVS-IPS' && flags === 'dst') return inferred.ipvsAddresses.has(dst);
  // Hairpin: an endpoint reaching itself through its Service (KUBE-LOOP-BACK lists endpointIP,proto:port,endpointIP).
  if (base === 'LOOP-BACK' && flags === 'dst,dst,src') return formatAddress(p.src) === dst && inferred.endpoints.has(`${p.protocol}|${dst}|${p.dport}`);
  return undefined;
}

/** What the trace says once when it inferred memberships. */
export function inferredNote(): string {
  return t(
    "No ipset dump: membership of kube-proxy's ipsets was inferred from the IPVS virtual services, whose kinds are guesses (the same NodePort-range port on several node addresses or on loopback: a NodePort, in KUBE-NODE-PORT-*; any other: a ClusterIP, in KUBE-CLUSTER-IP); the sets they cannot tell stay conditions. Save `ipset save` beside the dumps to read them.",
  );
}
