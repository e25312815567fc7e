// Tracing a node snapshot: picks the dumps that decide the packet's fate and fills in what the user
// did not say (source address, node addresses) from what the rules reveal.
import { listingCaveats } from '../kube/listing';
import type { IptablesAnalysis } from '../language/iptables';
import { servicePortNameString, type Service } from '../kube/service';
import { t } from '../l10n';
import { addressText, canonicalAddress, formatAddress, hasLeadingZeroPart, isLoopback, parseAddress, parsePrefix, parseUserAddress } from '../model/address';
import { traceIptables } from './iptables';
import { hostPort } from './engine';
import type { IpvsTraceInput } from './ipvs';
import { traceNft } from './nft';
import { buildIpvsCatalog } from '../kube/ipvs-catalog';
import { inferIpsets } from './ipvs-sets';
import type { IpSet } from '../model/ipset';
import type { NftAnalysis } from '../language/nft';
import type { IpvsadmAnalysis } from '../language/ipvsadm';
import type { IpsetAnalysis } from '../language/ipset';
import type { Entry, NodeIPsOrigin, Outcome, Packet, PacketSource, Protocol, TraceContext, TraceResult } from './types';
import { appendAll } from '../model/append';
import { perAnalyses, type PerAnalyses } from '../model/perAnalyses';

export * from './types';
export { hostPort } from './engine';

export interface SnapshotFile {
  name: string;
  analysis: IptablesAnalysis | NftAnalysis | IpvsadmAnalysis | IpsetAnalysis;
}

export interface TraceRequest {
  to: string;
  dport: number;
  protocol: Protocol;
  from?: string;
  entry: Entry;
  nodeIPs?: string[];
  /** Where nodeIPs come from: the user gave them for this trace (the default) or a setting holds them. */
  nodeIPsOrigin?: 'given' | 'configured';
}

/** `10.96.0.10:53/udp`, `[fd00::10]:53`, `10.96.0.10:80` (tcp by default), as a person types it. */
export function parseDestination(text: string): { address: string; port: number; protocol: Protocol } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:/\s]+)):(\d{1,5})(?:\/(tcp|udp|sctp))?$/i.exec(text.trim());
  if (!m) return undefined;
  const address = m[1] ?? m[2];
  const port = Number(m[3]);
  if (!parseUserAddress(address) || port < 1 || port > 65535) return undefined;
  return { address, port, protocol: (m[4]?.toLowerCase() as Protocol) ?? 'tcp' };
}

/** Whether the address of a destination (as parseDestination reads it) has an IPv4 part with a leading zero. */
export function destinationHasLeadingZero(text: string): boolean {
  return hasLeadingZeroPart(text.trim().replace(/:\d*(?:\/\w*)?$/, ''));
}

/** `compute(files)`, cached per list of analyses (by identity): traces run many times on one parse. */
function perFiles<T>(cache: PerAnalyses<T>, files: SnapshotFile[], compute: (files: SnapshotFile[]) => T, empty: T): T {
  return files.length === 0
    ? empty
    : perAnalyses(
        cache,
        files.map((f) => f.analysis),
        () => compute(files),
      );
}

const servicesCache: PerAnalyses<Service[]> = new WeakMap();

/** The snapshot's Services (an IPVS snapshot's catalog joins three files). */
function allServices(files: SnapshotFile[]): Service[] {
  return perFiles(servicesCache, files, computeServices, []);
}

/** What a trace needs to know about the snapshot's Services, computed once per catalog (one cheap pass). */
interface ServiceFacts {
  nodePorts: Set<number>;
  nodePortAddresses: string[];
  clusterCIDRs: string[];
}

const factsCache = new WeakMap<Service[], ServiceFacts>();

