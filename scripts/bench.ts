// `npm run bench`: how the core scales with dump size, on generated kube-proxy dumps (written to a temp
// folder, never into the repository). Prints a table and writes bench/results.md (the budgets: docs/performance.md#budgets).
//   node --expose-gc dist/bench.js [--sizes 1000,5000,10000] [--endpoints 10] [--quick] [--no-native]
//
// Columns: the floor is reading the file(s) and splitting them into lines. parse includes the symbol table
// (definitions and references are recorded while lines are read, so they cannot be timed apart); catalog is
// the Service catalog and the per-chain indexes. heap is what the analysis keeps (heap after a GC, minus
// the heap before reading). The native tools (iptables-legacy-restore and -save, nft -f and nft list ruleset) load
// and print the same file in a throw-away network namespace (root only; never the host's tables; --no-native or
// --no-legacy leaves them out). Activation is `require("dist/extension.js")` + `activate()` with a
// stub `vscode` module and a minimal fake context, not a real VS Code window.

import { execFileSync, spawnSync } from 'node:child_process';
import { WORKER_YOUNG_GENERATION_MB } from '../src/extension/analysis/protocol';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateIptablesDump, randomServices } from '../tools/generate/iptables';
import { generateIpvsSnapshot } from '../tools/generate/ipvs';
import { generateNftDump } from '../tools/generate/nft';
import { analyzeIptablesRuleset, definitionAt, hoverAt } from '../src/core/language/iptables';
import { nftFeatures, type NftAnalysis } from '../src/core/language/nft';
import { ipvsadmFeatures } from '../src/core/language/ipvsadm';
import { ipsetFeatures } from '../src/core/language/ipset';
import { parseIptables } from '../src/core/parse/iptables/parser';
import { releaseLastMatch } from '../src/core/parse/detach';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../src/core/snapshot';
import { featuresFor } from '../src/core/language';
import { traceSnapshot } from '../src/core/trace';
import { preparationSteps, runSnapshotQuery } from '../src/extension/analysis/queries';
import { plainData } from '../src/extension/analysis/plain';
import { randomCluster, THIS_NODE } from '../tools/generate/cluster';
import { clusterStateFiles } from '../tools/generate/cluster-objects';
import { scenario } from '../tools/generate/drift';
import type { Position } from '../src/core/model/range';

