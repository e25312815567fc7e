// `-m recent` evaluated as the kernel's xt_recent does (net/netfilter/xt_recent.c, recent_mt): --set records and
// matches, --rcheck/--update count the stamps within --seconds against --hitcount, --remove forgets; what a list held
// before this connection is an unknown fact, decided once per path. The SSH rate limit is the classic Docker-host /
// server recipe (`-m state --state NEW -m recent --set` then `--update --seconds 60 --hitcount 3 -j DROP`). The rules
// here load in `iptables-restore --test` and `iptables-legacy-restore --test` (and the nft one in `nft -c -f`), checked
// in a throw-away network namespace.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type Outcome, type SnapshotFile as TraceFile, type TraceRequest } from '../../src/core/trace';
import { explainRecent } from '../../src/core/explain/iptables';
import { assumptionGroups, compatible } from '../../src/core/trace/facts';
import type { Condition } from '../../src/core/trace/types';

const files = (text: string): TraceFile[] => [{ name: 'f.iptables', analysis: analyzeFile('f.iptables', text)!.analysis as TraceFile['analysis'] }];
const trace = (text: string, request: Partial<TraceRequest> = {}) =>
  traceSnapshot(files(text), { to: '192.0.2.10', dport: 22, protocol: 'tcp', from: '198.51.100.7', entry: 'external', nodeIPs: ['192.0.2.10'], ...request });
const summary = (outcomes: Outcome[]) => outcomes.map((o) => `${Number(o.probability.toFixed(4))} ${o.verdict} [${o.assumptions.join('; ')}]`).sort();
const input = (rules: string[], chains: string[] = []) => ['*filter', ':INPUT ACCEPT [0:0]', ...chains.map((c) => `:${c} - [0:0]`), ...rules, 'COMMIT', ''].join('\n');

const SSH = input(['-A INPUT -p tcp --dport 22 -m state --state NEW -m recent --set', '-A INPUT -p tcp --dport 22 -m state --state NEW -m recent --update --seconds 60 --hitcount 3 -j DROP']);

