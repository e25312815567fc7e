// The cluster check: what kube-proxy should have programmed on this node (the expected Service ports) next to what
// the dump shows (the Service catalog), as findings. One pass over each side with maps keyed by name and by
// frontend: linear in Services and endpoints. It reports only what a dump can show: a fact the rules do not
// carry (comments dropped in large clusters, the kind of an address without endpoints, an IPVS mode's traffic
// policies) is never a finding.
import { t } from '../l10n';
import { servicePortNameString, type Catalog, type Endpoint, type Frontend, type Service } from '../kube/service';
import { normalizeAddressIntervals } from '../kube/nft-catalog';
import type { NodeSnapshot } from '../snapshot';
import { canonicalAddress, formatHostPort } from '../model/address';
import type { IptablesAnalysis } from '../language/iptables';
import type { IpvsadmAnalysis } from '../language/ipvsadm';
import type { NftAnalysis } from '../language/nft';
import { expectedServicePorts } from './expected';
import { inferNode } from './node';
import type { ClusterState, ExpectedEndpoint, ExpectedFrontend, ExpectedServicePort, Finding, FindingCode, IPFamily, NodeIdentity, SourceLocation } from './types';

export type CheckMode = 'iptables' | 'nftables' | 'ipvs';

export interface CheckResult {
  node: NodeIdentity;
  mode: NodeSnapshot['mode'];
  findings: Finding[];
  summary: { servicePorts: number; programmed: number; findings: { error: number; warning: number; info: number } };
}

/** A Service of the dump with the file its lines are in. */
export interface Actual {
  service: Service;
  file: string;
}

const SEVERITY: Record<FindingCode, Finding['severity']> = {
  'not-programmed': 'error',
  'stale-service': 'warning',
  'missing-endpoint': 'error',
  'stale-endpoint': 'error',
  'frontend-mismatch': 'error',
  'policy-mismatch': 'warning',
  'no-endpoints': 'info',
  'filtered-by-topology': 'info',
  'mode-mismatch': 'warning',
};

const SEVERITY_RANK: Record<Finding['severity'], number> = { error: 0, warning: 1, info: 2 };

/** At most this many dump lines per finding: the first objects say where; the rest is the same Service. */
const MAX_EVIDENCE = 3;

export interface CheckOptions {
  /** `--node NAME`: the node the dump was saved on; inferred when absent. */
  node?: string;
  /** The snapshot's folder, whose name may be the node's. */
  folder?: string;
}

/** The node's dump against the cluster state: the node, the findings worst first, and the counts. */
export function checkSnapshot(snapshot: NodeSnapshot, state: ClusterState, options: CheckOptions = {}): CheckResult {
  const node = inferNode(state, snapshot, { name: options.node, folder: options.folder });
  const mode = snapshot.mode;
  const findings: Finding[] = [];
  const modeDrift = modeFinding(state, mode);
  if (modeDrift) findings.push(modeDrift);
  let servicePorts = 0;
  let programmed = 0;
  if (!node.error && (mode === 'iptables' || mode === 'nftables' || mode === 'ipvs')) {
    const actual = actualServices(snapshot);
    const expected = expectedServicePorts(state, node, { mode, families: dumpFamilies(snapshot, actual) });
    const compared = compareServicePorts(expected, actual, state, { mode, node });
    findings.push(...compared.findings);
    servicePorts = expected.length;
    programmed = compared.programmed;
  }
  const sorted = sortFindings(findings);
  return { node, mode, findings: sorted, summary: { servicePorts, programmed, findings: countFindings(sorted) } };
}

/**
 * The IP families the dump programs: those of its Services, its iptables dumps (iptables-save or ip6tables-save),
 * its kube-proxy nft tables (ip, ip6) and its virtual services. A family the dump does not hold is not expected.
 */
