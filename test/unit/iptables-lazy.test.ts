// Rules keep their chain, line and target name; params, matches, target and counters are read again from the
// line when first asked for (issue #8). Whatever order features ask in, and whether or not the details are
// kept, they must be what an eager read gives.
import { describe, expect, it } from 'vitest';
import { generateIptablesDump, randomServices } from '../../src/core/kube/generate/iptables';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import { withTransientRuleDetails } from '../../src/core/parse/iptables/nodes';
import { buildCatalog } from '../../src/core/kube/catalog';
import type { Rule } from '../../src/core/model/iptables';
import { plainRule, plainRuleset } from '../helpers/iptables-plain';

const dump = generateIptablesDump({ services: randomServices(25, 4, 5), style: 'iptables-nft-save', counters: true, nodeRules: true });
const allRules = (text: string): Rule[] => parseIptables(text).tables.flatMap((tb) => tb.rules);

describe('lazy iptables rule details', () => {
  it('are the same read in file order, in reverse order, or inside a transient pass', () => {
    const inOrder = allRules(dump).map(plainRule);
    const reversed = allRules(dump).reverse().map(plainRule).reverse();
    const transient = withTransientRuleDetails(() => allRules(dump).map(plainRule));
    expect(reversed).toEqual(inOrder);
    expect(transient).toEqual(inOrder);
    expect(inOrder.some((r) => r.matches.length > 2 && r.target?.options.length)).toBe(true);
  });

  it('read in a transient pass are read again (equal, not the same objects) afterwards, then kept', () => {
    const rules = allRules(dump);
    const dnat = rules.find((r) => r.targetName === 'DNAT')!;
    const during = withTransientRuleDetails(() => [dnat.target, dnat.target]);
    expect(during[0]).toBe(during[1]); // one pass asks the same rule repeatedly: remembered meanwhile
    const after = dnat.target;
    expect(after).not.toBe(during[0]);
    expect(dnat.target).toBe(after);
    expect(after?.options.map((o) => o.name)).toEqual(['--to-destination']);
  });

  it('the catalog leaves the model as an eager read would see it', () => {
    const a = parseIptables(dump);
    const b = parseIptables(dump);
    buildCatalog(a);
    expect(plainRuleset(a)).toEqual(plainRuleset(b));
  });

  it('targetName is the target name of every rule, without building it', () => {
    for (const r of allRules(dump)) expect(r.targetName).toBe(r.target?.name);
  });

  it('plainDestination is what params say of the first -d, on plain, negated, aliased, quoted and odd lines', () => {
    const odd = [
      '-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m tcp --dport 443 -j KUBE-SVC-A',
      '-A KUBE-SERVICES ! -d 10.96.0.2/32 -j KUBE-MARK-MASQ',
      '-A KUBE-SERVICES --destination 10.96.0.3 -j RETURN',
      '-A KUBE-SERVICES --dst fd00::10/128 -j RETURN',
      '-A KUBE-SERVICES -d "10.96.0.4/32" -j RETURN',
      '-A KUBE-SERVICES -d 10.96.0.5/32 -d 10.96.0.6/32 -j RETURN',
      '-A KUBE-SERVICES -d ! 10.96.0.7/32 -j RETURN',
      '-A KUBE-SERVICES -d -j RETURN',
      '-A KUBE-SERVICES -m comment --comment "-d 10.9.9.9/32" -j RETURN',
      '-A KUBE-SERVICES\t-d 10.96.0.8/32 -j RETURN',
      '[1:2] -A KUBE-SERVICES -d 10.96.0.9/32,10.96.0.10/32 -j RETURN',
      '-I KUBE-SERVICES 1 -d 10.96.0.11/32 -j RETURN',
      '-A KUBE-SERVICES -s 10.0.0.0/8 -j RETURN',
    ];
    const text = `*nat\n:KUBE-SERVICES - [0:0]\n:KUBE-MARK-MASQ - [0:0]\n:KUBE-SVC-A - [0:0]\n${odd.join('\n')}\nCOMMIT\n`;
    const rules = [...allRules(text), ...allRules(dump)];
    expect(rules.length).toBeGreaterThan(odd.length);
    for (const rule of rules) {
      const d = rule.params.find((p) => p.name === '-d');
      expect([rule.raw, rule.plainDestination ?? undefined]).toEqual([rule.raw, d && !d.negated ? d.values[0] : undefined]);
    }
    const byLine = allRules(text).map((r) => r.plainDestination);
    expect(byLine.slice(0, 8)).toEqual(['10.96.0.1/32', null, '10.96.0.3', 'fd00::10/128', '10.96.0.4/32', '10.96.0.5/32', null, null]);
  });

  it('rules by line answer like a map', () => {
    const r = parseIptables(dump);
    const lines = [...r.ruleByLine.keys()];
    expect(lines.length).toBe(r.ruleByLine.size);
    expect(lines).toEqual([...lines].sort((x, y) => x - y));
    for (const tb of r.tables) for (const rule of tb.rules) expect(r.ruleByLine.get(rule.range.start.line)).toBe(rule);
    expect(r.ruleByLine.get(-1)).toBeUndefined();
    expect(r.ruleByLine.get(1.5)).toBeUndefined();
    expect(r.ruleByLine.get(r.lineCount + 10)).toBeUndefined();
    expect(r.ruleByLine.get(0)).toBeUndefined(); // the header comment
  });

  it('target names that are Object.prototype properties are chains, not extensions', () => {
    const r = parseIptables('*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j constructor\n-A INPUT -j toString\nCOMMIT\n');
    const rules = r.tables[0].rules;
    expect(rules.map((x) => x.target?.kind)).toEqual(['jump', 'jump']);
    expect(r.diagnostics.filter((d) => d.code === 'undefined-chain').map((d) => d.range.start.line)).toEqual([2, 3]);
  });
});