function serviceFacts(services: Service[]): ServiceFacts {
  let facts = factsCache.get(services);
  if (facts) return facts;
  const nodePorts = new Set<number>();
  const cidrs = new Set<string>();
  const nodeAddrs = new Set<string>();
  for (const s of services) {
    for (const f of s.frontends) {
      if (f.kind !== 'nodePort') continue;
      nodePorts.add(f.port);
      if (f.address && addressText(f.address) !== undefined) nodeAddrs.add(f.address);
    }
    if (s.policies.clusterCIDR) cidrs.add(s.policies.clusterCIDR);
  }
  facts = { nodePorts, nodePortAddresses: [...nodeAddrs], clusterCIDRs: [...cidrs] };
  factsCache.set(services, facts);
  return facts;
}

// One address against all frontends: a scan, not a set of addresses built for the first trace of a large dump.
function isFrontendAddress(services: Service[], canonical: string): boolean {
  for (const s of services) for (const f of s.frontends) if (f.address !== undefined && (f.address === canonical || canonicalAddress(f.address) === canonical)) return true;
  return false;
}

function computeServices(files: SnapshotFile[]): Service[] {
  const out: Service[] = [];
  for (const f of files) if (f.analysis.dialect === 'iptables' || f.analysis.dialect === 'nftables') appendAll(out, f.analysis.catalog.services);
  if (ipvsInput(files)?.services.length) out.push(...ipvsServices(files));
  return out;
}

/** The Services of the snapshot's IPVS catalog (built once per snapshot: buildIpvsCatalog caches it). */
function ipvsServices(files: SnapshotFile[]): Service[] {
  return buildIpvsCatalog({
    ipvs: files.flatMap((f, fileIndex) => (f.analysis.dialect === 'ipvsadm' ? [{ dump: f.analysis.dump, fileIndex }] : [])),
    ipsets: files.flatMap((f) => (f.analysis.dialect === 'ipset' ? [f.analysis.dump] : [])),
    iptables: files.flatMap((f) => (f.analysis.dialect === 'iptables' ? [f.analysis.ruleset] : [])),
  }).services;
}

const ipvsInputCache: PerAnalyses<IpvsTraceInput | undefined> = new WeakMap();

/**
 * The IPVS part of a snapshot (virtual services and ipsets), when there is an ipvsadm or ipset dump: the ipsets
 * decide `-m set` matches in every mode (Weave's and Calico's too). One object per snapshot, so the tracer's
 * indexes of it (keyed by its identity) are built once.
 */
function ipvsInput(files: SnapshotFile[]): IpvsTraceInput | undefined {
  return perFiles(ipvsInputCache, files, computeIpvsInput, undefined);
}

function computeIpvsInput(files: SnapshotFile[]): IpvsTraceInput | undefined {
  const services = files.flatMap((f, fileIndex) => (f.analysis.dialect === 'ipvsadm' ? f.analysis.dump.services.map((vs) => ({ vs, fileIndex })) : []));
  const sets = new Map<string, IpSet>();
  for (const f of files) if (f.analysis.dialect === 'ipset') for (const set of f.analysis.dump.sets) if (!sets.has(set.name)) sets.set(set.name, set);
  if (services.length === 0) return sets.size > 0 ? { services, sets } : undefined;
  // Without an ipset dump, kube-proxy's sets are read off its virtual services where they can be.
  const inferred = files.some((f) => f.analysis.dialect === 'ipset') ? undefined : inferIpsets(ipvsServices(files));
  return inferred ? { services, sets, inferred } : { services, sets };
}

/** The source of a packet from outside when none is given (a pod's: podSources; the node's: nodeSource). */
function externalSource(family: 4 | 6): string {
  return family === 4 ? '203.0.113.99' : '2001:db8:ffff::99';
}

/** A stand-in for this node's address when nothing says it (documentation addresses, RFC 5737 / 3849). */
const STAND_IN = { 4: '192.0.2.1', 6: '2001:db8::1' } as const;

/**
 * The source a process on this node gets for `dst`, as the kernel's route lookup picks it: loopback for a loopback
 * destination; the destination itself when it is an address of this node (its local route's source: a node address,
 * or an IPVS virtual service bound on kube-ipvs0); else the node's address (the route's source), or a stand-in.
 */