export function dumpFamilies(snapshot: NodeSnapshot, actual: Actual[]): IPFamily[] {
  const families = new Set<IPFamily>();
  const add = (f: string | undefined) => {
    if (f === 'ipv4' || f === 'ip' || f === 'mixed') families.add('IPv4');
    if (f === 'ipv6' || f === 'ip6' || f === 'mixed') families.add('IPv6');
  };
  for (const a of actual) add(a.service.family);
  for (const f of snapshot.files) {
    if (f.languageId === 'iptables' && (f.analysis as IptablesAnalysis).catalog.services.length > 0) add((f.analysis as IptablesAnalysis).ruleset.family);
    else if (f.languageId === 'nftables') {
      for (const table of (f.analysis as NftAnalysis).ruleset.tables) if (table.name === 'kube-proxy') add(table.family);
    } else if (f.languageId === 'ipvsadm') add((f.analysis as IpvsadmAnalysis).dump.family);
  }
  return families.size ? [...families] : ['IPv4'];
}

/** The catalogs of the snapshot's own mode, each with the file it was read from. */
export function actualServices(snapshot: NodeSnapshot): Actual[] {
  const fileOf = new Map<Catalog, string>();
  for (const f of snapshot.files) {
    const catalog = (f.analysis as { catalog?: Catalog }).catalog;
    if (catalog) fileOf.set(catalog, f.name);
  }
  const out: Actual[] = [];
  for (const c of snapshot.catalogs) {
    // Rules of another mode beside the current one are leftovers, which the snapshot reports on its own.
    if (c.mode !== snapshot.mode) continue;
    for (const s of c.services) out.push({ service: s, file: fileOf.get(c) ?? ipvsFile(snapshot, s) });
  }
  return out;
}

/** The ipvsadm dump an IPVS Service comes from: its virtual service's object names the file (`ipvs:<index>`). */
function ipvsFile(snapshot: NodeSnapshot, s: Service): string {
  const id = s.objects[0]?.tableId ?? '';
  const index = id.startsWith('ipvs:') ? Number(id.slice(5)) : -1;
  return snapshot.files[index]?.name ?? snapshot.files[0]?.name ?? '';
}

const familyOf = (s: Service): IPFamily => (s.family === 'ipv6' ? 'IPv6' : 'IPv4');
const nameKey = (ns: string, name: string, portName: string, protocol: string, family: IPFamily) => `${ns}/${name}:${portName}|${protocol.toLowerCase()}|${family}`;
const addressKey = (address: string, port: number, protocol: string) => `${canonicalAddress(address)}|${port}|${protocol.toLowerCase()}`;
const endpointKey = (address: string, port: number) => `${canonicalAddress(address)}|${port}`;

/** Indexes of the dump's Services: by Service port name (named ones) and by address frontend (every one). */
class ActualIndex {
  readonly byName = new Map<string, Actual>();
  readonly byAddress = new Map<string, Actual>();
  constructor(readonly all: Actual[]) {
    for (const a of all) {
      const s = a.service;
      if (!s.anonymous && s.name) this.byName.set(nameKey(s.namespace, s.name, s.portName, s.protocol, familyOf(s)), a);
      for (const f of s.frontends) if (f.address && f.kind !== 'nodePort') this.byAddress.set(addressKey(f.address, f.port, s.protocol), a);
    }
  }

  /** The dump's Service for an expected port: by name, else (a dump without names) by its ClusterIP or another address. */
  find(e: ExpectedServicePort): Actual | undefined {
    const named = this.byName.get(nameKey(e.namespace, e.name, e.portName, e.protocol, e.family));
    if (named) return named;
    for (const f of e.frontends) {
      if (!f.address || f.kind === 'nodePort' || f.kind === 'healthCheckNodePort') continue;
      const a = this.byAddress.get(addressKey(f.address, f.port, e.protocol));
      if (a && (a.service.anonymous || !a.service.name)) return a;
    }
    return undefined;
  }
}

/** `ns/name:port` as findings and reports name a Service port. */
export function servicePortText(s: { namespace: string; name: string; portName: string }): string {
  return s.namespace ? servicePortNameString(s) : s.name;
}

function frontendText(f: { kind: string; address?: string; port: number }): string {
  return `${f.kind} ${formatHostPort(f.address || undefined, f.port)}`;
}

/** Collects findings with their Service, severity and evidence. */
class Findings {
  readonly list: Finding[] = [];

