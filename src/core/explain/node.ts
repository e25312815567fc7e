// "Explain This Node": which kube-proxy mode a node snapshot shows, the lines that prove it, what
// that mode does well and badly, its status in Kubernetes, and a few numbers. Structured data only (sections,
// items, evidence with file and range): the extension renders it, tests read it.
//
// Versions below were checked against the KEPs: nftables mode KEP-3866 (alpha v1.29, beta v1.31, stable v1.33),
// IPVS mode deprecation KEP-5495 (deprecated v1.35).
import { iptablesBackendWriters } from '../kube/backends';
import { iptablesDumps } from '../crossref';
import { backendWritersText, mixedBackendsWhy } from './backends';
import { t } from '../l10n';
import { isKubeProxyIpset, kubeProxyModeOfIptables } from '../detect';
import type { Catalog, Service } from '../kube/service';
import { isKubeProxyNftTable } from '../kube/nft-catalog';
import { classifyKubeChain, isKubeletChain, kubeChainOwner } from '../kube/chains';
import { findMatchOption, type IptablesRuleset, type Rule } from '../model/iptables';
import type { IpsetDump } from '../model/ipset';
import type { IpvsDump } from '../model/ipvs';
import { isVerdictMap, type NftRuleset, type NftTable } from '../model/nft';
import type { Range } from '../model/range';
import type { IpsetAnalysis } from '../language/ipset';
import type { IptablesAnalysis } from '../language/iptables';
import type { IpvsadmAnalysis } from '../language/ipvsadm';
import type { NftAnalysis } from '../language/nft';
import { leftoversText, type Leftovers, type NodeSnapshot } from '../snapshot';
import type { SourceLocation } from '../cluster/types';
import { clusterSection } from './node-cluster';
import type { ProxyMode, NodeMode, IptablesBackendSummary, Evidence, ItemKind, Item, Fact, SectionId, Section, NodeExplanation } from './node-types';

export type { ProxyMode, NodeMode, IptablesBackendSummary, Evidence, ItemKind, Item, Fact, SectionId, Section, NodeExplanation } from './node-types';

const MAX_QUOTE = 240;

function baseName(name: string): string {
  return name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
}

/** What one snapshot file contributes, with the evidence found in it. */
interface Found {
  iptables: Evidence[];
  /** IPVS mode in iptables rules (ipset matches, KUBE-IPVS-FILTER…). */
  ipvs: Evidence[];
  ipvsadm: Evidence[];
  ipset: Evidence[];
  nftables: Evidence[];
  /** iptables-mode rules seen through nft (tables managed by iptables-nft). */
  iptablesViaNft: Evidence[];
  kubelet: Evidence[];
  /** kube-router's chains: its network policy controller's, and its service proxy's (KUBE-ROUTER-SERVICES/-HAIRPIN). */
  kubeRouter: Evidence[];
  kubeRouterProxy: Evidence[];
  headersNft: Evidence[];
  headersLegacy: Evidence[];
  headersUnknown: Evidence[];
  legacyPresent: Evidence[];
  nftWarnings: Evidence[];
  facts: Fact[];
  /** An iptables dump shows IPVS mode (kubeProxyModeOfIptables, once per file). */
  ipvsFromIptables: boolean;
}

class Builder {
  readonly evidence: Evidence[] = [];
  /** Start offsets of the lines scanned so far, per file: dumps can be tens of megabytes, evidence needs a few lines. */
  private readonly scans = new Map<number, { starts: number[]; nextCR: number }>();

  constructor(
    private readonly snapshot: NodeSnapshot,
    private readonly texts: readonly (string | undefined)[],
  ) {}

  /** Lines first..last of a file (without line ends), or undefined without its text or past its end. */
  private lines(fileIndex: number, first: number, last: number): string[] | undefined {
    const text = this.texts[fileIndex];
    if (text === undefined) return undefined;
    let scan = this.scans.get(fileIndex);
    if (!scan) this.scans.set(fileIndex, (scan = { starts: [0], nextCR: text.indexOf('\r') }));
    const starts = scan.starts;
    // Scan on until the line after `last` starts (or the text ends): \n, \r\n and a lone \r end a line.
    while (starts.length <= last + 1) {
      const from = starts[starts.length - 1];
      if (from > text.length) break;
      const nl = text.indexOf('\n', from);
      if (scan.nextCR >= 0 && scan.nextCR < from) scan.nextCR = text.indexOf('\r', from);
      const cr = scan.nextCR;
      if (nl < 0 && cr < 0) {
        starts.push(text.length + 1);
        break;
      }
      starts.push(cr >= 0 && (nl < 0 || cr < nl - 1) ? cr + 1 : nl + 1);
    }
    if (first >= starts.length - 1) return undefined;
    const out: string[] = [];
    for (let l = first; l <= last && l + 1 < starts.length; l++) out.push(text.slice(starts[l], Math.min(starts[l + 1], text.length + 1)).replace(/\r?\n$|\r$/, ''));
    return out;
  }

  /** The base name of a snapshot file. */
  fileName(fileIndex: number): string {
    return baseName(this.snapshot.files[fileIndex].name);
  }