describe('-m recent evaluated literally', () => {
  it('the SSH rate limit: dropped only when the list saw the client twice more in the last minute, no affinity story', () => {
    const r = trace(SSH);
    expect(summary(r.outcomes)).toEqual([
      '1 accept [assuming recent list DEFAULT saw 198.51.100.7 fewer than 2 times in the last 60 s before this connection]',
      '1 drop [assuming recent list DEFAULT saw 198.51.100.7 at least 2 times in the last 60 s before this connection]',
    ]);
    for (const o of r.outcomes) expect(o.notes.join(' ')).not.toMatch(/affinity|endpoint/i);
  });

  it('--set then --rcheck on the same list in one path is certain; another list is not', () => {
    const same = trace(input(['-A INPUT -m recent --set --name A', '-A INPUT -m recent --rcheck --name A -j DROP']));
    expect(summary(same.outcomes)).toEqual(['1 drop []']);
    const other = trace(input(['-A INPUT -m recent --set --name A', '-A INPUT -m recent --rcheck --name B -j DROP']));
    expect(summary(other.outcomes)).toEqual(['1 accept [assuming 198.51.100.7 is not in recent list B]', '1 drop [assuming 198.51.100.7 is in recent list B from earlier connections]']);
  });

  it('--remove forgets the address: a later --rcheck is certain not to match', () => {
    const r = trace(input(['-A INPUT -m recent --set --name A', '-A INPUT -m recent --remove --name A', '-A INPUT -m recent --rcheck --name A -j DROP']));
    expect(summary(r.outcomes)).toEqual(['1 accept []']);
  });

  it('the history is decided once per path: a second test of the same list follows the first', () => {
    const r = trace(input(['-A INPUT -m recent --rcheck --seconds 60 --name A -j LOG', '-A INPUT -m recent --rcheck --seconds 60 --name A -j DROP']));
    expect(r.outcomes).toHaveLength(2);
    // Seen in the last 60 s implies seen at all; not seen at all implies not in the last 60 s.
    const implied = trace(input(['-A INPUT -m recent --rcheck --seconds 60 --name A -j FOO', '-A INPUT -m recent --rcheck --name A -j DROP', '-A FOO -j RETURN'], ['FOO']));
    expect(summary(implied.outcomes)).toEqual([
      '1 accept [assuming 198.51.100.7 is not in recent list A]',
      '1 drop [assuming recent list A did not see 198.51.100.7 in the last 60 s before this connection; assuming 198.51.100.7 is in recent list A from earlier connections]',
      '1 drop [assuming recent list A saw 198.51.100.7 in the last 60 s before this connection]',
    ]);
  });

  it('! inverts the result; --rdest keys on the destination; --mask on the network', () => {
    const inverted = trace(input(['-A INPUT -m recent --set --name A', '-A INPUT -m recent ! --rcheck --name A -j DROP']));
    expect(summary(inverted.outcomes)).toEqual(['1 accept []']);
    const dest = trace(input(['-A INPUT -m recent --set --name A --rdest', '-A INPUT -m recent --rcheck --name A --rsource -j DROP']));
    expect(dest.outcomes.map((o) => o.verdict).sort()).toEqual(['accept', 'drop']);
    expect(dest.outcomes.flatMap((o) => o.assumptions).join(' ')).toContain('198.51.100.7');
    const masked = trace(input(['-A INPUT -m recent --rcheck --name A --mask 255.255.255.0 -j DROP']));
    expect(masked.outcomes.flatMap((o) => o.assumptions).join(' ')).toContain('198.51.100.0 ');
  });

  it('--update stamps again when it matches: a later --rcheck with a higher --hitcount needs one stamp less', () => {
    const r = trace(input(['-A INPUT -m recent --update --name A -j FOO', '-A INPUT -m recent --rcheck --hitcount 2 --name A -j DROP', '-A FOO -j RETURN'], ['FOO']));
    // Seen before: --update stamps now, so two stamps: DROP for certain. Not seen: not seen twice either.
    expect(summary(r.outcomes)).toEqual(['1 accept [assuming 198.51.100.7 is not in recent list A]', '1 drop [assuming 198.51.100.7 is in recent list A from earlier connections]']);
  });

  it('kube-proxy affinity keeps its story: a new client, with what a returning one gets', () => {
    const text = [
      '*nat',
      ':OUTPUT ACCEPT [0:0]',
      ':KUBE-SVC-AAAAAAAAAAAAAAAA - [0:0]',
      ':KUBE-SEP-BBBBBBBBBBBBBBBB - [0:0]',
      '-A OUTPUT -d 10.96.0.5/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-AAAAAAAAAAAAAAAA',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-BBBBBBBBBBBBBBBB --mask 255.255.255.255 --rsource -j KUBE-SEP-BBBBBBBBBBBBBBBB',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA -j KUBE-SEP-BBBBBBBBBBBBBBBB',
      '-A KUBE-SEP-BBBBBBBBBBBBBBBB -p tcp -m recent --set --name KUBE-SEP-BBBBBBBBBBBBBBBB --mask 255.255.255.255 --rsource -m tcp -j DNAT --to-destination 10.244.1.5:80',
      'COMMIT',
      '',
    ].join('\n');
    const r = trace(text, { to: '10.96.0.5', dport: 80, entry: 'node', from: '192.0.2.10' });
    expect(summary(r.outcomes)).toEqual(['1 dnat []']);
    expect(r.outcomes[0].notes.join(' ')).toMatch(/goes back to the endpoint it used before/);
  });
});

describe('the -m recent hover', () => {
  it("calls only kube-proxy's own lists session affinity", () => {
    const a = analyzeFile('f.iptables', SSH)!.analysis as Parameters<typeof explainRecent>[0];
    const rules = a.ruleset.tables[0].chains[0].rules;
    for (const rule of rules) expect(String(explainRecent(a, rule, undefined))).not.toMatch(/affinity|endpoint/i);
    expect(String(explainRecent(a, rules[1], undefined))).toMatch(/60/);
  });
});

