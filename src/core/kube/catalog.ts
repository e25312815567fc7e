// The Service catalog (DESIGN §4) of an iptables-mode node: built from kube-proxy's comments where it
// wrote them and from the chain structure where it did not (large clusters drop most comments).
import { CappedDiagnostics } from '../model/diagnostics';
import { findMatchOption, findParam, matchOptionValues, plainParam, targetOptionValue, type Chain, type IptablesRuleset, type Rule, type Table } from '../model/iptables';
import type { Range } from '../model/range';
import { t } from '../l10n';
import { classifyKubeChain, isServiceHashedKind } from './chains';
import { endpointHash, isEndpointHashName, portProtoHash } from './hash';
import { ChainNode, RuleNode, withTransientRuleDetails } from '../parse/iptables/nodes';
import { RuleFacts } from '../parse/iptables/rule-facts';
import { formatHostPort } from '../model/address';
import {
  compareServices,
  hashedServicePortNames,
  NamedHashCheck,
  NamedObjectRef,
  parseServicePortName,
  servicePortNameString,
  sortFrontends,
  type Catalog,
  type Endpoint,
  type Frontend,
  type FrontendKind,
  type ObjectRef,
  type Service,
  type ServicePortName,
  type ShortCircuit,
} from './service';

/** An iptables rule as an object of a Service (its frontend or reject rule): the range is the rule's, made when asked. */
class RuleObjectRef implements ObjectRef {
  readonly #rule: Rule;
  readonly name: string;
  readonly tableId: string;
  constructor(
    rule: Rule,
    readonly role: ObjectRef['role'],
  ) {
    this.#rule = rule;
    this.name = rule.chain;
    this.tableId = rule.tableId;
  }

  get range(): Range {
    return this.#rule.range;
  }
}

/**
 * An endpoint selected by a rule of a KUBE-SVC/SVL chain, whose range is that rule's, made when asked: a 10,000
 * Service dump has 100,000 of them, and three range objects each were a good part of the catalog (docs/performance.md#memory).
 */
class RuleEndpoint implements Endpoint {
  readonly #rule: Rule;
  declare local?: boolean;
  declare ruleProbability?: number;
  declare clusterShare?: number;
  declare localShare?: number;
  constructor(
    readonly address: string,
    readonly port: number,
    public probability: number,
    readonly chain: string,
    rule: Rule,
  ) {
    this.#rule = rule;
  }

  get range(): Range {
    return this.#rule.range;
  }
}

function stripHostPrefix(address: string): string {
  return address.replace(/\/(32|128)$/, '');
}

/** The (first) address and port of a DNAT `--to-destination` or an endpoint comment; port 0 when none is given. */
export function splitHostPort(value: string): { address: string; port: number } | undefined {
  // `a.b.c.d:port`, the DNAT of every endpoint, without the regular expressions below.
  const colon = value.indexOf(':');
  if (colon > 0 && colon === value.lastIndexOf(':') && !value.includes('-') && value.charCodeAt(0) !== 91) {
    const digits = value.length - colon - 1;
    let port = 0;
    for (let k = colon + 1; k < value.length; k++) {
      const c = value.charCodeAt(k);
      if (c < 48 || c > 57) return splitHostPortSlowly(value);
      port = port * 10 + (c - 48);
    }
    if (digits >= 1 && digits <= 5) return { address: value.slice(0, colon), port };
  }
  return splitHostPortSlowly(value);
}

function splitHostPortSlowly(value: string): { address: string; port: number } | undefined {
  const v6 = /^\[([^\]]+)\](?::(\d+))?/.exec(value);
  if (v6) return { address: v6[1], port: Number(v6[2] ?? 0) };
  const m = /^([^:]+)(?::(\d+))?/.exec(value);
  if (!m) return undefined;
  // `--to-destination 10.0.0.1:80-90` or `10.0.0.1-10.0.0.5` ranges: keep the first address/port.
  return { address: m[1].split('-')[0], port: Number(m[2] ?? 0) };
}

