// The dialect corners real files hold, judged by the real tools (test/helpers/restore-verdicts.ts holds their
// verdicts; test/kernel/dialect-verdicts.test.ts asks them again as root): what they accept parses without errors
// or warnings, what they reject gets its diagnostic on the line they name.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import { parseNft } from '../../src/core/parse/nft/parser';
import { detectDialect } from '../../src/core/detect';
import { NFT_CASES, RESTORE_CASES } from '../helpers/restore-verdicts';
import { costRatio, MAX_COST_RATIO_8X, perfIt } from '../helpers/linear';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const problems = (text: string) =>
  parseIptables(text)
    .diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')
    .map((d) => `${d.range.start.line + 1} ${d.code}`);

describe('iptables-restore input: the parser agrees with both backends', () => {
  for (const c of RESTORE_CASES) {
    it(c.name, () => {
      expect(problems(c.text)).toEqual(c.expect);
      for (const mode of ['scan', 'chevrotain'] as const) {
        const again = parseIptables(c.text, { mode })
          .diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')
          .map((d) => `${d.range.start.line + 1} ${d.code}`);
        expect(again, mode).toEqual(c.expect);
      }
      // Where both tools fail, the diagnostic is on the line they name: an error, but a warning for line endings
      // (a copy through Windows, read all the same).
      if (c.nft !== 'ok' && c.legacy !== 'ok') {
        const first = parseIptables(c.text).diagnostics.find((d) => d.severity === 'error' || d.severity === 'warning');
        expect(first?.range.start.line).toBe(c.nft - 1);
        expect(first?.severity).toBe(/line-endings$/.test(first?.code ?? '') ? 'warning' : 'error');
      }
    });
  }

  it('reads the table and chains of `* mangle` and `: NAME`, and fades the words the tool ignores', () => {
    const r = parseIptables('* mangle\n: ISTIO_DIVERT - [0:0]\n:PREROUTING ACCEPT [0:0] more\n-A PREROUTING -j ISTIO_DIVERT\nCOMMIT\n');
    expect(r.tables.map((t) => t.name)).toEqual(['mangle']);
    expect(r.tables[0].chainByName.get('ISTIO_DIVERT')?.nameRange).toMatchObject({ start: { line: 1, character: 2 } });
    expect(r.tables[0].rules[0].target).toMatchObject({ kind: 'jump', name: 'ISTIO_DIVERT' });
    expect(r.diagnostics.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.severity} ${d.code}`)).toEqual(['3:26 hint ignored-words']);
    expect(r.diagnostics[0].unnecessary).toBe(true);
  });

  it('a word iptables-restore ignores may be a BOM or NBSP (only spaces and tabs separate words): its hint is on it', () => {
    for (const word of ['\ufeff', '\u00a0x']) {
      const text = `*nat ${word}`;
      const hint = parseIptables(`${text}\nCOMMIT\n`).diagnostics.find((d) => d.code === 'ignored-words');
      expect(hint?.range).toMatchObject({ start: { line: 0, character: 5 }, end: { line: 0, character: text.length } });
    }
  });

  it('`* nat` (and `*\tmangle`) opens an iptables dump of any name', () => {
    expect(detectDialect('* nat\n-N ISTIO_INBOUND\nCOMMIT\n', 'istio.txt')).toBe('iptables');
    expect(detectDialect('*\tmangle \nCOMMIT\n')).toBe('iptables');
    expect(detectDialect('* nothing\n')).toBeUndefined();
  });

  it('a file with CR line endings is still analysed after the one diagnostic', () => {
    const r = parseIptables('*nat\r:KUBE-SERVICES - [0:0]\r:OUTPUT ACCEPT [0:0]\r-A OUTPUT -j KUBE-SERVICES\rCOMMIT\r');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['cr-line-endings']);
    expect(r.tables[0].rules[0].target?.name).toBe('KUBE-SERVICES');
  });
});

describe('line endings and declarations cost linear time', () => {
  perfIt('8× the lines with one CR at the very end, and 8× `: NAME` declarations with words after them, cost at most half of quadratic', () => {
    const dump = (n: number) => `*\t nat   \n${Array.from({ length: n }, (_, k) => `:  C${k}\t- [0:0] x y\n-A C${k} -j ACCEPT\n`).join('')}COMMIT\n# end\r`;
    expect(costRatio((text) => parseIptables(text), dump(3_000), dump(24_000))).toBeLessThan(MAX_COST_RATIO_8X);
  });
});

