// The trace view is never a blank panel: with no trace shown (at first, after Clear Trace) VS Code shows its
// viewsWelcome content, a Trace button included, in every language the extension ships.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const read = (name: string) => JSON.parse(readFileSync(resolve(__dirname, '../..', name), 'utf8'));
const pkg = read('package.json');
const commands = new Set<string>(pkg.contributes.commands.map((c: { command: string }) => c.command));

describe('package.json: the trace view welcome', () => {
  const welcome = (pkg.contributes.viewsWelcome ?? []).filter((w: { view: string }) => w.view === 'dataplane.trace');

  it('the trace view has welcome content, shown whenever no trace is', () => {
    expect(welcome).toHaveLength(1);
    expect(welcome[0].when).toBeUndefined();
  });

  it.each(['package.nls.json', 'package.nls.zh-cn.json'])('%s: its text has a Trace button that runs a contributed command', (file) => {
    const key = /^%(.+)%$/.exec(welcome[0].contents)?.[1];
    const text: string = read(file)[key!];
    const buttons = [...text.matchAll(/^\[[^\]]+\]\(command:([\w.]+)\)$/gm)].map((m) => m[1]);
    expect(buttons).toContain('dataplane.traceClusterIP');
    for (const c of buttons) expect(commands.has(c)).toBe(true);
    expect(text).not.toMatch(/--\w/);
  });
});

describe('the editor names no command-line flag', () => {
  it('no vscode.l10n.t message in src/extension names --node-ip or another CLI flag', async () => {
    const { readdirSync } = await import('node:fs');
    const files = (readdirSync(resolve(__dirname, '../../src/extension'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    const flagged: string[] = [];
    for (const f of files) {
      const source = readFileSync(resolve(__dirname, '../../src/extension', f), 'utf8');
      for (const m of source.matchAll(/l10n\.t\(\s*(['`"])((?:\\.|(?!\1).)*)\1/g)) if (/--(node-ip|from|to|entry|json)(?![\w-])/.test(m[2])) flagged.push(`${f}: ${m[2]}`);
    }
    expect(files.length).toBeGreaterThan(10);
    expect(flagged).toEqual([]);
  });
});