/** The first `-d`'s value unless negated, without a /32 or /128. */
function destination(rule: Rule): string | undefined {
  const d = plainParam(rule, '-d');
  return d === undefined ? undefined : stripHostPrefix(d);
}

const STATISTIC_OPTIONS = ['--mode', '--probability'] as const;

function isStatisticRandom(rule: Rule): number | undefined {
  const [mode, probability] = matchOptionValues(rule, 'statistic', STATISTIC_OPTIONS);
  if (mode !== 'random') return undefined;
  const p = Number(probability);
  return Number.isFinite(p) ? p : undefined;
}

function frontendKindFromComment(comment: string | undefined): FrontendKind | undefined {
  if (!comment) return undefined;
  if (/ cluster IP$/.test(comment)) return 'clusterIP';
  if (/ external IP$/.test(comment)) return 'externalIP';
  if (/ loadbalancer IP$/.test(comment)) return 'loadBalancer';
  return undefined;
}

/** The kinds of chain named after a Service port's hash (see isServiceHashedKind). */
type HashedKind = 'service' | 'service-local' | 'external' | 'firewall' | 'legacy-xlb';

/** One kube-proxy hash of a nat table: its Service and its chains by kind, found once by name (docs/performance.md#memory). */
interface HashEntry {
  service: Service | undefined;
  chains: Record<HashedKind, Chain | undefined>;
}

/**
 * The kube-proxy hashes of a nat table with their chains (deleted ones too), and those with a Service in the order
 * the Services were made (that of byKey).
 */
class HashEntries {
  private readonly byHash = new Map<string, HashEntry>();
  readonly withService: HashEntry[] = [];

  get(hash: string): HashEntry {
    let found = this.byHash.get(hash);
    if (found === undefined) {
      const chains = { service: undefined, 'service-local': undefined, external: undefined, firewall: undefined, 'legacy-xlb': undefined };
      this.byHash.set(hash, (found = { service: undefined, chains }));
    }
    return found;
  }
}

/** The chains whose names are checked against a Service's hash, in order, with their prefix. */
const NAME_CHECKED_CHAINS: readonly [HashedKind, string][] = [
  ['service', 'KUBE-SVC-'],
  ['service-local', 'KUBE-SVL-'],
  ['external', 'KUBE-EXT-'],
  ['firewall', 'KUBE-FW-'],
];

class CatalogBuilder {
  private readonly byKey = new Map<string, Service>();
  private readonly indexes = new Map<number, { byName: Map<string, Service>; byFrontend: Map<string, Service> }>();
  /** Hints about the kube-proxy objects, capped: one per chain of a huge dump would be a million. */
  private readonly found = new CappedDiagnostics();
  /** Reads what the catalog needs of a rule from the facts the parser kept (see RuleFacts). */
  private readonly peek = new RuleFacts();

  constructor(private readonly ruleset: IptablesRuleset) {}

  build(): Catalog {
    for (const table of this.ruleset.tables) {
      if (table.name === 'nat') this.natTable(table);
    }
    for (const table of this.ruleset.tables) {
      if (table.name === 'filter') this.filterTable(table);
    }
    const services = [...this.byKey.values()];
    for (const s of services) this.finish(s);
    services.sort(compareServices);
    return { mode: 'iptables', services, diagnostics: this.found.items, unreported: this.found.unreported };
  }

  private service(table: Table, key: string): Service {
    const fullKey = `${table.saveIndex}\u0000${key}`;
    let s = this.byKey.get(fullKey);
    if (!s) {
      s = { namespace: '', name: '', portName: '', protocol: '', frontends: [], endpoints: [], policies: {}, objects: [], hashChecks: [], family: table.family };
      this.byKey.set(fullKey, s);
    }
    return s;
  }

  /** The Service of kube-proxy hash `hash` in the nat table `table`, made (and listed in `made`) when new. */
  private hashedService(table: Table, entry: HashEntry, hash: string, made: HashEntry[]): Service {
    let s = entry.service;
    if (s === undefined) {
      s = entry.service = this.service(table, `hash:${hash}`);
      made.push(entry);
    }
    s.hash = hash;
    return s;
  }

