// The language status item's words: a short text that fits beside the language mode, and the detail line.
import { t } from '../l10n';
import type { StatusSummary } from './types';

export interface StatusText {
  /** Short: what wrote the dump, kube-proxy's mode, how many Services. */
  text: string;
  /** Everything else: the producer and the counts. */
  detail: string;
}

/**
 * What wrote the dump. Only iptables-save output names an iptables backend: a native nftables ruleset (kube-proxy's
 * nftables mode, or any `nft list ruleset`) runs on nf_tables too, but is no iptables-nft.
 */
function backendLabel(s: StatusSummary): string {
  if (s.dialect === 'iptables') return s.backend === 'nf_tables' ? 'iptables-nft' : s.backend === 'legacy' ? 'iptables-legacy' : 'iptables';
  if (s.dialect === 'nftables') return s.producer === 'nft -j' ? 'nftables JSON' : 'nftables';
  return s.dialect;
}

function modeLabel(mode: string | undefined): string {
  if (mode === undefined) return '';
  if (mode === 'nftables-or-none') return t('kube-proxy nftables or none');
  if (mode === 'none') return t('no kube-proxy');
  return t('kube-proxy {0}', mode);
}

/** The counts that matter most for a dialect: Services, or what IPVS and ipset hold instead. */
function countsLabel(s: StatusSummary): string {
  if (s.dialect === 'ipvsadm') return `${t('{0} virtual services', s.chains)} · ${t('{0} real servers', s.rules)}`;
  if (s.dialect === 'ipset') return `${t('{0} sets', s.chains)} · ${t('{0} members', s.rules)}`;
  // An iptables dump of IPVS mode holds no Service: they are in the ipvsadm dump beside it.
  if (s.kubeProxyMode === 'ipvs' && s.services === 0) return '';
  return t('{0} Services', s.services);
}

function detailLabel(s: StatusSummary): string {
  const parts: string[] = [];
  if (s.producer) parts.push(s.producer);
  if (s.dialect === 'iptables' || s.dialect === 'nftables') parts.push(t('{0} tables, {1} chains, {2} rules', s.tables, s.chains, s.rules));
  else parts.push(countsLabel(s));
  if (s.kubeProxyMode === 'ipvs' && s.dialect === 'iptables') parts.push(t('the Services are in the ipvsadm dump'));
  parts.push(t('{0} errors, {1} warnings', s.errors, s.warnings));
  return parts.join(' · ');
}

export function statusText(s: StatusSummary): StatusText {
  const text = [backendLabel(s), modeLabel(s.kubeProxyMode), countsLabel(s)].filter((p) => p !== '').join(' · ');
  return { text, detail: detailLabel(s) };
}