// The analysis worker's young generation bound (see WORKER_YOUNG_GENERATION_MB): times and peaks are measured as
// the extension's worker runs. Without it on the command line, the bench runs itself again with it.
const SEMI_SPACE_FLAG = `--max-semi-space-size=${WORKER_YOUNG_GENERATION_MB / 3}`;
if (!process.execArgv.includes(SEMI_SPACE_FLAG)) {
  const again = spawnSync(process.execPath, [...process.execArgv, SEMI_SPACE_FLAG, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
// `--peak DIALECT FILE…` (used by the bench itself): analyse the files in this fresh process and print the peak
// resident memory the analysis added, as JSON.
if (process.argv[2] === '--peak') {
  const dialect = process.argv[3];
  const files = process.argv.slice(4);
  const before = process.memoryUsage().rss;
  const read = files.map((f) => readFileSync(f, 'utf8'));
  const analysed: SnapshotFile[] =
    dialect === 'iptables'
      ? [{ name: files[0], languageId: 'iptables', features: featuresFor('iptables')!, analysis: analyzeIptablesRuleset(parseIptables(read[0])) }]
      : read.map((text, k) => analyzeFile(files[k], text, dialect === 'nftables' ? 'nftables' : ['ipvsadm', 'ipset', 'iptables'][k])!);
  withEveryEndpoint(buildSnapshot(analysed));
  process.stdout.write(JSON.stringify({ peakMb: (process.resourceUsage().maxRSS * 1024 - before) / 1e6 }));
  process.exit(0);
}

// `--fresh floor|analysis DIALECT FILE…` (used by the bench itself): in this fresh process, the floor (reading the
// files and splitting them into lines) or the analysis (reading them, then parse + symbols + catalog, of which only
// the second part is timed), as JSON. Issue #8 measured its floor this way: a new Node reading and splitting the
// file (0.16 s at 1,000 Services, 0.67 s at 5,000), which the warm floor of this long-running process undercuts.
if (process.argv[2] === '--fresh') {
  const [, , , what, dialect, ...files] = process.argv;
  const start = process.hrtime.bigint();
  const read = files.map((f) => readFileSync(f, 'utf8'));
  if (what === 'floor') {
    let lines = 0;
    for (const text of read) lines += text.split('\n').length;
    process.stdout.write(JSON.stringify({ ms: Number(process.hrtime.bigint() - start) / 1e6, lines }));
    process.exit(0);
  }
  const analysisStart = process.hrtime.bigint();
  const analysed: SnapshotFile[] =
    dialect === 'iptables'
      ? [{ name: files[0], languageId: 'iptables', features: featuresFor('iptables')!, analysis: analyzeIptablesRuleset(parseIptables(read[0])) }]
      : read.map((text, k) => analyzeFile(files[k], text, dialect === 'nftables' ? 'nftables' : ['ipvsadm', 'ipset', 'iptables'][k])!);
  // The iptables catalog is in the analysis; nft and IPVS: the node snapshot with every endpoint, as the warm total.
  if (dialect !== 'iptables') withEveryEndpoint(buildSnapshot(analysed));
  process.stdout.write(JSON.stringify({ ms: Number(process.hrtime.bigint() - analysisStart) / 1e6 }));
  process.exit(0);
}

/**
 * The worker's idle preparation, every step run as the worker runs it (a step that says it has more is run
 * again), timed by what it prepares: the snapshot and the symbol index (first), the first trace's steps, the graph
 * model (last). See preparationSteps.
 */
function timePreparation(steps: (() => unknown)[]): { prepareMs: number; prepareGraphMs: number; prepareSymbolsMs: number } {
  const times = steps.map((step) => {
    let ms = 0;
    for (let again = true; again;) {
      const t = time(() => step() === true);
      ms += t.ms;
      again = t.value;
    }
    return ms;
  });
  const sum = (from: number, to: number) => times.slice(from, to).reduce((a, b) => a + b, 0);
  return { prepareSymbolsMs: sum(0, 2), prepareMs: sum(2, times.length - 1), prepareGraphMs: times[times.length - 1] };
}

// `--trace-path DIALECT FILE…` (used by the bench itself): in this fresh process, what a user of the extension
// waits for: the analysis, the idle preparation the analysis worker runs next (its steps timed apart: the first
// trace, the graph model, the symbol index), then the first traces asked for, of other Services than the ones the
// preparation traced (a ClusterIP from a pod and from the node, a NodePort from outside), and the later ones; the
// graph and a Ctrl+T query for a Service's name, each as the worker answers (plain data, copied as a message).
if (process.argv[2] === '--trace-path') {
  const dialect = process.argv[3];
  const files = process.argv.slice(4);
  const read = files.map((f) => readFileSync(f, 'utf8'));
  const analysed: SnapshotFile[] =
    dialect === 'iptables'
      ? [{ name: files[0], languageId: 'iptables', features: featuresFor('iptables')!, analysis: analyzeIptablesRuleset(parseIptables(read[0])) }]
      : read.map((text, k) => analyzeFile(files[k], text, dialect === 'nftables' ? 'nftables' : ['ipvsadm', 'ipset', 'iptables'][k])!);
  const snapshot = withEveryEndpoint(buildSnapshot(analysed));
  const traceFiles = analysed as unknown as Parameters<typeof traceSnapshot>[0];
  const { prepareMs, prepareGraphMs, prepareSymbolsMs } = timePreparation(preparationSteps(analysed));
  // prepareTrace traces the first Service with a ClusterIP and endpoints: the user asks about ones further on.
  const protocolOf = (s: (typeof snapshot.services)[number]): 'tcp' | 'udp' | 'sctp' => (s.protocol === 'udp' || s.protocol === 'sctp' ? s.protocol : 'tcp');
  const withCluster = snapshot.services.filter((x) => x.endpoints.length > 0 && x.frontends.some((f) => f.kind === 'clusterIP' && f.address));
  const other = withCluster[withCluster.length >> 1];
  const cluster = other.frontends.find((f) => f.kind === 'clusterIP' && f.address)!;
  // externalTrafficPolicy Cluster: from outside, Local would drop on a node without a local endpoint.
  const withNodePort = snapshot.services.filter((x) => x.endpoints.length > 0 && x.policies.externalTrafficPolicy !== 'Local' && x.frontends.some((f) => f.kind === 'nodePort'));
  const nodePortService = withNodePort[withNodePort.length >> 1];
  // The node's address: an IPVS NodePort virtual service's, nft's nodeport-ips set, else one given as the node's.
  const nodeAddress =
    snapshot.services.flatMap((x) => x.frontends).find((f) => f.kind === 'nodePort' && f.address)?.address ??
    analysed.flatMap((f) => (f.analysis.dialect === 'nftables' ? (f.analysis as NftAnalysis).ruleset.tables : [])).flatMap((tb) => tb.setByName.get('nodeport-ips')?.elements ?? [])[0]?.key[0] ??
    '192.168.0.10';
  const requests: Parameters<typeof traceSnapshot>[1][] = [
    { to: cluster.address!, dport: cluster.port, protocol: protocolOf(other), entry: 'pod' },
    { to: cluster.address!, dport: cluster.port, protocol: protocolOf(other), entry: 'node' },
  ];
  if (nodePortService) {
    const port = nodePortService.frontends.find((f) => f.kind === 'nodePort')!.port;
    requests.push({ to: nodeAddress, dport: port, protocol: protocolOf(nodePortService), entry: 'external', nodeIPs: [nodeAddress] });
  }
  // Each kind's first trace, then the median of 5 more; the slowest kind is reported.
  const firsts = requests.map((request) => time(() => traceSnapshot(traceFiles, request)).ms);
  const laters = requests.map((request) => median(() => traceSnapshot(traceFiles, request), 5));
  const outcomes = requests.map((request) => traceSnapshot(traceFiles, request).outcomes.filter((o) => o.verdict === 'dnat').length);
  // The worker builds a snapshot per request and answers in a message (a structured clone of plain data).
  const answer = (method: 'graph' | 'symbols', ...args: unknown[]) => structuredClone(plainData(runSnapshotQuery(buildSnapshot(analysed), method, args as never)));
  const graphMs = time(() => answer('graph')).ms;
  const name = other.anonymous ? cluster.address! : `${other.namespace}/${other.name}`;
  const found = time(() => answer('symbols', name, 500));
  if ((found.value as unknown[]).length === 0) throw new Error(`Ctrl+T found no ${name}`);
  process.stdout.write(JSON.stringify({ prepareMs, prepareGraphMs, prepareSymbolsMs, firstMs: Math.max(...firsts), laterMs: Math.max(...laters), graphMs, symbolMs: found.ms, outcomes: Math.min(...outcomes) }));
  process.exit(0);
}

/**
 * The snapshot, with the endpoints of every Service read: the IPVS catalog makes a Service's endpoints when they are
 * first asked for, and the Services tree and the graph ask for all of them. Timed and measured with the catalog.
 */
function withEveryEndpoint(snapshot: ReturnType<typeof buildSnapshot>): ReturnType<typeof buildSnapshot> {
  for (const s of snapshot.services) void s.endpoints.length;
  return snapshot;
}

/** Fresh processes whose peaks peakMb takes the median of: when V8 collects garbage moves a peak by some 15 MB. */
const PEAK_RUNS = 5;

/** The peak resident memory an analysis of the files adds, in a fresh process (MB): the median of PEAK_RUNS. */
function peakMb(dialect: string, files: string[]): number {
  const peaks: number[] = [];
  for (let run = 0; run < PEAK_RUNS; run++) {
    try {
      const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1], '--peak', dialect, ...files], { encoding: 'utf8', maxBuffer: 1 << 20 });
      peaks.push((JSON.parse(out) as { peakMb: number }).peakMb);
    } catch (e) {
      process.stderr.write(`peak memory of ${dialect}: ${(e as Error).message.split('\n')[0]}\n`);
      return NaN;
    }
  }
  return middle(peaks);
}

/** Fresh processes (of each kind) whose medians freshTimes takes. */
const FRESH_RUNS = 5;

/**
 * The floor and parse + symbols + catalog each in fresh processes (see `--fresh`), alternated so that a slow
 * spell of the machine hits both: the medians of FRESH_RUNS.
 */
