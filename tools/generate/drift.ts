// Part of the dump generator, a test oracle kept apart from the product: see tools/generate/README.md.
// Drifts between a generated cluster's API objects and its node's dump, made on purpose, with the findings a
// checker must report for them (no more, no fewer) as ground truth.
//
// A scenario starts from a cluster, derives what kube-proxy programs on the node (servicePortsForNode) and
// then breaks one side: the API objects (what the cluster-state file says) or the dump's input (the
// GenServicePort[] and mode the dump generators get). Each drift picks its own Service: a plain one of the
// cluster (ClusterIP, Cluster policies, no topology, no affinity, two or more ready pods) when there is one
// left, else a fresh Service of three ready pods in three zones added to both sides first.
//
// Ground-truth conventions (what a checker compares against):
//  - `service.protocol` is the API's upper-case TCP/UDP/SCTP; `portName` "" for an unnamed port;
//  - `endpoint` is kube-proxy's Endpoint.String(): net.JoinHostPort(ip, targetPort), so "[fd00::1]:80";
//  - `frontend.kind` is an ExpectedFrontendKind of src/core/cluster/types.ts;
//  - mode-mismatch concerns no Service: its `service` fields are all "";
//  - no-endpoints (kube-proxy REJECTs: no ready or serving-terminating endpoint anywhere) and
//    filtered-by-topology (hints left some ready endpoint out on this node) are reported for every Service
//    port of the dump's family where they hold, drift or not, once per Service port; a not-ready pod that is
//    also absent from the dump, or a Local-policy Service without a local endpoint, is no finding at all.
import { familyOf, type Family } from './address';
import { PodAddresses, PodNamer, clusterIPOf, podAddress, portView, servicePortsForNode, type GenCluster, type GenNode, type GenPod, type GenService, type ProxyMode } from './cluster';
import { mulberry32, type GenServicePort } from './iptables';

/** The checker's finding codes (src/core/cluster/types.ts), spelled out here: the oracle imports no product type. */
export type FindingCode = 'not-programmed' | 'stale-service' | 'missing-endpoint' | 'stale-endpoint' | 'frontend-mismatch' | 'policy-mismatch' | 'no-endpoints' | 'filtered-by-topology' | 'mode-mismatch';

export type DriftKind = FindingCode;

export const DRIFT_KINDS: readonly DriftKind[] = ['not-programmed', 'stale-service', 'missing-endpoint', 'stale-endpoint', 'frontend-mismatch', 'policy-mismatch', 'no-endpoints', 'filtered-by-topology', 'mode-mismatch'];

