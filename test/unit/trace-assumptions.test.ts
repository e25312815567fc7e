// Conditions the dumps cannot decide (interfaces, ipsets without their dump, unknown modules) are facts about the
// packet: decided once per path, carried along it, never given a share; outcomes that they do not change merge.
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, traceToJson, type Condition, type Outcome, type SnapshotFile as TraceFile, type TraceRequest } from '../../src/core/trace';
import { assumptionGroups, known } from '../../src/core/trace/facts';

const files = (name: string, text: string): TraceFile[] => [{ name, analysis: analyzeFile(name, text)!.analysis as TraceFile['analysis'] }];
const trace = (name: string, text: string, request: Partial<TraceRequest> = {}) => traceSnapshot(files(name, text), { to: '10.0.0.2', dport: 80, protocol: 'tcp', from: '10.0.0.1', entry: 'pod', ...request });
const summary = (outcomes: Outcome[]) => outcomes.map((o) => `${Number(o.probability.toFixed(4))} ${o.verdict}${o.masquerade ? ' masq' : ''}${o.assumptions.length ? ` [${o.assumptions.join('; ')}]` : ''}`);

/** A filter table whose FORWARD accepts by policy, with `chains` declared. */
const forward = (chains: string[], rules: string[]) => ['*filter', ':FORWARD ACCEPT [0:0]', ...chains.map((c) => `:${c} - [0:0]`), ...rules, 'COMMIT', ''].join('\n');
const WEAVE = forward(['FOO'], ['-A FORWARD -o weave -j FOO', '-A FORWARD -o weave -j DROP']);
const WEAVE_OUTCOMES = ['1 accept [assuming the packet does not leave through interface weave]', '1 drop [assuming the packet leaves through interface weave]'];
const nftForward = (rules: string[], extra = '') => `table ip t {\n\tchain forward {\n\t\ttype filter hook forward priority 0; policy accept;\n${rules.map((r) => `\t\t${r}\n`).join('')}\t}\n${extra}}\n`;
const WEAVE_NFT = nftForward(['oifname "weave" jump foo', 'oifname "weave" drop'], '\tchain foo {\n\t}\n');
const WEAVE_JSON = JSON.stringify({
  nftables: [
    { table: { family: 'ip', name: 't' } },
    { chain: { family: 'ip', table: 't', name: 'forward', type: 'filter', hook: 'forward', prio: 0, policy: 'accept' } },
    { chain: { family: 'ip', table: 't', name: 'foo' } },
    { rule: { family: 'ip', table: 't', chain: 'forward', expr: [{ match: { op: '==', left: { meta: { key: 'oifname' } }, right: 'weave' } }, { jump: { target: 'foo' } }] } },
    { rule: { family: 'ip', table: 't', chain: 'forward', expr: [{ match: { op: '==', left: { meta: { key: 'oifname' } }, right: 'weave' } }, { drop: null }] } },
  ],
});

