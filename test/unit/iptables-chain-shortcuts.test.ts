// What the parser notes for the catalog while it reads the rules must answer what a lookup would: the chain a
// rule's target names (found by name in the table), and each chain's first DNAT rule (found by a search).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { parseIptables, type ParseMode } from '../../src/core/parse/iptables/parser';
import { ChainNode, RuleNode } from '../../src/core/parse/iptables/nodes';

function expectShortcutsHold(text: string, mode: ParseMode): number {
  const ruleset = parseIptables(text, { mode });
  let known = 0;
  for (const table of ruleset.tables) {
    for (const rule of table.rules) {
      expect(rule).toBeInstanceOf(RuleNode);
      const chain = (rule as RuleNode).knownTargetChain();
      if (chain === undefined) continue;
      known++;
      expect(chain.name, rule.raw).toBe(rule.targetName);
      expect(table.chainByName.get(rule.targetName!), rule.raw).toBe(chain);
    }
    for (const chain of table.chains) {
      expect(chain).toBeInstanceOf(ChainNode);
      expect((chain as ChainNode).firstDnatRule(), chain.name).toBe(chain.rules.find((r) => r.targetName === 'DNAT'));
    }
  }
  return known;
}

const TRICKY = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]',
  ':KUBE-SEP-A - [0:0]',
  '-A KUBE-SEP-A -j KUBE-MARK-MASQ',
  '-A KUBE-SEP-A -p tcp -j DNAT --to-destination 10.0.0.1:80',
  '-A KUBE-SEP-A -p tcp -j DNAT --to-destination 10.0.0.2:80',
  '-A KUBE-SEP-B -j DNAT --to-destination 10.0.0.3:80',
  ':KUBE-SEP-B - [0:0]',
  '-A PREROUTING -j KUBE-LATER',
  ':KUBE-LATER - [0:0]',
  '-A KUBE-LATER -g KUBE-SEP-A',
  '-I KUBE-LATER 1 -j KUBE-SEP-B',
  '-D KUBE-LATER -j KUBE-SEP-B',
  '-A KUBE-LATER -j DNAT',
  '-A KUBE-LATER -j "KUBE-SEP-A"',
  '-A KUBE-LATER -m comment --comment x -j KUBE-SEP-A',
  '-A KUBE-LATER -j RETURN',
  '-N DNAT',
  '-A DNAT -j DNAT --to-destination 10.0.0.4',
  '-A KUBE-SEP-C -j MASQUERADE',
  '-A KUBE-SEP-C -j DNAT --to-destination 10.0.0.5:80',
  '-X KUBE-SEP-C',
  ':KUBE-SEP-C - [0:0]',
  '-A KUBE-SEP-C -j DNAT --to-destination 10.0.0.6:80',
  'COMMIT',
  '*filter',
  ':KUBE-SEP-A - [0:0]',
  '-A INPUT -j KUBE-SEP-A',
  'COMMIT',
  '',
].join('\n');

describe('what the iptables parser notes for the catalog', () => {
  it('holds on kube-proxy dumps, in every parser mode', () => {
    for (const mode of ['fast', 'scan', 'chevrotain'] as const) {
      for (const style of ['iptables-nft-save', 'iptables-legacy-save', 'restore-input'] as const) {
        const dump = generateIptablesDump({ services: randomServices(25, 3, 8), style, nodeRules: true, comments: style !== 'restore-input' });
        expect(expectShortcutsHold(dump, mode)).toBeGreaterThan(50);
      }
    }
  });

  it('holds on chains used before they are declared, deleted, re-declared, and named like targets', () => {
    for (const mode of ['fast', 'scan', 'chevrotain'] as const) expect(expectShortcutsHold(TRICKY, mode)).toBeGreaterThan(3);
  });

  it('holds on randomly mutated dumps', () => {
    const base = generateIptablesDump({ services: randomServices(5, 2, 9), style: 'iptables-nft-save', nodeRules: true }).split('\n');
    const piece = fc.constantFrom(' ', '!', '"', '-j DNAT', '-j KUBE-SEP-', '-g ', 'DNAT', ':KUBE-SEP-X - [0:0]', '-X ', '-N ', '-A ', 'COMMIT', '*nat', '\n');
    fc.assert(
      fc.property(fc.nat(), fc.nat(), piece, fc.nat(), (line, at, text, dup) => {
        const lines = base.slice();
        const k = line % lines.length;
        lines[k] = lines[k].slice(0, at % (lines[k].length + 1)) + text + lines[k].slice(at % (lines[k].length + 1));
        lines.splice(dup % lines.length, 0, lines[(dup * 7) % lines.length]);
        expectShortcutsHold(lines.join('\n'), 'fast');
      }),
      { numRuns: 150, seed: 17 },
    );
  });
});
