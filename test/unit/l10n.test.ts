import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatMessage, setTranslator, t } from '../../src/core/l10n';

const root = fileURLToPath(new URL('../../', import.meta.url));
const json = (path: string): Record<string, string> => JSON.parse(readFileSync(root + path, 'utf8'));

const en = json('l10n/bundle.l10n.json');
const zh = json('l10n/bundle.l10n.zh-cn.json');
const nlsEn = json('package.nls.json');
const nlsZh = json('package.nls.zh-cn.json');

/** Messages that are only technical tokens or names, so their Chinese text is the English text. Keep this short. */
const SAME_AS_ENGLISH = new Set([
  'Dataplane Explorer',
  'Service **{0}**',
  'Service {0}',
  'externalTrafficPolicy {0}',
  'internalTrafficPolicy Local',
  'iptables-save',
  'kube-proxy',
  'skbmark {0}',
  'skbprio {0}',
  'skbqueue {0}',
]);
const NLS_SAME_AS_ENGLISH = new Set(['category', 'configuration.title']);

const placeholders = (s: string) => (s.match(/\{\d+\}/g) ?? []).sort();
const codeSpans = (s: string) => [...s.matchAll(/`([^`\n]+)`/g)].map((m) => m[0]);
const commandTargets = (s: string) => [...s.matchAll(/\]\((command:[^)\s]*)/g)].map((m) => m[1]);
const bold = (s: string) => (s.match(/\*\*/g) ?? []).length;
const lineBreaks = (s: string) => (s.match(/\n/g) ?? []).length;

function checkMessages(english: Record<string, string>, chinese: Record<string, string>, same: Set<string>, label: (key: string) => string) {
  const problems: string[] = [];
  for (const [key, source] of Object.entries(english)) {
    const value = chinese[key];
    if (typeof value !== 'string' || value.trim() === '') continue; // reported by the coverage tests
    const where = label(key);
    if (placeholders(value).join() !== placeholders(source).join()) problems.push(`placeholders differ: ${where}`);
    for (const span of codeSpans(source)) if (!value.includes(span)) problems.push(`code span ${span} changed: ${where}`);
    for (const target of commandTargets(source)) if (!commandTargets(value).includes(target)) problems.push(`link target ${target} changed: ${where}`);
    if (bold(value) !== bold(source)) problems.push(`**bold** markers differ: ${where}`);
    if (lineBreaks(value) !== lineBreaks(source)) problems.push(`line breaks differ: ${where}`);
    // A message without double quotes may be used inside a Markdown link title ("…"): do not add any.
    if (!source.includes('"') && value.includes('"')) problems.push(`adds a double quote: ${where}`);
    if (same.has(key)) expect(value, where).toBe(source);
    else if (value === source) problems.push(`not translated: ${where}`);
  }
  return problems;
}

describe('zh-cn runtime bundle (l10n/bundle.l10n.zh-cn.json)', () => {
  it('l10n/bundle.l10n.json is what scripts/l10n-export.mjs generates from the sources', () => {
    const r = spawnSync(process.execPath, ['scripts/l10n-export.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('translates every message of the English bundle', () => {
    const missing = Object.keys(en).filter((k) => typeof zh[k] !== 'string' || zh[k].trim() === '');
    expect(missing, 'run node scripts/l10n-zh-cn-todo.mjs').toEqual([]);
  });

  it('has no stale keys that the English bundle no longer has', () => {
    const stale = Object.keys(zh).filter((k) => !Object.hasOwn(en, k));
    expect(stale, 'run node scripts/l10n-zh-cn-todo.mjs').toEqual([]);
  });

  it('keeps placeholders, code spans, command links and Markdown structure, and differs from the English', () => {
    expect(checkMessages(en, zh, SAME_AS_ENGLISH, (k) => JSON.stringify(k))).toEqual([]);
  });

  it('keeps the allow-list of untranslated messages to keys that exist', () => {
    for (const key of SAME_AS_ENGLISH) expect(Object.hasOwn(en, key), key).toBe(true);
  });

  it('is picked up by the core translator', () => {
    setTranslator((message, args) => formatMessage(zh[message] ?? message, args));
    try {
      expect(t('Chain {0} is declared twice in table {1}.', 'KUBE-SERVICES', 'nat')).toBe('链 KUBE-SERVICES 在表 nat 中声明了两次。');
      expect(t('Gets **{0}** of new connections ({1}).', '25%', '1/4')).toBe('获得 **25%** 的新连接（1/4）。');
    } finally {
      setTranslator(undefined);
    }
  });
});

describe('zh-cn package contributions (package.nls.zh-cn.json)', () => {
  it('translates every key of package.nls.json and has no others', () => {
    expect(Object.keys(nlsZh).sort()).toEqual(Object.keys(nlsEn).sort());
    for (const [key, value] of Object.entries(nlsZh)) expect(value.trim(), key).not.toBe('');
  });

  it('keeps placeholders and code spans, and differs from the English', () => {
    expect(checkMessages(nlsEn, nlsZh, NLS_SAME_AS_ENGLISH, (k) => k)).toEqual([]);
  });
});
