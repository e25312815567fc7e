// The facts the parser keeps of a rule for the catalog (RuleFactScanner, read through RuleFacts) must answer exactly
// what the rule's details say, on kube-proxy's lines (read from the line) and on every other line (where they may
// fall back); the parser keeps them for `KUBE-*` chains while it reads, whichever reader read the line; and the
// endpoint index, which finds endpoints through the Service index, what a map of its own would hold.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import { RuleFacts } from '../../src/core/parse/iptables/rule-facts';
import { RuleNode } from '../../src/core/parse/iptables/nodes';
import { IptablesSink } from '../../src/core/parse/iptables/sink';
import { lookupMatchOption } from '../../src/core/parse/iptables/extensions';
import { findAnyMatchOption, findMatchOption, findParam, ruleComment, type Rule } from '../../src/core/model/iptables';
import { analyzeIptables } from '../../src/core/language/iptables';
import type { Endpoint, Service } from '../../src/core/kube/service';

/** The answers from the rule's details (what the catalog asked before). */
function slow(rule: Rule) {
  const port = findAnyMatchOption(rule, '--dport', '--destination-port', '--dports', '--destination-ports');
  const source = findParam(rule, '-s');
  const recent = rule.matches.find((m) => m.module === 'recent');
  return {
    comment: ruleComment(rule),
    protocol: findParam(rule, '-p')?.values[0]?.toLowerCase(),
    port: port && !port.negated && Number.isInteger(Number(port.values[0])) ? Number(port.values[0]) : undefined,
    source: source && { negated: source.negated, value: source.values[0] },
    affinity: Boolean(recent && recent.options.some((o) => o.name === '--rcheck' || o.name === '--update')),
    seconds: findMatchOption(rule, 'recent', '--seconds')?.values[0],
  };
}

function fast(peek: RuleFacts, rule: Rule) {
  peek.read(rule);
  return {
    comment: peek.comment(),
    protocol: peek.protocol(),
    port: peek.destinationPort(),
    source: peek.source(),
    affinity: peek.isAffinityCheck(),
    seconds: peek.affinitySeconds(),
  };
}

const rulesOf = (text: string, mode: 'fast' | 'chevrotain' = 'fast'): Rule[] => parseIptables(text, { mode }).tables.flatMap((tb) => tb.rules);
const inNat = (lines: string[]) => ['*nat', ':KUBE-SVC-X - [0:0]', ':KUBE-SEP-Y - [0:0]', ...lines, 'COMMIT', ''].join('\n');
const readFromLine = (peek: RuleFacts) => (peek as unknown as { fromLine: boolean }).fromLine;