  /**
   * Evidence for the lines `range` starts on (one line, or `lineCount` lines). With the file's text the quote
   * is the line itself; without it, `fallback` (the model's own copy of the line).
   */
  ev(fileIndex: number, range: Range | undefined, fallback: string, lineCount = 1): Evidence | undefined {
    if (!range) return undefined;
    const first = range.start.line;
    const last = first + Math.max(1, lineCount) - 1;
    let quote = fallback;
    let endCharacter = range.start.line === range.end.line ? range.end.character : Math.max(range.start.character, fallback.length);
    const text = this.lines(fileIndex, first, last);
    if (text) {
      quote = text.map((l) => l.trim()).join('\n');
      endCharacter = text[text.length - 1].length;
    }
    if (quote.length > MAX_QUOTE) quote = `${quote.slice(0, MAX_QUOTE - 1)}…`;
    const e: Evidence = {
      id: this.evidence.length,
      fileIndex,
      file: baseName(this.snapshot.files[fileIndex].name),
      range: { start: { line: first, character: 0 }, end: { line: last, character: endCharacter } },
      quote,
    };
    this.evidence.push(e);
    return e;
  }

  /** Evidence of a cluster finding: a line of a snapshot file (quoted from its text), else an object of a cluster-state file. */
  located(at: SourceLocation, quote: string): Evidence {
    const fileIndex = this.snapshot.files.findIndex((f) => f.name === at.file);
    if (fileIndex >= 0) return this.ev(fileIndex, at.range, quote)!;
    const clusterFile = this.snapshot.cluster?.files.indexOf(at.file) ?? -1;
    const e: Evidence = { id: this.evidence.length, fileIndex: -1, ...(clusterFile >= 0 ? { clusterFile } : {}), path: at.file, file: baseName(at.file), range: at.range, quote };
    this.evidence.push(e);
    return e;
  }
}

function emptyFound(): Found {
  return {
    iptables: [],
    ipvs: [],
    ipvsadm: [],
    ipset: [],
    nftables: [],
    iptablesViaNft: [],
    kubelet: [],
    kubeRouter: [],
    kubeRouterProxy: [],
    headersNft: [],
    headersLegacy: [],
    headersUnknown: [],
    legacyPresent: [],
    nftWarnings: [],
    facts: [],
    ipvsFromIptables: false,
  };
}

function push(list: Evidence[], e: Evidence | undefined): void {
  if (e) list.push(e);
}

function matchSet(rule: Rule): string | undefined {
  return findMatchOption(rule, 'set', '--match-set')?.values[0];
}

const IPVS_SETS = /^KUBE-(6-)?(CLUSTER-IP|NODE-PORT|LOAD-BALANCER|EXTERNAL-IP|LOOP-BACK|IPVS-IPS)/;

