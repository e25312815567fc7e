import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripLinks } from '../../webview/links';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';

/** The regex the graph's Markdown renderer used: right, but quadratic on text full of `[` or `(`. */
const byRegex = (text: string) => text.replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, '$1');

describe('stripLinks (graph webview Markdown)', () => {
  it('keeps a link’s text and drops its target', () => {
    expect(stripLinks('see [Show in Graph](command:dataplane.showGraph?%5B%5D) now')).toBe('see Show in Graph now');
    expect(stripLinks('[a](x(y)z) [b](u) [c] (d) [e]f(g)')).toBe('a b [c] (d) [e]f(g)');
    expect(stripLinks('[[a]](b) [a](b(c) [x](')).toBe('[[a]](b) [a](b(c) [x](');
  });

  it('gives what the regex gives, on any text of link characters without backslashes', () => {
    const text = fc.array(fc.constantFrom('[', ']', '(', ')', 'a', ' ', '\n'), { maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, (t) => stripLinks(t) === byRegex(t)),
      { numRuns: 20_000 },
    );
  });

  it('leaves brackets escaped by a backslash alone, as the hover Markdown writes dump text', () => {
    expect(stripLinks('\\[x\\](y) [Trace](command:t)')).toBe('\\[x\\](y) Trace');
    expect(stripLinks('\\\\[x](y)')).toBe('\\\\x'); // an escaped backslash, then a real link
    expect(stripLinks('[a\\](b)](c)')).toBe('a\\](b)');
    // Escaped brackets are plain text: with each one read as a letter, it is the regex again.
    const text = fc.array(fc.constantFrom('[', ']', '(', ')', 'a', '\\[', '\\]'), { maxLength: 30 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, (t) => stripLinks(t).replace(/\\[[\]]/g, 'e') === byRegex(t.replace(/\\[[\]]/g, 'e'))),
      { numRuns: 5_000 },
    );
  });

  perfIt('8× the text costs at most half what a quadratic scan would (64×)', () => {
    const hostile = [
      (n: number) => '[a]('.repeat(n / 4), // targets without a `)`
      (n: number) => `[a](${'('.repeat(n)}`, // a target of `(`s
      (n: number) => `${'[a](x('.repeat(n / 6)})`, // nested targets closed once at the end
      (n: number) => `${'['.repeat(n / 2)}](${'a'.repeat(n / 2)}`, // `[`s before one `](`, target never closed
      (n: number) => `${'\\'.repeat(n / 2)}${'[\\]'.repeat(n / 6)}`, // backslash runs and escaped brackets
    ];
    for (const make of hostile) expect(costRatio(stripLinks, make(100_000), make(800_000))).toBeLessThan(MAX_COST_RATIO_8X);
  });
});