function freshTimes(dialect: string, files: string[]): { floorMs: number; totalMs: number } {
  const floors: number[] = [];
  const totals: number[] = [];
  const run = (what: string) => (JSON.parse(execFileSync(process.execPath, [...process.execArgv, process.argv[1], '--fresh', what, dialect, ...files], { encoding: 'utf8', maxBuffer: 1 << 20 })) as { ms: number }).ms;
  try {
    // One each for the smoke run (--quick): its figures are not reported.
    for (let k = 0; k < (quick ? 1 : FRESH_RUNS); k++) {
      floors.push(run('floor'));
      totals.push(run('analysis'));
    }
  } catch (e) {
    process.stderr.write(`fresh-process times of ${dialect}: ${(e as Error).message.split('\n')[0]}\n`);
    return { floorMs: NaN, totalMs: NaN };
  }
  return { floorMs: middle(floors), totalMs: middle(totals) };
}

/** Fresh processes whose medians tracePath takes. */
const TRACE_PATH_RUNS = 3;

/** The extension's trace path (see `--trace-path`) in fresh processes: each time the median of TRACE_PATH_RUNS. */
type PathTimes = { prepareMs: number; prepareGraphMs: number; prepareSymbolsMs: number; firstMs: number; laterMs: number; graphMs: number; symbolMs: number };
function tracePath(dialect: string, files: string[]): PathTimes {
  const runs: (PathTimes & { outcomes: number })[] = [];
  for (let run = 0; run < TRACE_PATH_RUNS; run++) {
    try {
      const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1], '--trace-path', dialect, ...files], { encoding: 'utf8', maxBuffer: 1 << 20 });
      runs.push(JSON.parse(out) as (typeof runs)[number]);
    } catch (e) {
      process.stderr.write(`trace path of ${dialect}: ${(e as Error).message.split('\n')[0]}\n`);
      return { prepareMs: NaN, prepareGraphMs: NaN, prepareSymbolsMs: NaN, firstMs: NaN, laterMs: NaN, graphMs: NaN, symbolMs: NaN };
    }
  }
  // A trace that reached no backend would be fast for the wrong reason.
  if (runs.some((r) => r.outcomes === 0)) throw new Error(`trace path of ${dialect}: a traced Service reached no endpoint`);
  const mid = (key: keyof PathTimes) => middle(runs.map((r) => r[key]));
  return {
    prepareMs: mid('prepareMs'),
    prepareGraphMs: mid('prepareGraphMs'),
    prepareSymbolsMs: mid('prepareSymbolsMs'),
    firstMs: mid('firstMs'),
    laterMs: mid('laterMs'),
    graphMs: mid('graphMs'),
    symbolMs: mid('symbolMs'),
  };
}

const quick = process.argv.includes('--quick');
const sizes = (arg('--sizes') ?? (quick ? '200,1000' : '1000,5000,10000')).split(',').map(Number);
const endpoints = Number(arg('--endpoints') ?? 10);
const exposedGc = (globalThis as { gc?: () => void }).gc;
// Without --expose-gc the heap readings would count garbage (even come out negative): refuse rather than print them.
if (!exposedGc) {
  process.stderr.write('bench: run with node --expose-gc (npm run bench does) so that heap readings are honest\n');
  process.exit(2);
}
const gc = exposedGc;

function time<T>(fn: () => T): { value: T; ms: number } {
  const start = process.hrtime.bigint();
  const value = fn();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/** The middle of `values` (the upper one of an even count). */
function middle(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1];
}

function median(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(time(fn).ms);
  return middle(times);
}

interface Row {
  dialect: string;
  services: number;
  mb: number;
  lines: number;
  floorMs: number;
  parseMs: number;
  catalogMs: number;
  totalMs: number;
  /** The floor and parse + symbols + catalog, each in fresh processes (see `--fresh`). */
  freshFloorMs: number;
  freshTotalMs: number;
  /** The native tool loading the file into the kernel: iptables-legacy-restore, nft -f. */
  loadMs: number;
  /** The native tool printing what was loaded: iptables-legacy-save, nft list ruleset. */
  printMs: number;
  heapMb: number;
  peakMb: number;
  /** The first trace right after parsing, in the same process (the CLI's case). */
  coldTraceMs: number;
  /** The extension's idle preparation after the analysis: the first trace (prepareTrace), the graph model, the symbol index. */
  prepareMs: number;
  prepareGraphMs: number;
  prepareSymbolsMs: number;
  /** After the preparation: the graph model and a Ctrl+T query for a Service's name, as the worker answers them. */
  graphMs: number;
  symbolMs: number;
  /** The first trace a user of the extension asks for, after that preparation (another Service). */
  firstTraceMs: number;
  traceMs: number;
  hoverMs: number;
  defMs: number;
}

/** The column of `needle` on the first line that contains all of `parts`. */
function find(text: string, parts: string[], needle: string, offset = 3): Position | undefined {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => parts.every((p) => l.includes(p)));
  if (line < 0) return undefined;
  const at = lines[line].lastIndexOf(needle);
  return at < 0 ? undefined : { line, character: at + offset };
}

const canNative = !process.argv.includes('--no-native') && !process.argv.includes('--no-legacy') && process.getuid?.() === 0 && existsSync('/usr/sbin/ip');
const canLegacy = canNative && existsSync('/usr/sbin/iptables-legacy-restore');
const canNft = canNative && existsSync('/usr/sbin/nft');

/** A native tool's times: loading the file into the kernel, printing what was loaded (NaN: not measured). */
interface NativeTimes {
  loadMs: number;
  printMs: number;
}