function readIptables(b: Builder, i: number, ruleset: IptablesRuleset, catalog: Catalog, found: Found): void {
  const detected = kubeProxyModeOfIptables(ruleset).mode;
  if (detected === 'ipvs') found.ipvsFromIptables = true;
  // Which backend wrote each save (one `# Generated by` line per table in iptables-save output).
  for (const save of ruleset.saves) {
    const header = ruleset.headers.find((h) => h.kind === 'generated' && h.saveIndex === save.index);
    const e = b.ev(i, header?.range ?? save.headerRange, header?.text ?? save.producer ?? '');
    if (!e) continue;
    if (save.backend === 'nf_tables') found.headersNft.push(e);
    else if (save.backend === 'legacy') found.headersLegacy.push(e);
    else found.headersUnknown.push(e);
  }
  for (const h of ruleset.headers) if (h.kind === 'warning' && /legacy tables present/.test(h.text)) push(found.legacyPresent, b.ev(i, h.range, h.text));

  let chains = 0;
  let rules = 0;
  let svcChains = 0;
  // The catalog already read every KUBE-SVC chain: each endpoint picked by `-m statistic` is one such rule.
  let statistic = 0;
  for (const svc of catalog.services) for (const e of svc.endpoints) if (e.ruleProbability !== undefined) statistic++;
  for (const table of ruleset.tables) {
    chains += table.chains.length;
    rules += table.rules.length;
    for (const c of table.chains) if (c.name.startsWith('KUBE-SVC-')) svcChains++;
    readKubeRouterChains(b, i, table, found);
  }
  found.facts.push({ label: t('{0}: tables, chains, rules', b.fileName(i)), value: `${ruleset.tables.length} / ${chains} / ${rules}` });

  if (detected === 'iptables') {
    const nat = ruleset.tables.find((tb) => tb.name === 'nat' && tb.chainByName.has('KUBE-SERVICES')) ?? ruleset.tables.find((tb) => tb.chainByName.has('KUBE-SERVICES'));
    const services = nat?.chainByName.get('KUBE-SERVICES');
    if (services?.declared) push(found.iptables, b.ev(i, services.range, `:KUBE-SERVICES`));
    // Follow one Service: KUBE-SERVICES → its KUBE-SVC chain → the -m statistic rule → a KUBE-SEP chain's DNAT.
    // Chains are looked up by name (dumps can hold hundreds of thousands of rules).
    const chainNamed = (name: string | undefined) => (name ? ruleset.tables.map((tb) => tb.chainByName.get(name)).find((c) => c !== undefined) : undefined);
    const anyRule = (pred: (r: Rule) => boolean) => {
      for (const tb of ruleset.tables) for (const r of tb.rules) if (pred(r)) return r;
      return undefined;
    };
    const toSvc = services?.rules.find((r) => /^KUBE-SVC-/.test(r.target?.name ?? ''));
    if (toSvc) push(found.iptables, b.ev(i, toSvc.range, toSvc.raw));
    const svcChain = chainNamed(toSvc?.target?.name) ?? ruleset.tables.flatMap((tb) => tb.chains).find((c) => /^KUBE-SVC-/.test(c.name));
    if (svcChain?.declared) push(found.iptables, b.ev(i, svcChain.range, `:${svcChain.name}`));
    const isStat = (r: Rule) => findMatchOption(r, 'statistic', '--probability') !== undefined;
    const stat = svcChain?.rules.find(isStat) ?? anyRule(isStat);
    if (stat) push(found.iptables, b.ev(i, stat.range, stat.raw));
    const sepName = (stat ?? svcChain?.rules.find((r) => /^KUBE-SEP-/.test(r.target?.name ?? '')))?.target?.name;
    const isDnat = (r: Rule) => /^KUBE-SEP-/.test(r.chain) && r.target?.kind === 'dnat';
    const dnat = chainNamed(sepName)?.rules.find(isDnat) ?? anyRule(isDnat);
    if (dnat) push(found.iptables, b.ev(i, dnat.range, dnat.raw));
    if (found.iptables.length === 0) {
      const any = ruleset.tables.flatMap((tb) => tb.chains).find((c) => /^KUBE-(SVC|SEP|SVL|EXT|FW)-/.test(c.name));
      if (any) push(found.iptables, b.ev(i, any.range, `:${any.name}`));
    }
    found.facts.push({ label: t('{0}: KUBE-SVC chains, -m statistic rules', b.fileName(i)), value: `${svcChains} / ${statistic}` });
  } else if (detected === 'ipvs') {
    const rulesAll = ruleset.tables.length === 1 ? ruleset.tables[0].rules : ruleset.tables.flatMap((tb) => tb.rules);
    const cluster = rulesAll.find((r) => /^KUBE-(6-)?CLUSTER-IP$/.test(matchSet(r) ?? ''));
    if (cluster) push(found.ipvs, b.ev(i, cluster.range, cluster.raw));
    const ipvsIps = rulesAll.find((r) => /^KUBE-(6-)?IPVS-IPS$/.test(matchSet(r) ?? ''));
    if (ipvsIps) push(found.ipvs, b.ev(i, ipvsIps.range, ipvsIps.raw));
    // Without those rules, IPVS mode's own chains (kubeProxyModeOfIptables' other evidence).
    if (found.ipvs.length === 0) {
      for (const name of ['KUBE-LOAD-BALANCER', 'KUBE-IPVS-FILTER', 'KUBE-LOOP-BACK']) {
        const chain = ruleset.tables.map((tb) => tb.chainByName.get(name)).find((c) => c?.declared);
        if (chain) push(found.ipvs, b.ev(i, chain.range, `:${name}`));
      }
    }
    if (found.ipvs.length === 0) {
      const other = rulesAll.find((r) => IPVS_SETS.test(matchSet(r) ?? ''));
      if (other) push(found.ipvs, b.ev(i, other.range, other.raw));
    }
  } else if (detected === 'nftables-or-none') {
    for (const table of ruleset.tables) {
      for (const c of table.chains) {
        if (isKubeletChain(c.name, table.name) && c.declared && found.kubelet.length < 3) push(found.kubelet, b.ev(i, c.range, `:${c.name}`));
      }
    }
  }
}

/** kube-router's chains of `table` (a few of each kind, as evidence): they are not kube-proxy's. */
function readKubeRouterChains(b: Builder, i: number, table: IptablesRuleset['tables'][number], found: Found): void {
  for (const c of table.chains) {
    if (!c.declared || !c.name.startsWith('KUBE-')) continue;
    const info = classifyKubeChain(c.name, table.name);
    if (!info || kubeChainOwner(info.kind) !== 'kube-router') continue;
    const proxy = info.kind === 'kube-router-services' || info.kind === 'kube-router-hairpin';
    const list = proxy ? found.kubeRouterProxy : found.kubeRouter;
    if (list.length < 3) push(list, b.ev(i, c.range, `:${c.name}`));
  }
}

function readNft(b: Builder, i: number, ruleset: NftRuleset, found: Found): void {
  for (const c of ruleset.comments) if (c.kind === 'warning' && /managed by iptables-nft/.test(c.text)) push(found.nftWarnings, b.ev(i, c.range, c.text));
  const kube = ruleset.tables.filter(isKubeProxyNftTable);
  for (const table of kube) readKubeNftTable(b, i, table, found);
  for (const table of ruleset.tables) {
    if (table.managedBy !== 'iptables-nft') continue;
    const svc = table.chains.find((c) => /^KUBE-(SVC|SEP)-/.test(c.name));
    if (svc && found.iptablesViaNft.length < 3) push(found.iptablesViaNft, b.ev(i, svc.range, `chain ${svc.name} {`));
  }
  let chains = 0;
  let rules = 0;
  for (const table of ruleset.tables) {
    chains += table.chains.length;
    rules += table.chains.reduce((n, c) => n + c.rules.length, 0);
  }
  found.facts.push({ label: t('{0}: tables, chains, rules', b.fileName(i)), value: `${ruleset.tables.length} / ${chains} / ${rules}` });
  for (const table of kube) {
    const ips = table.mapByName.get('service-ips')?.elements.length ?? 0;
    const ports = table.mapByName.get('service-nodeports')?.elements.length ?? 0;
    found.facts.push({ label: t('{0}: elements of service-ips, service-nodeports', `table ${table.family} ${table.name}`), value: `${ips} / ${ports}` });
  }
}

