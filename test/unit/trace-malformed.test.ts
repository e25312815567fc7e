// Malformed matches in a dump never make the tracer throw: each is no match (with a parser diagnostic where the
// parser can tell, and a trace warning) or a labelled assumption, for every matcher that reads values from rule text.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile as TraceFile, type TraceResult } from '../../src/core/trace';

const analysed = (name: string, text: string) => analyzeFile(name, text)!;
const trace = (name: string, text: string, to = '10.0.0.2'): TraceResult =>
  traceSnapshot([{ name, analysis: analysed(name, text).analysis as TraceFile['analysis'] }], { to, dport: 80, protocol: 'tcp', from: to.includes(':') ? 'fd00::1' : '10.0.0.1', entry: 'pod' });
const diagnostics = (name: string, text: string) => (analysed(name, text).analysis as { diagnostics: { code: string; message: string; range: { start: { line: number; character: number } } }[] }).diagnostics;
const verdicts = (r: TraceResult) => r.outcomes.map((o) => `${o.probability} ${o.verdict}${o.assumptions.length ? ' ?' : ''}`);

const ipt = (rule: string) => ['*filter', ':FORWARD ACCEPT [0:0]', rule, 'COMMIT', ''].join('\n');
const nft = (rule: string, family = 'ip') => `table ${family} t {\n\tchain f {\n\t\ttype filter hook forward priority 0; policy accept;\n\t\t${rule}\n\t}\n}\n`;
const nftJson = (match: object, family = 'ip') =>
  JSON.stringify({
    nftables: [
      { table: { family, name: 't' } },
      { chain: { family, table: 't', name: 'f', type: 'filter', hook: 'forward', prio: 0, policy: 'accept' } },
      { rule: { family, table: 't', chain: 'f', expr: [{ match }, { drop: null }] } },
    ],
  });

/** Each malformed rule drops when it matches: the sensible outcome is the policy's accept, whole, without a throw. */
const IPTABLES_NO_MATCH = [
  '-A FORWARD -d 10.0.0.0/99 -j DROP', // prefix longer than the address
  '-A FORWARD -d 10.0.0.0/255.0.255.0 -j DROP', // a netmask with holes
  '-A FORWARD -s 300.1.1.1 -j DROP',
  '-A FORWARD -d fd00::/8 -j DROP', // IPv6 in an IPv4 table
  '-A FORWARD -d 10.0.0.0/8,10.0.0.0/99 -j DROP'.replace('10.0.0.0/8,', '11.0.0.0/8,'),
  '-A FORWARD -p tcp -m tcp --dport 90:80 -j DROP', // reversed range
  '-A FORWARD -p tcp -m tcp --dport http-alt:x -j DROP',
  '-A FORWARD -p tcp -m multiport --dports 90:80,1:2 -j DROP',
  '-A FORWARD -m mark --mark 0x1/zz -j DROP',
  '-A FORWARD -m mark --mark 0x1/0x1/0x1 -j DROP',
  '-A FORWARD -m statistic --mode random --probability 1.5 -j DROP',
  '-A FORWARD -m statistic --mode random --probability -0.5 -j DROP',
  '-A FORWARD -m statistic --mode random --probability abc -j DROP',
  '-A FORWARD -m statistic --mode random --probability NaN -j DROP',
  '-A FORWARD -m statistic --mode nth --every 0 --packet 0 -j DROP',
  '-A FORWARD -m statistic --mode nth --every 2.5 -j DROP',
  '-A FORWARD -m statistic --mode nth --every -3 -j DROP',
];

/** NAT targets with an unusable address or port: no DNAT (and no `NaN` port), never a throw. */
const IPTABLES_BAD_NAT = [
  '-A PREROUTING -j DNAT --to-destination 10.0.0.9:abc',
  '-A PREROUTING -j DNAT --to-destination 10.0.0.9:99999',
  '-A PREROUTING -j DNAT --to-destination 10.0.0.999:80',
  '-A PREROUTING -j DNAT --to-destination [fd00::zz]:80',
  '-A PREROUTING -p tcp -j REDIRECT --to-ports x',
];
const NFT_BAD_NAT = ['dnat to 10.0.0.9:99999', 'dnat to 10.0.0.999', 'dnat to ip saddr map { 10.0.0.1 : 10.0.0.999 }'];

