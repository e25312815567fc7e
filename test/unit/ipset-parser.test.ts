// parseIpset: `ipset save` / restore input and `ipset list` output. The fixtures under
// test/grammar/ipvs/fixtures were written by ipset 7.17 itself (in a scratch network namespace), from
// kube-proxy's own create arguments for its IPVS-mode sets and a set of every other common type.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUBE_IPSET_NAMES, kubeIpsetInfo, kubeIpv6SetName, typeDimensions, type IpSet, type IpsetDump } from '../../src/core/model/ipset';
import { parseIpset } from '../../src/core/parse/ipset/parser';
import { parseMemberParts } from '../../src/core/parse/ipset/members';
import { lineRange } from '../../src/core/model/range';

const FIXTURES = resolve(__dirname, '../grammar/ipvs/fixtures');
const fixture = (name: string) => readFileSync(resolve(FIXTURES, name), 'utf8');
const codes = (d: IpsetDump) => d.diagnostics.map((x) => `${x.range.start.line + 1}:${x.code}`);
function set(d: IpsetDump, name: string): IpSet {
  const s = d.setByName.get(name);
  if (!s) throw new Error(`no set ${name}`);
  return s;
}
const memberTexts = (s: IpSet) => s.members.map((m) => m.text).sort();

describe('ipset save of a kube-proxy IPVS node', () => {
  const d = parseIpset(fixture('kube-proxy-node.ipset'));

  it('reads every set without problems', () => {
    expect(d.diagnostics).toEqual([]);
    expect(d.formats).toEqual(['save']);
    expect(d.sets.map((s) => s.name)).toEqual([
      'KUBE-LOOP-BACK',
      'KUBE-CLUSTER-IP',
      'KUBE-EXTERNAL-IP',
      'KUBE-EXTERNAL-IP-LOCAL',
      'KUBE-LOAD-BALANCER',
      'KUBE-LOAD-BALANCER-FW',
      'KUBE-LOAD-BALANCER-LOCAL',
      'KUBE-LOAD-BALANCER-SOURCE-IP',
      'KUBE-LOAD-BALANCER-SOURCE-CIDR',
      'KUBE-NODE-PORT-TCP',
      'KUBE-NODE-PORT-LOCAL-TCP',
      'KUBE-NODE-PORT-UDP',
      'KUBE-NODE-PORT-LOCAL-UDP',
      'KUBE-NODE-PORT-SCTP-HASH',
      'KUBE-NODE-PORT-LOCAL-SCTP-HASH',
      'KUBE-HEALTH-CHECK-NODE-PORT',
      'KUBE-IPVS-IPS',
      'KUBE-6-CLUSTER-IP',
      'KUBE-6-LOOP-BACK',
      'KUBE-6-LOAD-BALANCER-SOURCE-CID',
    ]);
  });

  it('KUBE-CLUSTER-IP: hash:ip,port, family inet, its options and typed members', () => {
    const s = set(d, 'KUBE-CLUSTER-IP');
    expect(s).toMatchObject({ type: 'hash:ip,port', method: 'hash', dimensions: ['ip', 'port'], family: 'inet', hashsize: 1024, maxelem: 65536, bucketsize: 12, source: 'save' });
    expect(s.initval).toMatch(/^0x[0-9a-f]{8}$/);
    expect(s.options.map((o) => o.name)).toEqual(['family', 'hashsize', 'maxelem', 'bucketsize', 'initval']);
    expect(memberTexts(s)).toEqual(['10.100.5.5,tcp:80', '10.104.20.30,tcp:80', '10.96.0.1,tcp:443', '10.96.0.10,tcp:53', '10.96.0.10,tcp:9153', '10.96.0.10,udp:53']);
    const dns = s.members.find((m) => m.text === '10.96.0.10,udp:53')!;
    expect(dns).toMatchObject({ address: '10.96.0.10', protocol: 'udp', port: 53 });
    expect(dns.parts.map((p) => [p.dimension, p.text])).toEqual([
      ['ip', '10.96.0.10'],
      ['port', 'udp:53'],
    ]);
    const line = fixture('kube-proxy-node.ipset').split('\n').indexOf('add KUBE-CLUSTER-IP 10.96.0.10,udp:53');
    expect(dns.textRange).toEqual(lineRange(line, 20, 37));
    expect(dns.parts[1].range).toEqual(lineRange(line, 31, 37));
  });

  it('hash:ip,port,ip (KUBE-LOOP-BACK) and hash:ip,port,net (KUBE-LOAD-BALANCER-SOURCE-CIDR): the third part', () => {
    const loop = set(d, 'KUBE-LOOP-BACK').members.find((m) => m.text === '10.244.1.3,udp:53,10.244.1.3')!;
    expect(loop).toMatchObject({ address: '10.244.1.3', protocol: 'udp', port: 53, address2: '10.244.1.3' });
    expect(loop.prefix2).toBeUndefined();
    const cidr = set(d, 'KUBE-LOAD-BALANCER-SOURCE-CIDR').members[0];
    expect(cidr).toMatchObject({ address: '203.0.113.40', protocol: 'tcp', port: 443, address2: '198.51.100.0', prefix2: 24 });
    expect(cidr.parts.map((p) => p.dimension)).toEqual(['ip', 'port', 'net']);
  });

  it('bitmap:port node ports with their range; SCTP node ports as hash:ip,port', () => {
    const np = set(d, 'KUBE-NODE-PORT-TCP');
    expect(np).toMatchObject({ type: 'bitmap:port', method: 'bitmap', range: { from: '0', to: '65535', text: '0-65535' } });
    expect(np.family).toBeUndefined();
    expect(np.members.map((m) => m.port)).toEqual([30080, 31443]);
    expect(np.members[0].protocol).toBeUndefined();
    expect(set(d, 'KUBE-NODE-PORT-SCTP-HASH').members[0]).toMatchObject({ address: '192.168.10.11', protocol: 'sctp', port: 31868 });
  });

  it('IPv6 sets: KUBE-6-… names, family inet6, the 31-character cut of KUBE-6-LOAD-BALANCER-SOURCE-CIDR', () => {
    const v6 = set(d, 'KUBE-6-CLUSTER-IP');
    expect(v6.family).toBe('inet6');
    expect(v6.members.map((m) => [m.address, m.protocol, m.port])).toEqual(
      expect.arrayContaining([
        ['fd00:10:96::a', 'udp', 53],
        ['fd00:10:96::a', 'tcp', 53],
      ]),
    );
    const cut = set(d, 'KUBE-6-LOAD-BALANCER-SOURCE-CID');
    expect(cut.members[0]).toMatchObject({ address: '2001:db8::40', port: 443, address2: '2001:db8:1::', prefix2: 48 });
    expect(kubeIpv6SetName('KUBE-LOAD-BALANCER-SOURCE-CIDR')).toBe('KUBE-6-LOAD-BALANCER-SOURCE-CID');
  });

  it('symbols: each set is a definition, add lines reference it', () => {
    expect(d.symbols.definitions.map((x) => x.name)).toEqual(d.sets.map((s) => s.name));
    const refs = d.symbols.referencesTo('ipset', 'ipset', 'KUBE-NODE-PORT-TCP');
    expect(refs.map((r) => r.role)).toEqual(['rule-owner', 'rule-owner']);
    const def = d.symbols.definition('ipset', 'ipset', 'KUBE-NODE-PORT-TCP')!;
    expect(def.fullRange.end.line).toBe(refs[1].range.start.line);
  });
});

