// Every iptables dump of ../shared/corpus: what the real iptables-restore 1.8.9 loads must parse without
// errors; what it rejects for a syntax reason must get a diagnostic on the line it names (VALIDATION*.tsv).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

interface Row {
  file: string;
  ok: boolean;
  errorLines: number[];
  message: string;
}

function validation(dir: string): Row[] {
  const rows = readFileSync(join(dir, 'VALIDATION.tsv'), 'utf8').trim().split('\n').slice(1);
  return rows.map((r) => {
    const cols = r.split('\t');
    const message = `${cols[3] ?? ''} ${cols[5] ?? ''}`;
    const errorLines = [...message.matchAll(/(?:Error occurred at line: |line )(\d+)/g)].map((m) => Number(m[1]));
    return { file: cols[0], ok: cols[2] === 'OK' && cols[4] === 'OK', errorLines, message };
  });
}

/** Rejections that are not about syntax: name resolution and objects missing from the kernel. */
const NOT_SYNTAX = /host\/network `[\w.-]+' not found|Set \S+ doesn't exist/;

const DIRS = ['iptables/kube-proxy', 'iptables/real-world', 'iptables/iptables-tests-dumps'];

describe.skipIf(!HAVE_CORPUS)(`iptables corpus (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  if (!HAVE_CORPUS) return;
  for (const sub of DIRS) {
    const dir = join(CORPUS, sub);
    const rows = validation(dir);
    describe(sub, () => {
      it('has a validation row for every dump', () => {
        const dumps = readdirSync(dir).filter((f) => !f.endsWith('.tsv') && !f.endsWith('.json'));
        expect(rows.length).toBeGreaterThan(0);
        const validated = new Set(rows.map((r) => r.file));
        const kernelRedumps = dumps.filter((f) => /\.kernel-/.test(f));
        expect(dumps.filter((f) => !validated.has(f) && !kernelRedumps.includes(f))).toEqual([]);
      });
      for (const row of rows) {
        const text = readFileSync(join(dir, row.file), 'utf8');
        if (row.ok && text.includes('\r')) {
          // The validation fed these to the tools with LF line endings; as stored (CRLF) both tools reject them on
          // their first table line ("table name 'nat\r' invalid", checked with iptables 1.8.9): a warning says so.
          it(`loads: ${row.file} has no errors, and a warning for its CRLF line endings`, () => {
            const diagnostics = analyzeIptables(text).diagnostics;
            expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
            expect(diagnostics.filter((d) => d.code === 'crlf-line-endings').map((d) => d.severity)).toEqual(['warning']);
          });
        } else if (row.ok) {
          it(`loads: ${row.file} has no errors`, () => {
            const errors = analyzeIptables(text).diagnostics.filter((d) => d.severity === 'error');
            expect(errors.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`)).toEqual([]);
          });
        } else if (NOT_SYNTAX.test(row.message)) {
          it(`rejected for a non-syntax reason: ${row.file} parses without errors`, () => {
            const errors = analyzeIptables(text).diagnostics.filter((d) => d.severity === 'error');
            expect(errors).toEqual([]);
          });
        } else {
          it(`rejected: ${row.file} gets a diagnostic on a line the tools name (${row.errorLines.join(', ')})`, () => {
            const lines = new Set(
              analyzeIptables(text)
                .diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')
                .map((d) => d.range.start.line + 1),
            );
            expect(row.errorLines.length).toBeGreaterThan(0);
            expect(
              row.errorLines.some((l) => lines.has(l)),
              `diagnostic lines: ${[...lines].slice(0, 20).join(', ')}`,
            ).toBe(true);
          });
        }
      }
    });
  }

  it('kernel re-dumps (iptables-save output) of loaded kube-proxy input have no errors or warnings', () => {
    const dir = join(CORPUS, 'iptables/kube-proxy');
    const files = readdirSync(dir).filter((f) => /\.kernel-/.test(f));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const bad = analyzeIptables(readFileSync(join(dir, f), 'utf8')).diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning');
      expect(bad, f).toEqual([]);
    }
  });
});
