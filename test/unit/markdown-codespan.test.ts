// Backslash escapes show literally inside a code span: a translated message must never put escaped dump text there
// (`--probability 0\.5`). mdT unescapes what lands inside one; the bundles keep placeholders out of code spans.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { codeSpans, code, mdT, text } from '../../src/core/explain/markdown';
import { formatMessage, setTranslator } from '../../src/core/l10n';

function withTranslation(table: Record<string, string>, fn: () => void): void {
  setTranslator((m, args) => formatMessage(Object.hasOwn(table, m) ? table[m] : m, args));
  try {
    fn();
  } finally {
    setTranslator(undefined);
  }
}

describe('escaped text and code spans', () => {
  it('finds code spans as CommonMark pairs them: same-length runs, an unclosed run is text', () => {
    expect(codeSpans('a `b` c ``d`e`` f')).toEqual([
      [2, 5],
      [8, 15],
    ]);
    expect(codeSpans("Bad argument `{0}'")).toEqual([]);
    expect(codeSpans('\\`x` y`')).toEqual([[3, 7]]);
  });

  it('an argument a translation puts inside backticks shows the dump text, not its escapes', () => {
    withTranslation({ 'Rule {0} matches.': 'Rule `{0}` matches.', 'Ratio {0}': '比例 `{0}`' }, () => {
      expect(mdT('Rule {0} matches.', text('--probability 0.5 *a_b*'))).toBe('Rule `--probability 0.5 *a_b*` matches.');
      expect(mdT('Ratio {0}', text('1. x'))).toBe('比例 `1. x`');
    });
    // Outside a code span (the English message) the escapes stay.
    expect(mdT('Rule {0} matches.', text('*a*'))).toBe('Rule \\*a\\* matches.');
  });

  it('an argument that would close the span keeps its escapes, and code() arguments stay as they are', () => {
    withTranslation({ 'X {0}': 'X `{0}`' }, () => {
      expect(mdT('X {0}', text('a`b'))).toBe('X `a\\`b`');
      expect(mdT('X {0}', code('a'))).toBe('X ``a``');
    });
  });

  it('no message of either bundle has a placeholder inside a code span', () => {
    const found: string[] = [];
    for (const file of ['l10n/bundle.l10n.json', 'l10n/bundle.l10n.zh-cn.json']) {
      const bundle = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string | { message: string }>;
      for (const [key, value] of Object.entries(bundle)) {
        for (const message of [key, typeof value === 'string' ? value : value.message]) {
          if (codeSpans(message).some(([from, to]) => /\{\d+\}/.test(message.slice(from, to)))) found.push(`${file}: ${message}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