/** `work` in a fresh network namespace, deleted again whatever happens; NaN times when it fails. */
function inNamespace(tool: string, work: (ns: string) => NativeTimes): NativeTimes {
  const ns = `dpbench-${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', ns], { stdio: 'ignore' });
    return work(ns);
  } catch (e) {
    process.stderr.write(`${tool} failed: ${(e as Error).message.split('\n')[0]}\n`);
    return { loadMs: NaN, printMs: NaN };
  } finally {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}

/**
 * iptables-legacy-restore of `file` (median of 3), then iptables-legacy-save printing what was loaded (median of 3):
 * the issue's yardstick for the 4× floor target.
 */
function legacyRestore(file: string): NativeTimes {
  if (!canLegacy) return { loadMs: NaN, printMs: NaN };
  return inNamespace('iptables-legacy-restore or -save', (ns) => {
    const input = readFileSync(file);
    // kube-proxy creates its nfacct counters at startup; `-m nfacct` rules need them to exist.
    for (const name of new Set([...input.toString('utf8').matchAll(/--nfacct-name\s+(\S+)/g)].map((m) => m[1]))) {
      execFileSync('ip', ['netns', 'exec', ns, 'nfacct', 'add', name], { stdio: 'ignore' });
    }
    const loadMs = median(() => execFileSync('ip', ['netns', 'exec', ns, 'iptables-legacy-restore'], { input, stdio: ['pipe', 'ignore', 'pipe'] }), 3);
    return { loadMs, printMs: median(() => execFileSync('ip', ['netns', 'exec', ns, 'iptables-legacy-save'], { stdio: ['ignore', 'ignore', 'pipe'] }), 3) };
  });
}

/** A native run longer than this is not repeated for a median (nft takes minutes on the largest dump). */
const NATIVE_REPEAT_UNDER_MS = 10_000;

/**
 * `nft -f` of `file` (once: it loads a ruleset of 10,000 Services in minutes), then `nft list ruleset` printing it
 * (median of 3, or one run when the first took over NATIVE_REPEAT_UNDER_MS): what the budgets (docs/performance.md#budgets) use as yardsticks for
 * iptables are for nft. The printed ruleset should have as many lines as the file (the whole dump was loaded).
 */
function nftLoadAndList(file: string, lines: number): NativeTimes {
  if (!canNft) return { loadMs: NaN, printMs: NaN };
  return inNamespace('nft -f or nft list ruleset', (ns) => {
    // Bounded, as every loop of the tests: far above the 4 minutes the largest dump takes here.
    const timeout = 20 * 60_000;
    const loadMs = time(() => execFileSync('ip', ['netns', 'exec', ns, 'nft', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'], timeout })).ms;
    const prints: number[] = [];
    for (let k = 0; k < 3 && (k === 0 || prints[0] < NATIVE_REPEAT_UNDER_MS); k++) {
      const listed = time(() => execFileSync('ip', ['netns', 'exec', ns, 'nft', 'list', 'ruleset'], { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 2 ** 30, timeout }));
      const printed = listed.value.toString('utf8').split('\n').length;
      if (printed !== lines) process.stderr.write(`nft list ruleset printed ${printed} lines, the file has ${lines}\n`);
      prints.push(listed.ms);
    }
    // Emptied here rather than by the namespace's deletion, which the kernel finishes in the background (while the
    // next dialect is timed).
    execFileSync('ip', ['netns', 'exec', ns, 'nft', 'flush', 'ruleset'], { stdio: 'ignore', timeout });
    return { loadMs, printMs: middle(prints) };
  });
}

/**
 * Activation of dist/extension.js against a stub `vscode` (labelled as such), each run in a fresh Node process
 * (like an extension host that has not loaded the bundle yet; this bench's own process has loaded Chevrotain and
 * warmed everything, which would flatter the number). Two parts: `require` (reading, compiling and evaluating the
 * bundle's top level) and `activate()` up to its return. Medians of 7 runs.
 * Activation does not load the parsers (dist/core.js): the first dump analysed on the extension host does, just
 * after activation when a dump is open. That "first analysis" is measured apart, in the same process after
 * activate(): loading dist/core.js, then analysing the iptables sample (which also builds the parser it needs).
 */
type Activation = { require: number; activate: number; total: number; cpu: number; coreLoad: number; firstAnalysis: number; firstAnalysisCpu: number };
function activationMs(): Activation {
  const none = { require: NaN, activate: NaN, total: NaN, cpu: NaN, coreLoad: NaN, firstAnalysis: NaN, firstAnalysisCpu: NaN };
  const path = resolve('dist/extension.js');
  if (!existsSync(path)) return none;
  const probe = `
    const Module = require('node:module');
    const stub = new Proxy(function () {}, {
      get: (_t, p) => (p === 'then' ? undefined : p === Symbol.toPrimitive ? () => '' : stub),
      apply: () => stub,
      construct: () => stub,
      // esbuild's namespace import copies own properties; property reads then fall through to the prototype.
      getPrototypeOf: () => stub,
      set: () => true,
    });
    const load = Module._load;
    Module._load = function (request, ...rest) { return request === 'vscode' ? stub : load.call(this, request, ...rest); };
    const context = { subscriptions: [], extensionUri: stub, extensionPath: ${JSON.stringify(resolve('.'))}, globalState: stub, workspaceState: stub, storageUri: undefined, globalStorageUri: stub, logUri: stub, extensionMode: 1, asAbsolutePath: (p) => p };
    const cpu = (u) => (u.user + u.system) / 1000;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const ext = require(${JSON.stringify(path)});
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    ext.activate(context);
    const t2 = performance.now();
    const c2 = process.cpuUsage();
    const sample = require('node:fs').readFileSync(${JSON.stringify(resolve('samples/iptables-nft/node1.iptables'))}, 'utf8');
    const c3 = process.cpuUsage();
    const t3 = performance.now();
    const core = require(${JSON.stringify(resolve('dist/core.js'))});
    const t4 = performance.now();
    core.featuresFor('iptables').analyze(sample);
    const t5 = performance.now();
    const c5 = process.cpuUsage();
    process.stdout.write(JSON.stringify({ require: t1 - t0, activate: t2 - t1, total: t2 - t0, cpu: cpu(c2) - cpu(c0), coreLoad: t4 - t3, firstAnalysis: t5 - t3, firstAnalysisCpu: cpu(c5) - cpu(c3) }));`;
  const runs: Activation[] = [];
  try {
    for (let i = 0; i < 7; i++) runs.push(JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' })));
  } catch (e) {
    process.stderr.write(`activation with a stub vscode failed: ${(e as Error).message.split('\n')[0]}\n`);
    return none;
  }
  const mid = (k: keyof Activation) => middle(runs.map((r) => r[k]));
  return { require: mid('require'), activate: mid('activate'), total: mid('total'), cpu: mid('cpu'), coreLoad: mid('coreLoad'), firstAnalysis: mid('firstAnalysis'), firstAnalysisCpu: mid('firstAnalysisCpu') };
}

/**
 * `dataplane check` against `dataplane services` on the same dump, each a fresh `node dist/cli.js` (issue: check
 * answers in under 2× the time of services): the generator's cluster at the largest size, without drifts, its
 * node-1 dump and the kubectl JSON files of its API objects. Median of 3 alternated runs each.
 */
function checkRows(size: number): string[] {
  const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');
  const work = mkdtempSync(join(tmpdir(), 'dataplane-bench-check-'));
  const out: string[] = ['| mode | service ports × endpoints | services ms | check ms | check / services | findings (error, warning, info) |', '|---|---|---|---|---|---|'];
  try {
    for (const mode of ['iptables', 'nftables', 'ipvs'] as const) {
      const cluster = randomCluster({ services: size, endpoints, seed: 1, family: 'ipv4', nodeIP: '192.168.0.10', mode });
      const s = scenario(cluster, { node: THIS_NODE, family: 'ipv4', mode, seed: 1 });
      const texts: Record<string, string> =
        mode === 'iptables'
          ? { 'node.iptables': generateIptablesDump({ services: s.services, style: 'iptables-nft-save', nodeRules: true }) }
          : mode === 'nftables'
            ? { 'node.nft': generateNftDump({ services: s.services, style: 'nft-list-ruleset', nodeIPs: ['192.168.0.10'] }) }
            : (() => {
                const snap = generateIpvsSnapshot({ services: s.services, nodeIPs: ['192.168.0.10'] });
                return { 'node.ipvs': snap['ipvsadm-list'], 'node.ipset': snap['ipset-save'], 'node.iptables': snap['iptables-save'] };
              })();
      const dumps = Object.entries(texts).map(([name, text]) => (writeFileSync(join(work, name), text), join(work, name)));
      const clusterFiles = Object.entries(clusterStateFiles(s.cluster, 'json')).map(([name, text]) => (writeFileSync(join(work, name), text), join(work, name)));
      const cli = (args: string[]) => {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, ['--max-old-space-size=8192', resolve('dist/cli.js'), ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
        return { ms: performance.now() - t0, status: r.status, stdout: r.stdout };
      };
      const servicesMs: number[] = [];
      const checkMs: number[] = [];
      let summary = '';
      for (let i = 0; i < 3; i++) {
        servicesMs.push(cli(['services', ...dumps, '--json']).ms);
        const c = cli(['check', ...dumps, ...clusterFiles.flatMap((f) => ['--cluster', f]), '--json']);
        checkMs.push(c.ms);
        const f = c.status === 0 || c.status === 1 ? JSON.parse(c.stdout).summary.findings : undefined;
        summary = f ? `${f.error}, ${f.warning}, ${f.info}` : `exit ${c.status}`;
      }
      const [sv, ck] = [middle(servicesMs), middle(checkMs)];
      out.push(`| ${mode} | ${s.services.length} × ${endpoints} | ${fmt(sv)} | ${fmt(ck)} | ${fmt(ck / sv, 2)}× (target < 2×: ${ck < 2 * sv ? 'met' : 'not met'}) | ${summary} |`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return out;
}

if (process.argv.includes('--check-only')) {
  console.log(checkRows(Math.max(...sizes)).join('\n'));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'dataplane-bench-'));
const rows: Row[] = [];
try {
  for (const s of sizes) {
    const services = randomServices(s, endpoints, 1);
    const target = services.find((x) => x.endpoints.length > 0)!;
    for (const dialect of ['iptables', 'nftables', 'ipvs'] as const) rows.push(runCase(s, services, target, dialect));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

type Dialect = 'iptables' | 'nftables' | 'ipvs';
type Sample = { parseMs: number; catalogMs: number; totalMs: number };

/** One dialect at one size; everything it builds is garbage when it returns (so the next heap reading is fair). */
function runCase(s: number, services: ReturnType<typeof randomServices>, target: ReturnType<typeof randomServices>[number], dialect: Dialect): Row {
  const files = writeDialectFiles(s, services, dialect);
  const mb = files.reduce((n, f) => n + statSync(f).size, 0) / 1e6;
  // The floor: reading the files and splitting them into lines, what any reader must do (median of 3: one
  // reading alone varied by half between runs).
  const readAndSplit = () => files.reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').length, 0);
  const floor = { value: readAndSplit(), ms: median(readAndSplit, 3) };
  const { read, snapshotFiles, heapMb, parseMs, catalogMs, totalMs } = measureAnalysis(files, dialect);
  const traceFiles = snapshotFiles as unknown as Parameters<typeof traceSnapshot>[0];
  const traceRequest = { to: target.clusterIP, dport: target.port, protocol: target.protocol, entry: 'pod' as const };
  // Right after parsing, the first trace also builds the indexes later traces reuse (the CLI's case).
  const coldTraceMs = time(() => traceSnapshot(traceFiles, traceRequest)).ms;
  const { hoverMs, defMs } = pointTimes(dialect, read, snapshotFiles, target);
  const lines = floor.value;
  const path = tracePath(dialect, files);
  const fresh = freshTimes(dialect, files);
  const peak = peakMb(dialect, files);
  // Last: the kernel's work for the native tools (minutes of it for nft) must not slow what is timed above.
  const { loadMs, printMs } = quick ? { loadMs: NaN, printMs: NaN } : dialect === 'iptables' ? legacyRestore(files[0]) : dialect === 'nftables' ? nftLoadAndList(files[0], lines) : { loadMs: NaN, printMs: NaN };
  const tracing = {
    prepareMs: path.prepareMs,
    prepareGraphMs: path.prepareGraphMs,
    prepareSymbolsMs: path.prepareSymbolsMs,
    firstTraceMs: path.firstMs,
    traceMs: path.laterMs,
    graphMs: path.graphMs,
    symbolMs: path.symbolMs,
  };
  const row: Row = {
    dialect,
    services: s,
    mb,
    lines,
    floorMs: floor.ms,
    parseMs,
    catalogMs,
    totalMs,
    freshFloorMs: fresh.floorMs,
    freshTotalMs: fresh.totalMs,
    loadMs,
    printMs,
    heapMb,
    peakMb: peak,
    coldTraceMs,
    ...tracing,
    hoverMs,
    defMs,
  };
  for (const f of files) rmSync(f);
  process.stderr.write(
    `${dialect} S=${s}: total ${row.totalMs.toFixed(0)} ms (floor ${floor.ms.toFixed(0)}), heap ${heapMb.toFixed(0)} MB, prepare ${(row.prepareMs + row.prepareGraphMs + row.prepareSymbolsMs).toFixed(0)} ms, first trace ${row.firstTraceMs.toFixed(1)} ms, graph ${row.graphMs.toFixed(0)} ms, Ctrl+T ${row.symbolMs.toFixed(1)} ms\n`,
  );
  return row;
}

/** The files of the dialect (IPVS: ipvsadm + ipset + iptables together, as a node snapshot), written to `dir`. */
function writeDialectFiles(s: number, services: ReturnType<typeof randomServices>, dialect: Dialect): string[] {
  const texts: Record<string, string> =
    dialect === 'iptables'
      ? { 'node.iptables': generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true }) }
      : dialect === 'nftables'
        ? { 'node.nft': generateNftDump({ services, style: 'nft-list-ruleset' }) }
        : (() => {
            const snap = generateIpvsSnapshot({ services, nodeIPs: ['192.168.0.10'] });
            return { 'node.ipvs': snap['ipvsadm-list'], 'node.ipset': snap['ipset-save'], 'node.iptables': snap['iptables-save'] };
          })();
  const files = Object.keys(texts).map((name) => join(dir, `${s}-${dialect}-${name}`));
  Object.values(texts).forEach((text, k) => writeFileSync(files[k], text));
  return files;
}

/**
 * One run in a function of its own: its locals are gone when it returns (a local of the loop body would still hold
 * the previous run's model when the next heap reading is taken).
 */
function analyseOnce(files: string[], dialect: Dialect): { texts: string[]; analysed: SnapshotFile[]; sample: Sample } {
  const texts = files.map((f) => readFileSync(f, 'utf8'));
  let parseMs = 0;
  let catalogMs = 0;
  const total = time(() => {
    if (dialect === 'iptables') {
      const parsed = time(() => parseIptables(texts[0]));
      const analysed = time(() => analyzeIptablesRuleset(parsed.value));
      parseMs = parsed.ms;
      catalogMs = analysed.ms;
      return [{ name: files[0], languageId: 'iptables', features: featuresFor('iptables')!, analysis: analysed.value }];
    }
    // nft and IPVS: each file's analysis (parse, symbols and its own catalog), then the node snapshot.
    const parsed = time(() => texts.map((text, k) => analyzeFile(files[k], text, dialect === 'nftables' ? 'nftables' : ['ipvsadm', 'ipset', 'iptables'][k])!));
    parseMs = parsed.ms;
    return parsed.value;
  });
  const analysed: SnapshotFile[] = total.value;
  const snapshot = time(() => withEveryEndpoint(buildSnapshot(analysed)));
  if (dialect !== 'iptables') catalogMs = snapshot.ms;
  return { texts, analysed, sample: { parseMs, catalogMs, totalMs: total.ms + (dialect === 'iptables' ? 0 : snapshot.ms) } };
}

/**
 * Three runs (one with --quick); the times of the run with the median total are reported, the heap is what the last
 * run keeps (the earlier runs' models are garbage by then).
 */
function measureAnalysis(files: string[], dialect: Dialect): Sample & { read: string[]; snapshotFiles: SnapshotFile[]; heapMb: number } {
  const runs = quick ? 1 : 3;
  const samples: Sample[] = [];
  let result: ReturnType<typeof analyseOnce> | undefined;
  // The subject of the last regular-expression match is a slice of the previous text: it would keep that
  // text alive until the new parse runs a match, and the heap reading would miss that much.
  releaseLastMatch();
  gc();
  // Read once, before the first run: read before the last one, it counted whatever an earlier run left
  // reachable for a while (a stale reference in optimised code) and the last run then freed, and once
  // showed a third of the real figure. An earlier run still reachable at the end can only raise it.
  const before = process.memoryUsage().heapUsed;
  for (let run = 0; run < runs; run++) {
    result = undefined;
    releaseLastMatch();
    gc();
    result = analyseOnce(files, dialect);
    samples.push(result.sample);
  }
  gc();
  const heapMb = (process.memoryUsage().heapUsed - before) / 1e6;
  const chosen = [...samples].sort((a, b) => a.totalMs - b.totalMs)[samples.length >> 1];
  return { ...chosen, read: result!.texts, snapshotFiles: result!.analysed, heapMb };
}

/** Hover and go-to-definition at the target Service's hot spot of each dialect (median of 9). */
function pointTimes(dialect: Dialect, read: string[], snapshotFiles: SnapshotFile[], target: ReturnType<typeof randomServices>[number]): { hoverMs: number; defMs: number } {
  let hoverMs = NaN;
  let defMs = NaN;
  if (dialect === 'iptables') {
    const a = snapshotFiles[0].analysis as ReturnType<typeof analyzeIptablesRuleset>;
    const at = find(read[0], ['-A KUBE-SERVICES', `-d ${target.clusterIP}/32`], 'KUBE-SVC-');
    if (at) {
      hoverMs = median(() => hoverAt(a, at), 9);
      defMs = median(() => definitionAt(a, at), 9);
    }
  } else if (dialect === 'nftables') {
    // A vmap element's verdict `goto service-…` (public nft language features only).
    const a = snapshotFiles[0].analysis as Parameters<typeof nftFeatures.hoverAt>[0];
    const at = find(read[0], [`${target.clusterIP} . ${target.protocol} . ${target.port} :`], 'service-');
    if (at) {
      hoverMs = median(() => nftFeatures.hoverAt(a, at), 9);
      defMs = median(() => nftFeatures.definitionAt(a, at), 9);
    }
  } else {
    // The `--match-set` of an ipset in the iptables dump is not the hot path; hover a virtual service line.
    const a = snapshotFiles[0].analysis as Parameters<typeof ipvsadmFeatures.hoverAt>[0];
    const at = find(read[0], [`${target.protocol.toUpperCase()}  ${target.clusterIP}:${target.port}`], target.clusterIP, 1);
    const b = snapshotFiles[1].analysis as Parameters<typeof ipsetFeatures.hoverAt>[0];
    const setAt = find(read[1], ['create KUBE-CLUSTER-IP'], 'KUBE-CLUSTER-IP');
    if (at) hoverMs = median(() => ipvsadmFeatures.hoverAt(a, at), 9);
    if (setAt) defMs = median(() => ipsetFeatures.definitionAt(b, setAt), 9);
  }
  return { hoverMs, defMs };
}

const activation = activationMs();
const vsix = existsSync('dist') ? readdirSync('dist').find((f) => f.endsWith('.vsix')) : undefined;
const vsixKiB = vsix ? statSync(join('dist', vsix)).size / 1024 : NaN;
const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const table = [
  '| dialect | services × endpoints | MB | lines | read+split ms | parse+symbols ms | catalog ms | total ms | total / floor | fresh read+split ms | fresh total ms | fresh total / floor | native load ms | fresh total / load | native print ms | fresh total / print | heap MB | heap / file | peak MB | peak / file | cold trace ms | idle prepare ms | first trace ms | trace ms | prepare graph ms | graph ms | prepare Ctrl+T ms | Ctrl+T ms | hover ms | F12 ms |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.dialect} | ${r.services} × ${endpoints} | ${fmt(r.mb, 1)} | ${r.lines} | ${fmt(r.floorMs)} | ${fmt(r.parseMs)} | ${fmt(r.catalogMs)} | ${fmt(r.totalMs)} | ${fmt(r.totalMs / r.floorMs, 1)}× | ${fmt(r.freshFloorMs)} | ${fmt(r.freshTotalMs)} | ${fmt(r.freshTotalMs / r.freshFloorMs, 1)}× | ${fmt(r.loadMs)} | ${Number.isFinite(r.loadMs) ? `${fmt(r.freshTotalMs / r.loadMs, 2)}×` : '—'} | ${fmt(r.printMs)} | ${Number.isFinite(r.printMs) ? `${fmt(r.freshTotalMs / r.printMs, 2)}×` : '—'} | ${fmt(r.heapMb)} | ${fmt(r.heapMb / r.mb, 1)}× | ${fmt(r.peakMb)} | ${fmt(r.peakMb / r.mb, 1)}× | ${fmt(r.coldTraceMs, 1)} | ${fmt(r.prepareMs, 1)} | ${fmt(r.firstTraceMs, 1)} | ${fmt(r.traceMs, 1)} | ${fmt(r.prepareGraphMs)} | ${fmt(r.graphMs)} | ${fmt(r.prepareSymbolsMs)} | ${fmt(r.symbolMs, 1)} | ${fmt(r.hoverMs, 2)} | ${fmt(r.defMs, 2)} |`,
  ),
];
const extras = [
  `Extension activation (fresh Node process, stub vscode module, not a real window; median of 7): ${fmt(activation.total, 0)} ms = require dist/extension.js ${fmt(activation.require, 0)} ms + activate() ${fmt(activation.activate, 1)} ms (target ≤ 50 ms); CPU time ${fmt(activation.cpu, 0)} ms (less sensitive to other load on the machine). Activation does not load the parsers: the first dump analysed on the extension host (just after activation when one is open) loads dist/core.js; that first analysis of samples/iptables-nft/node1.iptables takes ${fmt(activation.firstAnalysis, 0)} ms (loading dist/core.js ${fmt(activation.coreLoad, 0)} ms), CPU time ${fmt(activation.firstAnalysisCpu, 0)} ms.`,
  vsix ? `VSIX: ${vsix}, ${fmt(vsixKiB)} KiB.` : 'VSIX: not built (npm run package).',
];
/**
 * Issue #8's targets, checked on the largest size of each dialect (linearity: from the smallest to the largest), so
 * that the table's verdict is printed rather than worked out by each reader.
 */
