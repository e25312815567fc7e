// How a Service of the catalog is described in hovers, whatever the mode that implements it.
import { formatShare, servicePortNameString, type Service } from '../kube/catalog';
import { serviceTitle } from '../graph/model';
import { t } from '../l10n';
import { formatAddress, formatHostPort, parseAddress } from '../trace/addr';
import { code, mdEscape } from './iptables';

function hostPort(e: { address: string; port: number }): string {
  return formatHostPort(e.address, e.port);
}

function serviceName(s: Service): string {
  return s.anonymous ? s.name : `${servicePortNameString(s)}/${s.protocol}`;
}

/**
 * The `command:` URI of "Show in Graph" for a Service: `[null, { title, family }]` (null: the active editor's
 * snapshot). The title comes from the dump, so it is JSON- and URI-encoded, and the parentheses that
 * encodeURIComponent leaves alone are encoded too: they would end the Markdown link.
 */
export function showInGraphLink(s: Service): string {
  const arg = encodeURIComponent(JSON.stringify([null, { title: serviceTitle(s), family: s.family }])).replace(/[()'!*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `command:dataplane.showGraph?${arg}`;
}

/** The commands a hover's links run (VS Code enables exactly these in the trusted Markdown). */
export function hoverCommands(markdown: string): string[] {
  return ['dataplane.tracePacket', 'dataplane.showGraph'].filter((c) => markdown.includes(`](command:${c}?`));
}

/**
 * The Markdown lines describing a Service (any mode): name, frontends, endpoints with shares, policies,
 * a "Trace this Service" link and, for a hashed chain, whether its name matches kube-proxy's hash.
 */
export function describeService(s: Service, focus: { endpointChain?: string; hashChain?: string } = {}): string[] {
  const out: string[] = [];
  out.push(t('Service **{0}**', mdEscape(serviceName(s))) + (s.anonymous ? ' ' + t('(its name is not in the dump)') : ''));
  if (s.frontends.length > 0) {
    out.push('', t('Frontends:'));
    for (const f of s.frontends) {
      const label = { clusterIP: 'ClusterIP', nodePort: 'NodePort', loadBalancer: 'LoadBalancer', externalIP: 'ExternalIP' }[f.kind];
      out.push(`- ${label} ${code(f.address ? formatHostPort(f.address, f.port) : String(f.port))}`);
    }
  }
  if (focus.endpointChain) {
    const e = s.endpoints.find((x) => x.chain === focus.endpointChain);
    if (e) out.push('', t('This endpoint: `{0}` receives **{1}** of new connections.', hostPort(e), formatShare(e.probability)));
  }
  if (s.endpoints.length > 0) {
    out.push('', t('Endpoints (share of new ClusterIP connections from a pod):'));
    for (const e of s.endpoints) {
      out.push(`- \`${hostPort(e)}\` — ${formatShare(e.probability)}${e.local ? ' · ' + t('on this node') : ''}`);
    }
  } else if (s.endpointsNotInDump) {
    out.push('', t('The Service chain is not in this file (kube-proxy\'s partial restore input): its endpoints are unknown here.'));
  } else if (s.policies.noEndpoints) {
    out.push('', s.policies.noEndpoints === 'drop' ? t('No endpoints: connections are dropped.') : t('No endpoints: connections are rejected (ICMP port unreachable).'));
  } else {
    out.push('', t('No endpoints in this dump.'));
  }
  const p = s.policies;
  const policies: string[] = [];
  if (p.sessionAffinity) policies.push(t('session affinity ClientIP, {0} s', p.sessionAffinity.timeoutSeconds));
  if (p.externalTrafficPolicy) policies.push(t('externalTrafficPolicy {0}', p.externalTrafficPolicy));
  if (p.internalTrafficPolicy === 'Local') policies.push(t('internalTrafficPolicy Local'));
  if (p.loadBalancerSourceRanges) policies.push(t('source ranges {0}', p.loadBalancerSourceRanges.map(mdEscape).join(', ')));
  if (p.clusterCIDR) policies.push(t('masquerades sources outside {0}', mdEscape(p.clusterCIDR)));
  if (p.masqueradeAll) policies.push(t('masquerades all traffic'));
  if (p.scheduler) policies.push(t('IPVS scheduler {0}', p.scheduler));
  if (policies.length > 0) out.push('', policies.join(' · '));
  const cluster = s.frontends.find((f) => f.kind === 'clusterIP' && f.address && parseAddress(f.address));
  if (cluster) {
    // The link's argument is rebuilt from the parsed address, never copied from the dump's text.
    const target = `${formatHostPort(formatAddress(parseAddress(cluster.address!)!), cluster.port)}/${s.protocol === 'udp' || s.protocol === 'sctp' ? s.protocol : 'tcp'}`;
    out.push('', `[${t('Trace this Service')}](command:dataplane.tracePacket?${encodeURIComponent(JSON.stringify([target]))} "${t('Trace a new connection to {0}', target)}")`);
  }
  out.push('', `[${t('Show in Graph')}](${showInGraphLink(s)} "${t('Draw this Service in the Service graph')}")`);
  const check = focus.hashChain ? s.hashChecks.find((c) => c.chain === focus.hashChain) : undefined;
  if (check) {
    out.push('', check.ok ? t('✓ The chain name matches kube-proxy\'s hash of the Service.') : t('⚠ kube-proxy would name this chain {0}: the name does not match the Service in its comments.', check.expected));
  }
  return out;
}

