// IPVS at LOCAL_IN (kube-proxy's IPVS mode): the virtual service for the packet's destination picks a real server,
// by weight shares. The iptables tracer runs it between INPUT's filter and nat tables.
import type { IpSet } from '../model/ipset';
import type { RealServer, VirtualService } from '../model/ipvs';
import { t } from '../l10n';
import { addressText, formatAddress, parseAddress, type Address } from '../model/address';
import { addressKey, hostPort, type Budget, type State } from './engine';
import type { InferredIpsets } from './ipvs-sets';

/**
 * The virtual services (in IPVS mode they take over after INPUT; none outside it) and the ipsets the rules match
 * against.
 */
export interface IpvsTraceInput {
  services: { vs: VirtualService; fileIndex: number }[];
  sets: Map<string, IpSet>;
  /** Without an ipset dump: kube-proxy's set memberships the virtual services imply. */
  inferred?: InferredIpsets;
}

/** What a trace looks up in an IPVS snapshot, indexed once per snapshot (the input object's identity). */
interface IpvsIndex {
  /** Addresses of the virtual services (bound on kube-ipvs0), as addressKey. */
  local: Set<string>;
  /** The first virtual service for protocol|addressKey|port, as a linear search in dump order finds it. */
  byTuple: Map<string, { vs: VirtualService; fileIndex: number }>;
}

const ipvsIndexes = new WeakMap<IpvsTraceInput, IpvsIndex>();

function ipvsIndex(ipvs: IpvsTraceInput): IpvsIndex {
  let index = ipvsIndexes.get(ipvs);
  if (index) return index;
  index = { local: new Set(), byTuple: new Map() };
  for (const entry of ipvs.services) {
    const a = entry.vs.address !== undefined ? addressText(entry.vs.address) : undefined;
    if (a === undefined) continue;
    index.local.add(a);
    const k = `${entry.vs.protocol}|${a}|${entry.vs.port}`;
    if (!index.byTuple.has(k)) index.byTuple.set(k, entry);
  }
  ipvsIndexes.set(ipvs, index);
  return index;
}

/** The addresses of the virtual services (bound on kube-ipvs0: local to the node). */
export function ipvsAddresses(ipvs: IpvsTraceInput): ReadonlySet<string> {
  return ipvsIndex(ipvs).local;
}

/**
 * IPVS after INPUT: the virtual service for the destination picks a real server (weight shares for rr/wrr;
 * for the other schedulers the same shares are shown, labelled) and forwards the connection there.
 */
export function ipvsSelect(ipvs: IpvsTraceInput | undefined, budget: Budget, warnings: string[], s: State): { states: State[]; rejected: State[]; passthrough: boolean } {
  const found = ipvs ? ipvsIndex(ipvs).byTuple.get(`${s.protocol}|${addressKey(s.dst)}|${s.dport}`) : undefined;
  if (!found) return { states: [s], rejected: [], passthrough: true };
  const { vs, fileIndex } = found;
  const step = (st: State, note: string) => st.path.push({ fileIndex, line: vs.range.start.line, range: vs.range, table: 'ipvs', chain: vs.name, text: vs.name, note });
  if (vs.realServers.length === 0) {
    step(s, t('IPVS: the virtual service has no real servers; the client gets ICMP port unreachable.'));
    return { states: [], rejected: [s], passthrough: false };
  }
  // A server the dump does not spell an address for (a broken line) cannot take connections: its share would vanish.
  const eligible: { r: RealServer; addr: Address }[] = [];
  for (const r of vs.realServers) {
    const addr = r.weight > 0 ? parseAddress(r.address) : undefined;
    if (addr) eligible.push({ r, addr });
    else if (r.weight > 0) warnings.push(t('IPVS: real server {0} of {1} has no address the trace can read: left out of the shares.', r.address, vs.name));
  }
  if (eligible.length === 0) {
    step(s, t('IPVS: no real server of the virtual service takes new connections; the client gets ICMP port unreachable.'));
    return { states: [], rejected: [s], passthrough: false };
  }
  const total = eligible.reduce((n, { r }) => n + (vs.scheduler === 'rr' ? 1 : r.weight), 0);
  const states: State[] = [];
  const predictable = vs.scheduler === 'rr' || vs.scheduler === 'wrr';
  for (const { r, addr } of eligible) {
    const share = (vs.scheduler === 'rr' ? 1 : r.weight) / total;
    const st = budget.branch(s);
    if (!st) break; // the trace stopped: traceIptables says so
    st.probability *= share;
    st.dst = addr;
    st.dstText = formatAddress(addr);
    if (r.port !== undefined) st.dport = r.port;
    st.dnat = true;
    if (!predictable) st.assumptions.push(t('IPVS scheduler {0} decides by live state; shown: the weight shares', vs.scheduler ?? 'wlc'));
    if (vs.persistent) st.notes.push(t('Persistence {0} s: a returning client goes back to the real server it used before.', vs.persistent.timeout));
    step(st, t('IPVS {0}: real server {1} ({2} of new connections).', vs.scheduler ?? 'wlc', hostPort(st.dstText, st.dport), `${Number((share * 100).toPrecision(4))}%`));
    states.push(st);
  }
  return { states, rejected: [], passthrough: false };
}