function targetLines(): string[] {
  const largest = new Map<string, Row>();
  const smallest = new Map<string, Row>();
  for (const r of rows) {
    if (!largest.has(r.dialect) || r.services > largest.get(r.dialect)!.services) largest.set(r.dialect, r);
    if (!smallest.has(r.dialect) || r.services < smallest.get(r.dialect)!.services) smallest.set(r.dialect, r);
  }
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'met' : 'not met');
  const each = (label: string, value: (r: Row) => string, ok: (r: Row) => boolean | undefined) => `| ${label} | ${[...largest.values()].map((r) => `${r.dialect} ${value(r)}: ${verdict(ok(r))}`).join('; ')} |`;
  const perLine = (r: Row) => r.totalMs / r.lines;
  const growth = (r: Row) => perLine(r) / perLine(smallest.get(r.dialect)!);
  const iptables = largest.get('iptables');
  const nft = largest.get('nftables');
  const fresh = (r: Row) => r.freshTotalMs / r.freshFloorMs;
  const notNft = [...largest.values()].filter((r) => r.dialect !== 'nftables');
  // Issue #8: "≤ 4× the read+split floor (about the time iptables-legacy-save needs to print it) … the same order
  // for nft": the same order of magnitude as 4× (under 10×), with nft's own printing of the ruleset as the yardstick.
  const nftOrder = (r: Row) => fresh(r) < 10 && (!Number.isFinite(r.printMs) || r.freshTotalMs < r.printMs);
  return [
    `| target (issue #8), largest size | result |`,
    '|---|---|',
    `| parse + symbols + catalog ≤ 4× read+split, each in a fresh process (as issue #8 measured its floor; it sets 4× for the iptables dump) | ${notNft.map((r) => `${r.dialect} ${fmt(fresh(r), 1)}×: ${verdict(Number.isFinite(fresh(r)) ? fresh(r) <= 4 : undefined)}`).join('; ')} |`,
    nft
      ? `| "the same order for nft": the same order of magnitude as 4× (under 10× read+split, fresh), and faster than \`nft list ruleset\` prints the same ruleset (issue #8's yardstick for 4×: the time the native tool needs to print the dump) | nftables ${fmt(fresh(nft), 1)}×, ${Number.isFinite(nft.printMs) ? `${fmt(nft.freshTotalMs / nft.printMs, 2)}× of nft list ruleset` : 'nft list ruleset not measured (needs root and nft)'}: ${verdict(Number.isFinite(fresh(nft)) ? nftOrder(nft) : undefined)}; strictly ≤ 4×: ${verdict(Number.isFinite(fresh(nft)) ? fresh(nft) <= 4 : undefined)} |`
      : '| "the same order for nft" | not measured |',
    each(
      "for reference, not issue #8's measure: ≤ 4× read+split, both warm in this process (a lower floor than the issue's)",
      (r) => `${fmt(r.totalMs / r.floorMs, 1)}×`,
      (r) => r.totalMs <= 4 * r.floorMs,
    ),
    `| faster than the native tool loading the same file (issue #8: iptables-legacy-restore) | ${[iptables, nft]
      .filter((r): r is Row => r !== undefined)
      .map((r) =>
        Number.isFinite(r.loadMs)
          ? `${r.dialect} ${fmt(r.freshTotalMs / r.loadMs, 2)}× of ${r.dialect === 'iptables' ? 'iptables-legacy-restore' : 'nft -f'}: ${verdict(r.freshTotalMs < r.loadMs)}`
          : `${r.dialect}: not measured (needs root and ${r.dialect === 'iptables' ? 'iptables-legacy-restore' : 'nft'})`,
      )
      .join('; ')} |`,
    each(
      'cost linear in size (time per line at the largest size ≤ 1.5× that at the smallest)',
      (r) => `${fmt(growth(r), 2)}×`,
      (r) => (rows.length > largest.size ? growth(r) <= 1.5 : undefined),
    ),
    each(
      'peak memory ≤ 8× the file',
      (r) => `${fmt(r.peakMb / r.mb, 1)}×`,
      (r) => (Number.isFinite(r.peakMb) ? r.peakMb <= 8 * r.mb : undefined),
    ),
    each(
      'trace ≤ 20 ms: the first one a user of the extension asks for (after the idle preparation)',
      (r) => `${fmt(r.firstTraceMs, 1)} ms`,
      (r) => r.firstTraceMs <= 20,
    ),
    each(
      'trace ≤ 20 ms: later ones',
      (r) => `${fmt(r.traceMs, 1)} ms`,
      (r) => r.traceMs <= 20,
    ),
    each(
      'after the parse, the whole preparation (first trace, graph model, symbol index) ≤ 2 s',
      (r) => `${fmt(r.prepareMs + r.prepareGraphMs + r.prepareSymbolsMs)} ms`,
      (r) => r.prepareMs + r.prepareGraphMs + r.prepareSymbolsMs <= 2000,
    ),
    each(
      'after the preparation, the graph (its model as the worker sends it) < 2 s',
      (r) => `${fmt(r.graphMs)} ms`,
      (r) => r.graphMs < 2000,
    ),
    each(
      'after the preparation, Ctrl+T for a Service name < 1 s',
      (r) => `${fmt(r.symbolMs, 1)} ms`,
      (r) => r.symbolMs < 1000,
    ),
    each(
      'hover and F12 ≤ 10 ms',
      (r) => `${fmt(Math.max(r.hoverMs, r.defMs), 2)} ms`,
      (r) => Math.max(r.hoverMs, r.defMs) <= 10,
    ),
    `| activation ≤ 50 ms | ${fmt(activation.total, 0)} ms: ${verdict(activation.total <= 50)} |`,
  ];
}
const targets = targetLines();
const checkTable = checkRows(Math.max(...sizes));