function nodeSource(files: SnapshotFile[], dst: string, family: 4 | 6, context: TraceContext): { src: string; source: PacketSource } {
  const d = parseAddress(dst);
  if (d && isLoopback(d)) return { src: family === 4 ? '127.0.0.1' : '::1', source: { origin: 'loopback', text: t('Source {0}: the destination is a loopback address.', family === 4 ? '127.0.0.1' : '::1') } };
  const canonical = d ? formatAddress(d) : dst;
  const ipvs = ipvsInput(files);
  const local = context.nodeIPs.some((ip) => canonicalAddress(ip) === canonical) || (ipvs?.services.some(({ vs }) => vs.address !== undefined && canonicalAddress(vs.address) === canonical) ?? false);
  if (local) return { src: canonical, source: { origin: 'local-destination', text: t('Source {0}: the destination is an address of this node, so its local route gives it as the source.', canonical) } };
  const own = context.nodeIPs.find((ip) => {
    const a = parseAddress(ip);
    return a?.family === family && !isLoopback(a);
  });
  if (own === undefined) {
    const src = STAND_IN[family];
    return { src, source: { origin: 'stand-in', text: t("Source {0}: a stand-in for this node's address, which was not given, configured or found in the dumps; masquerade decisions may differ.", src) } };
  }
  const why: Record<NodeIPsOrigin, string> = {
    given: t("Source {0}: this node's address, as given (the route to the destination may pick another of its addresses).", own),
    configured: t("Source {0}: this node's address, from the setting dataplane.nodeIPs (the route to the destination may pick another of its addresses).", own),
    inferred: t("Source {0}: this node's address as inferred from {1} (the route to the destination may pick another of its addresses).", own, context.nodeIPsEvidence ?? '?'),
    unknown: '',
  };
  return { src: own, source: { origin: 'node-address', text: why[context.nodeIPsOrigin ?? 'given'] } };
}

/**
 * Addresses a pod of this node could have, in the order a trace tries them: near the end of the cluster CIDR
 * the rules reveal (pods are given addresses from its start), else a fixed one.
 */
function* podSources(facts: ServiceFacts, family: 4 | 6): Generator<string> {
  const cidr = facts.clusterCIDRs.find((c) => parsePrefix(c)?.family === family);
  const prefix = cidr ? parsePrefix(cidr) : undefined;
  if (prefix) {
    const width = family === 4 ? 32 : 128;
    const size = 1n << BigInt(width - prefix.bits);
    for (let k = 250n; k < 250n + 64n && k < size; k++) yield formatAddress({ family, value: prefix.network + (size > 512n ? size - k : k) });
  }
  yield family === 4 ? '10.0.0.250' : 'fd00::250';
}

/** True when one of the trace's outcomes sends the packet back to where it came from (a hairpin). */
function reachesSource(result: TraceResult, src: string): boolean {
  const source = canonicalAddress(src);
  return result.outcomes.some((o) => o.destination !== undefined && canonicalAddress(destinationHost(o.destination)) === source);
}

/** The address of an `ip:port` / `[ip6]:port` destination. */
function destinationHost(destination: string): string {
  const bracket = /^\[([^\]]+)\]/.exec(destination);
  if (bracket) return bracket[1];
  const colons = destination.split(':').length - 1;
  return colons === 1 ? destination.slice(0, destination.indexOf(':')) : destination;
}

/**
 * Builds what the first trace of a snapshot would otherwise build (the Service facts, the indexes of KUBE-SERVICES
 * and KUBE-NODEPORTS, the Service map's elements, ipset and IPVS indexes: 100–300 ms on a 10,000-Service dump) by
 * tracing one ClusterIP (from a pod and from the node) and one NodePort (from outside), so that the first trace
 * someone asks for answers as fast as the later ones. For idle time after an analysis.
 */
