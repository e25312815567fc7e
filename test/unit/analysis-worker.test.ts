// The analysis worker (issue #8 part 4) with a real worker_threads Worker built from src/extension/worker.ts:
// text sent in parts and then edit by edit gives the same answers as a full parse of the final text on this
// thread; stale versions are refused; snapshots asked in the worker equal snapshots asked here; a crashed worker
// is restarted; core messages are translated with the bundle the extension passes in.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import * as esbuild from 'esbuild';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featuresFor } from '../../src/core/language';
import { formatMessage, setTranslator } from '../../src/core/l10n';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateNftDump } from '../../tools/generate/nft';
import { serviceTitle } from '../../src/core/graph/model';
import { SAMPLE_SERVICES } from '../../tools/generate/samples';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { AnalysisClient, RequestError } from '../../src/extension/analysis/client';
import { AnalysisHost, type Prepare } from '../../src/extension/analysis/host';
import { workerOptions, WORKER_YOUNG_GENERATION_MB, type AnalyzeResult, type FromWorker, type SnapshotAnswer, type SnapshotFileSpec, type TextChange, type WorkerData } from '../../src/extension/analysis/protocol';
import { preparationSteps, runDocumentQuery, runSnapshotQuery, serviceLenses, type DocumentMethod } from '../../src/extension/analysis/queries';
import { plainData } from '../../src/extension/analysis/plain';
import { snapshotInWorker } from '../../src/extension/analysis/route';
import { prepareTrace, traceSnapshot, traceToJson } from '../../src/core/trace';
import { explainNode } from '../../src/core/explain/node';
import { perfIt } from '../helpers/linear';

let dir: string;
let workerFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dataplane-worker-test-'));
  workerFile = join(dir, 'worker.js');
  await esbuild.build({ bundle: true, platform: 'node', format: 'cjs', target: 'node20', entryPoints: ['src/extension/worker.ts'], outfile: workerFile, logLevel: 'warning', loader: { '.sh': 'text' } });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clients: AnalysisClient[] = [];
afterAll(() => clients.forEach((c) => c.dispose()));
function newClient(data?: WorkerData): AnalysisClient {
  const client = new AnalysisClient(() => new Worker(workerFile, { workerData: data ?? {} }));
  clients.push(client);
  return client;
}

/** Lines [start, end) of a text with their line breaks, the way the extension reads a document. */
function partsOf(text: string): { lineCount: number; part: (start: number, end: number) => string } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return { lineCount: starts.length, part: (a, b) => text.slice(starts[a], b < starts.length ? starts[b] : text.length) };
}

async function open(client: AnalysisClient, key: string, version: number, text: string, languageId = 'iptables', linesPerPart = 37): Promise<void> {
  const { lineCount, part } = partsOf(text);
  expect(await client.sendText({ key, version, languageId, name: `/x/${key}`, lineCount }, part, () => true, linesPerPart)).toBe(true);
}

const dump = generateIptablesDump({ services: randomServices(40, 3, 7), style: 'iptables-nft-save', family: 'ipv4', comments: true, nodeRules: true });

/** Everything the providers ask, at a few positions: compared between the worker and this thread. */
async function everything(ask: (method: DocumentMethod, ...args: unknown[]) => Promise<unknown>, text: string): Promise<unknown[]> {
  const lines = text.split('\n');
  const positions = [0, 5, Math.floor(lines.length / 2), lines.length - 3].flatMap((line) => [0, 4, 12, 40].map((character) => ({ line, character })));
  const svc = lines.findIndex((l) => l.startsWith('-A KUBE-SERVICES') && l.includes('-j KUBE-SVC-'));
  if (svc >= 0) positions.push({ line: svc, character: lines[svc].lastIndexOf('KUBE-SVC-') + 3 });
  // Every name on a few more lines (chains, sets, maps, virtual services, their references).
  for (let line = 1; line < lines.length; line += Math.max(1, Math.floor(lines.length / 12))) {
    for (const m of lines[line].matchAll(/[A-Za-z][\w.:/-]{3,}/g)) positions.push({ line, character: m.index! + 1 });
  }
  const out: unknown[] = [];
  for (const m of ['outline', 'foldingRanges', 'statusSummary', 'services', 'serviceItems', 'semanticTokens', 'diagnostics'] as const) out.push(await ask(m));
  out.push(await ask('serviceLenses', 5000), await ask('serviceLenses', 3));
  out.push(await ask('outline', 25), await ask('foldingRanges', 7));
  for (const p of positions) out.push(await ask('hoverAt', p), await ask('definitionAt', p), await ask('referencesAt', p, true));
  return out;
}

function localAsk(text: string, languageId = 'iptables') {
  const features = featuresFor(languageId)!;
  const analysis = features.analyze(text);
  return (method: DocumentMethod, ...args: unknown[]) => Promise.resolve(plainData(runDocumentQuery(features, analysis, method, args as never)));
}

/** A worker host whose tasks wait in `tasks` (runOne runs the next): the order of answers and steps, step by step. */
function hostInTasks(prepare: Prepare) {
  const posted: FromWorker[] = [];
  const tasks: (() => void)[] = [];
  const host = new AnalysisHost(
    (m) => posted.push(m),
    (fn) => tasks.push(fn),
    prepare,
  );
  return { host, posted, tasks, answers: () => posted.filter((m) => m.id !== undefined).length, runOne: () => tasks.shift()!() };
}