  add(code: FindingCode, service: Finding['service'], fields: Omit<Finding, 'code' | 'severity' | 'service' | 'evidence'> & { evidence?: (SourceLocation | undefined)[]; severity?: Finding['severity'] }): void {
    const evidence = (fields.evidence ?? []).filter((x): x is SourceLocation => x !== undefined);
    const { severity, ...rest } = fields;
    this.list.push({ code, severity: severity ?? SEVERITY[code], service, ...rest, evidence });
  }
}

const serviceOf = (e: ExpectedServicePort): Finding['service'] => ({ namespace: e.namespace, name: e.name, portName: e.portName, protocol: e.protocol });
const actualServiceOf = (s: Service): Finding['service'] => ({ namespace: s.namespace, name: s.name, portName: s.portName, protocol: s.protocol.toUpperCase() });

/** Where in the dump a Service is: its first objects (chains, rules, virtual services). */
function dumpEvidence(a: Actual): SourceLocation[] {
  return a.service.objects.slice(0, MAX_EVIDENCE).map((o) => ({ file: a.file, range: o.range }));
}

function at(a: Actual, x: { range?: SourceLocation['range'] } | undefined): SourceLocation | undefined {
  return x?.range ? { file: a.file, range: x.range } : undefined;
}

export interface CompareOptions {
  mode: CheckMode;
  node: NodeIdentity;
}

/**
 * Findings of the expected Service ports against the dump's Services. The expected ports are those of the
 * families the dump holds; every dump Service that none of them claims is stale.
 */
export function compareServicePorts(expected: ExpectedServicePort[], actual: Actual[], state: ClusterState, options: CompareOptions): { findings: Finding[]; programmed: number } {
  const out = new Findings();
  const { found, claimed } = pairServicePorts(expected, actual);
  const joined = joinStandalone(expected, found, actual, claimed);
  let programmed = 0;
  for (const e of expected) {
    const a = found.get(e);
    explainedByApi(e, a, out);
    if (!a) {
      out.add('not-programmed', serviceOf(e), {
        expected: e.frontends.filter(shownFrontend).map(frontendText).join(', '),
        actual: t('no rules'),
        reason: notProgrammedReason(e),
        message: t('{0} ({1}) is in the API but this node has no rules for it.', servicePortText(e), e.protocol),
        evidence: [e.service.source],
      });
      continue;
    }
    programmed++;
    compareFrontends(e, a, joined.get(e) ?? [], out);
    compareEndpoints(e, a, out, options);
    comparePolicies(e, a, out, options.mode);
  }
  const services = new Map(state.services.map((s) => [`${s.namespace}/${s.name}`, s]));
  for (const a of actual) if (!claimed.has(a)) staleService(a, services, out);
  return { findings: out.list, programmed };
}

/** Each expected Service port with the dump's Service that programs it (by name, else by address), each claimed once. */
export function pairServicePorts(expected: ExpectedServicePort[], actual: Actual[]): { found: Map<ExpectedServicePort, Actual>; claimed: Set<Actual> } {
  const index = new ActualIndex(actual);
  const claimed = new Set<Actual>();
  const found = new Map<ExpectedServicePort, Actual>();
  for (const e of expected) {
    const a = index.find(e);
    if (a && !claimed.has(a)) {
      claimed.add(a);
      found.set(e, a);
    }
  }
  return { found, claimed };
}

const frontendKey = (kind: 'nodePort' | 'address', address: string | undefined, port: number, protocol: string) =>
  kind === 'nodePort' ? `*|${port}|${protocol.toLowerCase()}` : addressKey(address ?? '', port, protocol);

/**
 * The frontends of dump Services that stand alone but belong to an expected port: IPVS joins a NodePort or
 * load-balancer virtual service to its ClusterIP by their real servers, which it cannot when it has none
 * (externalTrafficPolicy Local without local endpoints). Such a Service is claimed by the port of its frontends.
 */
