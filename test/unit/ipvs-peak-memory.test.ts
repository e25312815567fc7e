// The pieces that keep the peak memory of an IPVS snapshot's analysis down (issue #8) must answer exactly what
// the plain versions they replace answer: splitLines, trimEnd, a Map of addresses, a Map of real servers, and
// the `address|port|protocol` key strings of the catalog; and the parse's shortcuts (the block of a service by
// its line, lists copied to size as they close, a fast server line under a service line the slow path read).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupsByReal, ipPortKey, KeySet } from '../../src/core/kube/ipvs-catalog';
import { LineCursor, splitLines } from '../../src/core/parse/lines';
import { AddressCache, parseIpvsadm, trimmedLength } from '../../src/core/parse/ipvs/parser';
import { PlainServiceServerNode, RealServerNode } from '../../src/core/parse/ipvs/nodes';
import { plainData } from '../../src/extension/analysis/plain';
import { canonicalAddress } from '../../src/core/model/address';

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
      fc.property(
        fc.array(fc.constantFrom('a', 'bc', ' ', '\n', '\r', '\r\n', '\t', 'é')).map((parts) => parts.join('')),
        (text) => {
          expect(allLines(text).lines).toEqual(splitLines(text));
        },
      ),
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
      fc.property(
        fc.array(fc.constantFrom('a', '->', ' ', '  ', '\t', '\u00a0', '\u2028', '\ufeff', '~', '\u0085', 'x')).map((p) => p.join('')),
        (text) => {
          expect(trimmedLength(text)).toBe(text.trimEnd().length);
        },
      ),
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
  const real = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2 ** 48 }), fc.constantFrom(2 ** 50, 2 ** 50 + 4, 1.5, -3, 'fd00::1:80', '10.0.0.1:', 'x'));
  const group = fc.record({ protocol: fc.constantFrom('tcp', 'udp', 'sctp', 'fwmark', 'toString'), reals: fc.uniqueArray(real, { maxLength: 6 }) });
  it('finds the groups a Map of every real server finds, in their order', () => {
    fc.assert(
      fc.property(fc.array(group, { maxLength: 12 }), fc.array(real, { maxLength: 8 }), (groups, extra) => {
        const index = new GroupsByReal(
          groups.length,
          (k) => groups[k].protocol,
          (k) => groups[k].reals,
        );
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

describe('the fast parse of listings and restore commands', () => {
  const HEADER = ['IP Virtual Server version 1.2.1 (size=4096)', 'Prot LocalAddress:Port Scheduler Flags', '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn'];
  const service = fc.record({ host: fc.nat(3), port: fc.constantFrom(53, 80), line: fc.constantFrom('rr', 'wrr', 'sh (sh-fallback)', 'rr persistent 60', 'mh (mh-port)') });
  const server = fc.record({ host: fc.nat(4), forward: fc.constantFrom('Masq', 'Route', 'Local'), weight: fc.nat(3) });
  const piece = fc.oneof(
    fc.constant(HEADER.join('\n')),
    fc.constant('$ ipvsadm -Ln'),
    fc.constant(''),
    fc
      .tuple(service, fc.array(server, { maxLength: 4 }))
      .map(([s, servers]) => [`TCP  10.96.0.${s.host}:${s.port} ${s.line}`, ...servers.map((r) => `  -> 10.244.0.${r.host}:${s.port}              ${r.forward}   ${r.weight}      0          0`)].join('\n')),
    service.map((s) => `-A -t 10.96.0.${s.host}:${s.port} -s rr`),
    service.map((s) => `-D -t 10.96.0.${s.host}:${s.port}`),
    fc.tuple(service, server).map(([s, r]) => `-a -t 10.96.0.${s.host}:${s.port} -r 10.244.0.${r.host}:${s.port} -m -w ${r.weight}`),
    fc.tuple(service, server).map(([s, r]) => `-d -t 10.96.0.${s.host}:${s.port} -r 10.244.0.${r.host}:${s.port}`),
  );
  const entries = (m: Map<number, unknown>) => plainData([...m]);

  it('answers what the Chevrotain path answers, listings pasted twice, services removed and servers added included', () => {
    let sawPlainServiceServer = false;
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), (pieces) => {
        const text = pieces.join('\n');
        const fast = parseIpvsadm(text);
        const slow = parseIpvsadm(text, { mode: 'chevrotain' });
        sawPlainServiceServer ||= fast.services.some((s) => s.realServers.some((r) => r instanceof PlainServiceServerNode));
        expect(plainData(fast.services)).toEqual(plainData(slow.services));
        expect(fast.diagnostics).toEqual(slow.diagnostics);
        expect(plainData(fast.symbols.definitions)).toEqual(plainData(slow.symbols.definitions));
        expect(plainData(fast.symbols.references)).toEqual(plainData(slow.symbols.references));
        expect(entries(fast.serviceByLine)).toEqual(entries(slow.serviceByLine));
        expect(entries(fast.realServerByLine)).toEqual(entries(slow.realServerByLine));
      }),
      { numRuns: 400, seed: 8 },
    );
    // The random listings did reach the shortcuts.
    expect(sawPlainServiceServer).toBe(true);
  });

  it('warns of a service listed twice in one listing, not of one listed again in the next', () => {
    const listing = [...HEADER, 'TCP  10.96.0.1:53 rr', '  -> 10.244.0.1:53              Masq    1      0          0'];
    const twice = parseIpvsadm([...listing, 'TCP  10.96.0.1:53 rr'].join('\n'));
    expect(twice.diagnostics.map((d) => d.code)).toContain('duplicate-service');
    const again = parseIpvsadm([...listing, ...listing].join('\n'));
    expect(again.diagnostics.map((d) => d.code)).not.toContain('duplicate-service');
    expect(again.services[0].realServers).toHaveLength(1);
    expect(again.services[0].realServers[0]).toBeInstanceOf(RealServerNode);
  });

  it('keeps the service line as the full range of a listed service that a restore command removed', () => {
    const text = [...HEADER, 'TCP  10.96.0.1:53 rr', '  -> 10.244.0.1:53              Masq    1      0          0', '-D -t 10.96.0.1:53'].join('\n');
    const fast = parseIpvsadm(text);
    expect(fast.services).toHaveLength(0);
    expect(fast.symbols.definitions[0].fullRange).toEqual({ start: { line: 3, character: 0 }, end: { line: 3, character: 20 } });
    expect(plainData(fast.symbols.definitions)).toEqual(plainData(parseIpvsadm(text, { mode: 'chevrotain' }).symbols.definitions));
  });
});
