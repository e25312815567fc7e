// A dump with nothing on the hook the packet takes (a table left out, a built-in chain cut off, an nft ruleset with no
// base chain there or no nat chain) says so in the trace's warnings (CLI text, --json's stderr, the Trace view),
// instead of a silent "100% ACCEPT" with an empty path. iptables-save prints every table the kernel has, each with all
// its built-in chains: a missing table may be left out of the dump (`iptables-save -t nat`), a missing built-in chain
// means the dump was cut or edited.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile, type TraceRequest } from '../../src/core/trace';
import { traceProblems } from '../helpers/shared';

const files = (name: string, text: string): SnapshotFile[] => [{ name, analysis: analyzeFile(name, text)!.analysis as SnapshotFile['analysis'] }];
const trace = (name: string, text: string, request: Partial<TraceRequest> = {}) => traceSnapshot(files(name, text), { to: '10.0.0.5', dport: 80, protocol: 'tcp', entry: 'external', ...request });

const REPRO = '*nat\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n';
const NO_FILTER = /The dump has no filter table \(iptables-save prints every table the kernel has\): the packet passes it unchanged\. That is what the kernel does if the dump is complete/;
const cut = (table: string, chain: string) =>
  `Table ${table} of the dump has no built-in chain ${chain}, which iptables-save always prints: this is not a whole iptables-save dump (cut short, edited, or an iptables-restore input such as kube-proxy's). The trace passes ${chain} as an empty chain with policy ACCEPT.`;
const table = (name: string, chains: string[], rules: string[] = []) => [`*${name}`, ...chains.map((c) => `:${c} ACCEPT [0:0]`), ...rules, 'COMMIT'].join('\n');
const NAT = table('nat', ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING']);
const FILTER = table('filter', ['INPUT', 'FORWARD', 'OUTPUT']);

describe('iptables: a table or built-in chain missing on the way', () => {
  it('the repro names the missing filter table and the nat chains cut off, instead of a silent 100% ACCEPT', () => {
    const r = trace('f', REPRO);
    expect(r.outcomes.map((o) => [o.verdict, o.probability])).toEqual([['accept', 1]]);
    expect(r.warnings).toEqual([expect.stringMatching(NO_FILTER), cut('nat', 'PREROUTING'), cut('nat', 'POSTROUTING')]);
  });

  it('a complete dump whose chains hold only policies says nothing: that is the kernel having no rules', () => {
    const r = trace('f', `${FILTER}\n${NAT}\n`);
    expect(r.warnings).toEqual([]);
  });

  it('a nat-only dump (iptables-save -t nat) says the filter table is not in it, once, on every entry', () => {
    for (const entry of ['pod', 'node', 'external'] as const) {
      const r = trace('f', `${NAT}\n`, { entry, from: entry === 'pod' ? '10.244.0.9' : undefined });
      expect(traceProblems(r.warnings), entry).toEqual(r.warnings.filter((w) => /No node address/.test(w)));
      expect(
        r.warnings.filter((w) => NO_FILTER.test(w)),
        entry,
      ).toHaveLength(1);
    }
  });

  it('a truncated nat table (Service chains but no PREROUTING) says PREROUTING is missing; one without the nat table says so too', () => {
    const truncated = table('nat', ['OUTPUT', 'POSTROUTING'], [':KUBE-SERVICES - [0:0]', '-A OUTPUT -j KUBE-SERVICES', '-A KUBE-SERVICES -d 10.0.0.5/32 -p tcp --dport 80 -j DNAT --to-destination 10.244.0.7:80']);
    expect(trace('f', `${FILTER}\n${truncated}\n`).warnings).toEqual([cut('nat', 'PREROUTING')]);
    expect(trace('f', `${FILTER}\n`).warnings).toEqual([expect.stringContaining('The dump has no nat table')]);
  });

  it('a nat table without INPUT (kernels before 2.6.36 had none) is no partial dump', () => {
    const oldNat = table('nat', ['PREROUTING', 'OUTPUT', 'POSTROUTING']);
    expect(trace('f', `${FILTER}\n${oldNat}\n`, { nodeIPs: ['10.0.0.5'] }).warnings).toEqual([]);
  });

  it("kube-proxy's iptables-restore input (its chains only, no built-ins) is named as not a whole dump", () => {
    const input = table('nat', [], [':KUBE-SERVICES - [0:0]', '-A KUBE-SERVICES -d 10.0.0.5/32 -p tcp --dport 80 -j DNAT --to-destination 10.244.0.7:80']);
    const r = trace('f', `${FILTER}\n${input}\n`, { entry: 'pod', from: '10.244.0.9' });
    expect(r.outcomes.map((o) => o.verdict)).toEqual(['accept']);
    expect(r.warnings).toEqual([cut('nat', 'PREROUTING'), cut('nat', 'POSTROUTING')]);
  });

  it('the CLI prints the warnings in its text and on stderr with --json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpx-missing-'));
    const file = join(dir, 'f');
    writeFileSync(file, REPRO);
    const out: string[] = [];
    run(
      ['trace', file, '--to', '10.0.0.5:80/tcp', '--entry', 'external'],
      (s) => out.push(s),
      () => {},
    );
    expect(out.join('\n')).toContain(`  warning: ${cut('nat', 'PREROUTING')}`);
    const err: string[] = [];
    run(
      ['trace', file, '--to', '10.0.0.5:80/tcp', '--entry', 'external', '--json'],
      () => {},
      (s) => err.push(s),
    );
    expect(err).toContain(`warning: ${cut('nat', 'PREROUTING')}`);
  });
});

