// `nft -j list ruleset` JSON into the same nft model as the text parser, with ranges into the JSON text.
import { describe, expect, it } from 'vitest';
import type { NftMatchStatement, NftRuleset } from '../../src/core/model/nft';
import { formatDuration, parseNftJson } from '../../src/core/parse/nft/json';
import { LineIndex, readJson } from '../../src/core/parse/nft/jsonReader';
import { parseNft } from '../../src/core/parse/nft/parser';
import { mark } from '../helpers/markers';

const problems = (r: NftRuleset) => r.diagnostics.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.severity} ${d.code}`);

// What `nft -j list ruleset` prints for a small kube-proxy table (pretty-printed, one object per line).
const JSON_DUMP = `{"nftables": [
{"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}},
{"table": {"family": "ip", "name": "<<kube-proxy>>", "handle": 1}},
{"set": {"family": "ip", "name": "cluster-ips", "table": "kube-proxy", "type": "ipv4_addr", "handle": 1, "comment": "Active ClusterIPs", "elem": ["172.30.0.41", "172.30.0.42"]}},
{"map": {"family": "ip", "name": "service-ips", "table": "kube-proxy", "type": ["ipv4_addr", "inet_proto", "inet_service"], "handle": 6, "map": "verdict", "elem": [[{"concat": ["172.30.0.41", "tcp", 80]}, {"goto": {"target": "<<svc1>>"}}], [{"elem": {"val": {"concat": ["172.30.0.42", "tcp", 80]}, "comment": "ns2/svc2:p80"}}, {"drop": null}]]}},
{"set": {"family": "ip", "name": "affinity", "table": "kube-proxy", "type": "ipv4_addr", "handle": 8, "size": 65535, "flags": ["timeout"], "timeout": 10800}},
{"chain": {"family": "ip", "table": "kube-proxy", "name": "nat-prerouting", "handle": 20, "type": "nat", "hook": "prerouting", "prio": -100, "policy": "accept"}},
{"chain": {"family": "ip", "table": "kube-proxy", "name": "<<svc1>>", "handle": 25}},
{"chain": {"family": "ip", "table": "kube-proxy", "name": "ep1", "handle": 26}},
{"chain": {"family": "ip", "table": "kube-proxy", "name": "mark-for-masquerade", "handle": 16}},
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "nat-prerouting", "handle": 30, "expr": [{"vmap": {"key": {"concat": [{"payload": {"protocol": "ip", "field": "daddr"}}, {"meta": {"key": "l4proto"}}, {"payload": {"protocol": "th", "field": "dport"}}]}, "data": "@service-ips"}}]}},
<<{"rule": {"family": "ip", "table": "kube-proxy", "chain": "svc1", "handle": 31, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "daddr"}}, "right": "172.30.0.41"}}, {"match": {"op": "!=", "left": {"payload": {"protocol": "ip", "field": "saddr"}}, "right": {"prefix": {"addr": "10.0.0.0", "len": 8}}}}, {"jump": {"target": "mark-for-masquerade"}}]}}>>,
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "svc1", "handle": 32, "expr": [{"vmap": {"key": {"numgen": {"mode": "random", "mod": 1, "offset": 0}}, "data": {"set": [[0, {"goto": {"target": "ep1"}}]]}}}]}},
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "ep1", "handle": 33, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "saddr"}}, "right": "10.180.0.1"}}, {"jump": {"target": "mark-for-masquerade"}}]}},
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "ep1", "handle": 34, "expr": [{"set": {"op": "update", "elem": {"payload": {"protocol": "ip", "field": "saddr"}}, "set": "@affinity"}}]}},
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "ep1", "handle": 35, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "l4proto"}}, "right": "tcp"}}, {"dnat": {"addr": "10.180.0.1", "port": 80}}]}},
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "mark-for-masquerade", "handle": 36, "expr": [{"mangle": {"key": {"meta": {"key": "mark"}}, "value": {"|": [{"meta": {"key": "mark"}}, 16384]}}}]}},
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "mark-for-masquerade", "handle": 37, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": ["established", "related"]}}, {"notrack": null}, {"counter": {"packets": 3, "bytes": 180}}, {"masquerade": {"flags": "fully-random"}}], "comment": "masquerade"}},
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "mark-for-masquerade", "handle": 38, "expr": [{"match": {"op": "==", "left": {"fib": {"result": "type", "flags": ["daddr"]}}, "right": "local"}}, {"reject": {"type": "icmp", "expr": "port-unreachable"}}]}},
{"rule": {"family": "ip", "table": "kube-proxy", "chain": "mark-for-masquerade", "handle": 39, "expr": [{"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": "invalid"}}, {"xt": {"type": "match", "name": "nfacct"}}, {"drop": null}]}},
{"element": {"family": "ip", "table": "kube-proxy", "name": "cluster-ips", "elem": {"set": ["172.30.0.43"]}}}
]}
`;

describe('nft -j list ruleset', () => {
  const fixture = mark(JSON_DUMP);
  const r = parseNftJson(fixture.text);
  const t = r.tables[0];

  it('reads tables, sets, maps, chains and rules without problems', () => {
    expect(problems(r)).toEqual([]);
    expect(r).toMatchObject({ dialect: 'nftables', format: 'json', producer: 'nft v1.0.6' });
    expect(t).toMatchObject({ id: 'ip kube-proxy', handle: 1, declared: true });
    expect(t.nameRange).toEqual(fixture.ranges[0]);
    expect(t.chains.map((c) => [c.name, c.rules.length])).toEqual([
      ['nat-prerouting', 1],
      ['svc1', 2],
      ['ep1', 3],
      ['mark-for-masquerade', 4],
    ]);
    expect(t.chainByName.get('nat-prerouting')).toMatchObject({ type: 'nat', hook: 'prerouting', policy: 'accept', priority: { value: -100, text: '-100' } });
    expect(t.setByName.get('cluster-ips')).toMatchObject({ keyType: ['ipv4_addr'], comment: 'Active ClusterIPs' });
    expect(t.setByName.get('cluster-ips')!.elements.map((e) => e.key)).toEqual([['172.30.0.41'], ['172.30.0.42'], ['172.30.0.43']]);
    expect(t.setByName.get('affinity')).toMatchObject({ size: 65535, flags: ['timeout'], timeout: '3h' });
  });

  it('reads map elements with concatenated keys, comments and verdicts', () => {
    const map = t.mapByName.get('service-ips')!;
    expect(map).toMatchObject({ keyType: ['ipv4_addr', 'inet_proto', 'inet_service'], dataType: ['verdict'] });
    expect(map.elements[0]).toMatchObject({ key: ['172.30.0.41', 'tcp', '80'], value: { kind: 'goto', chain: 'svc1', chainRange: fixture.ranges[1] } });
    expect(map.elements[1]).toMatchObject({ key: ['172.30.0.42', 'tcp', '80'], value: { kind: 'drop' }, comment: 'ns2/svc2:p80' });
  });

  it('types the statements like the text parser', () => {
    const kinds = (chain: string) => t.chainByName.get(chain)!.rules.map((x) => x.statements.map((s) => s.kind).join(' '));
    expect(kinds('nat-prerouting')).toEqual(['vmap']);
    expect(kinds('svc1')).toEqual(['match match verdict', 'vmap']);
    expect(kinds('ep1')).toEqual(['match verdict', 'setUpdate', 'match nat']);
    expect(kinds('mark-for-masquerade')).toEqual(['mark', 'match raw counter nat comment', 'match reject', 'match xt verdict']);
    const [svc, lb] = t.chainByName.get('svc1')!.rules;
    expect(svc.statements[1]).toMatchObject({ kind: 'match', op: '!=', negated: true, right: { kind: 'prefix', address: '10.0.0.0', length: 8 }, text: 'ip saddr != 10.0.0.0/8' });
    expect(svc.statements[2]).toMatchObject({ kind: 'verdict', verdict: 'jump', chain: 'mark-for-masquerade' });
    expect(lb.statements[0]).toMatchObject({ kind: 'vmap', key: { kind: 'numgen', mode: 'random', mod: 1, offset: 0 }, map: { kind: 'set', elements: [{ key: ['0'], value: { kind: 'goto', chain: 'ep1' } }] } });
    const ep = t.chainByName.get('ep1')!.rules;
    expect(ep[1].statements[0]).toMatchObject({ kind: 'setUpdate', op: 'update', set: 'affinity', key: { kind: 'payload', field: 'saddr' } });
    expect(ep[2].statements[1]).toMatchObject({ kind: 'nat', type: 'dnat', addr: { value: '10.180.0.1' }, port: { value: '80' } });
    const mm = t.chainByName.get('mark-for-masquerade')!.rules;
    expect(mm[0].statements[0]).toMatchObject({ kind: 'mark', target: 'meta mark', value: { kind: 'binop', op: '|', right: { value: '16384' } } });
    expect(mm[1].statements[0]).toMatchObject({ op: 'in', right: { kind: 'list', values: ['established', 'related'] } });
    expect(mm[1].statements[2]).toMatchObject({ kind: 'counter', packets: 3, bytes: 180 });
    expect(mm[1].statements[3]).toMatchObject({ kind: 'nat', type: 'masquerade', flags: ['fully-random'] });
    expect(mm[1]).toMatchObject({ comment: 'masquerade', handle: 37 });
    expect(mm[2].statements).toMatchObject([{ left: { kind: 'fib', flags: ['daddr'], result: 'type' } }, { kind: 'reject', type: 'icmp', code: 'port-unreachable' }]);
    expect((mm[3].statements[0] as NftMatchStatement).op).toBe('in');
    expect(mm[3].statements[1]).toMatchObject({ kind: 'xt', type: 'match', name: 'nfacct' });
  });

  it('points ranges at the JSON objects', () => {
    const rule = t.chainByName.get('svc1')!.rules[0];
    expect(rule.range).toEqual(fixture.ranges[3]);
    expect(r.ruleByLine.get(fixture.ranges[3].start.line)).toBe(rule);
    const jump = rule.statements[2];
    const line = fixture.text.split('\n')[jump.range.start.line];
    expect(line.slice(jump.range.start.character, jump.range.end.character)).toBe('{"jump": {"target": "mark-for-masquerade"}}');
    expect(r.symbols.definition('chain', 'ip kube-proxy', 'svc1')!.range).toEqual(fixture.ranges[2]);
    expect(r.symbols.resolve(fixture.ranges[1].start)!.range).toEqual(fixture.ranges[2]);
    expect(r.symbols.referencesTo('map', 'ip kube-proxy', 'service-ips').map((x) => x.role)).toEqual(['lookup']);
    expect(r.symbols.referencesTo('chain', 'ip kube-proxy', 'ep1').map((x) => x.role)).toEqual(['goto', 'rule-owner', 'rule-owner', 'rule-owner']);
  });

  it('gives the same tables, chains, rule kinds and elements as the text form of the same ruleset', () => {
    const text = parseNft(`table ip kube-proxy {
\tset cluster-ips { type ipv4_addr; comment "Active ClusterIPs"; elements = { 172.30.0.41, 172.30.0.42, 172.30.0.43 } }
\tmap service-ips { type ipv4_addr . inet_proto . inet_service : verdict; elements = { 172.30.0.41 . tcp . 80 : goto svc1, 172.30.0.42 . tcp . 80 comment "ns2/svc2:p80" : drop } }
\tset affinity { type ipv4_addr; size 65535; flags timeout; timeout 3h; }
\tchain nat-prerouting { type nat hook prerouting priority dstnat; policy accept; ip daddr . meta l4proto . th dport vmap @service-ips; }
\tchain svc1 { ip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade; numgen random mod 1 vmap { 0 : goto ep1 } }
\tchain ep1 { ip saddr 10.180.0.1 jump mark-for-masquerade; update @affinity { ip saddr }; meta l4proto tcp dnat to 10.180.0.1:80 }
\tchain mark-for-masquerade {
\t\tmeta mark set meta mark | 0x00004000
\t\tct state established,related notrack counter packets 3 bytes 180 masquerade fully-random comment "masquerade"
\t\tfib daddr type local reject with icmp type port-unreachable
\t\tct state invalid xt match nfacct drop
\t}
}`);
    const shape = (x: NftRuleset) =>
      x.tables.map((tb) => ({
        id: tb.id,
        chains: tb.chains.map((c) => [c.name, c.hook, c.priority?.value, c.rules.map((rule) => rule.statements.map((s) => (s.kind === 'match' ? `${s.left.kind}${s.op}${s.negated}${s.right.kind}` : s.kind)))]),
        sets: [...tb.sets, ...tb.maps].map((s) => [s.kind, s.name, s.keyType, s.timeout, s.elements.map((e) => [e.key, e.value && typeof e.value !== 'string' ? e.value.kind : e.value, e.comment])]),
      }));
    expect(shape(r)).toEqual(shape(text));
  });
});

describe('JSON robustness', () => {
  it('malformed JSON gets one diagnostic at its line and column', () => {
    const r = parseNftJson('{"nftables": [\n  {"table": {"family": "ip" "name": "t"}}\n]}');
    expect(problems(r)).toEqual(['2:29 error bad-json']);
    expect(r.diagnostics[0].message).toContain('line 2, column 29');
    expect(r.tables).toEqual([]);
    expect(problems(parseNftJson('{"nftables": [')).map((p) => p.split(' ')[2])).toEqual(['bad-json']);
    expect(problems(parseNftJson('{"nftables": "x"} trailing'))).toEqual(['1:19 error bad-json']);
    expect(problems(parseNftJson('['.repeat(100_000)))).toHaveLength(1);
  });

  it('the bad-json range stays inside the document: at the end of the text, at a line break', () => {
    const at = (text: string) => parseNftJson(text).diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character]);
    expect(at('{"nftables": [')).toEqual([['bad-json', 0, 14, 0, 14]]);
    expect(at('{"nftables": [\n')).toEqual([['bad-json', 0, 14, 0, 14]]);
    // A line break inside a string is the error: the range ends at its line's end.
    expect(at('{"nftables": [{"metainfo": {"version": "1.\n0"}}]}')).toEqual([['bad-json', 0, 42, 0, 42]]);
    expect(at('{"nftables": [{"metainfo": {"version": "1.\r\n0"}}]}')).toEqual([['bad-json', 0, 42, 0, 42]]);
    expect(at('{"nftables": "x"} trailing')).toEqual([['bad-json', 0, 18, 0, 19]]);
  });

  it('JSON that is not an nft ruleset, and objects it does not know', () => {
    expect(problems(parseNftJson('{"something": []}'))).toEqual(['1:1 error not-nft-json']);
    expect(problems(parseNftJson('{"nftables": [1, {"table": {"family": "ipx", "name": "t"}}, {"tunnel": {}}]}'))).toEqual(['1:15 error bad-json-object', '1:18 error bad-family', '1:61 warning unknown-json-object']);
  });

  it('nft -j -f input: rules inserted before a handle, replaced and deleted by handle, numbered in the end order', () => {
    const rule = (verb: string, expr: string, more: object = {}) => ({ [verb]: { rule: { family: 'ip', table: 't', chain: 'c', expr: [{ [expr]: null }], ...more } } });
    const r = parseNftJson(
      JSON.stringify({
        nftables: [
          { table: { family: 'ip', name: 't' } },
          { chain: { family: 'ip', table: 't', name: 'c' } },
          ...[1, 2, 3].map((handle) => ({ rule: { family: 'ip', table: 't', chain: 'c', handle, expr: [{ accept: null }] } })),
          rule('insert', 'drop', { position: 2 }),
          rule('insert', 'reject'),
          rule('replace', 'notrack', { handle: 3 }),
          rule('delete', 'accept', { handle: 1 }),
          rule('add', 'masquerade'),
          rule('insert', 'queue', { position: 99 }),
        ],
      }),
    );
    expect(r.tables[0].chains[0].rules.map((x) => `${x.index}:${x.raw}:${x.handle ?? ''}`)).toEqual(['1:queue:', '2:reject:', '3:drop:', '4:accept:2', '5:notrack:3', '6:masquerade:']);
    // A handle given twice: replace takes the first in the chain, and the rule put there is first from then on.
    const twice = parseNftJson(
      JSON.stringify({
        nftables: [
          { table: { family: 'ip', name: 't' } },
          { chain: { family: 'ip', table: 't', name: 'c' } },
          ...['accept', 'drop'].map((expr) => ({ rule: { family: 'ip', table: 't', chain: 'c', handle: 3, expr: [{ [expr]: null }] } })),
          rule('replace', 'reject', { handle: 3 }),
          rule('replace', 'notrack', { handle: 3 }),
          rule('insert', 'queue', { position: 3 }),
        ],
      }),
    );
    expect(twice.tables[0].chains[0].rules.map((x) => x.raw)).toEqual(['queue', 'notrack', 'drop']);
  });

  it('nft -j -f input: add, insert, delete and flush commands', () => {
    const r = parseNftJson(
      JSON.stringify({
        nftables: [
          { add: { table: { family: 'inet', name: 'f' } } },
          { add: { chain: { family: 'inet', table: 'f', name: 'c' } } },
          { add: { rule: { family: 'inet', table: 'f', chain: 'c', handle: 1, expr: [{ accept: null }] } } },
          { insert: { rule: { family: 'inet', table: 'f', chain: 'c', expr: [{ drop: null }] } } },
          { add: { table: { family: 'ip', name: 'gone' } } },
          { delete: { table: { family: 'ip', name: 'gone' } } },
          { add: { set: { family: 'inet', table: 'f', name: 's', type: 'ipv4_addr' } } },
          { add: { element: { family: 'inet', table: 'f', name: 's', elem: ['1.1.1.1', { prefix: { addr: '10.0.0.0', len: 8 } }, { range: ['1.0.0.1', '1.0.0.9'] }] } } },
        ],
      }),
    );
    expect(problems(r)).toEqual([]);
    expect(r.tables.map((x) => x.id)).toEqual(['inet f']);
    expect(r.tables[0].chains[0].rules.map((x) => x.raw)).toEqual(['drop', 'accept']);
    expect(r.tables[0].sets[0].elements.map((e) => e.key)).toEqual([['1.1.1.1'], ['10.0.0.0/8'], ['1.0.0.1-1.0.0.9']]);
    expect(r.commands.map((c) => `${c.verb} ${c.object}`)).toEqual(['add table', 'add chain', 'add rule', 'insert rule', 'add table', 'delete table', 'add set', 'add element']);
    const flushed = parseNftJson('{"nftables": [{"table": {"family": "ip", "name": "t"}}, {"flush": {"ruleset": null}}]}');
    expect(flushed.tables).toEqual([]);
  });

  it('undefined chains and sets, base-chain jumps', () => {
    const r = parseNftJson(
      JSON.stringify({
        nftables: [
          { table: { family: 'ip', name: 't' } },
          { chain: { family: 'ip', table: 't', name: 'in', type: 'filter', hook: 'input', prio: 0, policy: 'drop' } },
          { chain: { family: 'ip', table: 't', name: 'c' } },
          { rule: { family: 'ip', table: 't', chain: 'c', expr: [{ jump: { target: 'nowhere' } }] } },
          { rule: { family: 'ip', table: 't', chain: 'c', expr: [{ match: { op: '==', left: { payload: { protocol: 'ip', field: 'saddr' } }, right: '@nope' } }] } },
          { rule: { family: 'ip', table: 't', chain: 'c', expr: [{ goto: { target: 'in' } }] } },
        ],
      }),
    );
    expect(r.diagnostics.map((d) => d.code)).toEqual(['undefined-chain', 'undefined-set', 'jump-to-base-chain']);
  });

  it('position-keeping JSON reader and line index', () => {
    const text = '{\r\n "a": [1, "x\\"y", true, null, -2.5e3],\n "b": {}\n}';
    const { value } = readJson(text);
    expect(value?.t).toBe('object');
    if (value?.t !== 'object') throw new Error('object');
    const arr = value.values[0];
    expect(arr).toMatchObject({
      t: 'array',
      items: [
        { t: 'number', v: 1 },
        { t: 'string', v: 'x"y' },
        { t: 'literal', v: true },
        { t: 'literal', v: null },
        { t: 'number', v: -2500 },
      ],
    });
    const lines = new LineIndex(text);
    expect(lines.position(arr.start)).toEqual({ line: 1, character: 6 });
    expect(lines.position(value.values[1].start)).toEqual({ line: 2, character: 6 });
    expect(lines.lineCount).toBe(4);
    expect(readJson('{"a": tru}').error).toMatchObject({ offset: 6 });
  });

  it('formats durations as nft prints them', () => {
    expect([0, 10, 90, 3600, 10800, 86400 + 61, 1.5].map(formatDuration)).toEqual(['0s', '10s', '1m30s', '1h', '3h', '1d1m1s', '1s500ms']);
  });
});
