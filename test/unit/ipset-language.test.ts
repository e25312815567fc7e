// ipset language features through the pure core: definition, references, outline, folding, hovers
// (set types, options, members, kube-proxy set meanings) and the status summary.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeIpset, definitionAt, describeMember, foldingRanges, hoverAt, ipsetFeatures, outline, referencesAt, statusSummary } from '../../src/core/language/ipset';
import { explainIpsetOption, explainIpsetType, explainKubeIpset } from '../../src/core/explain/ipvs';
import { KNOWN_TYPES, KUBE_IPSET_NAMES, kubeIpv6SetName } from '../../src/core/model/ipset';
import { mark } from '../helpers/markers';

const SAVE = `create <<KUBE-CLUSTER-IP>> ha<|>sh:ip,port family inet hash<|>size 1024 maxelem 65536 bucketsize 12 initval 0x9e2f4fe9
add <<KUBE-CLUSTER-IP>> 10.96.0.10,udp:5<|>3
add <<KUBE-CLUSTER-I<|>P>> 10.96.0.10,tcp:53
create KUBE-NODE-PORT-TCP bitmap:port range 0-65535
add KUBE-NODE-PORT-TCP 300<|>80
create KUBE-LOOP-BACK hash:ip,port,ip family inet hashsize 1024 maxelem 65536
add KUBE-LOOP-BACK 10.244.1.3,udp:53,10.<|>244.1.3
create blocklist hash:net family inet hashsize 1024 maxelem 65536 timeout 300 counters comment
add blocklist 10.1.0.0/16 timeout 0 nomatch packets 0 bytes 0 comment "except the off<|>ice"
create all hash:ip
create lists list:set size 8
add lists <<KUBE-CLUSTER-<|>IP>>
flu<|>sh blocklist
`;
// Cursors: 0 type, 1 hashsize, 2 member udp:53, 3 add's set name (reference), 4 node port member,
// 5 loop-back member, 6 blocklist member comment, 7 list:set member, 8 flush keyword.
// Ranges: 0 definition, 1-2 add references, 3 list:set member reference.
const fx = mark(SAVE);
const a = analyzeIpset(fx.text);
const hover = (k: number) => hoverAt(a, fx.cursors[k])?.markdown ?? '';

describe('navigation', () => {
  it('analyses without problems', () => {
    expect(a.diagnostics).toEqual([]);
  });

  it('F12 on an add line or a list:set member lands on the create line', () => {
    expect(definitionAt(a, fx.cursors[3])?.range).toEqual(fx.ranges[0]);
    expect(definitionAt(a, fx.cursors[7])?.range).toEqual(fx.ranges[0]);
    expect(definitionAt(a, fx.cursors[2])).toBeUndefined();
  });

  it('references: add lines and list:set members', () => {
    expect(referencesAt(a, fx.cursors[3], true)).toEqual(fx.ranges);
    expect(referencesAt(a, fx.cursors[7], false)).toEqual(fx.ranges.slice(1));
    expect(referencesAt(a, fx.cursors[2], true)).toEqual([]);
  });

  it('ipset list: the Name: line is the definition', () => {
    const list = mark('Name: <<KUBE-CLUSTER-IP>>\nType: hash:ip,port\nMembers:\n10.96.0.10,udp:53\n\nName: L\nType: list:set\nMembers:\n<<KUBE-CLUSTER-<|>IP>>\n');
    const l = analyzeIpset(list.text);
    expect(l.diagnostics).toEqual([]);
    expect(definitionAt(l, list.cursors[0])?.range).toEqual(list.ranges[0]);
    expect(referencesAt(l, list.cursors[0], true)).toEqual(list.ranges);
  });
});

describe('outline and folding', () => {
  it('sets with type and member counts; list:set members as children', () => {
    const items = outline(a);
    expect(items.map((i) => [i.name, i.detail])).toEqual([
      ['KUBE-CLUSTER-IP', 'hash:ip,port · 2 members'],
      ['KUBE-NODE-PORT-TCP', 'bitmap:port · 1 member'],
      ['KUBE-LOOP-BACK', 'hash:ip,port,ip · 1 member'],
      ['blocklist', 'hash:net · 0 members'], // flushed by the last line
      ['all', 'hash:ip · 0 members'],
      ['lists', 'list:set · 1 member'],
    ]);
    expect(items[0].selectionRange).toEqual(fx.ranges[0]);
    expect(items[5].children.map((c) => c.name)).toEqual(['KUBE-CLUSTER-IP']);
  });

  it('folds each set from create to its last add line; the listing of a real node folds per set', () => {
    expect(foldingRanges(a)).toEqual([
      { start: 0, end: 2 },
      { start: 3, end: 4 },
      { start: 5, end: 6 },
      { start: 7, end: 8 },
      { start: 10, end: 11 },
    ]);
    const listed = analyzeIpset(readFileSync(resolve(__dirname, '../grammar/ipvs/fixtures/kube-proxy-node.list.ipset'), 'utf8'));
    const folds = foldingRanges(listed);
    expect(folds).toHaveLength(20);
    expect(folds[0]).toEqual({ start: 0, end: 11 });
    expect(outline(listed).find((i) => i.name === 'KUBE-6-CLUSTER-IP')?.detail).toBe('hash:ip,port · IPv6 · 2 members');
  });
});

