// The nft parser reads the commonest kube-proxy rule lines without tokens (plainRuleLine, issue 8): every line it
// takes must be one the token path takes as a plain rule (reportPlainRuleReferences), spanning the same columns
// and reporting the same reference; and a parse must not tell the two paths apart.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateNftDump, ipv6Variant, randomServices } from '../../tools/generate/nft';
import { lineRange } from '../../src/core/model/range';
import { fastLexLine, isSpace } from '../../src/core/parse/nft/accelerators/fast-lex';
import { groupItems } from '../../src/core/parse/nft/nodes';
import { parseNft } from '../../src/core/parse/nft/parser';
import { PLAIN_JUMP, PLAIN_SET, plainRuleLine, reportPlainRuleReferences } from '../../src/core/parse/nft/statements';
import { LineScratch } from '../../src/core/parse/nft/scratch';
import { recorder } from '../helpers/nft-host';
import { plainData } from '../../src/extension/analysis/plain';

const LINE = 3;

/** The references the token path reports for `line`, or undefined when it does not take the line as a plain rule. */
function tokenPath(line: string): { start: number; end: number; calls: unknown[] } | undefined {
  const lexed = fastLexLine(line, undefined, LINE);
  if (!lexed || lexed.comment || lexed.tokens.length === 0) return undefined;
  const items = groupItems(lexed.tokens);
  if (!items) return undefined;
  const { host, calls } = recorder(line);
  if (!reportPlainRuleReferences(items, host)) return undefined;
  const last = lexed.tokens[lexed.tokens.length - 1];
  return { start: lexed.tokens[0].startOffset, end: last.startOffset + last.image.length, calls };
}

const scratch = new LineScratch();

/** Whether plainRuleLine took the line; fails the test when the token path reads it otherwise. */
function check(line: string): boolean {
  let start = 0;
  while (start < line.length && isSpace(line.charCodeAt(start))) start++;
  const refs = plainRuleLine(line, start, scratch);
  if (refs < 0) return false;
  const tokens = tokenPath(line);
  expect(tokens, line).toBeDefined();
  const calls: unknown[] = [];
  for (let k = 0; k < refs; k++) {
    const [from, to, kind] = [scratch.refStarts[k], scratch.refEnds[k], scratch.refKinds[k]];
    const range = lineRange(LINE, from, to);
    calls.push(kind === PLAIN_SET ? ['set', line.slice(from, to), range] : ['chain', line.slice(from, to), range, kind === PLAIN_JUMP ? 'jump' : 'goto']);
  }
  expect({ start, end: line.length, calls }, line).toStrictEqual(tokens);
  return true;
}

