// The "Cluster state" section of Explain This Node: which node the dump is taken to be and how that is known, how
// many of the API's Service ports the rules program as the API asks, the findings per severity, and the worst
// findings with their Service, reason and the dump lines (or cluster-file objects) that show them.
import { t } from '../l10n';
import { servicePortText } from '../cluster/check';
import type { Finding, NodeIdentity } from '../cluster/types';
import type { SnapshotCluster } from '../snapshot';
import type { Evidence, Fact, Item } from './node';

/** The worst findings listed; the rest are in Problems and in `dataplane check`. */
export const MAX_CLUSTER_FINDINGS = 8;

/** Makes evidence for a finding's location: a dump line of the snapshot, or an object of a cluster-state file. */
export type ClusterEvidence = (location: Finding['evidence'][number], quote: string) => Evidence | undefined;

function nodeItem(node: NodeIdentity): Item {
  if (node.error) return { kind: 'warning', text: node.error, evidence: [] };
  if (!node.name) {
    const candidates = node.candidates?.length ? t(' It could be {0}.', node.candidates.slice(0, 8).join(', ')) : '';
    return { kind: 'warning', text: t('Which node this dump belongs to is not known: traffic policies Local and topology are judged without a node.{0}', candidates), evidence: [] };
  }
  if (!node.inferredFrom) return { kind: 'claim', text: t('This dump is node {0} (given).', codeSpan(node.name)), evidence: [] };
  const how = node.inferredFrom === 'address' ? t("the node's addresses in the rules") : node.inferredFrom === 'local-endpoints' ? t('the endpoints the rules mark local') : t("the folder's name");
  return { kind: 'claim', text: t('This dump is node {0}, inferred from {1}: {2}.', codeSpan(node.name), how, node.evidence ?? ''), evidence: [] };
}

/** Service ports the rules program with no error or warning of their own. */
function matching(cluster: SnapshotCluster): number {
  const drifted = new Set<string>();
  for (const f of cluster.check.findings) {
    if (f.severity === 'info' || f.code === 'not-programmed' || f.code === 'stale-service' || f.code === 'mode-mismatch') continue;
    drifted.add(`${servicePortText(f.service)}|${f.service.protocol}`);
  }
  return Math.max(0, cluster.check.summary.programmed - drifted.size);
}

/** A value shown as code in the explain view (outside the message: a translation never wraps a placeholder in a span). */
function codeSpan(value: string): string {
  return `\`${value.replace(/`/g, "'")}\``;
}

const KIND: Record<Finding['severity'], Item['kind']> = { error: 'warning', warning: 'warning', info: 'note' };

function findingItem(f: Finding, evidence: ClusterEvidence): Item {
  const where = f.service.namespace || f.service.name ? `${codeSpan(servicePortText(f.service))} ${f.service.protocol}` : t('kube-proxy');
  const quote = servicePortText(f.service) || f.code;
  return {
    kind: KIND[f.severity],
    text: t('{0} {1} ({2}): {3} Why: {4}', where, codeSpan(f.code), f.severity, f.message, f.reason),
    evidence: f.evidence.slice(0, 3).flatMap((at) => evidence(at, quote) ?? []),
  };
}

/** The section's items and facts, or undefined without a cluster state. */
export function clusterSection(cluster: SnapshotCluster | undefined, evidence: ClusterEvidence): { items: Item[]; facts: Fact[] } | undefined {
  if (!cluster) return undefined;
  const { summary, findings } = cluster.check;
  const items: Item[] = [nodeItem(cluster.check.node)];
  const good = matching(cluster);
  items.push({
    kind: good === summary.servicePorts ? 'claim' : 'warning',
    text: t('{0} of the {1} Service ports the API has for this node are programmed as it asks; {2} are programmed at all.', good, summary.servicePorts, summary.programmed),
    evidence: [],
  });
  if (findings.length === 0) items.push({ kind: 'claim', text: t('No findings: the rules are what kube-proxy computes from the cluster state.'), evidence: [] });
  for (const f of findings.slice(0, MAX_CLUSTER_FINDINGS)) items.push(findingItem(f, evidence));
  if (findings.length > MAX_CLUSTER_FINDINGS) items.push({ kind: 'note', text: t('{0} more findings: see Problems, or run `dataplane check`.', findings.length - MAX_CLUSTER_FINDINGS), evidence: [] });
  const problems = cluster.state.diagnostics.reduce((n, d) => n + d.diagnostics.length, 0);
  if (problems > 0) items.push({ kind: 'warning', text: t('{0} problems reading the cluster-state files: the objects read are still used (see Problems).', problems), evidence: [] });
  const facts: Fact[] = [
    { label: t('Cluster-state files'), value: cluster.files.map((f) => f.slice(Math.max(f.lastIndexOf('/'), f.lastIndexOf('\\')) + 1)).join(', ') },
    { label: t('Service ports (API)'), value: String(summary.servicePorts) },
    { label: t('Programmed'), value: String(summary.programmed) },
    { label: t('Matching'), value: String(good) },
    { label: t('Errors'), value: String(summary.findings.error) },
    { label: t('Warnings'), value: String(summary.findings.warning) },
    { label: t('Information'), value: String(summary.findings.info) },
  ];
  return { items, facts };
}