describe('ipset list of the same node', () => {
  const listed = parseIpset(fixture('kube-proxy-node.list.ipset'));
  const saved = parseIpset(fixture('kube-proxy-node.ipset'));

  it('reads the listing without problems and finds the same sets and members as the save', () => {
    expect(listed.diagnostics).toEqual([]);
    expect(listed.formats).toEqual(['list']);
    const shape = (d: IpsetDump) => d.sets.map((s) => ({ name: s.name, type: s.type, family: s.family, range: s.range?.text, members: memberTexts(s) }));
    expect(shape(listed)).toEqual(shape(saved));
  });

  it('the list-only fields: revision, size in memory, references, number of entries', () => {
    const s = set(listed, 'KUBE-CLUSTER-IP');
    expect(s).toMatchObject({ source: 'list', revision: 7, references: 2, numberOfEntries: 6 });
    expect(s.sizeInMemory).toBeGreaterThan(0);
    expect(set(listed, 'KUBE-EXTERNAL-IP-LOCAL')).toMatchObject({ references: 0, numberOfEntries: 0, members: [] });
  });

  it('a set spans its Name: line to its last member; fields are indexed by line', () => {
    const lines = fixture('kube-proxy-node.list.ipset').split('\n');
    const s = set(listed, 'KUBE-CLUSTER-IP');
    const start = lines.indexOf('Name: KUBE-CLUSTER-IP');
    expect(s.fullRange.start.line).toBe(start);
    expect(s.fullRange.end.line).toBe(start + 13);
    expect(listed.fieldByLine.get(start + 3)?.key).toBe('Header');
    expect(listed.setByLine.get(start + 3)).toBe(s);
    expect(listed.memberByLine.get(start + 8)?.member.text).toBe(lines[start + 8]);
  });
});