describe('nft sets filled at run time', () => {
  it("a blocklist fed by a meter is an unknown, not session affinity; the meter's limit is a condition", () => {
    const text = [
      'table inet filter {',
      '\tset blackhole {',
      '\t\ttype ipv4_addr',
      '\t\tflags dynamic,timeout',
      '\t\ttimeout 1m',
      '\t}',
      '\tchain input {',
      '\t\ttype filter hook input priority filter; policy accept;',
      '\t\tip saddr @blackhole drop',
      '\t\ttcp dport 22 ct state new add @blackhole { ip saddr limit rate over 3/minute } drop',
      '\t}',
      '}',
      '',
    ].join('\n');
    const r = traceSnapshot([{ name: 'f.nft', analysis: analyzeFile('f.nft', text)!.analysis as TraceFile['analysis'] }], {
      to: '192.0.2.10',
      dport: 22,
      protocol: 'tcp',
      from: '198.51.100.7',
      entry: 'external',
      nodeIPs: ['192.0.2.10'],
    });
    // Checked with `nft -c -f` in a throw-away namespace.
    expect(summary(r.outcomes)).toEqual([
      '1 accept [assuming the packet is not in set blackhole; assuming limit rate over 3/minute holds the packet back]',
      '1 drop [assuming the packet is in set blackhole (filled at run time)]',
      '1 drop [assuming the packet is not in set blackhole; assuming limit rate over 3/minute lets the packet through]',
    ]);
    for (const o of r.outcomes) expect(o.notes.join(' ')).not.toMatch(/affinity/i);
  });
});

describe('property: recent-list histories are consistent facts; shares sum to 1 in every consistent situation', () => {
  const ruleArb = fc.record({
    command: fc.constantFrom('--set', '--rcheck', '--update', '--remove'),
    name: fc.constantFrom('A', 'B'),
    seconds: fc.constantFrom(0, 10, 60),
    hitcount: fc.constantFrom(0, 1, 2, 3),
    not: fc.boolean(),
    target: fc.constantFrom('', ' -j DROP', ' -j ACCEPT', ' -j LOG'),
  });
  const ruleText = (r: { command: string; name: string; seconds: number; hitcount: number; not: boolean; target: string }) => {
    const check = r.command === '--rcheck' || r.command === '--update';
    const extra = check ? `${r.seconds ? ` --seconds ${r.seconds}` : ''}${r.hitcount ? ` --hitcount ${r.hitcount}` : ''}` : '';
    return `-A INPUT -m recent ${r.not ? '! ' : ''}${r.command}${extra} --name ${r.name}${r.target}`;
  };

  it('random -m recent rules', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 6 }), (rules) => {
        const text = input(rules.map(ruleText));
        const outcomes = trace(text).outcomes;
        for (const o of outcomes) expect(compatible(o.conditions, o.conditions), text).toBe(true);
        for (const g of assumptionGroups(outcomes))
          expect(
            g.reduce((sum, i) => sum + outcomes[i].probability, 0),
            text,
          ).toBeCloseTo(1, 9);
        // Every assignment of the conditions that can hold together: the outcomes that apply share 100 %.
        const all = [...new Map(outcomes.flatMap((o) => o.conditions).map((c) => [c.key, c])).values()];
        for (let bits = 0; bits < 1 << all.length; bits++) {
          const world: Condition[] = all.map((c, i) => ({ ...c, holds: Boolean(bits & (1 << i)) }));
          if (!compatible(world, world)) continue;
          const holds = new Map(world.map((c) => [c.key, c.holds]));
          const applies = outcomes.filter((o) => o.conditions.every((c) => holds.get(c.key) === c.holds));
          expect(
            applies.reduce((sum, o) => sum + o.probability, 0),
            `${text} in ${JSON.stringify([...holds])}`,
          ).toBeCloseTo(1, 9);
        }
      }),
      { numRuns: 300, seed: 25 },
    );
  });
});
