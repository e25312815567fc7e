// The hand-written fast paths of the ipvsadm and ipset parsers (issue #8) must build exactly the model the
// Chevrotain path builds: services, real servers, members, commands, ranges, symbols, per-line indexes and
// diagnostics, compared through the public interface (lazy ranges and getters included).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomServices } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { parseIpset } from '../../src/core/parse/ipset/parser';
import { MemberNode } from '../../src/core/parse/ipset/nodes';
import { RealServerNode, ServiceNode } from '../../src/core/parse/ipvs/nodes';
import { LineMap } from '../../src/core/model/line-map';
import { parseIpvsadm } from '../../src/core/parse/ipvs/parser';
import { mutate, mutationOf } from '../helpers/mutate';
import { corpusFiles, HAVE_CORPUS } from '../helpers/shared';
import { ipv6Services } from '../helpers/ipv6';
import { plainModel as plain } from '../helpers/model-plain';
import { expectSamePlain } from '../helpers/same-plain';

function sameIpvsadm(text: string): void {
  const fast = parseIpvsadm(text);
  const slow = parseIpvsadm(text, { mode: 'chevrotain' });
  expectSamePlain(plain(fast), plain(slow));
  // The indexes answer the same questions line by line.
  for (const [line, entry] of slow.realServerByLine) {
    expect(fast.realServerByLine.has(line)).toBe(true);
    expectSamePlain(plain(fast.realServerByLine.get(line)!.range), plain(entry.range));
  }
  expect(fast.realServerByLine.size).toBe(slow.realServerByLine.size);
}

function sameIpset(text: string): void {
  const fast = parseIpset(text);
  const slow = parseIpset(text, { mode: 'chevrotain' });
  expectSamePlain(plain(fast), plain(slow));
  expect(fast.memberByLine.size).toBe(slow.memberByLine.size);
  expect(fast.commandByLine.size).toBe(slow.commandByLine.size);
}

const FIXTURES = resolve(__dirname, '../grammar/ipvs/fixtures');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const IPVSADM_FIXTURES = readdirSync(FIXTURES).filter((f) => f.endsWith('.ipvsadm'));
const IPSET_FIXTURES = readdirSync(FIXTURES).filter((f) => f.endsWith('.ipset'));