export function prepareTrace(files: SnapshotFile[]): void {
  for (const step of prepareTraceSteps(files)) step();
}

/**
 * prepareTrace as steps (the Service catalog, then each trace: a second or more in all on a 10,000-Service dump),
 * for a caller that lets other work run between them.
 */
export function prepareTraceSteps(files: SnapshotFile[]): (() => void)[] {
  const services = () => allServices(files);
  const protocolOf = (s: Service): Protocol => (s.protocol === 'udp' || s.protocol === 'sctp' ? s.protocol : 'tcp');
  const clusterIP = (x: Service['frontends'][number]) => x.kind === 'clusterIP' && x.address !== undefined && !!parseAddress(x.address);
  // From a pod (PREROUTING) and from the node itself (OUTPUT: IPVS mode's KUBE-IPVS-OUT-FILTER, for one).
  const toClusterIP = (entry: 'pod' | 'node') => () => {
    const cluster = services().find((s) => s.endpoints.length > 0 && s.frontends.some(clusterIP));
    const f = cluster?.frontends.find(clusterIP);
    if (cluster && f) traceSnapshot(files, { to: f.address!, dport: f.port, protocol: protocolOf(cluster), entry });
  };
  // And a NodePort from outside, to one of the node addresses the dumps reveal (else one taken to be the node's):
  // its chains (KUBE-NODEPORTS: one rule per NodePort) are indexed too.
  const toNodePort = () => {
    const nodePort = services().find((s) => s.endpoints.length > 0 && s.frontends.some((x) => x.kind === 'nodePort'));
    const f = nodePort?.frontends.find((x) => x.kind === 'nodePort');
    if (!nodePort || !f) return;
    const node = revealedNodeAddresses(files, services()).addresses[0] ?? '192.0.2.10';
    traceSnapshot(files, { to: node, dport: f.port, protocol: protocolOf(nodePort), entry: 'external', nodeIPs: [node] });
  };
  return [() => void services(), toClusterIP('pod'), toClusterIP('node'), toNodePort];
}

/** The node's addresses the dumps name, with what names them (nft's nodeport-ips set, IPVS NodePort virtual services, …). */
export function revealedNodeAddresses(files: SnapshotFile[], services: Service[]): { addresses: string[]; evidence: string[]; namedBy: Map<string, string> } {
  const revealed = new Map<string, string>();
  const evidence = new Set<string>();
  const add = (address: string, what: string) => {
    if (revealed.has(address)) return;
    revealed.set(address, what);
    evidence.add(what);
  };
  for (const f of files) {
    if (f.analysis.dialect === 'nftables') {
      for (const tb of f.analysis.ruleset.tables) for (const e of tb.setByName.get('nodeport-ips')?.elements ?? []) if (e.key.length === 1 && parseAddress(e.key[0])) add(e.key[0], t('the nft set nodeport-ips'));
    } else if (f.analysis.dialect === 'iptables') {
      for (const address of nodePortJumpAddresses(f.analysis.ruleset)) add(address, t('KUBE-SERVICES rules that send {0} to KUBE-NODEPORTS', address));
    }
  }
  for (const address of serviceFacts(services).nodePortAddresses) add(address, t('the IPVS NodePort virtual services'));
  // Loopback (IPVS NodePorts on 127.0.0.1) is no address to send from: the others first.
  const addresses = [...revealed.keys()].sort((a, b) => Number(isLoopbackText(a)) - Number(isLoopbackText(b)));
  return { addresses, evidence: [...evidence], namedBy: revealed };
}

const isLoopbackText = (address: string): boolean => {
  const a = parseAddress(address);
  return a !== undefined && isLoopback(a);
};

const nodePortJumps = new WeakMap<object, string[]>();

/**
 * kube-proxy with --nodeport-addresses: `-A KUBE-SERVICES -d NODE/32 … -j KUBE-NODEPORTS` (else `--dst-type LOCAL`, no
 * address). Read once per ruleset: KUBE-SERVICES of a large cluster holds a rule per Service port.
 */
