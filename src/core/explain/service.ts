// How a Service of the catalog is described in hovers, whatever the mode that implements it.
import { formatShare, servicePortNameString, type Service } from '../kube/service';
import { serviceTitle } from '../graph/model';
import { t } from '../l10n';
import { formatAddress, formatHostPort, parseAddress } from '../model/address';
import { code, join, md, mdT, text, type Md, type MarkdownBuilder } from './markdown';

function hostPort(e: { address: string; port: number }): string {
  return formatHostPort(e.address, e.port);
}

function serviceName(s: Service): string {
  return s.anonymous ? s.name : `${servicePortNameString(s)}/${s.protocol}`;
}

/**
 * The Markdown lines describing a Service (any mode), added to `out`: name, frontends, endpoints with shares,
 * policies, "Trace this Service" and "Show in Graph" links and, for a hashed chain, whether its name matches
 * kube-proxy's hash.
 */
export function describeService(out: MarkdownBuilder, s: Service, focus: { endpointChain?: string; hashChain?: string } = {}): void {
  if (!s.anonymous && !out.service) out.service = { namespace: s.namespace, name: s.name, portName: s.portName, protocol: s.protocol, family: s.family };
  out.push(md`${mdT('Service **{0}**', text(serviceName(s)))}${s.anonymous ? md` ${mdT('(its name is not in the dump)')}` : md``}`);
  if (focus.endpointChain) {
    const e = s.endpoints.find((x) => x.chain === focus.endpointChain);
    if (e) out.push(md``, mdT('This endpoint: {0} receives **{1}** of new connections.', code(hostPort(e)), text(formatShare(e.probability))));
  }
  if (s.frontends.length > 0) {
    out.push(md``, mdT('Frontends:'));
    for (const f of s.frontends) {
      const label = { clusterIP: 'ClusterIP', nodePort: 'NodePort', loadBalancer: 'LoadBalancer', externalIP: 'ExternalIP' }[f.kind];
      out.push(md`- ${text(label)} ${code(f.address ? formatHostPort(f.address, f.port) : String(f.port))}`);
    }
  }
  describeEndpoints(out, s);
  const policies = servicePolicies(s);
  if (policies.length > 0) out.push(md``, join(policies, ' · '));
  serviceLinks(out, s);
  const check = focus.hashChain ? s.hashChecks.find((c) => c.chain === focus.hashChain) : undefined;
  if (check) {
    out.push(
      md``,
      check.ok ? mdT("✓ The chain name matches kube-proxy's hash of the Service.") : mdT('⚠ kube-proxy would name this chain {0}: the name does not match the Service in its comments.', code(check.expected)),
    );
  }
}

function describeEndpoints(out: MarkdownBuilder, s: Service): void {
  if (s.endpoints.length > 0) {
    out.push(md``, mdT('Endpoints (share of new ClusterIP connections from a pod):'));
    for (const e of s.endpoints) {
      out.push(md`- ${code(hostPort(e))} — ${text(formatShare(e.probability))}${e.local ? md` · ${mdT('on this node')}` : md``}`);
    }
  } else if (s.endpointsNotInDump) {
    out.push(md``, mdT("The Service chain is not in this file (kube-proxy's partial restore input): its endpoints are unknown here."));
  } else if (s.policies.noEndpoints) {
    out.push(md``, s.policies.noEndpoints === 'drop' ? mdT('No endpoints: connections are dropped.') : mdT('No endpoints: connections are rejected (ICMP port unreachable).'));
  } else {
    out.push(md``, mdT('No endpoints in this dump.'));
  }
}

function servicePolicies(s: Service): Md[] {
  const p = s.policies;
  const policies: Md[] = [];
  if (p.sessionAffinity) policies.push(mdT('session affinity ClientIP, {0} s', p.sessionAffinity.timeoutSeconds));
  if (p.externalTrafficPolicy) policies.push(mdT('externalTrafficPolicy {0}', text(p.externalTrafficPolicy)));
  if (p.internalTrafficPolicy === 'Local') policies.push(mdT('internalTrafficPolicy Local'));
  if (p.loadBalancerSourceRanges) policies.push(mdT('source ranges {0}', join(p.loadBalancerSourceRanges.map(text), ', ')));
  if (p.clusterCIDR) policies.push(mdT('masquerades sources outside {0}', text(p.clusterCIDR)));
  if (p.masqueradeAll) policies.push(mdT('masquerades all traffic'));
  if (p.scheduler) policies.push(mdT('IPVS scheduler {0}', text(p.scheduler)));
  return policies;
}

/** "Trace this Service" (for a parsed ClusterIP) and "Show in Graph"; their arguments are JSON, never dump Markdown. */
function serviceLinks(out: MarkdownBuilder, s: Service): void {
  const cluster = s.frontends.find((f) => f.kind === 'clusterIP' && f.address && parseAddress(f.address));
  if (cluster) {
    // The link's argument is rebuilt from the parsed address, never copied from the dump's text.
    const target = `${formatHostPort(formatAddress(parseAddress(cluster.address!)!), cluster.port)}/${s.protocol === 'udp' || s.protocol === 'sctp' ? s.protocol : 'tcp'}`;
    out.push(md``, out.commandLink(mdT('Trace this Service'), 'dataplane.tracePacket', [target], t('Trace a new connection to {0}', target)));
  }
  // The active editor's snapshot (null) and the Service's title, which comes from the dump.
  const graphArgs = [null, { title: serviceTitle(s), family: s.family }];
  out.push(md``, out.commandLink(mdT('Show in Graph'), 'dataplane.showGraph', graphArgs, t('Draw this Service in the Service graph')));
}
