// nftlb's DNAT farm (test/fixtures/wild/nftlb-dnat-farm.{nft,json}; what nftlb writes is cited in the fixture's
// header, after zevenet/nftlb tests/046_…/output.nft): marks chosen by numgen from a map, then NAT from maps keyed on
// the connection mark. The JSON is what `nft -j list ruleset` (nft 1.0.6) printed for the text loaded in a netns.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type Outcome, type SnapshotFile } from '../../src/core/trace';
import { traceNft } from '../../src/core/trace/nft';
import type { NftAnalysis } from '../../src/core/language/nft';
import { haveNetnsTools, inThrowawayNetns, nftIn } from '../helpers/netns';

const dir = path.join(__dirname, '../fixtures/wild');
const TEXT = readFileSync(path.join(dir, 'nftlb-dnat-farm.nft'), 'utf8');
const JSON_TEXT = readFileSync(path.join(dir, 'nftlb-dnat-farm.json'), 'utf8');
const FORMS: [string, string][] = [
  ['nftlb-dnat-farm.nft', TEXT],
  ['nftlb-dnat-farm.json', JSON_TEXT],
];

const analysis = (name: string, text: string) => analyzeFile(name, text)!.analysis as NftAnalysis;
const summary = (outcomes: Outcome[]) =>
  outcomes.map((o) => `${Number(o.probability.toFixed(4))} ${o.verdict}${o.destination ? ` ${o.destination}` : ''}${o.masquerade ? ' masq' : ''}${o.assumptions.length ? ` [${o.assumptions.join('; ')}]` : ''}`);

describe('nftlb DNAT farm (weights by mark, static sessions, persistence)', () => {
  for (const [name, text] of FORMS) {
    it(`${name}: parses clean`, () => {
      const a = analysis(name, text);
      expect(a.ruleset.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')).toEqual([]);
      expect(a.ruleset.tables.map((tb) => `${tb.family} ${tb.name}`)).toEqual(['ip nftlb']);
    });

    it(`${name}: a new client is a 50/50 DNAT to the two backends, masqueraded (the marks' top bit)`, () => {
      const files: SnapshotFile[] = [{ name, analysis: analysis(name, text) }];
      const r = traceSnapshot(files, { to: '192.168.0.100', dport: 80, protocol: 'tcp', entry: 'external' });
      expect(summary(r.outcomes)).toEqual(['0.5 dnat 192.168.0.10:10 masq', '0.5 dnat 192.168.0.11:20 masq']);
      // nftlb hooks no chain on forward: nothing filters the forwarded connection there, and the trace says so.
      expect(r.warnings).toEqual([expect.stringContaining('no base chain on hooks the packet takes (forward, IPv4)')]);
      const notes = r.outcomes[0].path.map((p) => p.note).join(' ');
      expect(notes).toContain('Connection mark is now 0x80000001.');
      expect(notes).toContain('numgen picked a value in 0-4 (5 of its 10 values).');
      expect(r.outcomes[0].notes.join(' ')).toContain('persist-lb01');
    });

    it(`${name}: a static session goes to its backend every time`, () => {
      const a = analysis(name, text);
      const r = traceNft(a.ruleset, { src: '192.168.44.4', sport: 96, dst: '192.168.0.100', dport: 80, protocol: 'tcp', entry: 'external' }, { nodeIPs: [] });
      expect(summary(r.outcomes)).toEqual(['1 dnat 192.168.0.11:20 masq']);
    });

    it(`${name}: another service's traffic is left alone`, () => {
      const files: SnapshotFile[] = [{ name, analysis: analysis(name, text) }];
      const r = traceSnapshot(files, { to: '192.168.0.101', dport: 80, protocol: 'tcp', entry: 'external' });
      expect(summary(r.outcomes)).toEqual(['1 accept']);
    });
  }
});

describe.skipIf(!haveNetnsTools)('nftlb fixture against nft, in a throw-away network namespace (root only)', () => {
  it('nft -c -f accepts the text; loaded, nft lists it back as the fixture (and, with nft 1.0.6, the JSON fixture)', () => {
    inThrowawayNetns('dpx-nftlb', (ns, work) => {
      const file = path.join(work, 'farm.nft');
      writeFileSync(file, TEXT);
      nftIn(ns, ['-c', '-f', file]);
      nftIn(ns, ['-f', file]);
      expect(nftIn(ns, ['list', 'ruleset'])).toBe(TEXT.replace(/^#.*\n/gm, ''));
      const json = nftIn(ns, ['-j', 'list', 'ruleset']);
      if (/"version": "1\.0\.6"/.test(json)) expect(json).toBe(JSON_TEXT);
    });
  });
});
