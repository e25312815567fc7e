// The Service vocabulary (DESIGN §4) shared by the three catalogs (iptables, nftables, IPVS) and everything that
// shows their Services: the types, the names kube-proxy gives a Service port, the order of Services and of their
// frontends, labels, shares, and the services JSON of the CLI.
import type { Diagnostic } from '../model/diagnostics';
import type { Range } from '../model/range';

export type FrontendKind = 'clusterIP' | 'nodePort' | 'loadBalancer' | 'externalIP';

export interface ObjectRef {
  /** Chain name, or the rule's chain for rules. */
  name: string;
  tableId: string;
  range: Range;
  role:
    | 'service-chain'
    | 'service-local-chain'
    | 'external-chain'
    | 'firewall-chain'
    | 'endpoint-chain'
    | 'frontend-rule'
    | 'reject-rule'
    | 'map-element'
    | 'set-element'
    | 'affinity-set'
    | 'virtual-service'
    | 'real-server'
    | 'ipset-member';
}

export interface Frontend {
  kind: FrontendKind;
  address?: string;
  port: number;
  range?: Range;
  /**
   * The dump cannot tell an external IP from a load-balancer IP here: in iptables mode for Services without
   * endpoints (the same REJECT rule), in nftables mode for every address not listed in `firewall-ips`.
   * Such frontends are reported as externalIP with this flag.
   */
  kindUncertain?: boolean;
  /** Why the kind was guessed, in words ("probably a NodePort: the same port on 3 node addresses"). */
  kindNote?: string;
}

export interface Endpoint {
  address: string;
  port: number;
  /** Share of new ClusterIP connections from a pod that reach this endpoint. */
  probability: number;
  local?: boolean;
  /** The KUBE-SEP chain. */
  chain?: string;
  /** The raw `--probability` on the rule that selects it (kube-proxy writes 1/n, 1/(n-1), …). */
  ruleProbability?: number;
  range?: Range;
  /**
   * Set only when a Local traffic policy splits the selection (see hasPolicyShares): the endpoint's share of the
   * cluster policy chain (KUBE-SVC, nft `service-…`) and of the local one (KUBE-SVL, nft `local-…`); absent
   * where that chain does not select it.
   */
  clusterShare?: number;
  localShare?: number;
}

/** Whether the catalog gave the endpoints their shares per policy chain (else `probability` is the cluster chain's). */
export function hasPolicyShares(s: Service): boolean {
  return s.endpoints.some((e) => e.clusterShare !== undefined || e.localShare !== undefined);
}

/**
 * What the external chain of an externalTrafficPolicy Local Service sends to the cluster policy chain anyway:
 * pods (kube-proxy's local-traffic detector: a source CIDR or an input interface) and this node (`addrtype
 * --src-type LOCAL`, nft `fib saddr type local`); everyone else goes to the local policy chain.
 */
export interface ShortCircuit {
  podSource?: string;
  podInterface?: string;
  node?: boolean;
}

export interface Policies {
  sessionAffinity?: { kind: 'ClientIP'; timeoutSeconds: number };
  externalTrafficPolicy?: 'Cluster' | 'Local';
  internalTrafficPolicy?: 'Cluster' | 'Local';
  loadBalancerSourceRanges?: string[];
  /** What happens to connections when the service has no (local) endpoints. */
  noEndpoints?: 'reject' | 'drop';
  /** A Local policy with endpoints, none of them on this node: kube-proxy drops that traffic ("has no local endpoints"). */
  noLocalEndpoints?: { internal?: boolean; external?: boolean };
  /** externalTrafficPolicy Local: the sources that still reach every endpoint. */
  shortCircuit?: ShortCircuit;
  /** Sources outside this range are masqueraded (the `! -s clusterCIDR -j KUBE-MARK-MASQ` rule). */
  clusterCIDR?: string;
  masqueradeAll?: boolean;
  /** IPVS mode: every NodePort connection is masqueraded (KUBE-NODE-PORT's `--match-set KUBE-NODE-PORT-<PROTO>` → KUBE-MARK-MASQ). */
  nodePortMasquerade?: boolean;
  /** IPVS mode: the virtual service's scheduler and what it means for the shares. */
  scheduler?: string;
  schedulerNote?: string;
}

