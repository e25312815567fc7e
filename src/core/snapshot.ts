// A node snapshot (DESIGN §1): the dumps saved from one node, read together. IPVS mode needs ipvsadm +
// iptables-save + ipset save; the trace and the Service catalog work on the snapshot, not on one file.
import { detectDialect, isKubeProxyIpset, kubeProxyLeftoversOfIptables, kubeProxyModeOfIptables, type IptablesLeftovers, type KubeProxyMode } from './detect';
import { t } from './l10n';
import { featuresFor, type AnyFeatures } from './language';
import type { IptablesAnalysis } from './language/iptables';
import type { DumpAnalysis } from './language/types';
import type { Catalog, Service } from './kube/service';
import type { CheckResult } from './cluster/check';
import type { ClusterState } from './cluster/types';
import { buildIpvsCatalog } from './kube/ipvs-catalog';
import type { IpsetAnalysis } from './language/ipset';
import type { IpvsadmAnalysis } from './language/ipvsadm';
import type { NftAnalysis } from './language/nft';

export interface SnapshotFile {
  /** Path or URI as the caller names it. */
  name: string;
  languageId: string;
  features: AnyFeatures;
  analysis: DumpAnalysis;
  /** The dump's text, read when asked (Explain This Node quotes its lines); absent when the caller has none. */
  text?: () => string | undefined;
}

export interface NodeSnapshot {
  files: SnapshotFile[];
  /** kube-proxy's mode as the snapshot shows it. */
  mode: KubeProxyMode | 'nftables';
  services: Service[];
  /** The catalogs the services come from (one per iptables/nft dump, or the IPVS snapshot's). */
  catalogs: Catalog[];
  /** Rules of another kube-proxy mode than `mode`, left from an earlier one. */
  leftovers: Leftovers[];
  /**
   * The cluster's intent beside the dumps (a cluster-state file in the folder, or one the user picked) and the
   * check of the dumps against it; absent when there is none. Hovers, the graph, the trace and Explain This Node
   * show the API side from here.
   */
  cluster?: SnapshotCluster;
}

export interface SnapshotCluster {
  /** The cluster-state files as the caller names them. */
  files: string[];
  state: ClusterState;
  check: CheckResult;
}

/**
 * The rules of a kube-proxy mode that is not the current one. kube-proxy never removes iptables-mode rules when it
 * starts in IPVS mode, nor IPVS-mode ones in iptables mode (cmd/kube-proxy `platformCleanup` cleans only across
 * nftables and iptables-based modes, or with `--cleanup`), so a mode switch leaves them behind.
 */
export interface Leftovers {
  of: 'iptables' | 'ipvs';
  fileIndex: number;
  /** iptables dumps: the other mode's chains. */
  chains?: IptablesLeftovers;
  /** ipvsadm dumps: how many virtual services (IPVS mode's Services) the current mode does not use. */
  virtualServices?: number;
  /** ipset dumps: how many of kube-proxy's IPVS-mode ipsets the current mode does not use. */
  ipsets?: number;
}

/** The leftover chains packets still reach, as `table/chain`, the first few. */
function reachedNames(c: IptablesLeftovers): string {
  // Per-Service chains first: they say that Services are still served by these rules.
  const reached = [...c.reached].sort((a, b) => Number(b.name.startsWith('KUBE-SVC-')) - Number(a.name.startsWith('KUBE-SVC-')));
  const shown = reached.slice(0, 4).map((chain) => `${chain.tableId.replace(/^\d+\//, '')}/${chain.name}`);
  return c.reached.length > shown.length ? `${shown.join(', ')}, …` : shown.join(', ');
}

/** What the leftovers are and whether packets still reach them, in one sentence. */
export function leftoversText(l: Leftovers, current: NodeSnapshot['mode']): string {
  const c = l.chains;
  const names = c ? reachedNames(c) : '';
  if (c && c.of === 'iptables') {
    const others = c.chains.length - c.serviceChains;
    if (c.reached.length === 0) return t('{0} KUBE-SVC chains (and {1} other iptables-mode chains) are leftovers from iptables mode: nothing jumps to them.', c.serviceChains, others);
    if (c.reachedServiceChains === 0)
      return t(
        '{0} KUBE-SVC chains (and {1} other iptables-mode chains) are leftovers from iptables mode: nothing jumps to the KUBE-SVC chains, but {2} are still jumped to and may still catch packets.',
        c.serviceChains,
        others,
        names,
      );
    return t('{0} KUBE-SVC chains (and {1} other iptables-mode chains) are iptables-mode rules beside the current mode, still jumped to ({2}): they may still catch packets.', c.serviceChains, others, names);
  }
  if (c) {
    return c.reached.length === 0
      ? t("{0} IPVS-mode chains and {1} rules matching kube-proxy's ipsets are leftovers from IPVS mode: nothing jumps to the chains.", c.chains.length, c.setRules)
      : t("{0} IPVS-mode chains and {1} rules matching kube-proxy's ipsets are leftovers from IPVS mode; {2} are still jumped to and may still filter packets.", c.chains.length, c.setRules, names);
  }
  if (l.virtualServices !== undefined)
    return t('{0} IPVS virtual services are leftovers from IPVS mode: {1} rewrites Service traffic before IPVS would see it.', l.virtualServices, current === 'nftables' ? t('nftables mode') : t('iptables mode'));
  return t("{0} of kube-proxy's IPVS-mode ipsets are leftovers from IPVS mode.", l.ipsets ?? 0);
}

