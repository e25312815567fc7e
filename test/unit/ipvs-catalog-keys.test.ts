// ipPortKey parses a dotted IPv4 address once (it is its own canonical form) instead of canonicalising it first:
// the keys must be those of the canonical-address formula for every spelling, dotted or not.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GroupsByReal, ipPortKey, RunKeys, sortedServices } from '../../src/core/kube/ipvs-catalog';
import { canonicalAddress, ipv4Number } from '../../src/core/model/address';

/** The key as the catalog defined it before the shortcut: canonical address first, then its IPv4 value. */
function referenceKey(address: string | undefined, port: number | undefined, protocol: string): string | number {
  const c = canonicalAddress(address);
  const v = ipv4Number(c);
  const p = protocol === 'tcp' ? 0 : protocol === 'udp' ? 1 : protocol === 'sctp' ? 2 : undefined;
  if (v !== undefined && p !== undefined && port !== undefined && Number.isInteger(port) && port >= 0 && port <= 65535) return (v * 65536 + port) * 3 + p;
  return `${c}|${port ?? ''}|${protocol}`;
}

const TRICKY = [
  '10.0.0.1',
  '0.0.0.0',
  '255.255.255.255',
  '256.0.0.1',
  '010.0.0.1',
  '10.0.0',
  '10.0.0.1.',
  '1.2.3.4.5',
  '10..0.1',
  ' 10.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:a00:1',
  '::10.0.0.1',
  'fd00::1',
  'FD00:0:0::1',
  '[fd00::1]',
  'fd00::1%eth0',
  '',
  'x',
  '1e3.0.0.1',
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

describe('sortedServices', () => {
  const numericOrder = new Intl.Collator(undefined, { numeric: true });
  const plainOrder = new Intl.Collator();
  const bySort = <T extends { name: string; protocol: string }>(services: T[]) => [...services].sort((a, b) => numericOrder.compare(a.name, b.name) || plainOrder.compare(a.protocol, b.protocol));
  const octet = fc.oneof(fc.constantFrom(0, 1, 2, 9, 10, 11, 99, 100, 199, 200, 255), fc.nat(255));
  const dotted = fc.tuple(octet, octet, octet, octet, fc.oneof(fc.constantFrom(0, 1, 8, 80, 800, 8080, 65535), fc.nat(65535))).map(([a, b, c, d, p]) => `${a}.${b}.${c}.${d}:${p}`);
  const protocol = fc.constantFrom('tcp', 'udp', 'sctp');

  it('orders as the collators do, ties kept in their order', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ name: dotted, protocol, id: fc.nat() }), { maxLength: 60 }), (services) => {
        // Repeated names and protocols (two dumps of one node): the stable sort keeps their order.
        const all = [...services, ...services.slice(0, 5).map((s) => ({ ...s, id: -1 }))];
        expect(sortedServices(all as never[])).toEqual(bySort(all));
      }),
      { numRuns: 500 },
    );
  });

  it('falls back to the collators for any other name or protocol', () => {
    const other = fc.oneof(dotted, fc.constantFrom('[fd00::1]:80', '10.0.0.1:080', '10.0.0.01:80', 'a:1', '10.0.0.1', '9.9.9.9:65536'));
    fc.assert(
      fc.property(fc.array(fc.record({ name: other, protocol: fc.oneof(protocol, fc.constant('fwmark')) }), { maxLength: 40 }), (services) => {
        expect(sortedServices([...services] as never[])).toEqual(bySort(services));
      }),
      { numRuns: 300 },
    );
  });
});

describe('GroupsByReal of runs', () => {
  it('finds what it finds from the same reals as iterables', () => {
    const real = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2 ** 48 }), fc.constantFrom(2 ** 50, 2 ** 50 + 4, 1.5, -3, Number.NaN));
    const group = fc.record({
      protocol: fc.constantFrom('tcp', 'udp', 'sctp', 'fwmark'),
      reals: fc.uniqueArray(real, { maxLength: 6 }),
      strings: fc.option(fc.uniqueArray(fc.constantFrom('fd00::1:80', 'x', '1'), { minLength: 1 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(group, { maxLength: 12 }), (groups) => {
        const numbers = new Float64Array(groups.flatMap((g) => g.reals));
        const starts: number[] = [];
        let at = 0;
        for (const g of groups) {
          starts.push(at);
          at += g.reals.length;
        }
        const runs = new GroupsByReal(
          groups.length,
          (k) => groups[k].protocol,
          (k) => new RunKeys(numbers, starts[k], starts[k] + groups[k].reals.length, groups[k].strings),
          2,
        );
        const plain = new GroupsByReal(
          groups.length,
          (k) => groups[k].protocol,
          (k) => [...groups[k].reals, ...(groups[k].strings ?? [])],
        );
        for (const protocol of ['tcp', 'udp', 'sctp', 'fwmark'])
          for (const r of groups.flatMap((g) => [...g.reals, ...(g.strings ?? [])])) {
            expect(runs.groupsWith(protocol, r)).toEqual(plain.groupsWith(protocol, r));
            expect(runs.countWith(protocol, r)).toBe(plain.countWith(protocol, r));
          }
      }),
      { numRuns: 500 },
    );
  });
});
