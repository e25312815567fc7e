import { describe, expect, it } from 'vitest';
import { ipv6Services } from '../helpers/ipv6';
import { analyzeIptables } from '../../src/core/language/iptables';
import { splitHostPort } from '../../src/core/kube/catalog';
import { catalogToJson } from '../../src/core/kube/service';
import fc from 'fast-check';
import type { CatalogJson } from '../helpers/catalog-json';
import { addressProblem } from '../../src/core/parse/iptables/parser';
import { expectedCatalog, generateIptablesDump, randomServices, type GenServicePort } from '../../tools/generate/iptables';

type Json = CatalogJson;

/** The catalog reduced to what the generator knows as ground truth, in a canonical order. */
function normalized(services: Json['services']) {
  return services
    .map((s) => ({
      id: `${s.namespace}/${s.name}:${s.portName}/${s.protocol}`,
      frontends: s.frontends.map((f) => `${f.kind} ${f.address ?? '*'}:${f.port}`).sort(),
      endpoints: s.endpoints.map((e) => ({ at: `${e.address}:${e.port}`, p: Math.round(e.probability * 1e6) / 1e6, local: Boolean(e.local) })).sort((a, b) => a.at.localeCompare(b.at)),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

function catalogOf(text: string) {
  const a = analyzeIptables(text);
  return { analysis: a, json: catalogToJson([a.catalog]) as Json };
}

/**
 * Without endpoints kube-proxy writes identical REJECT rules for external and load-balancer IPs, so the
 * dump cannot tell them apart: the catalog says externalIP (flagged kindUncertain); so must the truth.
 */
function truthAsDumpShowsIt(services: GenServicePort[]) {
  return expectedCatalog(services).map((s) =>
    s.endpoints.length > 0 || !s.frontends.some((f) => f.kind === 'loadBalancer') ? s : { ...s, frontends: s.frontends.map((f) => (f.kind === 'loadBalancer' ? { ...f, kind: 'externalIP' as const } : f)) },
  );
}

function check(services: GenServicePort[], style: 'restore-input' | 'iptables-nft-save' | 'iptables-legacy-save', comments: boolean, family: 'ipv4' | 'ipv6' = 'ipv4') {
  const text = generateIptablesDump({ services, style, comments, family });
  const { analysis, json } = catalogOf(text);
  expect(analysis.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const expected = normalized(truthAsDumpShowsIt(services) as Json['services']);
  expect(normalized(json.services)).toEqual(expected);
}

describe('Service catalog against generated kube-proxy dumps (ground truth from the generator)', () => {
  for (const seed of [1, 2, 3, 7, 42]) {
    for (const style of ['restore-input', 'iptables-nft-save', 'iptables-legacy-save'] as const) {
      it(`seed ${seed}, ${style}, with comments`, () => check(randomServices(40, 4, seed), style, true));
    }
    it(`seed ${seed}, iptables-nft-save, without comments (large-cluster mode)`, () => check(randomServices(40, 4, seed), 'iptables-nft-save', false));
  }
  it('IPv6 dumps', () => check(ipv6Services(randomServices(20, 3, 99)), 'iptables-nft-save', true, 'ipv6'));
});

describe('effective probabilities', () => {
  it('gives each of n endpoints 1/n although the rules say 1/n, 1/(n-1), …', () => {
    const endpoints = Array.from({ length: 7 }, (_, k) => ({ address: `10.1.0.${k + 1}`, port: 8080 }));
    const text = generateIptablesDump({ style: 'iptables-nft-save', services: [{ namespace: 'web', name: 'api', portName: 'http', protocol: 'tcp', clusterIP: '10.96.0.20', port: 80, endpoints }] });
    const { analysis } = catalogOf(text);
    const s = analysis.catalog.services[0];
    expect(s.endpoints.map((e) => e.probability.toFixed(6))).toEqual(Array(7).fill((1 / 7).toFixed(6)));
    expect(s.endpoints[0].ruleProbability).toBeCloseTo(1 / 7, 9);
    expect(s.endpoints[5].ruleProbability).toBeCloseTo(1 / 2, 9);
    expect(s.endpoints[6].ruleProbability).toBeUndefined();
    expect(s.endpoints.reduce((sum, e) => sum + e.probability, 0)).toBeCloseTo(1, 9);
  });

  it('reads uneven hand-written probabilities as they really act', () => {
    const text = [
      '*nat',
      ':KUBE-SVC-AAAAAAAAAAAAAAAA - [0:0]',
      ':KUBE-SEP-AAAAAAAAAAAAAAA1 - [0:0]',
      ':KUBE-SEP-AAAAAAAAAAAAAAA2 - [0:0]',
      ':KUBE-SEP-AAAAAAAAAAAAAAA3 - [0:0]',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA -m statistic --mode random --probability 0.25 -j KUBE-SEP-AAAAAAAAAAAAAAA1',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA -m statistic --mode random --probability 0.5 -j KUBE-SEP-AAAAAAAAAAAAAAA2',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA -j KUBE-SEP-AAAAAAAAAAAAAAA3',
      '-A KUBE-SEP-AAAAAAAAAAAAAAA1 -p tcp -j DNAT --to-destination 10.0.0.1:80',
      '-A KUBE-SEP-AAAAAAAAAAAAAAA2 -p tcp -j DNAT --to-destination 10.0.0.2:80',
      '-A KUBE-SEP-AAAAAAAAAAAAAAA3 -p tcp -j DNAT --to-destination 10.0.0.3:80',
      'COMMIT',
    ].join('\n');
    const s = analyzeIptables(text).catalog.services[0];
    expect(s.anonymous).toBe(true);
    expect(s.endpoints.map((e) => [e.address, e.probability])).toEqual([
      ['10.0.0.1', 0.25],
      ['10.0.0.2', 0.375],
      ['10.0.0.3', 0.375],
    ]);
  });
});

describe('DNAT destinations and addresses read without regular expressions (issue #8)', () => {
  // The readings the catalog and the parser used before their fast paths: the answers must not change.
  const splitBefore = (value: string) => {
    const v6 = /^\[([^\]]+)\](?::(\d+))?/.exec(value);
    if (v6) return { address: v6[1], port: Number(v6[2] ?? 0) };
    const m = /^([^:]+)(?::(\d+))?/.exec(value);
    return m ? { address: m[1].split('-')[0], port: Number(m[2] ?? 0) } : undefined;
  };
  const pieces = fc.constantFrom('10', '0', '255', '256', '1', '.', ':', '-', '[', ']', '/', '80', '08080', '65535', '123456', 'a', 'fd00', '::', ' ', '');

  it('splitHostPort reads address and port as before', () => {
    for (const v of [
      '10.0.0.1:80',
      '10.0.0.1',
      '10.0.0.1:',
      '10.0.0.1:80-90',
      '10.0.0.1-10.0.0.5',
      '10.0.0.1-10.0.0.5:80',
      '[fd00::1]:80',
      '[fd00::1]',
      'fd00::1',
      ':80',
      '10.0.0.1:8x',
      '10.0.0.1:123456',
      '10.0.0.1:0080',
      'host:80:90',
      '',
    ]) {
      expect(splitHostPort(v), v).toEqual(splitBefore(v));
    }
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 8 }), (parts) => {
        const v = parts.join('');
        expect(splitHostPort(v)).toEqual(splitBefore(v));
      }),
      { numRuns: 2000, seed: 11 },
    );
  });

  it('addressProblem accepts plain IPv4 addresses and prefixes, and only those, as before', () => {
    const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
    const validBefore = (value: string) => {
      const [address, mask, ...rest] = value.split('/');
      if (rest.length > 0 || !/^[\d.]+$/.test(address)) return undefined; // not decided by the plain IPv4 rule
      const m = ipv4.exec(address);
      if (!m || m.slice(1).some((o) => Number(o) > 255)) return false;
      if (mask === undefined) return true;
      return /^\d{1,2}$/.test(mask) ? Number(mask) <= 32 : ipv4.test(mask);
    };
    for (const v of ['10.0.0.1', '10.0.0.1/32', '10.0.0.0/8', '0.0.0.0/0', '10.0.0.1/33', '10.0.0.256', '010.0.0.1', '10.0.0.1/', '10.0.0.1/255.0.0.0', '10.0.0', '10.0.0.1.2', '10.0.0.1/032']) {
      const before = validBefore(v);
      if (before !== undefined) expect(addressProblem(v) === undefined, v).toBe(before);
    }
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 9 }), (parts) => {
        const v = parts.join('');
        const before = validBefore(v);
        if (before !== undefined) expect(addressProblem(v) === undefined).toBe(before);
      }),
      { numRuns: 3000, seed: 12 },
    );
  });
});