function readKubeNftTable(b: Builder, i: number, table: NftTable, found: Found): void {
  push(found.nftables, b.ev(i, table.range, `table ${table.family} ${table.name} {`));
  const map = table.mapByName.get('service-ips');
  if (map) {
    push(found.nftables, b.ev(i, map.range, `map ${map.name} {`));
    if (map.elements[0]) push(found.nftables, b.ev(i, map.elements[0].range, map.elements[0].key.join(' . ')));
  }
  for (const chain of table.chains) {
    const rule = chain.rules.find((r) => r.statements.some((s) => s.kind === 'vmap' && s.map.kind === 'setRef' && s.map.name === 'service-ips'));
    if (rule) {
      push(found.nftables, b.ev(i, rule.range, rule.raw));
      break;
    }
  }
  for (const chain of table.chains) {
    const rule = chain.rules.find((r) => r.statements.some((s) => s.kind === 'vmap' && s.key.kind === 'numgen'));
    if (rule) {
      push(found.nftables, b.ev(i, rule.range, rule.raw));
      break;
    }
  }
  if (!map) {
    // A kube-proxy table without the map (a partial dump): its service chains still prove the mode.
    const other = table.maps.find(isVerdictMap);
    if (other) push(found.nftables, b.ev(i, other.range, `map ${other.name} {`));
  }
}

function readIpvsadm(b: Builder, i: number, dump: IpvsDump, found: Found, clusterIPs: Set<string>): void {
  const version = dump.headers.find((h) => h.kind === 'version');
  if (dump.services.length > 0 && version) push(found.ipvsadm, b.ev(i, version.range, version.text));
  // Prefer a ClusterIP's virtual service with real servers (the catalog knows which addresses are ClusterIPs).
  const isClusterIP = (s: { address?: string; port?: number }) => clusterIPs.has(`${s.address}:${s.port}`);
  const first = dump.services.find((s) => s.realServers.length > 0 && isClusterIP(s)) ?? dump.services.find((s) => s.realServers.length > 0) ?? dump.services[0];
  if (first) {
    push(found.ipvsadm, b.ev(i, first.range, first.name));
    const server = first.realServers[0];
    if (server) push(found.ipvsadm, b.ev(i, server.range, server.address));
  }
  const persistent = dump.services.find((s) => s.persistent);
  if (persistent && persistent !== first) push(found.ipvsadm, b.ev(i, persistent.range, persistent.name));
  const servers = dump.services.reduce((n, s) => n + s.realServers.length, 0);
  found.facts.push({ label: t('{0}: virtual services, real servers', b.fileName(i)), value: `${dump.services.length} / ${servers}` });
}

function readIpset(b: Builder, i: number, dump: IpsetDump, found: Found): void {
  // KUBE-CLUSTER-IP first; any other of kube-proxy's sets proves IPVS mode too.
  const cluster = dump.sets.find((s) => /^KUBE-(6-)?CLUSTER-IP$/.test(s.name)) ?? dump.sets.find((s) => isKubeProxyIpset(s.name));
  if (cluster) {
    push(found.ipset, b.ev(i, cluster.declarationRange, `create ${cluster.name} ${cluster.type}`));
    if (cluster.members[0]) push(found.ipset, b.ev(i, cluster.members[0].range, `add ${cluster.name}`));
  }
  const members = dump.sets.reduce((n, s) => n + s.members.length, 0);
  found.facts.push({ label: t('{0}: sets, members', b.fileName(i)), value: `${dump.sets.length} / ${members}` });
}

/** The first leftover chain and those packets still reach (a few), or the first line of the leftover dump. */
function leftoverEvidence(b: Builder, l: Leftovers): Evidence[] {
  const out: Evidence[] = [];
  if (l.chains) {
    const first = l.chains.chains.find((c) => c.name.startsWith('KUBE-SVC-')) ?? l.chains.chains[0];
    const chains = [...new Set([first, ...l.chains.reached.slice(0, 3)])];
    for (const c of chains) if (c?.declared) push(out, b.ev(l.fileIndex, c.range, `:${c.name}`));
    return out;
  }
  push(out, b.ev(l.fileIndex, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, ''));
  return out;
}

function modeName(mode: ProxyMode): string {
  return mode === 'iptables' ? t('iptables mode') : mode === 'ipvs' ? t('IPVS mode') : t('nftables mode');
}

