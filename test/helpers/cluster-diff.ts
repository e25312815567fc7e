// A small, independent diff of a generated node's two sides (the cluster's API objects and the dump's
// input): the findings a checker must report, from the ground up, to hold the generator's ground truth to.
import { expect } from 'vitest';
import { servicePortsForNode } from '../../tools/generate/cluster';
import { infoFindings, joinHostPort, sortFindings, type ExpectedFinding, type Scenario } from '../../tools/generate/drift';
import type { GenServicePort } from '../../tools/generate/iptables';

/** What a checker must find between the two sides of a scenario (infos included). */
export function apiDumpDiff(s: Scenario): ExpectedFinding[] {
  const expected = servicePortsForNode(s.cluster, s.node, s.family);
  const key = (sp: GenServicePort) => `${sp.namespace}/${sp.name}/${sp.portName}/${sp.protocol}`;
  const dump = new Map(s.services.map((sp) => [key(sp), sp]));
  const api = new Map(expected.map((sp) => [key(sp), sp]));
  const out: ExpectedFinding[] = [];
  const f = (code: ExpectedFinding['code'], severity: ExpectedFinding['severity'], sp: GenServicePort, extra: Partial<ExpectedFinding> = {}) =>
    out.push({ code, severity, service: { namespace: sp.namespace, name: sp.name, portName: sp.portName, protocol: sp.protocol.toUpperCase() }, ...extra });
  for (const [k, sp] of api) if (!dump.has(k)) f('not-programmed', 'error', sp);
  for (const [k, sp] of dump) if (!api.has(k)) f('stale-service', 'warning', sp);
  for (const [k, want] of api) {
    const got = dump.get(k);
    if (!got) continue;
    const eps = (sp: GenServicePort) => new Set(sp.endpoints.map((e) => joinHostPort(e.address, e.port)));
    for (const e of eps(want)) if (!eps(got).has(e)) f('missing-endpoint', 'error', want, { endpoint: e });
    for (const e of eps(got)) if (!eps(want).has(e)) f('stale-endpoint', 'error', want, { endpoint: e });
    for (const ip of want.externalIPs ?? []) if (!(got.externalIPs ?? []).includes(ip)) f('frontend-mismatch', 'error', want, { frontend: { kind: 'externalIP', address: ip, port: want.port } });
    if (want.sessionAffinityTimeout !== got.sessionAffinityTimeout) f('policy-mismatch', 'warning', want);
    const rest = (sp: GenServicePort) => ({ ...sp, endpoints: [], externalIPs: want.externalIPs, sessionAffinityTimeout: undefined });
    expect(rest(got), k).toEqual(rest(want));
  }
  if (s.cluster.proxy && s.cluster.proxy.mode !== s.mode) out.push({ code: 'mode-mismatch', severity: 'warning', service: { namespace: '', name: '', portName: '', protocol: '' } });
  return sortFindings([...out, ...infoFindings(s.cluster, s.node, s.family)]);
}