function joinStandalone(expected: ExpectedServicePort[], found: Map<ExpectedServicePort, Actual>, actual: Actual[], claimed: Set<Actual>): Map<ExpectedServicePort, Frontend[]> {
  const joined = new Map<ExpectedServicePort, Frontend[]>();
  const owner = new Map<string, ExpectedServicePort>();
  for (const e of expected) {
    if (!found.has(e)) continue;
    for (const f of e.frontends) if (shownFrontend(f)) owner.set(frontendKey(f.kind === 'nodePort' ? 'nodePort' : 'address', f.address, f.port, e.protocol), e);
  }
  for (const a of actual) {
    const s = a.service;
    if (claimed.has(a) || !s.anonymous || s.frontends.length === 0) continue;
    const owners = new Set(
      s.frontends.map(
        (f) => owner.get(frontendKey('address', f.address, f.port, s.protocol)) ?? (f.kind === 'nodePort' || f.kindUncertain ? owner.get(frontendKey('nodePort', undefined, f.port, s.protocol)) : undefined),
      ),
    );
    const [e] = owners;
    if (owners.size !== 1 || !e || s.endpoints.length > 0) continue;
    claimed.add(a);
    joined.set(e, [...(joined.get(e) ?? []), ...s.frontends]);
  }
  return joined;
}

function notProgrammedReason(e: ExpectedServicePort): string {
  const ready = e.endpoints.filter((x) => x.inCluster || x.inLocal).length;
  return t(
    'Service {0} of type {1} has port {2}/{3} with {4} usable endpoints; kube-proxy writes rules for every such port.',
    `${e.namespace}/${e.name}`,
    e.service.type,
    e.portName || String(e.frontends[0]?.port ?? ''),
    e.protocol,
    ready,
  );
}

/** Frontends a dump shows: the health check NodePort is a kube-proxy listener, not a rule. */
const shownFrontend = (f: ExpectedFrontend) => f.kind !== 'healthCheckNodePort';

function staleService(a: Actual, services: Map<string, { type: string; clusterIPs: string[]; ports: { name: string; protocol: string }[] }>, out: Findings): void {
  const s = a.service;
  let reason: string;
  if (s.anonymous || !s.namespace) reason = t('no Service port of the API has the address {0} ({1})', s.frontends[0] ? formatHostPort(s.frontends[0].address, s.frontends[0].port) : s.name, s.protocol.toUpperCase());
  else {
    const api = services.get(`${s.namespace}/${s.name}`);
    if (!api) reason = t('no Service {0} in the API: deleted, or in a namespace the cluster file does not hold', `${s.namespace}/${s.name}`);
    else if (api.type === 'ExternalName') reason = t('the Service is of type ExternalName: kube-proxy writes no rules for it');
    else if (api.clusterIPs[0] === 'None') reason = t('the Service is headless (clusterIP None): kube-proxy writes no rules for it');
    else if (!api.ports.some((p) => p.name === s.portName && p.protocol.toLowerCase() === s.protocol.toLowerCase())) reason = t('the Service has no port {0}/{1} in the API', s.portName || '""', s.protocol.toUpperCase());
    else reason = t('the API Service has no {0} address for this port', s.family === 'ipv6' ? 'IPv6' : 'IPv4');
  }
  out.add('stale-service', actualServiceOf(s), {
    actual: s.frontends.map(frontendText).join(', '),
    reason,
    message: t('The rules of {0} ({1}) belong to no Service port of the API: left over from a deleted Service, or from another cluster state.', servicePortText(s), s.protocol.toUpperCase()),
    evidence: dumpEvidence(a),
  });
}

/**
 * Whether a dump frontend is the expected one: address frontends by address and port (an uncertain kind of the
 * dump is no mismatch); NodePorts by port, on whatever node address the dump binds them.
 */
function sameFrontend(e: ExpectedFrontend, f: Frontend): boolean {
  if (e.port !== f.port) return false;
  if (e.kind === 'nodePort') return f.kind === 'nodePort' || f.kindUncertain === true;
  return f.kind !== 'nodePort' && f.address !== undefined && e.address !== undefined && canonicalAddress(f.address) === canonicalAddress(e.address);
}