function tradeoffs(mode: ProxyMode): Item[] {
  const item = (kind: ItemKind, text: string): Item => ({ kind, text, evidence: [] });
  switch (mode) {
    case 'iptables':
      return [
        item('pro', t('Plain iptables rules that every Linux node and every tool understands; each Service is a chain you can read in `iptables-save`.')),
        item('con', t('Rule-list matching: the first packet of each connection walks `KUBE-SERVICES` rule by rule, one rule per Service port, so its cost grows with the number of Services.')),
        item(
          'con',
          t(
            'Updates go through `iptables-restore`: with tens of thousands of rules each sync is slow; kube-proxy writes only the chains that changed, but still whole chains, and all of them at its periodic full syncs.',
          ),
        ),
        item('con', t('Endpoints are picked by a chain of `-m statistic --mode random --probability` rules (1/n, 1/(n−1), … 1): random only, no least-connection or weights.')),
      ];
    case 'ipvs':
      return [
        item('pro', t("Virtual servers in a kernel hash table: finding a Service's virtual server does not get slower with more Services.")),
        item('pro', t('Real load-balancing schedulers (rr, wrr, lc, wlc, sh, …) and weights, where the other modes only pick at random.')),
        item('con', t('Still needs iptables and ipsets (`KUBE-CLUSTER-IP`, `KUBE-LOOP-BACK`, …) for masquerading, NodePorts, firewalls and source ranges: two systems to read instead of one.')),
        item('con', t('Every Service IP is bound to the `kube-ipvs0` dummy interface of the node, and some behaviour differs from the iptables mode; sig-network has few maintainers for this code.')),
      ];
    case 'nftables':
      return [
        item('pro', t('Verdict maps: `service-ips` maps address . protocol . port to a Service chain in one hashed lookup (O(1)), however many Services there are.')),
        item('pro', t('Incremental updates: kube-proxy adds and deletes map elements and chains in one nft transaction instead of rewriting tables.')),
        item('pro', t("Its own table (`table ip kube-proxy`, `table ip6 kube-proxy`): it does not mix with other programs' iptables rules.")),
        item('con', t('Needs Linux 5.13 or later and a recent `nft`; not the default mode; does not accept NodePort connections to 127.0.0.1; tools that expect `KUBE-SVC-*` chains will not find them.')),
      ];
  }
}

function status(mode: ProxyMode): Item[] {
  switch (mode) {
    case 'iptables':
      return [{ kind: 'note', text: t('Supported, and still the default mode of kube-proxy on Linux. nftables mode was written to replace it in the long run.'), evidence: [] }];
    case 'ipvs':
      return [{ kind: 'warning', text: t('Deprecated since Kubernetes v1.35 (KEP-5495): kube-proxy logs a warning in IPVS mode, and sig-network asks users to move to nftables mode.'), evidence: [] }];
    case 'nftables':
      return [
        {
          kind: 'note',
          text: t('Generally available since Kubernetes v1.33 (KEP-3866; alpha in v1.29, beta in v1.31) and the recommended direction for kube-proxy on Linux, though iptables mode stays the default.'),
          evidence: [],
        },
      ];
  }
}

function serviceFacts(catalogs: Catalog[], services: Service[]): Fact[] {
  const facts: Fact[] = [];
  const list = catalogs.length > 0 ? catalogs : [{ mode: 'iptables' as const, services, diagnostics: [] }];
  const byMode = new Map<string, Service[]>();
  for (const c of list) byMode.set(c.mode, [...(byMode.get(c.mode) ?? []), ...c.services]);
  for (const [mode, svcs] of byMode) {
    if (svcs.length === 0 && byMode.size > 1) continue;
    const endpoints = svcs.reduce((n, s) => n + s.endpoints.length, 0);
    const without = svcs.filter((s) => s.endpoints.length === 0 && !s.endpointsNotInDump).length;
    const suffix = byMode.size > 1 ? ` (${mode})` : '';
    facts.push({ label: t('Service ports') + suffix, value: String(svcs.length) });
    facts.push({ label: t('Endpoints') + suffix, value: String(endpoints) });
    facts.push({ label: t('Service ports without endpoints') + suffix, value: String(without) });
  }
  return facts;
}

/**
 * Explains a node snapshot. `texts` (parallel to `snapshot.files`, optional) lets evidence quote the dump's own
 * lines; without them the quotes come from the model.
 */
export function explainNode(snapshot: NodeSnapshot, texts: readonly (string | undefined)[] = []): NodeExplanation {
  const r = readNode(snapshot, texts);
  const { b, found, modes, mode, backend } = r;
  const sections: Section[] = [];
  const section = (id: SectionId, title: string, items: Item[], facts: Fact[] = []) => sections.push({ id, title, items, facts });
  const { headline, verdict } = verdictItems(r);
  section('verdict', t('Mode'), verdict);
  const how = howToTell(r);
  if (how.length > 0) section('evidence', t('How to tell'), how);
  if (backend) section('backend', t('iptables backend'), backendItems(r));
  const leftoverItems = leftoversItems(r);
  if (leftoverItems.length > 0) section('leftovers', t('Leftovers'), leftoverItems);

  // The cluster state beside the dump: what the API asks of this node against what the rules do.
  const cluster = clusterSection(snapshot.cluster, (at, quote) => b.located(at, quote));
  if (cluster) section('cluster', t('Cluster state'), cluster.items, cluster.facts);

  // Why iptables-nft is not nftables mode.
  if (found.headersNft.length > 0 || found.nftWarnings.length > 0) section('iptables-nft', t('Why an iptables-nft header does not mean nftables mode'), iptablesNftItems(found));

  // Trade-offs and status of each mode present.
  const trade: Item[] = [];
  const stat: Item[] = [];
  for (const m of modes) {
    const head = modes.length > 1 ? `${modeName(m)}: ` : '';
    for (const it of tradeoffs(m)) trade.push({ ...it, text: head + it.text });
    for (const it of status(m)) stat.push({ ...it, text: head + it.text });
  }
  if (trade.length > 0) section('tradeoffs', t('What this mode does well and badly'), trade);
  if (stat.length > 0) section('status', t('Status in Kubernetes'), stat);

  // Numbers.
  section('numbers', t('Numbers'), [], [...serviceFacts(snapshot.catalogs, snapshot.services), ...found.facts]);
  return {
    mode,
    modes,
    backend,
    headline,
    files: snapshot.files.map((f) => ({ name: baseName(f.name), languageId: f.languageId })),
    sections,
    evidence: b.evidence,
  };
}

