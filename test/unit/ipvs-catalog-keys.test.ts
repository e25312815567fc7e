// ipPortKey parses a dotted IPv4 address once (it is its own canonical form) instead of canonicalising it first:
// the keys must be those of the canonical-address formula for every spelling, dotted or not.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ipPortKey } from '../../src/core/kube/ipvs-catalog';
import { canonicalAddress, ipv4Number } from '../../src/core/trace/addr';

/** The key as the catalog defined it before the shortcut: canonical address first, then its IPv4 value. */
function referenceKey(address: string | undefined, port: number | undefined, protocol: string): string | number {
  const c = canonicalAddress(address);
  const v = ipv4Number(c);
  const p = protocol === 'tcp' ? 0 : protocol === 'udp' ? 1 : protocol === 'sctp' ? 2 : undefined;
  if (v !== undefined && p !== undefined && port !== undefined && Number.isInteger(port) && port >= 0 && port <= 65535) return (v * 65536 + port) * 3 + p;
  return `${c}|${port ?? ''}|${protocol}`;
}

const TRICKY = [
  '10.0.0.1', '0.0.0.0', '255.255.255.255', '256.0.0.1', '010.0.0.1', '10.0.0', '10.0.0.1.', '1.2.3.4.5', '10..0.1', ' 10.0.0.1',
  '::ffff:10.0.0.1', '::ffff:a00:1', '::10.0.0.1', 'fd00::1', 'FD00:0:0::1', '[fd00::1]', 'fd00::1%eth0', '', 'x', '1e3.0.0.1',
];

describe('ipPortKey', () => {
  it('gives the canonical-address keys for tricky addresses, ports and protocols', () => {
    for (const address of [...TRICKY, undefined])
      for (const port of [0, 80, 65535, 65536, -1, 1.5, undefined])
        for (const protocol of ['tcp', 'udp', 'sctp', 'TCP', 'fwmark']) expect(ipPortKey(address, port, protocol)).toEqual(referenceKey(address, port, protocol));
  });

  it('gives the canonical-address keys for random address-like text', () => {
    const text = fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', '.', ':', 'a', 'f', 'F', '[', ']', '%'), maxLength: 20 });
    const dotted = fc.tuple(fc.nat(300), fc.nat(300), fc.nat(300), fc.nat(300)).map((o) => o.join('.'));
    fc.assert(
      fc.property(fc.oneof(text, dotted), fc.option(fc.integer({ min: -2, max: 70000 }), { nil: undefined }), fc.constantFrom('tcp', 'udp', 'sctp', 'icmp'), (address, port, protocol) => {
        expect(ipPortKey(address, port, protocol)).toEqual(referenceKey(address, port, protocol));
      }),
      { numRuns: 2000, seed: 8 },
    );
  });
});