function nodePortJumpAddresses(ruleset: IptablesAnalysis['ruleset']): string[] {
  let out = nodePortJumps.get(ruleset);
  if (!out) nodePortJumps.set(ruleset, (out = readNodePortJumps(ruleset)));
  return out;
}

function readNodePortJumps(ruleset: IptablesAnalysis['ruleset']): string[] {
  const out: string[] = [];
  for (const table of ruleset.tables) {
    if (table.name !== 'nat') continue;
    for (const rule of table.chainByName.get('KUBE-SERVICES')?.rules ?? []) {
      if (rule.target?.name !== 'KUBE-NODEPORTS') continue;
      const d = rule.params.find((p) => p.name === '-d' && !p.negated)?.values[0];
      const host = d && /^(.+)\/(32|128)$/.exec(d);
      if (host && parseAddress(host[1])) out.push(host[1]);
    }
  }
  return out;
}

export function traceSnapshot(files: SnapshotFile[], request: TraceRequest): TraceResult {
  let servicesMemo: Service[] | undefined;
  const services = () => (servicesMemo ??= allServices(files));
  const dst = parseAddress(request.to);
  const family = dst?.family ?? 4;
  const warnings: string[] = [];
  let nodeIPs = request.nodeIPs ?? [];
  let origin: NodeIPsOrigin = nodeIPs.length > 0 ? (request.nodeIPsOrigin ?? 'given') : 'unknown';
  let evidence: string | undefined;
  // The node's address was guessed: each front end words how to give it (a CLI flag, a setting).
  let advice = false;
  if (nodeIPs.length === 0) {
    // The dumps may name the node's addresses: nft's nodeport-ips set, IPVS NodePort virtual services.
    const revealed = revealedNodeAddresses(files, services());
    if (revealed.addresses.length > 0) {
      nodeIPs = revealed.addresses;
      origin = 'inferred';
      evidence = revealed.evidence.join('; ');
      warnings.push(t("No node address given: using {0}, which the dumps list as this node's NodePort addresses.", nodeIPs.join(', ')));
    }
  }
  if (nodeIPs.length === 0) {
    // A destination that is no Service address but whose port is a NodePort is taken to be this node.
    const facts = serviceFacts(services());
    // The port first: a scan of every frontend only for a NodePort's port.
    if (facts.nodePorts.has(request.dport) && !isFrontendAddress(services(), dst ? formatAddress(dst) : request.to)) {
      nodeIPs = [request.to];
      origin = 'inferred';
      evidence = t('the destination, whose port {0} is a NodePort', request.dport);
      warnings.push(t('No node address given: {0} is taken to be this node because port {1} is a NodePort.', request.to, request.dport));
      advice = true;
    }
  }
  const context: TraceContext = { nodeIPs, nodeIPsInferred: origin === 'inferred', nodeIPsOrigin: origin };
  if (evidence !== undefined) context.nodeIPsEvidence = evidence;
  const traceFrom = (src: string): TraceResult => tracePacket(files, { src, dst: request.to, protocol: request.protocol, dport: request.dport, entry: request.entry }, context, family, warnings);
  const result = traceFromEntry(files, request, context, family, warnings, traceFrom, services);
  if (result.source?.origin === 'stand-in') advice = true;
  // Only where there are Services to match: a host's own firewall (Docker's, a router's) has none to name.
  const unmatched = services().length > 0 && !result.outcomes.some((o) => o.verdict === 'dnat') && !matchesFrontend(services(), request, nodeIPs);
  if (unmatched) result.warnings = [...result.warnings, t('No Service matches {0}: not translated, routed as is.', destinationText(request))];
  return { ...result, ...(unmatched ? { noService: true } : {}), ...(advice ? { advice: ['node-address' as const] } : {}) };
}