describe('the other set types', () => {
  const saved = parseIpset(fixture('misc.ipset'));
  const listed = parseIpset(fixture('misc.list.ipset'));

  it('both forms parse without problems and agree', () => {
    expect(saved.diagnostics).toEqual([]);
    expect(listed.diagnostics).toEqual([]);
    const shape = (d: IpsetDump) => d.sets.map((s) => ({ name: s.name, type: s.type, members: s.members.map((m) => ({ text: m.text, options: m.options })).sort((x, y) => x.text.localeCompare(y.text)) }));
    expect(shape(listed)).toEqual(shape(saved));
  });

  it('hash:net with timeout, counters, comments and nomatch', () => {
    const s = set(saved, 'blocklist');
    expect(s).toMatchObject({ timeout: 300, counters: true, comment: true });
    const office = s.members.find((m) => m.text === '10.1.0.0/16')!;
    expect(office.options).toEqual({ timeout: 0, nomatch: true, packets: 0, bytes: 0, comment: 'except the office' });
    expect(office).toMatchObject({ address: '10.1.0.0', prefix: 16 });
    expect(s.members.find((m) => m.text === '10.0.0.0/8')!.options).toEqual({ timeout: 0, packets: 5, bytes: 300, comment: 'rfc1918 block' });
  });

  it('hash:net,port with skbinfo; hash:ip with netmask; bitmap:ip range; hash:net,iface; icmp types; inet6; list:set', () => {
    expect(set(saved, 'web-ports').members.find((m) => m.text === '10.1.0.0/16,tcp:80')!.options).toEqual({ skbmark: '0x1/0xff', skbprio: '1:10', skbqueue: 3 });
    expect(set(saved, 'mgmt')).toMatchObject({ netmask: 24 });
    expect(set(saved, 'dmz')).toMatchObject({ type: 'bitmap:ip', family: 'inet', range: { from: '172.16.0.0', to: '172.16.0.255' } });
    const up = set(saved, 'uplinks').members.find((m) => m.text === '192.0.2.0/24,physdev:br0')!;
    expect(up.parts[1]).toMatchObject({ dimension: 'iface', address: 'br0', physdev: true });
    expect(
      set(saved, 'pingers')
        .members.map((m) => m.parts[1].icmp)
        .sort(),
    ).toEqual(['echo-request', 'fragmentation-needed']);
    expect(set(saved, 'v6-allow').members[0]).toMatchObject({ address: '2001:db8::', prefix: 32 });
    const all = set(saved, 'all-lists');
    expect(all).toMatchObject({ type: 'list:set', size: 8 });
    expect(all.members.map((m) => m.text)).toEqual(['blocklist', 'mgmt']);
    expect(saved.symbols.referencesTo('ipset', 'ipset', 'mgmt').map((r) => r.role)).toEqual(['rule-owner', 'rule-owner', 'lookup']);
    expect(listed.symbols.referencesTo('ipset', 'ipset', 'blocklist').map((r) => r.role)).toEqual(['lookup']);
  });
});