  private nameFrom(s: Service, spn: ServicePortName | undefined): void {
    if (!spn || s.name) return;
    s.namespace = spn.namespace;
    s.name = spn.name;
    s.portName = spn.portName;
  }

  private natTable(table: Table): void {
    // What the KUBE-MARK-MASQ rules of each SVC/SVL chain say (see masqueradeEffects), read in step 1 just after the
    // chain's first rule (usually that rule), applied in step 3 to the chain the Service uses.
    const masquerade = new Map<Chain, (string | true)[]>();
    const hashes = new HashEntries();
    // 1. Hashed per-service chains give the identity and the endpoint selection.
    for (const chain of table.chains) this.hashedChain(table, chain, hashes, masquerade);
    // 2. Frontends from KUBE-SERVICES and KUBE-NODEPORTS.
    this.servicesFrontends(table, hashes);
    this.nodePortFrontends(table, hashes);
    // 3. Endpoints: follow the chain the ClusterIP frontend uses (SVC, or SVL for internalTrafficPolicy Local).
    for (const { service: s, chains } of hashes.withService) if (s !== undefined) this.serviceEndpoints(table, s, chains, masquerade);
  }

  /** Step 1 for one chain of the nat table: a hashed per-service chain names its Service and tells its policies. */
  private hashedChain(table: Table, chain: Chain, hashes: HashEntries, masquerade: Map<Chain, (string | true)[]>): void {
    // Endpoint chains (most of them) are read from the Service chains' rules.
    if (chain.name.startsWith('KUBE-SEP-')) return;
    const info = classifyKubeChain(chain.name);
    if (!info?.hash || !isServiceHashedKind(info.kind)) return;
    const hashEntry = hashes.get(info.hash);
    hashEntry.chains[info.kind as HashedKind] = chain;
    if (chain.deletedAt) return;
    const s = this.hashedService(table, hashEntry, info.hash, hashes.withService);
    const role: ObjectRef['role'] =
      info.kind === 'service' ? 'service-chain' : info.kind === 'service-local' || info.kind === 'legacy-xlb' ? 'service-local-chain' : info.kind === 'external' ? 'external-chain' : 'firewall-chain';
    s.objects.push(new NamedObjectRef(chain.name, table.id, role, chain));
    for (const rule of chain.rules) {
      if (s.name && s.protocol) break; // both known: the remaining rules cannot change them
      const peek = this.peek.read(rule);
      if (!s.name) this.nameFrom(s, parseServicePortName(peek.comment()));
      s.protocol ||= peek.protocol() ?? '';
    }
    if (info.kind === 'service' || info.kind === 'service-local' || info.kind === 'legacy-xlb') masquerade.set(chain, masqueradeEffects(chain, this.peek));
    if (info.kind === 'firewall') {
      const ranges = chain.rules.filter((r) => r.target?.kind === 'jump' && findParam(r, '-s')).map((r) => findParam(r, '-s')!.values[0]);
      if (ranges.length > 0) s.policies.loadBalancerSourceRanges = ranges;
    }
    if (info.kind === 'legacy-xlb') {
      // Older kube-proxy's chain of externalTrafficPolicy Local: its own short-circuit, then the local endpoints.
      s.policies.externalTrafficPolicy = 'Local';
      s.policies.shortCircuit = shortCircuitOf(chain, `KUBE-SVC-${info.hash}`);
    }
    if (info.kind === 'external') {
      const local = chain.rules.some((r) => /^KUBE-(SVL|XLB)-/.test(r.targetName ?? '')) || chain.rules.some((r) => /^pod traffic for /.test(this.peek.read(r).comment() ?? ''));
      s.policies.externalTrafficPolicy = local ? 'Local' : 'Cluster';
      if (local) s.policies.shortCircuit = shortCircuitOf(chain, `KUBE-SVC-${info.hash}`);
    }
  }

