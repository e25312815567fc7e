// The messages of the "Explain This Node" webview: what the extension sends passes its own check, anything
// else (wrong kinds, ranges or paths instead of ids, oversized fields) is refused on both sides.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explainNode } from '../../src/core/explain/node';
import { codeSpans, parseExplainPanelState, parseFromWebview, parseToWebview, toView, type ExplainStrings } from '../../src/core/explain/node-protocol';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';

const STRINGS: ExplainStrings = { refresh: 'Refresh', files: 'Files:', reveal: 'Open {0} at line {1}', pro: 'Good:', con: 'Bad:', warning: 'Note:' };

function sampleView(mode: string) {
  const dir = join(__dirname, '../../samples', mode);
  // The folder's dumps (its cluster-state.yaml is the API side, no dump).
  const names = readdirSync(dir)
    .sort()
    .filter((n) => analyzeFile(n, readFileSync(join(dir, n), 'utf8')) !== undefined);
  const texts = names.map((n) => readFileSync(join(dir, n), 'utf8'));
  const e = explainNode(buildSnapshot(names.map((n, i) => analyzeFile(join(dir, n), texts[i])!)), texts);
  return { e, view: toView(e) };
}

describe('Explain This Node: webview messages', () => {
  it("the view of every sample passes the webview's check unchanged; evidence keeps its id and 1-based line, no ranges", () => {
    for (const mode of ['iptables-nft', 'iptables-legacy', 'nftables', 'ipvs']) {
      const { e, view } = sampleView(mode);
      const message = { type: 'explain', title: 'Explain: samples', strings: STRINGS, view };
      expect(parseToWebview(JSON.parse(JSON.stringify(message)))).toEqual(message);
      const evidence = view.sections.flatMap((s) => s.items.flatMap((i) => i.evidence));
      expect(evidence.length).toBeGreaterThan(0);
      for (const ev of evidence) {
        expect(Object.keys(ev).sort()).toEqual(['file', 'id', 'line', 'quote']);
        expect(ev.line).toBe(e.evidence[ev.id].range.start.line + 1);
      }
    }
  });

  it('the webview refuses tampered explain messages', () => {
    const { view } = sampleView('nftables');
    const ok = { type: 'explain', title: 't', strings: STRINGS, view };
    const bad = [
      { ...ok, view: { ...view, mode: 'userspace' } },
      { ...ok, view: { ...view, sections: [{ ...view.sections[0], id: 'script' }] } },
      { ...ok, view: { ...view, sections: [{ ...view.sections[0], items: [{ kind: 'claim', text: 1, evidence: [] }] }] } },
      { ...ok, view: { ...view, sections: [{ ...view.sections[0], items: [{ kind: 'claim', text: 'x', evidence: [{ id: -1, file: 'a', line: 1, quote: 'q' }] }] }] } },
      { ...ok, view: { ...view, headline: 'x'.repeat(3_000) } },
      { ...ok, strings: { ...STRINGS, refresh: undefined } },
      { type: 'html', html: '<script>' },
      'explain',
      null,
    ];
    for (const m of bad) expect(parseToWebview(m)).toBeUndefined();
    expect(parseToWebview({ type: 'error', message: 'Cannot explain this node: x' })).toEqual({ type: 'error', message: 'Cannot explain this node: x' });
  });

  it('the extension accepts only ready, refresh and reveal by evidence id', () => {
    expect(parseFromWebview({ type: 'ready' })).toEqual({ type: 'ready' });
    expect(parseFromWebview({ type: 'refresh', extra: 1 })).toEqual({ type: 'refresh' });
    expect(parseFromWebview({ type: 'reveal', evidence: 3 })).toEqual({ type: 'reveal', evidence: 3 });
    for (const m of [
      { type: 'reveal', evidence: '3' },
      { type: 'reveal', evidence: 1.5 },
      { type: 'reveal', evidence: -1 },
      { type: 'reveal', file: '/etc/passwd', line: 1 },
      { type: 'open', uri: 'file:///' },
      [],
      undefined,
    ]) {
      expect(parseFromWebview(m)).toBeUndefined();
    }
    expect(parseExplainPanelState({ document: 'file:///n/node1.nft' })).toEqual({ document: 'file:///n/node1.nft' });
    expect(parseExplainPanelState({ document: 5 })).toBeUndefined();
  });

  it('splits prose at backquotes into text and code, leaving an unmatched backquote as text', () => {
    expect(codeSpans('the `KUBE-SERVICES` chain')).toEqual([
      { code: false, text: 'the ' },
      { code: true, text: 'KUBE-SERVICES' },
      { code: false, text: ' chain' },
    ]);
    expect(codeSpans('`nft list ruleset`')).toEqual([{ code: true, text: 'nft list ruleset' }]);
    expect(codeSpans('a ` b')).toEqual([{ code: false, text: 'a ` b' }]);
  });
});
