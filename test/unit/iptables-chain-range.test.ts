// A chain's full range runs from its declaration to its last rule, found once every line is read (issue #8): rules
// read before the chain's last declaration do not extend it, whatever order restore input writes them in.
import { describe, expect, it } from 'vitest';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import type { Range } from '../../src/core/model/range';

const text = (r: Range) => `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
const fullRanges = (lines: string[], mode: 'fast' | 'chevrotain') => parseIptables(lines.join('\n'), { mode }).tables.flatMap((tb) => tb.chains.map((c) => `${c.name} ${text(c.fullRange)}`));

describe('iptables chain full ranges', () => {
  const cases: [string, string[], string[]][] = [
    ['rules before the declaration', ['*filter', '-A X -j ACCEPT', ':X - [0:0]', 'COMMIT'], ['X 2:0-2:10']],
    ['rules before and after the declaration', ['*filter', '-A X -j ACCEPT', ':X - [0:0]', '-A X -j DROP', 'COMMIT'], ['X 2:0-3:12']],
    ['declared twice, rules in between', ['*filter', ':X - [0:0]', '-A X -j ACCEPT', ':X - [0:0]', '-A Y -j X', 'COMMIT'], ['X 1:0-2:14', 'Y 4:3-4:9']],
    ['deleted and created again', ['*filter', ':X - [0:0]', '-A X -j ACCEPT', '-X X', '-N X', 'COMMIT'], ['X 4:0-4:4']],
    ['deleted, created again, new rules', ['*filter', ':X - [0:0]', '-A X -j ACCEPT', '-X X', '-N X', '-A X -j DROP', 'COMMIT'], ['X 4:0-5:12']],
    ['interleaved runs of rules', ['*filter', ':X - [0:0]', ':Y - [0:0]', '-A Y -j X', '-A X -j ACCEPT', '-A Y -j RETURN', '-A X -j DROP', 'COMMIT'], ['X 1:0-6:12', 'Y 2:0-5:14']],
    ['never declared, created by a policy', ['*filter', '-P FOO DROP', '-A FOO -j ACCEPT', 'COMMIT'], ['FOO 1:3-2:16']],
  ];
  for (const [name, lines, expected] of cases) {
    it(name, () => {
      expect(fullRanges(lines, 'fast')).toEqual(expected);
      expect(fullRanges(lines, 'chevrotain')).toEqual(expected);
    });
  }
});