const nftTable = (chains: [string, string, string][]) => `table ip t {\n${chains.map(([name, type, hook]) => `\tchain ${name} {\n\t\ttype ${type} hook ${hook} priority 0; policy accept;\n\t}\n`).join('')}}\n`;
const chainJson = (name: string, type: string, hook: string) => ({ chain: { family: 'ip', table: 't', name, handle: 1, type, hook, prio: 0, policy: 'accept' } });

describe('nft: no base chain (or no nat chain) on the hook the packet takes', () => {
  const filterOnly = nftTable([
    ['input', 'filter', 'input'],
    ['forward', 'filter', 'forward'],
    ['pre', 'filter', 'prerouting'],
  ]);
  const filterOnlyJson = JSON.stringify({
    nftables: [{ table: { family: 'ip', name: 't', handle: 1 } }, chainJson('input', 'filter', 'input'), chainJson('forward', 'filter', 'forward'), chainJson('pre', 'filter', 'prerouting')],
  });

  it('a filter-only ruleset (no Service rules) says nothing NATs the packet and which hooks have no chain (text and JSON)', () => {
    for (const [name, text] of [
      ['f.nft', filterOnly],
      ['f.json', filterOnlyJson],
    ]) {
      const r = trace(name, text);
      expect(
        r.outcomes.map((o) => [o.verdict, o.probability]),
        name,
      ).toEqual([['accept', 1]]);
      expect(r.warnings, name).toEqual([
        'The ruleset has no base chain on hooks the packet takes (postrouting, IPv4): there it is neither filtered nor NATed. That is what the kernel does if the dump is complete; chains left out of the dump were not traced.',
        'No chain of type nat is on the prerouting hook: nothing in this ruleset rewrites the destination there (no Service DNAT). If Service rules were expected, the dump lacks them.',
      ]);
    }
  });

  it('from the node: output without a nat chain, and the hooks with none', () => {
    const r = trace('f.nft', nftTable([['out', 'filter', 'output']]), { entry: 'node', nodeIPs: ['192.0.2.1'] });
    expect(r.warnings).toEqual([expect.stringContaining('(postrouting, IPv4)'), expect.stringContaining('on the output hook')]);
  });

  it('a ruleset with chains on every hook the packet takes, a nat one among them, says nothing', () => {
    const full = nftTable([
      ['pre', 'nat', 'prerouting'],
      ['forward', 'filter', 'forward'],
      ['post', 'nat', 'postrouting'],
      ['input', 'filter', 'input'],
    ]);
    expect(trace('f.nft', full).warnings).toEqual([]);
  });
});
