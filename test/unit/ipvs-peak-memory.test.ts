// The pieces that keep the peak memory of an IPVS snapshot's analysis down (issue #8) must answer exactly what
// the plain versions they replace answer: splitLines, trimEnd, a Map of addresses, a Map of real servers, and
// the `address|port|protocol` key strings of the catalog.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupsByReal, ipPortKey, KeySet } from '../../src/core/kube/ipvs-catalog';
import { LineCursor, splitLines } from '../../src/core/parse/lines';
import { AddressCache, trimmedLength } from '../../src/core/parse/ipvs/parser';
import { canonicalAddress } from '../../src/core/trace/addr';

function allLines(text: string): { lines: string[]; count: number } {
  const cursor = new LineCursor(text);
  const lines: string[] = [];
  for (let line = cursor.next(); line !== undefined; line = cursor.next()) lines.push(line);
  expect(cursor.next()).toBeUndefined();
  return { lines, count: cursor.count };
}

describe('LineCursor', () => {
  it('cuts lines as splitLines does', () => {
    for (const text of ['', '\n', '\r', '\r\n', 'a', 'a\n', 'a\r\n', 'a\n\n', 'a\r\rb', 'a\n\rb\r\n', '\n\na', 'a\r', 'x\r\n\r\n']) {
      const { lines, count } = allLines(text);
      expect(lines, JSON.stringify(text)).toEqual(splitLines(text));
      expect(count).toBe(lines.length);
    }
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'bc', ' ', '\n', '\r', '\r\n', '\t', 'é')).map((parts) => parts.join('')), (text) => {
        expect(allLines(text).lines).toEqual(splitLines(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('trimmedLength', () => {
  it('is the length trimEnd leaves', () => {
    for (const text of ['', ' ', 'a', 'a ', ' a  ', 'a\t', 'a \t ', 'a\u00a0', 'a\u00a0 ', 'a\u3000  ', 'a\r', '~ ', '\u007f ', 'é  ']) {
      expect(trimmedLength(text), JSON.stringify(text)).toBe(text.trimEnd().length);
    }
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', '->', ' ', '  ', '\t', '\u00a0', '\u2028', '\ufeff', '~', '\u0085', 'x')).map((p) => p.join('')), (text) => {
        expect(trimmedLength(text)).toBe(text.trimEnd().length);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('AddressCache', () => {
  it('answers the text of the address, the same string for a repeated one', () => {
    const cache = new AddressCache(4);
    const line = '  -> 10.244.1.5:80 10.244.1.5:81 10.0.0.1:1';
    const a = cache.address(0x0af40105, line, 5, 15);
    expect(a).toBe('10.244.1.5');
    expect(cache.address(0x0af40105, line, 19, 29)).toBe(a);
    // Many addresses in 4 slots: every answer is still the address's own text.
    for (let k = 0; k < 300; k++) {
      const text = `10.0.${k >> 8}.${k & 255}`;
      expect(cache.address((10 << 24) | k, `x ${text}:1`, 2, 2 + text.length)).toBe(text);
    }
    expect(cache.address(0x0a000001, line, 33, 41)).toBe('10.0.0.1');
  });
});

describe('GroupsByReal', () => {
  const real = fc.oneof(
    fc.integer({ min: 0, max: 40 }),
    fc.integer({ min: 0, max: 2 ** 48 }),
    fc.constantFrom(2 ** 50, 2 ** 50 + 4, 1.5, -3, 'fd00::1:80', '10.0.0.1:', 'x'),
  );
  const group = fc.record({ protocol: fc.constantFrom('tcp', 'udp', 'sctp', 'fwmark', 'toString'), reals: fc.uniqueArray(real, { maxLength: 6 }) });
  it('finds the groups a Map of every real server finds, in their order', () => {
    fc.assert(
      fc.property(fc.array(group, { maxLength: 12 }), fc.array(real, { maxLength: 8 }), (groups, extra) => {
        const index = new GroupsByReal(groups);
        const naive = new Map<string, Map<string | number, number[]>>();
        groups.forEach((g, i) => {
          let m = naive.get(g.protocol);
          if (!m) naive.set(g.protocol, (m = new Map()));
          for (const r of g.reals) m.set(r, [...(m.get(r) ?? []), i]);
        });
        for (const protocol of ['tcp', 'udp', 'sctp', 'fwmark', 'toString']) {
          for (const r of [...groups.flatMap((g) => g.reals), ...extra]) {
            expect(index.groupsWith(protocol, r)).toEqual(naive.get(protocol)?.get(r) ?? []);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('KeySet', () => {
  it('has what a Set has', () => {
    const key = fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 2 ** 50 }), fc.constantFrom(-0, 0, 'a', '1', '10.0.0.1|80|tcp'));
    fc.assert(
      fc.property(fc.array(key, { maxLength: 60 }), fc.array(key, { maxLength: 20 }), (added, probes) => {
        const keys = new KeySet();
        for (const k of added) keys.add(k);
        keys.done();
        const plain = new Set(added);
        for (const k of [...added, ...probes]) expect(keys.has(k)).toBe(plain.has(k));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the catalog key', () => {
  const address = fc.constantFrom(undefined, '10.0.0.1', '10.0.0.01', '255.255.255.255', '0.0.0.0', '1.2.3.4', 'fd00::1', 'FD00::0001', '::ffff:1.2.3.4', 'host', 'a|1', '');
  const port = fc.constantFrom(undefined, 0, 1, 80, 65535, 65536, -1, 1.5, -0);
  const protocol = fc.constantFrom('tcp', 'udp', 'sctp', 'icmp', 'TCP', '1|tcp', 'constructor', '');
  const plain = (a: string | undefined, p: number | undefined, pr: string) => `${canonicalAddress(a)}|${p ?? ''}|${pr}`;
  it('is equal for two triples exactly when their key strings are', () => {
    fc.assert(
      fc.property(fc.tuple(address, port, protocol), fc.tuple(address, port, protocol), (x, y) => {
        expect(ipPortKey(...x) === ipPortKey(...y)).toBe(plain(...x) === plain(...y));
      }),
      { numRuns: 5000 },
    );
  });
});
