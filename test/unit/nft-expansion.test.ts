// nft variables that grow while a file is read: each `define vN = { $vN-1, $vN-1 }` doubles, so a few hundred
// bytes would become 2^27 set elements (once: 25 s, 3.2 GB, then V8 gave up). Copies are capped, reported at the
// variable, and the rest of the file is read as usual.
import { describe, expect, it } from 'vitest';
import type { NftSetExpression } from '../../src/core/model/nft';
import { analyzeNft } from '../../src/core/language/nft';
import { MAX_SET_FROM_VARIABLES, MAX_VARIABLE_COPIES } from '../../src/core/parse/nft/expansion';
import { parseNft } from '../../src/core/parse/nft/parser';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';
import { explainNode } from '../../src/core/explain/node';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';

/** The define bomb: `levels` lines after the first, each doubling the set of the line before. */
export function defineBomb(levels: number): string {
  let text = 'define v0 = { 10.0.0.1, 10.0.0.2 }\n';
  for (let i = 1; i <= levels; i++) text += `define v${i} = { $v${i - 1}, $v${i - 1} }\n`;
  return text;
}

const at = (d: { range: { start: { line: number; character: number } } }) => `${d.range.start.line + 1}:${d.range.start.character + 1}`;
const elementsOf = (text: string, name: string) => (parseNft(text).defines.find((d) => d.name === name)!.expression as NftSetExpression).elements.length;

describe('nft variable expansion', () => {
  it('caps the doubling defines, reports it at the variable and reads the rest of the file', () => {
    const text = `${defineBomb(27)}table ip t {
\tset s {
\t\ttype ipv4_addr
\t\telements = $v27
\t}
\tchain c {
\t\ttype filter hook input priority filter; policy accept;
\t\tip daddr $v27 accept
\t\tip daddr { $v27, 10.9.9.9 } drop
\t\tip saddr 10.1.1.1 counter accept
\t}
}
`;
    expect(text.length).toBeLessThan(1200);
    const a = analyzeNft(text);
    const r = a.ruleset;
    const last = r.defines.find((d) => d.name === 'v27')!.expression as NftSetExpression;
    expect(last.elements.length).toBeLessThanOrEqual(MAX_SET_FROM_VARIABLES);
    // 2 · 2^15 elements fit, doubling them would not: the second $v15 of line 17 is the first one left out.
    expect(elementsOf(text, 'v15')).toBe(65_536);
    const limits = r.diagnostics.filter((d) => d.code === 'expansion-limit');
    expect(limits.length).toBeGreaterThan(0);
    expect(at(limits[0])).toBe('17:22');
    expect(limits[0].message).toContain('$v15');
    expect(limits.every((d) => d.severity === 'warning')).toBe(true);
    const table = r.tables[0];
    expect(table.setByName.get('s')!.elements.length).toBeLessThanOrEqual(MAX_SET_FROM_VARIABLES);
    const rules = table.chainByName.get('c')!.rules;
    expect(rules).toHaveLength(3);
    expect(rules[2].raw).toBe('ip saddr 10.1.1.1 counter accept');
  });

  it('counts copies across the file: many sets from one large variable stop at the budget', () => {
    const sets = Array.from({ length: 40 }, (_, i) => `\tset s${i} {\n\t\ttype ipv4_addr\n\t\telements = $v15\n\t}\n`).join('');
    const rules = Array.from({ length: 40 }, (_, i) => `\t\tip daddr { $v15 } counter comment "r${i}"\n`).join('');
    const text = `${defineBomb(15)}table ip t {\n${sets}\tchain c {\n${rules}\t}\n}\n`;
    const r = parseNft(text);
    const table = r.tables[0];
    const copiedToSets = table.sets.reduce((n, s) => n + s.elements.length, 0);
    const copiedToRules = table.chainByName.get('c')!.rules.reduce((n, rule) => n + rule.statements.reduce((m, st) => m + (st.kind === 'match' && st.right.kind === 'set' ? st.right.elements.length : 0), 0), 0);
    const defines = r.defines.reduce((n, d) => n + (d.expression?.kind === 'set' ? d.expression.elements.length : 0), 0);
    expect(copiedToSets + copiedToRules + defines).toBeLessThanOrEqual(MAX_VARIABLE_COPIES + 2 * 65_536);
    // The first sets get their elements, the later ones are reported.
    expect(table.sets[0].elements).toHaveLength(65_536);
    expect(table.sets[39].elements).toHaveLength(0);
    const limits = r.diagnostics.filter((d) => d.code === 'expansion-limit');
    expect(limits.length).toBeGreaterThan(20);
    expect(limits[0].message).toContain(String(MAX_VARIABLE_COPIES));
    expect(table.chainByName.get('c')!.rules).toHaveLength(40);
  });

  it('a long document may copy more, in proportion to its length only', () => {
    // 2 MB of comment raises the budget to 2 MB / 4 copies; the doubling still stops there, not at 2^27.
    const padding = `# ${'x'.repeat(1_000)}\n`.repeat(2_000);
    const text = `${padding}${defineBomb(27)}table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = $v27\n\t}\n}\n`;
    const r = parseNft(text);
    const copies = r.defines.reduce((n, d) => n + (d.expression?.kind === 'set' ? d.expression.elements.length : 0), 0) + r.tables[0].sets[0].elements.length;
    expect(copies).toBeGreaterThan(MAX_VARIABLE_COPIES);
    expect(copies).toBeLessThanOrEqual(text.length / 4 + 2 * 262_144);
    expect(r.diagnostics.some((d) => d.code === 'expansion-limit')).toBe(true);
  });

  it('keeps real uses of variables in sets whole', () => {
    const text = `define web = { 80, 443 }\ndefine more = { $web, 8080 }\ntable inet f {\n\tchain c {\n\t\ttcp dport { $more, 22 } accept\n\t}\n}\n`;
    const r = parseNft(text);
    expect(r.diagnostics).toEqual([]);
    expect(elementsOf(text, 'more')).toBe(3);
  });

  it('a node snapshot with the bomb beside a rule is traced, graphed and explained at once', () => {
    const text = `${defineBomb(27)}table ip t {\n\tchain c {\n\t\ttype filter hook prerouting priority filter; policy accept;\n\t\tip daddr { $v27 } accept\n\t\tip daddr { $v14 } drop\n\t}\n}\n`;
    const file = analyzeFile('readme.txt', text)!;
    expect(file.languageId).toBe('nftables');
    const snapshot = buildSnapshot([file]);
    const trace = traceSnapshot(
      snapshot.files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] })),
      { to: '10.0.0.1', dport: 80, protocol: 'tcp', entry: 'pod' },
    );
    expect(trace.outcomes.map((o) => o.verdict)).toContain('drop');
    expect(graphOfSnapshot(snapshot)).toBeDefined();
    expect(explainNode(snapshot, [text]).mode).toBeDefined();
  });

  it('numgen with a mod beyond 32 bits is traced at once (its sweep stood still above 2^53)', () => {
    const text = `table ip t {\n\tchain c {\n\t\ttype nat hook prerouting priority dstnat; policy accept;\n\t\tnumgen random mod 1152921504606846976 vmap { 0-36028797018963968 : accept, 36028797018963970-36028797018963980 : drop }\n\t}\n}\n`;
    const file = analyzeFile('x.nft', text)!;
    const trace = traceSnapshot([{ name: file.name, analysis: file.analysis as TraceFile['analysis'] }], { to: '10.0.0.1', dport: 80, protocol: 'tcp', entry: 'pod' });
    expect(trace.outcomes.map((o) => [o.verdict, o.probability])).toEqual([['accept', 1]]);
  });
});
