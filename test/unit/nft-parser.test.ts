// nft text parser: `nft list ruleset` output and `nft -f` scripts into the nft model (DESIGN §3).
import { describe, expect, it } from 'vitest';
import type { NftExpression, NftMatchStatement, NftRule, NftRuleset, NftStatement } from '../../src/core/model/nft';
import { isVerdictMap, standardPriority } from '../../src/core/model/nft';
import { MAX_DIAGNOSTICS, parseNft } from '../../src/core/parse/nft/parser';
import { parseNftJson } from '../../src/core/parse/nft/json';
import { mark } from '../helpers/markers';

const problems = (r: NftRuleset, ...severities: string[]) =>
  r.diagnostics.filter((d) => severities.length === 0 || severities.includes(d.severity)).map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.severity} ${d.code}`);

/** The statements of one rule written inside `table ip t { chain c { … } }`. */
function statementsOf(rule: string, family = 'ip'): NftStatement[] {
  const r = parseNft(`table ${family} t {\n\tchain c {\n\t\t${rule}\n\t}\n}\n`);
  // the fixtures name chains and sets they do not declare
  const real = r.diagnostics.filter((d) => d.code !== 'undefined-chain' && d.code !== 'undefined-set' && d.code !== 'xt-compat');
  expect(
    real.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`),
    rule,
  ).toEqual([]);
  return r.tables[0].chains[0].rules[0].statements;
}

function only<K extends NftStatement['kind']>(rule: string, kind: K): Extract<NftStatement, { kind: K }> {
  const statements = statementsOf(rule).filter((s) => s.kind !== 'comment');
  expect(statements.map((s) => s.kind)).toEqual([kind]);
  return statements[0] as Extract<NftStatement, { kind: K }>;
}

function rulesOf(r: NftRuleset, tableId: string, chain: string): NftRule[] {
  return r.tableById.get(tableId)!.chainByName.get(chain)!.rules;
}

const KUBE_PROXY = `table ip kube-proxy {
	comment "rules for kube-proxy"
	set cluster-ips {
		type ipv4_addr
		comment "Active ClusterIPs"
		elements = { 172.30.0.41, 172.30.0.42,
			     172.30.0.43 }
	}

	map service-ips {
		type ipv4_addr . inet_proto . inet_service : verdict
		comment "ClusterIP, ExternalIP and LoadBalancer IP traffic"
		elements = { 172.30.0.41 . tcp . 80 : goto <<service-ULMVA6XW-ns1/svc1/tcp/p80>>,
			     172.30.0.42 . tcp . 80 comment "ns2/svc2:p80" : drop }
	}

	set affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 {
		type ipv4_addr
		size 65535
		flags dynamic,timeout
		timeout 3h
	}

	chain filter-prerouting-pre-dnat {
		type filter hook prerouting priority dstnat - 10; policy accept;
		ct state new jump firewall-check
	}

	chain filter-output-pre-dnat {
		type filter hook output priority -110; policy accept;
		ct state new jump firewall-check
	}

	chain firewall-check {
		ip daddr . meta l4proto . th dport vmap @service-ips
	}

	chain nat-prerouting {
		type nat hook prerouting priority dstnat; policy accept;
		jump services
	}

	chain services {
		ip daddr . meta l4proto . th dport vmap @service-ips
	}

	chain reject-chain {
		comment "helper for @no-endpoint-services / @no-endpoint-nodeports"
		reject
	}

	chain mark-for-masquerade {
		meta mark set meta mark | 0x00004000
	}

	chain <<service-ULMVA6XW-ns1/svc1/tcp/p80>> {
		ip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
		numgen random mod 2 vmap { 0 : goto <<endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80>>, 1 : goto endpoint-X }
	}

	chain <<endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80>> {
		ip saddr 10.180.0.1 jump mark-for-masquerade
		update @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { ip saddr }
		meta l4proto tcp dnat to 10.180.0.1:80
	}

	chain endpoint-X {
		meta l4proto tcp dnat to 10.180.0.2:80
	}
}
`;