describe('one undecided condition, one answer per path', () => {
  it('the Weave repro gives two outcomes, each with one consistent assumption and its whole share (iptables, nft text, nft JSON)', () => {
    for (const [name, text] of [
      ['f.iptables', WEAVE],
      ['f.nft', WEAVE_NFT],
      ['f.json', WEAVE_JSON],
    ]) {
      const r = trace(name, text);
      expect(summary(r.outcomes), name).toEqual(WEAVE_OUTCOMES);
      expect(
        r.outcomes.map((o) => o.conditions.map((c) => [c.key, c.holds])),
        name,
      ).toEqual([[['iface out weave', false]], [['iface out weave', true]]]);
    }
  });

  it('an interface is one name each way: arriving on eth1 decides -i eth0 and -i eth+', () => {
    const text = forward(
      [],
      [
        '-A FORWARD -i eth1 -j REJECT',
        '-A FORWARD -i eth0 -j DROP',
        '-A FORWARD ! -i eth+ -j DROP',
        '-A FORWARD -i eth1 -j ACCEPT', // never reached: eth1 was rejected above
      ],
    );
    expect(summary(trace('i.iptables', text).outcomes)).toEqual([
      '1 drop [assuming the packet arrives on interface eth0]',
      // Not eth+ implies neither eth0 nor eth1: the implied conditions are not listed again.
      '1 drop [assuming the packet does not arrive on interface eth+]',
      '1 reject [assuming the packet arrives on interface eth1]',
      '1 accept [assuming the packet does not arrive on interface eth1; assuming the packet does not arrive on interface eth0; assuming the packet arrives on interface eth+]',
    ]);
    const nft = nftForward(['iifname "eth1" reject', 'iifname "eth0" drop', 'iifname != "eth*" drop', 'iifname "eth1" accept']);
    expect(trace('i.nft', nft).outcomes.map((o) => o.verdict)).toEqual(['drop', 'drop', 'reject', 'accept']);
  });

  it('ipset membership without an ipset dump is decided once; `!` tests the same condition', () => {
    const text = forward(
      [],
      ['-A FORWARD -m set ! --match-set BLOCKED src -j MARK --set-mark 0x1', '-A FORWARD -m set --match-set BLOCKED src -j DROP', '-A FORWARD -m mark --mark 0x1 -j ACCEPT', '-A FORWARD -j REJECT'],
    );
    expect(summary(trace('s.iptables', text).outcomes)).toEqual(['1 accept [assuming the packet is not in ipset BLOCKED]', '1 drop [assuming the packet is in ipset BLOCKED]']);
  });

  it('shares come from random matches only, within each set of conditions', () => {
    const text = forward(['A', 'B'], ['-A FORWARD -m statistic --mode random --probability 0.25 -j A', '-A FORWARD -j B', '-A A -o weave -j DROP', '-A B -o weave -j REJECT']);
    // Not leaving through weave: both random branches accept (100%); through weave: 25% dropped, 75% rejected.
    expect(summary(trace('r.iptables', text).outcomes)).toEqual([
      '1 accept [assuming the packet does not leave through interface weave]',
      '0.75 reject [assuming the packet leaves through interface weave]',
      '0.25 drop [assuming the packet leaves through interface weave]',
    ]);
  });

  it('what the entry point fixes is not assumed: from outside not on a container bridge, from the node on lo', () => {
    const text = forward([], ['-A FORWARD -i docker0 -j DROP', '-A FORWARD -i lo -j REJECT']);
    expect(summary(trace('e.iptables', text, { entry: 'external', from: '203.0.113.5' }).outcomes)).toEqual(['1 accept']);
    expect(summary(trace('e.iptables', text, { entry: 'pod' }).outcomes)).toEqual(['1 accept [assuming the packet does not arrive on interface docker0]', '1 drop [assuming the packet arrives on interface docker0]']);
    const input = ['*filter', ':INPUT ACCEPT [0:0]', '-A INPUT -i lo -j ACCEPT', '-A INPUT -j DROP', 'COMMIT', ''].join('\n');
    const toNode = { to: '192.168.0.10', nodeIPs: ['192.168.0.10'] };
    expect(summary(trace('n.iptables', input, { ...toNode, entry: 'node', from: '192.168.0.10' }).outcomes)).toEqual(['1 accept']);
    expect(summary(trace('n.iptables', input, { ...toNode, entry: 'external', from: '203.0.113.5' }).outcomes)).toEqual(['1 drop']);
    const nftInput = `table inet f {\n\tchain input {\n\t\ttype filter hook input priority 0; policy drop;\n\t\tiifname "lo" accept\n\t}\n}\n`;
    expect(summary(trace('n.nft', nftInput, { ...toNode, entry: 'node', from: '192.168.0.10' }).outcomes)).toEqual(['1 accept']);
    expect(summary(trace('n.nft', nftInput, { ...toNode, entry: 'pod', from: '10.0.0.1' }).outcomes)).toEqual(['1 drop']);
  });

  it('dataplane trace prints the conditions, no 25% shares, and says shares are per assumption set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dataplane-assume-'));
    const file = join(dir, 'f.iptables');
    writeFileSync(file, WEAVE);
    const out: string[] = [];
    expect(
      run(
        ['trace', file, '--to', '10.0.0.2:80/tcp', '--from', '10.0.0.1', '--entry', 'pod'],
        (s) => out.push(s),
        () => {},
      ),
    ).toBe(0);
    const text = out.join('\n');
    expect(text).toContain('alternatives');
    expect(text).not.toMatch(/25%|50%/);
    expect(text.match(/^\s+100%\s+(DROP|ACCEPT)$/gm)).toHaveLength(2);
    const json: string[] = [];
    run(
      ['trace', file, '--to', '10.0.0.2:80/tcp', '--from', '10.0.0.1', '--json'],
      (s) => json.push(s),
      () => {},
    );
    const parsed = JSON.parse(json.join('\n')) as { outcomes: { probability: number; conditions: { condition: string; holds: boolean }[] }[]; moreOutcomes: number };
    expect(parsed.outcomes.map((o) => [o.probability, o.conditions])).toEqual([
      [1, [{ condition: 'iface out weave', holds: false }]],
      [1, [{ condition: 'iface out weave', holds: true }]],
    ]);
    expect(parsed.moreOutcomes).toBe(0);
  });
});