function traceFromEntry(files: SnapshotFile[], request: TraceRequest, context: TraceContext, family: 4 | 6, warnings: string[], traceFrom: (src: string) => TraceResult, services: () => Service[]): TraceResult {
  if (request.from !== undefined) return traceFrom(request.from);
  if (request.entry === 'external') return traceFrom(externalSource(family));
  if (request.entry === 'node') {
    const { src, source } = nodeSource(files, request.to, family, context);
    if (source.origin === 'stand-in') warnings.push(source.text);
    return { ...traceFrom(src), source };
  }
  // A pod that is not one of the Service's endpoints: the first candidate address that no outcome sends the packet
  // back to. Checking the outcomes instead of every endpoint of the dump keeps the first trace of a large dump
  // from reading 100,000 endpoints (docs/performance.md#memory); an endpoint of another Service is a pod like any other here.
  let result: TraceResult | undefined;
  for (const src of podSources(serviceFacts(services()), family)) {
    result = traceFrom(src);
    if (!reachesSource(result, src)) break;
  }
  return result!;
}

/** `10.96.12.99:80`, `[fd00::10]:53/udp`: the destination as the user would type it. */
function destinationText(request: TraceRequest): string {
  return `${hostPort(request.to, request.dport)}${request.protocol === 'tcp' ? '' : `/${request.protocol}`}`;
}

/** Whether a Service owns the destination: a frontend at its address and port, or a NodePort on a node address. */
function matchesFrontend(services: Service[], request: TraceRequest, nodeIPs: string[]): boolean {
  const dst = canonicalAddress(request.to);
  const onNode = nodeIPs.some((ip) => canonicalAddress(ip) === dst);
  for (const s of services) {
    if (s.protocol !== '' && s.protocol.toLowerCase() !== request.protocol) continue;
    for (const f of s.frontends) {
      if (f.port !== request.dport) continue;
      if (f.address !== undefined ? canonicalAddress(f.address) === dst : f.kind === 'nodePort' && onNode) return true;
    }
  }
  return false;
}

/** The packet through the dump that decides its fate: nftables mode's table, else iptables (with IPVS when present). */
function tracePacket(files: SnapshotFile[], packet: Packet, context: TraceContext, family: 4 | 6, warnings: string[]): TraceResult {
  // nftables mode (kube-proxy's nft table) is traced through nft; otherwise iptables (plus IPVS when present).
  const nftCandidates = files
    .map((f, index) => ({ f, index }))
    .filter(({ f }) => f.analysis.dialect === 'nftables' && f.analysis.ruleset.tables.some((tb) => tb.family === 'inet' || tb.family === (family === 4 ? 'ip' : 'ip6')));
  const iptCandidates = files.map((f, index) => ({ f, index })).filter(({ f }) => f.analysis.dialect === 'iptables' && f.analysis.ruleset.tables.some((tb) => tb.family === (family === 4 ? 'ipv4' : 'ipv6')));
  const nftKube = nftCandidates.find(({ f }) => f.analysis.dialect === 'nftables' && f.analysis.catalog.services.length > 0);
  const iptKube = iptCandidates.find(({ f }) => f.analysis.dialect === 'iptables' && f.analysis.catalog.services.length > 0);
  const nft = nftKube ?? (iptCandidates.length === 0 ? nftCandidates[0] : undefined);
  if (nft && !iptKube && nft.f.analysis.dialect === 'nftables') {
    const notes = iptCandidates.length > 0 ? [t('The iptables rules of this node ({0}) also see the packet; only the nftables rules were traced.', iptCandidates[0].f.name)] : [];
    const result = traceNft(nft.f.analysis.ruleset, packet, context, nft.index);
    return { ...result, warnings: [...warnings, ...notes, ...result.warnings] };
  }
  const ipvs = ipvsInput(files);
  const chosen = iptKube ?? iptCandidates[0];
  if (!chosen || chosen.f.analysis.dialect !== 'iptables') {
    const result = traceIptables(emptyRuleset(), packet, context, 0, ipvs);
    return { ...result, warnings: [...warnings, ...result.warnings] };
  }
  const notes = iptCandidates.length > 1 ? [t('Several iptables dumps hold {0} tables; traced {1} only.', family === 4 ? 'IPv4' : 'IPv6', chosen.f.name)] : [];
  notes.push(...listingCaveats(chosen.f.analysis.ruleset));
  const result = traceIptables(chosen.f.analysis.ruleset, packet, context, chosen.index, ipvs);
  return { ...result, warnings: [...warnings, ...notes, ...result.warnings] };
}

