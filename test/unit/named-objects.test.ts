// Ctrl+T reads each dump's chains, sets and maps from namedObjects, not from the labelled outline (most of a
// second on a 10,000-Service dump): both must name the same objects, in the same order, at the same places.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { featuresFor, type AnyFeatures } from '../../src/core/language';
import type { OutlineItem } from '../../src/core/language/types';
import { analyzeFile } from '../../src/core/snapshot';

/** What the symbol index took from the outline before: its chains, sets and maps under the table they are in. */
function fromOutline(items: readonly OutlineItem[], container = ''): { name: string; kind: string; container: string; selectionRange: unknown }[] {
  return items.flatMap((item) => [
    ...(item.kind === 'chain' || item.kind === 'set' || item.kind === 'map' ? [{ name: item.objectName ?? item.name, kind: item.kind, container, selectionRange: item.selectionRange }] : []),
    ...fromOutline(item.children, item.kind === 'table' ? item.name : container),
  ]);
}

function same(features: AnyFeatures, analysis: unknown): void {
  expect(features.namedObjects?.(analysis) ?? []).toEqual(fromOutline(features.outline(analysis)));
}

const dumps = [
  ...readdirSync('samples', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(`samples/${d.name}`)
        .filter((n) => n.startsWith('node1.'))
        .map((n) => `samples/${d.name}/${n}`),
    ),
  ...readdirSync('test/fixtures/wild')
    .filter((n) => !n.endsWith('.json'))
    .map((n) => `test/fixtures/wild/${n}`),
  'test/fixtures/trace/nft-maps.nft',
];

describe('named objects are the outline chains, sets and maps', () => {
  for (const path of dumps) {
    it(path, () => {
      const file = analyzeFile(path, readFileSync(path, 'utf8'));
      expect(file).toBeDefined();
      same(file!.features, file!.analysis);
    });
  }

  it('an ipset list:set names its member sets too', () => {
    const ipset = featuresFor('ipset')!;
    const a = ipset.analyze('create KUBE-A hash:ip family inet\ncreate KUBE-B hash:ip family inet\ncreate KUBE-L list:set size 8\nadd KUBE-L KUBE-A\nadd KUBE-L KUBE-B\n');
    expect((ipset.namedObjects?.(a) ?? []).map((o) => o.name)).toEqual(['KUBE-A', 'KUBE-B', 'KUBE-L', 'KUBE-A', 'KUBE-B']);
    same(ipset, a);
  });

  it('several iptables-save runs in one file (table family labels) keep the table name as container', () => {
    const iptables = featuresFor('iptables')!;
    const text = readFileSync('samples/iptables-nft/node1.iptables', 'utf8');
    same(iptables, iptables.analyze(`${text}\n${text}`));
  });
});
