// A dump of many virtual services or sets (all top-level outline items) gets a proportionate outline: the first
// `limit` items and one "… N more", made without making the rest.
import { describe, expect, it } from 'vitest';
import { analyzeIpset, ipsetFeatures, outline as ipsetOutline } from '../../src/core/language/ipset';
import { analyzeIpvsadm, ipvsadmFeatures, outline as ipvsOutline } from '../../src/core/language/ipvsadm';
import { documentQueries } from '../../src/extension/analysis/queries';

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
