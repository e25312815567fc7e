// Tracing a node snapshot: picks the dumps that decide the packet's fate and fills in what the user
// did not say (source address, node addresses) from what the rules reveal.
import type { IptablesAnalysis } from '../language/iptables';
import type { Service } from '../kube/catalog';
import { t } from '../l10n';
import { formatAddress, parseAddress, parsePrefix, sameAddress } from './addr';
import { traceIptables } from './iptables';
import type { Entry, Packet, Protocol, TraceContext, TraceResult } from './types';

export * from './types';
export { hostPort } from './iptables';

export interface SnapshotFile {
  name: string;
  analysis: IptablesAnalysis;
}

export interface TraceRequest {
  to: string;
  dport: number;
  protocol: Protocol;
  from?: string;
  entry: Entry;
  nodeIPs?: string[];
}

/** `10.96.0.10:53/udp`, `[fd00::10]:53`, `10.96.0.10:80` (tcp by default). */
export function parseDestination(text: string): { address: string; port: number; protocol: Protocol } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:/\s]+)):(\d{1,5})(?:\/(tcp|udp|sctp))?$/i.exec(text.trim());
  if (!m) return undefined;
  const address = m[1] ?? m[2];
  const port = Number(m[3]);
  if (!parseAddress(address) || port < 1 || port > 65535) return undefined;
  return { address, port, protocol: (m[4]?.toLowerCase() as Protocol) ?? 'tcp' };
}

function allServices(files: SnapshotFile[]): Service[] {
  return files.flatMap((f) => f.analysis.catalog.services);
}

/** A source for the packet when none is given: inside the cluster CIDR the rules reveal, never an endpoint. */
export function defaultSource(files: SnapshotFile[], entry: Entry, family: 4 | 6, nodeIPs: string[]): string {
  if (entry === 'node') return nodeIPs.find((ip) => parseAddress(ip)?.family === family) ?? (family === 4 ? '127.0.0.1' : '::1');
  if (entry === 'external') return family === 4 ? '203.0.113.99' : '2001:db8:ffff::99';
  const services = allServices(files);
  const endpoints = new Set(services.flatMap((s) => s.endpoints.map((e) => e.address)));
  const cidr = services.map((s) => s.policies.clusterCIDR).find((c) => c && parsePrefix(c)?.family === family);
  const prefix = cidr ? parsePrefix(cidr) : undefined;
  if (prefix) {
    const width = family === 4 ? 32 : 128;
    const size = 1n << BigInt(width - prefix.bits);
    for (let k = 250n; k < 250n + 64n && k < size; k++) {
      const candidate = formatAddress({ family, value: prefix.network + (size > 512n ? size - k : k) });
      if (!endpoints.has(candidate)) return candidate;
    }
  }
  return family === 4 ? '10.0.0.250' : 'fd00::250';
}

export function traceSnapshot(files: SnapshotFile[], request: TraceRequest): TraceResult {
  const dst = parseAddress(request.to);
  const family = dst?.family ?? 4;
  const warnings: string[] = [];
  let nodeIPs = request.nodeIPs ?? [];
  let inferred = false;
  if (nodeIPs.length === 0) {
    // A destination that is no Service address but whose port is a NodePort is taken to be this node.
    const services = allServices(files);
    const isFrontend = services.some((s) => s.frontends.some((f) => f.address && sameAddress(f.address, request.to)));
    const isNodePort = services.some((s) => s.frontends.some((f) => f.kind === 'nodePort' && f.port === request.dport));
    if (!isFrontend && isNodePort) {
      nodeIPs = [request.to];
      inferred = true;
      warnings.push(t('No node address given: {0} is taken to be this node because port {1} is a NodePort. Use --node-ip to say otherwise.', request.to, request.dport));
    } else if (request.entry === 'node' && !request.from) {
      warnings.push(t('No node address given: the packet leaves from 127.0.0.1. Use --node-ip to set this node\'s address.'));
    }
  }
  const context: TraceContext = { nodeIPs, nodeIPsInferred: inferred };
  const src = request.from ?? defaultSource(files, request.entry, family, nodeIPs);
  const packet: Packet = { src, dst: request.to, protocol: request.protocol, dport: request.dport, entry: request.entry };
  const candidates = files
    .map((f, index) => ({ f, index }))
    .filter(({ f }) => f.analysis.ruleset.tables.some((tb) => tb.family === (family === 4 ? 'ipv4' : 'ipv6')));
  if (candidates.length === 0) {
    const result = traceIptables(files[0]?.analysis.ruleset ?? emptyRuleset(), packet, context, 0);
    return { ...result, warnings: [...warnings, ...result.warnings] };
  }
  if (candidates.length > 1) warnings.push(t('Several iptables dumps hold {0} tables; traced {1} only.', family === 4 ? 'IPv4' : 'IPv6', candidates[0].f.name));
  const { f, index } = candidates[0];
  const result = traceIptables(f.analysis.ruleset, packet, context, index);
  return { ...result, warnings: [...warnings, ...result.warnings] };
}

function emptyRuleset() {
  return { dialect: 'iptables' as const, backend: 'unknown' as const, family: 'ipv4' as const, saves: [], tables: [], tableById: new Map(), headers: [], diagnostics: [], symbols: undefined as never, ruleByLine: new Map(), lineCount: 0 };
}

/** The JSON of `dataplane trace --json` (CLI contract). */
export function traceToJson(result: TraceResult, fileNames: string[]): unknown {
  return {
    packet: { src: result.packet.src, dst: result.packet.dst, protocol: result.packet.protocol, dport: result.packet.dport, entry: result.packet.entry },
    outcomes: result.outcomes.map((o) => {
      const out: Record<string, unknown> = { verdict: o.verdict };
      if (o.destination) out.destination = o.destination;
      out.probability = Number(o.probability.toPrecision(12));
      out.masquerade = o.masquerade;
      out.assumptions = o.assumptions;
      out.path = o.path.map((p) => ({ file: fileNames[p.fileIndex] ?? '', line: p.line + 1, table: p.table, chain: p.chain, text: p.text, note: p.note }));
      return out;
    }),
  };
}
