// Peak memory of an IPVS node's analysis (issue #8): a fast-path real server keeps only where its line starts and
// reads its columns from the text again when a range is asked for, and the IPVS catalog makes a Service's
// endpoints when they are first asked for. Both must answer what the plain versions answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomServices } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { buildIpvsCatalog } from '../../src/core/kube/ipvs-catalog';
import { lineRange } from '../../src/core/model/range';
import { RealServerNode, serverLineWords } from '../../src/core/parse/ipvs/nodes';
import { parseIpset } from '../../src/core/parse/ipset/parser';
import { parseIpvsadm } from '../../src/core/parse/ipvs/parser';
import { plainData } from '../../src/extension/analysis/plain';

const HEADER = ['IP Virtual Server version 1.2.1 (size=4096)', 'Prot LocalAddress:Port Scheduler Flags', '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn'];

const serverLine = fc
  .record({
    gaps: fc.array(fc.constantFrom(' ', '  ', '     '), { minLength: 6, maxLength: 6 }),
    host: fc.nat(255),
    port: fc.integer({ min: 1, max: 65535 }),
    forward: fc.constantFrom('Masq', 'Local', 'Route', 'Tunnel'),
    weight: fc.nat(999),
    active: fc.nat(99999),
    inactive: fc.nat(99),
    trailing: fc.constantFrom('', ' ', '   '),
  })
  .map((s) => {
    const [g0, g1, g2, g3, g4, g5] = s.gaps;
    return `${g0}->${g1}10.244.0.${s.host}:${s.port}${g2}${s.forward}${g3}${s.weight}${g4}${s.active}${g5}${s.inactive}${s.trailing}`;
  });