function compareFrontends(e: ExpectedServicePort, a: Actual, joined: Frontend[], out: Findings): void {
  const wanted = e.frontends.filter(shownFrontend);
  const seen = joined.length ? [...a.service.frontends, ...joined] : a.service.frontends;
  for (const f of wanted) {
    if (seen.some((x) => sameFrontend(f, x))) continue;
    out.add('frontend-mismatch', serviceOf(e), {
      frontend: { kind: f.kind, ...(f.address ? { address: f.address } : {}), port: f.port },
      expected: frontendText(f),
      actual: seen.map(frontendText).join(', ') || t('none'),
      reason: t("the Service's spec and status give it {0}", frontendText(f)),
      message: t('{0}: {1} is in the API, but the rules have no such frontend.', servicePortText(e), frontendText(f)),
      evidence: [...dumpEvidence(a).slice(0, 1), e.service.source],
    });
  }
  for (const x of seen) {
    if (wanted.some((f) => sameFrontend(f, x))) continue;
    out.add('frontend-mismatch', serviceOf(e), {
      severity: 'warning',
      frontend: { kind: x.kind, ...(x.address ? { address: x.address } : {}), port: x.port },
      expected: wanted.map(frontendText).join(', ') || t('none'),
      actual: frontendText(x),
      reason: t("the Service's spec and status do not give it {0}", frontendText(x)),
      message: t('{0}: the rules have {1}, which the API does not.', servicePortText(e), frontendText(x)),
      evidence: [at(a, x), e.service.source],
    });
  }
}

const isExternal = (f: ExpectedFrontend) => f.kind === 'nodePort' || f.kind === 'externalIP' || f.kind === 'loadBalancer';

/**
 * The endpoints the dump's Service lists, as kube-proxy chooses them for this mode. Which policy sets are used at
 * all is kube-proxy's CategorizeEndpoints (pkg/proxy/topology.go): the cluster set unless every traffic that
 * reaches the Service is Local, the local set when a Local policy applies.
 */
/** UsesClusterEndpoints (pkg/proxy/serviceport.go): external traffic needs them even when Local (short circuit). */
const usesClusterSet = (e: ExpectedServicePort) => e.internalTrafficPolicy !== 'Local' || e.frontends.some(isExternal);

function shownEndpoints(e: ExpectedServicePort, mode: CheckMode): ExpectedEndpoint[] {
  const external = e.frontends.some(isExternal);
  const usesCluster = usesClusterSet(e);
  const usesLocal = e.internalTrafficPolicy === 'Local' || (external && e.externalTrafficPolicy === 'Local');
  const cluster = usesCluster ? e.endpoints.filter((x) => x.inCluster) : [];
  if (mode === 'ipvs') {
    // The Service is its ClusterIP virtual service: the local endpoints for internalTrafficPolicy Local, the cluster
    // ones when there is none (kube-proxy's IPVS fallback, kubernetes#97081), else the cluster ones.
    const local = e.internalTrafficPolicy === 'Local' ? e.endpoints.filter((x) => x.inLocal) : [];
    return local.length > 0 ? local : cluster;
  }
  // iptables and nftables: an endpoint chain for each endpoint of a set in use.
  return usesLocal ? e.endpoints.filter((x) => (usesCluster && x.inCluster) || x.inLocal) : cluster;
}

/** Whether the node's zone decides the endpoints but is not known (no node identified): then no endpoint error. */
function topologyUndecided(e: ExpectedServicePort, node: NodeIdentity): boolean {
  if (node.name && node.zone !== undefined) return false;
  const s = e.service;
  return s.trafficDistribution !== undefined || s.annotations['service.kubernetes.io/topology-mode'] !== undefined || s.annotations['service.kubernetes.io/topology-aware-hints'] !== undefined;
}

/**
 * The information kube-proxy's own behaviour explains, once per Service port whether the rules hold it or not:
 * no usable endpoint (REJECT), and topology leaving ready endpoints out on this node.
 */
