// `iptables -L` and `iptables -S` pastes read into the iptables model: rule by rule the same model as the save of
// the same rules, the table named or inferred and said so, navigation and hovers on the listing's own columns.
// Fixtures: test/fixtures/listing/ (printed by iptables v1.8.9 in a throw-away namespace, see their first lines).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main';
import { traceSnapshot } from '../../src/core/trace';
import { describe, expect, it } from 'vitest';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import { analyzeIptables, definitionAt, hoverAt, outline } from '../../src/core/language/iptables';
import type { IptablesRuleset, Rule } from '../../src/core/model/iptables';
import { detectDialect } from '../../src/core/detect';

const fixture = (name: string) => readFileSync(`test/fixtures/listing/${name}`, 'utf8');

/** A rule as iptables-save would print it, from the model. */
function saved(rule: Rule): string {
  const opt = (o: { name: string; negated: boolean; values: string[] }) => [o.negated ? '!' : '', o.name, ...o.values].filter(Boolean).join(' ');
  const parts = [`-A ${rule.chain}`, ...rule.params.map(opt)];
  for (const m of rule.matches) parts.push(`-m ${m.module}`, ...m.options.map(opt));
  if (rule.target) parts.push(`${rule.target.kind === 'goto' ? '-g' : '-j'} ${rule.target.name}`, ...rule.target.options.map(opt));
  return parts.join(' ');
}

const rules = (r: IptablesRuleset) => r.tables.flatMap((tb) => tb.rules.map((rule) => `${tb.name} ${saved(rule)}`));

/** The position of the `nth` occurrence of `needle` on the line that contains `lineHas`. */
function at(text: string, lineHas: string, needle: string, nth = 0): { line: number; character: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(lineHas));
  let character = -1;
  for (let k = 0; k <= nth; k++) character = lines[line].indexOf(needle, character + 1);
  return { line, character: character + 1 };
}