/** What the dumps of a node snapshot say about its kube-proxy mode(s) and iptables backend, with the evidence. */
interface NodeReading {
  snapshot: NodeSnapshot;
  b: Builder;
  found: Found;
  /** The modes present, the likely current one (the one the Service catalog reads) first. */
  modes: ProxyMode[];
  mode: NodeMode;
  current: ProxyMode | undefined;
  backend: IptablesBackendSummary | undefined;
  hasIptables: boolean;
  ipvsadmFiles: number;
  kubeRouter: boolean;
  evidenceOf: (m: ProxyMode) => Evidence[];
}

function readNode(snapshot: NodeSnapshot, texts: readonly (string | undefined)[]): NodeReading {
  const b = new Builder(snapshot, texts);
  const found = emptyFound();
  const clusterIPs = new Set(snapshot.services.flatMap((s) => s.frontends.filter((f) => f.kind === 'clusterIP').map((f) => `${f.address}:${f.port}`)));
  snapshot.files.forEach((f, i) => {
    if (f.languageId === 'iptables') readIptables(b, i, (f.analysis as IptablesAnalysis).ruleset, (f.analysis as IptablesAnalysis).catalog, found);
    else if (f.languageId === 'nftables') readNft(b, i, (f.analysis as NftAnalysis).ruleset, found);
    else if (f.languageId === 'ipvsadm') readIpvsadm(b, i, (f.analysis as IpvsadmAnalysis).dump, found, clusterIPs);
    else if (f.languageId === 'ipset') readIpset(b, i, (f.analysis as IpsetAnalysis).dump, found);
  });

  // Which modes are present: iptables (KUBE-SVC… in an iptables dump, or in tables nft lists as iptables-nft's),
  // IPVS (virtual services, or iptables rules matching kube-proxy's ipsets), nftables (kube-proxy's own table).
  const iptablesEvidence = [...found.iptables, ...found.iptablesViaNft];
  const ipvsadmFiles = snapshot.files.filter((f) => f.languageId === 'ipvsadm' && (f.analysis as IpvsadmAnalysis).dump.services.length > 0);
  const present: ProxyMode[] = [];
  if (iptablesEvidence.length > 0) present.push('iptables');
  // kube-proxy's ipsets alone are IPVS mode's when nothing else claims the node.
  if (ipvsadmFiles.length > 0 || found.ipvsFromIptables || (found.ipset.length > 0 && snapshot.mode === 'ipvs')) present.push('ipvs');
  if (found.nftables.length > 0) present.push('nftables');
  // The likely current mode first: the one the snapshot's Service catalog reads.
  const current: ProxyMode | undefined = snapshot.mode === 'iptables' || snapshot.mode === 'ipvs' || snapshot.mode === 'nftables' ? snapshot.mode : undefined;
  const modes = current && present.includes(current) ? [current, ...present.filter((m) => m !== current)] : present;
  const mode: NodeMode = modes.length > 1 ? 'mixed' : modes.length === 1 ? modes[0] : found.kubelet.length > 0 ? 'kubelet-only' : 'none';

  const hasIptables = snapshot.files.some((f) => f.languageId === 'iptables');
  const backends = new Set<string>();
  if (found.headersNft.length > 0 || found.nftWarnings.length > 0) backends.add('nf_tables');
  if (found.headersLegacy.length > 0 || found.legacyPresent.length > 0) backends.add('legacy');
  const backend: IptablesBackendSummary | undefined =
    !hasIptables && found.nftWarnings.length === 0 ? undefined : backends.size > 1 ? 'mixed' : backends.size === 1 ? ([...backends][0] as IptablesBackendSummary) : 'unknown';

  const ipvsEvidence = [...found.ipvsadm, ...found.ipset, ...found.ipvs];
  const evidenceOf = (m: ProxyMode) => (m === 'iptables' ? iptablesEvidence : m === 'ipvs' ? ipvsEvidence : found.nftables);
  const kubeRouter = found.kubeRouter.length + found.kubeRouterProxy.length > 0;
  return { snapshot, b, found, modes, mode, current, backend, hasIptables, ipvsadmFiles: ipvsadmFiles.length, kubeRouter, evidenceOf };
}