describe('analysis worker: documents', () => {
  it('a text sent in parts gives the same answers as a parse on this thread', async () => {
    const client = newClient();
    await open(client, 'a', 1, dump);
    const result = await client.request<AnalyzeResult>({ type: 'analyze', key: 'a', version: 1 });
    expect(result.size).toBe(dump.length);
    expect(result.summary.services).toBeGreaterThan(30);
    const remote = (method: DocumentMethod, ...args: unknown[]) => client.request({ type: 'query', key: 'a', version: 1, method, args });
    const [w, l] = [await everything(remote, dump), await everything(localAsk(dump), dump)];
    expect(w).toEqual(l);
    // The hover over the Service's jump target is among them and says something.
    expect(JSON.stringify(w)).toContain('KUBE-SVC-');
  });

  it('nft, ipvsadm and ipset documents: the same answers as on this thread, ranges made on demand included', async () => {
    const services = randomServices(20, 3, 11);
    const ipvs = generateIpvsSnapshot({ services, nodeIPs: ['192.168.0.10'] });
    const texts: [string, string][] = [
      ['nftables', generateNftDump({ services, style: 'nft-list-ruleset' })],
      ['ipvsadm', ipvs['ipvsadm-list']],
      ['ipset', ipvs['ipset-save']],
    ];
    const client = newClient();
    for (const [languageId, text] of texts) {
      await open(client, languageId, 1, text, languageId);
      await client.request<AnalyzeResult>({ type: 'analyze', key: languageId, version: 1 });
      const remote = (method: DocumentMethod, ...args: unknown[]) => client.request({ type: 'query', key: languageId, version: 1, method, args });
      const [w, l] = [await everything(remote, text), await everything(localAsk(text, languageId), text)];
      expect(w).toEqual(l);
      // Definitions were asked for and found.
      if (languageId !== 'ipvsadm') expect(JSON.stringify(w), languageId).toContain('"fullRange"');
    }
  });

  it('edits applied in the worker equal a full parse of the edited text (random edits)', async () => {
    const client = newClient();
    let version = 1;
    await open(client, 'e', version, dump);
    // Edits as VS Code reports them for one version: ranges in the text before the event, sorted from the end.
    const edit = fc.record({ at: fc.nat(), length: fc.nat({ max: 30 }), text: fc.constantFrom('', ' ', '\n', '-j ACCEPT', '\n-A KUBE-SERVICES -j DROP\n', 'x', ':NEW-CHAIN - [0:0]\n', '# c\n') });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(edit, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }), async (events) => {
        let text = dump;
        version++;
        await open(client, 'e', version, dump, 'iptables', 500);
        for (const event of events) {
          version++;
          const changes: TextChange[] = [];
          let limit = text.length;
          for (const e of event) {
            const offset = Math.min(e.at % (text.length + 1), limit);
            const length = Math.min(e.length, limit - offset);
            changes.push({ offset, length, text: e.text });
            limit = offset;
          }
          // Reference: the same edits on an array of characters (independent of the worker's string surgery).
          const chars = [...text];
          for (const c of changes) chars.splice(c.offset, c.length, ...c.text);
          text = chars.join('');
          client.notify({ type: 'edit', key: 'e', version, changes });
        }
        await client.request({ type: 'analyze', key: 'e', version });
        const remote = (method: DocumentMethod, ...args: unknown[]) => client.request({ type: 'query', key: 'e', version, method, args });
        expect(await everything(remote, text)).toEqual(await everything(localAsk(text), text));
      }),
      { numRuns: 8 },
    );
  });

  it('refuses questions about an older version and asks for a text it does not have', async () => {
    const client = newClient();
    await open(client, 's', 3, dump);
    await client.request({ type: 'analyze', key: 's', version: 3 });
    client.notify({ type: 'edit', key: 's', version: 4, changes: [{ offset: 0, length: 0, text: '# edited\n' }] });
    const kind = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: RequestError) => e.kind,
      );
    expect(await kind(client.request({ type: 'query', key: 's', version: 3, method: 'outline', args: [] }))).toBe('stale');
    expect(await kind(client.request({ type: 'query', key: 's', version: 5, method: 'outline', args: [] }))).toBe('needs-text');
    expect(await kind(client.request({ type: 'query', key: 'nobody', version: 1, method: 'outline', args: [] }))).toBe('needs-text');
    // An edit outside the text (a lost event) is caught: the worker asks for the whole text again.
    client.notify({ type: 'edit', key: 's', version: 5, changes: [{ offset: dump.length + 100, length: 1, text: '' }] });
    expect(await kind(client.request({ type: 'analyze', key: 's', version: 5 }))).toBe('needs-text');
    // Only the named questions are answered (no prototype lookups).
    await open(client, 's', 6, dump);
    expect(await kind(client.request({ type: 'query', key: 's', version: 6, method: 'toString' as DocumentMethod, args: [] }))).toBe('error');
    expect(await kind(client.request({ type: 'query', key: 's', version: 6, method: 'outline', args: [] }))).toBe('ok');
  });

  it('an analysis overtaken by a queued edit is not started', () => {
    const posted: FromWorker[] = [];
    const tasks: (() => void)[] = [];
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => tasks.push(fn),
    );
    host.receive({ type: 'text', key: 'k', version: 1, languageId: 'iptables', name: 'k', part: dump, reset: true, done: true });
    host.receive({ type: 'analyze', key: 'k', version: 1, id: 1 });
    host.receive({ type: 'edit', key: 'k', version: 2, changes: [{ offset: 0, length: 0, text: '# x\n' }] });
    host.receive({ type: 'analyze', key: 'k', version: 2, id: 2 });
    while (tasks.length) tasks.shift()!();
    expect(posted.filter((m) => m.id !== undefined).map((m) => [m.id, 'ok' in m && m.ok ? 'ok' : 'kind' in m ? m.kind : ''])).toEqual([
      [1, 'stale'],
      [2, 'ok'],
    ]);
    // Only version 2 was parsed.
    expect(posted.filter((m) => m.id === undefined && m.type === 'parsing').map((m) => 'version' in m && m.version)).toEqual([2]);
  });

  it('runs the worker with its young generation bounded, as the bench measures it', () => {
    expect(workerOptions({}).resourceLimits.maxYoungGenerationSizeMb).toBe(WORKER_YOUNG_GENERATION_MB);
  });

  perfIt('a worker so bounded keeps its new space within the bound (2 million objects kept)', async () => {
    const options = workerOptions({});
    // V8 in such a worker keeps its new space within the bound (about a third of it each way).
    const probe = new Worker(
      "const v8 = require('node:v8'); const { parentPort } = require('node:worker_threads'); const keep = []; for (let i = 0; i < 2e6; i++) keep.push({ i }); parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);",
      { ...options, eval: true },
    );
    const newSpace = await new Promise<number>((resolve, reject) => probe.once('message', resolve).once('error', reject));
    await probe.terminate();
    expect(newSpace).toBeGreaterThan(0);
    expect(newSpace).toBeLessThanOrEqual((WORKER_YOUNG_GENERATION_MB / 3) * 2 * 2 ** 20);
  });

  it('tells how far a parse has come, between its parsing notice and its answer, ending with every line read', () => {
    const posted: FromWorker[] = [];
    const tasks: (() => void)[] = [];
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => tasks.push(fn),
    );
    const large = generateIptablesDump({ services: randomServices(1500, 4, 3), style: 'iptables-nft-save', comments: true, nodeRules: true });
    host.receive({ type: 'text', key: 'big', version: 3, languageId: 'iptables', name: 'big', part: large, reset: true, done: true });
    host.receive({ type: 'analyze', key: 'big', version: 3, id: 1 });
    while (tasks.length) tasks.shift()!();
    // A slow parse is also reported as such (after it): not part of the answer's sequence.
    const kinds = posted.flatMap((m) => (m.id !== undefined ? ['answer'] : m.type === 'slow' ? [] : [m.type]));
    expect(kinds[0]).toBe('parsing');
    expect(kinds[kinds.length - 1]).toBe('answer');
    const shares = posted.flatMap((m) => (m.id === undefined && m.type === 'progress' && m.key === 'big' && m.version === 3 ? [m.share] : []));
    expect(shares.length).toBe(kinds.length - 2);
    expect(shares[shares.length - 1]).toBe(1);
    for (let k = 1; k < shares.length; k++) expect(shares[k]).toBeGreaterThan(shares[k - 1]);
    // Asked again (analysed already): no second parse, no progress.
    posted.length = 0;
    host.receive({ type: 'analyze', key: 'big', version: 3, id: 2 });
    while (tasks.length) tasks.shift()!();
    expect(posted.map((m) => m.id)).toEqual([2]);
  });

  it('prepares the first trace of an analysed version once nothing is queued, and not of a version edited meanwhile', () => {
    const posted: FromWorker[] = [];
    const tasks: (() => void)[] = [];
    const prepared: string[] = [];
    const answers = () => posted.filter((m) => m.id !== undefined).length;
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => tasks.push(fn),
      (files, scope) => [() => prepared.push(`${scope} ${files.map((f) => `${f.name} ${f.analysis.dialect}`).join(', ')} after ${answers()} answers`)],
    );
    host.receive({ type: 'text', key: 'k', version: 1, languageId: 'iptables', name: 'k', part: dump, reset: true, done: true });
    host.receive({ type: 'analyze', key: 'k', version: 1, id: 1 });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'outline', args: [], id: 2 });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'foldingRanges', args: [], id: 3 });
    while (tasks.length) tasks.shift()!();
    // Prepared after the queued questions were answered, not before them.
    expect(prepared).toEqual(['document k iptables after 3 answers']);
    expect(posted.filter((m) => m.id !== undefined).map((m) => m.id)).toEqual([1, 2, 3]);
    // Analysed again (same version): nothing more to prepare. An edit before the idle time: nothing prepared.
    host.receive({ type: 'analyze', key: 'k', version: 1, id: 4 });
    host.receive({ type: 'edit', key: 'k', version: 2, changes: [{ offset: 0, length: 0, text: '# x\n' }] });
    while (tasks.length) tasks.shift()!();
    host.receive({ type: 'analyze', key: 'k', version: 2, id: 5 });
    host.receive({ type: 'close', key: 'k' });
    while (tasks.length) tasks.shift()!();
    expect(prepared).toEqual(['document k iptables after 3 answers']);
  });

  it('prepares a node snapshot once per list of analyses, after the queued questions, in every mode', () => {
    const ipvs = generateIpvsSnapshot({ services: randomServices(30, 3, 5), nodeIPs: ['192.168.0.10'] });
    const posted: FromWorker[] = [];
    const tasks: (() => void)[] = [];
    const prepared: string[] = [];
    const answers = () => posted.filter((m) => m.id !== undefined).length;
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => tasks.push(fn),
      (files, scope) => (scope === 'snapshot' ? [() => prepared.push(`${files.map((f) => f.analysis.dialect).join(', ')} after ${answers()} answers`)] : []),
    );
    const specs = (setVersion: number): SnapshotFileSpec[] => [
      { kind: 'text', key: 'vs', version: 1, name: 'node1.ipvsadm', languageId: 'ipvsadm', text: ipvs['ipvsadm-list'] },
      { kind: 'text', key: 'set', version: setVersion, name: 'node1.ipset', languageId: 'ipset', text: ipvs['ipset-save'] },
      { kind: 'text', key: 'ipt', version: 1, name: 'node1.iptables', languageId: 'iptables', text: ipvs['iptables-save'] },
    ];
    host.receive({ type: 'snapshot', files: specs(1), method: 'diagnostics', args: [0], id: 1 });
    host.receive({ type: 'snapshot', files: specs(1), method: 'serviceCount', args: [], id: 2 });
    while (tasks.length) tasks.shift()!();
    expect(prepared).toEqual(['ipvsadm, ipset, iptables after 2 answers']);
    // The same analyses again: nothing more. A new version of one file: prepared again.
    host.receive({ type: 'snapshot', files: specs(1), method: 'serviceCount', args: [], id: 3 });
    while (tasks.length) tasks.shift()!();
    expect(prepared).toHaveLength(1);
    host.receive({ type: 'snapshot', files: specs(2), method: 'serviceCount', args: [], id: 4 });
    while (tasks.length) tasks.shift()!();
    expect(prepared).toEqual(['ipvsadm, ipset, iptables after 2 answers', 'ipvsadm, ipset, iptables after 4 answers']);
    // An iptables-mode dump alone is a snapshot too: its graph and symbols are prepared as well.
    host.receive({ type: 'snapshot', files: [{ kind: 'text', key: 'k', version: 1, name: 'k', languageId: 'iptables', text: dump }], method: 'serviceCount', args: [], id: 5 });
    while (tasks.length) tasks.shift()!();
    expect(prepared).toEqual(['ipvsadm, ipset, iptables after 2 answers', 'ipvsadm, ipset, iptables after 4 answers', 'iptables after 5 answers']);
    expect(posted.filter((m) => m.id !== undefined).every((m) => 'ok' in m && m.ok)).toBe(true);
  });

  it('runs the preparation one step per idle task: questions go between the steps, an edit drops the steps left', () => {
    const posted: FromWorker[] = [];
    const tasks: (() => void)[] = [];
    const log: string[] = [];
    const answers = () => posted.filter((m) => m.id !== undefined).length;
    const steps = (scope: string) => ['trace', 'graph', 'symbols'].map((name) => () => void log.push(`${scope} ${name} after ${answers()}`));
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => tasks.push(fn),
      (_files, scope) => (scope === 'snapshot' ? steps(scope) : []),
    );
    const runOne = () => tasks.shift()!();
    host.receive({ type: 'text', key: 'k', version: 1, languageId: 'iptables', name: 'k', part: dump, reset: true, done: true });
    host.receive({ type: 'analyze', key: 'k', version: 1, id: 1 });
    host.receive({ type: 'snapshot', files: [{ kind: 'document', key: 'k' }], method: 'diagnostics', args: [0], id: 2 });
    while (tasks.length && log.length < 1) runOne();
    expect(log).toEqual(['snapshot trace after 2']);
    // A hover asked now is answered before the next step.
    host.receive({ type: 'query', key: 'k', version: 1, method: 'hoverAt', args: [{ line: 3, character: 2 }], id: 3 });
    while (tasks.length && log.length < 2) runOne();
    expect(log).toEqual(['snapshot trace after 2', 'snapshot graph after 3']);
    // An edit: the step left (the symbol index of the old version) is dropped.
    host.receive({ type: 'edit', key: 'k', version: 2, changes: [{ offset: 0, length: 0, text: '# x\n' }] });
    while (tasks.length) runOne();
    expect(log).toHaveLength(2);
    // The new version's snapshot is prepared in full.
    host.receive({ type: 'analyze', key: 'k', version: 2, id: 4 });
    host.receive({ type: 'snapshot', files: [{ kind: 'document', key: 'k' }], method: 'diagnostics', args: [0], id: 5 });
    while (tasks.length) runOne();
    expect(log.slice(2)).toEqual(['snapshot trace after 5', 'snapshot graph after 5', 'snapshot symbols after 5']);
    // A file on disk or a small document that changed: the old list's preparation is dropped too.
    host.receive({ type: 'snapshot', files: [{ kind: 'text', key: 't', version: 1, name: 't', languageId: 'iptables', text: dump }], method: 'serviceCount', args: [], id: 6 });
    host.receive({ type: 'snapshot', files: [{ kind: 'text', key: 't', version: 2, name: 't', languageId: 'iptables', text: dump }], method: 'serviceCount', args: [], id: 7 });
    while (tasks.length) runOne();
    expect(log.slice(5)).toEqual(['snapshot trace after 7', 'snapshot graph after 7', 'snapshot symbols after 7']);
  });

  it('builds the symbol index in parts, one per idle task: Ctrl+T asked meanwhile is answered before the next part, in full', () => {
    const parts: number[] = [];
    // Parts of 0 ms: the index pauses after each Service and each chain (the worker's are about 50 ms).
    const { host, posted, tasks, answers, runOne } = hostInTasks((files, scope) => (scope === 'snapshot' ? preparationSteps(files, 0).map((step, i) => () => (i === 1 && parts.push(answers()), step())) : []));
    const files: SnapshotFileSpec[] = [{ kind: 'text', key: 'parts', version: 1, name: 'parts.iptables', languageId: 'iptables', text: dump }];
    host.receive({ type: 'snapshot', files, method: 'serviceCount', args: [], id: 1 });
    while (tasks.length && parts.length < 5) runOne();
    // The index is half built, one part per task; a question arrives.
    expect(parts).toEqual([1, 1, 1, 1, 1]);
    host.receive({ type: 'snapshot', files, method: 'symbols', args: ['kube-dns', 50], id: 2 });
    while (tasks.length && answers() < 2) runOne();
    expect(parts).toHaveLength(5);
    const answer = posted.find((m) => m.id === 2) as { ok: boolean; value: SnapshotAnswer<unknown[]> };
    const expected = plainData(runSnapshotQuery(buildSnapshot([analyzeFile('parts.iptables', dump)!]), 'symbols', ['kube-dns', 50]));
    expect(answer.value.value).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
    // The question finished the index: the next part has nothing left to do, and the other steps follow.
    while (tasks.length) runOne();
    expect(parts).toEqual([1, 1, 1, 1, 1, 2]);
  });

  it('answers the graph, Ctrl+T and a trace after the preparation as it does without one', () => {
    const run = (prepare: boolean): unknown[] => {
      const posted: FromWorker[] = [];
      const tasks: (() => void)[] = [];
      const host = new AnalysisHost(
        (m) => posted.push(m),
        (fn) => tasks.push(fn),
        prepare ? undefined : () => [],
      );
      const ask = (method: string, args: unknown[], id: number) => host.receive({ type: 'snapshot', files: [{ kind: 'document', key: 'k' }], method: method as never, args, id });
      host.receive({ type: 'text', key: 'k', version: 1, languageId: 'iptables', name: 'k', part: dump, reset: true, done: true });
      host.receive({ type: 'analyze', key: 'k', version: 1, id: 1 });
      ask('diagnostics', [0], 2);
      while (tasks.length) tasks.shift()!();
      const s = randomServices(40, 3, 7).filter((x) => x.endpoints.length > 0)[5];
      ask('symbols', [s.name, 50], 3);
      ask('graph', [], 4);
      ask('trace', [{ to: s.clusterIP, dport: s.port, protocol: s.protocol, entry: 'pod' }], 5);
      while (tasks.length) tasks.shift()!();
      return posted.filter((m) => m.id !== undefined && m.id >= 3).map((m) => ('ok' in m && m.ok ? m.value : m));
    };
    const lazy = run(false);
    expect((lazy[0] as SnapshotAnswer<unknown[]>).value.length).toBeGreaterThan(0);
    expect(run(true)).toEqual(lazy);
  });

  it('an IPVS trace after the idle preparation answers as a cold trace does', () => {
    const services = randomServices(30, 3, 5);
    const ipvs = generateIpvsSnapshot({ services, nodeIPs: ['192.168.0.10'] });
    const analysed = () =>
      (['ipvsadm', 'ipset', 'iptables'] as const).map((id) => ({
        name: id,
        analysis: featuresFor(id)!.analyze(ipvs[id === 'ipvsadm' ? 'ipvsadm-list' : id === 'ipset' ? 'ipset-save' : 'iptables-save']) as Parameters<typeof traceSnapshot>[0][number]['analysis'],
      }));
    const s = services.find((x) => x.endpoints.length > 0)!;
    const request = { to: s.clusterIP, dport: s.port, protocol: s.protocol, entry: 'pod' as const };
    const cold = traceToJson(traceSnapshot(analysed(), request), ['ipvsadm', 'ipset', 'iptables']);
    expect((cold as { outcomes: unknown[] }).outcomes.length).toBeGreaterThan(0);
    const files = analysed();
    prepareTrace(files);
    expect(traceToJson(traceSnapshot(files, request), ['ipvsadm', 'ipset', 'iptables'])).toEqual(cold);
  });

  it('a trace after the idle preparation answers as a cold trace does', () => {
    const files = [{ name: 'n', analysis: featuresFor('iptables')!.analyze(dump) as Parameters<typeof traceSnapshot>[0][number]['analysis'] }];
    const s = randomServices(40, 3, 7).find((x) => x.endpoints.length > 0)!;
    const request = { to: s.clusterIP, dport: s.port, protocol: s.protocol, entry: 'pod' as const };
    const cold = traceToJson(traceSnapshot([{ name: 'n', analysis: featuresFor('iptables')!.analyze(dump) as (typeof files)[0]['analysis'] }], request), ['n']);
    prepareTrace(files);
    expect(traceToJson(traceSnapshot(files, request), ['n'])).toEqual(cold);
  });

  it('answers a hover before queued whole-document questions, never before an edit of its document', () => {
    const posted: FromWorker[] = [];
    const tasks: (() => void)[] = [];
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => tasks.push(fn),
    );
    const at = { line: 3, character: 2 };
    host.receive({ type: 'text', key: 'k', version: 1, languageId: 'iptables', name: 'k', part: dump, reset: true, done: true });
    host.receive({ type: 'text', key: 'j', version: 1, languageId: 'iptables', name: 'j', part: dump, reset: true, done: true });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'outline', args: [], id: 1 });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'semanticTokens', args: [], id: 2 });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'hoverAt', args: [at], id: 3 });
    host.receive({ type: 'edit', key: 'j', version: 2, changes: [{ offset: 0, length: 0, text: '# x\n' }] });
    host.receive({ type: 'query', key: 'j', version: 2, method: 'definitionAt', args: [at], id: 4 });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'foldingRanges', args: [], id: 5 });
    while (tasks.length) tasks.shift()!();
    const answers = posted.flatMap((m) => (m.id === undefined ? [] : [[m.id, m.ok ? 'ok' : 'kind' in m ? m.kind : '']]));
    // The hover (3) jumps the queue; the F12 (4) does not pass the edit before it (else: needs-text for version 2).
    expect(answers).toEqual([
      [3, 'ok'],
      [1, 'ok'],
      [2, 'ok'],
      [4, 'ok'],
      [5, 'ok'],
    ]);
  });

  it('answers Ctrl+T, the graph and a trace before queued whole-document questions, never before a text, edit or parse', () => {
    const posted: FromWorker[] = [];
    const tasks: (() => void)[] = [];
    const host = new AnalysisHost(
      (m) => posted.push(m),
      (fn) => tasks.push(fn),
      () => [],
    );
    const files: SnapshotFileSpec[] = [{ kind: 'document', key: 'k' }];
    host.receive({ type: 'text', key: 'k', version: 1, languageId: 'iptables', name: 'k', part: dump, reset: true, done: true });
    host.receive({ type: 'analyze', key: 'k', version: 1, id: 1 });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'outline', args: [], id: 2 });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'foldingRanges', args: [], id: 3 });
    host.receive({ type: 'snapshot', files, method: 'diagnostics', args: [0], id: 4 });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'serviceLenses', args: [100], id: 5 });
    host.receive({ type: 'snapshot', files, method: 'clusterDiagnostics', args: [], id: 10 });
    host.receive({ type: 'snapshot', files, method: 'symbols', args: ['KUBE-SVC', 10], id: 6 });
    host.receive({ type: 'snapshot', files, method: 'graph', args: [], id: 7 });
    while (tasks.length) tasks.shift()!();
    host.receive({ type: 'text', key: 'j', version: 1, languageId: 'iptables', name: 'j', part: dump, reset: true, done: true });
    host.receive({ type: 'query', key: 'k', version: 1, method: 'outline', args: [], id: 8 });
    host.receive({ type: 'edit', key: 'j', version: 2, changes: [{ offset: 0, length: 0, text: '# x\n' }] });
    host.receive({ type: 'snapshot', files: [{ kind: 'document', key: 'j' }], method: 'frontendItems', args: ['clusterIP'], id: 9 });
    while (tasks.length) tasks.shift()!();
    const order = posted.flatMap((m) => (m.id === undefined ? [] : [m.id]));
    // The parse (1) first; Ctrl+T (6) and the graph (7) before the outline, folding, lenses (2, 3, 5) and the
    // diagnostics and cluster check that follow every parse (4, 10); a pick list (9) waits for the text and edit
    // queued before it.
    expect(order).toEqual([1, 6, 7, 2, 3, 4, 5, 10, 8, 9]);
    expect(posted.filter((m) => m.id !== undefined && !m.ok)).toEqual([]);
  });

  it('a crashed worker fails the pending requests and starts again, asking for the text', async () => {
    let started = 0;
    let current: Worker | undefined;
    const crashes: string[] = [];
    const client = new AnalysisClient(
      () => {
        started++;
        current = new Worker(workerFile);
        return current;
      },
      { onCrash: (e) => crashes.push(e.message) },
    );
    clients.push(client);
    await open(client, 'c', 1, dump);
    const pending = client.request({ type: 'analyze', key: 'c', version: 1 }).then(
      () => 'ok',
      (e: RequestError) => e.kind,
    );
    await current!.terminate();
    expect(await pending).toBe('crashed');
    expect(crashes).toHaveLength(1);
    const again = await client.request({ type: 'analyze', key: 'c', version: 1 }).then(
      () => 'ok',
      (e: RequestError) => e.kind,
    );
    expect(again).toBe('needs-text');
    expect(started).toBe(2);
    expect(client.generation).toBe(2);
    // A restart on purpose (to drop a parse nobody needs) fails what is pending the same way, under its own name.
    await open(client, 'c', 2, dump);
    const dropped = client.request({ type: 'analyze', key: 'c', version: 2 }).then(
      () => 'ok',
      (e: RequestError) => e.kind,
    );
    client.restart();
    expect(await dropped).toBe('restarted');
    expect(crashes).toHaveLength(1);
    expect(
      await client.request({ type: 'analyze', key: 'c', version: 2 }).then(
        () => 'ok',
        (e: RequestError) => e.kind,
      ),
    ).toBe('needs-text');
    expect(started).toBe(3);
  });

  it('translates core messages with the bundle it was given', async () => {
    const zh = JSON.parse(readFileSync('l10n/bundle.l10n.zh-cn.json', 'utf8')) as Record<string, string>;
    const broken = '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j\nthis is prose\n-A NOWHERE -j ACCEPT\nCOMMIT\n';
    const english = featuresFor('iptables')!
      .analyze(broken)
      .diagnostics.map((d: { message: string }) => d.message);
    setTranslator((message, args) => formatMessage(Object.hasOwn(zh, message) ? zh[message] : message, args));
    let chinese: string[];
    try {
      chinese = featuresFor('iptables')!
        .analyze(broken)
        .diagnostics.map((d: { message: string }) => d.message);
    } finally {
      setTranslator(undefined);
    }
    expect(chinese).not.toEqual(english);
    const client = newClient({ l10n: zh });
    await open(client, 'z', 1, broken);
    const result = await client.request<AnalyzeResult>({ type: 'analyze', key: 'z', version: 1 });
    expect(result.diagnostics.map((d) => d.message)).toEqual(chinese);
  });
});