describe('nft list ruleset output (kube-proxy)', () => {
  const fixture = mark(KUBE_PROXY);
  const r = parseNft(fixture.text);
  const table = r.tables[0];

  it('reads the table without problems', () => {
    expect(r.diagnostics).toEqual([]);
    expect(r.dialect).toBe('nftables');
    expect(r.format).toBe('text');
    expect(r.tables.map((tb) => tb.id)).toEqual(['ip kube-proxy']);
    expect(table).toMatchObject({ family: 'ip', name: 'kube-proxy', comment: 'rules for kube-proxy', declared: true });
    expect(table.range.start.line).toBe(0);
    expect(table.range.end.line).toBe(fixture.text.split('\n').length - 2);
    expect(table.chains.map((c) => c.name)).toContain('services');
    expect(r.lineCount).toBe(fixture.text.split('\n').length - 1);
  });

  it('reads sets: type, comment, elements over several lines, flags, size, timeout', () => {
    expect(table.setByName.get('cluster-ips')).toMatchObject({ kind: 'set', keyType: ['ipv4_addr'], keyTypeof: false, comment: 'Active ClusterIPs' });
    expect(table.setByName.get('cluster-ips')!.elements.map((e) => e.key)).toEqual([['172.30.0.41'], ['172.30.0.42'], ['172.30.0.43']]);
    const affinity = table.setByName.get('affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80')!;
    expect(affinity).toMatchObject({ size: 65535, flags: ['dynamic', 'timeout'], timeout: '3h', elements: [] });
  });

  it('reads verdict maps: concatenated keys, element comments, goto targets with ranges', () => {
    const map = table.mapByName.get('service-ips')!;
    expect(map).toMatchObject({ kind: 'map', keyType: ['ipv4_addr', 'inet_proto', 'inet_service'], dataType: ['verdict'] });
    expect(isVerdictMap(map)).toBe(true);
    const [first, second] = map.elements;
    expect(first.key).toEqual(['172.30.0.41', 'tcp', '80']);
    expect(first.value).toEqual({ kind: 'goto', chain: 'service-ULMVA6XW-ns1/svc1/tcp/p80', chainRange: fixture.ranges[0] });
    expect(second).toMatchObject({ key: ['172.30.0.42', 'tcp', '80'], comment: 'ns2/svc2:p80', value: { kind: 'drop' } });
    expect(first.range.start.line).toBe(12);
  });

  it('reads base chains: type, hook, priorities by name and number, policy', () => {
    const pre = table.chainByName.get('filter-prerouting-pre-dnat')!;
    expect(pre).toMatchObject({ type: 'filter', hook: 'prerouting', policy: 'accept', priority: { value: -110, text: 'dstnat - 10' } });
    expect(table.chainByName.get('filter-output-pre-dnat')!.priority).toMatchObject({ value: -110, text: '-110' });
    expect(table.chainByName.get('nat-prerouting')!.priority).toMatchObject({ value: -100, text: 'dstnat' });
    expect(table.chainByName.get('services')!.hook).toBeUndefined();
    expect(table.chainByName.get('reject-chain')).toMatchObject({ comment: 'helper for @no-endpoint-services / @no-endpoint-nodeports' });
    expect(table.chainByName.get('reject-chain')!.rules.map((x) => x.raw)).toEqual(['reject']);
  });

  it('types the statements the trace needs', () => {
    const svc = rulesOf(r, 'ip kube-proxy', 'service-ULMVA6XW-ns1/svc1/tcp/p80');
    expect(svc[0].statements.map((s) => s.kind)).toEqual(['match', 'match', 'verdict']);
    const [daddr, saddr, jump] = svc[0].statements as [NftMatchStatement, NftMatchStatement, NftStatement];
    expect(daddr).toMatchObject({ left: { kind: 'payload', protocol: 'ip', field: 'daddr' }, op: '==', right: { kind: 'value', value: '172.30.0.41' }, negated: false });
    expect(saddr).toMatchObject({ op: '!=', negated: true, right: { kind: 'prefix', address: '10.0.0.0', length: 8 } });
    expect(jump).toMatchObject({ kind: 'verdict', verdict: 'jump', chain: 'mark-for-masquerade' });
    const vmap = svc[1].statements[0];
    expect(vmap).toMatchObject({ kind: 'vmap', key: { kind: 'numgen', mode: 'random', mod: 2 }, map: { kind: 'set' } });
    if (vmap.kind !== 'vmap' || vmap.map.kind !== 'set') throw new Error('vmap');
    expect(vmap.map.elements.map((e) => [e.key, e.value])).toEqual([
      [['0'], { kind: 'goto', chain: 'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80', chainRange: fixture.ranges[2] }],
      [['1'], expect.objectContaining({ kind: 'goto', chain: 'endpoint-X' })],
    ]);
    const services = rulesOf(r, 'ip kube-proxy', 'services')[0].statements[0];
    expect(services).toMatchObject({ kind: 'vmap', map: { kind: 'setRef', name: 'service-ips' } });
    if (services.kind !== 'vmap' || services.key.kind !== 'concat') throw new Error('concat key');
    expect(services.key.parts.map((p) => p.kind)).toEqual(['payload', 'meta', 'payload']);
    expect(services.key.parts.map((p) => p.text)).toEqual(['ip daddr', 'meta l4proto', 'th dport']);
    const ep = rulesOf(r, 'ip kube-proxy', 'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80');
    expect(ep[1].statements[0]).toMatchObject({ kind: 'setUpdate', op: 'update', set: 'affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80', key: { kind: 'payload', field: 'saddr' } });
    expect(ep[2].statements[1]).toMatchObject({ kind: 'nat', type: 'dnat', addr: { value: '10.180.0.1' }, port: { value: '80' } });
    expect(rulesOf(r, 'ip kube-proxy', 'mark-for-masquerade')[0].statements[0]).toMatchObject({
      kind: 'mark',
      target: 'meta mark',
      value: { kind: 'binop', op: '|', left: { kind: 'meta', key: 'mark' }, right: { kind: 'value', value: '0x00004000' } },
    });
    expect(rulesOf(r, 'ip kube-proxy', 'filter-prerouting-pre-dnat')[0].statements[0]).toMatchObject({ kind: 'match', left: { kind: 'ct', key: 'state' }, op: 'in', implicit: true });
  });

  it('keeps each rule verbatim with its range and index', () => {
    const rules = rulesOf(r, 'ip kube-proxy', 'service-ULMVA6XW-ns1/svc1/tcp/p80');
    const line = fixture.text.split('\n').findIndex((l) => l.includes('ip daddr 172.30.0.41 ip saddr'));
    expect(rules[0]).toMatchObject({ index: 1, raw: 'ip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade', range: { start: { line, character: 2 } } });
    expect(rules[1].index).toBe(2);
    expect(r.ruleByLine.get(line)).toBe(rules[0]);
    for (const chain of table.chains) {
      for (const rule of chain.rules) {
        for (const st of rule.statements) {
          const lineText = fixture.text.split('\n')[st.range.start.line];
          expect(lineText.slice(st.range.start.character, st.range.end.character)).toBe(st.text);
        }
      }
    }
  });

  it('builds the symbol table: definitions, jump/goto/vmap references, @set lookups', () => {
    const def = r.symbols.definition('chain', 'ip kube-proxy', 'service-ULMVA6XW-ns1/svc1/tcp/p80')!;
    expect(def.range).toEqual(fixture.ranges[1]);
    expect(def.fullRange.end.line).toBeGreaterThan(def.range.start.line);
    const refs = r.symbols.referencesTo('chain', 'ip kube-proxy', 'service-ULMVA6XW-ns1/svc1/tcp/p80');
    expect(refs).toEqual([expect.objectContaining({ role: 'goto', range: fixture.ranges[0] })]);
    expect(r.symbols.resolve(fixture.ranges[2].start)?.range).toEqual(fixture.ranges[3]);
    expect(r.symbols.referencesTo('map', 'ip kube-proxy', 'service-ips').map((x) => x.role)).toEqual(['lookup', 'lookup']);
    expect(r.symbols.referencesTo('set', 'ip kube-proxy', 'affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80')).toHaveLength(1);
    expect(r.symbols.definition('table', 'ip', 'kube-proxy')).toBeDefined();
    expect(r.symbols.definition('set', 'ip kube-proxy', 'cluster-ips')).toBeDefined();
    // firewall-check is referenced but, in this excerpt, defined; jump targets resolve
    expect(r.symbols.referencesTo('chain', 'ip kube-proxy', 'mark-for-masquerade').map((x) => x.role)).toEqual(['jump', 'jump']);
  });
});

describe('chain priorities', () => {
  it('knows the standard names per family and hook (bridge differs)', () => {
    expect(['raw', 'mangle', 'dstnat', 'filter', 'security', 'srcnat'].map((n) => standardPriority(n, 'inet', undefined))).toEqual([-300, -150, -100, 0, 50, 100]);
    expect(['dstnat', 'filter', 'out', 'srcnat'].map((n) => standardPriority(n, 'bridge', undefined))).toEqual([-300, -200, 100, 300]);
    expect(standardPriority('dstnat', 'ip', 'postrouting')).toBeUndefined();
    expect(standardPriority('srcnat', 'ip', 'postrouting')).toBe(100);
    expect(standardPriority('raw', 'netdev', 'ingress')).toBeUndefined();
    expect(standardPriority('filter', 'netdev', 'ingress')).toBe(0);
  });

  it('resolves offsets, numbers and variables; reports names invalid for the hook', () => {
    const r = parseNft(`define p = -5
table bridge b {
\tchain pre { type filter hook prerouting priority dstnat + 3; }
\tchain fwd { type filter hook forward priority filter; }
}
table ip t {
\tchain a { type nat hook postrouting priority srcnat + 10; }
\tchain b { type filter hook input priority $p; }
\tchain c { type nat hook postrouting priority dstnat; }
\tchain d { type filter hook input priority 1 + ; }
}`);
    expect(r.tableById.get('bridge b')!.chainByName.get('pre')!.priority).toMatchObject({ value: -297, text: 'dstnat + 3' });
    expect(r.tableById.get('bridge b')!.chainByName.get('fwd')!.priority!.value).toBe(-200);
    const t = r.tableById.get('ip t')!;
    expect(t.chainByName.get('a')!.priority!.value).toBe(110);
    expect(t.chainByName.get('b')!.priority!.value).toBe(-5);
    expect(t.chainByName.get('c')!.priority).toMatchObject({ text: 'dstnat' });
    expect(t.chainByName.get('c')!.priority!.value).toBeUndefined();
    expect(problems(r, 'error')).toEqual(['9:47 error bad-priority', '10:44 error bad-priority']);
  });
});

