// A dump of many virtual services or sets (all top-level outline items) gets a proportionate outline: the first
// `limit` items and one "… N more", made without making the rest. The same for the chains, sets and maps below
// the tables of iptables and nft dumps: the editor's outline of a 10,000-Service dump shows 5,000 of 110,000 chains,
// and labelling the others held the analysis worker (and Ctrl+T queued behind it) for a second.
import { describe, expect, it } from 'vitest';
import { analyzeIptables, iptablesFeatures, outline as iptablesOutline } from '../../src/core/language/iptables';
import { analyzeNft, nftFeatures, outline as nftOutline } from '../../src/core/language/nft';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateNftDump } from '../../tools/generate/nft';
import { limitOutline } from '../../src/extension/analysis/queries';
import { analyzeIpset, ipsetFeatures, outline as ipsetOutline } from '../../src/core/language/ipset';
import { analyzeIpvsadm, ipvsadmFeatures, outline as ipvsOutline } from '../../src/core/language/ipvsadm';
import { documentQueries } from '../../src/extension/analysis/queries';
import type { OutlineItem } from '../../src/core/language/types';

const services = (n: number) => Array.from({ length: n }, (_, i) => `-A -t 10.0.${i >> 8}.${i & 255}:80 -s rr\n-a -t 10.0.${i >> 8}.${i & 255}:80 -r 10.1.0.1:80 -m`).join('\n');
const sets = (n: number) => Array.from({ length: n }, (_, i) => `create s${i} hash:ip`).join('\n');

describe('outlines of many top-level items are capped', () => {
  it('ipvsadm: the first services, then "… N more" at the next one', () => {
    const a = analyzeIpvsadm(services(30));
    const items = ipvsOutline(a, 10);
    expect(items).toHaveLength(11);
    expect(items.slice(0, 10).map((x) => x.name)).toEqual(a.dump.services.slice(0, 10).map((s) => s.name));
    expect(items[10]).toMatchObject({ name: '… 20 more', range: a.dump.services[10].fullRange, children: [] });
    expect(ipvsOutline(a)).toHaveLength(30);
    // The editor's query: the cap reaches the top level, children share what is left.
    const asked = documentQueries.outline(ipvsadmFeatures, a, 25);
    expect(asked).toHaveLength(26);
    expect(asked.slice(0, 25).reduce((n, x) => n + x.children.length, 0)).toBe(25);
  });

  it('ipset: the first sets, then "… N more"', () => {
    const a = analyzeIpset(sets(12));
    expect(ipsetOutline(a, 5).map((x) => x.name)).toEqual(['s0', 's1', 's2', 's3', 's4', '… 7 more']);
    expect(documentQueries.outline(ipsetFeatures, a, 5)).toHaveLength(6);
  });
});

describe('outlines of many chains are capped where they are made', () => {
  const services = randomServices(60, 3, 11);
  const cases = [
    {
      dialect: 'iptables',
      analyze: () => analyzeIptables(generateIptablesDump({ services, style: 'iptables-nft-save', family: 'ipv4', comments: true, nodeRules: true })),
      outline: iptablesOutline as (a: never, limit?: number) => OutlineItem[],
      features: iptablesFeatures,
      // Each chain item asks which Service the chain serves once.
      countLabels: (a: ReturnType<typeof analyzeIptables>) => counted(a.serviceByChain, 'get'),
    },
    {
      dialect: 'nft',
      analyze: () => analyzeNft(generateNftDump({ services, style: 'nft-list-ruleset' })),
      outline: nftOutline as (a: never, limit?: number) => OutlineItem[],
      features: nftFeatures,
      countLabels: (a: ReturnType<typeof analyzeNft>) => counted(a.serviceByObject.byName, 'get'),
    },
  ] as const;

  for (const c of cases) {
    it(`${c.dialect}: the first items across tables, then "… N more" per table, as the editor's cap made them`, () => {
      const a = c.analyze();
      const full = c.outline(a as never);
      const total = full.reduce((n, x) => n + x.children.length, 0);
      const first = full[0].children.length;
      expect(total).toBeGreaterThan(20);
      for (const limit of [0, 1, 7, first - 1, first, first + 1, total - 1, total, total + 5]) {
        const capped = c.outline(a as never, limit);
        expect(capped).toEqual(limitOutline(full, limit));
        // The editor's query caps again: a list the dialect capped stays as it is.
        expect(documentQueries.outline(c.features as never, a as never, limit)).toEqual(capped);
      }
      expect(
        c
          .outline(a as never, 7)
          .flatMap((x) => x.children.map((y) => y.name))
          .filter((n) => n.startsWith('…')),
      ).toEqual(full.map((x, i) => `… ${x.children.length - (i === 0 ? 7 : 0)} more`));
    });

    it(`${c.dialect}: items beyond the cap are not made`, () => {
      const a = c.analyze();
      const tables = c.outline(a as never, 0).length;
      const calls = c.countLabels(a as never);
      c.outline(a as never, 5);
      // The 5 shown and, per table, the one its "… N more" item stands at.
      expect(calls()).toBeLessThanOrEqual(5 + tables);
    });
  }
});

/** Counts the calls of `object[method]` from now on. */
function counted<T extends object>(object: T, method: keyof T): () => number {
  let n = 0;
  const original = (object[method] as (...args: unknown[]) => unknown).bind(object);
  (object as Record<keyof T, unknown>)[method] = (...args: unknown[]) => (n++, original(...args));
  return () => n;
}

describe('folding ranges of an iptables dump', () => {
  it("read each rule's line, not its range (made from the line's text at each read: seconds for 485,000 rules)", () => {
    const a = analyzeIptables(generateIptablesDump({ services: randomServices(30, 3, 4), style: 'iptables-nft-save', family: 'ipv4', comments: true, nodeRules: true }));
    const expected = iptablesFeatures.foldingRanges(a);
    let reads = 0;
    for (const table of a.ruleset.tables) {
      for (const rule of table.rules) {
        const range = rule.range;
        Object.defineProperty(rule, 'range', { get: () => (reads++, range) });
      }
    }
    expect(iptablesFeatures.foldingRanges(a)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(10);
    expect(reads).toBe(0);
  });
});