const TRICKY = [
  '-A KUBE-SVC-X -m comment --comment "ns/a:p -> 10.0.0.1:80" -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-Y --mask 255.255.255.255 --rsource -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m comment --comment "ns/a:p -> 10.0.0.1:80" -m recent --update --seconds 5 --name KUBE-SEP-Y -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m recent --set --name X -m recent --rcheck --name Y -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m recent --rcheck --name Y -m recent --seconds 7 -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m recent ! --rcheck --name Y -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m "recent" --rcheck -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m recent --rc --sec 3 -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m recent --r -j KUBE-SEP-Y',
  // One of kube-proxy's shapes (never read for `-m recent`) that mentions it in its comment.
  '-A KUBE-SVC-X -m comment --comment "-m recent --rcheck" -m statistic --mode random --probability 0.5 -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m comment --comment x -j KUBE-SEP-Y --rcheck',
  '-A KUBE-SVC-X --seconds 4 -m recent --rcheck -j KUBE-SEP-Y',
  '-A KUBE-SVC-X -m recent --rcheck -m comment --comment c --seconds 9 -j KUBE-SEP-Y',
  '-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -d 10.96.0.1/32 -p TCP -m comment --comment default/kubernetes:https -m tcp --dport 443 -j KUBE-SVC-X',
  '-A KUBE-SERVICES ! -d 10.96.0.1/32 ! -p udp -m comment --comment "a b" --comment c -m udp ! --dport 53 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp --dport 80 -m comment --comment x -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m tcp --dport 80 -m multiport --dports 1,2 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m multiport --dports 81 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m multiport --destination-ports 82 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m tcp --destination-port 83 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m tcp --dp 84 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m tcp --d 85 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m tcp --dport "86" -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m tcp --dport 87 88 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m tcp --dport -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m tcp --dport 1:2 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -m comment --comment x --dport 89 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -p tcp -j KUBE-SVC-X --dport 90',
  '-A KUBE-SERVICES -p tcp -j KUBE-SVC-X -j KUBE-SEP-Y -m tcp --dport 91',
  '-A KUBE-SERVICES --protocol udp --destination 1.2.3.4 -m udp --dport 53 -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m comment --comm "short spelling" -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m comment --comment unquoted words here -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m comment --comment "a \\"quoted\\" one" -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m comment --comment "" -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m comment --comment -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m comment -m comment --comment second -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m "comment" --comment quoted-module -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m COMMENT --comment upper -j KUBE-SVC-X',
  '-A KUBE-SERVICES --comment before -m comment -j KUBE-SVC-X',
  '-A KUBE-SERVICES -m tcp --comment wrong-module -j KUBE-SVC-X',
  '-A KUBE-SVC-X ! -s 10.0.0.0/8 -d 10.96.0.1/32 -p tcp -m comment --comment "ns/a cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ',
  '-A KUBE-SVC-X --source 10.1.0.0/16 --src 10.2.0.0/16 -j KUBE-MARK-MASQ',
  '-A KUBE-SVC-X ! --src 10.3.0.0/16 -j KUBE-MARK-MASQ',
  '-A KUBE-SVC-X -s -j KUBE-MARK-MASQ',
  '-A KUBE-SVC-X -p -j KUBE-MARK-MASQ',
  '[1:2] -A KUBE-SVC-X -p tcp -m comment --comment counted -m tcp --dport 1 -j KUBE-MARK-MASQ',
  '-A KUBE-SVC-X -p tcp -m comment --comment x -c 1 2 -m tcp --dport 2 -j KUBE-MARK-MASQ',
  '-A KUBE-SVC-X -p tcp -m comment --comment x -m tcp --dport ! 3 -j KUBE-MARK-MASQ',
  '-A KUBE-SVC-X -p tcp -m comment --comment x -m tcp --dport 4 ! -j KUBE-MARK-MASQ',
  ' -A KUBE-SVC-X -p tcp -m comment --comment indented -m tcp --dport 5 -j KUBE-MARK-MASQ',
  '-A KUBE-SVC-X\t-p tcp -m comment --comment\t"tab" -m tcp --dport 6 -j KUBE-MARK-MASQ',
  '-A KUBE-SEP-Y -p tcp -m comment --comment "ns/a:p" -m recent --set --name KUBE-SEP-Y --mask 255.255.255.255 --rsource -m tcp -j DNAT --to-destination 10.0.0.1:80',
  '-A KUBE-SEP-Y -m set --match-set s src --update-counters -m recent --rcheck -j DNAT --to-destination 10.0.0.1:80',
  '-A KUBE-SEP-Y -m set --match-set s src --update -m recent --set -j DNAT --to-destination 10.0.0.1:80',
  '-A KUBE-SEP-Y -m comment --comment "中文" -j DNAT --to-destination 10.0.0.1:80',
  // Older kube-proxy's unnamed port, and the escaped quote iptables-save writes (kube-router's comments).
  '-A KUBE-SERVICES -d 10.0.0.93/32 -p tcp -m comment --comment "default/nginx: cluster IP" -m tcp --dport 80 -j KUBE-SVC-X',
  '-A KUBE-NODEPORTS -p tcp -m comment --comment "default/nginx:" -m tcp --dport 30080 -j KUBE-SVC-X',
  '-A KUBE-SEP-Y -d 10.1.0.5/32 -m comment --comment "when source is the pod\\\'s local node" -m addrtype --src-type LOCAL -j ACCEPT',
];

