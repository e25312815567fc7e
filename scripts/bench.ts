// `npm run bench`: how the core scales with dump size, on generated kube-proxy dumps (written to a temp
// folder, never into the repository). Prints a table and writes bench/results.md.
//   node dist/bench.js [--sizes 1000,5000,10000] [--endpoints 10] [--quick]

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateIptablesDump, randomServices } from '../src/core/kube/generate/iptables';
import { generateNftDump } from '../src/core/kube/generate/nft';
import { analyzeIptables, definitionAt, hoverAt } from '../src/core/language/iptables';
import { analyzeNft } from '../src/core/language/nft';
import { traceSnapshot } from '../src/core/trace';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const quick = process.argv.includes('--quick');
const sizes = (arg('--sizes') ?? (quick ? '200,1000' : '1000,5000,10000')).split(',').map(Number);
const endpoints = Number(arg('--endpoints') ?? 10);

function time<T>(fn: () => T): { value: T; ms: number } {
  const start = process.hrtime.bigint();
  const value = fn();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

function median(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(time(fn).ms);
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

interface Row {
  dialect: string;
  services: number;
  mb: number;
  lines: number;
  floorMs: number;
  parseMs: number;
  heapMb: number;
  traceMs: number;
  hoverMs: number;
  defMs: number;
}

const dir = mkdtempSync(join(tmpdir(), 'dataplane-bench-'));
const rows: Row[] = [];
try {
  for (const s of sizes) {
    const services = randomServices(s, endpoints, 1);
    const target = services.find((x) => x.endpoints.length > 0)!;
    for (const dialect of ['iptables', 'nftables'] as const) {
      const file = join(dir, `${dialect}-${s}.txt`);
      writeFileSync(file, dialect === 'iptables' ? generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true }) : generateNftDump({ services, style: 'nft-list-ruleset' }));
      // The floor: reading the file and splitting it into lines, what any reader must do.
      const floor = time(() => readFileSync(file, 'utf8').split('\n').length);
      (globalThis as { gc?: () => void }).gc?.();
      const before = process.memoryUsage().heapUsed;
      const text = readFileSync(file, 'utf8');
      const parsed = time(() => (dialect === 'iptables' ? analyzeIptables(text) : analyzeNft(text)));
      const heapMb = (process.memoryUsage().heapUsed - before) / 1e6;
      const files = [{ name: file, analysis: parsed.value }];
      const traceMs = median(() => traceSnapshot(files, { to: target.clusterIP, dport: target.port, protocol: target.protocol, entry: 'pod' }), 5);
      let hoverMs = NaN;
      let defMs = NaN;
      if (dialect === 'iptables') {
        const a = parsed.value as ReturnType<typeof analyzeIptables>;
        const lines = text.split('\n');
        const line = lines.findIndex((l) => l.startsWith('-A KUBE-SERVICES') && l.includes(`-d ${target.clusterIP}/32`));
        const character = lines[line].lastIndexOf('KUBE-SVC-') + 3;
        hoverMs = median(() => hoverAt(a, { line, character }), 9);
        defMs = median(() => definitionAt(a, { line, character }), 9);
      }
      rows.push({ dialect, services: s, mb: statSync(file).size / 1e6, lines: floor.value, floorMs: floor.ms, parseMs: parsed.ms, heapMb, traceMs, hoverMs, defMs });
      rmSync(file);
      process.stderr.write(`${dialect} S=${s}: parse ${parsed.ms.toFixed(0)} ms, trace ${traceMs.toFixed(1)} ms\n`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const vsix = readdirSync('dist').find((f) => f.endsWith('.vsix'));
const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const table = [
  '| dialect | services × endpoints | MB | lines | read+split ms | parse+symbols+catalog ms | ratio to floor | heap MB | heap / file | trace ms | hover ms | F12 ms |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.dialect} | ${r.services} × ${endpoints} | ${fmt(r.mb, 1)} | ${r.lines} | ${fmt(r.floorMs)} | ${fmt(r.parseMs)} | ${fmt(r.parseMs / r.floorMs, 1)}× | ${fmt(r.heapMb)} | ${fmt(r.heapMb / r.mb, 1)}× | ${fmt(r.traceMs, 1)} | ${fmt(r.hoverMs, 2)} | ${fmt(r.defMs, 2)} |`),
];
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const report = [
  '# Benchmark results',
  '',
  `Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}.`,
  `Generated kube-proxy dumps (seed 1), \`node dist/bench.js${process.argv.slice(2).length ? ' ' + process.argv.slice(2).join(' ') : ''}\`.`,
  vsix ? `VSIX: ${vsix}, ${(statSync(join('dist', vsix)).size / 1024).toFixed(0)} KiB.` : 'VSIX: not built.',
  '',
  ...table,
  '',
  'trace: one new connection to a ClusterIP from a pod, after parsing (median of 5). hover / F12: on a KUBE-SVC jump target in KUBE-SERVICES (median of 9).',
  '',
].join('\n');
console.log(table.join('\n'));
if (!quick) writeFileSync(join('bench', 'results.md'), report);