/** A Shorewall-like firewall: a chain per zone and per zone pair, each testing interfaces and ipsets. */
function shorewallLike(zones: number): string {
  const ifs = Array.from({ length: zones }, (_, i) => `eth${i}`);
  const lines = ['*filter', ':INPUT DROP [0:0]', ':FORWARD DROP [0:0]', ':OUTPUT ACCEPT [0:0]'];
  for (const a of ifs) {
    lines.push(`:${a}_fwd - [0:0]`);
    for (const b of ifs) lines.push(`:${a}2${b} - [0:0]`);
  }
  for (const a of ifs) lines.push(`-A FORWARD -i ${a} -j ${a}_fwd`);
  for (const a of ifs) {
    lines.push(`-A ${a}_fwd -m set --match-set blacklist src -j DROP`, `-A ${a}_fwd -m set --match-set dynamic src -j DROP`);
    for (const b of ifs) lines.push(`-A ${a}_fwd -o ${b} -j ${a}2${b}`);
    for (const b of ifs) {
      lines.push(`-A ${a}2${b} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`);
      lines.push(`-A ${a}2${b} -m set --match-set admins src -p tcp -m tcp --dport 22 -j ACCEPT`);
      lines.push(`-A ${a}2${b} -p tcp -m multiport --dports 80,443 -j ACCEPT`);
      lines.push(`-A ${a}2${b} -m limit --limit 1/sec -j LOG --log-prefix "${a}2${b} REJECT "`);
      lines.push(`-A ${a}2${b} -j REJECT`);
    }
  }
  lines.push('COMMIT', '*nat', ':PREROUTING ACCEPT [0:0]', ':POSTROUTING ACCEPT [0:0]', '-A POSTROUTING -o eth0 -s 10.0.0.0/8 -j MASQUERADE', 'COMMIT', '');
  return lines.join('\n');
}

/** A Docker-like firewall: one bridge per network, isolation between them. */
function dockerLike(networks: number): string {
  const brs = Array.from({ length: networks }, (_, i) => `br-${(0xabc000 + i).toString(16)}`);
  const lines = [
    '*filter',
    ':FORWARD DROP [0:0]',
    ':DOCKER - [0:0]',
    ':DOCKER-USER - [0:0]',
    ':DOCKER-ISOLATION-STAGE-1 - [0:0]',
    ':DOCKER-ISOLATION-STAGE-2 - [0:0]',
    '-A FORWARD -j DOCKER-USER',
    '-A FORWARD -j DOCKER-ISOLATION-STAGE-1',
  ];
  for (const br of brs)
    lines.push(`-A FORWARD -o ${br} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`, `-A FORWARD -o ${br} -j DOCKER`, `-A FORWARD -i ${br} ! -o ${br} -j ACCEPT`, `-A FORWARD -i ${br} -o ${br} -j ACCEPT`);
  for (const [i, br] of brs.entries()) lines.push(`-A DOCKER -d 172.${18 + i}.0.2/32 ! -i ${br} -o ${br} -p tcp -m tcp --dport 80 -j ACCEPT`);
  for (const br of brs) lines.push(`-A DOCKER-ISOLATION-STAGE-1 -i ${br} ! -o ${br} -j DOCKER-ISOLATION-STAGE-2`);
  for (const br of brs) lines.push(`-A DOCKER-ISOLATION-STAGE-2 -o ${br} -j DROP`);
  lines.push(
    '-A DOCKER-ISOLATION-STAGE-1 -j RETURN',
    '-A DOCKER-ISOLATION-STAGE-2 -j RETURN',
    '-A DOCKER-USER -j RETURN',
    'COMMIT',
    '*nat',
    ':PREROUTING ACCEPT [0:0]',
    ':POSTROUTING ACCEPT [0:0]',
    ':DOCKER - [0:0]',
    '-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER',
  );
  for (const [i, br] of brs.entries()) lines.push(`-A POSTROUTING -s 172.${18 + i}.0.0/16 ! -o ${br} -j MASQUERADE`, `-A DOCKER -i ${br} -j RETURN`);
  lines.push('-A DOCKER ! -i br-abc000 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 172.18.0.2:80', 'COMMIT', '');
  return lines.join('\n');
}