function explainedByApi(e: ExpectedServicePort, a: Actual | undefined, out: Findings): void {
  const dump = a ? dumpEvidence(a).slice(0, 1) : [];
  if (e.noEndpointsReason) {
    out.add('no-endpoints', serviceOf(e), {
      expected: t('no endpoints: connections are rejected'),
      ...(a ? { actual: a.service.endpoints.length === 0 ? t('no endpoints') : t('{0} endpoints', a.service.endpoints.length) } : {}),
      reason: e.noEndpointsReason,
      message: t('{0} has no usable endpoint, so kube-proxy rejects its connections: {1}', servicePortText(e), e.noEndpointsReason),
      evidence: [...dump, e.service.source],
    });
  }
  const filtered = e.endpoints.filter((x) => x.excludedBecause === 'topology');
  if (filtered.length === 0) return;
  const why = filtered[0].detail ?? e.topologyNote ?? t('hinted for another zone');
  out.add('filtered-by-topology', serviceOf(e), {
    expected: filtered.map((x) => formatHostPort(x.address, x.port)).join(', '),
    reason: why,
    message: t(
      '{0}: {1} ready endpoints are not used from this node ({2}): {3}.',
      servicePortText(e),
      filtered.length,
      filtered
        .map((x) => formatHostPort(x.address, x.port))
        .slice(0, 4)
        .join(', ') + (filtered.length > 4 ? ', …' : ''),
      why,
    ),
    evidence: [...dump, filtered[0].source ?? filtered[0].slice?.source],
  });
}

function compareEndpoints(e: ExpectedServicePort, a: Actual, out: Findings, options: CompareOptions): void {
  const s = a.service;
  // Its chain came from an earlier restore: the endpoints are not in this file.
  if (s.endpointsNotInDump) return;
  const wanted = shownEndpoints(e, options.mode);
  const have = new Map<string, Endpoint>();
  for (const x of s.endpoints) have.set(endpointKey(x.address, x.port), x);
  const wantedKeys = new Set<string>();
  const undecided = topologyUndecided(e, options.node);
  const localInDump = localPolicyInDumpOnly(e, s);
  for (const x of wanted) {
    const key = endpointKey(x.address, x.port);
    wantedKeys.add(key);
    if (have.has(key)) continue;
    // A Local policy of the rules that the API lacks explains a missing endpoint of another node (policy-mismatch says so).
    const explained = undecided || (localInDump && x.nodeName !== undefined && x.nodeName !== options.node.name);
    // Wanted only as a local endpoint: the Local policy decides, which is never an error (the node may be another).
    const localOnly = x.inLocal && !(usesClusterSet(e) && x.inCluster);
    out.add('missing-endpoint', serviceOf(e), {
      ...(explained ? { severity: 'info' as const } : localOnly ? { severity: 'warning' as const } : {}),
      endpoint: formatHostPort(x.address, x.port),
      expected: t('selected'),
      actual: t('absent'),
      reason: whyUsed(x),
      message: t('{0}: endpoint {1} is usable in the API, but the rules never send to it.', servicePortText(e), formatHostPort(x.address, x.port)),
      evidence: [...dumpEvidence(a).slice(0, 1), x.source ?? x.slice?.source],
    });
  }
  const api = new Map<string, ExpectedEndpoint>();
  for (const x of e.endpoints) api.set(endpointKey(x.address, x.port), x);
  for (const [key, x] of have) if (!wantedKeys.has(key)) staleEndpoint(e, a, x, api.get(key), out, options.mode);
}

/** Whether the rules apply a Local traffic policy that the API does not ask for. */
function localPolicyInDumpOnly(e: ExpectedServicePort, s: Service): boolean {
  const p = s.policies;
  return (p.internalTrafficPolicy === 'Local' && e.internalTrafficPolicy !== 'Local') || (p.externalTrafficPolicy === 'Local' && e.externalTrafficPolicy !== 'Local');
}

/** Why an endpoint is among those kube-proxy uses, in words. */
function whyUsed(x: ExpectedEndpoint): string {
  const where = x.slice ? t(' (EndpointSlice {0})', x.slice.name) : '';
  if (x.ready) return t('ready in the API{0}', where);
  return t('serving and terminating in the API{0}, used because no endpoint is ready', where);
}