describe('restore semantics and problems', () => {
  it('what ipset restore refuses is an error on the line', () => {
    const d = parseIpset(
      [
        'add nosuch 10.0.0.1', // 1
        'create a hash:ip timeout 300', // 2
        'create a hash:ip', // 3 duplicate
        'add a 10.0.0.1 comment "x"', // 4 no comment support
        'add a 10.0.0.2 packets 1 bytes 2', // 5 no counters
        'add a 10.0.0.3 nomatch', // 6 not a net type
        'add a 10.0.0.4 skbmark 0x1', // 7 no skbinfo
        'add a fd00::1', // 8 wrong family
        'add a 10.0.0.300', // 9 not an address
        'create p hash:ip,port', // 10
        'add p 10.0.0.1', // 11 missing port part
        'add p 10.0.0.1,tcp:99999', // 12 bad port
        'add p 10.0.0.1,gre:5', // 13 unknown protocol
        'create b bitmap:port', // 14 missing range
        'create c bitmap:port range 1000-2000', // 15
        'add c 5000', // 16 out of range
        'create d hash:net family inet9', // 17 bad family
        'create e hash:net netmask 24', // 18 option not for the type
        'create f hash:ip bogus', // 19 unknown option
        'add a 10.0.0.5 bogus', // 20 unknown element option
        'create g list:set', // 21
        'add g nosuch before a', // 22 member set does not exist
        'create n hash:net', // 23
        'add n 10.0.0.0/0', // 24 prefix 0
        'add n 10.0.0.0/33', // 25 prefix too long
        'create THIS-NAME-IS-MUCH-LONGER-THAN-31-CHARS hash:ip', // 26
        'add a 10.0.0.1 timeout', // 27 missing value
        'del a 10.9.9.9', // 28 not a member
        'add', // 29 no name
        'swap a', // 30 needs two names
        'add a', // 31 no element
        'create m hash:mac', // 32
        'add m zz:zz', // 33 not a MAC
        'create i hash:net,iface', // 34
        'add i 10.0.0.0/8,eth0-with-a-long-name', // 35 interface too long
        'create k hash:ip,mark', // 36
        'add k 10.0.0.1,0x1ffffffff', // 37 mark too big
        'add a 10.0.0.6 comment "unterminated', // 38
      ].join('\n'),
    );
    expect(codes(d)).toEqual(
      expect.arrayContaining([
        '1:undefined-set',
        '3:duplicate-set',
        '4:extension-missing',
        '5:extension-missing',
        '6:extension-missing',
        '7:extension-missing',
        '8:wrong-family',
        '9:bad-member',
        '11:bad-member',
        '12:bad-member',
        '13:bad-member',
        '14:missing-range',
        '16:out-of-range',
        '17:bad-value',
        '18:option-not-for-type',
        '19:unknown-option',
        '20:unknown-option',
        '22:undefined-set',
        '24:bad-member',
        '25:bad-member',
        '26:name-too-long',
        '27:missing-value',
        '28:not-a-member',
        '29:missing-name',
        '30:missing-name',
        '31:missing-member',
        '33:bad-member',
        '35:bad-member',
        '37:bad-member',
        '38:unterminated-string',
      ]),
    );
    expect(d.diagnostics.find((x) => x.code === 'undefined-set')?.severity).toBe('error');
  });

  it('del, flush, destroy, rename and swap change the end state', () => {
    const d = parseIpset(
      [
        'create a hash:ip',
        'add a 10.0.0.1',
        'add a 10.0.0.2',
        'del a 10.0.0.1',
        'create b hash:ip',
        'add b 10.0.0.9',
        'swap a b',
        'create c hash:ip',
        'add c 10.0.0.3',
        'flush c',
        'create gone hash:ip',
        'destroy gone',
        'rename c c2',
        '-A c2 10.0.0.4 -exist',
      ].join('\n'),
    );
    expect(d.diagnostics).toEqual([]);
    expect(d.sets.map((s) => [s.name, memberTexts(s)])).toEqual([
      ['a', ['10.0.0.9']],
      ['b', ['10.0.0.2']],
      ['c2', ['10.0.0.4']],
    ]);
    expect(d.commands.map((c) => c.command)).toEqual(['create', 'add', 'add', 'del', 'create', 'add', 'swap', 'create', 'add', 'flush', 'create', 'destroy', 'rename', 'add']);
  });

  it('del takes the first live copy of an element, through swaps, re-adds and a flush of every set', () => {
    const d = parseIpset(
      [
        'create a hash:ip,port timeout 100',
        'add a 10.0.0.1,tcp:80 timeout 1', // 2: the first copy (restore with -exist may repeat one)
        'add a 10.0.0.2,tcp:80',
        'add a 10.0.0.1,tcp:80 timeout 2', // 4: the second copy
        'del a 10.0.0.1,tcp:80', // takes line 2's
        'add a 10.0.0.1,tcp:80 timeout 3', // 6: a third, after the second
        'del a 10.0.0.1,tcp:80', // takes line 4's
        'create b hash:ip,port',
        'add b 10.0.0.9,tcp:80',
        'swap a b',
        'del b 10.0.0.2,tcp:80', // b holds a's members now
        'del a 10.0.0.2,tcp:80', // 12: not in a any more
        'create c hash:ip',
        'add c 10.0.0.3',
        'destroy c',
        'flush',
        'add b 10.0.0.7,tcp:80',
        'del b 10.0.0.1,tcp:80', // 18: flushed
      ].join('\n'),
    );
    expect(codes(d)).toEqual(['12:not-a-member', '18:not-a-member']);
    expect(d.sets.map((s) => [s.name, memberTexts(s)])).toEqual([
      ['a', []],
      ['b', ['10.0.0.7,tcp:80']],
    ]);
    const e = parseIpset(
      [
        'create a hash:ip,port timeout 100',
        'add a 10.0.0.1,tcp:80 timeout 1',
        'add a 10.0.0.2,tcp:80',
        'add a 10.0.0.1,tcp:80 timeout 2',
        'del a 10.0.0.1,tcp:80',
        'add a 10.0.0.1,tcp:80 timeout 3',
        'del a 10.0.0.1,tcp:80',
      ].join('\n'),
    );
    expect(set(e, 'a').members.map((m) => [m.text, m.line])).toEqual([
      ['10.0.0.2,tcp:80', 2],
      ['10.0.0.1,tcp:80', 5],
    ]);
  });

  it('hints and warnings: host names, list:set members outside the file, kube-proxy sets with the wrong type or family, a cut listing', () => {
    const d = parseIpset(
      ['create h hash:ip', 'add h example.com', 'create KUBE-CLUSTER-IP hash:ip', 'create KUBE-6-CLUSTER-IP hash:ip,port family inet', 'create KUBE-NODE-PORT-TCP hash:ip,port family inet6'].join('\n'),
    );
    expect(codes(d)).toEqual(['2:hostname', '3:kube-set-type', '4:kube-set-family', '5:kube-set-type', '5:kube-set-family']);
    const l = parseIpset('Name: L\nType: list:set\nNumber of entries: 3\nMembers:\nelsewhere\n');
    expect(codes(l)).toEqual(['1:entry-count', '5:set-not-in-file']);
  });

  it('listing structure: fields before a Name:, a missing Type:, sets listed twice, prose and prompts', () => {
    const d = parseIpset(
      ['[root@node1 ~]# ipset list', 'Type: hash:ip', 'Name: a', 'Members:', '', 'Name: a', 'Type: hash:ip', 'Revision: x', 'Members:', '10.0.0.1', 'Looks like the set is empty?', '# comment lines are allowed'].join(
        '\n',
      ),
    );
    expect(codes(d)).toEqual(['1:shell-prompt', '2:field-without-set', '3:missing-type', '6:duplicate-set', '8:bad-field', '11:not-ipset']);
  });

  it('prose outside a listing is not ipset', () => {
    const d = parseIpset('create a hash:ip\nSo the set above is what kube-proxy made.\n$ ipset save\n');
    expect(codes(d)).toEqual(['2:not-ipset', '3:shell-prompt']);
  });

  it('ipset list -t (headers only) has no Members: section and no count check', () => {
    const d = parseIpset('Name: KUBE-CLUSTER-IP\nType: hash:ip,port\nRevision: 7\nHeader: family inet hashsize 1024 maxelem 65536\nSize in memory: 504\nReferences: 2\nNumber of entries: 6\n');
    expect(d.diagnostics).toEqual([]);
    expect(d.sets[0]).toMatchObject({ numberOfEntries: 6, members: [] });
  });

  it('caps the number of diagnostics; CRLF; empty text', () => {
    const d = parseIpset(Array.from({ length: 1200 }, () => 'prose prose').join('\n'));
    expect(d.diagnostics).toHaveLength(1001);
    expect(d.diagnostics[1000].code).toBe('too-many-problems');
    const crlf = parseIpset('create a hash:ip\r\nadd a 10.0.0.1\r\n');
    expect(crlf.diagnostics).toEqual([]);
    expect(crlf.sets[0].members[0].text).toBe('10.0.0.1');
    expect(parseIpset('').sets).toEqual([]);
  });
});

