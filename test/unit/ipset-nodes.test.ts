// The compact nodes of the ipset fast path (issue #8) make a member's text from its values when it is written in
// canonical form, and their command and set reference are views of the member: every value they answer must
// be the one the Chevrotain path stores, on tricky and random `add` lines.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IpsetCommand, IpsetDump, IpsetMember } from '../../src/core/model/ipset';
import type { SymbolReference } from '../../src/core/model/symbols';
import { ipPortKey } from '../../src/core/kube/ipvs-catalog';
import { Ipv4PortIpMemberNode, Ipv4PortMemberNode, MemberNode } from '../../src/core/parse/ipset/nodes';
import { detached } from '../../src/core/parse/detach';
import { parseIpset } from '../../src/core/parse/ipset/parser';

const MEMBER_KEYS = ['text', 'parts', 'address', 'prefix', 'protocol', 'port', 'portTo', 'address2', 'prefix2', 'options', 'range', 'textRange', 'line'] as const;
const COMMAND_KEYS = ['command', 'keyword', 'set', 'setRange', 'args', 'range', 'line'] as const;
const REFERENCE_KEYS = ['kind', 'name', 'scope', 'range', 'role'] as const;

function pick<T extends object>(o: T, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (o as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** What a dump answers through the interfaces of its members, commands and references. */
function view(dump: IpsetDump): unknown {
  return {
    members: dump.sets.map((s) => s.members.map((m: IpsetMember) => pick(m, MEMBER_KEYS))),
    memberByLine: [...dump.memberByLine].map(([line, e]) => [line, e.set.name, pick(e.member, MEMBER_KEYS)]),
    commands: dump.commands.map((c: IpsetCommand) => pick(c, COMMAND_KEYS)),
    commandByLine: [...dump.commandByLine].map(([line, c]) => [line, pick(c, COMMAND_KEYS)]),
    references: dump.symbols.allReferences().map((r: SymbolReference) => pick(r, REFERENCE_KEYS)),
    byName: ['A', 'B', 'LOOP', 'PORTS'].map((n) => dump.symbols.referencesTo('ipset', 'ipset', n).map((r) => pick(r, REFERENCE_KEYS))),
    diagnostics: dump.diagnostics,
  };
}

function sameAsChevrotain(text: string): IpsetDump {
  const fast = parseIpset(text);
  const slow = parseIpset(text, { mode: 'chevrotain' });
  expect(view(fast)).toEqual(view(slow));
  // memberByLine finds fast-path members through commandByLine: the same answers line by line.
  expect(fast.memberByLine.size).toBe(slow.memberByLine.size);
  expect([...fast.memberByLine.keys()]).toEqual([...slow.memberByLine.keys()]);
  for (let line = -1; line <= fast.lineCount; line++) {
    expect(fast.memberByLine.has(line)).toBe(slow.memberByLine.has(line));
    const [a, b] = [fast.memberByLine.get(line), slow.memberByLine.get(line)];
    expect(a && [a.set.name, pick(a.member, MEMBER_KEYS)]).toEqual(b && [b.set.name, pick(b.member, MEMBER_KEYS)]);
  }
  return fast;
}

const HEADER = ['create A hash:ip,port family inet hashsize 1024 maxelem 65536', 'create B hash:ip family inet', 'create LOOP hash:ip,port,ip family inet', 'create PORTS bitmap:port range 0-65535'];

describe('ipset fast-path nodes = Chevrotain path', () => {
  it('text made from the values only when the line writes exactly that', () => {
    const dump = sameAsChevrotain(
      [
        ...HEADER,
        'add A 10.96.0.10,udp:53',
        'add A 10.96.0.11,80',
        'add A 10.96.0.12,tcp:080',
        'add A 10.96.0.13,sctp:0',
        'add A 10.96.0.14,tcp:00',
        'add   A  10.96.0.15,tcp:65535   ',
        'add B 10.244.135.127',
        'add LOOP 10.244.135.127,tcp:5432,10.244.135.127',
        'add LOOP 10.244.135.127,udp:53,10.244.1.2',
        'add LOOP 10.244.135.127,53,10.244.1.2',
        'add PORTS 30080',
        'add PORTS 0',
        'add PORTS 00080',
      ].join('\n'),
    );
    const canonical = dump.sets.flatMap((s) => s.members).map((m) => [m.text, (m as MemberNode).hasCanonicalText()]);
    expect(canonical).toEqual([
      ['10.96.0.10,udp:53', true],
      ['10.96.0.11,80', false],
      ['10.96.0.12,tcp:080', false],
      ['10.96.0.13,sctp:0', true],
      ['10.96.0.14,tcp:00', false],
      ['10.96.0.15,tcp:65535', true],
      ['10.244.135.127', true],
      ['10.244.135.127,tcp:5432,10.244.135.127', true],
      ['10.244.135.127,udp:53,10.244.1.2', true],
      ['10.244.135.127,53,10.244.1.2', false],
      ['30080', true],
      ['0', true],
      ['00080', false],
    ]);
  });

  it('members of fast and general lines, interleaved, in one index', () => {
    sameAsChevrotain([...HEADER, 'add A 10.0.0.1,tcp:80', 'add A 10.0.0.2,tcp:80 timeout 5', 'add B 10.0.0.3', 'add B "10.0.0.4"', '', 'add PORTS 80', 'add NONE 1', 'add PORTS 81 -exist'].join('\n'));
    sameAsChevrotain([...HEADER, 'add A 10.0.0.2,tcp:80 timeout 5', 'add A 10.0.0.1,tcp:80'].join('\n'));
  });

  it('a renamed set: earlier lines keep the name they wrote', () => {
    const dump = sameAsChevrotain([...HEADER, 'add A 10.0.0.1,tcp:80', 'rename A X', 'add X 10.0.0.2,tcp:80', 'add A 10.0.0.3,tcp:80', 'rename X A', 'add A 10.0.0.4,tcp:80'].join('\n'));
    expect(dump.commands.filter((c) => c.command === 'add').map((c) => c.set)).toEqual(['A', 'X', 'A', 'A']);
  });

  it('random add lines (spacing, protocols, ports, addresses)', () => {
    const address = fc.oneof(fc.ipV4(), fc.constantFrom('10.0.0.1', '010.0.0.1', '10.0.0.256', 'fd00::1', '10.0.0.0/24', 'host'));
    const port = fc.oneof(fc.integer({ min: 0, max: 70000 }).map(String), fc.constantFrom('080', '00', '0', 'http', '80-90', ''));
    const protocol = fc.constantFrom('tcp:', 'udp:', 'sctp:', '', 'TCP:', 'icmp:', 'udplite:');
    const spaces = fc.constantFrom(' ', '  ', '   ');
    const line = fc.tuple(fc.constantFrom('A', 'B', 'LOOP', 'PORTS', 'NONE'), spaces, spaces, address, protocol, port, address, fc.constantFrom('', ' ', '  ')).map(([set, s1, s2, a, p, n, a2, trail]) => {
      const member = set === 'B' ? a : set === 'PORTS' ? n : set === 'LOOP' ? `${a},${p}${n},${a2}` : `${a},${p}${n}`;
      return `add${s1}${set}${s2}${member}${trail}`;
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (lines) => void sameAsChevrotain([...HEADER, ...lines].join('\n'))),
      { numRuns: 400, seed: 17 },
    );
  });
});

describe('packed IPv4 members', () => {
  it("answer the IPVS catalog's key and loop-back test without their strings", () => {
    const address = fc.oneof(fc.ipV4(), fc.constantFrom('0.0.0.0', '255.255.255.255', '10.0.0.1', '128.0.0.1'));
    const member = fc.tuple(address, fc.constantFrom('tcp', 'udp', 'sctp'), fc.integer({ min: 0, max: 65535 }), fc.oneof(address, fc.constant('')));
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 20 }), (members) => {
        const lines = members.map(([a, p, n, a2]) => `add LOOP ${a},${p}:${n},${a2 || a}`);
        const dump = parseIpset([...HEADER, ...lines, ...members.map(([a, p, n]) => `add A ${a},${p}:${n}`)].join('\n'));
        const all = dump.sets.flatMap((s) => s.members);
        expect(all.length).toBe(2 * members.length);
        for (const m of all) {
          expect(m).toBeInstanceOf(Ipv4PortMemberNode);
          const packed = m as Ipv4PortMemberNode;
          expect((packed.addressValue()! * 65536 + packed.port) * 3 + packed.protocolIndex()).toBe(ipPortKey(m.address, m.port, m.protocol!));
          if (m instanceof Ipv4PortIpMemberNode) expect(m.repeatsAddress()).toBe(m.address2 === m.address);
        }
      }),
      { numRuns: 200, seed: 5 },
    );
  });
});

describe('detached', () => {
  it('answers an equal string for any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"\\\u0000\ud800x', 'add KUBE-LOOP-BACK 10.0.0.1')), (s) => {
        const copy = detached(`${s}${s}${s}`.slice(s.length));
        expect(copy).toBe(`${s}${s}`);
      }),
      { numRuns: 200, seed: 3 },
    );
  });
});