describe('trace output stays proportionate on ordinary firewalls', () => {
  it('a Shorewall-like firewall of 8 zones: a handful of outcomes, small JSON', () => {
    const text = shorewallLike(8);
    const r = trace('shorewall.iptables', text, { to: '10.20.0.2', from: '10.30.0.1' });
    // Before: the 4,096-branch cap, and shares of 2^-n per guess.
    expect(r.warnings.join(' ')).not.toMatch(/stopped/);
    // Whatever zone it comes from: blacklisted → DROP, … Interfaces that lead to the same answer are one condition.
    const eths = 'eth0,eth1,eth2,eth3,eth4,eth5,eth6,eth7';
    const none = (dir: string) => eths.split(',').map((e) => `!iface ${dir} ${e}`);
    const shape = (o: Outcome) =>
      `${o.verdict}${o.masquerade ? ' masq' : ''}: ${o.conditions
        .map((c) => `${c.holds ? '' : '!'}${c.key}`)
        .sort()
        .join(' & ')}`;
    expect(r.outcomes.map(shape).sort()).toEqual([
      `accept masq: !ipset blacklist src & !ipset dynamic src & iface in ${eths} & iface out eth0`,
      `accept: !ipset blacklist src & !ipset dynamic src & iface in ${eths} & iface out ${eths.slice(5)}`,
      `drop: ${none('in').join(' & ')}`,
      `drop: ${['!ipset blacklist src', '!ipset dynamic src', `iface in ${eths}`, ...none('out')].sort().join(' & ')}`,
      `drop: !ipset blacklist src & iface in ${eths} & ipset dynamic src`,
      `drop: iface in ${eths} & ipset blacklist src`,
    ]);
    expect(JSON.stringify(traceToJson(r, ['shorewall.iptables'])).length).toBeLessThan(20_000);
  });

  it('a Docker-like host of 12 networks: outcomes grow with the networks, not exponentially', () => {
    const text = dockerLike(12);
    const r = trace('docker.iptables', text, { to: '192.168.1.10', dport: 8080, from: '203.0.113.5', entry: 'external', nodeIPs: ['192.168.1.10'] });
    expect(r.warnings.join(' ')).not.toMatch(/stopped/);
    expect(r.outcomes.length).toBeLessThanOrEqual(16);
    expect(JSON.stringify(traceToJson(r, ['docker.iptables'])).length).toBeLessThan(100_000);
  });

  it('past 32 outcomes the CLI and JSON say how many more there are', () => {
    // 40 destinations, each behind its own interface: 41 outcomes that no condition merges.
    const rules = Array.from({ length: 40 }, (_, i) => `-A PREROUTING -i veth${i} -j DNAT --to-destination 10.1.0.${i + 1}:80`);
    const text = ['*nat', ':PREROUTING ACCEPT [0:0]', ...rules, 'COMMIT', ''].join('\n');
    const r = trace('many.iptables', text);
    expect(r.outcomes).toHaveLength(41);
    const json = traceToJson(r, ['many.iptables']) as { outcomes: unknown[]; moreOutcomes: number };
    expect(json.outcomes).toHaveLength(32);
    expect(json.moreOutcomes).toBe(9);
    const dir = mkdtempSync(join(tmpdir(), 'dataplane-many-'));
    writeFileSync(join(dir, 'many.iptables'), text);
    const out: string[] = [];
    run(
      ['trace', join(dir, 'many.iptables'), '--to', '10.0.0.2:80', '--from', '10.0.0.1'],
      (s) => out.push(s),
      () => {},
    );
    expect(out.join('\n')).toContain('… 9 more outcomes not shown');
  });
});

