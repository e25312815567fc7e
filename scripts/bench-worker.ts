// `node dist/bench-worker.js [FILE]` (built by `node scripts/bench-worker.mjs`): what the extension host feels
// while the analysis worker parses a large dump: the longest main-thread task caused by sending the text and by
// the answers (hover, F12, outline, folding, semantic tokens of a viewport, services, graph), and how long each takes.
// Without FILE it generates the largest benchmark dump (10,000 Services × 10 endpoints, iptables-nft-save).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { generateIptablesDump, randomServices } from '../tools/generate/iptables';
import { AnalysisClient } from '../src/extension/analysis/client';
import type { AnalyzeResult, SnapshotAnswer } from '../src/extension/analysis/protocol';

const file = process.argv[2];
const text = file ? readFileSync(file, 'utf8') : generateIptablesDump({ services: randomServices(10_000, 10, 1), style: 'iptables-nft-save', family: 'ipv4', comments: true, nodeRules: true });
const lines = text.split('\n');
const starts: number[] = [];
for (let i = 0, o = 0; i < lines.length; i++) {
  starts.push(o);
  o += lines[i].length + 1;
}
const part = (a: number, b: number) => text.slice(starts[a], b < lines.length ? starts[b] : text.length);

// The longest gap between two ticks of a 1 ms timer: the longest task on this (the "extension host") thread.
// Gaps also include time the OS gave the CPU to others (2 cores, a worker parsing): the event loop's own active
// time between two ticks (eventLoopUtilization) is the longest task that ran on this thread.
let longest = 0;
let longestActive = 0;
let last = performance.now();
let lastElu = performance.eventLoopUtilization();
const timer = setInterval(() => {
  const now = performance.now();
  const elu = performance.eventLoopUtilization();
  longest = Math.max(longest, now - last - 1);
  longestActive = Math.max(longestActive, elu.active - lastElu.active);
  last = now;
  lastElu = elu;
}, 1);
const reset = () => {
  longest = 0;
  longestActive = 0;
  last = performance.now();
  lastElu = performance.eventLoopUtilization();
};

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  reset();
  const t = performance.now();
  const value = await fn();
  const ms = performance.now() - t;
  console.log(`${what.padEnd(34)} ${ms.toFixed(1).padStart(9)} ms   longest main-thread task ${longestActive.toFixed(1).padStart(6)} ms   (longest gap ${longest.toFixed(1).padStart(6)} ms)`);
  return value;
}

async function main(): Promise<void> {
  const client = new AnalysisClient(() => new Worker(join(__dirname, 'worker.js')));
  console.log(`${(text.length / 1e6).toFixed(1)} M characters, ${lines.length} lines`);
  const doc = { key: 'file:///big.iptables', version: 1, languageId: 'iptables', name: '/big.iptables', lineCount: lines.length };
  await timed('send text in parts', () => client.sendText(doc, part, () => true));
  const result = await timed('analyze (parse in the worker)', () => client.request<AnalyzeResult>({ type: 'analyze', key: doc.key, version: 1 }));
  console.log(`  worker parse time ${result.ms} ms; ${result.summary.rules} rules, ${result.summary.services} services`);
  const svcLine = lines.findIndex((l) => l.startsWith('-A KUBE-SERVICES ') && l.includes('-j KUBE-SVC-'));
  const character = lines[svcLine].lastIndexOf('KUBE-SVC-') + 2;
  let version = 1;
  const q = (method: string, ...args: unknown[]) => client.request({ type: 'query', key: doc.key, version, method: method as never, args });
  for (let i = 0; i < 3; i++) {
    await timed('hover on a KUBE-SVC target', () => q('hoverAt', { line: svcLine, character }));
    await timed('F12 on a KUBE-SVC target', () => q('definitionAt', { line: svcLine, character }));
  }
  await timed('outline (as the provider asks: 5000)', () => q('outline', 5000));
  await timed('folding ranges (5000)', () => q('foldingRanges', 5000));
  await timed('semantic tokens, 120-line viewport', () => q('semanticTokensOfLines', svcLine - 60, svcLine + 60));
  await timed('services (list rows)', () => q('serviceItems'));
  await timed('snapshot: ClusterIP rows', () => client.request<SnapshotAnswer>({ type: 'snapshot', files: [{ kind: 'document', key: doc.key }], method: 'frontendItems', args: ['clusterIP'] }));
  await timed('snapshot: trace', () =>
    client.request<SnapshotAnswer>({ type: 'snapshot', files: [{ kind: 'document', key: doc.key }], method: 'trace', args: [{ to: '10.96.0.10', dport: 53, protocol: 'udp', entry: 'pod' }] }),
  );
  // An edit (one character typed at the end of a rule) and the re-parse.
  const at = starts[svcLine] + lines[svcLine].length;
  await timed('edit + re-parse', async () => {
    client.notify({ type: 'edit', key: doc.key, version: 2, changes: [{ offset: at, length: 0, text: ' ' }] });
    await client.request({ type: 'analyze', key: doc.key, version: 2 });
  });
  version = 2;
  await timed('hover after the re-parse', () => client.request({ type: 'query', key: doc.key, version: 2, method: 'hoverAt', args: [{ line: svcLine, character }] }));
  // Whole objects, which no provider of this extension asks for from the worker (the graph panel may), and the
  // whole document's semantic tokens (asked of small dumps only): their cost.
  await timed('services (whole objects)', () => q('services'));
  await timed('semantic tokens, whole document', () => q('semanticTokens'));
  await timed('snapshot: graph model', () => client.request<SnapshotAnswer>({ type: 'snapshot', files: [{ kind: 'document', key: doc.key }], method: 'graph', args: [] }));
  // The worker is unref'd: the timer keeps this process alive until the last answer.
  clearInterval(timer);
  client.dispose();
}

void main();