/** Maps a detected dialect to the language id that analyses it. */
export function languageOfDialect(dialect: string | undefined): string | undefined {
  if (dialect === 'nftables-json') return 'nftables';
  return dialect;
}

/** Analyses a text as whatever dump it is (undefined when no language knows it). */
export function analyzeFile(name: string, text: string, languageId?: string): SnapshotFile | undefined {
  const id = languageId ?? languageOfDialect(detectDialect(text, name));
  const features = id ? featuresFor(id) : undefined;
  if (!id || !features) return undefined;
  return { name, languageId: id, features, analysis: features.analyze(text) };
}

export function buildSnapshot(files: SnapshotFile[]): NodeSnapshot {
  const iptables = files.filter((f) => f.languageId === 'iptables').map((f) => f.analysis as IptablesAnalysis);
  let mode: NodeSnapshot['mode'] = 'none';
  for (const a of iptables) {
    const m = kubeProxyModeOfIptables(a.ruleset).mode;
    if (m === 'iptables' || m === 'ipvs') {
      mode = m;
      break;
    }
    if (m === 'nftables-or-none') mode = m;
  }
  // kube-proxy's own ipsets are IPVS mode's, even without its iptables rules or ipvsadm dump.
  const ipsets = files.map((f, fileIndex) => ({ fileIndex, count: f.languageId === 'ipset' ? kubeProxyIpsets(f) : 0 })).filter((x) => x.count > 0);
  if ((mode === 'none' || mode === 'nftables-or-none') && ipsets.length > 0) mode = 'ipvs';
  const ipvs = files.map((f, fileIndex) => ({ f, fileIndex })).filter(({ f }) => f.languageId === 'ipvsadm');
  if ((ipvs.length > 0 || mode === 'ipvs') && (mode === 'ipvs' || mode === 'none' || iptables.length === 0)) {
    // IPVS mode: the Services live in ipvsadm, read together with ipset and iptables (DESIGN §1).
    const catalog = buildIpvsCatalog({
      ipvs: ipvs.map(({ f, fileIndex }) => ({ dump: (f.analysis as IpvsadmAnalysis).dump, fileIndex })),
      ipsets: files.filter((f) => f.languageId === 'ipset').map((f) => (f.analysis as IpsetAnalysis).dump),
      iptables: iptables.map((a) => a.ruleset),
    });
    return { files, mode: 'ipvs', services: catalog.services, catalogs: [catalog], leftovers: leftoversOf(files, 'ipvs') };
  }
  const services = files.flatMap((f) => f.features.services(f.analysis) as Service[]);
  if (files.some((f) => f.languageId === 'nftables' && f.features.services(f.analysis).length > 0)) mode = 'nftables';
  const catalogs: Catalog[] = [];
  for (const a of iptables) catalogs.push(a.catalog);
  for (const f of files) if (f.languageId === 'nftables') catalogs.push((f.analysis as NftAnalysis).catalog);
  // A node in nftables mode also has an iptables dump with kubelet's chains only: list the nft Services.
  if (mode === 'nftables') catalogs.sort((x, y) => (x.mode === 'nftables' ? 0 : 1) - (y.mode === 'nftables' ? 0 : 1));
  return { files, mode, services, catalogs, leftovers: leftoversOf(files, mode) };
}

/** How many of kube-proxy's IPVS-mode ipsets an ipset dump holds. */
function kubeProxyIpsets(f: SnapshotFile): number {
  return (f.analysis as IpsetAnalysis).dump.sets.filter((s) => isKubeProxyIpset(s.name)).length;
}

/** The rules of the snapshot that belong to another kube-proxy mode than `mode`. */
function leftoversOf(files: SnapshotFile[], mode: NodeSnapshot['mode']): Leftovers[] {
  const out: Leftovers[] = [];
  if (mode !== 'iptables' && mode !== 'ipvs' && mode !== 'nftables') return out;
  files.forEach((f, fileIndex) => {
    if (f.languageId === 'iptables') {
      const chains = kubeProxyLeftoversOfIptables((f.analysis as IptablesAnalysis).ruleset, mode);
      if (chains) out.push({ of: chains.of, fileIndex, chains });
    } else if (mode !== 'ipvs' && f.languageId === 'ipvsadm') {
      const n = (f.analysis as IpvsadmAnalysis).dump.services.length;
      if (n > 0) out.push({ of: 'ipvs', fileIndex, virtualServices: n });
    } else if (mode !== 'ipvs' && f.languageId === 'ipset') {
      const n = kubeProxyIpsets(f);
      if (n > 0) out.push({ of: 'ipvs', fileIndex, ipsets: n });
    }
  });
  return out;
}