describe('answers sized for the extension host', () => {
  const features = featuresFor('iptables')!;
  const analysis = features.analyze(dump);

  it('the outline of a large dump stops after the limit and says how many chains it leaves out', () => {
    const full = runDocumentQuery(features, analysis, 'outline', []);
    const chains = full.reduce((n, table) => n + table.children.length, 0);
    expect(chains).toBeGreaterThan(100);
    const limited = runDocumentQuery(features, analysis, 'outline', [100]);
    expect(limited.map((tb) => tb.name)).toEqual(full.map((tb) => tb.name));
    const listed = limited.flatMap((tb) => tb.children.filter((c) => !c.name.startsWith('…')));
    expect(listed.map((c) => c.name)).toEqual(
      full
        .flatMap((tb) => tb.children)
        .slice(0, 100)
        .map((c) => c.name),
    );
    const more = limited.flatMap((tb) => tb.children.filter((c) => c.name.startsWith('…')));
    expect(more.map((c) => Number(/\d+/.exec(c.name)![0])).reduce((x, y) => x + y, 0)).toBe(chains - 100);
  });

  it('Show in Graph lenses: one per Service object line (its KUBE-SVC chain), at most the limit, titled by Service', () => {
    const services = runDocumentQuery(features, analysis, 'services', []);
    const lenses = runDocumentQuery(features, analysis, 'serviceLenses', [10_000]);
    expect(lenses.length).toBeGreaterThan(30);
    expect(new Set(lenses.map((l) => l.range.start.line)).size).toBe(lenses.length);
    const lines = dump.split('\n');
    for (const lens of lenses) expect(lines[lens.range.start.line]).toMatch(/^:KUBE-(SVC|SVL|EXT|FW)-/);
    const titles = new Set(services.map((s) => serviceTitle(s)));
    for (const lens of lenses) expect(titles.has(lens.title)).toBe(true);
    expect(runDocumentQuery(features, analysis, 'serviceLenses', [5])).toEqual(lenses.slice(0, 5));
  });

  it('a Show in Graph lens names its Service (`ns/name:port → Show in Graph`), in both languages', () => {
    const lenses = runDocumentQuery(features, analysis, 'serviceLenses', [10_000]);
    for (const lens of lenses) expect(lens.label).toBe(`${lens.title.replace(/\/[a-z]+$/, '')} → Show in Graph`);
    expect(lenses.some((l) => /^[\w.-]+\/[\w.-]+:[\w.-]+ → /.test(l.label))).toBe(true);
    const zh = JSON.parse(readFileSync('l10n/bundle.l10n.zh-cn.json', 'utf8')) as Record<string, string>;
    setTranslator((message, args) => formatMessage(Object.hasOwn(zh, message) ? zh[message] : message, args));
    try {
      const chinese = runDocumentQuery(features, analysis, 'serviceLenses', [1])[0];
      expect(chinese.label).toBe(`${chinese.title.replace(/\/[a-z]+$/, '')} → 在图中显示`);
    } finally {
      setTranslator(undefined);
    }
    // Dump text never becomes an icon in the lens.
    const first = runDocumentQuery(features, analysis, 'services', [])[0];
    const [sneaky] = serviceLenses([{ ...first, namespace: '$(zap)' }], 1);
    expect(sneaky.label).toContain('zap');
    expect(sneaky.label).not.toContain('$(');
  });

  it('folding ranges stop at the limit, keeping the outermost (the tables)', () => {
    const all = featuresFor('iptables')!.foldingRanges(analysis);
    const pairs = runDocumentQuery(features, analysis, 'foldingRanges', [10]);
    expect(pairs.length).toBe(20);
    const kept = Array.from({ length: 10 }, (_, i) => ({ start: pairs[2 * i], end: pairs[2 * i + 1] }));
    const tables = all.filter((r) => (analysis.ruleset.tables as { range: { start: { line: number } } }[]).some((tb) => tb.range.start.line === r.start));
    expect(tables.length).toBeGreaterThan(0);
    for (const tb of tables) expect(kept).toContainEqual(tb);
    expect(kept.every((r) => all.some((a) => a.start === r.start && a.end === r.end))).toBe(true);
  });
});