export const DRIFT_SEVERITY: Record<FindingCode, 'error' | 'warning' | 'info'> = {
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

/** A Finding reduced to what identifies it (the checker's words and evidence are its own). */
export interface ExpectedFinding {
  code: FindingCode;
  severity: 'error' | 'warning' | 'info';
  service: { namespace: string; name: string; portName: string; protocol: string };
  endpoint?: string;
  frontend?: ExpectedFrontend;
}

/** kind: an ExpectedFrontendKind of src/core/cluster/types.ts. */
export interface ExpectedFrontend {
  kind: 'clusterIP' | 'nodePort' | 'externalIP' | 'loadBalancer' | 'healthCheckNodePort';
  address?: string;
  port: number;
}

export interface Scenario {
  /** The API side: what the cluster-state file says. */
  cluster: GenCluster;
  /** The dump side: what kube-proxy programmed on `node`. */
  services: GenServicePort[];
  mode: ProxyMode;
  family: Family;
  node: string;
  /** Every finding a checker must report, sorted (sortFindings). */
  findings: ExpectedFinding[];
}

export interface ScenarioOptions {
  node: string;
  family: Family;
  mode: ProxyMode;
  drifts?: readonly DriftKind[];
  seed?: number;
}

export function joinHostPort(ip: string, port: number): string {
  return familyOf(ip) === 'ipv6' ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function finding(code: FindingCode, svc: GenService, port: GenService['ports'][number], extra: Partial<ExpectedFinding> = {}): ExpectedFinding {
  return { code, severity: DRIFT_SEVERITY[code], service: { namespace: svc.namespace, name: svc.name, portName: port.name, protocol: port.protocol }, ...extra };
}

/** The infos kube-proxy's own behaviour explains: no-endpoints and filtered-by-topology, per Service port. */
export function infoFindings(cluster: GenCluster, nodeName: string, family: Family): ExpectedFinding[] {
  const node = cluster.nodes.find((n) => n.name === nodeName)!;
  const out: ExpectedFinding[] = [];
  for (const svc of cluster.services) {
    if (clusterIPOf(svc, family) === undefined) continue;
    for (const port of svc.ports) {
      const view = portView(svc, port, family, node);
      if (!view.hasAny) out.push(finding('no-endpoints', svc, port));
      if (view.filteredByTopology) out.push(finding('filtered-by-topology', svc, port));
    }
  }
  return out;
}

const findingKey = (f: ExpectedFinding) =>
  [f.code, f.service.namespace, f.service.name, f.service.portName, f.service.protocol, f.endpoint ?? '', f.frontend?.kind ?? '', f.frontend?.address ?? '', f.frontend?.port ?? ''].join('\u0000');

export function sortFindings(list: ExpectedFinding[]): ExpectedFinding[] {
  return [...list].sort((a, b) => (findingKey(a) < findingKey(b) ? -1 : findingKey(a) > findingKey(b) ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------------------
// Choosing and making the Services a drift works on

function plain(svc: GenService, family: Family): boolean {
  const pods = svc.pods.filter((p) => podAddress(p, family) !== undefined);
  return (
    svc.type === 'ClusterIP' &&
    svc.clusterIPs.length === 1 &&
    clusterIPOf(svc, family) !== undefined &&
    svc.externalIPs.length === 0 &&
    svc.externalTrafficPolicy === 'Cluster' &&
    svc.internalTrafficPolicy === 'Cluster' &&
    !svc.trafficDistribution &&
    !svc.topologyMode &&
    svc.sessionAffinityTimeout === undefined &&
    pods.length >= 2 &&
    pods.every((p) => p.ready && !p.hints)
  );
}

/** Two or more zones among the pods, one of them the node's: hints will narrow the endpoints. */
function spansZones(svc: GenService, nodes: GenNode[], node: GenNode): boolean {
  const zones = new Set(svc.pods.map((p) => nodes.find((n) => n.name === p.nodeName)?.zone));
  return node.zone !== undefined && zones.has(node.zone) && zones.size >= 2 && !zones.has(undefined);
}

class Targets {
  private readonly used = new Set<GenService>();
  private readonly order: GenService[];
  private fresh = 0;
  constructor(
    private readonly cluster: GenCluster,
    private readonly node: GenNode,
    private readonly family: Family,
    rnd: () => number,
  ) {
    this.order = cluster.services
      .map((s) => ({ s, r: rnd() }))
      .sort((a, b) => a.r - b.r)
      .map((x) => x.s);
  }

  take(kind: DriftKind): GenService {
    const ok = (s: GenService) => !this.used.has(s) && plain(s, this.family) && (kind !== 'filtered-by-topology' || spansZones(s, this.cluster.nodes, this.node));
    const svc = this.order.find(ok) ?? this.make();
    this.used.add(svc);
    return svc;
  }

  /** A fresh ClusterIP Service with a pod on the node and one in each of two other zones (or nodes). */
  private make(): GenService {
    const i = this.fresh++;
    const names = ['orders', 'users', 'search', 'auth', 'catalog', 'billing', 'mailer', 'ledger', 'inventory'];
    const name = `${names[i % names.length]}-x${i}`;
    const v4 = `10.96.255.${10 + i}`;
    const clusterIP = this.family === 'ipv4' ? v4 : `fd00:10:96::${(0xff00 + 10 + i).toString(16)}`;
    const nodes = this.spread();
    const used = new Set(this.cluster.services.flatMap((s) => s.pods.flatMap((p) => p.addresses)));
    const addresses = new PodAddresses();
    const namer = new PodNamer(mulberry32(0xf00d + i));
    const rs = namer.replicaSet(name);
    const pods: GenPod[] = nodes.map((n) => {
      let address = addresses.allocate(n, this.family);
      while (used.has(address)) address = addresses.allocate(n, this.family);
      return { name: namer.pod(rs), nodeName: n.name, addresses: [address], ready: true, serving: true, terminating: false };
    });
    const svc: GenService = {
      namespace: 'default',
      name,
      type: 'ClusterIP',
      clusterIPs: [clusterIP],
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }],
      externalIPs: [],
      loadBalancerIPs: [],
      loadBalancerSourceRanges: [],
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      pods,
    };
    this.cluster.services.push(svc);
    return svc;
  }

  /** The node, then nodes of other zones first. */
  private spread(): GenNode[] {
    const others = this.cluster.nodes.filter((n) => n !== this.node);
    const otherZone = others.filter((n) => n.zone !== this.node.zone);
    const rest = others.filter((n) => n.zone === this.node.zone);
    return [this.node, ...otherZone, ...rest].slice(0, 3);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The drifts

const OTHER_MODE: Record<ProxyMode, ProxyMode> = { iptables: 'ipvs', nftables: 'iptables', ipvs: 'iptables' };

interface Work {
  api: GenCluster;
  dump: GenServicePort[];
  node: GenNode;
  family: Family;
  mode: ProxyMode;
  findings: ExpectedFinding[];
}

const samePort = (svc: GenService) => (sp: GenServicePort) => sp.namespace === svc.namespace && sp.name === svc.name;

/** Changes made to the API before the dump is derived: kube-proxy followed them (infos, not drifts). */
function consistent(kind: DriftKind, svc: GenService, w: Work): void {
  if (kind === 'no-endpoints') {
    for (const p of svc.pods) Object.assign(p, { ready: false, serving: false, terminating: false });
  } else if (kind === 'filtered-by-topology') {
    svc.trafficDistribution = 'PreferClose';
    for (const p of svc.pods) p.hints = { forZones: [w.api.nodes.find((n) => n.name === p.nodeName)!.zone!] };
  }
}

/** Changes made after: one side no longer matches the other. */
function breakOne(kind: DriftKind, svc: GenService, w: Work): void {
  const each = (extra: (port: GenService['ports'][number]) => Partial<ExpectedFinding> = () => ({})) => {
    for (const port of svc.ports) w.findings.push(finding(kind, svc, port, extra(port)));
  };
  if (kind === 'not-programmed') {
    w.dump = w.dump.filter((sp) => !samePort(svc)(sp));
    each();
  } else if (kind === 'stale-service') {
    w.api.services.splice(w.api.services.indexOf(svc), 1);
    each();
  } else if (kind === 'missing-endpoint') {
    const sp = w.dump.find(samePort(svc))!;
    const gone = sp.endpoints.shift()!;
    w.findings.push(
      finding(
        kind,
        svc,
        svc.ports.find((p) => p.name === sp.portName)!,
        { endpoint: joinHostPort(gone.address, gone.port) },
      ),
    );
  } else if (kind === 'stale-endpoint') {
    const pod = svc.pods[0]!;
    Object.assign(pod, { ready: false, serving: false, terminating: false });
    each((port) => ({ endpoint: joinHostPort(podAddress(pod, w.family)!, port.targetPort) }));
  } else if (kind === 'frontend-mismatch') {
    const n = w.api.services.indexOf(svc) % 250;
    const address = w.family === 'ipv4' ? `198.19.255.${n + 1}` : `2001:db8::c613:ff${n.toString(16).padStart(2, '0')}`;
    svc.externalIPs = [address];
    each((port) => ({ frontend: { kind: 'externalIP', address, port: port.port } }));
  } else if (kind === 'policy-mismatch') {
    svc.sessionAffinityTimeout = 10800;
    each();
  }
}

/**
 * A node's dump and the cluster's API objects with the given drifts, and the findings they must give.
 * The input cluster is not changed. Same cluster and options, same scenario.
 */
export function scenario(input: GenCluster, opts: ScenarioOptions): Scenario {
  const api = structuredClone(input);
  const node = api.nodes.find((n) => n.name === opts.node);
  if (!node) throw new Error(`no node named ${opts.node}`);
  const kinds = [...new Set(opts.drifts ?? [])];
  const targets = new Targets(api, node, opts.family, mulberry32(opts.seed ?? 1));
  const chosen = kinds.filter((k) => k !== 'mode-mismatch').map((k) => ({ kind: k, svc: targets.take(k) }));
  const w: Work = { api, dump: [], node, family: opts.family, mode: opts.mode, findings: [] };
  for (const { kind, svc } of chosen) consistent(kind, svc, w);
  w.dump = servicePortsForNode(api, node.name, opts.family);
  for (const { kind, svc } of chosen) breakOne(kind, svc, w);
  api.proxy = { mode: opts.mode, clusterCIDR: input.proxy?.clusterCIDR ?? '' };
  if (kinds.includes('mode-mismatch')) {
    api.proxy.mode = OTHER_MODE[opts.mode];
    w.findings.push({ code: 'mode-mismatch', severity: DRIFT_SEVERITY['mode-mismatch'], service: { namespace: '', name: '', portName: '', protocol: '' } });
  }
  const findings = sortFindings([...w.findings, ...infoFindings(api, node.name, opts.family)]);
  return { cluster: api, services: w.dump, mode: opts.mode, family: opts.family, node: node.name, findings };
}
