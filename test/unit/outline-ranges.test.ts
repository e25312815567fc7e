// Breadcrumbs and outline: VS Code finds the symbol at a line by taking, among siblings sorted by start, the first
// whose range contains it, and going down. Every symbol's range must hold its own declaration and no sibling's,
// so that the declaration line of a chain shows that chain (an iptables-save dump declares all chains before
// their rules: a chain spanning declaration to last rule held every later declaration).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { iptablesFeatures } from '../../src/core/language/iptables';
import { ipsetFeatures } from '../../src/core/language/ipset';
import { ipvsadmFeatures } from '../../src/core/language/ipvsadm';
import { nftFeatures } from '../../src/core/language/nft';
import type { LanguageFeatures, OutlineItem } from '../../src/core/language/types';
import type { Range } from '../../src/core/model/range';

const before = (a: Range['start'], b: Range['start']) => a.line < b.line || (a.line === b.line && a.character <= b.character);
const inside = (inner: Range, outer: Range) => before(outer.start, inner.start) && before(inner.end, outer.end);
const onLine = (r: Range, line: number) => r.start.line <= line && line <= r.end.line;

/** What the breadcrumbs show at a line (VS Code's OutlineModel.getItemEnclosingPosition, by line). */
function enclosing(items: OutlineItem[], line: number): OutlineItem[] {
  const sorted = [...items].sort((x, y) => x.range.start.line - y.range.start.line || x.range.start.character - y.range.start.character);
  for (const item of sorted) if (onLine(item.range, line)) return [item, ...enclosing(item.children, line)];
  return [];
}

function* walk(items: OutlineItem[]): Generator<OutlineItem> {
  for (const item of items) {
    yield item;
    yield* walk(item.children);
  }
}

const cases: [string, LanguageFeatures<any>, string][] = [
  // eslint-disable-line @typescript-eslint/no-explicit-any
  ['iptables-legacy', iptablesFeatures, 'samples/iptables-legacy/node1.iptables'],
  ['iptables-nft', iptablesFeatures, 'samples/iptables-nft/node1.iptables'],
  ['iptables of IPVS mode', iptablesFeatures, 'samples/ipvs/node1.iptables'],
  ['iptables -N style', iptablesFeatures, 'test/fixtures/wild/istio-redirect.iptables'],
  ['nft text', nftFeatures, 'samples/nftables/node1.nft'],
  ['nft text (maps)', nftFeatures, 'test/fixtures/trace/nft-maps.nft'],
  ['nft JSON', nftFeatures, 'test/fixtures/trace/nft-maps.json'],
  ['nft JSON (nftlb)', nftFeatures, 'test/fixtures/wild/nftlb-dnat-farm.json'],
  ['ipvsadm', ipvsadmFeatures, 'samples/ipvs/node1.ipvsadm'],
  ['ipset', ipsetFeatures, 'samples/ipvs/node1.ipset'],
];

describe('outline ranges: each line belongs to a symbol declared on or before it', () => {
  for (const [label, features, path] of cases) {
    it(label, () => {
      const text = readFileSync(path, 'utf8');
      const items = features.outline(features.analyze(text));
      const all = [...walk(items)];
      expect(all.length).toBeGreaterThan(1);
      for (const item of all) expect(inside(item.selectionRange, item.range), `${item.name}: selection inside range`).toBe(true);
      const lines = text.split('\n').length;
      for (let line = 0; line < lines; line++) {
        const path = enclosing(items, line);
        const innermost = path[path.length - 1];
        if (innermost) expect(innermost.selectionRange.start.line, `line ${line + 1}: ${innermost.name}`).toBeLessThanOrEqual(line);
      }
      // A declaration line shows the symbol declared there (JSON puts several objects on one line: skip those).
      const perLine = new Map<number, number>();
      for (const item of all) perLine.set(item.selectionRange.start.line, (perLine.get(item.selectionRange.start.line) ?? 0) + 1);
      for (const item of all) {
        if (perLine.get(item.selectionRange.start.line)! > 1) continue;
        const path = enclosing(items, item.selectionRange.start.line);
        expect(path[path.length - 1]?.name, `line ${item.selectionRange.start.line + 1}`).toBe(item.name);
      }
    });
  }
});

describe('outline labels lead with the Service', () => {
  const names = (features: LanguageFeatures<any>, path: string) => [...walk(features.outline(features.analyze(readFileSync(path, 'utf8'))))].map((i) => i.name); // eslint-disable-line @typescript-eslint/no-explicit-any

  it('iptables: Service, then the hashed chain; other chains keep their name', () => {
    const all = names(iptablesFeatures, 'samples/iptables-legacy/node1.iptables');
    expect(all).toContain('shop/web:http · KUBE-SVC-67NZLRHBNDSAWJRO');
    expect(all).toContain('shop/cart · KUBE-SVC-N5W5PH5NLY2BP4HG');
    expect(all).toContain('KUBE-SERVICES');
    expect(all.filter((n) => /^KUBE-(SVC|SEP|EXT|SVL)-/.test(n))).toEqual([]);
  });

  it("nft: Service, then kube-proxy's chain", () => {
    const all = names(nftFeatures, 'samples/nftables/node1.nft');
    expect(all).toContain('shop/web:http · service-KHN6ECMT-shop/web/tcp/http');
    expect(all).toContain('services');
  });
});

describe('iptables rule lines', () => {
  it('a rule line shows its own chain or only the table, never another chain', () => {
    for (const path of ['samples/iptables-legacy/node1.iptables', 'test/fixtures/wild/istio-redirect.iptables']) {
      const a = iptablesFeatures.analyze(readFileSync(path, 'utf8'));
      const items = iptablesFeatures.outline(a);
      for (const table of a.ruleset.tables) {
        for (const rule of table.rules) {
          const path = enclosing(items, rule.range.start.line);
          const innermost = path[path.length - 1];
          if (innermost.kind === 'chain') expect(innermost.name.split(' · ').pop()).toBe(rule.chain);
          else expect(innermost.name).toBe(table.name);
        }
      }
    }
  });
});

describe('a chain whose rules follow its declaration', () => {
  it('spans its rules (the -N style), and the next chain starts at its own declaration', () => {
    const text = '*nat\n:PREROUTING ACCEPT [0:0]\n-N A\n-A A -j RETURN\n-A A -j RETURN\n-N B\n-A B -j RETURN\nCOMMIT\n';
    const items = iptablesFeatures.outline(iptablesFeatures.analyze(text));
    const at = (line: number) =>
      enclosing(items, line)
        .map((i) => i.name)
        .join(' › ');
    expect([1, 2, 3, 4, 5, 6].map(at)).toEqual(['nat › PREROUTING', 'nat › A', 'nat › A', 'nat › A', 'nat › B', 'nat › B']);
  });
});
