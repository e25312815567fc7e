// The API side of a Service in its hover: what the cluster state offers for the Service port (ready, terminating,
// left out by topology) next to what the rules send to, and whether they agree (the cluster check's findings).
import { servicePortKey, expectedByServicePort } from '../cluster/snapshot';
import type { ApiEndpointSlice, ExpectedEndpoint, ExpectedServicePort, Finding, FindingCode } from '../cluster/types';
import { t } from '../l10n';
import { canonicalAddress } from '../model/address';
import type { Position } from '../model/range';
import type { Service } from '../kube/service';
import type { NodeSnapshot } from '../snapshot';
import { join, md, mdT, text, type HoverService, type Md } from './markdown';

/** Findings that say the rules and the API disagree (info findings explain, they do not disagree). */
const DIFFERS: readonly FindingCode[] = ['not-programmed', 'stale-service', 'missing-endpoint', 'stale-endpoint', 'frontend-mismatch', 'policy-mismatch'];
const MAX_FINDINGS_SHOWN = 3;

/** The API side of the Service port (`rulesOf`: the dump's Service, when known), or undefined without a cluster state. */
export function apiSideMarkdown(snapshot: NodeSnapshot, ref: HoverService, rulesOf?: Service): Md | undefined {
  const c = snapshot.cluster;
  if (!c || !ref.namespace) return undefined;
  const key = servicePortKey(ref);
  const family = ref.family === 'ipv6' ? 'IPv6' : 'IPv4';
  const expected = (expectedByServicePort(snapshot).get(key) ?? []).find((e) => e.family === family);
  const findings = c.check.findings.filter((f) => servicePortKey(f.service) === key && DIFFERS.includes(f.code));
  const service = rulesOf ?? snapshot.services.find((s) => servicePortKey(s) === key && s.family === ref.family);
  const rules = new Set((service?.endpoints ?? []).map((e) => `${canonicalAddress(e.address)}|${e.port}`)).size;
  const lines: Md[] = [];
  const verdict = findings.length === 0 ? mdT('matches') : mdT('differs: {0}', text(differences(findings)));
  if (!expected) {
    lines.push(mdT('**API**: no such Service port; **rules**: {0} endpoints — {1}', rules, verdict));
  } else {
    lines.push(mdT('**API**: {0}; **rules**: {1} — {2}', text(apiCounts(expected, c.state.endpointSlices)), rules, verdict));
  }
  for (const f of findings.slice(0, MAX_FINDINGS_SHOWN)) lines.push(md`- ${text(f.message)}`);
  if (findings.length > MAX_FINDINGS_SHOWN) lines.push(md`- ${mdT('and {0} more in Problems', findings.length - MAX_FINDINGS_SHOWN)}`);
  if (!c.check.node.name) lines.push(mdT('(The node is not identified: Local traffic policies and topology are judged without it.)'));
  return join(lines);
}

/** "3 ready, 1 terminating, 1 hinted for zone-b" (localised). */
export function apiCounts(e: ExpectedServicePort, slices: readonly ApiEndpointSlice[]): string {
  const ready = e.endpoints.filter((x) => x.ready && !x.terminating).length;
  const terminating = e.endpoints.filter((x) => x.terminating).length;
  const notReady = e.endpoints.filter((x) => !x.ready && !x.terminating).length;
  const parts = [t('{0} ready', ready)];
  if (terminating) parts.push(t('{0} terminating', terminating));
  if (notReady) parts.push(t('{0} not ready', notReady));
  const hinted = new Map<string, number>();
  for (const x of e.endpoints) {
    if (x.excludedBecause !== 'topology') continue;
    const where = hintsOf(x, slices, e.topologyMode) ?? '?';
    hinted.set(where, (hinted.get(where) ?? 0) + 1);
  }
  for (const [where, n] of hinted) parts.push(t('{0} hinted for {1}', n, where));
  const local = e.endpoints.filter((x) => x.excludedBecause === 'not-local').length;
  if (local) parts.push(t('{0} on other nodes (Local policy)', local));
  return parts.join(', ');
}

/** The zones (or nodes) an endpoint is hinted for, from its EndpointSlice. */
function hintsOf(x: ExpectedEndpoint, slices: readonly ApiEndpointSlice[], mode: ExpectedServicePort['topologyMode']): string | undefined {
  const slice = slices.find((s) => s.name === x.slice?.name);
  const api = slice?.endpoints.find((a) => a.addresses.some((ad) => canonicalAddress(ad) === canonicalAddress(x.address)));
  const hints = mode === 'PreferSameNode' ? api?.hints?.forNodes : api?.hints?.forZones;
  return hints && hints.length > 0 ? hints.join(', ') : undefined;
}

/** "1 missing endpoint, 1 stale endpoint" (localised). */
function differences(findings: readonly Finding[]): string {
  const counts = new Map<FindingCode, number>();
  for (const f of findings) counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
  return [...counts].map(([code, n]) => `${n} ${code}`).join(', ');
}

/**
 * The API side of the IPVS Service whose virtual service is declared on `position`'s line of snapshot file
 * `fileIndex`: an ipvsadm dump names no Service, the snapshot's IPVS catalog does (from the iptables comments).
 */
export function apiSideAt(snapshot: NodeSnapshot, fileIndex: number, position: Position): Md | undefined {
  if (!snapshot.cluster) return undefined;
  const tableId = `ipvs:${fileIndex}`;
  const s = snapshot.services.find((x) => x.objects.some((o) => o.tableId === tableId && o.range.start.line === position.line));
  if (!s) return undefined;
  if (!s.anonymous) return apiSideMarkdown(snapshot, s, s);
  // Without names (no iptables comments), the API's Service port with one of its addresses, as the check matches it.
  const e = expectedWithFrontendOf(snapshot, s);
  return e ? apiSideMarkdown(snapshot, { namespace: e.namespace, name: e.name, portName: e.portName, protocol: e.protocol, family: s.family }, s) : undefined;
}

function expectedWithFrontendOf(snapshot: NodeSnapshot, s: Service): ExpectedServicePort | undefined {
  const family = s.family === 'ipv6' ? 'IPv6' : 'IPv4';
  const addresses = new Set(s.frontends.filter((f) => f.address && f.kind !== 'nodePort').map((f) => `${canonicalAddress(f.address!)}|${f.port}`));
  for (const list of expectedByServicePort(snapshot).values()) {
    for (const e of list) {
      if (e.family !== family || e.protocol.toLowerCase() !== s.protocol.toLowerCase()) continue;
      if (e.frontends.some((f) => f.address && f.kind !== 'nodePort' && addresses.has(`${canonicalAddress(f.address)}|${f.port}`))) return e;
    }
  }
  return undefined;
}