describe('ipvsadm fast path = Chevrotain path', () => {
  for (const name of IPVSADM_FIXTURES) {
    it(`fixture ${name}`, () => sameIpvsadm(fixture(name)));
  }

  for (const seed of [1, 7, 42]) {
    it(`generated node: seed ${seed} (listing and save, IPv4 and IPv6)`, () => {
      const snap = generateIpvsSnapshot({ services: randomServices(40, 4, seed), nodeIPs: ['192.168.0.10', '10.0.2.15'] });
      sameIpvsadm(snap['ipvsadm-list']);
      // (and the fast path did read the listing)
      const services = parseIpvsadm(snap['ipvsadm-list']).services;
      expect(services.every((s) => s instanceof ServiceNode && s.realServers.every((r) => r instanceof RealServerNode))).toBe(true);
      sameIpvsadm(snap['ipvsadm-save']);
      const six = generateIpvsSnapshot({ services: ipv6Services(randomServices(15, 3, seed)), nodeIPs: ['fd00::10'], family: 'ipv6' });
      sameIpvsadm(six['ipvsadm-list']);
      // A listing pasted twice (the second merges into the first), and one with a --stats listing after it.
      sameIpvsadm(`${snap['ipvsadm-list']}\n${snap['ipvsadm-list']}`);
      sameIpvsadm(`${snap['ipvsadm-list']}\n${fixture('kube-proxy-node.stats.ipvsadm')}\n${fixture('kube-proxy-node.ipvsadm')}`);
    });
  }

  it('targeted lines: weights, duplicates, families, merges, bad columns and text the fast path leaves alone', () => {
    sameIpvsadm(
      [
        '  -> 10.0.0.9:80 Masq 1 0 0',
        'TCP  10.96.0.1:443 rr',
        '  -> 192.168.0.1:6443            Masq    1      0          0         ',
        '  -> 192.168.0.1:6443            Masq    1      0          0',
        '  -> 192.168.0.2:6443            Masq    0      3          7',
        '  -> 192.168.0.3:6443            Local   2      0          0',
        '  -> 192.168.0.4:6443            Route   2      0          0',
        '  -> 192.168.0.5:6443            Tunnel  2      0          0',
        '  -> [fd00::5]:6443              Masq    1      0          0',
        '  -> [fd00::5]:6443              Tunnel  1      0          0',
        '  -> 192.168.0.6:6443            Bogus   1      0          0',
        '  -> 192.168.0.7:99999           Masq    1      0          0',
        '  -> 192.168.0.256:6443          Masq    1      0          0',
        '  -> 192.168.00.8:6443           Masq    1      0          0',
        '  -> 192.168.0.9:6443            Masq    -1     0          0',
        '  -> 192.168.0.10:6443           Masq    1      0',
        '  -> 192.168.0.11:6443\tMasq    1      0          0',
        '  -> 192.168.0.12:6443           Masq    1      0          0  # note',
        '  -> node1.example:6443          Masq    1      0          0',
        '  -> 192.168.0.13:https          Masq    1      0          0',
        'UDP  10.96.0.10:53 rr persistent 10800',
        '  -> 10.244.1.3:53               Masq    1      0          0',
        'UDP  [fd00::a]:53 rr',
        '  -> 10.244.1.3:53               Masq    1      0          0',
        'SCTP  10.96.0.20:3868 wlc',
        'TCP  10.96.0.30:80 bogus',
        'TCP  10.96.0.31:80 rr persistent',
        'TCP  10.96.0.32:80 rr persistent 60 mask 255.255.255.0',
        'TCP  10.96.0.33:80 rr ops',
        'TCP  10.96.0.34:0 rr',
        'TCP  10.96.0.1:443 rr',
        '  -> 192.168.0.1:6443            Masq    1      0          0',
        'TCP 10:00 ESTABLISHED 10.0.0.1:1 10.0.0.2:2 10.0.0.3:3',
        'IP Virtual Server version 1.2.1 (size=4096)',
        'Prot LocalAddress:Port Scheduler Flags',
        '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
        'TCP  10.96.0.1:443 rr',
        '  -> 192.168.0.1:6443            Masq    5      1          2',
        '  -> 192.168.0.99:6443           Masq    1      0          0',
        'Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes',
        '  -> RemoteAddress:Port',
        'TCP  10.96.0.1:443                       1       10        0     1000        0',
        '  -> 192.168.0.1:6443                    1       10        0     1000        0',
        '-A -t 10.96.0.1:443 -s rr',
        'IP Virtual Server version 1.2.1 (size=4096)  ',
        'IP Virtual Server version 1.2.1 (size=4096)\t',
        'IP Virtual Server version 1.2 (size=4096)',
        'IP Virtual Server version 1.2.1 (size=4096) extra',
        'IP  Virtual Server version 1.2.1 (size=4096)',
        'Prot LocalAddress:Port Scheduler Flags ',
        'Prot LocalAddress:Port Scheduler  Flags',
        '    -> RemoteAddress:Port   Forward Weight ActiveConn InActConn  ',
        '  -> RemoteAddress:Port Forward Weight ActiveConn InActConn TunnelInfo',
        '  -> RemoteAddress:Port\u00a0Forward Weight ActiveConn InActConn',
        'TCP  10.96.0.40:80 rr',
        '  -> 10.0.0.1:80 Masq 1 0 0',
        '-D -t 10.96.0.40:80',
        '-C',
      ].join('\n'),
    );
  });

  it('mutated dumps (300 inputs)', () => {
    const seed = [fixture('kube-proxy-node.ipvsadm'), fixture('director.ipvsadm'), fixture('kube-proxy-node.stats.ipvsadm')].join('\n');
    const alphabet = ['-', '->', ' ', '  ', '\t', ':', '[', ']', '0', '65535', 'TCP', 'UDP', 'rr', 'persistent', 'Masq', 'Local', '-A', '#', '中', '\n', '  -> 10.0.0.1:80 Masq 1 0 0\n'];
    fc.assert(
      fc.property(fc.array(mutationOf(alphabet), { minLength: 1, maxLength: 6 }), (mutations) => sameIpvsadm(mutate(seed, mutations))),
      { numRuns: 300, seed: 8 },
    );
  });

  it.skipIf(!HAVE_CORPUS)('the shared corpus', () => {
    const files = corpusFiles('ipvs');
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) sameIpvsadm(readFileSync(f, 'utf8'));
  });
});