// Random rulesets with interface, ipset, mark and random conditions, rendered for iptables and nft.
type Test = { kind: 'iif' | 'oif'; name: string; not: boolean } | { kind: 'set'; name: string; not: boolean } | { kind: 'mark'; value: number; not: boolean } | { kind: 'random' };
type Action = { kind: 'verdict'; v: 'ACCEPT' | 'DROP' | 'REJECT' | 'RETURN' } | { kind: 'jump'; to: number } | { kind: 'mark'; value: number } | { kind: 'dnat'; host: number };
type GenRule = { tests: Test[]; action: Action };

const IFACES = ['eth0', 'eth1', 'eth+', 'weave', 'cali+'];
const testArb: fc.Arbitrary<Test> = fc.oneof(
  fc.record({ kind: fc.constantFrom('iif' as const, 'oif' as const), name: fc.constantFrom(...IFACES), not: fc.boolean() }),
  fc.record({ kind: fc.constant('set' as const), name: fc.constantFrom('S1', 'S2'), not: fc.boolean() }),
  fc.record({ kind: fc.constant('mark' as const), value: fc.constantFrom(1, 2), not: fc.boolean() }),
  fc.constant({ kind: 'random' as const }),
);
const actionArb = (chain: number, chains: number): fc.Arbitrary<Action> =>
  fc.oneof(
    fc.record({ kind: fc.constant('verdict' as const), v: fc.constantFrom('ACCEPT' as const, 'DROP' as const, 'REJECT' as const, 'RETURN' as const) }),
    ...(chain + 1 < chains ? [fc.record({ kind: fc.constant('jump' as const), to: fc.integer({ min: chain + 1, max: chains - 1 }) })] : []),
    fc.record({ kind: fc.constant('mark' as const), value: fc.constantFrom(1, 2) }),
    fc.record({ kind: fc.constant('dnat' as const), host: fc.integer({ min: 1, max: 3 }) }),
  );
const CHAINS = 3;
const rulesetArb = fc.tuple(...Array.from({ length: CHAINS }, (_, c) => fc.array(fc.record({ tests: fc.array(testArb, { maxLength: 3 }), action: actionArb(c, CHAINS) }), { maxLength: 5 })));
const chainName = (c: number) => (c === 0 ? 'PREROUTING' : `C${c}`);

function iptablesText(chains: GenRule[][]): string {
  const test = (x: Test) =>
    x.kind === 'iif' || x.kind === 'oif'
      ? `${x.not ? '! ' : ''}${x.kind === 'iif' ? '-i' : '-o'} ${x.name}`
      : x.kind === 'set'
        ? `-m set ${x.not ? '! ' : ''}--match-set ${x.name} src`
        : x.kind === 'mark'
          ? `-m mark ${x.not ? '! ' : ''}--mark 0x${x.value}`
          : '-m statistic --mode random --probability 0.5';
  const action = (a: Action) =>
    a.kind === 'verdict' ? `-j ${a.v}` : a.kind === 'jump' ? `-j ${chainName(a.to)}` : a.kind === 'mark' ? `-j MARK --set-xmark 0x${a.value}/0xffffffff` : `-j DNAT --to-destination 10.9.0.${a.host}:80`;
  const lines = ['*nat', ':PREROUTING ACCEPT [0:0]', ':POSTROUTING ACCEPT [0:0]', ...chains.slice(1).map((_, i) => `:C${i + 1} - [0:0]`)];
  chains.forEach((rules, c) => rules.forEach((r) => lines.push(`-A ${chainName(c)} ${[...r.tests.map(test), action(r.action)].join(' ')}`.replace(/ -o /g, ' -i ').replace(/! -o/g, '! -i'))));
  lines.push('COMMIT', '*filter', ':FORWARD ACCEPT [0:0]', ...chains.slice(1).map((_, i) => `:C${i + 1} - [0:0]`));
  chains.forEach((rules, c) => rules.forEach((r) => lines.push(`-A ${c === 0 ? 'FORWARD' : `C${c}`} ${[...r.tests.map(test), r.action.kind === 'dnat' ? '-j ACCEPT' : action(r.action)].join(' ')}`)));
  lines.push('COMMIT', '');
  return lines.join('\n');
}