/** How much cheaper the warm floor was than the fresh one, over the rows (e.g. "1.4–3.5×"). */
function floorGain(): string {
  const gains = rows.map((r) => r.freshFloorMs / r.floorMs).filter(Number.isFinite);
  return gains.length === 0 ? 'not measured as' : `${fmt(Math.min(...gains), 1)}–${fmt(Math.max(...gains), 1)}×`;
}
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const report = [
  '# Benchmark results',
  '',
  `Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}.`,
  `Generated kube-proxy dumps (seed 1), \`node dist/bench.js${process.argv.slice(2).length ? ' ' + process.argv.slice(2).join(' ') : ''}\`.`,
  ...extras,
  '',
  ...table,
  '',
  ...targets,
  '',
  `\`dataplane check\` against \`dataplane services\` on the same node-1 dump (the generator's cluster, seed 1, no drift; check also reads the kubectl JSON of its Services, EndpointSlices, Nodes and kube-proxy ConfigMap), each a fresh \`node dist/cli.js … --json\`, median of 3:`,
  '',
  ...checkTable,
  '',
  'read+split: reading the file(s) and splitting them into lines (median of 3). Times: the run with the median total of 3. parse+symbols: parsing with the symbol table (built while lines are read).',
  `fresh: the same floor and total, each in a new Node process (the read before the total is not timed), alternated, medians of ${FRESH_RUNS} each: how issue #8 measured its floor (a new Node reading and splitting the file: 0.16 s at 1,000 Services, 0.67 s at 5,000). In this long-running process, with its heap grown, reading and splitting was ${floorGain()} cheaper than in a fresh one.`,
  'catalog: iptables — the Service catalog and per-chain indexes; nftables / ipvs — the node snapshot with the endpoints of every Service read (the per-file catalogs are in parse).',
  'ipvs rows are the ipvsadm -Ln + ipset save + iptables-save files of one node together. heap: kept after a GC, against the heap before the first of the 3 runs (so code compiled by the first run counts too: a few MB, visible at S=1000).',
  `peak: the most resident memory (RSS) the same analysis added in a fresh process (text, garbage not yet collected and all; median of ${PEAK_RUNS} processes).`,
  `Every run bounds V8's young generation as the extension's analysis worker does (${WORKER_YOUNG_GENERATION_MB} MB, \`${SEMI_SPACE_FLAG}\`).`,
  `native load: the same file loaded into a throw-away network namespace (root only), by iptables-legacy-restore (median of 3) or by nft -f (once: minutes at the largest size); native print: printing it from there, by iptables-legacy-save, the time issue #8 likens to 4× the floor, or by nft list ruleset (median of 3, one run when the first took over ${NATIVE_REPEAT_UNDER_MS / 1000} s). Ratios: the fresh total.`,
  'trace: one new connection to a ClusterIP from a pod. cold trace: the first one right after parsing, in the same process, indexes and code cold (what `dataplane trace` adds to its parse; no target). In fresh processes',
  `(median of ${TRACE_PATH_RUNS}), as the extension's analysis worker does it: idle prepare is prepareTrace, which the worker runs once nothing is queued after an analysis (it traces the first Service with a ClusterIP);`,
  'first trace: then traces of other Services (halfway down the catalog) — a ClusterIP from a pod and from the node, a NodePort from outside —, what a user waits for, the slowest of the three; trace: the slowest median of the next 5 of each.',
  "prepare graph / prepare Ctrl+T: the worker's next idle steps, the graph model (the list of every Service, the graphs of the first ones) and the symbol index; graph / Ctrl+T: then the graph model and a query for that Service's name, as the worker answers them (a new snapshot, plain data, a structured clone). Without the preparation the first graph and Ctrl+T take their prepare time more. hover / F12: iptables — a KUBE-SVC jump target in",
  'KUBE-SERVICES; nftables — a `goto service-…` verdict in the service-ips map; ipvs — hover on a virtual service, F12 on an ipset name (median of 9).',
  '',
].join('\n');
console.log(table.join('\n'));
console.log(targets.join('\n'));
console.log(checkTable.join('\n'));
console.log(extras.join('\n'));
if (!quick) writeFileSync(join('bench', 'results.md'), report);