describe('statements', () => {
  it('matches: payload, meta (qualified and bare), ct, fib, relational operators', () => {
    expect(only('tcp dport 22', 'match')).toMatchObject({ left: { kind: 'payload', protocol: 'tcp', field: 'dport' }, op: '==', right: { value: '22' }, implicit: true });
    expect(only('meta l4proto tcp', 'match')).toMatchObject({ left: { kind: 'meta', key: 'l4proto' }, right: { value: 'tcp' } });
    expect(only('iifname "eth0"', 'match')).toMatchObject({ left: { kind: 'meta', key: 'iifname' }, right: { value: 'eth0', quoted: true } });
    expect(only('mark 0x10', 'match')).toMatchObject({ left: { kind: 'meta', key: 'mark' } });
    expect(only('ct state established,related', 'match')).toMatchObject({ left: { kind: 'ct', key: 'state' }, op: 'in', right: { kind: 'list', values: ['established', 'related'] } });
    expect(only('ct status dnat', 'match')).toMatchObject({ op: 'in', right: { value: 'dnat' } });
    expect(only('ct original ip saddr 1.2.3.4', 'match')).toMatchObject({ left: { kind: 'ct', key: 'saddr', direction: 'original', family: 'ip' } });
    expect(only('fib daddr type local', 'match')).toMatchObject({ left: { kind: 'fib', flags: ['daddr'], result: 'type' }, right: { value: 'local' } });
    expect(only('fib daddr . iif type != { local, broadcast }', 'match')).toMatchObject({ left: { kind: 'fib', flags: ['daddr', 'iif'] }, op: 'in', negated: true });
    expect(only('ip ttl > 2', 'match')).toMatchObject({ op: '>', negated: false });
    expect(only('ip ttl <= 254', 'match')).toMatchObject({ op: '<=' });
    expect(only('meta length ge 100', 'match')).toMatchObject({ op: '>=' });
    expect(only('meta pkttype != host', 'match')).toMatchObject({ op: '!=', negated: true });
    expect(only('ip6 daddr dead::beef', 'match')).toMatchObject({ left: { protocol: 'ip6' }, right: { value: 'dead::beef' } });
    expect(only('tcp dport 1024-65535', 'match')).toMatchObject({ right: { kind: 'range', from: '1024', to: '65535' } });
    expect(only('ip saddr 10.0.0.1-10.0.0.9', 'match')).toMatchObject({ right: { kind: 'range', from: '10.0.0.1', to: '10.0.0.9' } });
    expect(only('icmp type echo-request', 'match')).toMatchObject({ right: { kind: 'value', value: 'echo-request' } });
    expect(only('arp saddr ip 1.2.3.4', 'match')).toMatchObject({ left: { protocol: 'arp', field: 'saddr ip' } });
    expect(only('@th,16,16 0x1234', 'match')).toMatchObject({ left: { kind: 'payload', protocol: 'raw', field: '@th,16,16' } });
  });

  it('matches: sets, set references, concatenations, masks and flags', () => {
    expect(only('ip saddr @blocked', 'match')).toMatchObject({ op: 'in', negated: false, right: { kind: 'setRef', name: 'blocked' } });
    expect(only('ip saddr != @blocked', 'match')).toMatchObject({ op: 'in', negated: true });
    const anon = only('tcp dport { 22, 80, 1000-2000 }', 'match');
    expect(anon).toMatchObject({ op: 'in', right: { kind: 'set' } });
    if (anon.right.kind !== 'set') throw new Error('set');
    expect(anon.right.elements.map((e) => e.key)).toEqual([['22'], ['80'], ['1000-2000']]);
    const concat = only('ip daddr . tcp dport @pairs', 'match');
    expect(concat.left).toMatchObject({
      kind: 'concat',
      parts: [
        { kind: 'payload', field: 'daddr' },
        { kind: 'payload', field: 'dport' },
      ],
    });
    expect(only('meta mark & 0x00004000 == 0x00004000', 'match')).toMatchObject({ left: { kind: 'binop', op: '&', left: { kind: 'meta', key: 'mark' }, right: { value: '0x00004000' } }, op: '==' });
    expect(only('mark and 0x4000 == 0', 'match')).toMatchObject({ left: { kind: 'binop', op: '&' } });
    expect(only('tcp flags syn / syn,ack', 'match')).toMatchObject({ left: { kind: 'binop', op: '&', right: { kind: 'list', values: ['syn', 'ack'] } }, op: '==', right: { value: 'syn' } });
    expect(only('tcp flags & (syn | ack) == syn', 'match')).toMatchObject({ left: { kind: 'binop', op: '&', right: { kind: 'binop', op: '|' } } });
    expect(only('tcp flags ! syn,ack', 'match')).toMatchObject({ op: 'in', negated: true, right: { kind: 'list' } });
    expect(only('ip saddr { { 1.1.1.0, 3.3.3.0 }, 2.2.2.0 }', 'match').right).toMatchObject({ elements: [{ key: ['1.1.1.0'] }, { key: ['3.3.3.0'] }, { key: ['2.2.2.0'] }] });
  });

  it('verdicts with chain ranges', () => {
    for (const v of ['accept', 'drop', 'continue', 'return']) expect(only(v, 'verdict')).toMatchObject({ verdict: v });
    const jump = only('jump other', 'verdict');
    expect(jump).toMatchObject({ verdict: 'jump', chain: 'other', chainRange: { start: { line: 2, character: 7 }, end: { line: 2, character: 12 } } });
    expect(only('goto "quoted"', 'verdict')).toMatchObject({ verdict: 'goto', chain: 'quoted' });
  });

  it('verdict maps: numgen, jhash, symhash, named', () => {
    const v = only('numgen random mod 3 offset 1 vmap { 1 : goto a, 2-3 : jump b }', 'vmap');
    expect(v.key).toMatchObject({ kind: 'numgen', mode: 'random', mod: 3, offset: 1 });
    if (v.map.kind !== 'set') throw new Error('set');
    expect(v.map.elements.map((e) => [e.key, e.value && typeof e.value !== 'string' ? e.value.kind : e.value])).toEqual([
      [['1'], 'goto'],
      [['2-3'], 'jump'],
    ]);
    expect(only('jhash ip saddr . tcp dport mod 2 seed 0xdeadbeef vmap { 0 : accept, 1 : drop }', 'vmap').key).toMatchObject({ kind: 'hash', function: 'jhash', mod: 2, seed: 0xdeadbeef, expr: { kind: 'concat' } });
    expect(only('symhash mod 2 offset 100 vmap { 100 : accept, 101 : drop }', 'vmap').key).toMatchObject({ kind: 'hash', function: 'symhash', offset: 100 });
    expect(only('ct state vmap { established : accept, new : jump x }', 'vmap')).toMatchObject({ key: { kind: 'ct', key: 'state' }, map: { kind: 'set' } });
    expect(only('iifname vmap @ifs', 'vmap').map).toMatchObject({ kind: 'setRef', name: 'ifs' });
  });

  it('NAT: dnat, snat, masquerade, redirect, with and without families, ports and maps', () => {
    expect(only('dnat to 10.180.0.1:80', 'nat')).toMatchObject({ type: 'dnat', addr: { value: '10.180.0.1' }, port: { value: '80' }, flags: [] });
    expect(only('dnat ip to 192.168.3.2', 'nat')).toMatchObject({ family: 'ip', addr: { value: '192.168.3.2' } });
    expect(only('dnat ip6 to [dead::beef]:4443', 'nat')).toMatchObject({ family: 'ip6', addr: { value: 'dead::beef' }, port: { value: '4443' } });
    const map = only('dnat ip addr . port to ip daddr . th dport map { 10.0.0.1 . 80 : 10.1.0.1 . 8080 }', 'nat');
    expect(map).toMatchObject({ typeFlags: ['addr', 'port'], addr: { kind: 'map', key: { kind: 'concat' }, map: { kind: 'set' } } });
    expect(only('snat to 1.2.3.4-1.2.3.8 fully-random', 'nat')).toMatchObject({ type: 'snat', addr: { kind: 'range', from: '1.2.3.4', to: '1.2.3.8' }, flags: ['fully-random'] });
    expect(only('snat ip prefix to ip saddr map @m', 'nat')).toMatchObject({ typeFlags: ['prefix'], addr: { kind: 'map', map: { kind: 'setRef', name: 'm' } } });
    expect(only('masquerade', 'nat')).toMatchObject({ type: 'masquerade', flags: [] });
    expect(only('masquerade random,persistent', 'nat')).toMatchObject({ flags: ['random', 'persistent'] });
    expect(only('masquerade to :1024-2048', 'nat')).toMatchObject({ port: { kind: 'range', from: '1024', to: '2048' } });
    expect(only('redirect to :8080', 'nat')).toMatchObject({ type: 'redirect', port: { value: '8080' } });
    expect(only('redirect to :8080', 'nat').addr).toBeUndefined();
    expect(only('redirect to :tcp dport map { 83 : 8083 }', 'nat')).toMatchObject({ port: { kind: 'map', key: { kind: 'payload', field: 'dport' } } });
    expect(only('dnat 10.13.37.100', 'nat')).toMatchObject({ addr: { value: '10.13.37.100' } });
    expect(only('dnat to 10.0.0.1-10.0.0.5:80-90', 'nat')).toMatchObject({ addr: { kind: 'range', from: '10.0.0.1', to: '10.0.0.5' }, port: { kind: 'range', from: '80', to: '90' } });
    expect(only('dnat ip6 to dead::beef', 'nat')).toMatchObject({ addr: { value: 'dead::beef' } });
    expect(statementsOf('meta l4proto tcp dnat to 10.0.0.1:80').map((s) => s.kind)).toEqual(['match', 'nat']);
  });

  it('marks and other `set` statements', () => {
    expect(only('mark set mark or 0x4000', 'mark')).toMatchObject({ target: 'meta mark', value: { kind: 'binop', op: '|', left: { kind: 'meta', key: 'mark' } } });
    expect(only('meta mark set meta mark ^ 0x00004000', 'mark')).toMatchObject({ value: { op: '^' } });
    expect(only('ct mark set meta mark', 'mark')).toMatchObject({ target: 'ct mark', value: { kind: 'meta', key: 'mark' } });
    expect(only('meta mark set ip saddr map { 10.0.0.1 : 1 }', 'mark').value).toMatchObject({ kind: 'map' });
    expect(only('ip dscp set cs1', 'mangle')).toMatchObject({ key: { kind: 'payload', field: 'dscp' }, value: { value: 'cs1' } });
    expect(only('ct helper set "ftp-standard"', 'mangle')).toMatchObject({ key: { kind: 'ct', key: 'helper' }, value: { value: 'ftp-standard' } });
    expect(only('ct event set new,related', 'mangle').value).toMatchObject({ kind: 'list', values: ['new', 'related'] });
  });

  it('reject, counter, log, limit, quota, comment', () => {
    expect(only('reject', 'reject').with).toBeUndefined();
    expect(only('reject with icmp type port-unreachable', 'reject')).toMatchObject({ type: 'icmp', code: 'port-unreachable', with: 'icmp type port-unreachable' });
    expect(only('reject with icmpx admin-prohibited', 'reject')).toMatchObject({ type: 'icmpx', code: 'admin-prohibited' });
    expect(only('reject with tcp reset', 'reject')).toMatchObject({ type: 'tcp reset' });
    expect(only('counter', 'counter').packets).toBeUndefined();
    expect(only('counter packets 12 bytes 3456', 'counter')).toMatchObject({ packets: 12, bytes: 3456 });
    expect(only('counter name "cnt1"', 'counter')).toMatchObject({ name: 'cnt1' });
    expect(only('log prefix "dropped: " level warn group 2 flags tcp sequence,options', 'log')).toMatchObject({ prefix: 'dropped: ', level: 'warn', group: 2, options: { flags: 'tcp sequence,options' } });
    expect(only('limit rate 10/second', 'limit')).toMatchObject({ rate: '10/second', over: false });
    expect(only('limit rate over 2000 kbytes/second burst 10 bytes', 'limit')).toMatchObject({ rate: '2000 kbytes/second', over: true, burst: '10 bytes' });
    expect(only('quota over 25 mbytes used 1 kbytes', 'quota')).toMatchObject({ amount: '25 mbytes', over: true, used: '1 kbytes' });
    const withComment = statementsOf('drop comment "Drop # traffic"');
    expect(withComment.map((s) => s.kind)).toEqual(['verdict', 'comment']);
    expect(withComment[1]).toMatchObject({ comment: 'Drop # traffic' });
    const r = parseNft('table ip t {\n\tchain c {\n\t\tdrop comment "x" # handle 4\n\t}\n}');
    expect(r.tables[0].chains[0].rules[0]).toMatchObject({ comment: 'x', handle: 4 });
  });

  it('set updates: add, update, delete, maps, per-element statements, the old syntax', () => {
    expect(only('update @aff { ip saddr }', 'setUpdate')).toMatchObject({ op: 'update', set: 'aff', key: { kind: 'payload', field: 'saddr' }, statements: [] });
    expect(only('add @s { ip saddr timeout 10s limit rate over 10/second }', 'setUpdate')).toMatchObject({ op: 'add', timeout: '10s', statements: ['limit rate over 10/second'] });
    expect(only('delete @s { ip6 saddr . ip6 daddr }', 'setUpdate')).toMatchObject({ op: 'delete', key: { kind: 'concat' } });
    expect(only('update @m { ip saddr : tcp sport }', 'setUpdate')).toMatchObject({ data: { kind: 'payload', field: 'sport' } });
    expect(only('set add ip saddr @s', 'setUpdate')).toMatchObject({ op: 'add', set: 's' });
    const st = only('update @aff { ip saddr }', 'setUpdate');
    expect(st.setRange).toEqual({ start: { line: 2, character: 10 }, end: { line: 2, character: 13 } });
  });

  it('xt statements from iptables-nft', () => {
    expect(statementsOf('ct state invalid xt match nfacct counter packets 0 bytes 0 drop').map((s) => s.kind)).toEqual(['match', 'xt', 'counter', 'verdict']);
    // nft cannot read them back: a hint on each.
    expect(problems(parseNft('table ip t {\n\tchain c {\n\t\tct state invalid xt match nfacct counter drop\n\t}\n}\n'))).toEqual(['3:20 hint xt-compat']);
    expect(only('xt target MASQUERADE', 'xt')).toMatchObject({ type: 'target', name: 'MASQUERADE' });
  });

  it('keeps statements it does not type verbatim, without failing the rule', () => {
    expect(statementsOf('meta l4proto tcp tproxy ip to 1.2.3.4:80 accept').map((s) => [s.kind, s.text])).toEqual([
      ['match', 'meta l4proto tcp'],
      ['raw', 'tproxy ip to 1.2.3.4:80'],
      ['verdict', 'accept'],
    ]);
    expect(statementsOf('queue num 1-3 fanout,bypass').map((s) => s.kind)).toEqual(['raw']);
    expect(statementsOf('notrack counter').map((s) => s.kind)).toEqual(['raw', 'counter']);
    expect(statementsOf('meter m size 128 { ip saddr limit rate 10/second } drop').map((s) => s.kind)).toEqual(['raw', 'verdict']);
    expect(statementsOf('tcp option maxseg size set rt mtu').map((s) => s.kind)).toEqual(['mangle']);
    const r = parseNft('table ip t {\n\tchain c {\n\t\tip saddr 1.2.3.4 frobnicate 7 accept\n\t}\n}');
    const rule = r.tables[0].chains[0].rules[0];
    expect(rule.statements.map((s) => [s.kind, s.text])).toEqual([
      ['match', 'ip saddr 1.2.3.4'],
      ['raw', 'frobnicate 7'],
      ['verdict', 'accept'],
    ]);
    expect(rule.statements[1].range).toEqual({ start: { line: 2, character: 19 }, end: { line: 2, character: 31 } });
    expect(problems(r)).toEqual(['3:20 warning unknown-statement']);
  });

  it('names as kube-proxy writes them: unnamed ports end in `/`, IPv6 endpoints have `..`', () => {
    const r = parseNft(`table ip6 kube-proxy {
\tset affinity-YQZ5OTGX-ns/users-0/tcp/__fd00.10..a.f4.0.2/1563 { type ipv6_addr; }
\tchain service-5A4QTEIJ-monitoring/backend-2/tcp/ {
\t\tip6 saddr @affinity-YQZ5OTGX-ns/users-0/tcp/__fd00.10..a.f4.0.2/1563 goto endpoint-YQZ5OTGX-ns/users-0/tcp/__fd00.10..a.f4.0.2/1563
\t}
\tchain endpoint-YQZ5OTGX-ns/users-0/tcp/__fd00.10..a.f4.0.2/1563 { jump service-5A4QTEIJ-monitoring/backend-2/tcp/ }
}`);
    expect(problems(r)).toEqual([]);
    const t = r.tables[0];
    expect(t.chains.map((c) => c.name)).toEqual(['service-5A4QTEIJ-monitoring/backend-2/tcp/', 'endpoint-YQZ5OTGX-ns/users-0/tcp/__fd00.10..a.f4.0.2/1563']);
    expect(t.chains[0].rules[0].statements).toMatchObject([
      { kind: 'match', right: { kind: 'setRef', name: 'affinity-YQZ5OTGX-ns/users-0/tcp/__fd00.10..a.f4.0.2/1563' } },
      { kind: 'verdict', verdict: 'goto', chain: 'endpoint-YQZ5OTGX-ns/users-0/tcp/__fd00.10..a.f4.0.2/1563' },
    ]);
    expect(t.chains[1].rules[0].statements[0]).toMatchObject({ chain: 'service-5A4QTEIJ-monitoring/backend-2/tcp/' });
  });

  it('reads rules in inet, bridge, arp and netdev tables', () => {
    expect(statementsOf('meta nfproto ipv4 ip saddr 1.2.3.4 accept', 'inet').map((s) => s.kind)).toEqual(['match', 'match', 'verdict']);
    expect(statementsOf('ether type vlan vlan id 10 accept', 'bridge').map((s) => s.kind)).toEqual(['match', 'match', 'verdict']);
    expect(statementsOf('arp operation request accept', 'arp')[0]).toMatchObject({ left: { protocol: 'arp', field: 'operation' } });
  });
});

