// Semantic tokens of a range of lines (what VS Code asks for a large dump's viewport) are exactly the whole
// document's tokens on those lines: the range path reads the symbol table's line index, the whole-document path
// sorts every definition and reference, and they must not disagree on order, overlaps or declarations.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateNftDump } from '../../tools/generate/nft';
import { featuresFor } from '../../src/core/language';
import type { SemanticSymbol } from '../../src/core/language/types';
import { encodeSemanticTokens, runDocumentQuery } from '../../src/extension/analysis/queries';
import { corpusFiles, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

const SAMPLES = join(__dirname, '..', '..', 'samples');
const key = (s: SemanticSymbol) => `${s.range.start.line}:${s.range.start.character}-${s.range.end.line}:${s.range.end.character} ${s.kind}${s.declaration ? ' decl' : ''}${s.kube ? ' kube' : ''}`;

/** Compares the range path with the whole document's tokens over `ranges` (and every line, in windows of `step`). */
function checkRanges(languageId: 'iptables' | 'nftables', text: string, step: number): number {
  const features = featuresFor(languageId)!;
  const analysis = features.analyze(text);
  const whole = features.semanticSymbols!(analysis);
  const lineCount = text.split(/\r\n|\r|\n/).length;
  const ranges: [number, number][] = [
    [0, lineCount],
    [0, 1],
    [lineCount - 1, lineCount + 5],
    [5, 5],
    [lineCount + 3, lineCount + 9],
  ];
  for (let from = 0; from < lineCount; from += step) ranges.push([from, from + step]);
  for (const [from, to] of ranges) {
    const expected = whole.filter((s) => s.range.start.line >= from && s.range.start.line < to).map(key);
    expect(features.semanticSymbols!(analysis, { from, to }).map(key), `lines ${from}-${to}`).toEqual(expected);
  }
  // The query sends the same encoding as the whole document's for the range (relative to line 0).
  const from = Math.floor(lineCount / 3);
  const to = from + 40;
  const encoded = runDocumentQuery(features, analysis, 'semanticTokensOfLines', [from, to]);
  expect([...encoded]).toEqual([...encodeSemanticTokens(whole.filter((s) => s.range.start.line >= from && s.range.start.line < to))]);
  return whole.length;
}

describe('semantic tokens of a range of lines', () => {
  it('match the whole document on the bundled samples', () => {
    expect(checkRanges('iptables', readFileSync(join(SAMPLES, 'iptables-nft', 'node1.iptables'), 'utf8'), 7)).toBeGreaterThan(50);
    expect(checkRanges('iptables', readFileSync(join(SAMPLES, 'iptables-legacy', 'node1.iptables'), 'utf8'), 13)).toBeGreaterThan(50);
    expect(checkRanges('nftables', readFileSync(join(SAMPLES, 'nftables', 'node1.nft'), 'utf8'), 7)).toBeGreaterThan(50);
  });

  it('match the whole document on generated kube-proxy dumps (both families, with and without comments)', () => {
    for (const family of ['ipv4', 'ipv6'] as const) {
      const services = randomServices(40, 3, family === 'ipv4' ? 11 : 12);
      checkRanges('iptables', generateIptablesDump({ services, style: 'iptables-nft-save', family, comments: family === 'ipv4' }), 17);
      checkRanges('nftables', generateNftDump({ services, style: 'nft-list-ruleset', family }), 17);
    }
  });

  it('match the whole document where one line holds several names, a rule and its chain, or overlapping names', () => {
    const nft = [
      'table ip t { set s { type ipv4_addr; } map m { type ipv4_addr : verdict; elements = { 10.0.0.1 : jump a, 10.0.0.2 : goto b } }',
      '  chain a { ip daddr @s jump b; ip saddr @s goto b; ip daddr vmap @m }',
      '  chain b { jump a; jump a }',
      '}',
      'add rule ip t a jump b',
      'add chain ip t c; add rule ip t c jump c',
    ].join('\n');
    expect(checkRanges('nftables', nft, 1)).toBeGreaterThan(15);
    const iptables = ['*filter', ':INPUT ACCEPT [0:0]', ':A - [0:0]', ':B - [0:0]', '-A INPUT -j A', '-A A -j B', '-A A -g A', '-I B 1 -j A', '-A B -j INPUT', 'COMMIT', ''].join('\r\n');
    expect(checkRanges('iptables', iptables, 1)).toBeGreaterThan(10);
  });

  it.skipIf(!HAVE_CORPUS)(`match the whole document on the corpus dumps (${HAVE_CORPUS ? 'iptables and nft' : NO_CORPUS_MESSAGE})`, () => {
    let files = 0;
    for (const file of corpusFiles('iptables', /\.(json|tsv|md|txt\.gz)$/)) {
      const text = readFileSync(file, 'utf8');
      if (text.length > 2_000_000 || text.includes('\u0000')) continue;
      checkRanges('iptables', text, 50);
      files++;
    }
    for (const file of corpusFiles('nft', /\.(json|tsv|md)$/)) {
      const text = readFileSync(file, 'utf8');
      if (text.length > 2_000_000 || text.includes('\u0000')) continue;
      checkRanges('nftables', text, 50);
      files++;
    }
    expect(files).toBeGreaterThan(20);
  });
});
