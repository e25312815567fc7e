// `nft -j list ruleset` pasted from a terminal: the prompt that ran it before the JSON (and the next prompt after
// it) are not part of the output. The JSON is read all the same, with every line and column those of the pasted
// text (the prompt's lines counted), LF or CRLF, and each prompt line is an information (as in ipvsadm and ipset).
import { describe, expect, it } from 'vitest';
import type { NftRuleset } from '../../src/core/model/nft';
import type { Range } from '../../src/core/model/range';
import { parseNftJson } from '../../src/core/parse/nft/json';
import { promptsAfter, promptsBefore } from '../../src/core/parse/prompt';
import { analyzeNft, isNftJson } from '../../src/core/language/nft';
import { detectDialect } from '../../src/core/detect';

// One object per line, as `nft -j list ruleset | jq -c '.nftables[]'` would not: nft prints one line; the pretty
// form keeps the columns easy to check. The jump to "nope" is the one error.
const JSON_DUMP = [
  '{"nftables": [',
  '{"metainfo": {"version": "1.0.9", "release_name": "Old Doc Yak #3", "json_schema_version": 1}},',
  '{"table": {"family": "ip", "name": "kube-proxy", "handle": 1}},',
  '{"chain": {"family": "ip", "table": "kube-proxy", "name": "services", "handle": 2}},',
  '{"rule": {"family": "ip", "table": "kube-proxy", "chain": "services", "handle": 3, "expr": [{"jump": {"target": "nope"}}]}}',
  ']}',
].join('\n');

const shift = (r: Range, lines: number): Range => ({ start: { line: r.start.line + lines, character: r.start.character }, end: { line: r.end.line + lines, character: r.end.character } });
const where = (r: NftRuleset) => ({
  errors: r.diagnostics.filter((d) => d.severity !== 'information').map((d) => ({ code: d.code, range: d.range, message: d.message })),
  chains: r.tables.flatMap((t) => t.chains.map((c) => ({ name: c.name, range: c.range, nameRange: c.nameRange }))),
  rules: r.tables.flatMap((t) => t.chains.flatMap((c) => c.rules.map((x) => x.range))),
});
const shifted = (r: NftRuleset, lines: number) => {
  const w = where(r);
  // A message that names a position says it as the user counts lines.
  return {
    errors: w.errors.map((e) => ({ ...e, range: shift(e.range, lines), message: e.message.replace(/line (\d+)/, (_, n) => `line ${Number(n) + lines}`) })),
    chains: w.chains.map((c) => ({ ...c, range: shift(c.range, lines), nameRange: shift(c.nameRange, lines) })),
    rules: w.rules.map((x) => shift(x, lines)),
  };
};
const prompts = (r: NftRuleset) => r.diagnostics.filter((d) => d.code === 'shell-prompt').map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1}-${d.range.end.character + 1} ${d.severity}`);

describe('nft -j output after a shell prompt', () => {
  const plain = parseNftJson(JSON_DUMP);

  it('the plain dump has its one error and its chain (the reference)', () => {
    expect(where(plain).errors.map((e) => e.code)).toEqual(['undefined-chain']);
    expect(where(plain).chains.map((c) => c.name)).toEqual(['services']);
  });

  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ] as const) {
    it(`reads the JSON between the prompts, positions counted from the top (${name})`, () => {
      const text = ['root@node1:~# nft -j list ruleset', ...JSON_DUMP.split('\n'), 'root@node1:~# '].join(eol) + eol;
      expect(isNftJson(text)).toBe(true);
      expect(detectDialect(text)).toBe('nftables-json');
      const r = parseNftJson(text);
      expect(where(r)).toEqual(shifted(name === 'LF' ? plain : parseNftJson(JSON_DUMP.split('\n').join(eol)), 1));
      expect(prompts(r)).toEqual(['1:1-34 information', '8:1-15 information']);
      expect(r.lineCount).toBe(8);
    });
  }

  it('a prompt with sudo, blank lines and a BOM before the JSON; a bad value is placed where it is', () => {
    const broken = JSON_DUMP.replace('"handle": 2', '"handle": ?');
    const text = '\ufeff$ sudo nft -j list ruleset\n\n' + broken;
    const r = parseNftJson(text);
    const plainBroken = parseNftJson(broken);
    expect(where(plainBroken).errors.map((e) => e.code)).toEqual(['bad-json']);
    expect(where(r).errors).toEqual(shifted(plainBroken, 2).errors);
    expect(where(r).errors[0].message).toMatch(/^Not valid JSON at line 6, column \d+/);
  });

  it('nft -j prints one line: the prompt before it and the next one after it on the same terminal', () => {
    const oneLine = JSON_DUMP.split('\n').join('');
    const r = analyzeNft(`[root@node1 ~]# nft -j list ruleset\n${oneLine}\n[root@node1 ~]# exit\n`);
    expect(r.ruleset.format).toBe('json');
    expect(r.ruleset.tables.map((t) => t.id)).toEqual(['ip kube-proxy']);
    const error = r.diagnostics.find((d) => d.code === 'undefined-chain')!;
    expect(error.range.start).toEqual({ line: 1, character: oneLine.indexOf('"nope"') + 1 });
  });

  it('prose before the JSON is not a prompt: the text is no nft JSON, as before', () => {
    const text = `here is the ruleset:\n${JSON_DUMP}`;
    expect(isNftJson(text)).toBe(false);
    expect(parseNftJson(text).diagnostics.map((d) => d.code)).toEqual(['bad-json']);
  });

  it('a text of prompts only, or nothing, is read without a throw', () => {
    for (const text of ['', 'root@node1:~# nft -j list ruleset', '$ nft -j list ruleset\r\n$ \r\n']) {
      const r = parseNftJson(text);
      expect(r.tables).toEqual([]);
      expect(r.diagnostics.some((d) => d.code === 'bad-json')).toBe(true);
    }
  });

  it('the prompt lines are found at both ends only, with their offsets', () => {
    const text = 'a@b:~$ nft -j list ruleset\r\n{}\r\nx\r\n> \r\n\r\n';
    const before = promptsBefore(text);
    expect(before).toEqual({ start: 28, prompts: [{ start: 0, end: 26 }] });
    expect(promptsAfter(text, before.start)).toEqual({ end: 33, prompts: [{ start: 35, end: 37 }] });
  });
});
