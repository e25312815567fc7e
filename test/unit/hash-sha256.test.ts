// kube-proxy's chain-name hashes use our own SHA-256 for ASCII text (issue #8: 110,000 names per large dump);
// it must agree with node:crypto on every length (block boundaries at 55/56 and 64 bytes) and fall back for UTF-8.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointHash, isEndpointHashName, portProtoHash, sha256 } from '../../src/core/kube/hash';
import { formatHostPort } from '../../src/core/model/address';

const reference = (text: string) => new Uint8Array(createHash('sha256').update(text, 'utf8').digest());

describe('sha256', () => {
  it('agrees with node:crypto for every length from 0 to 300', () => {
    for (let n = 0; n <= 300; n++) {
      const text = Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 7 + n) % 95))).join('');
      expect(new Uint8Array(sha256(text))).toEqual(reference(text));
    }
  });

  it('agrees with node:crypto on random text, ASCII or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(new Uint8Array(sha256(text))).toEqual(reference(text));
      }),
      { numRuns: 500, seed: 3 },
    );
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
    expect(isEndpointHashName(right, 'KUBE-SEP-', spn, 'tcp', '10.180.0.1', 80)).toBe(true);
    expect(isEndpointHashName(right, 'KUBE-SEP-', spn, 'udp', '10.180.0.1', 80)).toBe(false);
    expect(isEndpointHashName(right, 'KUBE-SEP-', spn, 'tcp', '10.180.0.1', 81)).toBe(false);
    expect(isEndpointHashName(`${right}X`, 'KUBE-SEP-', spn, 'tcp', '10.180.0.1', 80)).toBe(false);
    expect(isEndpointHashName(right.replace('KUBE-SEP-', 'KUBE-SVC-'), 'KUBE-SEP-', spn, 'tcp', '10.180.0.1', 80)).toBe(false);
    const v6 = `KUBE-SEP-${endpointHash(spn, 'tcp', '[fd00::1]:80')}`;
    expect(isEndpointHashName(v6, 'KUBE-SEP-', spn, 'tcp', 'fd00::1', 80)).toBe(true);
    // Every character of the hash counts: change one at a time.
    for (let k = 9; k < right.length; k++) {
      const other = right.slice(0, k) + (right[k] === 'A' ? 'B' : 'A') + right.slice(k + 1);
      expect(isEndpointHashName(other, 'KUBE-SEP-', spn, 'tcp', '10.180.0.1', 80)).toBe(false);
    }
  });

  it('hashes the parts as their text (formatHostPort) would be hashed, at every length and for any text', () => {
    const check = (name: string, protocol: string, address: string, port: number, made: boolean) => {
      const expected = `KUBE-SEP-${endpointHash(name, protocol, formatHostPort(address, port))}`;
      const chain = made ? expected : `KUBE-SEP-${name}`;
      expect(isEndpointHashName(chain, 'KUBE-SEP-', name, protocol, address, port)).toBe(chain === expected);
    };
    // Block boundaries: total lengths from 10 to 200 bytes.
    for (let n = 0; n <= 190; n++) check('x'.repeat(n), 'tcp', n % 2 ? '10.0.0.1' : 'fd00::2', n * 37, true);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.constantFrom('tcp', 'udp', 'sctp'), fc.string({ maxLength: 50 }), fc.nat(70000), fc.boolean(), (name, protocol, address, port, made) =>
        check(name, protocol, address, port, made),
      ),
      { numRuns: 500, seed: 5 },
    );
  });
});