export interface HashCheck {
  chain: string;
  expected: string;
  ok: boolean;
  range: Range;
}

export interface Service {
  namespace: string;
  name: string;
  portName: string;
  protocol: string;
  frontends: Frontend[];
  endpoints: Endpoint[];
  policies: Policies;
  objects: ObjectRef[];
  /** The hash shared by KUBE-SVC/SVL/EXT/FW chains. */
  hash?: string;
  /** True when the name is unknown (no comments) and `name` holds the chain name instead. */
  anonymous?: boolean;
  hashChecks: HashCheck[];
  family: 'ipv4' | 'ipv6';
  /** The Service's chain is jumped to but not in this file (kube-proxy's partial restore input). */
  endpointsNotInDump?: boolean;
}

/** What has a name range: a chain or a named set (the parsers' chains make theirs when asked). */
export type Named = { readonly nameRange: Range };

/** A hash check whose range is its object's name, made when asked (one per chain of a large dump, docs/performance.md#memory). */
export class NamedHashCheck implements HashCheck {
  // A private field, not a property: answers sent to the extension host must not carry the whole chain.
  readonly #of: Named;
  constructor(
    readonly chain: string,
    readonly expected: string,
    readonly ok: boolean,
    of: Named,
  ) {
    this.#of = of;
  }

  get range(): Range {
    return this.#of.nameRange;
  }
}

/** An object of a Service whose range is the name of a chain or set, made when asked. */
export class NamedObjectRef implements ObjectRef {
  readonly #of: Named;
  constructor(
    readonly name: string,
    readonly tableId: string,
    readonly role: ObjectRef['role'],
    of: Named,
  ) {
    this.#of = of;
  }

  get range(): Range {
    return this.#of.nameRange;
  }
}

export interface Catalog {
  mode: 'iptables' | 'nftables' | 'ipvs';
  services: Service[];
  diagnostics: Diagnostic[];
  /** How many more diagnostics the checks found than `diagnostics` holds (see CappedDiagnostics). */
  unreported?: number;
}

export interface ServicePortName {
  namespace: string;
  name: string;
  portName: string;
}