  /** Step 2: the ClusterIP, load-balancer and external-IP frontends, from KUBE-SERVICES. */
  private servicesFrontends(table: Table, hashes: HashEntries): void {
    const services = table.chainByName.get('KUBE-SERVICES');
    for (const rule of services?.rules ?? []) {
      const target = rule.targetName ?? '';
      const info = classifyKubeChain(target);
      if (!info?.hash || !isServiceHashedKind(info.kind)) continue;
      const s = this.hashedService(table, hashes.get(info.hash), info.hash, hashes.withService);
      const peek = this.peek.read(rule);
      const comment = peek.comment();
      if (!s.name) this.nameFrom(s, parseServicePortName(comment));
      s.protocol ||= peek.protocol() ?? '';
      const port = peek.destinationPort();
      const address = destination(rule);
      if (port === undefined) continue;
      let kind = frontendKindFromComment(comment);
      if (!kind) kind = info.kind === 'service' || info.kind === 'service-local' ? 'clusterIP' : info.kind === 'firewall' ? 'loadBalancer' : 'externalIP';
      if (kind === 'clusterIP') s.policies.internalTrafficPolicy = info.kind === 'service-local' ? 'Local' : 'Cluster';
      this.addFrontend(s, { kind, address, port, range: rule.range });
      s.objects.push(new RuleObjectRef(rule, 'frontend-rule'));
    }
  }

  /** Step 2: the NodePort frontends, from KUBE-NODEPORTS. */
  private nodePortFrontends(table: Table, hashes: HashEntries): void {
    const nodePorts = table.chainByName.get('KUBE-NODEPORTS');
    for (const rule of nodePorts?.rules ?? []) {
      const info = classifyKubeChain(rule.targetName ?? '');
      if (!info?.hash || !isServiceHashedKind(info.kind)) continue;
      const peek = this.peek.read(rule);
      const port = peek.destinationPort();
      if (port === undefined) continue;
      const s = this.hashedService(table, hashes.get(info.hash), info.hash, hashes.withService);
      if (!s.name) this.nameFrom(s, parseServicePortName(peek.comment()));
      s.protocol ||= peek.protocol() ?? '';
      this.addFrontend(s, { kind: 'nodePort', port, range: rule.range });
      s.objects.push(new RuleObjectRef(rule, 'frontend-rule'));
    }
  }

  /** Step 3 for one Service: its endpoints, masquerading and affinity from the chain its ClusterIP uses, and the hash checks. */
  private serviceEndpoints(table: Table, s: Service, chains: HashEntry['chains'], masquerade: Map<Chain, (string | true)[]>): void {
    const svc = chains.service;
    const svl = chains['service-local'] ?? chains['legacy-xlb'];
    const primary = s.policies.internalTrafficPolicy === 'Local' ? svl : (svc ?? svl);
    if (!primary && !svc && !svl) s.endpointsNotInDump = true;
    const endpointChains = this.policyEndpoints(table, s, primary, svc, svl);
    if (primary) {
      for (const effect of masquerade.get(primary) ?? masqueradeEffects(primary, this.peek)) {
        if (effect === true) s.policies.masqueradeAll = true;
        else s.policies.clusterCIDR = effect;
      }
      const affinity = primary.rules.find((rule) => this.peek.read(rule).isAffinityCheck());
      if (affinity) {
        const seconds = Number(this.peek.read(affinity).affinitySeconds() ?? 10800);
        s.policies.sessionAffinity = { kind: 'ClientIP', timeoutSeconds: seconds };
      }
    }
    // No rule on the way named the protocol (a Service port left with only its chains): its DNAT rules do, or the hash.
    if (!s.protocol) s.protocol = this.dnatProtocol(endpointChains) ?? protocolFromHash(s) ?? '';
    this.checkHashes(s, chains, endpointChains);
  }