function emptyRuleset() {
  return {
    dialect: 'iptables' as const,
    backend: 'unknown' as const,
    family: 'ipv4' as const,
    saves: [],
    tables: [],
    tableById: new Map(),
    headers: [],
    diagnostics: [],
    symbols: undefined as never,
    ruleByLine: new Map(),
    lineCount: 0,
  };
}

/** How many outcomes the CLI and the Trace view show; the others are counted ("N more outcomes"). */
export const SHOWN_OUTCOMES = 32;

/** The outcomes to show (the first `max`: the largest shares under the fewest assumptions) and how many are left out. */
export function shownOutcomes(result: TraceResult, max = SHOWN_OUTCOMES): { shown: Outcome[]; more: number } {
  return { shown: result.outcomes.slice(0, max), more: Math.max(0, result.outcomes.length - max) };
}

/** The JSON of `dataplane trace --json` (CLI contract): at most `max` outcomes, `moreOutcomes` counts the rest. */
export function traceToJson(result: TraceResult, fileNames: string[], max = SHOWN_OUTCOMES): unknown {
  const { shown, more } = shownOutcomes(result, max);
  return {
    packet: { src: result.packet.src, dst: result.packet.dst, protocol: result.packet.protocol, dport: result.packet.dport, entry: result.packet.entry },
    outcomes: shown.map((o) => {
      const out: Record<string, unknown> = { verdict: o.verdict };
      if (o.destination) out.destination = o.destination;
      out.probability = Number(o.probability.toPrecision(12));
      out.masquerade = o.masquerade;
      out.assumptions = o.assumptions;
      out.conditions = o.conditions.map((c) => ({ condition: c.key, holds: c.holds }));
      out.path = o.path.map((p) => ({ file: fileNames[p.fileIndex] ?? '', line: p.line + 1, table: p.table, chain: p.chain, text: p.text, note: p.note }));
      // The cluster state's names for the endpoint (additive: absent without a cluster state).
      if (o.endpoint) out.endpoint = { ...o.endpoint };
      return out;
    }),
    moreOutcomes: more,
    nodeIPs: {
      addresses: result.context.nodeIPs,
      origin: result.context.nodeIPsOrigin ?? (result.context.nodeIPsInferred ? 'inferred' : result.context.nodeIPs.length ? 'given' : 'unknown'),
      ...(result.context.nodeIPsEvidence ? { evidence: result.context.nodeIPsEvidence } : {}),
    },
    ...(result.source ? { source: { origin: result.source.origin, reason: result.source.text } } : {}),
    ...(result.noService ? { noService: true } : {}),
    ...(result.advice ? { advice: result.advice } : {}),
  };
}

/**
 * The Service (`namespace/name:port`) whose frontend the traced packet is sent to: its address and port, or a
 * NodePort on one of the node's addresses; undefined when none (or an anonymous one) is.
 */
export function tracedService(files: SnapshotFile[], result: TraceResult): string | undefined {
  const { dst, dport, protocol } = result.packet;
  const onNode = result.context.nodeIPs.includes(dst);
  for (const s of allServices(files)) {
    if (s.anonymous || (s.protocol && s.protocol.toLowerCase() !== protocol)) continue;
    const hit = s.frontends.some((f) => f.port === dport && (f.address !== undefined ? canonicalAddress(f.address) === dst : f.kind === 'nodePort' && onNode));
    if (hit) return servicePortNameString(s);
  }
  return undefined;
}