describe('rule facts', () => {
  it('knows the options it reads as the parser does (exact spellings are their own canonical names)', () => {
    expect(lookupMatchOption('comment', '--comment')?.name).toBe('--comment');
    for (const m of ['tcp', 'udp', 'sctp']) expect(lookupMatchOption(m, '--dport')?.name).toBe('--dport');
    expect(lookupMatchOption('multiport', '--dports')?.name).toBe('--dports');
    for (const o of ['--rcheck', '--update', '--seconds']) expect(lookupMatchOption('recent', o)?.name).toBe(o);
  });

  it('reads kube-proxy rules from their line, with the details’ answers', () => {
    for (const comments of [true, false]) {
      for (const family of ['ipv4', 'ipv6'] as const) {
        const dump = generateIptablesDump({ services: randomServices(40, 3, 11), style: 'iptables-nft-save', comments, family, nodeRules: true });
        const peek = new RuleFacts();
        let fromLine = 0;
        for (const rule of rulesOf(dump)) {
          expect(fast(peek, rule), rule.raw).toEqual(slow(rule));
          if (readFromLine(peek)) fromLine++;
        }
        expect(fromLine).toBeGreaterThan(0);
        // Every kube-proxy rule is read from its line.
        for (const rule of rulesOf(dump).filter((r) => r.chain.startsWith('KUBE-'))) expect(readFromLine(peek.read(rule)), rule.raw).toBe(true);
      }
    }
  });

  it('are kept while parsing for KUBE-* chains but endpoint chains, by the accelerators and the reference reader alike', () => {
    const dump = generateIptablesDump({ services: randomServices(20, 3, 5), style: 'iptables-nft-save', nodeRules: true });
    for (const mode of ['fast', 'chevrotain'] as const) {
      const rules = rulesOf(dump, mode) as RuleNode[];
      const kube = rules.filter((r) => r.chain.startsWith('KUBE-') && !r.chain.startsWith('KUBE-SEP-'));
      const rows = kube[0].factRows()!;
      expect(rows.count, mode).toBeGreaterThan(kube.length / 2);
      // A rule with a comment has its row; rules elsewhere (endpoint chains too) have none kept: read when asked.
      for (const rule of kube) if (rule.raw.includes('--comment')) expect(rows.find(rule.line), rule.raw).toBeGreaterThanOrEqual(0);
      const others = rules.filter((r) => !kube.includes(r));
      expect(others.some((r) => r.chain.startsWith('KUBE-SEP-'))).toBe(true);
      expect(others.every((r) => r.factRows() === undefined)).toBe(true);
    }
  });

  it('answers as the details on tricky lines, in both parser modes', () => {
    for (const mode of ['fast', 'chevrotain'] as const) {
      const peek = new RuleFacts();
      const rules = rulesOf(inNat(TRICKY), mode);
      expect(rules.length).toBeGreaterThan(TRICKY.length - 3);
      for (const rule of rules) expect(fast(peek, rule), `${mode}: ${rule.raw}`).toEqual(slow(rule));
    }
  });

  // kube-proxy's shapes, whose facts the kube-rule accelerator notes as it reads them (no second scan of the line):
  // the same rows as the scan of the reference reader's lines, in doubt where an option's owner is not the match
  // just opened (implicit matches, an option found in an earlier match or after the target).
  const KUBE_SHAPES = [
    '-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-SVC-X',
    '-A KUBE-SERVICES ! -s 10.0.0.0/8 -p udp -m udp --dport 53 -j KUBE-SVC-X',
    '-A KUBE-SERVICES -s 10.0.0.0/8 -m comment --comment plain-word -j KUBE-SVC-X',
    '-A KUBE-SERVICES -p tcp --dport 80 -m comment --comment x -j KUBE-SVC-X',
    '-A KUBE-SERVICES -p tcp -m comment --comment x --dport 89 -j KUBE-SVC-X',
    '-A KUBE-SERVICES -m comment -m tcp -p tcp --comment x --dport 1 -j KUBE-SVC-X',
    '-A KUBE-SVC-X -m comment -j DNAT --comment x --to-destination 10.0.0.1:80',
    '-A KUBE-SVC-X -j KUBE-SEP-Y -m comment --comment after',
    '-A KUBE-SVC-X -m comment --comment "ns/a:p" -m statistic --mode random --probability 0.5 -j KUBE-SEP-Y',
    '-A KUBE-SVC-X -m statistic --mode random --probability 0.5 -p sctp -m sctp --sport 5 --dport 6 -j KUBE-SEP-Y',
    '-A KUBE-SVC-X -p tcp -m statistic --dport 7 --mode random --probability 1 -j KUBE-SEP-Y',
    '-A KUBE-SEP-Y -p tcp -m comment --comment "ns/a:p" -m tcp -j DNAT --to-destination 10.0.0.1:80',
  ];

  it('are the same whether the kube-rule accelerator or the scan notes them', () => {
    const taken = vi.spyOn(IptablesSink.prototype, 'ruleWithFacts');
    const text = inNat(KUBE_SHAPES);
    const plain = (mode: 'fast' | 'chevrotain') => rulesOf(text, mode).map((rule) => ({ raw: rule.raw, fromLine: readFromLine(new RuleFacts().read(rule)), facts: fast(new RuleFacts(), rule) }));
    const chevrotain = plain('chevrotain');
    expect(taken).not.toHaveBeenCalled();
    expect(plain('fast')).toEqual(chevrotain);
    expect(taken).toHaveBeenCalledTimes(KUBE_SHAPES.length);
    taken.mockRestore();
    expect(chevrotain.filter((r) => r.fromLine).length).toBeGreaterThan(2);
    expect(chevrotain.filter((r) => !r.fromLine).length).toBeGreaterThan(2);
  });

  it('answers as the details on randomly mutated rules', () => {
    const base = generateIptablesDump({ services: randomServices(6, 2, 3), style: 'iptables-nft-save', nodeRules: true })
      .split('\n')
      .filter((l) => l.startsWith('-A '));
    const piece = fc.constantFrom(
      ' ',
      '!',
      '"',
      '\\',
      '-m',
      '--comment',
      '--com',
      '-m comment',
      '--dport',
      '--dp',
      '--dports',
      '--destination-port',
      '-m tcp',
      '-m multiport',
      '-p',
      '--protocol',
      '-s',
      '! -s',
      '--src',
      '-d',
      '--destination',
      '-m recent',
      '--rcheck',
      '--update',
      '--seconds',
      '--r',
      '--se',
      '-j',
      '-g',
      '-j DNAT',
      '-c',
      '1',
      'x y',
      '"a b"',
      '-m COMMENT',
      '[1:2]',
      '\t',
      '中',
      '--set',
    );
    fc.assert(
      fc.property(fc.nat(), fc.array(fc.tuple(fc.nat(), piece), { minLength: 1, maxLength: 3 }), (index, edits) => {
        let line = base[index % base.length];
        for (const [at, text] of edits) {
          const k = at % (line.length + 1);
          line = `${line.slice(0, k)} ${text} ${line.slice(k)}`;
        }
        const peek = new RuleFacts();
        for (const rule of rulesOf(inNat([line]))) expect(fast(peek, rule), rule.raw).toEqual(slow(rule));
      }),
      { numRuns: 800, seed: 42 },
    );
  });
});

describe('endpointByChain', () => {
  it('finds what an index filled in catalog order would hold', () => {
    const dump = generateIptablesDump({ services: randomServices(60, 4, 9), style: 'iptables-nft-save', nodeRules: true });
    const a = analyzeIptables(dump);
    const expected = new Map<string, { service: Service; endpoint: Endpoint }>();
    for (const service of a.catalog.services) {
      const tableId = service.objects.find((o) => o.role !== 'reject-rule' && o.role !== 'frontend-rule')?.tableId;
      for (const endpoint of service.endpoints) if (tableId && endpoint.chain) expected.set(`${tableId}\0${endpoint.chain}`, { service, endpoint });
    }
    expect(expected.size).toBeGreaterThan(100);
    for (const table of a.ruleset.tables) {
      for (const chain of table.chains) expect(a.endpointByChain.get(table.id, chain.name)).toEqual(expected.get(`${table.id}\0${chain.name}`));
    }
  });
});