function nftText(chains: GenRule[][]): string {
  const test = (x: Test) =>
    x.kind === 'iif' || x.kind === 'oif'
      ? `${x.kind === 'iif' ? 'iifname' : 'oifname'} ${x.not ? '!= ' : ''}"${x.name.replace('+', '*')}"`
      : x.kind === 'set'
        ? `ip saddr ${x.not ? '!= ' : ''}@${x.name}`
        : x.kind === 'mark'
          ? `meta mark ${x.not ? '!= ' : ''}0x${x.value}`
          : 'numgen random mod 2 0';
  const action = (a: Action) => (a.kind === 'verdict' ? a.v.toLowerCase() : a.kind === 'jump' ? `jump c${a.to}` : a.kind === 'mark' ? `meta mark set 0x${a.value}` : 'accept');
  const body = chains.map(
    (rules, c) =>
      `\tchain ${c === 0 ? 'forward' : `c${c}`} {\n${c === 0 ? '\t\ttype filter hook forward priority 0; policy accept;\n' : ''}${rules
        .filter((r) => !r.tests.some((x) => x.kind === 'random'))
        .map((r) => `\t\t${[...r.tests.map(test), action(r.action)].join(' ')}\n`)
        .join('')}\t}\n`,
  );
  return `table ip t {\n${body.join('')}}\n`;
}

/** Complete assignments of the outcomes' conditions that one packet can meet (an interface is one name each way). */
function worlds(outcomes: Outcome[]): Condition[][] {
  const keys = new Map<string, Condition>();
  for (const o of outcomes) for (const c of o.conditions) keys.set(c.key, c);
  let all: Condition[][] = [[]];
  for (const c of keys.values()) {
    all = all.flatMap((w) =>
      [true, false].flatMap((holds) => {
        const known0 = known(w, { key: c.key, label: '', labelNot: '', iface: c.iface });
        return known0 === undefined || known0 === holds ? [[...w, { ...c, holds }]] : [];
      }),
    );
  }
  return all;
}

function checkOutcomes(outcomes: Outcome[], what: string): void {
  for (const o of outcomes) {
    // No outcome holds a condition and its negation (nor two interfaces one way).
    const keys = o.conditions.map((c) => c.key);
    expect(new Set(keys).size, what).toBe(keys.length);
    for (const [i, c] of o.conditions.entries()) {
      const decided = known(
        o.conditions.filter((_, j) => j !== i),
        { key: c.key, label: '', labelNot: '', iface: c.iface },
      );
      expect(decided, `${what}: ${o.assumptions.join('; ')}`).not.toBe(!c.holds);
    }
  }
  // Outcomes alike under the same conditions are one.
  const keyOf = (o: Outcome) => JSON.stringify([o.verdict, o.destination, o.masquerade, o.conditions.map((c) => `${c.holds}${c.key}`).sort()]);
  expect(new Set(outcomes.map(keyOf)).size, what).toBe(outcomes.length);
  // In every situation the conditions describe, the outcomes that apply share 100% of new connections.
  for (const w of worlds(outcomes)) {
    const holds = new Map(w.map((c) => [c.key, c.holds]));
    const applies = outcomes.filter((o) => o.conditions.every((c) => holds.get(c.key) === c.holds));
    expect(
      applies.reduce((s, o) => s + o.probability, 0),
      `${what} in ${JSON.stringify([...holds])}`,
    ).toBeCloseTo(1, 9);
  }
  // The groups the graph highlight and the coverage warning read are such situations too.
  for (const g of assumptionGroups(outcomes))
    expect(
      g.reduce((s, i) => s + outcomes[i].probability, 0),
      what,
    ).toBeCloseTo(1, 9);
}

describe('property: assumptions are consistent facts, merged, and shares sum to 1 under each', () => {
  it('random iptables and nft rulesets with interface, ipset, mark and random conditions', () => {
    fc.assert(
      fc.property(rulesetArb, (chains) => {
        const ipt = iptablesText(chains);
        checkOutcomes(trace('p.iptables', ipt).outcomes, ipt);
        const nft = nftText(chains);
        checkOutcomes(trace('p.nft', nft).outcomes, nft);
      }),
      { numRuns: 200, seed: 24 },
    );
  });
});