describe('nft -f scripts', () => {
  it('a chain added again after it was deleted or renamed, or its table deleted, keeps its first definition', () => {
    const cases: [string, number][] = [
      ['add table ip t\nadd chain ip t c\ndelete chain ip t c\nadd chain ip t c\nadd rule ip t c jump c\n', 3],
      ['add table ip t\nadd chain ip t c\nrename chain ip t c d\nadd chain ip t c\nadd rule ip t d jump c\n', 3],
      ['add table ip t\nadd chain ip t c\ndelete table ip t\nadd table ip t\nadd chain ip t c\n', 4],
    ];
    for (const [text, line] of cases) {
      const r = parseNft(text);
      expect(r.symbols.definition('chain', 'ip t', 'c')?.range.start.line, text).toBe(1);
      expect(r.symbols.at({ line, character: 15 })?.type, text).toBe('reference');
    }
    // Without any of those, each new chain is defined where it is added.
    const r = parseNft('add table ip t\nadd chain ip t c\nadd chain ip t d\nflush chain ip t c\nadd chain ip t c\n');
    expect(r.symbols.at({ line: 2, character: 15 })?.type).toBe('definition');
    expect(r.symbols.at({ line: 4, character: 15 })?.type).toBe('reference');
  });

  it('flat commands build the same model as blocks (kube-proxy style, out of order)', () => {
    const r = parseNft(`add table ip kube-proxy { comment "rules for kube-proxy" ; }
add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "x" ; }
add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100 ; }
add rule ip kube-proxy nat-prerouting jump services
add chain ip kube-proxy services
add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips
add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto svc1 }
add chain ip kube-proxy svc1
add rule ip kube-proxy svc1 mark set mark or 0x4000
`);
    const t = r.tableById.get('ip kube-proxy')!;
    expect(t.comment).toBe('rules for kube-proxy');
    expect(t.chains.map((c) => [c.name, c.rules.length, c.declared])).toEqual([
      ['nat-prerouting', 1, true],
      ['services', 1, true],
      ['svc1', 1, true],
    ]);
    expect(t.chainByName.get('nat-prerouting')).toMatchObject({ type: 'nat', hook: 'prerouting', priority: { value: -100 } });
    expect(t.mapByName.get('service-ips')!.elements).toHaveLength(1);
    // nft -f runs the commands in order: the jump to `services` and the goto to `svc1` come before their chains
    expect(problems(r)).toEqual(['4:44 warning defined-later', '7:71 warning defined-later']);
    expect(r.commands.map((c) => `${c.verb} ${c.object}`)).toEqual(['add table', 'add map', 'add chain', 'add rule', 'add chain', 'add rule', 'add element', 'add chain', 'add rule']);
    expect(r.symbols.referencesTo('chain', 'ip kube-proxy', 'svc1').map((x) => x.role)).toEqual(['goto', 'rule-owner']);
    expect(r.symbols.definition('chain', 'ip kube-proxy', 'svc1')!.range.start.line).toBe(7);
  });

  it('insert, replace, delete and positions', () => {
    const r = parseNft(`table inet f {
\tchain c {
\t\tip saddr 1.1.1.1 accept # handle 3
\t\tip saddr 2.2.2.2 accept # handle 4
\t}
}
insert rule inet f c drop
add rule inet f c position 3 counter
insert rule inet f c position 4 log
replace rule inet f c handle 4 reject
delete rule inet f c handle 3
add rule inet f c index 0 tcp dport 22 accept
`);
    expect(problems(r)).toEqual([]);
    expect(rulesOf(r, 'inet f', 'c').map((x) => `${x.index}:${x.raw}`)).toEqual(['1:drop', '2:tcp dport 22 accept', '3:counter', '4:log', '5:reject']);
  });

  it('rule commands around a chain block read again: positions, indexes past the end, a replaced handle', () => {
    const r = parseNft(`table ip t {
\tchain c {
\t\tcounter # handle 5
\t\taccept # handle 6
\t}
}
insert rule ip t c position 6 drop
add rule ip t c index 10 log
delete rule ip t c handle 5
table ip t {
\tchain c {
\t\treject
\t}
}
add rule ip t c index 1 queue
replace rule ip t c handle 6 notrack
delete rule ip t c handle 6
insert rule ip t c index 0 masquerade
`);
    expect(rulesOf(r, 'ip t', 'c').map((x) => `${x.index}:${x.raw}`)).toEqual(['1:masquerade', '2:drop', '3:notrack', '4:queue', '5:log', '6:reject']);
  });

  it('delete element removes every copy of the key present then, not those added later', () => {
    const r = parseNft(`table ip t {
\tset s {
\t\ttype ipv4_addr
\t\telements = { 1.1.1.1, 2.2.2.2 }
\t}
}
add element ip t s { 3.3.3.3, 1.1.1.1 }
delete element ip t s { 1.1.1.1 }
add element ip t s { 1.1.1.1, 4.4.4.4 }
delete element ip t s { 4.4.4.4, 9.9.9.9 }
flush set ip t s
add element ip t s { 5.5.5.5 }
add element ip t s { 6.6.6.6 }
delete element ip t s { 5.5.5.5 }
`);
    expect(
      r.tableById
        .get('ip t')!
        .setByName.get('s')!
        .elements.map((e) => e.key.join(' . ')),
    ).toEqual(['6.6.6.6']);
    const r2 = parseNft('table ip t { set s { type ipv4_addr; elements = { 1.1.1.1, 2.2.2.2 } } }\nadd element ip t s { 3.3.3.3, 1.1.1.1 }\ndelete element ip t s { 1.1.1.1 }\nadd element ip t s { 1.1.1.1 }\n');
    expect(
      r2.tableById
        .get('ip t')!
        .setByName.get('s')!
        .elements.map((e) => e.key.join(' . ')),
    ).toEqual(['2.2.2.2', '3.3.3.3', '1.1.1.1']);
  });

  it('deleted chains leave the table in order; a chain made again under the name comes last', () => {
    const r = parseNft('table ip t { chain a { accept } chain b { drop } chain c { accept } }\ndelete chain ip t a\nadd chain ip t a\ndelete chain ip t c\nadd rule ip t a counter\n');
    expect(r.tableById.get('ip t')!.chains.map((c) => `${c.name}:${c.rules.map((x) => x.raw).join(',')}`)).toEqual(['b:drop', 'a:counter']);
    const j = parseNftJson(
      JSON.stringify({
        nftables: [
          { table: { family: 'ip', name: 't' } },
          ...['a', 'b', 'c'].map((name) => ({ chain: { family: 'ip', table: 't', name } })),
          { delete: { chain: { family: 'ip', table: 't', name: 'b' } } },
          { flush: { table: { family: 'ip', name: 't' } } },
        ],
      }),
    );
    expect(j.tableById.get('ip t')!.chains.map((c) => c.name)).toEqual(['a', 'c']);
  });

  it('flush, delete and destroy change what the file leaves behind', () => {
    const r = parseNft(`table ip a { chain c { accept; }; chain d { drop; }; set s { type ipv4_addr; elements = { 1.2.3.4, 5.6.7.8 }; } }
table ip b { chain x { accept; } }
table ip6 c { chain y { accept; } }
flush chain ip a c
delete chain ip a d
delete element ip a s { 1.2.3.4 }
destroy table ip b
flush ruleset ip6
rename chain ip a c renamed
`);
    expect(problems(r)).toEqual([]);
    expect(r.tables.map((t) => t.id)).toEqual(['ip a']);
    const a = r.tableById.get('ip a')!;
    expect(a.chains.map((c) => [c.name, c.rules.length])).toEqual([['renamed', 0]]);
    expect(a.setByName.get('s')!.elements.map((e) => e.key)).toEqual([['5.6.7.8']]);
    // the symbols still know every declaration
    expect(r.symbols.definition('chain', 'ip b', 'x')).toBeDefined();
    const r2 = parseNft('table ip t { chain c { accept } }\nflush ruleset\n');
    expect(r2.tables).toEqual([]);
    const r3 = parseNft('table ip t { chain c { accept }; set s { type ipv4_addr; elements = { 1.1.1.1 } } }\nflush table ip t\nflush set ip t s\n');
    expect(r3.tables[0].chains[0].rules).toEqual([]);
    expect(r3.tables[0].sets[0].elements).toEqual([]);
  });

  it('implicit add, default family, rule shorthand, nested blocks on one line, `;` separators', () => {
    const r = parseNft(`table filter { chain input { type filter hook input priority 0; policy drop; tcp dport 22 accept; } }
chain ip filter other { counter; }
add ip filter other drop
`);
    expect(problems(r)).toEqual([]);
    const t = r.tableById.get('ip filter')!;
    expect(t.chainByName.get('input')).toMatchObject({ hook: 'input', policy: 'drop', rules: [expect.objectContaining({ raw: 'tcp dport 22 accept' })] });
    expect(t.chainByName.get('other')!.rules.map((x) => x.raw)).toEqual(['counter', 'drop']);
  });

  it('defines and variables, include, comments and the shebang', () => {
    const r = parseNft(`#!/usr/sbin/nft -f
# a comment line
include "/etc/nftables/*.nft"
define wan = "eth0"
define trusted = { 10.0.0.0/8, 192.168.1.1 }
define target = svc
table inet t { # trailing comment
\tset s { type ipv4_addr; elements = { $trusted, 172.16.0.1 } }
\tchain c {
\t\tiifname $wan ip saddr $trusted jump $target
\t}
\tchain svc { }
}
redefine wan = "eth1"
undefine target
add rule inet t c iifname $wan oifname $nope accept
`);
    expect(r.includes).toEqual([{ path: '/etc/nftables/*.nft', range: expect.objectContaining({ start: { line: 2, character: 0 } }) }]);
    expect(r.defines.map((d) => [d.name, d.value, d.expression?.kind])).toEqual([
      ['wan', '"eth0"', 'value'],
      ['trusted', '{ 10.0.0.0/8, 192.168.1.1 }', 'set'],
      ['target', 'svc', 'value'],
      ['wan', '"eth1"', 'value'],
    ]);
    expect(r.comments.map((c) => c.kind)).toEqual(['shebang', 'comment']);
    const t = r.tableById.get('inet t')!;
    expect(t.setByName.get('s')!.elements.map((e) => e.key[0])).toEqual(['10.0.0.0/8', '192.168.1.1', '172.16.0.1']);
    const [ifname, saddr, jump] = t.chainByName.get('c')!.rules[0].statements as [NftMatchStatement, NftMatchStatement, NftStatement];
    expect(ifname.right).toMatchObject({ kind: 'variable', name: 'wan', resolved: { value: 'eth0' } });
    expect(saddr).toMatchObject({ op: 'in', right: { kind: 'variable', resolved: { kind: 'set' } } });
    expect(jump).toMatchObject({ verdict: 'jump', chain: 'svc' });
    const later = t.chainByName.get('c')!.rules[1].statements[0] as NftMatchStatement;
    expect((later.right as Extract<NftExpression, { kind: 'variable' }>).resolved).toMatchObject({ value: 'eth1' });
    expect(problems(r)).toEqual(['3:1 information include', '16:40 error undefined-variable']);
    // The words of the messages too, not only their codes.
    expect(r.diagnostics.filter((d) => d.code === 'include' || d.code === 'undefined-variable').map((d) => d.message)).toEqual([
      'nft reads "/etc/nftables/*.nft" here; what it holds is not part of this dump, so it is not analysed.',
      'Variable $nope is not defined (before this line).',
    ]);
  });

  it('objects, flowtables and a table’s flags', () => {
    const r = parseNft(`table inet t {
\tflags dormant
\tcounter cnt { packets 1 bytes 2 }
\tquota q { over 25 mbytes }
\tlimit l { rate 400/minute }
\tct helper ftp { type "ftp" protocol tcp; l3proto inet; }
\tct timeout agressive { protocol tcp; l3proto ip; policy = { established : 3s, close : 1s } }
\tct expectation e { protocol tcp; dport 9876; timeout 1m; size 12; l3proto ip }
\tsecmark ssh { "system_u:object_r:ssh_server_packet_t:s0" }
\tsynproxy sp { mss 1460; wscale 7; timestamp sack-perm }
\tflowtable ft { hook ingress priority filter; devices = { "eth0", lo }; flags offload; }
\tchain fwd { type filter hook forward priority 0; flow add @ft; ct helper set "ftp" }
}`);
    expect(problems(r)).toEqual([]);
    const t = r.tables[0];
    expect(t.flags).toEqual(['dormant']);
    expect(t.objects.map((o) => `${o.kind} ${o.name} ${o.properties.map((p) => p.name || p.value).join('|')}`)).toEqual([
      'counter cnt packets',
      'quota q over 25 mbytes',
      'limit l rate',
      'ct helper ftp type|l3proto',
      'ct timeout agressive protocol|l3proto|policy',
      'ct expectation e protocol|dport|timeout|size|l3proto',
      'secmark ssh "system_u:object_r:ssh_server_packet_t:s0"',
      'synproxy sp mss|wscale|timestamp',
    ]);
    expect(t.flowtables[0]).toMatchObject({ name: 'ft', hook: 'ingress', priority: { value: 0 }, devices: ['eth0', 'lo'], flags: ['offload'] });
    expect(t.chainByName.get('fwd')!.rules.map((x) => x.statements[0].kind)).toEqual(['raw', 'mangle']);
  });

  it('maps with data types: typeof, intervals, concatenated data', () => {
    const r = parseNft(`table ip x {
\tmap y {
\t\ttypeof ip saddr . tcp dport : ip daddr
\t\telements = { 1.1.1.1 . 80 : 10.0.0.1 }
\t}
\tmap z {
\t\ttype ipv4_addr : interval ipv4_addr
\t\tflags interval
\t\telements = { 10.141.10.0/24 : 192.168.2.2-192.168.2.4 }
\t}
\tmap w {
\t\ttype ipv4_addr . inet_proto . inet_service : ipv4_addr . inet_service
\t\telements = { 1.1.1.1 . tcp . 20 : 2.2.2.2 . 30, * : 3.3.3.3 . 40 }
\t}
}`);
    expect(problems(r)).toEqual([]);
    const t = r.tables[0];
    expect(t.mapByName.get('y')).toMatchObject({ keyType: ['ip saddr', 'tcp dport'], keyTypeof: true, dataType: ['ip daddr'], dataTypeof: true });
    expect(t.mapByName.get('z')).toMatchObject({ dataType: ['ipv4_addr'], dataInterval: true, flags: ['interval'], elements: [{ key: ['10.141.10.0/24'], value: '192.168.2.2-192.168.2.4' }] });
    expect(t.mapByName.get('w')!.elements.map((e) => [e.key, e.value])).toEqual([
      [['1.1.1.1', 'tcp', '20'], '2.2.2.2 . 30'],
      [['*'], '3.3.3.3 . 40'],
    ]);
  });

  it('reads `nft -a` handles and the iptables-nft warning', () => {
    const r = parseNft(`# Warning: table ip nat is managed by iptables-nft, do not touch!
table ip nat { # handle 5
\tchain KUBE-SERVICES { # handle 1
\t\t meta l4proto tcp ip daddr 172.30.0.41  tcp dport 80 counter packets 0 bytes 0 jump KUBE-SVC-X # handle 7
\t}
\tchain KUBE-SVC-X { # handle 2
\t}
\tset s { # handle 9
\t\ttype ipv4_addr
\t}
}`);
    expect(problems(r)).toEqual([]);
    const t = r.tables[0];
    expect(t).toMatchObject({ handle: 5, managedBy: 'iptables-nft' });
    expect(r.producer).toBe('iptables-nft');
    expect(t.chainByName.get('KUBE-SERVICES')).toMatchObject({ handle: 1 });
    expect(t.setByName.get('s')!.handle).toBe(9);
    expect(t.chainByName.get('KUBE-SERVICES')!.rules[0]).toMatchObject({ handle: 7, raw: 'meta l4proto tcp ip daddr 172.30.0.41  tcp dport 80 counter packets 0 bytes 0 jump KUBE-SVC-X' });
    expect(t.chainByName.get('KUBE-SERVICES')!.rules[0].statements.map((s) => s.kind)).toEqual(['match', 'match', 'match', 'counter', 'verdict']);
    expect(r.comments[0]).toMatchObject({ kind: 'warning' });
  });

  it('CRLF line ends and anonymous sets over several lines', () => {
    const r = parseNft('table ip t {\r\n\tchain c {\r\n\t\ttcp dport {\r\n\t\t\t22,\r\n\t\t\t80\r\n\t\t} accept\r\n\t}\r\n}\r\n');
    expect(problems(r)).toEqual([]);
    const rule = r.tables[0].chains[0].rules[0];
    expect(rule.statements.map((s) => s.kind)).toEqual(['match', 'verdict']);
    expect(rule.range).toEqual({ start: { line: 2, character: 2 }, end: { line: 5, character: 10 } });
    expect(rule.raw).toBe('tcp dport {\n\t\t\t22,\n\t\t\t80\n\t\t} accept');
  });
});