  /**
   * The Service's endpoints: those of the primary chain with their share of ClusterIP traffic, then those only the
   * other policy chain selects, with none. With a local chain (or no primary one), each endpoint also gets its
   * share of each policy chain, and those of the local chain are local. Returns their KUBE-SEP chains, one each.
   */
  private policyEndpoints(table: Table, s: Service, primary: Chain | undefined, svc: Chain | undefined, svl: Chain | undefined): (Chain | undefined)[] {
    const seps: (Chain | undefined)[] = [];
    s.endpoints = primary ? this.selectedEndpoints(table, primary, seps) : [];
    if (!svl && primary === svc) return seps;
    const ofPrimary = [...s.endpoints];
    const byChain = new Map(ofPrimary.map((e) => [e.chain, e]));
    for (const chain of [svc, svl]) {
      if (!chain) continue;
      const chainSeps: (Chain | undefined)[] = [];
      const selected = chain === primary ? ofPrimary : this.selectedEndpoints(table, chain, chainSeps);
      selected.forEach((e, k) => {
        const share = e.probability;
        let same = byChain.get(e.chain);
        if (!same) {
          // Reachable only through this chain: the same endpoint, with no share of ClusterIP traffic.
          same = e;
          byChain.set(e.chain, e);
          s.endpoints.push(e);
          seps.push(chainSeps[k]);
          e.probability = 0;
        }
        if (chain === svl) {
          same.localShare = share;
          same.local = true;
        } else same.clusterShare = share;
      });
    }
    return seps;
  }

  /** The `-p` of the first DNAT rule among endpoint chains `seps` that has one. */
  private dnatProtocol(seps: (Chain | undefined)[]): string | undefined {
    for (const sep of seps) {
      const dnat = sep && firstDnat(sep);
      const protocol = dnat && this.peek.read(dnat).protocol();
      if (protocol) return protocol;
    }
    return undefined;
  }

  /** Endpoints a new connection can reach from a KUBE-SVC/SVL chain, with effective probabilities; their chains go to `seps`. */
  private selectedEndpoints(table: Table, chain: Chain, seps: (Chain | undefined)[]): Endpoint[] {
    const out: Endpoint[] = [];
    let remaining = 1;
    for (const rule of chain.rules) {
      const target = rule.targetName ?? '';
      if (!target.startsWith('KUBE-SEP-') || this.peek.read(rule).isAffinityCheck()) continue;
      const p = isStatisticRandom(rule);
      const share = remaining * (p ?? 1);
      remaining -= share;
      const sep = (rule instanceof RuleNode ? rule.knownTargetChain() : undefined) ?? table.chainByName.get(target);
      const dnat = sep && firstDnat(sep);
      const to = dnat ? targetOptionValue(dnat, '--to-destination') : undefined;
      const hostPort = to ? splitHostPort(to) : parseEndpointComment(this.peek.read(rule).comment());
      if (!hostPort) continue;
      const endpoint = new RuleEndpoint(hostPort.address, hostPort.port, share, target, rule);
      if (p !== undefined) endpoint.ruleProbability = p;
      out.push(endpoint);
      seps.push(sep);
      if (p === undefined) break; // an unconditional jump ends the selection: later rules are unreachable
    }
    return out;
  }

  /** Checks the names of the Service's chains and of its endpoints' (`endpointChains`, one each) against its name and protocol. */
  private checkHashes(s: Service, chains: HashEntry['chains'], endpointChains: (Chain | undefined)[]): void {
    if (!s.name || !s.protocol || !s.hash) return;
    const spellings = hashedServicePortNames(s);
    // The spelling the Service chain's name was hashed from (older kube-proxy's "ns/name:"), or the usual one.
    const spn = spellings.find((x) => portProtoHash(x, s.protocol) === s.hash) ?? spellings[0];
    const expected = portProtoHash(spn, s.protocol);
    for (const [kind, prefix] of NAME_CHECKED_CHAINS) {
      const chain = chains[kind];
      if (!chain || !chain.declared) continue;
      const ok = expected === s.hash;
      // The chain's own name when it matches: no second copy of it for each Service.
      s.hashChecks.push(new NamedHashCheck(chain.name, ok ? chain.name : prefix + expected, ok, chain));
    }
    s.endpoints.forEach((e, k) => {
      if (!e.chain) return;
      const chain = endpointChains[k];
      if (!chain?.declared) return;
      const ok = spellings.some((x) => isEndpointHashName(e.chain!, 'KUBE-SEP-', x, s.protocol, e.address, e.port));
      s.hashChecks.push(new NamedHashCheck(e.chain, ok ? e.chain : `KUBE-SEP-${endpointHash(spn, s.protocol, formatHostPort(e.address, e.port))}`, ok, chain));
    });
    for (const check of s.hashChecks) {
      if (check.ok) continue;
      this.found.push({
        range: check.range,
        severity: 'hint',
        code: 'hash-mismatch',
        message: t('kube-proxy would name this chain {0} for {1}/{2}: the name does not match its comments (edited by hand, or a different kube-proxy version).', check.expected, spn, s.protocol),
      });
    }
  }

