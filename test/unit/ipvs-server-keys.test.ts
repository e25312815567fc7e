// The fast path's shortcuts for real servers (issue #8) must answer what the plain versions answer: a Set of the
// endpoint texts for duplicates, the address string read from the line, ipv4Number of that address.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpvsadm, ServerKeys } from '../../src/core/parse/ipvs/parser';
import { endpointNumber, ipv4Number } from '../../src/core/model/address';
import { RealServerNode } from '../../src/core/parse/ipvs/nodes';
import { weightShares } from '../../src/core/model/ipvs';

const endpointText = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('10.0.0.1', '10.0.0.01', '0.0.0.0', '255.255.255.255', '256.1.1.1', '1.2.3', '10.244.1.5', '[fd00::1]', 'fd00::1', 'host'),
      fc.constantFrom('', ':', ':0', ':00', ':80', ':080', ':65535', ':65536', ':99999', ':1:2', ':x'),
    )
    .map(([a, p]) => a + p),
  fc.string({ unit: fc.constantFrom('0', '1', '5', '.', ':', '[', ']', 'a'), maxLength: 14 }),
);

describe('endpointNumber', () => {
  it('is a number only for texts determined by it', () => {
    fc.assert(
      fc.property(endpointText, endpointText, (x, y) => {
        const a = endpointNumber(`  ${x} `, 2, 2 + x.length);
        const b = endpointNumber(y, 0, y.length);
        if (!Number.isNaN(a) && !Number.isNaN(b)) expect(a === b).toBe(x === y);
        if (!Number.isNaN(a)) {
          const [address, port] = x.split(':');
          expect(String(Number(port))).toBe(port);
          expect(a).toBe(ipv4Number(address)! * 65536 + Number(port));
        }
      }),
      { numRuns: 3000 },
    );
    expect(endpointNumber('10.0.0.1:80', 0, 11)).toBe(0x0a000001 * 65536 + 80);
    expect(endpointNumber('255.255.255.255:65535', 0, 21)).toBe(0xffffffff * 65536 + 65535);
    for (const text of ['10.0.0.1:080', '10.0.0.01:80', '10.0.0.1:65536', '10.0.0.1:', '10.0.0.1', '[::1]:80']) expect(endpointNumber(text, 0, text.length)).toBeNaN();
  });
});

describe('ServerKeys', () => {
  it('answers what a Set of the texts answers, across clears and growth', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            endpointText,
            fc.nat(3000).map((n) => `10.0.${n >> 8}.${n & 255}:${n % 7}`),
            fc.constant('clear'),
          ),
          { maxLength: 300 },
        ),
        (ops) => {
          const keys = new ServerKeys();
          let plain = new Set<string>();
          for (const op of ops) {
            if (op === 'clear') {
              keys.clear();
              plain = new Set();
              continue;
            }
            expect(keys.add(`x ${op}`, 2, 2 + op.length)).toBe(plain.has(op));
            plain.add(op);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('RealServerNode addresses', () => {
  const HEADER = ['IP Virtual Server version 1.2.1 (size=4096)', 'Prot LocalAddress:Port Scheduler Flags', '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn'];

  it('are read from the line as the Chevrotain path reads them, and ipv4Endpoint is ipv4Number of them and the port', () => {
    const text = [
      ...HEADER,
      'TCP  10.96.0.1:443 rr',
      '  -> 10.244.0.5:80           Masq    1      0          0',
      '   ->   255.255.255.255:0  Masq 1 0 0',
      '  -> [fd00::5]:8080          Masq    1      0          0',
      '  -> 10.244.0.5:080          Masq    1      0          0',
      '  -> 10.244.0.5:80           Route   1      0          0',
      'TCP  [fd00::1]:443 rr',
      '  -> [fd00:10::5]:8080       Tunnel  7      0          0',
      '  -> [::ffff:1.2.3.4]:9      Masq    1      0          0',
    ].join('\r\n');
    const fast = parseIpvsadm(text);
    const slow = parseIpvsadm(text, { mode: 'chevrotain' });
    const servers = fast.services.flatMap((s) => s.realServers);
    expect(servers.length).toBe(7);
    for (const r of servers) expect(r).toBeInstanceOf(RealServerNode);
    expect(servers.map((r) => r.address)).toEqual(slow.services.flatMap((s) => s.realServers).map((r) => r.address));
    expect(servers.map((r) => [r.family, r.port])).toEqual(slow.services.flatMap((s) => s.realServers).map((r) => [r.family, r.port]));
    const endpoint = (r: (typeof servers)[number]) => (ipv4Number(r.address) === undefined ? -1 : ipv4Number(r.address)! * 65536 + r.port!);
    for (const r of servers) expect(RealServerNode.ipv4Endpoint(r)).toBe(endpoint(r));
    expect(servers.filter((r) => RealServerNode.ipv4Endpoint(r) >= 0).length).toBe(4);
    for (const r of slow.services.flatMap((s) => s.realServers)) expect(RealServerNode.ipv4Endpoint(r)).toBe(-1);
    expect(fast.diagnostics).toEqual(slow.diagnostics);
    // An assigned address is kept, and read back.
    servers[0].address = 'fd00::9';
    expect(servers[0].address).toBe('fd00::9');
    expect(servers[0].port).toBe(80);
    // An assigned server is no longer read from its line: the catalog asks for its address and port.
    expect(RealServerNode.ipv4Endpoint(servers[0])).toBe(-1);
  });
});

describe('weightShares', () => {
  /** The shares as they were first written (some, filter, map, reduce). */
  function reference(service: { scheduler?: string; realServers: ReadonlyArray<{ weight: number; notInDump: readonly string[] }> }): number[] | undefined {
    const servers = service.realServers;
    if (service.scheduler !== 'rr' && service.scheduler !== 'wrr') return undefined;
    if (servers.some((r) => r.notInDump.includes('weight'))) return undefined;
    const eligible = servers.filter((r) => r.weight > 0);
    if (eligible.length === 0) return servers.map(() => 0);
    if (service.scheduler === 'rr') return servers.map((r) => (r.weight > 0 ? 1 / eligible.length : 0));
    const total = eligible.reduce((n, r) => n + r.weight, 0);
    return servers.map((r) => (r.weight > 0 ? r.weight / total : 0));
  }

  it('are the shares of the plain formulas', () => {
    const server = fc.record({
      weight: fc.oneof(fc.nat(65535), fc.constantFrom(0, 1, -1, 0.5, Number.NaN, 2 ** 40)),
      notInDump: fc.constantFrom([], [], [], ['weight'], ['forward']),
    });
    fc.assert(
      fc.property(fc.constantFrom('rr', 'wrr', 'wlc', undefined), fc.array(server, { maxLength: 12 }), (scheduler, realServers) => {
        const service = { scheduler, realServers } as unknown as Parameters<typeof weightShares>[0];
        expect(weightShares(service)).toEqual(reference({ scheduler, realServers }));
      }),
      { numRuns: 1000 },
    );
  });
});