describe('diagnostics and recovery', () => {
  it('reports syntax errors with line and column and reads on at the next line', () => {
    const r = parseNft(`table ip t {
\tchain c {
\t\ttype filter hook input priority
\t\taccept
\t}
}
this is not nft
table ip u { chain d { drop } }`);
    expect(problems(r)).toEqual(['3:26 error syntax', '7:1 error unknown-command']);
    expect(r.tables.map((t) => t.id)).toEqual(['ip t', 'ip u']);
    expect(r.tables[0].chains[0].rules.map((x) => x.raw)).toEqual(['accept']);
  });

  it('recovers from a missing } at the next declaration', () => {
    const r = parseNft(`table ip t {
\tchain a {
\t\tip saddr { 1.2.3.4, 5.6.7.8 accept
\tchain b {
\t\tdrop
\t}
}
table ip u {
\tchain x {
\t\taccept
}
table ip v {
}`);
    // the } on line 11 closes chain x, so table u is the block left open
    expect(problems(r)).toEqual(['3:12 error missing-brace', '2:2 error missing-brace', '8:1 error missing-brace']);
    expect(r.tables.map((t) => [t.id, t.chains.map((c) => `${c.name}:${c.rules.length}`)])).toEqual([
      ['ip t', ['a:0', 'b:1']],
      ['ip u', ['x:1']],
      ['ip v', []],
    ]);
  });

  it('a block left open on the line of the next declaration ends before it, not before it starts', () => {
    const r = parseNft('table ip t {\n\tchain a {\tchain b { masquerade; }\n}\ntable ip u { table ip v {\n}');
    const ranges = r.tables.flatMap((tb) => [tb.range, ...tb.chains.map((c) => c.fullRange)]).map((x) => [x.start.line, x.start.character, x.end.line, x.end.character]);
    // chain a ends where chain b starts; table u where table v starts.
    expect(ranges).toEqual([
      [0, 0, 2, 1],
      [1, 1, 1, 11],
      [1, 11, 1, 34],
      [3, 0, 3, 13],
      [3, 13, 4, 1],
    ]);
  });

  it('unclosed blocks at the end, stray braces, bad strings and characters', () => {
    expect(problems(parseNft('table ip t {\n\tchain c {\n\t\taccept\n'))).toEqual(['2:2 error missing-brace', '1:1 error missing-brace']);
    expect(problems(parseNft('}\ntable ip t { }'))).toEqual(['1:1 error unexpected-brace']);
    expect(problems(parseNft('table ip t {\n\tchain c {\n\t\tlog prefix "oops\n\t\taccept\n\t}\n}'))).toEqual(['3:14 error unterminated-string']);
    const r = parseNft('table ip t {\n\tchain c {\n\t\tip saddr 1.2.3.4 ¤ accept\n\t}\n}');
    expect(problems(r)).toEqual(['3:20 error syntax']);
    expect(r.tables[0].chains[0].rules[0].statements.map((s) => s.kind)).toEqual(['match', 'verdict']);
  });

  it('undefined chains, sets and base-chain jumps; hooks, types and policies', () => {
    const r = parseNft(`table ip t {
\tchain in { type filter hook input priority 0; policy drop; }
\tchain c {
\t\tjump nowhere
\t\tip saddr @missing accept
\t\tgoto in
\t}
\tchain bad1 { type filter hook frobnicate priority 0; }
\tchain bad2 { type magic hook input priority 0; policy maybe; }
}
add rule ip elsewhere c jump x
`);
    expect(problems(r)).toEqual([
      '8:32 error bad-hook',
      '9:20 error bad-chain-type',
      '9:56 error bad-policy',
      '4:8 error undefined-chain',
      '5:13 error undefined-set',
      '6:8 error jump-to-base-chain',
      '11:23 warning undefined-chain',
      '11:30 warning undefined-chain',
    ]);
  });

  it('stops reporting after MAX_DIAGNOSTICS and says so', () => {
    const r = parseNft(Array.from({ length: MAX_DIAGNOSTICS + 500 }, (_, i) => `garbage${i} here`).join('\n'));
    expect(r.diagnostics).toHaveLength(MAX_DIAGNOSTICS + 1);
    expect(r.diagnostics.at(-1)).toMatchObject({ code: 'too-many-problems', severity: 'warning' });
  });

  it('skips over-long lines and binary data with one problem each', () => {
    expect(problems(parseNft('x'.repeat(1_000_001)))).toEqual(['1:1 error line-too-long']);
    // Reported where the binary data starts: the NUL after `table ip t {`.
    expect(problems(parseNft('table ip t {\u0000}\n'))).toEqual(['1:13 error binary']);
  });

  it('an empty file is an empty ruleset', () => {
    const r = parseNft('');
    expect(r).toMatchObject({ tables: [], diagnostics: [], lineCount: 1 });
  });
});
