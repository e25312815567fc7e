// The trace's text, Markdown and JSON: one formatter each in the core, so the CLI and Copy Trace say the same.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { analyzeIptables } from '../../src/core/language/iptables';
import { sampleFiles } from '../../tools/generate/samples';
import { traceSnapshot, tracedService, traceToJson } from '../../src/core/trace';
import { stepText, traceToJsonText, traceToMarkdown, traceToText } from '../../src/core/trace/format';

const sample = sampleFiles()['iptables-nft/node1.iptables'];
const dir = mkdtempSync(join(tmpdir(), 'dataplane-format-'));
const path = join(dir, 'node1.iptables');
writeFileSync(path, sample);
const cli = (...args: string[]) => {
  const out: string[] = [];
  run(
    args,
    (s) => out.push(s),
    () => undefined,
  );
  return out.join('\n');
};
const traced = (text: string, to: string, dport: number, protocol: 'tcp' | 'udp') => {
  const files = [{ name: path, analysis: analyzeIptables(text) }];
  const result = traceSnapshot(files, { to, dport, protocol, entry: 'pod' });
  return { ...result, service: tracedService(files, result) };
};

describe('trace formatters', () => {
  const r = traced(sample, '10.96.0.10', 53, 'udp');

  it('names the Service the destination is a frontend of, and none for an address no Service owns', () => {
    expect(r.service).toBe('kube-system/kube-dns:dns');
    expect(traced(sample, '10.96.12.99', 80, 'tcp').service).toBeUndefined();
  });

  it('text and JSON are the CLI output, byte for byte', () => {
    expect(traceToText(r, [path]).join('\n')).toBe(cli('trace', path, '--to', '10.96.0.10:53/udp'));
    expect(traceToText(r, [path])[0]).toBe(`udp ${r.packet.src} → 10.96.0.10:53 (from a pod on this node) · Service kube-system/kube-dns:dns`);
    expect(traceToJsonText(r, [path])).toBe(cli('trace', path, '--to', '10.96.0.10:53/udp', '--json'));
    expect(JSON.parse(traceToJsonText(r, [path]))).toEqual(traceToJson(r, [path]));
  });

  it('Markdown has the packet, the Service and every step, with dump text escaped or in code spans', () => {
    const m = traceToMarkdown(r, [path]);
    expect(m.split('\n')[0]).toBe(`**udp ${r.packet.src} → 10.96.0.10:53 (from a pod on this node)**`);
    expect(m).toContain('Service `kube-system/kube-dns:dns`');
    for (const o of r.outcomes) for (const s of o.path) expect(m).toContain(s.text.includes('`') ? '' : `\`${s.text}\``);
    // A hostile comment cannot open a link or HTML, nor close its code span.
    const hostile = sample.replace('"kube-system/kube-dns:dns cluster IP"', '"kube-system/kube-dns:dns cluster IP <img src=x> [a](http://e) `x`"');
    const h = traceToMarkdown(traced(hostile, '10.96.0.10', 53, 'udp'), [path]);
    const outsideCode = h.replace(/(`+)(?!`)[^\n]*?(?<!`)\1(?!`)/g, '');
    expect(h).toContain('<img');
    expect(outsideCode).not.toMatch(/(^|[^\\])[<[]/);
    expect(h).toContain('``');
  });

  it('a step copies as its place, its note and its rule', () => {
    const s = r.outcomes[0].path[0];
    expect(stepText(s, [path])).toBe(`node1.iptables:${s.line + 1}  ${s.table}/${s.chain}  ${s.note}\n${s.text}`);
  });
});
