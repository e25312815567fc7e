// Trace outcomes named by the cluster state: each DNAT outcome's endpoint with its Service port, EndpointSlice and
// pod (targetRef); an endpoint the API has not ready, or no longer has, says so; Copy Trace as Text, Markdown and
// JSON carry it (JSON additively). The sample with its cluster-state.yaml (shop/web's third pod fails its
// readiness probe) and the generator's drifts.
import { describe, expect, it } from 'vitest';
import { checkSnapshot } from '../../src/core/cluster/check';
import { traceSnapshot, tracedService, traceToJson, type TraceResult } from '../../src/core/trace';
import { clusterEndpoints } from '../../src/core/trace/cluster';
import { traceToMarkdown, traceToText } from '../../src/core/trace/format';
import type { NodeSnapshot } from '../../src/core/snapshot';
import { driftSnapshot, sampleSnapshot } from '../helpers/cluster-snapshot';

function trace(snapshot: NodeSnapshot, to: string, dport: number, protocol: 'tcp' | 'udp' = 'tcp'): TraceResult {
  const files = snapshot.files.map((f) => ({ name: f.name, analysis: f.analysis as Parameters<typeof traceSnapshot>[0][number]['analysis'] }));
  const result = traceSnapshot(files, { to, dport, protocol, entry: 'pod' });
  return clusterEndpoints(snapshot, { ...result, service: tracedService(files, result) });
}

const byDestination = (r: TraceResult) => Object.fromEntries(r.outcomes.map((o) => [o.destination, o.endpoint]));

describe('trace outcomes with the cluster state', () => {
  const snapshot = sampleSnapshot('iptables-legacy');

  it('shop/web: every endpoint names its Service, EndpointSlice and pod; the not-ready one says so', () => {
    const r = trace(snapshot, '10.96.12.40', 80);
    const ep = byDestination(r);
    expect(Object.keys(ep).sort()).toEqual(['10.244.1.7:8080', '10.244.2.8:8080', '10.244.3.9:8080']);
    expect(ep['10.244.1.7:8080']).toMatchObject({ service: 'shop/web:http', endpointSlice: expect.stringMatching(/^web-/), pod: expect.stringMatching(/^Pod shop\/web-/), api: 'ready' });
    expect(ep['10.244.1.7:8080']!.note).toBeUndefined();
    expect(ep['10.244.3.9:8080']).toMatchObject({ api: 'not-ready', note: expect.stringMatching(/not ready.*would not send to it/) });
  });

  it('an endpoint the API no longer lists is gone', () => {
    const state = structuredClone(snapshot.cluster!.state);
    for (const s of state.endpointSlices) s.endpoints = s.endpoints.filter((e) => !e.addresses.includes('10.244.2.8'));
    const gone = { ...snapshot, cluster: { ...snapshot.cluster!, state, check: checkSnapshot(snapshot, state, { folder: 'iptables-legacy' }) } };
    const ep = byDestination(trace(gone, '10.96.12.40', 80));
    expect(ep['10.244.2.8:8080']).toEqual({ service: 'shop/web:http', api: 'gone', note: 'no EndpointSlice of the Service lists this endpoint: the pod is gone' });
  });

  it('Copy Trace as Text, Markdown and JSON include it; JSON only adds a field', () => {
    const r = trace(snapshot, '10.96.12.40', 80);
    const names = snapshot.files.map((f) => f.name);
    const textOut = traceToText(r, names).join('\n');
    expect(textOut).toMatch(/endpoint: Service shop\/web:http · EndpointSlice web-\S+ · Pod shop\/web-/);
    expect(textOut).toMatch(/API: the API says this endpoint is not ready/);
    expect(String(traceToMarkdown(r, names))).toMatch(/endpoint: `Service shop\/web:http · EndpointSlice web-/);
    const json = traceToJson(r, names) as { outcomes: Record<string, unknown>[] };
    const plain = traceToJson({ ...r, outcomes: r.outcomes.map(({ endpoint: _e, ...o }) => o) }, names) as { outcomes: Record<string, unknown>[] };
    expect(json.outcomes.map(({ endpoint: _e, ...o }) => o)).toEqual(plain.outcomes);
    expect(json.outcomes.find((o) => o.destination === '10.244.3.9:8080')!.endpoint).toMatchObject({ api: 'not-ready', service: 'shop/web:http' });
  });

  it('without a cluster state, or to no Service, nothing is added', () => {
    expect(trace({ ...snapshot, cluster: undefined }, '10.96.12.40', 80).outcomes.some((o) => o.endpoint)).toBe(false);
    expect(trace(snapshot, '10.99.99.99', 80).outcomes.some((o) => o.endpoint)).toBe(false);
  });
});

describe("trace outcomes: the generator's stale endpoints", () => {
  for (const mode of ['iptables', 'nftables', 'ipvs'] as const) {
    it(`${mode}: tracing to each stale endpoint's Service says the API does not offer it`, () => {
      const { snapshot } = driftSnapshot(mode, 'ipv4');
      const stale = snapshot.cluster!.check.findings.filter((f) => f.code === 'stale-endpoint' && f.severity === 'error');
      expect(stale.length).toBeGreaterThan(0);
      for (const f of stale) {
        const svc = snapshot.services.find((s) => s.endpoints.some((e) => `${e.address}:${e.port}` === f.endpoint) && s.frontends.some((x) => x.kind === 'clusterIP'))!;
        const cip = svc.frontends.find((x) => x.kind === 'clusterIP')!;
        const o = trace(snapshot, cip.address!, cip.port, svc.protocol as 'tcp').outcomes.find((x) => x.destination === f.endpoint)!;
        expect(o.endpoint).toMatchObject({ service: `${f.service.namespace}/${f.service.name}:${f.service.portName}`, note: expect.any(String) });
        expect(o.endpoint!.api).not.toMatch(/^(ready|serving-terminating)$/);
      }
    });
  }
});

describe('dataplane trace --cluster', () => {
  it('names the endpoints and says which one the API has not ready; the cluster file may be among the FILEs', async () => {
    const { run } = await import('../../src/cli/main');
    const { SAMPLES } = await import('../helpers/cluster-snapshot');
    const dir = `${SAMPLES}/iptables-nft`;
    const out: string[] = [];
    const code = run(
      ['trace', `${dir}/node1.iptables`, '--to', '10.96.12.40:80/tcp', '--cluster', `${dir}/cluster-state.yaml`],
      (s) => out.push(s),
      () => undefined,
    );
    expect(code).toBe(0);
    const text = out.join('\n');
    expect(text.match(/endpoint: Service shop\/web:http · EndpointSlice web-\S+ · Pod shop\/web-\S+/g)).toHaveLength(3);
    expect(text).toMatch(/API: the API says this endpoint is not ready/);
    const json: string[] = [];
    run(
      ['trace', `${dir}/node1.iptables`, `${dir}/cluster-state.yaml`, '--to', '10.96.12.40:80/tcp', '--json'],
      (s) => json.push(s),
      () => undefined,
    );
    const outcomes = (JSON.parse(json.join('\n')) as { outcomes: { endpoint?: { api: string } }[] }).outcomes;
    expect(outcomes.map((o) => o.endpoint?.api).sort()).toEqual(['not-ready', 'ready', 'ready']);
  });
});