describe('analysis worker: node snapshots', () => {
  const dumps = generateIpvsSnapshot({ services: SAMPLE_SERVICES, nodeIPs: ['192.168.0.10'] });

  it('a snapshot asked in the worker answers like one asked on this thread', async () => {
    const folder = join(dir, 'node1');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'node1.ipset'), dumps['ipset-save']);
    writeFileSync(join(folder, 'node1.ipvsadm'), dumps['ipvsadm-list']);
    writeFileSync(join(folder, 'notes.txt'), 'not a dump\n');
    writeFileSync(join(folder, 'empty.iptables'), '');
    const client = newClient();
    // The iptables dump is a document held by the worker; ipset is a small open document; the rest is on disk.
    await open(client, 'ipt', 1, dumps['iptables-save']);
    await client.request({ type: 'analyze', key: 'ipt', version: 1 });
    const specs: SnapshotFileSpec[] = [
      { kind: 'document', key: 'ipt' },
      { kind: 'text', key: 'set', version: 1, name: join(folder, 'node1.ipset'), languageId: 'ipset', text: dumps['ipset-save'] },
      { kind: 'path', name: join(folder, 'empty.iptables'), path: join(folder, 'empty.iptables'), maxSize: 1e9 },
      { kind: 'path', name: join(folder, 'node1.ipvsadm'), path: join(folder, 'node1.ipvsadm'), maxSize: 1e9 },
      { kind: 'path', name: join(folder, 'notes.txt'), path: join(folder, 'notes.txt'), maxSize: 1e9 },
    ];
    const local = buildSnapshot([
      analyzeFile('/x/ipt', dumps['iptables-save'], 'iptables'),
      analyzeFile(join(folder, 'node1.ipset'), dumps['ipset-save'], 'ipset'),
      analyzeFile(join(folder, 'node1.ipvsadm'), dumps['ipvsadm-list']),
    ] as SnapshotFile[]);
    const lines = dumps['iptables-save'].split('\n');
    const line = lines.findIndex((l) => l.includes('--match-set KUBE-CLUSTER-IP'));
    const at = { line, character: lines[line].indexOf('KUBE-CLUSTER-IP') + 1 };
    const questions: [string, unknown[]][] = [
      ['files', []],
      ['definitions', [0, at]],
      ['references', [0, at]],
      ['diagnostics', [0]],
      ['services', []],
      ['frontendItems', ['clusterIP']],
      ['trace', [{ to: '10.96.0.10', dport: 53, protocol: 'udp', entry: 'pod' }]],
      ['graph', []],
    ];
    for (const [method, args] of questions) {
      const answer = await client.request<SnapshotAnswer>({ type: 'snapshot', files: specs, method: method as never, args });
      expect(answer.included, method).toEqual([0, 1, 3]);
      expect(answer.value, method).toEqual(plainData(runSnapshotQuery(local, method as never, args as never)));
    }
    // The cross-file answers are real: F12 on --match-set goes to the ipset file.
    const defs = (await client.request<SnapshotAnswer<{ fileIndex: number }[]>>({ type: 'snapshot', files: specs, method: 'definitions', args: [0, at] })).value;
    expect(defs.map((d) => d.fileIndex)).toEqual([1]);
  });

  it('files beside a document go to the worker whatever their size; a define bomb among them is read there, bounded', async () => {
    const host = { where: 'extension-host' as const };
    // Only open documents analysed on the extension host keep the snapshot there.
    expect(snapshotInWorker(host, [])).toBe(false);
    expect(snapshotInWorker(host, [{ analysis: host }])).toBe(false);
    expect(snapshotInWorker(host, [{ analysis: host }, { size: 814 }])).toBe(true);
    expect(snapshotInWorker(host, [{ analysis: { where: 'worker' } }])).toBe(true);
    expect(snapshotInWorker({ where: 'worker' }, [])).toBe(true);

    const folder = join(dir, 'hostile');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(folder, { recursive: true });
    let bomb = '#!/usr/sbin/nft -f\ndefine v0 = { 10.0.0.1, 10.0.0.2 }\n';
    for (let i = 1; i <= 27; i++) bomb += `define v${i} = { $v${i - 1}, $v${i - 1} }\n`;
    writeFileSync(join(folder, 'readme.txt'), `${bomb}table ip t {\n\tchain c {\n\t\tip daddr { $v27 } accept\n\t}\n}\n`);
    const nft = generateNftDump({ services: SAMPLE_SERVICES, style: 'nft-list-ruleset' });
    const client = newClient();
    const specs: SnapshotFileSpec[] = [
      { kind: 'text', key: 'node.nft', version: 1, name: join(folder, 'node.nft'), languageId: 'nftables', text: nft },
      { kind: 'path', name: join(folder, 'readme.txt'), path: join(folder, 'readme.txt'), maxSize: 1e9 },
    ];
    const files = await client.request<SnapshotAnswer<{ name: string; languageId: string }[]>>({ type: 'snapshot', files: specs, method: 'files', args: [] });
    expect(files.value.map((f) => f.languageId)).toEqual(['nftables', 'nftables']);
    const services = await client.request<SnapshotAnswer<number>>({ type: 'snapshot', files: specs, method: 'serviceCount', args: [] });
    expect(services.value).toBe(buildSnapshot([analyzeFile('node.nft', nft, 'nftables')!]).services.length);
    expect(services.value).toBeGreaterThan(0);
    // Explain This Node is asked there too, quoting the lines of the open text and of the file on disk.
    const explained = await client.request<SnapshotAnswer>({ type: 'snapshot', files: specs, method: 'explain', args: [] });
    const texts = [nft, readFileSync(join(folder, 'readme.txt'), 'utf8')];
    const local = buildSnapshot([analyzeFile(join(folder, 'node.nft'), nft, 'nftables')!, analyzeFile(join(folder, 'readme.txt'), texts[1])!]);
    expect(explained.value).toEqual(plainData(explainNode(local, texts)));
    expect(JSON.stringify(explained.value)).toContain('table ip kube-proxy');
  });
});