describe('ipset fast path = Chevrotain path', () => {
  for (const name of IPSET_FIXTURES) {
    it(`fixture ${name}`, () => sameIpset(fixture(name)));
  }

  for (const seed of [1, 7, 42]) {
    it(`generated node: seed ${seed} (save and list, IPv4 and IPv6)`, () => {
      const snap = generateIpvsSnapshot({ services: randomServices(40, 4, seed), nodeIPs: ['192.168.0.10'] });
      sameIpset(snap['ipset-save']);
      const members = parseIpset(snap['ipset-save']).sets.flatMap((x) => x.members);
      expect(members.length).toBeGreaterThan(0);
      expect(members.every((m) => m instanceof MemberNode)).toBe(true);
      sameIpset(snap['ipset-list']);
      sameIpset(`${snap['ipset-list']}\n${snap['ipset-save']}`);
      sameIpset(generateIpvsSnapshot({ services: ipv6Services(randomServices(15, 3, seed)), nodeIPs: ['fd00::10'], family: 'ipv6' })['ipset-save']);
    });
  }

  it('targeted lines: members with problems, options, quotes, unknown and later sets', () => {
    sameIpset(
      [
        'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443',
        'create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536',
        'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443',
        'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443   ',
        'add  KUBE-CLUSTER-IP   10.96.0.10,udp:53',
        'add KUBE-CLUSTER-IP 10.96.0.10,udp:99999',
        'add KUBE-CLUSTER-IP fd00::1,tcp:80',
        'add KUBE-CLUSTER-IP 10.96.0.10',
        'add KUBE-CLUSTER-IP 10.96.0.11,tcp:80 timeout 5',
        'add KUBE-CLUSTER-IP 10.96.0.12,tcp:80 comment "x y"',
        'add KUBE-CLUSTER-IP "10.96.0.13,tcp:80"',
        'add KUBE-CLUSTER-IP\t10.96.0.14,tcp:80',
        'add KUBE-CLUSTER-IP 10.96.0.16,TCP:80',
        'add KUBE-CLUSTER-IP 010.96.0.17,tcp:80',
        'add KUBE-CLUSTER-IP 10.96.0.18,tcp:00080',
        'add KUBE-CLUSTER-IP 10.96.0.19,tcp:000080',
        'add KUBE-CLUSTER-IP 10.96.0.20,80',
        'add KUBE-CLUSTER-IP 10.96.0.21,icmp:echo-request',
        'add KUBE-CLUSTER-IP 10.96.0.22,tcp:80-90',
        'add KUBE-CLUSTER-IP 10.96.0.0/24,tcp:80',
        'add KUBE-CLUSTER-IP 10.96.0.23,udplite:80',
        'add KUBE-CLUSTER-IP 10.96.0.24,tcp:http',
        'add KUBE-CLUSTER-IP 10.96.0.25,tcp:80,10.0.0.1',
        'add KUBE-CLUSTER-IP 10.96.0.26,:80',
        'add KUBE-CLUSTER-IP 10.96.0.27,tcp:',
        'add KUBE-CLUSTER-IP 10.96.0.15,tcp:80 #',
        'add KUBE-CLUSTER-IP',
        'add NOT-CREATED 10.0.0.1,tcp:80',
        'create KUBE-NODE-PORT-TCP bitmap:port range 30000-32767',
        'add KUBE-NODE-PORT-TCP 30080',
        'add KUBE-NODE-PORT-TCP 80',
        'add KUBE-NODE-PORT-TCP 30000-30010',
        'add KUBE-NODE-PORT-TCP 030081',
        'add KUBE-NODE-PORT-TCP 65536',
        'add KUBE-NODE-PORT-TCP tcp:30082',
        'create KUBE-IPVS-IPS hash:ip family inet',
        'add KUBE-IPVS-IPS 10.96.0.1',
        'add KUBE-IPVS-IPS 10.96.0.1,tcp:80',
        'add KUBE-IPVS-IPS 10.96.0.0/16',
        'add KUBE-IPVS-IPS 10.96.0.1-10.96.0.9',
        'create KUBE-LOOP-BACK hash:ip,port,ip family inet',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:53,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:53,10.244.1.4',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:53',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:53,10.244.1.0/24',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:53,10.244.1.4,1',
        // The second address compared in place with the first: a prefix, a longer or shorter one, a bad one.
        'add KUBE-LOOP-BACK 10.244.1.3,tcp:80,10.244.1.33',
        'add KUBE-LOOP-BACK 10.244.1.33,tcp:80,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,sctp:80,10.244.1.3x',
        'add KUBE-LOOP-BACK 10.244.1.3,tcp:80,010.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,tcp:80,',
        // Protocols compared in place, and port numbers read without slicing.
        'add KUBE-LOOP-BACK 10.244.1.3,tc:80,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,tcpx:80,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,sctx:80,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,UDP:80,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,:80,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:00080,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:65536,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:65535,10.244.1.3',
        'add KUBE-LOOP-BACK 10.244.1.3,udp:,10.244.1.3',
        'create KUBE-6-CLUSTER-IP hash:ip,port family inet6',
        'add KUBE-6-CLUSTER-IP fd00::1,tcp:80',
        'add KUBE-6-CLUSTER-IP 10.0.0.1,tcp:80',
        'create all list:set size 8',
        'add all KUBE-CLUSTER-IP',
        'create odd hash:frob',
        'add odd whatever',
        'create nets hash:net family inet',
        'add nets 10.0.0.0/8',
        'add nets 10.0.0.0/0',
        'del KUBE-CLUSTER-IP 10.96.0.1,tcp:443',
        'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443',
        'flush KUBE-CLUSTER-IP',
        'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443',
        'Name: listed',
        'Type: hash:ip',
        'Members:',
        'add KUBE-CLUSTER-IP 10.96.0.2,tcp:443',
        '',
        'add KUBE-CLUSTER-IP 10.96.0.3,tcp:443',
      ].join('\n'),
    );
  });

  it('create lines: the words the lexer would cut, and lines it cuts otherwise', () => {
    const creates = [
      'create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 4096 maxelem 65536 bucketsize 12 initval 0xbd6fca37',
      'create  KUBE-NODE-PORT-TCP   bitmap:port range 0-65535   ',
      'create KUBE-NODE-PORT-TCP bitmap:port range 0-65535',
      'create b bitmap:port',
      'create c hash:ip family inet6 hashsize x maxelem',
      'create d hash:mac family inet bogus -exist timeout 5 counters comment forceadd',
      'create e list:set size 8',
      'create f weird:type',
      'create g',
      'create ',
      'create create add',
      'create h hash:ip Name: x',
      'create i hash:ip Size in memory: 3',
      'create j hash:ip family "inet"',
      'create k hash:ip\tfamily inet',
      'create l hash:ip # family inet',
      'create m hash:ip famïly inet',
      'create n:',
      'create this-name-is-longer-than-thirty-one-characters hash:ip',
      'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443',
      'Name: listed',
      'Type: hash:ip',
      'create o hash:ip',
      '',
      'create p hash:ip,port,ip',
      'add p 10.0.0.1,tcp:80,10.0.0.1',
    ];
    sameIpset(creates.join('\n'));
    for (const line of creates) sameIpset(`${line}\nadd b 80\n${line}\r\n`);
  });

  it('mutated dumps (200 inputs)', () => {
    const seed = [fixture('kube-proxy-node.ipset'), fixture('misc.ipset'), fixture('kube-proxy-node.list.ipset')].join('\n');
    const alphabet = ['add ', 'create ', ' ', '\t', ',', ':', 'tcp:', '/', '-', '"', '#', '0', '65535', 'KUBE-CLUSTER-IP', 'timeout', '中', '\n', 'add KUBE-CLUSTER-IP 10.0.0.1,tcp:80\n'];
    fc.assert(
      fc.property(fc.array(mutationOf(alphabet), { minLength: 1, maxLength: 6 }), (mutations) => sameIpset(mutate(seed, mutations))),
      { numRuns: 200, seed: 8 },
    );
  });

  it('a fast-path member makes the same parts when they are asked for', () => {
    const text = 'create s hash:ip,port,net family inet\nadd s 10.0.0.1,udp:53,10.1.0.0/16';
    const fast = parseIpset(text).sets[0].members[0];
    const slow = parseIpset(text, { mode: 'chevrotain' }).sets[0].members[0];
    expect(plain(fast.parts)).toEqual(plain(slow.parts));
    expect(fast.parts).toBe(fast.parts);
    expect(fast.parts.map((p) => p.dimension)).toEqual(['ip', 'port', 'net']);
  });
});