const NFT_NO_MATCH = [
  'ip daddr . tcp dport 10.96.0.10 drop', // a concatenated key against a one-part value
  'ip daddr . tcp dport { 10.0.0.2 } drop',
  'ip daddr . tcp dport { 10.0.0.2 . 80 . 7 } drop',
  'ip daddr . tcp dport vmap { 10.0.0.2 : drop }',
  'ip daddr 10.0.0.0/99 drop',
  'ip daddr { 10.0.0.0/99 } drop',
  'ip daddr 10.0.0.9-10.0.0.1 drop', // reversed range
  'tcp dport 90-80 drop',
  'tcp dport { 90-80 } drop',
  'ip daddr fd00::2 drop', // IPv6 against an IPv4 field
  'numgen random mod 0 vmap { 0 : drop }',
  'meta mark 0x1 drop',
];

describe('malformed matches are no match, never a throw', () => {
  it.each(IPTABLES_NO_MATCH)('iptables: %s', (rule) => {
    const r = trace('m.iptables', ipt(rule));
    expect(verdicts(r)).toEqual(['1 accept']);
  });

  it.each(NFT_NO_MATCH)('nft: %s', (rule) => {
    expect(verdicts(trace('m.nft', nft(rule)))).toEqual(['1 accept']);
  });

  it.each(IPTABLES_BAD_NAT)('iptables NAT: %s', (rule) => {
    const r = trace('n.iptables', ['*nat', ':PREROUTING ACCEPT [0:0]', rule, 'COMMIT', ''].join('\n'));
    expect(verdicts(r)).toEqual(['1 accept']);
  });

  it.each(NFT_BAD_NAT)('nft NAT: %s', (rule) => {
    const text = `table ip t {\n\tchain p {\n\t\ttype nat hook prerouting priority dstnat; policy accept;\n\t\t${rule}\n\t}\n}\n`;
    expect(verdicts(trace('n.nft', text))).toEqual(['1 accept']);
  });

  it('values iptables refuses are reported by the parser and named in the trace warnings', () => {
    expect(diagnostics('m.iptables', ipt('-A FORWARD -d 10.0.0.0/99 -j DROP')).map((d) => [d.code, d.range.start.line, d.range.start.character])).toEqual([['bad-address', 2, 14]]);
    expect(diagnostics('m.iptables', ipt('-A FORWARD -m statistic --mode random --probability 1.5 -j DROP')).map((d) => d.code)).toEqual(['bad-probability']);
    for (const rule of ['-A FORWARD -m statistic --mode random --probability 1.5 -j DROP', '-A FORWARD -m statistic --mode nth --every 0 -j DROP', '-A FORWARD -m mark --mark 0x1/zz -j DROP']) {
      expect(trace('m.iptables', ipt(rule)).warnings.join(' '), rule).toMatch(/at line 3 is not a valid value: the rule is taken not to match/);
    }
    expect(trace('m.nft', nft('numgen random mod 0 vmap { 0 : drop }')).warnings.join(' ')).toMatch(/numgen mod 0 at line 4 is not a valid value/);
  });

  it('an nft prefix longer than its address is a diagnostic at its column (text, IPv6, JSON)', () => {
    const at = (d: { code: string; message: string; range: { start: { line: number; character: number } } }[]) =>
      d.filter((x) => x.code === 'bad-prefix').map((x) => [x.message, x.range.start.line, x.range.start.character]);
    expect(at(diagnostics('p.nft', nft('ip daddr 10.0.0.0/99 drop')))).toEqual([['Prefix length /99 is more than 32.', 3, 11]]);
    expect(at(diagnostics('p.nft', nft('ip6 daddr fd00::/200 drop', 'ip6')))).toEqual([['Prefix length /200 is not 0–128.', 3, 12]]);
    const json = nftJson({ op: '==', left: { payload: { protocol: 'ip', field: 'daddr' } }, right: { prefix: { addr: '10.0.0.0', len: 99 } } });
    expect(at(diagnostics('p.json', json)).map(([m]) => m)).toEqual(['Prefix length /99 is more than 32.']);
    expect(verdicts(trace('p.json', json))).toEqual(['1 accept']);
    // A valid prefix still matches.
    expect(verdicts(trace('p.nft', nft('ip daddr 10.0.0.0/8 drop')))).toEqual(['1 drop']);
    expect(at(diagnostics('p.nft', nft('ip daddr 10.0.0.0/8 drop')))).toEqual([]);
  });

  it('nft JSON: malformed concatenations, prefixes, ranges and sets are no match', () => {
    const daddr = { payload: { protocol: 'ip', field: 'daddr' } };
    const dport = { payload: { protocol: 'tcp', field: 'dport' } };
    const cases: object[] = [
      { op: '==', left: { concat: [daddr, dport] }, right: '10.96.0.10' },
      { op: '==', left: { concat: [daddr, dport] }, right: { set: ['10.0.0.2'] } },
      { op: '==', left: daddr, right: { prefix: { addr: '10.0.0.0', len: 99 } } },
      { op: '==', left: daddr, right: { prefix: { addr: 'nonsense', len: 8 } } },
      { op: '==', left: daddr, right: { range: ['10.0.0.9', '10.0.0.1'] } },
      { op: '==', left: dport, right: { range: [90, 80] } },
      { op: '==', left: daddr, right: { set: [{ prefix: { addr: '10.0.0.0', len: 99 } }] } },
    ];
    for (const match of cases) expect(verdicts(trace('j.json', nftJson(match))), JSON.stringify(match)).toEqual(['1 accept']);
  });

  it('host names in -s/-d stay labelled assumptions (iptables resolves them at load time)', () => {
    const r = trace('h.iptables', ipt('-A FORWARD -d db.example -j DROP'));
    expect(verdicts(r)).toEqual(['1 accept ?', '1 drop ?']);
  });

  it('IPv6 packets against IPv4 rules and the other way round', () => {
    expect(verdicts(trace('v.nft', nft('ip6 daddr 10.0.0.2 drop', 'ip6'), 'fd00::2'))).toEqual(['1 accept']);
    // An IPv4 field never matches an IPv6 packet (nft adds the family check to the rule).
    expect(verdicts(trace('v.nft', nft('ip daddr fd00::2 drop', 'inet'), 'fd00::2'))).toEqual(['1 accept']);
    expect(verdicts(trace('v.iptables', ipt('-A FORWARD -d 10.0.0.2/32 -j DROP').replace('*filter', '*filter'), 'fd00::2'))).toEqual(['1 accept']);
  });

  it('dataplane trace answers for each, without a stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dataplane-malformed-'));
    const inputs: [string, string][] = [
      ...IPTABLES_NO_MATCH.map((r, i): [string, string] => [`m${i}.iptables`, ipt(r)]),
      ...NFT_NO_MATCH.map((r, i): [string, string] => [`m${i}.nft`, nft(r)]),
      ['j.json', nftJson({ op: '==', left: { payload: { protocol: 'ip', field: 'daddr' } }, right: { prefix: { addr: '10.0.0.0', len: 99 } } })],
    ];
    for (const [name, text] of inputs) {
      const file = join(dir, name);
      writeFileSync(file, text);
      for (const json of [[], ['--json']]) {
        const out: string[] = [];
        const err: string[] = [];
        const code = run(
          ['trace', file, '--to', '10.0.0.2:80/tcp', '--from', '10.0.0.1', '--entry', 'pod', ...json],
          (s) => out.push(s),
          (s) => err.push(s),
        );
        expect(code, `${name}: ${err.join(' ')}`).toBeLessThanOrEqual(1);
        expect(err.join('\n')).not.toMatch(/ at .*\.ts:\d+|RangeError|TypeError/);
        if (json.length) expect((JSON.parse(out.join('\n')) as { outcomes: { verdict: string }[] }).outcomes.map((o) => o.verdict)).toEqual(['accept']);
        else expect(out.join('\n')).toMatch(/100%\s+ACCEPT/);
      }
    }
  });
});