/** The headline and the items of the Mode section. */
function verdictItems({ snapshot, found, modes, mode, current, backend, kubeRouter }: NodeReading): { headline: string; verdict: Item[] } {
  let headline: string;
  const verdict: Item[] = [];
  if (mode === 'mixed') {
    headline = t('This snapshot holds the rules of more than one kube-proxy mode: {0}.', modes.map(modeName).join(', '));
    verdict.push({
      kind: 'warning',
      text: t('kube-proxy runs in one mode at a time. The others are leftovers, typically of a mode switch without `kube-proxy --cleanup`: they are no longer updated but may still catch packets.'),
      evidence: [],
    });
    if (current) verdict.push({ kind: 'claim', text: t('The Service catalog of this extension reads {0}; compare the Services and endpoints of each mode to see which is current.', modeName(current)), evidence: [] });
  } else if (mode === 'kubelet-only' && kubeRouter) {
    headline = t("No kube-proxy Service rules in these dumps: kubelet's and kube-router's chains only.");
  } else if (mode === 'kubelet-only') {
    headline = t("No kube-proxy Service rules in these dumps, only kubelet's chains.");
    verdict.push({
      kind: 'claim',
      text: t(
        'This is what an iptables dump of a node in nftables mode looks like (kube-proxy writes no iptables rules then). Save `nft list ruleset` into the same folder to see its `table ip kube-proxy`; if there is none, kube-proxy does not run on this node (or something else replaces it).',
      ),
      evidence: found.kubelet,
    });
  } else if (mode === 'none' && kubeRouter) {
    headline = t("No kube-proxy rules in these dumps: kube-router's chains only.");
  } else if (mode === 'none') {
    headline = t('No kube-proxy rules in these dumps.');
    verdict.push({
      kind: 'claim',
      text: t("Neither `KUBE-*` chains, kube-proxy's nft table nor IPVS virtual services: kube-proxy does not run on this node, something else replaces it, or the dump is of another host."),
      evidence: [],
    });
  } else {
    headline = t('This node runs kube-proxy in {0}.', modeName(mode));
  }
  if (found.kubeRouterProxy.length > 0) {
    verdict.push({
      kind: 'claim',
      text: t(
        "kube-router's service proxy runs on this node (`KUBE-ROUTER-SERVICES`, `KUBE-ROUTER-HAIRPIN`): it replaces kube-proxy and balances Services with IPVS. Save `ipvsadm -Ln` next to this dump to see its virtual services.",
      ),
      evidence: found.kubeRouterProxy,
    });
  }
  if (found.kubeRouter.length > 0) {
    verdict.push({
      kind: 'claim',
      text: t(
        "kube-router enforces NetworkPolicy here (or k3s, which embeds its network policy controller): `KUBE-ROUTER-INPUT`, `-FORWARD` and `-OUTPUT` send each local pod's traffic through its `KUBE-POD-FW-*` chain and the `KUBE-NWPLCY-*` chains. These chains are not kube-proxy's.",
      ),
      evidence: found.kubeRouter,
    });
  }
  if (backend === 'nf_tables' || backend === 'legacy') {
    verdict.push({ kind: 'claim', text: backend === 'nf_tables' ? t('iptables uses its nf_tables backend (iptables-nft).') : t('iptables uses its legacy backend (iptables-legacy, x_tables).'), evidence: [] });
  } else if (backend === 'mixed') {
    verdict.push({ kind: 'warning', text: t('Both iptables backends hold rules on this node (iptables-nft and iptables-legacy).'), evidence: [] });
  }
  const names = snapshot.files.map((f) => `\`${baseName(f.name)}\``);
  if (names.length > 0) verdict.push({ kind: 'note', text: t('Read together from one folder (one node snapshot): {0}.', names.join(', ')), evidence: [] });
  return { headline, verdict };
}

/** The items of the How to tell section: the evidence of each mode present. */
function howToTell({ snapshot, found, modes, mode, hasIptables, ipvsadmFiles, kubeRouter, evidenceOf }: NodeReading): Item[] {
  const how: Item[] = [];
  for (const m of modes) {
    const ev = evidenceOf(m);
    if (m === 'iptables') {
      if (found.iptables.length > 0)
        how.push({
          kind: 'claim',
          text: t(
            "iptables mode: kube-proxy's `KUBE-SERVICES` chain sends each Service port to its own `KUBE-SVC-*` chain, which picks an endpoint with `-m statistic` rules and jumps to a `KUBE-SEP-*` chain that DNATs.",
          ),
          evidence: found.iptables,
        });
      if (found.iptablesViaNft.length > 0)
        how.push({
          kind: 'claim',
          text: t("iptables mode seen through nft: `KUBE-SVC-*` / `KUBE-SEP-*` chains in tables that iptables-nft manages are iptables rules, not kube-proxy's nftables mode."),
          evidence: [...found.nftWarnings.slice(0, 1), ...found.iptablesViaNft],
        });
    } else if (m === 'ipvs') {
      how.push({
        kind: 'claim',
        text: t(
          "IPVS mode: each Service address is an IPVS virtual service (`ipvsadm -Ln`), and iptables only matches kube-proxy's ipsets (`KUBE-CLUSTER-IP`, `KUBE-IPVS-IPS`, …) instead of having one chain per Service.",
        ),
        evidence: ev,
      });
      if (ipvsadmFiles === 0) how.push({ kind: 'note', text: t('Save `ipvsadm -Ln` and `ipset save` next to this dump to see the virtual services themselves.'), evidence: [] });
      else if (!hasIptables || !snapshot.files.some((f) => f.languageId === 'ipset'))
        how.push({ kind: 'note', text: t('Save `iptables-save` and `ipset save` next to this dump: IPVS mode needs them for masquerading, NodePorts and filtering.'), evidence: [] });
    } else {
      how.push({
        kind: 'claim',
        text: t(
          "nftables mode: kube-proxy's own `table ip kube-proxy` (and `ip6`) with the `service-ips` verdict map, looked up by `ip daddr . meta l4proto . th dport vmap @service-ips`, and `numgen random mod N` to pick an endpoint.",
        ),
        evidence: ev,
      });
    }
  }
  if (mode === 'kubelet-only' && !kubeRouter)
    how.push({ kind: 'claim', text: t("Only kubelet's chains (`KUBE-KUBELET-CANARY`, `KUBE-IPTABLES-HINT`, `KUBE-FIREWALL`): no `KUBE-SVC-*` chains and no ipset matches."), evidence: found.kubelet });
  return how;
}