  private filterTable(table: Table): void {
    for (const chainName of ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES']) {
      const chain = table.chainByName.get(chainName);
      for (const rule of chain?.rules ?? []) {
        const verdict = rule.targetName;
        if (verdict !== 'REJECT' && verdict !== 'DROP') continue;
        const peek = this.peek.read(rule);
        const comment = peek.comment();
        const spn = parseServicePortName(comment);
        const port = peek.destinationPort();
        if (port === undefined) continue;
        const protocol = peek.protocol() ?? 'tcp';
        const address = destination(rule);
        let s = this.findByName(table, spn, protocol) ?? this.findByFrontend(table, address, port, protocol);
        if (!s) {
          s = this.service(table, `noep:${spn ? servicePortNameString(spn) : `${address}:${port}`}/${protocol}`);
          if (spn) this.indexFor(table).byName.set(`${spn.namespace}/${spn.name}:${spn.portName}/${protocol}`, s);
        }
        this.nameFrom(s, spn);
        s.protocol ||= protocol;
        const noLocal = /has no local endpoints/.test(comment ?? '');
        let kind: FrontendKind;
        if (chainName === 'KUBE-SERVICES') kind = 'clusterIP';
        else if (!address && findMatchOption(rule, 'addrtype', '--dst-type')?.values[0] === 'LOCAL') kind = 'nodePort';
        else kind = s.frontends.find((f) => f.address === address && f.port === port)?.kind ?? 'externalIP';
        if (!s.frontends.some((f) => f.kind === kind && f.port === port && (kind === 'nodePort' || f.address === address))) {
          const uncertain = chainName === 'KUBE-EXTERNAL-SERVICES' && kind === 'externalIP';
          this.addFrontend(s, kind === 'nodePort' ? { kind, port, range: rule.range } : { kind, address, port, range: rule.range, ...(uncertain ? { kindUncertain: true } : {}) });
        }
        if (!noLocal || s.endpoints.length === 0) s.policies.noEndpoints = verdict === 'REJECT' ? 'reject' : 'drop';
        if (noLocal) {
          // KUBE-SERVICES holds the ClusterIP's rule (internalTrafficPolicy), KUBE-EXTERNAL-SERVICES the others'.
          const traffic = chainName === 'KUBE-SERVICES' ? 'internal' : 'external';
          (s.policies.noLocalEndpoints ??= {})[traffic] = true;
          s.policies[traffic === 'internal' ? 'internalTrafficPolicy' : 'externalTrafficPolicy'] = 'Local';
        }
        s.objects.push(new RuleObjectRef(rule, 'reject-rule'));
      }
    }
  }

  /** Indexes of the services found in the nat table of one save, by name and by frontend (built lazily). */
  private indexFor(table: Table): { byName: Map<string, Service>; byFrontend: Map<string, Service> } {
    let index = this.indexes.get(table.saveIndex);
    if (!index) {
      index = { byName: new Map(), byFrontend: new Map() };
      for (const [key, s] of this.byKey) {
        if (!key.startsWith(`${table.saveIndex}\u0000`)) continue;
        if (s.name) index.byName.set(`${s.namespace}/${s.name}:${s.portName}/${s.protocol}`, s);
        for (const f of s.frontends) if (f.address) index.byFrontend.set(`${f.address}:${f.port}/${s.protocol}`, s);
      }
      this.indexes.set(table.saveIndex, index);
    }
    return index;
  }

