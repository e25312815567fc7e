// The first reading of a lazy nft rule of a plain shape (issue 8) reports references without building
// statements: whenever reportPlainRuleReferences takes a rule, the statement reader must report exactly the same
// references (same order, names, ranges, roles), nothing else (no diagnostic, no variable), and read no comment
// and no raw statement; when it does not take a rule, it reports nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastLexLine } from '../../src/core/parse/nft/accelerators/fast-lex';
import { groupItems } from '../../src/core/parse/nft/nodes';
import { reportPlainRuleReferences, StatementReader } from '../../src/core/parse/nft/statements';
import { recorder } from '../helpers/nft-host';

/** Whether the plain path took the line; fails the test on any difference from the reader. */
function check(line: string): boolean | undefined {
  const tokens = fastLexLine(line, undefined, 3)?.tokens;
  if (!tokens || tokens.length === 0) return undefined;
  const items = groupItems(tokens);
  if (!items) return undefined;
  const plain = recorder(line);
  const taken = reportPlainRuleReferences(items, plain.host);
  if (!taken) {
    expect(plain.calls, line).toEqual([]);
    return false;
  }
  // The reader on fresh tokens (the plain path cached ranges on these).
  const read = recorder(line);
  const statements = new StatementReader(read.host).readRule(groupItems(fastLexLine(line, undefined, 3)!.tokens)!);
  expect(plain.calls, line).toStrictEqual(read.calls);
  expect(
    statements.filter((s) => s.kind === 'comment' || s.kind === 'raw'),
    line,
  ).toEqual([]);
  return true;
}

const KUBE_PROXY_LINES = [
  'ip saddr 10.244.0.10 jump mark-for-masquerade',
  'meta l4proto tcp dnat to 10.244.0.10:53',
  'meta l4proto sctp dnat to [fd00:10:244::a]:8080',
  'ip daddr 10.96.0.10 ip saddr != 10.0.0.0/8 jump mark-for-masquerade',
  'ip6 daddr fd00:10:96::a ip6 saddr != fd00:10::/64 jump mark-for-masquerade',
  'numgen random mod 3 vmap { 0 : goto endpoint-A-ns/svc/tcp/p__10.0.0.1/80, 1 : goto endpoint-B, 2 : jump c }',
  'ip saddr @affinity-XYZ-ns/svc/tcp/__10.0.0.1/80 goto endpoint-XYZ-ns/svc/tcp/__10.0.0.1/80',
  'jump mark-for-masquerade',
  'goto service-ABC-ns/svc/tcp/http',
  'ip saddr != 10.0.0.0/8 drop',
  'th dport 80 accept',
];

describe('nft plain rules: the references of the statement reader, without its statements', () => {
  it('takes the rule shapes kube-proxy writes', () => {
    for (const line of KUBE_PROXY_LINES) expect(check(line), line).toBe(true);
  });

  it('leaves everything else to the reader', () => {
    for (const line of [
      'ip saddr 10.0.0.1 counter jump x',
      'ip saddr and 1 jump x',
      'ip saddr 10.0.0.1 - 10.0.0.2 jump x',
      'ip saddr 10.0.0.1 . 80 jump x',
      'ip saddr 10.0.0.1, 10.0.0.2 jump x',
      'meta l4proto tcp dnat to tcp',
      'meta l4proto tcp dnat ip to 10.0.0.1',
      'meta l4proto tcp dnat to 10.0.0.1 fully-random',
      'ip saddr vmap { 1 : drop }',
      'jump "quoted"',
      'jump type',
      'numgen random mod 2 offset 1 vmap { 0 : goto a, 1 : goto b }',
      'numgen random mod 2 vmap { 0 : goto a, }',
      'numgen random mod 2 vmap { 0 : goto a 1 : goto b }',
      'numgen random mod 2 vmap { }',
      'ip saddr 10.0.0.1 jump x comment "c"',
      'tcp dport 80 accept',
      'ip saddr $v jump x',
    ]) {
      expect(check(line), line).toBe(line === 'tcp dport 80 accept');
    }
  });

  it('agrees with the reader on random lines of rule pieces', () => {
    const piece = fc.constantFrom(
      ...['ip', 'ip6', 'saddr', 'daddr', 'meta', 'l4proto', 'th', 'tcp', 'udp', 'sctp', 'dport', 'sport', 'mark', 'iifname', 'ct', 'state', 'new'],
      ...['jump', 'goto', 'accept', 'drop', 'return', 'continue', 'queue', 'dnat', 'snat', 'masquerade', 'to', 'numgen', 'random', 'mod', 'offset', 'vmap', 'map', 'set'],
      ...['and', 'or', 'xor', 'eq', 'ne', 'fully-random', 'persistent', 'counter', 'comment', '"x"', 'type', 'flags', 'x', 'chain-a', 'mark-for-masquerade'],
      ...['0', '9', '0x10', '10.0.0.1', '10.0.0.1:80', '[fd00::1]:80', 'fd00::/64', '10.0.0.0/8', '1-2', '$v', '@set', '@affinity-x/y__1.2.3.4/80', '@th,16,16'],
      ...['!=', '==', '!', '<', '{', '}', '(', ')', ',', ':', '.', '-', '/', '&', '|'],
    );
    let taken = 0;
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), (parts) => {
        if (check(parts.join(' '))) taken++;
      }),
      { numRuns: 20000, seed: 11 },
    );
    expect(taken).toBeGreaterThan(50);
  });

  it('agrees with the reader on plain rules with one piece changed', () => {
    const value = fc.constantFrom('10.0.0.1', '10.0.0.1:80', '[fd00::1]:80', 'fd00::/64', 'tcp', 'udp', '0', '0x10', '@s-1/x');
    const name = fc.constantFrom('a', 'endpoint-X-ns/s/tcp/p__10.0.0.1/80', 'service-Y-ns/s/udp/', 'mark-for-masquerade');
    const statement = fc.oneof(
      fc.tuple(fc.constantFrom('ip saddr', 'ip6 daddr', 'meta l4proto', 'th dport', 'udp sport'), fc.constantFrom('', '!='), value).map((p) => p.filter(Boolean).join(' ')),
      fc.tuple(fc.constantFrom('jump', 'goto'), name).map((p) => p.join(' ')),
      fc.constantFrom('accept', 'drop', 'return', 'continue'),
      fc.tuple(fc.constantFrom('dnat to', 'snat to'), value).map((p) => p.join(' ')),
      fc.array(fc.tuple(value, fc.constantFrom('goto', 'jump'), name), { minLength: 1, maxLength: 4 }).map((es) => `numgen random mod ${es.length} vmap { ${es.map(([k, v, n]) => `${k} : ${v} ${n}`).join(', ')} }`),
    );
    const change = fc.tuple(
      fc.nat(),
      fc.constantFrom('', ',', '.', '-', '/', ':', '!=', '{', '}', 'and', 'map', 'set', 'vmap', 'offset 1', 'x', '1', '"s"', 'comment "c"', 'counter', 'fully-random', 'jump', 'goto', 'to', 'ip'),
    );
    let taken = 0;
    fc.assert(
      fc.property(fc.array(statement, { minLength: 1, maxLength: 4 }), fc.option(change), (statements, edit) => {
        const words = statements.join(' ').split(' ');
        if (edit) {
          const [at, text] = edit;
          words.splice(at % (words.length + 1), text === '' ? 1 : 0, ...(text === '' ? [] : [text]));
        }
        if (check(words.join(' '))) taken++;
      }),
      { numRuns: 10000, seed: 12 },
    );
    expect(taken).toBeGreaterThan(1000);
  });
});