describe('LineMap', () => {
  it('is a Map of line numbers: size, order, has/get/delete, iteration', () => {
    const m = new LineMap<string>();
    expect(m).toBeInstanceOf(Map);
    m.set(3, 'c').set(0, 'a').set(10, 'k').set(3, 'C');
    expect(m.size).toBe(3);
    expect([...m.keys()]).toEqual([0, 3, 10]);
    expect([...m]).toEqual([
      [0, 'a'],
      [3, 'C'],
      [10, 'k'],
    ]);
    expect([...m.values()]).toEqual(['a', 'C', 'k']);
    expect(m.get(3)).toBe('C');
    expect(m.get(4)).toBeUndefined();
    expect(m.get(-1)).toBeUndefined();
    expect(m.get(1.5)).toBeUndefined();
    expect(m.has(10)).toBe(true);
    expect(m.delete(10)).toBe(true);
    expect(m.delete(10)).toBe(false);
    expect(m.size).toBe(2);
    const seen: Array<[number, string]> = [];
    m.forEach((v, k) => seen.push([k, v]));
    expect(seen).toEqual([
      [0, 'a'],
      [3, 'C'],
    ]);
    expect(() => m.set(-1, 'x')).toThrow(RangeError);
    m.clear();
    expect(m.size).toBe(0);
    expect([...m]).toEqual([]);
  });

  it('answers the same with room reserved for fewer, as many or more lines than it gets', () => {
    const entries: [number, string][] = [
      [0, 'a'],
      [2, 'b'],
      [7, 'c'],
      [8, 'd'],
      [30, 'e'],
    ];
    const plain = new LineMap<string>();
    for (const [k, v] of entries) plain.set(k, v);
    for (const reserved of [1, 9, 31, 100]) {
      const m = new LineMap<string>();
      m.reserve(reserved);
      expect(m.size).toBe(0);
      expect([...m]).toEqual([]);
      for (const [k, v] of entries) m.set(k, v);
      expect([...m], `room for ${reserved}`).toEqual([...plain]);
      expect(m.size).toBe(plain.size);
      for (let k = -1; k < 40; k++) expect(m.get(k)).toBe(plain.get(k));
      m.delete(7);
      expect([...m.keys()]).toEqual([0, 2, 8, 30]);
    }
    // Only before the first entry: afterwards reserving changes nothing.
    plain.reserve(1000);
    expect([...plain]).toEqual(entries);
  });
});
