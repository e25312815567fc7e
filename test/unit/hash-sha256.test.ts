// kube-proxy's chain-name hashes use our own SHA-256 for ASCII text (issue #8: 110,000 names per large dump);
// it must agree with node:crypto on every length (block boundaries at 55/56 and 64 bytes) and fall back for UTF-8.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointHash, isEndpointHashName, portProtoHash, sha256 } from '../../src/core/kube/hash';

const reference = (text: string) => new Uint8Array(createHash('sha256').update(text, 'utf8').digest());

describe('sha256', () => {
  it('agrees with node:crypto for every length from 0 to 300', () => {
    for (let n = 0; n <= 300; n++) {
      const text = Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 7 + n) % 95))).join('');
      expect(new Uint8Array(sha256(text))).toEqual(reference(text));
    }
  });

  it('agrees with node:crypto on random text, ASCII or not', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
      expect(new Uint8Array(sha256(text))).toEqual(reference(text));
    }), { numRuns: 500, seed: 3 });
  });

  it('gives the chain names kube-proxy gives', () => {
    // Known pairs from kube-proxy's own tests (pkg/proxy/iptables/proxier_test.go): the kubernetes Service.
    expect(portProtoHash('default/kubernetes:https', 'tcp')).toBe('NPX46M4PTMTKRN6Y');
    expect(endpointHash('ns1/svc1:p80', 'tcp', '10.180.0.1:80')).toMatch(/^[A-Z2-7]{16}$/);
  });
});

describe('isEndpointHashName', () => {
  it('answers whether a chain is named prefix + endpointHash, like comparing with the made name', () => {
    const spn = 'ns1/svc1:p80';
    const right = `KUBE-SEP-${endpointHash(spn, 'tcp', '10.180.0.1:80')}`;
    expect(isEndpointHashName(right, 'KUBE-SEP-', spn, 'tcp', '10.180.0.1:80')).toBe(true);
    expect(isEndpointHashName(right, 'KUBE-SEP-', spn, 'udp', '10.180.0.1:80')).toBe(false);
    expect(isEndpointHashName(`${right}X`, 'KUBE-SEP-', spn, 'tcp', '10.180.0.1:80')).toBe(false);
    expect(isEndpointHashName(right.replace('KUBE-SEP-', 'KUBE-SVC-'), 'KUBE-SEP-', spn, 'tcp', '10.180.0.1:80')).toBe(false);
    // Every character of the hash counts: change one at a time.
    for (let k = 9; k < right.length; k++) {
      const other = right.slice(0, k) + (right[k] === 'A' ? 'B' : 'A') + right.slice(k + 1);
      expect(isEndpointHashName(other, 'KUBE-SEP-', spn, 'tcp', '10.180.0.1:80')).toBe(false);
    }
    fc.assert(fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 30 }), fc.boolean(), (name, endpoint, made) => {
      const chain = made ? `KUBE-SEP-${endpointHash(name, 'tcp', endpoint)}` : `KUBE-SEP-${name}`;
      expect(isEndpointHashName(chain, 'KUBE-SEP-', name, 'tcp', endpoint)).toBe(chain === `KUBE-SEP-${endpointHash(name, 'tcp', endpoint)}`);
    }), { numRuns: 300, seed: 5 });
  });
});