  private findByName(table: Table, spn: ServicePortName | undefined, protocol: string): Service | undefined {
    if (!spn) return undefined;
    return this.indexFor(table).byName.get(`${spn.namespace}/${spn.name}:${spn.portName}/${protocol}`);
  }

  private findByFrontend(table: Table, address: string | undefined, port: number, protocol: string): Service | undefined {
    if (!address) return undefined;
    return this.indexFor(table).byFrontend.get(`${address}:${port}/${protocol}`);
  }

  private addFrontend(s: Service, f: Frontend): void {
    const same = s.frontends.find((x) => x.kind === f.kind && x.port === f.port && (f.kind === 'nodePort' || x.address === f.address));
    if (same) return;
    s.frontends.push(f);
  }

  private finish(s: Service): void {
    if (!s.name) {
      s.anonymous = true;
      s.name = s.hash ? `KUBE-SVC-${s.hash}` : s.frontends[0] ? formatHostPort(s.frontends[0].address ?? '', s.frontends[0].port) : '?';
    }
    s.protocol ||= 'tcp';
    if (s.endpoints.length > 0 && s.policies.noEndpoints === 'reject' && !s.endpoints.some((e) => e.probability > 0)) {
      // only local endpoints left for external traffic
    }
    sortFrontends(s.frontends);
  }
}

/**
 * In rule order, what each `-j KUBE-MARK-MASQ` rule of a KUBE-SVC/SVL chain says: the cluster CIDR of its
 * negated `! -s`, or true (masquerade all) when it has no `-s`.
 */
function masqueradeEffects(chain: Chain, peek: RuleFacts): (string | true)[] {
  const effects: (string | true)[] = [];
  for (const rule of chain.rules) {
    if (rule.targetName !== 'KUBE-MARK-MASQ') continue;
    const src = peek.read(rule).source();
    if (src?.negated) effects.push(src.value!);
    else if (!src) effects.push(true);
  }
  return effects;
}

/** The sources an external chain sends to the Service's cluster chain before its local policy (ShortCircuit). */
function shortCircuitOf(chain: Chain, clusterChain: string): ShortCircuit | undefined {
  const out: ShortCircuit = {};
  for (const rule of chain.rules) {
    if (rule.targetName !== clusterChain) continue;
    const srcType = findMatchOption(rule, 'addrtype', '--src-type');
    const source = findParam(rule, '-s');
    const iface = findParam(rule, '-i');
    if (srcType && !srcType.negated && srcType.values[0] === 'LOCAL') out.node = true;
    else if (source && !source.negated) out.podSource ??= source.values[0];
    else if (iface && !iface.negated) out.podInterface ??= iface.values[0];
  }
  return out.node || out.podSource !== undefined || out.podInterface !== undefined ? out : undefined;
}

/** The chain's first DNAT rule (called for each of 100,000 endpoints: the parser noted where it is). */
function firstDnat(chain: Chain): Rule | undefined {
  if (chain instanceof ChainNode) return chain.firstDnatRule();
  const rules = chain.rules;
  for (let k = 0; k < rules.length; k++) if (rules[k].targetName === 'DNAT') return rules[k];
  return undefined;
}

const HASHED_PROTOCOLS = ['tcp', 'udp', 'sctp'];

/** The protocol whose hash with the Service port's name is the Service's chain hash, if one is. */
function protocolFromHash(s: Service): string | undefined {
  if (!s.name || !s.hash || s.anonymous) return undefined;
  for (const spn of hashedServicePortNames(s)) for (const protocol of HASHED_PROTOCOLS) if (portProtoHash(spn, protocol) === s.hash) return protocol;
  return undefined;
}

function parseEndpointComment(comment: string | undefined): { address: string; port: number } | undefined {
  const m = / -> (\S+)$/.exec(comment ?? '');
  return m ? splitHostPort(m[1]) : undefined;
}

export function buildCatalog(ruleset: IptablesRuleset): Catalog {
  // The catalog reads most rules of a kube-proxy dump once: their options are not kept afterwards.
  return withTransientRuleDetails(() => new CatalogBuilder(ruleset).build());
}