describe('hovers', () => {
  it('set type', () => {
    expect(hover(0)).toContain('hash:ip,port stores address + protocol:port pairs');
  });

  it('create options', () => {
    expect(hover(1)).toContain('hashsize 1024');
  });

  it('a KUBE-CLUSTER-IP member: a Service frontend', () => {
    const text = hover(2);
    expect(text).toContain('`10.96.0.10,udp:53` — member of KUBE-CLUSTER-IP');
    expect(text).toContain('address `10.96.0.10`, UDP port `53`');
    expect(text).toContain('a Service frontend');
  });

  it("a set name: type, member count and kube-proxy's meaning of the set", () => {
    const text = hover(3);
    expect(text).toContain('**KUBE-CLUSTER-IP**');
    expect(text).toContain('2 members');
    expect(text).toContain('Every Service ClusterIP and port');
    expect(text).toContain('Kubernetes service cluster ip + port for masquerade purpose');
  });

  it('node port and hairpin members', () => {
    expect(hover(4)).toContain('a node port');
    expect(hover(5)).toContain('hairpin');
    expect(hover(5)).toContain('address `10.244.1.3`, UDP port `53`, address `10.244.1.3`');
  });

  it('member options: nomatch, counters, comment', () => {
    const text = hover(6);
    expect(text).toContain('network `10.1.0.0/16`');
    expect(text).toContain('nomatch');
    expect(text).toContain('comment `except the office`');
  });

  it('list:set member and commands', () => {
    expect(hover(7)).toContain('KUBE-CLUSTER-IP');
    expect(hover(8)).toContain('flush');
  });

  it('ipset list fields', () => {
    const l = analyzeIpset('Name: a\nType: hash:ip\nReferences: 0\nHeader: family inet maxelem 10\n');
    expect(hoverAt(l, { line: 2, character: 2 })?.markdown).toContain('iptables rules');
    expect(hoverAt(l, { line: 3, character: 24 })?.markdown).toContain('maxelem 10');
    expect(hoverAt(l, { line: 0, character: 7 })?.markdown).toContain('**a**');
  });

  it("a set that is not in the file still explains kube-proxy's meaning", () => {
    const l = analyzeIpset('create L list:set\nadd L KUBE-NODE-PORT-TCP\n');
    expect(hoverAt(l, { line: 1, character: 10 })?.markdown).toContain('TCP node ports');
  });
});

describe('status and registry shape', () => {
  it('statusSummary counts sets and members', () => {
    expect(statusSummary(a)).toEqual({ dialect: 'ipset', backend: 'ipset', family: 'ipv4', tables: 0, chains: 6, rules: 5, services: 0, errors: 0, warnings: 0 });
  });

  it('ipsetFeatures is a LanguageFeatures for the ipset language; services() is empty for now', () => {
    expect(ipsetFeatures.languageId).toBe('ipset');
    expect(ipsetFeatures.services(ipsetFeatures.analyze(fx.text))).toEqual([]);
  });
});

describe('explanations', () => {
  it('every set type and every kube-proxy set (IPv4 and IPv6) is explained', () => {
    for (const type of KNOWN_TYPES) expect(explainIpsetType(type)).toContain(type);
    for (const name of KUBE_IPSET_NAMES) {
      const v4 = explainKubeIpset(name)!;
      const v6 = explainKubeIpset(kubeIpv6SetName(name))!;
      expect(v4.split('\n')[2].length).toBeGreaterThan(30);
      expect(v4).toContain('(IPv4)');
      expect(v6).toContain('(IPv6)');
      expect(v6).toContain('KUBE-6-…');
    }
    expect(explainKubeIpset('OTHER')).toBeUndefined();
    for (const o of ['family', 'hashsize', 'maxelem', 'bucketsize', 'initval', 'timeout', 'counters', 'comment', 'skbinfo', 'forceadd', 'netmask', 'markmask', 'range', 'size']) {
      expect(explainIpsetOption(o, '1')).toContain(o);
    }
  });

  it('describeMember of every part kind', () => {
    const l = analyzeIpset('create m hash:net,iface\nadd m 10.0.0.0/8,physdev:br0\ncreate k hash:ip,mark\nadd k 10.0.0.1,0x10\n');
    expect(describeMember(l.dump.sets[0].members[0])).toBe('network `10.0.0.0/8`, bridge port `br0`');
    expect(describeMember(l.dump.sets[1].members[0])).toBe('address `10.0.0.1`, mark `0x10`');
  });
});