describe('nft plain rule lines: read without tokens as the token path reads them', () => {
  it("takes an endpoint chain's two rules", () => {
    for (const line of [
      '\t\tip saddr 10.244.0.10 jump mark-for-masquerade',
      '\t\tip6 saddr fd00:10:244::a goto endpoint-X-ns/svc/tcp/p__fd00.10.244..a/80',
      '\t\tmeta l4proto tcp dnat to 10.244.0.10:53',
      '\t\tmeta l4proto sctp dnat to [fd00:10:244::a]:8080',
      'th dport 80 jump x',
      '  meta l4proto udp snat to 10.0.0.1',
      '\t\tip daddr 10.96.0.1 ip saddr != 10.244.0.0/16 jump mark-for-masquerade',
      '\t\tip saddr @affinity-X-ns/svc/tcp/p__10.0.0.1/80 goto endpoint-X-ns/svc/tcp/p__10.0.0.1/80',
      '\t\tip saddr != @s drop',
      '\t\tip saddr != 10.0.0.0/8 jump x',
      '\t\tip saddr @s jump x',
      '\t\tip saddr @$s jump x',
      '\t\tjump x',
      '\t\tgoto service-X-ns/svc/tcp/',
      '\t\tip saddr 10.0.0.1 jump a goto b accept',
      'drop',
    ]) {
      expect(check(line), line).toBe(true);
    }
  });

  it('leaves other lines to the tokens', () => {
    for (const line of [
      '\t\tip saddr 10.244.0.10 jump mark-for-masquerade ',
      '\t\tip saddr  10.244.0.10 jump mark-for-masquerade',
      '\t\tip saddr 10.244.0.10 jump mark-for-masquerade # handle 4',
      '\t\tip saddr 10.244.0.10 jump mark-for-masquerade;',
      '\t\tip saddr 10.0.0.1 jump "x"',
      '\t\tip saddr @th,16,16 jump x',
      '\t\tip saddr @s, jump x',
      '\t\tip saddr @ jump x',
      '\t\tip saddr !=10.0.0.1 jump x',
      '\t\tip saddr != != 10.0.0.1 jump x',
      '\t\tip saddr 10.0.0.1 != jump x',
      '\t\t!= drop',
      '\t\tupdate @affinity-X { ip saddr }',
      '\t\tfib saddr type local jump x comment "y"',
      '\t\tnumgen random mod 1 vmap { 0 : goto a }',
      '\t\tip saddr 10.0.0.1 ip saddr 10.0.0.1 ip saddr 10.0.0.1 ip saddr 10.0.0.1 ip saddr 10.0.0.1 ip saddr 10.0.0.1 accept',
      '\t\tip saddr 10.0.0.1 jump type',
      '\t\tip saddr $v jump x',
      '\t\tip saddr 10.0.0.1 jump $x',
      '\t\tip saddr x jump y',
      '\t\tmeta l4proto tcp dnat to tcp',
      '\t\tmeta l4proto tcp dnat ip to 10.0.0.1',
      '\t\tmeta l4proto tcp dnat to 10.0.0.1 fully-random',
      '\t\tmeta mark 1 dnat to 10.0.0.1',
      '\t\tjump',
      '\t\t',
      '',
    ]) {
      expect(check(line), line).toBe(false);
    }
  });

  it('agrees with the token path on random lines', () => {
    const piece = fc.constantFrom(
      ...['ip', 'ip6', 'saddr', 'daddr', 'meta', 'l4proto', 'th', 'tcp', 'udp', 'sctp', 'dport', 'sport', 'mark', 'ct', 'state'],
      ...['jump', 'goto', 'accept', 'drop', 'dnat', 'snat', 'masquerade', 'to', 'numgen', 'vmap', 'map', 'set', 'type', 'flags', 'chain', 'comment', 'counter'],
      ...['x', 'a-b', 'mark-for-masquerade', 'endpoint-X-ns/s/tcp/p__10.0.0.1/80', 'service-Y-ns/s/udp/', 'a/', 'a-', '-a', '.a', ':a', '::1', 'a:b'],
      ...[
        '0',
        '9',
        '0x10',
        '10.0.0.1',
        '10.0.0.1:80',
        '[fd00::1]:80',
        '[fd00::1',
        'fd00::/64',
        '10.0.0.0/8',
        '1-2',
        '$v',
        '@set',
        '@affinity-X-ns/s/tcp/p__10.0.0.1/80',
        '@th,1,2',
        '@s,',
        '"x"',
        '"x y"',
        '#',
        '# handle 1',
      ],
      ...['!=', '==', '!', '<', '{', '}', '(', ')', ',', ';', ':', '.', '-', '/', '&', '|', '中', '\r', '\t', ''],
    );
    const rule = fc.tuple(fc.constantFrom('', '\t\t', ' ', '\t \t'), fc.array(piece, { minLength: 1, maxLength: 7 }), fc.constantFrom(' ', ' ', ' ', '  ', '\t'), fc.constantFrom('', '', ' ', '\t'));
    let taken = 0;
    fc.assert(
      fc.property(rule, ([indent, parts, between, after]) => {
        if (check(indent + parts.join(between) + after)) taken++;
      }),
      { numRuns: 30000, seed: 21 },
    );
    const shaped = fc.tuple(
      fc.constantFrom('ip saddr', 'ip6 daddr', 'meta l4proto', 'th dport', 'udp sport', 'ct state', 'ip', 'meta l4proto tcp dnat'),
      fc.constantFrom('10.0.0.1', '10.0.0.1:80', '[fd00::1]:80', 'fd00::/64', 'tcp', 'udp', '0', '0x10', '@s', 'x', 'to'),
      fc.constantFrom('jump', 'goto', 'dnat to', 'snat to', 'dnat', 'to', 'jump jump'),
      fc.constantFrom('x', 'mark-for-masquerade', 'endpoint-X-ns/s/tcp/p__10.0.0.1/80', '10.0.0.1', '10.0.0.1:80', 'tcp', '[fd00::1]:80', 'type', '"x"', 'a b'),
    );
    let shapedTaken = 0;
    fc.assert(
      fc.property(shaped, (parts) => {
        if (check(`\t\t${parts.join(' ')}`)) shapedTaken++;
      }),
      { numRuns: 5000, seed: 22 },
    );
    expect(shapedTaken).toBeGreaterThan(200);
  });

  it('parses generated dumps as the token path does', () => {
    for (const [services, family] of [
      [randomServices(30, 4, 3), 'ipv4'],
      [ipv6Variant(randomServices(20, 3, 4)), 'ipv6'],
    ] as const) {
      for (const style of ['nft-list-ruleset', 'nft-cmds'] as const) {
        const text = generateNftDump({ services, family, style });
        // A space at the end of a line sends it to the token path, which reads the same rule.
        const spaced = text
          .split('\n')
          .map((l) => (l.length > 0 ? `${l} ` : l))
          .join('\n');
        const a = parseNft(text);
        const b = parseNft(spaced);
        const rules = (r: typeof a) =>
          r.tables.flatMap((t) => t.chains.flatMap((c) => c.rules.map((x) => plainData({ raw: x.raw, range: x.range, chain: x.chain, index: x.index, handle: x.handle, comment: x.comment }))));
        expect(rules(a).length).toBeGreaterThan(100);
        expect(rules(a)).toStrictEqual(rules(b));
        expect(plainData(a.symbols.allReferences())).toStrictEqual(plainData(b.symbols.allReferences()));
        expect(a.diagnostics).toStrictEqual(b.diagnostics);
        expect([...a.ruleByLine.keys()]).toStrictEqual([...b.ruleByLine.keys()]);
      }
    }
  });
});
