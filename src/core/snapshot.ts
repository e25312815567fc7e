// A node snapshot (DESIGN §1): the dumps saved from one node, read together. IPVS mode needs ipvsadm +
// iptables-save + ipset save; the trace and the Service catalog work on the snapshot, not on one file.
import { detectDialect, kubeProxyModeOfIptables, type KubeProxyMode } from './detect';
import { featuresFor, type AnyFeatures } from './language';
import type { IptablesAnalysis } from './language/iptables';
import type { DumpAnalysis } from './language/types';
import type { Catalog, Service } from './kube/catalog';
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
  const ipvs = files.map((f, fileIndex) => ({ f, fileIndex })).filter(({ f }) => f.languageId === 'ipvsadm');
  if (ipvs.length > 0 && (mode === 'ipvs' || mode === 'none' || iptables.length === 0)) {
    // IPVS mode: the Services live in ipvsadm, read together with ipset and iptables (DESIGN §1).
    const catalog = buildIpvsCatalog({
      ipvs: ipvs.map(({ f, fileIndex }) => ({ dump: (f.analysis as IpvsadmAnalysis).dump, fileIndex })),
      ipsets: files.filter((f) => f.languageId === 'ipset').map((f) => (f.analysis as IpsetAnalysis).dump),
      iptables: iptables.map((a) => a.ruleset),
    });
    return { files, mode: 'ipvs', services: catalog.services, catalogs: [catalog] };
  }
  const services = files.flatMap((f) => f.features.services(f.analysis) as Service[]);
  if (files.some((f) => f.languageId === 'nftables' && f.features.services(f.analysis).length > 0)) mode = 'nftables';
  const catalogs: Catalog[] = [];
  for (const a of iptables) catalogs.push(a.catalog);
  for (const f of files) if (f.languageId === 'nftables') catalogs.push((f.analysis as NftAnalysis).catalog);
  // A node in nftables mode also has an iptables dump with kubelet's chains only: list the nft Services.
  if (mode === 'nftables') catalogs.sort((x, y) => (x.mode === 'nftables' ? 0 : 1) - (y.mode === 'nftables' ? 0 : 1));
  return { files, mode, services, catalogs };
}