/** Why an endpoint of the API is not used, in words. */
function whyExcluded(x: ExpectedEndpoint): string {
  const detail = x.detail ? ` (${x.detail})` : '';
  switch (x.excludedBecause) {
    case 'not-ready':
      return t('not ready in the API{0}', detail);
    case 'terminating':
      return t('terminating in the API{0}', detail);
    case 'not-serving':
      return t('neither ready nor serving in the API{0}', detail);
    case 'port-missing':
      return t('its EndpointSlice has no port of this name{0}', detail);
    case 'other-family':
      return t('an address of the other IP family{0}', detail);
    case 'topology':
      return t('filtered out by topology on this node{0}', detail);
    case 'not-local':
      return t('not on this node, and the traffic policy is Local{0}', detail);
    default:
      return t('not used by kube-proxy{0}', detail);
  }
}

function staleEndpoint(e: ExpectedServicePort, a: Actual, x: Endpoint, api: ExpectedEndpoint | undefined, out: Findings, mode: CheckMode): void {
  const endpoint = formatHostPort(x.address, x.port);
  // IPVS keeps a deleted real server with weight 0 until its connections end (graceful termination).
  const draining = mode === 'ipvs' && x.probability === 0;
  // Topology and the Local policies only choose among ready endpoints: a difference there is never an error.
  const policyOnly = api?.excludedBecause === 'topology' || api?.excludedBecause === 'not-local';
  out.add('stale-endpoint', serviceOf(e), {
    ...(draining || policyOnly ? { severity: 'info' as const } : {}),
    endpoint,
    expected: api ? whyExcluded(api) : t('absent'),
    actual: t('selected'),
    reason: api ? whyExcluded(api) : t('no EndpointSlice of the Service lists it: the pod is gone'),
    message: draining
      ? t('{0}: real server {1} has weight 0: IPVS drains it after the API removed it.', servicePortText(e), endpoint)
      : t('{0}: the rules still send to {1}, which the API does not offer.', servicePortText(e), endpoint),
    evidence: [at(a, x), api?.source ?? api?.slice?.source],
  });
}

function comparePolicies(e: ExpectedServicePort, a: Actual, out: Findings, mode: CheckMode): void {
  const p = a.service.policies;
  const mismatch = (what: string, expected: string, actual: string, reason: string) =>
    out.add('policy-mismatch', serviceOf(e), {
      expected,
      actual,
      reason,
      message: t('{0}: {1} is {2} in the API but {3} in the rules.', servicePortText(e), what, expected, actual),
      evidence: [...dumpEvidence(a).slice(0, 1), e.service.source],
    });
  // Affinity is on the endpoint rules (iptables, nftables): a Service without endpoints shows none.
  if (mode === 'ipvs' || a.service.endpoints.length > 0) {
    const want = e.service.sessionAffinity === 'ClientIP' ? (e.sessionAffinityTimeoutSeconds ?? e.service.sessionAffinityTimeoutSeconds ?? 10800) : undefined;
    const have = p.sessionAffinity?.timeoutSeconds;
    if (want !== have) {
      const words = (s: number | undefined) => (s === undefined ? 'None' : t('ClientIP {0}s', s));
      mismatch(t('session affinity'), words(want), words(have), t('spec.sessionAffinity is {0}', e.service.sessionAffinity));
    }
  }
  const external = e.frontends.some(isExternal);
  if (external && p.externalTrafficPolicy && p.externalTrafficPolicy !== e.externalTrafficPolicy && externalPolicyShown(e, a, mode)) {
    mismatch('externalTrafficPolicy', e.externalTrafficPolicy, p.externalTrafficPolicy, t('spec.externalTrafficPolicy is {0}', e.externalTrafficPolicy));
  }
  // IPVS cannot show the internal policy: the ClusterIP's real servers are the only trace of it.
  if (mode !== 'ipvs' && p.internalTrafficPolicy && p.internalTrafficPolicy !== e.internalTrafficPolicy) {
    mismatch('internalTrafficPolicy', e.internalTrafficPolicy, p.internalTrafficPolicy, t('spec.internalTrafficPolicy is {0}', e.internalTrafficPolicy));
  }
  compareSourceRanges(e, a, mismatch, mode);
}