describe('member parts and kube-proxy knowledge', () => {
  const r = lineRange(0, 10, 30);
  it('typed parts by set type: ranges, port ranges, default protocol, ICMP, MAC, bitmap:ip,mac without MAC', () => {
    expect(parseMemberParts('10.0.0.1-10.0.0.9', r, 'hash:ip', 'inet').parts[0]).toMatchObject({ address: '10.0.0.1', addressTo: '10.0.0.9' });
    expect(parseMemberParts('10.0.0.1,udp:53-55', r, 'hash:ip,port', 'inet').parts[1]).toMatchObject({ protocol: 'udp', port: 53, portTo: 55 });
    expect(parseMemberParts('10.0.0.1,80', r, 'hash:ip,port', 'inet').parts[1]).toMatchObject({ protocol: 'tcp', port: 80 });
    expect(parseMemberParts('10.0.0.1,http', r, 'hash:ip,port', 'inet').parts[1]).toMatchObject({ port: 80 });
    expect(parseMemberParts('10.0.0.1,icmp:8/0', r, 'hash:ip,port', 'inet').parts[1]).toMatchObject({ protocol: 'icmp', icmp: '8/0' });
    expect(parseMemberParts('10.0.0.0/8,tcp:80,10.1.0.0/16', r, 'hash:net,port,net', 'inet').parts.map((p) => p.prefix)).toEqual([8, undefined, 16]);
    expect(parseMemberParts('10.0.0.1', r, 'bitmap:ip,mac', 'inet').problems).toEqual([]);
    expect(parseMemberParts('aa:bb:cc:dd:ee:ff', r, 'hash:mac', undefined).parts[0]).toMatchObject({ dimension: 'mac', address: 'aa:bb:cc:dd:ee:ff' });
    expect(parseMemberParts('10.0.0.1,0x10', r, 'hash:ip,mark', 'inet').parts[1]).toMatchObject({ mark: 16 });
    expect(parseMemberParts('x', r, 'hash:unknown', 'inet')).toEqual({ parts: [], problems: [] });
    const ranged = parseMemberParts('10.0.0.1,udp:53', r, 'hash:ip,port', 'inet').parts;
    expect(ranged.map((p) => [p.range.start.character, p.range.end.character])).toEqual([
      [10, 18],
      [19, 25],
    ]);
  });

  it('typeDimensions knows every ipset 7 type', () => {
    expect(typeDimensions('hash:ip,port,net')).toEqual({ method: 'hash', dimensions: ['ip', 'port', 'net'] });
    expect(typeDimensions('list:set')).toEqual({ method: 'list', dimensions: ['set'] });
    expect(typeDimensions('hash:foo')).toBeUndefined();
  });

  it('kube-proxy set table: types from pkg/proxy/ipvs, IPv6 twins', () => {
    expect(KUBE_IPSET_NAMES).toHaveLength(17);
    expect(kubeIpsetInfo('KUBE-CLUSTER-IP')).toMatchObject({ type: 'hash:ip,port', family: 'inet', match: 'dst,dst' });
    expect(kubeIpsetInfo('KUBE-LOOP-BACK')).toMatchObject({ type: 'hash:ip,port,ip', match: 'dst,dst,src' });
    expect(kubeIpsetInfo('KUBE-NODE-PORT-UDP')).toMatchObject({ type: 'bitmap:port' });
    expect(kubeIpsetInfo('KUBE-NODE-PORT-LOCAL-SCTP-HASH')).toMatchObject({ type: 'hash:ip,port' });
    expect(kubeIpsetInfo('KUBE-6-NODE-PORT-LOCAL-SCTP-HAS')).toMatchObject({ family: 'inet6', base: 'KUBE-NODE-PORT-LOCAL-SCTP-HASH' });
    expect(kubeIpsetInfo('KUBE-6-HEALTH-CHECK-NODE-PORT')).toMatchObject({ family: 'inet6' });
    expect(kubeIpsetInfo('KUBE-SOMETHING')).toBeUndefined();
    for (const name of KUBE_IPSET_NAMES) expect(kubeIpv6SetName(name).length).toBeLessThanOrEqual(31);
  });
});