describe('iptables -L output', () => {
  it('reads each row as the rule iptables-save prints for it', () => {
    const list = parseIptables(fixture('exotic.iptables-L-n-v.txt'));
    const save = parseIptables(fixture('exotic.iptables-save'));
    expect(list.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')).toEqual([]);
    expect(rules(list)).toEqual(rules(save));
    expect(list.tables.map((tb) => tb.name)).toEqual(['filter', 'nat']);
    expect(list.diagnostics.find((d) => d.code === 'inferred-table' && d.range.start.line > 10)?.message).toContain('-j REDIRECT');
    expect(list.listing).toEqual({ format: 'list', losses: [] });
  });

  it("kube-proxy's summaries, rounded counters and an unread summary", () => {
    const text = [
      'Chain KUBE-SVC-X (1 references)',
      ' pkts bytes target     prot opt in     out     source               destination',
      '  12K  3M KUBE-SEP-A  0    --  *      *       0.0.0.0/0            0.0.0.0/0            /* ns/svc:p -> 10.0.0.1:80 */ statistic mode random probability 0.33333333349',
      '    0     0 KUBE-SEP-A  0    --  *      *       0.0.0.0/0            0.0.0.0/0            /* ns/svc:p */ recent: CHECK seconds: 10800 reap name: KUBE-SEP-A side: source mask: 255.255.255.255',
      '    0     0 KUBE-MARK-MASQ  6    --  *      *      !10.0.0.0/8           10.96.0.1            /* ns/svc:p cluster IP */ match-set KUBE-CLUSTER-IP dst,dst mark match ! 0x4000/0x4000 ADDRTYPE match dst-type LOCAL tcp dpt:80',
      '    0     0 ACCEPT     0    --  *      *       0.0.0.0/0            0.0.0.0/0            hashlimit: up to 1/sec burst 5 mode srcip',
      '',
      'Chain KUBE-SEP-A (2 references)',
      ' pkts bytes target     prot opt in     out     source               destination',
      '    0     0 DNAT       6    --  *      *       0.0.0.0/0            0.0.0.0/0            /* ns/svc:p */ recent: SET name: KUBE-SEP-A side: source mask: 255.255.255.255 tcp to:10.0.0.1:80',
      '',
      'Chain KUBE-MARK-MASQ (1 references)',
      ' pkts bytes target     prot opt in     out     source               destination',
      '    0     0 MARK       0    --  *      *       0.0.0.0/0            0.0.0.0/0            MARK or 0x4000',
    ].join('\n');
    const r = parseIptables(text);
    expect(rules(r)).toEqual([
      'nat -A KUBE-SVC-X -m comment --comment ns/svc:p -> 10.0.0.1:80 -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-A',
      'nat -A KUBE-SVC-X -m comment --comment ns/svc:p -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-A --mask 255.255.255.255 --rsource -j KUBE-SEP-A',
      'nat -A KUBE-SVC-X ! -s 10.0.0.0/8 -d 10.96.0.1/32 -p tcp -m comment --comment ns/svc:p cluster IP -m set --match-set KUBE-CLUSTER-IP dst,dst -m mark ! --mark 0x4000/0x4000 -m addrtype --dst-type LOCAL -m tcp --dport 80 -j KUBE-MARK-MASQ',
      'nat -A KUBE-SVC-X -m unread --summary hashlimit: up to 1/sec burst 5 mode srcip -j ACCEPT',
      'nat -A KUBE-SEP-A -p tcp -m comment --comment ns/svc:p -m recent --set --name KUBE-SEP-A --mask 255.255.255.255 --rsource -m tcp -j DNAT --to-destination 10.0.0.1:80',
      'nat -A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000',
    ]);
    expect(r.tables[0].rules[0].counters).toMatchObject({ packets: 12_000, bytes: 3_000_000 });
    expect(r.listing).toEqual({ format: 'list', losses: ['counters', 'summaries'] });
    const unread = r.diagnostics.find((d) => d.code === 'list-unread')!;
    expect([unread.severity, unread.range.start.line, unread.range.start.character]).toEqual(['warning', 5, text.split('\n')[5].indexOf('hashlimit')]);
    expect(r.diagnostics.find((d) => d.code === 'inferred-table')?.message).toContain('-j DNAT');
  });

  it('a line that is neither a header nor a row gets a diagnostic with its line', () => {
    const r = parseIptables('Chain INPUT (policy ACCEPT)\ntarget     prot opt source               destination\nhello there\nACCEPT     all  --  0.0.0.0/0\n');
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.range.start.line} ${d.code}`)).toEqual(['2 list-row', '3 list-row']);
  });

  it('F12 on a target column goes to its chain header; hovers and the outline work', () => {
    const text = fixture('exotic.iptables-L-n-v.txt');
    const a = analyzeIptables(text);
    const def = definitionAt(a, at(text, '[goto]', ' X ', 0));
    expect(def?.name).toBe('X');
    expect(def?.range.start.line).toBe(text.split('\n').findIndex((l) => l.startsWith('Chain X ')));
    expect(hoverAt(a, at(text, 'redir ports', 'redir'))?.markdown).toMatch(/REDIRECT/);
    expect(outline(a).map((o) => `${o.name}: ${o.children.map((c) => c.name).join(',')}`)).toEqual(['filter: INPUT,FORWARD,OUTPUT,X', 'nat: PREROUTING,INPUT,OUTPUT,POSTROUTING']);
  });
});

describe('iptables -S output', () => {
  const text = [
    '$ sudo iptables -t nat -S',
    '-P PREROUTING ACCEPT',
    '-P POSTROUTING ACCEPT',
    '-N KUBE-SERVICES',
    '-N KUBE-SVC-ERIFXISQEP7F7OF4',
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A KUBE-SERVICES -d 10.96.0.10/32 -p udp -m comment --comment "kube-system/kube-dns:dns cluster IP" -m udp --dport 53 -j KUBE-SVC-ERIFXISQEP7F7OF4',
    '-N KUBE-SEP-IT2ZTR26TO4XFPTO',
    '-A KUBE-SVC-ERIFXISQEP7F7OF4 -m comment --comment "kube-system/kube-dns:dns -> 10.244.0.5:53" -j KUBE-SEP-IT2ZTR26TO4XFPTO',
    '-A KUBE-SEP-IT2ZTR26TO4XFPTO -p udp -m comment --comment "kube-system/kube-dns:dns" -m udp -j DNAT --to-destination 10.244.0.5:53',
    '',
  ].join('\n');

  it('is detected, and its table comes from the pasted command', () => {
    expect(detectDialect(text)).toBe('iptables');
    const r = parseIptables(text);
    expect(r.tables.map((tb) => `${tb.name} ${tb.chains.length} ${tb.rules.length}`)).toEqual(['nat 5 4']);
    expect(r.diagnostics.map((d) => `${d.range.start.line} ${d.severity} ${d.code}`)).toEqual(['0 information inferred-table']);
    expect(r.diagnostics[0].message).toContain('pasted command');
  });

  it('F12 on a jump goes to its -N line; the hover explains the Service', () => {
    const a = analyzeIptables(text);
    const def = definitionAt(a, at(text, '-A KUBE-SERVICES -d', 'KUBE-SVC-', 0));
    expect(def?.range).toEqual({ start: { line: 4, character: 3 }, end: { line: 4, character: 28 } });
    expect(hoverAt(a, at(text, '-A KUBE-SERVICES -d', 'KUBE-SVC-', 0))?.markdown).toContain('kube-dns');
    expect(a.catalog.services.map((s) => `${s.namespace}/${s.name}:${s.portName} ${s.endpoints.map((e) => e.address)}`)).toEqual(['kube-system/kube-dns:dns 10.244.0.5']);
  });

  it('reads the same with the accelerators off', () => {
    const on = parseIptables(text);
    const off = parseIptables(text, { accelerators: 'off' });
    expect(rules(off)).toEqual(rules(on));
    expect(off.diagnostics).toEqual(on.diagnostics);
  });

  it('without a prompt the table is inferred from what the lines use, and said so', () => {
    const r = parseIptables(text.split('\n').slice(1).join('\n'));
    expect(r.tables.map((tb) => tb.name)).toEqual(['nat']);
    expect(r.diagnostics[0].message).toMatch(/inferred from -j DNAT/);
    const two = parseIptables('-P INPUT ACCEPT\n-A INPUT -j ACCEPT\n-P PREROUTING ACCEPT\n-N KUBE-SEP-X\n-A KUBE-SEP-X -p tcp -j DNAT --to-destination 10.0.0.1:80\n');
    expect(two.tables.map((tb) => `${tb.name} ${tb.rules.length}`)).toEqual(['filter 1', 'nat 1']);
  });
});

describe('what a listing lacks is said where conclusions rest on it', () => {
  // `iptables -t nat -L -n` (no -v: no interfaces) of a one-endpoint Service, as iptables v1.8.9 prints it.
  const text = [
    'Chain PREROUTING (policy ACCEPT)',
    'target     prot opt source               destination',
    'KUBE-SERVICES  0    --  0.0.0.0/0            0.0.0.0/0            /* kubernetes service portals */',
    '',
    'Chain KUBE-SERVICES (1 references)',
    'target     prot opt source               destination',
    'KUBE-SVC-ERIFXISQEP7F7OF4  17   --  0.0.0.0/0            10.96.0.10           /* kube-system/kube-dns:dns cluster IP */ udp dpt:53',
    '',
    'Chain KUBE-SVC-ERIFXISQEP7F7OF4 (1 references)',
    'target     prot opt source               destination',
    'KUBE-SEP-IT2ZTR26TO4XFPTO  0    --  0.0.0.0/0            0.0.0.0/0            /* kube-system/kube-dns:dns -> 10.244.0.5:53 */',
    '',
    'Chain KUBE-SEP-IT2ZTR26TO4XFPTO (1 references)',
    'target     prot opt source               destination',
    'DNAT       17   --  0.0.0.0/0            0.0.0.0/0            /* kube-system/kube-dns:dns */ udp to:10.244.0.5:53',
    '',
  ].join('\n');

  it('the trace warns that interfaces were not listed', () => {
    const result = traceSnapshot([{ name: 'nat.txt', analysis: analyzeIptables(text) }], { to: '10.96.0.10', dport: 53, protocol: 'udp', entry: 'pod' });
    expect(result.outcomes.map((o) => o.destination)).toContain('10.244.0.5:53');
    expect(result.warnings.join('\n')).toContain('without -v');
  });

  it('`dataplane services` says so beside the catalog', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dataplane-listing-'));
    writeFileSync(join(dir, 'nat.txt'), text);
    const out: string[] = [];
    run(
      ['services', join(dir, 'nat.txt')],
      (s) => out.push(s),
      () => {},
    );
    expect(out.join('\n')).toMatch(/warning: .*nat\.txt: Read from `iptables -L` without -v/);
    expect(out.join('\n')).toContain('kube-system/kube-dns');
  });
});
