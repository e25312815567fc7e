// The parts every dialect's parse shares (src/core/parse/pipeline.ts): the line loop, the capped diagnostics and
// their one summary, the line checks, and a parser bug made a diagnostic instead of a throw.
import { describe, expect, it } from 'vitest';
import { MAX_DIAGNOSTICS } from '../../src/core/model/diagnostics';
import { lineRange } from '../../src/core/model/range';
import { acceleratorsOn, DiagnosticsCollector, guarded, LINE_LIMITS, lineProblem, readLines, type Accelerator } from '../../src/core/parse/pipeline';

describe('readLines', () => {
  const run = (text: string, accelerators: boolean) => {
    const seen: string[] = [];
    const sink = { line: -1 };
    // Takes the lines that start with `a`, at the line number the loop set on the sink.
    const takeA: Accelerator<typeof sink> = (all, start, end, s) => {
      if (all.charCodeAt(start) !== 97) return false;
      seen.push(`fast ${s.line} ${all.slice(start, end)}`);
      return true;
    };
    const count = readLines(text, { sink, accelerators: [takeA], reference: (i, start, end) => seen.push(`ref ${i} ${text.slice(start, end)}`) }, accelerators);
    return { seen, count };
  };

  it('gives each line to the first accelerator that takes it, else to the reference reader', () => {
    expect(run('a1\nb2\r\na3\rb4\n', true)).toEqual({ seen: ['fast 0 a1', 'ref 1 b2', 'fast 2 a3', 'ref 3 b4'], count: 4 });
  });

  it('reads every line the reference way when accelerators are off', () => {
    expect(run('a1\nb2', false).seen).toEqual(['ref 0 a1', 'ref 1 b2']);
  });

  it('reads options the same for every dialect, the older spelling included', () => {
    expect([acceleratorsOn(), acceleratorsOn({ accelerators: 'on' }), acceleratorsOn({ accelerators: 'off' }), acceleratorsOn({ mode: 'chevrotain' })]).toEqual([true, true, false, false]);
  });
});

describe('DiagnosticsCollector', () => {
  const fill = (c: DiagnosticsCollector, n: number, severity: 'error' | 'hint') => {
    for (let k = 0; k < n; k++) c.add(lineRange(k, 0, 1), severity, 'x', 'm');
  };

  it('keeps MAX_DIAGNOSTICS and summarises the rest in one warning at the top', () => {
    const c = new DiagnosticsCollector({ problems: (n) => `${n} more` });
    fill(c, MAX_DIAGNOSTICS + 5, 'error');
    const all = c.close();
    expect(all).toHaveLength(MAX_DIAGNOSTICS + 1);
    expect(all[MAX_DIAGNOSTICS]).toEqual({ range: lineRange(0, 0, 0), severity: 'warning', code: 'too-many-problems', message: '5 more' });
  });

  it('tells hints left out from problems left out when asked to', () => {
    const c = new DiagnosticsCollector({ problems: (n) => `${n} problems`, hints: (n) => `${n} hints` });
    fill(c, MAX_DIAGNOSTICS + 2, 'hint');
    expect(c.close().at(-1)).toMatchObject({ severity: 'information', message: '2 hints' });
    const d = new DiagnosticsCollector({ problems: (n) => `${n} problems`, hints: (n) => `${n} hints` });
    fill(d, MAX_DIAGNOSTICS + 2, 'hint');
    fill(d, 1, 'error');
    expect(d.close().at(-1)).toMatchObject({ severity: 'warning', message: '3 problems' });
  });

  it('adds no summary when nothing was left out', () => {
    const c = new DiagnosticsCollector({ problems: () => 'never' });
    fill(c, 3, 'error');
    expect(c.close()).toHaveLength(3);
  });
});

describe('lineProblem', () => {
  it("stops lines too long and binary lines, with each dialect's limits", () => {
    expect(lineProblem(3, 'x'.repeat(LINE_LIMITS.ipset.maxLength + 1), LINE_LIMITS.ipset)).toMatchObject({ code: 'line-too-long', range: lineRange(3, 0, 200) });
    expect(lineProblem(3, 'x'.repeat(LINE_LIMITS.ipset.maxLength + 1), LINE_LIMITS.nftables)).toBeUndefined();
    expect(lineProblem(0, 'ab\u0000c', LINE_LIMITS.ipvsadm)).toMatchObject({ code: 'binary', severity: 'error' });
    expect(lineProblem(0, 'add s 1.2.3.4', LINE_LIMITS.ipset)).toBeUndefined();
  });
});

describe('guarded', () => {
  it('makes a parser bug a diagnostic on the fallback model, never a throw', () => {
    const model = guarded(
      'ipset',
      (): { diagnostics: unknown[] } => {
        throw new TypeError('boom');
      },
      (bug) => ({ diagnostics: [bug] }),
    );
    expect(model.diagnostics).toEqual([expect.objectContaining({ code: 'parser-bug', severity: 'error', message: expect.stringContaining('boom') })]);
  });

  it('answers the parse when it does not throw', () => {
    expect(
      guarded(
        'ipset',
        () => 1,
        () => 2,
      ),
    ).toBe(1);
  });
});