describe('RealServerNode', () => {
  it('finds the six words of a real server line wherever it starts in the text', () => {
    const text = 'TCP  10.96.0.1:443 rr\r\n   ->  10.244.0.5:80   Masq 1  22     333 \r\n';
    const words = Array.from(serverLineWords(text, 23));
    expect(words).toEqual([3, 5, 7, 20, 23, 27, 28, 29, 31, 33, 38, 41]);
    // The last word may end the text.
    expect(Array.from(serverLineWords('x\n -> 1.2.3.4:5 Masq 1 0 0', 2))).toEqual([1, 3, 4, 13, 14, 18, 19, 20, 21, 22, 23, 24]);
  });

  it('answers the ranges and diagnostics the Chevrotain path makes, whatever the spacing and line breaks', () => {
    fc.assert(
      fc.property(fc.array(serverLine, { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean(), (servers, lineBreak, finalBreak) => {
        const text = [...HEADER, 'TCP  10.96.0.1:443 rr', ...servers, 'UDP  10.96.0.10:53 rr', ...servers.slice(0, 2)].join(lineBreak) + (finalBreak ? lineBreak : '');
        const fast = parseIpvsadm(text);
        const slow = parseIpvsadm(text, { mode: 'chevrotain' });
        expect(fast.services[0].realServers[0]).toBeInstanceOf(RealServerNode);
        expect(plainData(fast.services)).toEqual(plainData(slow.services));
        expect(fast.diagnostics).toEqual(slow.diagnostics);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an assigned range and still reads the others from the text', () => {
    const text = [...HEADER, 'TCP  10.96.0.1:443 rr', '  -> 10.244.0.5:80      Masq    1      2          3'].join('\n');
    const server = parseIpvsadm(text).services[0].realServers[0];
    expect(server).toBeInstanceOf(RealServerNode);
    const before = plainData(server);
    const assigned = lineRange(9, 1, 2);
    server.weightRange = assigned;
    expect(server.weightRange).toBe(assigned);
    expect(plainData(server)).toEqual({ ...before, weightRange: assigned });
    // The others are still fresh objects on each call, as before the assignment.
    expect(server.addressRange).not.toBe(server.addressRange);
    server.forwardRange = undefined;
    expect(server.forwardRange).toBeUndefined();
    expect(server.range).toEqual(lineRange(4, 2, 51));
  });

  it('reads the connection counts from the text until one is assigned, then keeps both', () => {
    const big = '999999999999999';
    const text = [...HEADER, 'TCP  10.96.0.1:443 rr', `  -> 10.244.0.5:80      Masq    1      ${big}          3`].join('\n');
    expect(plainData(parseIpvsadm(text).services)).toEqual(plainData(parseIpvsadm(text, { mode: 'chevrotain' }).services));
    const server = parseIpvsadm(text).services[0].realServers[0];
    expect(server).toBeInstanceOf(RealServerNode);
    expect([server.activeConn, server.inactConn]).toEqual([Number(big), 3]);
    const before = plainData(server);
    server.inactConn = 7;
    expect(plainData(server)).toEqual({ ...before, inactConn: 7 });
    server.addressRange = lineRange(9, 1, 2);
    server.activeConn = undefined;
    expect(plainData(server)).toEqual({ ...before, inactConn: 7, activeConn: undefined, addressRange: lineRange(9, 1, 2) });
    // The other fields read from the line keep what is assigned to them too.
    const assigned = { family: 'ipv6', forward: 'tunnel', notInDump: ['weight'], port: undefined, weight: 65535 } as const;
    Object.assign(server, assigned);
    expect(plainData(server)).toEqual({ ...before, inactConn: 7, activeConn: undefined, addressRange: lineRange(9, 1, 2), ...assigned });
  });

  it('reads port, weight, family and forward from lines of either family', () => {
    const text = [...HEADER, 'TCP  [fd00::1]:443 rr', '  -> [fd00:10::5]:8080   Tunnel  7      0          0', '  -> 10.244.0.5:9        Local   0      1          2'].join('\n');
    const servers = parseIpvsadm(text).services[0].realServers;
    for (const r of servers) expect(r).toBeInstanceOf(RealServerNode);
    expect(servers.map((r) => [r.port, r.weight, r.family, r.forward, r.localNode, r.notInDump])).toEqual([
      [8080, 7, 'ipv6', 'tunnel', undefined, []],
      [9, 0, 'ipv4', 'route', true, []],
    ]);
    expect(plainData(parseIpvsadm(text).services)).toEqual(plainData(parseIpvsadm(text, { mode: 'chevrotain' }).services));
  });
});

describe('IPVS catalog endpoints', () => {
  const snapshot = generateIpvsSnapshot({ services: randomServices(30, 4, 11), nodeIPs: ['192.168.0.10'] });
  const input = () => ({ ipvs: [{ dump: parseIpvsadm(snapshot['ipvsadm-list']), fileIndex: 0 }], ipsets: [parseIpset(snapshot['ipset-save'])], iptables: [] });

  it('are made once, from the real servers of the Service, and can be replaced', () => {
    const catalog = buildIpvsCatalog(input());
    const service = catalog.services.find((s) => s.endpoints.length > 1)!;
    expect(service.endpoints).toBe(service.endpoints);
    expect(service.endpoints.reduce((n, e) => n + e.probability, 0)).toBeCloseTo(1);
    for (const e of service.endpoints) expect(e.range).toBeDefined();
    expect(Object.keys(plainData(service))).toContain('endpoints');
    service.endpoints = [];
    expect(service.endpoints).toEqual([]);
  });

  it('mark the endpoints KUBE-LOOP-BACK lists as local', () => {
    const catalog = buildIpvsCatalog(input());
    const local = catalog.services.flatMap((s) => s.endpoints).filter((e) => e.local);
    const loopBack = parseIpset(snapshot['ipset-save']).sets.find((s) => s.name === 'KUBE-LOOP-BACK')!;
    expect(local.length).toBeGreaterThan(0);
    for (const e of local) expect(loopBack.members.some((m) => m.address === e.address && m.port === e.port)).toBe(true);
  });
});