/** The items of the iptables backend section. */
function backendItems({ snapshot, b, found, hasIptables }: NodeReading): Item[] {
  const items: Item[] = [];
  const writers = iptablesBackendWriters(iptablesDumps(snapshot));
  if (writers.length > 1) {
    const evidence = writers.flatMap((w) =>
      w.headers
        .slice(0, 2)
        .map((h) => b.ev(h.fileIndex, h.range, ''))
        .filter((e): e is Evidence => e !== undefined),
    );
    items.push({ kind: 'warning', text: t('Both iptables backends hold rules: {0}.', backendWritersText(writers)), evidence });
    items.push({ kind: 'note', text: mixedBackendsWhy(), evidence: [] });
  }
  if (found.headersNft.length > 0)
    items.push({ kind: 'claim', text: t("`(nf_tables)` in the `# Generated by` header: iptables-nft wrote this dump; its rules live in the kernel's nf_tables."), evidence: found.headersNft.slice(0, 3) });
  if (found.headersLegacy.length > 0)
    items.push({
      kind: 'claim',
      text: t("A `# Generated by iptables-save` header without `(nf_tables)`: iptables-legacy wrote this dump; its rules live in the kernel's x_tables."),
      evidence: found.headersLegacy.slice(0, 3),
    });
  if (found.headersUnknown.length > 0 || (hasIptables && found.headersNft.length + found.headersLegacy.length === 0))
    items.push({ kind: 'note', text: t('No `# Generated by` header says which backend wrote (part of) the iptables dump: save it with `iptables-save` to keep the header.'), evidence: found.headersUnknown.slice(0, 3) });
  if (found.legacyPresent.length > 0)
    items.push({
      kind: 'warning',
      text: t('iptables-nft-save warns that iptables-legacy tables are present too: some rules (often leftovers) live in the other backend. Run `iptables-legacy-save` as well.'),
      evidence: found.legacyPresent,
    });
  if (found.nftWarnings.length > 0)
    items.push({ kind: 'claim', text: t('`nft list ruleset` marks the tables that iptables-nft manages: those are iptables rules stored in nf_tables.'), evidence: found.nftWarnings.slice(0, 3) });
  return items;
}

/** The items of the Leftovers section: of the modes present, and the other mode's rules that the current one left in its dumps. */
function leftoversItems({ snapshot, b, modes, mode, current, evidenceOf }: NodeReading): Item[] {
  const leftoverItems: Item[] = [];
  if (mode === 'mixed') {
    modes.forEach((m, k) =>
      leftoverItems.push({
        kind: k === 0 && current === m ? 'claim' : 'warning',
        text: k === 0 && current === m ? t('{0}: the rules the Service catalog reads.', modeName(m)) : t('{0}: possibly leftovers; `kube-proxy --cleanup` (run with the old mode) removes them.', modeName(m)),
        evidence: evidenceOf(m).slice(0, 2),
      }),
    );
  }
  for (const l of snapshot.leftovers) {
    // A mode already listed as present gets the details in its own item; another one (dead chains) an item of its own.
    const listed = mode === 'mixed' ? leftoverItems[modes.indexOf(l.of)] : undefined;
    if (listed && listed.kind === 'warning') listed.text = `${listed.text} ${leftoversText(l, snapshot.mode)}`;
    else leftoverItems.push({ kind: 'warning', text: leftoversText(l, snapshot.mode), evidence: leftoverEvidence(b, l) });
  }
  return leftoverItems;
}

/** Why iptables-nft is not nftables mode. */
function iptablesNftItems(found: Found): Item[] {
  return [
    {
      kind: 'claim',
      text: t(
        'iptables-nft is the nf_tables backend of the iptables command: the same iptables rules (`KUBE-SERVICES`, `KUBE-SVC-*`, matched one after another), stored in nf_tables instead of x_tables. That is why `nft list ruleset` shows them, as `table ip nat` / `table ip filter` with a "managed by iptables-nft" warning.',
      ),
      evidence: [...found.headersNft.slice(0, 1), ...found.nftWarnings.slice(0, 1)],
    },
    {
      kind: 'claim',
      text: t(
        "kube-proxy's nftables mode is a different implementation: it writes no iptables rules at all, but its own `table ip kube-proxy` with verdict maps. The header names the iptables backend, never the kube-proxy mode.",
      ),
      evidence: found.nftables.slice(0, 1),
    },
  ];
}