describe('nft -f input: the parser agrees with nft -c -f', () => {
  for (const c of NFT_CASES) {
    it(c.name, () => {
      const d = parseNft(c.text).diagnostics.map((x) => `${x.range.start.line + 1} ${x.severity} ${x.code}`);
      expect(d).toEqual(c.expect);
    });
  }

  it('an include names its file: it is not part of the dump', () => {
    const r = parseNft(NFT_CASES[0].text);
    expect(r.includes).toEqual([expect.objectContaining({ path: '/etc/nftables.d/*.nft' })]);
    expect(r.diagnostics[0].message).toContain('/etc/nftables.d/*.nft');
    expect(r.tables[0].chains.map((ch) => ch.name)).toEqual(['input']);
  });
});

describe('list-format pastes: one diagnostic naming the format', () => {
  it('an `iptables -S` paste', () => {
    const text = '-P INPUT ACCEPT\n-P FORWARD DROP\n-N KUBE-SERVICES\n-A INPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -j ACCEPT\n';
    const d = parseIptables(text).diagnostics;
    expect(d.map((x) => `${x.range.start.line + 1} ${x.severity} ${x.code}`)).toEqual(['1 error list-format']);
    expect(d[0].message).toContain('iptables -S');
  });

  it('both are recognised as iptables whatever the file name', () => {
    expect(detectDialect('-P INPUT ACCEPT\n-N KUBE-SERVICES\n', 'rules.txt')).toBe('iptables');
    expect(detectDialect('Chain INPUT (policy ACCEPT 0 packets, 0 bytes)\n')).toBe('iptables');
  });

  it('an `iptables -L -n -v` paste', () => {
    const text = [
      'Chain INPUT (policy ACCEPT 0 packets, 0 bytes)',
      ' pkts bytes target     prot opt in     out     source               destination',
      '  12   720 KUBE-FIREWALL  all  --  *      *       0.0.0.0/0            0.0.0.0/0',
      '',
      'Chain KUBE-FIREWALL (2 references)',
      'target     prot opt source               destination',
      'DROP       all  -- !127.0.0.0/8          127.0.0.0/8',
      '',
    ].join('\n');
    const d = parseIptables(text).diagnostics;
    expect(d.map((x) => `${x.range.start.line + 1} ${x.severity} ${x.code}`)).toEqual(['1 error list-format']);
    expect(d[0].message).toContain('iptables -L');
  });

  it('a stray rule before the first table of a save is still "outside a table"', () => {
    expect(problems('-X FOO\n*filter\nCOMMIT\n')).toEqual(['1 outside-table']);
  });
});

describe('services and parse name the same first error', () => {
  it('the first in the document, not the first found', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dataplane-first-'));
    // The undefined chain on line 4 is found at the end, after the prose on line 5.
    const file = join(dir, 'f.iptables');
    writeFileSync(file, '# Generated by iptables-save v1.8.9 on x\n*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j NOWHERE\nthis is prose\nCOMMIT\n');
    const out: string[] = [];
    const err: string[] = [];
    run(
      ['parse', file, '--json'],
      (s) => out.push(s),
      () => {},
    );
    const first = JSON.parse(out.join('\n')).diagnostics.find((d: { severity: string }) => d.severity === 'error');
    run(
      ['services', file],
      () => {},
      (s) => err.push(s),
    );
    expect(err.join('\n')).toContain(`the first at ${first.line}:${first.column}: ${first.message}`);
    expect(first.line).toBe(4);
  });
});
