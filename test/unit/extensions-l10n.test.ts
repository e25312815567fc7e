// The iptables extension summaries (src/core/parse/iptables/extensions.ts) shown in hovers go through l10n: every
// summary is a message of the English bundle with a zh-cn translation that keeps the option names and the upper-case
// technical words as iptables prints them, and the hover texts come out in the translator's language.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { explainOption, explainTarget, summaryText } from '../../src/core/explain/iptables';
import { formatMessage, setTranslator } from '../../src/core/l10n';
import type { Option } from '../../src/core/model/iptables';
import { range } from '../../src/core/model/range';
import { BASIC_OPTIONS, MATCH_EXTENSIONS, TARGET_EXTENSIONS, type OptionSpec } from '../../src/core/parse/iptables/extensions';

const root = fileURLToPath(new URL('../../', import.meta.url));
const json = (path: string): Record<string, string> => JSON.parse(readFileSync(root + path, 'utf8'));
const en = json('l10n/bundle.l10n.json');
const zh = json('l10n/bundle.l10n.zh-cn.json');

const extensions = [...Object.values(MATCH_EXTENSIONS), ...Object.values(TARGET_EXTENSIONS)];
const options: OptionSpec[] = [...extensions.flatMap((e) => Object.values(e.options)), ...Object.values(BASIC_OPTIONS)];
const summaries = [...new Set([...extensions.map((e) => e.summary), ...options.filter((o) => o.canonicalSummary === undefined).map((o) => o.summary)])];

/** Option names (--dport, -p), and upper-case words of three or more letters (DNAT, PREROUTING, LOCAL) but for the English operators AND/OR/XOR. */
const technical = (s: string) => (s.match(/--[a-z0-9-]+|(?<![\w-])-[a-zA-Z]\b|\b[A-Z][A-Z0-9_]{2,}\b/g) ?? []).filter((w) => !['AND', 'XOR'].includes(w));

function option(name: string, values: string[], negated = false): Option {
  const r = range(0, 0, 0, 1);
  return { name, values, negated, range: r, nameRange: r, valueRanges: values.map(() => r) };
}

const zhTranslator = (message: string, args: (string | number | boolean)[]) => formatMessage(zh[message] ?? message, args);

afterEach(() => setTranslator(undefined));

describe('iptables extension summaries through l10n', () => {
  it('are all in the English bundle (npm run l10n collects them from the tables)', () => {
    expect(summaries.length).toBeGreaterThan(400);
    expect(summaries.filter((s) => en[s] !== s)).toEqual([]);
    expect(en['Same as {0}: {1}']).toBe('Same as {0}: {1}');
  });

  it('are all translated into Chinese, keeping option names and upper-case technical words', () => {
    const untranslated = summaries.filter((s) => typeof zh[s] !== 'string' || zh[s] === s || !/[\u4e00-\u9fff]/.test(zh[s]));
    expect(untranslated).toEqual([]);
    const changed = summaries.flatMap((s) =>
      technical(s)
        .filter((w) => !zh[s].includes(w))
        .map((w) => `${w}: ${s}`),
    );
    expect(changed).toEqual([]);
  });

  it('an alias reads "Same as <canonical>: …" in English and in Chinese', () => {
    const alias = MATCH_EXTENSIONS.tcp.options['--destination-port'];
    expect(alias.name).toBe('--dport');
    expect(alias.summary).toBe('Same as --dport: TCP destination port or port range (first:last; a missing end means 0 or 65535).');
    expect(summaryText(alias)).toBe(alias.summary);
    setTranslator(zhTranslator);
    expect(summaryText(alias)).toBe(`同 --dport：${zh[alias.canonicalSummary!]}`);
  });

  it('hovers of match options, match modules and targets use the translator', () => {
    const english = explainOption('tcp', option('--dport', ['80']), 'match');
    expect(english).toContain('TCP destination port or port range');
    setTranslator(zhTranslator);
    const dport = explainOption('tcp', option('--dport', ['80']), 'match');
    expect(dport).toContain('`--dport 80` — TCP 目标端口或端口范围');
    expect(explainOption('statistic', undefined, 'match')).toBe(`**-m statistic** — ${zh[MATCH_EXTENSIONS.statistic.summary]}`);
    expect(explainOption('', option('-p', ['tcp']), 'param')).toContain(zh[BASIC_OPTIONS['-p'].summary]);
    const dnat = explainTarget('DNAT', option('--to-destination', ['10.244.1.7:8080']), 'nat');
    expect(dnat).toContain(zh[TARGET_EXTENSIONS.DNAT.summary]);
    expect(dnat).toContain(zh[TARGET_EXTENSIONS.DNAT.options['--to-destination'].summary]);
    expect(dnat).toMatch(/DNAT/);
  });
});