const SERVICE_PORT_NAME =
  /^(?:masquerade (?:LOCAL )?traffic for |pod traffic for |route LOCAL traffic for |other traffic to |Balancing rule \d+ for )?([a-z0-9]([-a-z0-9.]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)(?::(\S*))?(?:\s|$)/i;

/**
 * The Service port a kube-proxy comment names, in every form it wrote: `ns/name:port …`, `ns/name …`, and older
 * versions' `ns/name: …` for an unnamed port (their ServicePortName.String() always added the colon), bare or
 * after a lead-in ("masquerade traffic for", "Balancing rule 0 for", …).
 */
export function parseServicePortName(comment: string | undefined): ServicePortName | undefined {
  if (!comment) return undefined;
  const m = SERVICE_PORT_NAME.exec(comment);
  if (!m) return undefined;
  return { namespace: m[1], name: m[3], portName: m[5] ?? '' };
}

/**
 * The spellings kube-proxy hashed a Service port's name in: "ns/name:port", or for an unnamed port "ns/name"
 * (newer) and "ns/name:" (older versions, whose comments show the colon too).
 */
export function hashedServicePortNames(spn: ServicePortName): string[] {
  const name = servicePortNameString(spn);
  return spn.portName ? [name] : [name, `${name}:`];
}

export function servicePortNameString(spn: ServicePortName): string {
  return `${spn.namespace}/${spn.name}${spn.portName ? `:${spn.portName}` : ''}`;
}

const FRONTEND_ORDER: Record<FrontendKind, number> = { clusterIP: 0, nodePort: 1, loadBalancer: 2, externalIP: 3 };
/** localeCompare's order without its per-call collator. */
const plainOrder = new Intl.Collator();

/** The order every catalog lists a Service's frontends in: kind, address, port. */
export function compareFrontends(a: Frontend, b: Frontend): number {
  return FRONTEND_ORDER[a.kind] - FRONTEND_ORDER[b.kind] || plainOrder.compare(a.address ?? '', b.address ?? '') || a.port - b.port;
}

/** Sorts a Service's frontends in place (most have one: sort() would still allocate its work state). */
export function sortFrontends(frontends: Frontend[]): void {
  if (frontends.length > 1) frontends.sort(compareFrontends);
}

/** What the snapshot says beside its catalogs: its mode and the rules of other modes left on the node. */
export interface CatalogJsonContext {
  mode?: string;
  leftovers?: { mode: string; file: string; note: string }[];
}

/** The services JSON of `dataplane services --json` (CLI contract). */
export function catalogToJson(catalogs: Catalog[], context: CatalogJsonContext = {}): unknown {
  const current = context.mode === 'iptables' || context.mode === 'ipvs' || context.mode === 'nftables' ? context.mode : undefined;
  const services = catalogs.flatMap((c) => c.services.map((s) => ({ s, leftover: current !== undefined && c.mode !== current })));
  return {
    mode: current ?? catalogs[0]?.mode ?? 'iptables',
    ...(context.leftovers && context.leftovers.length > 0 ? { leftovers: context.leftovers } : {}),
    services: services.map(({ s, leftover }) => ({
      namespace: s.namespace,
      name: s.name,
      portName: s.portName,
      protocol: s.protocol,
      ...(leftover ? { leftover: true } : {}),
      frontends: s.frontends.map(frontendJson),
      endpoints: s.endpoints.map((e) => {
        const out: { address: string; port: number; probability: number; local?: boolean } = { address: e.address, port: e.port, probability: roundProbability(e.probability) };
        if (e.local !== undefined) out.local = e.local;
        return out;
      }),
      policies: policiesJson(s.policies, s),
    })),
  };
}

function frontendJson(f: Frontend): Record<string, unknown> {
  const out: Record<string, unknown> = f.address === undefined ? { kind: f.kind, port: f.port } : { kind: f.kind, address: f.address, port: f.port };
  if (f.kindUncertain) {
    out.uncertain = true;
    if (f.kindNote) out.why = f.kindNote;
  }
  return out;
}

function policiesJson(p: Policies, s: Service): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.endpointsNotInDump) out.endpointsNotInDump = true;
  out.sessionAffinity = p.sessionAffinity ? 'ClientIP' : 'None';
  if (p.sessionAffinity) out.sessionAffinityTimeoutSeconds = p.sessionAffinity.timeoutSeconds;
  if (p.externalTrafficPolicy) out.externalTrafficPolicy = p.externalTrafficPolicy;
  if (p.internalTrafficPolicy) out.internalTrafficPolicy = p.internalTrafficPolicy;
  if (p.loadBalancerSourceRanges) out.loadBalancerSourceRanges = p.loadBalancerSourceRanges;
  if (p.noEndpoints) out.noEndpoints = p.noEndpoints;
  if (p.clusterCIDR) out.clusterCIDR = p.clusterCIDR;
  if (p.masqueradeAll) out.masqueradeAll = true;
  if (p.scheduler) out.scheduler = p.scheduler;
  if (p.schedulerNote) out.schedulerNote = p.schedulerNote;
  return out;
}

/** Probabilities from chained 1/n rules carry float noise; 12 significant digits are plenty. */
export function roundProbability(p: number): number {
  return Number(p.toPrecision(12));
}

export function formatShare(p: number): string {
  const pct = p * 100;
  if (pct === 0 || pct === 100) return `${pct}%`;
  return `${pct.toFixed(pct < 1 ? 2 : 1).replace(/\.0+$/, '')}%`;
}

export function serviceLabel(s: Service): string {
  return s.anonymous ? s.name : `${servicePortNameString(s)}/${s.protocol}`;
}

/** The order every catalog lists its Services in: namespace, name, port name, protocol, family. */
export function compareServices(a: Service, b: Service): number {
  return a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.portName.localeCompare(b.portName) || a.protocol.localeCompare(b.protocol) || a.family.localeCompare(b.family);
}