/**
 * Whether the dump can show the external policy: IPVS tells Local only by a NodePort's real servers being fewer
 * than the ClusterIP's, which they are not when every endpoint is on this node, and which cannot be seen when the
 * NodePort has none (it then stands alone, not joined to the ClusterIP).
 */
function externalPolicyShown(e: ExpectedServicePort, a: Actual, mode: CheckMode): boolean {
  if (mode !== 'ipvs' || e.externalTrafficPolicy !== 'Local') return true;
  // With no local endpoint the NodePort falls back to the cluster ones (kubernetes#97081): it looks like Cluster.
  return a.service.frontends.some((f) => f.kind !== 'clusterIP') && e.endpoints.some((x) => x.inLocal) && e.endpoints.some((x) => x.inCluster && !x.inLocal);
}

function compareSourceRanges(e: ExpectedServicePort, a: Actual, mismatch: (what: string, expected: string, actual: string, reason: string) => void, mode: CheckMode): void {
  // IPVS keeps them in an ipset the catalog does not read per Service; a Service without load-balancer IPs has none.
  if (mode === 'ipvs' || !e.frontends.some((f) => f.kind === 'loadBalancer')) return;
  const want = normalizeAddressIntervals(e.loadBalancerSourceRanges);
  const have = a.service.policies.loadBalancerSourceRanges;
  // Without endpoints the firewall chain is not written: nothing to compare.
  if (!have && a.service.endpoints.length === 0) return;
  const shown = normalizeAddressIntervals(have ?? []);
  const joined = shown.join(',');
  // Covered: adding it changes nothing. kube-proxy adds the node's own addresses, so extra ranges are no mismatch.
  const covered = (r: string) => normalizeAddressIntervals([...shown, r]).join(',') === joined;
  if (want.every(covered) && (want.length > 0 || shown.length === 0)) return;
  mismatch('loadBalancerSourceRanges', want.join(', ') || t('none'), shown.join(', ') || t('none'), t('spec.loadBalancerSourceRanges is {0}', e.loadBalancerSourceRanges.join(', ') || '[]'));
}

/** The mode kube-proxy's ConfigMap asks for, against the dump's. */
export function modeFinding(state: ClusterState, mode: NodeSnapshot['mode']): Finding | undefined {
  const config = state.proxyConfig;
  if (!config || config.mode === undefined) return undefined;
  const wanted = config.mode === '' ? 'iptables' : config.mode;
  if (mode !== 'iptables' && mode !== 'ipvs' && mode !== 'nftables') return undefined;
  if (wanted === mode) return undefined;
  const out = new Findings();
  // It concerns no Service: the Service fields are empty.
  out.add(
    'mode-mismatch',
    { namespace: '', name: '', portName: '', protocol: '' },
    {
      expected: wanted,
      actual: mode,
      reason: config.mode === '' ? t('the kube-proxy ConfigMap leaves mode empty: iptables on Linux') : t('the kube-proxy ConfigMap sets mode: {0}', config.mode),
      message: t('kube-proxy is configured for {0} mode, but the dump shows {1} mode: it was not restarted, or the node runs another configuration.', wanted, mode),
      evidence: [config.source],
    },
  );
  return out.list[0];
}

/** Findings worst first, then by Service: the order of the report and the JSON. */
export function sortFindings(findings: Finding[]): Finding[] {
  const worst = new Map<string, number>();
  const key = (f: Finding) => `${f.service.namespace}/${f.service.name}`;
  for (const f of findings) worst.set(key(f), Math.min(worst.get(key(f)) ?? 9, SEVERITY_RANK[f.severity]));
  return findings
    .map((f, i) => ({ f, i }))
    .sort((x, y) => worst.get(key(x.f))! - worst.get(key(y.f))! || key(x.f).localeCompare(key(y.f)) || SEVERITY_RANK[x.f.severity] - SEVERITY_RANK[y.f.severity] || x.i - y.i)
    .map((x) => x.f);
}

export function countFindings(findings: Finding[]): CheckResult['summary']['findings'] {
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}
