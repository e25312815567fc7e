// Parsers say how far they have read (the language status item of a large dump shows it, issue #8): shares rising
// every PROGRESS_MASK + 1 lines, then 1 once every line is read; nothing when nobody listens.
import { describe, expect, it } from 'vitest';
import { PROGRESS_MASK, reportProgress, withProgress } from '../../src/core/progress';
import { featuresFor } from '../../src/core/language';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';

// Each at least two reports long (the number of Services each format needs for that).
const ipvs = generateIpvsSnapshot({ services: randomServices(7000, 6, 5), nodeIPs: ['192.168.0.10'] });
const TEXTS: [string, string][] = [
  ['iptables', generateIptablesDump({ services: randomServices(1300, 6, 5), style: 'iptables-nft-save', comments: true, nodeRules: true })],
  ['nftables', generateNftDump({ services: randomServices(1000, 6, 5), style: 'nft-list-ruleset' })],
  ['ipvsadm', ipvs['ipvsadm-list']],
  ['ipset', ipvs['ipset-save']],
];

function sharesOf(languageId: string, text: string): number[] {
  const shares: number[] = [];
  withProgress(
    (share) => shares.push(share),
    () => featuresFor(languageId)!.analyze(text),
  );
  return shares;
}

describe('parse progress', () => {
  for (const [languageId, text] of TEXTS) {
    it(`${languageId}: rising shares, one per ${PROGRESS_MASK + 1} lines, then 1`, () => {
      const lines = text.split('\n').length;
      expect(lines).toBeGreaterThan(2 * (PROGRESS_MASK + 1));
      const shares = sharesOf(languageId, text);
      expect(shares[shares.length - 1]).toBe(1);
      expect(shares.filter((s) => s < 1).length).toBe(Math.floor((lines - 1) / (PROGRESS_MASK + 1)));
      for (let k = 1; k < shares.length; k++) expect(shares[k]).toBeGreaterThanOrEqual(shares[k - 1]);
      for (const s of shares) expect(s).toBeGreaterThan(0);
    });
  }

  it('reports to the innermost listener only while it runs, and to nobody outside', () => {
    const outer: number[] = [];
    const inner: number[] = [];
    reportProgress(1, 2);
    withProgress(
      (s) => outer.push(s),
      () => {
        reportProgress(1, 4);
        withProgress(
          (s) => inner.push(s),
          () => reportProgress(1, 2),
        );
        reportProgress(3, 4);
        reportProgress(1, 0); // nothing to read: no share
      },
    );
    expect(outer).toEqual([0.25, 0.75]);
    expect(inner).toEqual([0.5]);
  });
});
