// What the analysis worker prepares right after a parse (analysis/queries.ts preparationSteps): the first trace, the
// graph model and the symbol index of a node snapshot, which later questions reuse instead of building again; and
// the symbol search over the joined names, which finds exactly the names that contain the query.
import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { buildSymbolIndex, querySymbols, symbolIndexSteps } from '../../src/core/symbols';
import { plainData } from '../../src/extension/analysis/plain';
import { preparationSteps, runSnapshotQuery, snapshotOf } from '../../src/extension/analysis/queries';
import { prepareSteps } from '../../src/extension/analysis/host';
import { filterRows, MAX_PICK_ROWS } from '../../src/extension/analysis/pickRows';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';
import { traceHighlight } from '../../src/core/graph/trace';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';

/** The files of a sample snapshot, their features counting the outlines and Service lists asked of them. */
function counted(dir: string): { files: SnapshotFile[]; calls: () => number } {
  let calls = 0;
  // Dumps only, as the editor reads a folder: the samples' cluster-state files are no dump.
  const dumps = readdirSync(`samples/${dir}`)
    .sort()
    .flatMap((n) => analyzeFile(n, readFileSync(`samples/${dir}/${n}`, 'utf8')) ?? []);
  const files = dumps.map((f) => {
    const features = { ...f.features } as typeof f.features;
    const { outline, services } = f.features;
    features.outline = ((a: never, ...rest: never[]) => (calls++, (outline as (...x: unknown[]) => unknown)(a, ...rest))) as never;
    features.services = ((a: never) => (calls++, services(a))) as never;
    return { ...f, features };
  });
  return { files, calls: () => calls };
}

describe('preparation after a parse', () => {
  for (const dir of ['iptables-nft', 'nftables', 'ipvs']) {
    it(`${dir}: the graph and Ctrl+T of a new snapshot of the same analyses ask nothing more of the analyses`, () => {
      const query = dir === 'ipvs' ? '10.96.0.10' : 'kube-dns';
      const ask = (files: SnapshotFile[]) => {
        // The worker builds a new snapshot object per request: the answers come from what was prepared.
        const s = buildSnapshot(files);
        return { graph: runSnapshotQuery(s, 'graph', []), found: runSnapshotQuery(s, 'symbols', [query, 10]), rows: runSnapshotQuery(s, 'frontendItems', ['clusterIP']) };
      };
      const lazy = counted(dir);
      const lazyCalls = lazy.calls();
      const expected = ask(lazy.files);
      // Without preparation the questions read the outlines and Service lists.
      expect(lazy.calls()).toBeGreaterThan(lazyCalls);
      expect(expected.graph.services.length).toBeGreaterThan(0);
      expect(expected.found.length).toBeGreaterThan(0);
      const { files, calls } = counted(dir);
      for (const step of preparationSteps(files)) step();
      const s = buildSnapshot(files);
      const after = calls();
      const graph = runSnapshotQuery(s, 'graph', []);
      const found = runSnapshotQuery(s, 'symbols', [query, 10]);
      expect(calls()).toBe(after);
      // The same answers as built when asked.
      expect(graph).toEqual(expected.graph);
      expect(found).toEqual(expected.found);
      expect(runSnapshotQuery(s, 'frontendItems', ['clusterIP'])).toEqual(expected.rows);
      expect(expected.rows.length).toBeGreaterThan(0);
    });
  }

  it("an iptables or nft dump's own preparation builds the symbol index of its snapshot alone (Ctrl+T asks it right after a parse)", () => {
    for (const dir of ['iptables-nft', 'nftables']) {
      const { files, calls } = counted(dir);
      const dump = files.filter((f) => f.languageId === 'iptables' || f.languageId === 'nftables').slice(-1);
      for (const step of prepareSteps(dump, 'document')) while (step() === true);
      const after = calls();
      expect(runSnapshotQuery(snapshotOf(dump), 'symbols', ['kube', 10]).length).toBeGreaterThan(0);
      expect(calls()).toBe(after);
    }
  });

  it('a graph asked for is a copy: graphs the panel adds to it do not reach the next answer', () => {
    const { files } = counted('iptables-nft');
    const first = runSnapshotQuery(buildSnapshot(files), 'graph', []);
    first.graphs.clear();
    expect(runSnapshotQuery(buildSnapshot(files), 'graph', []).graphs.size).toBeGreaterThan(0);
  });
});

describe('the Services a trace reaches, on a large snapshot', () => {
  const services = randomServices(600, 3, 11);
  const text = generateIptablesDump({ services, style: 'iptables-nft-save', family: 'ipv4', comments: true });
  const file = analyzeFile('big.iptables', text)!;
  const snapshot = buildSnapshot([file]);
  const traceFiles: TraceFile[] = [{ name: 'big.iptables', analysis: file.analysis as TraceFile['analysis'] }];

  it('are those whose graph the trace lights, as when every graph is built', () => {
    const s = services.filter((x) => x.endpoints.length > 0)[444];
    const trace = traceSnapshot(traceFiles, { to: s.clusterIP, dport: s.port, protocol: s.protocol, entry: 'pod' });
    // Every graph built, as before: the reference answer.
    const model = graphOfSnapshot(snapshot);
    const expected = [...model.graphs.values()].filter((g) => traceHighlight([g], trace).nodes.length > 0).map((g) => g.key);
    expect(expected.length).toBeGreaterThan(0);
    expect(runSnapshotQuery(snapshot, 'tracedServices', [trace, 20])).toEqual(expected.slice(0, 20));
  });
});

describe("the graph's first drawing on a long list", () => {
  const services = randomServices(600, 3, 11);
  const text = generateIptablesDump({ services, style: 'iptables-nft-save', family: 'ipv4', comments: true });
  const snapshot = buildSnapshot([analyzeFile('big.iptables', text)!]);
  const full = runSnapshotQuery(snapshot, 'graph', []);

  it('holds only the wanted Services, with the graphs the whole model draws for them, and the count', () => {
    const far = full.services[550];
    const start = runSnapshotQuery(snapshot, 'graphStart', [[far.key, 'no/such:key'], undefined, 100]);
    expect(start.count).toBe(full.services.length);
    expect(start.model.services).toEqual([far]);
    expect([...start.model.graphs.values()]).toEqual(runSnapshotQuery(snapshot, 'serviceGraphs', [[far.key]]));
    const bySelector = runSnapshotQuery(snapshot, 'graphStart', [[], { title: full.services[3].title }, 100]);
    expect(bySelector.model.services.map((x) => x.key)).toEqual([full.services[3].key]);
    expect(bySelector.model.graphs.get(full.services[3].key)).toEqual(full.graphs.get(full.services[3].key));
  });

  it('falls back to the first Service, and answers the whole model when the list is short', () => {
    expect(runSnapshotQuery(snapshot, 'graphStart', [[], undefined, 100]).model.services).toEqual([full.services[0]]);
    const whole = runSnapshotQuery(snapshot, 'graphStart', [[], undefined, 10_000]);
    expect(whole.model.services).toEqual(full.services);
    expect(whole.model.graphs).toEqual(full.graphs);
  });
});

describe('symbol search over the joined names', () => {
  const services = randomServices(300, 2, 3);
  const text = generateIptablesDump({ services, style: 'iptables-nft-save', family: 'ipv4', comments: true });
  const index = buildSymbolIndex(buildSnapshot([analyzeFile('n.iptables', text)!]));

  it('finds every name that contains the query once, and no other (any query, short or long)', () => {
    const sampleQuery = fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.integer({ min: 0, max: index.keys.length - 1 }).chain((i) => fc.tuple(fc.nat(40), fc.integer({ min: 1, max: 30 })).map(([a, n]) => index.entries[i].name.slice(a, a + n))),
    );
    fc.assert(
      fc.property(sampleQuery, (query) => {
        const q = query.trim().toLowerCase();
        fc.pre(q !== '');
        const found = querySymbols(index, query, Number.MAX_SAFE_INTEGER);
        const expected = index.entries.filter((_, i) => index.keys[i].includes(q));
        expect(new Set(found).size).toBe(found.length);
        expect(new Set(found)).toEqual(new Set(expected));
      }),
      { numRuns: 200 },
    );
  });

  it('is built in parts (one per entry with no time to spare) into the same index, of plain data', () => {
    const snapshot = buildSnapshot([analyzeFile('n.iptables', text)!]);
    const steps = symbolIndexSteps(snapshot, 0);
    let parts = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) parts++;
    // One pause after each Service and each chain: the worker answers questions between any two.
    expect(parts).toBe(snapshot.services.length + snapshot.files[0].features.namedObjects!(snapshot.files[0].analysis).length);
    expect(step.value).toEqual(index);
    // Entries cross to the extension host as they are: nothing left for plainData to convert.
    expect(plainData(step.value.entries)).toBe(step.value.entries);
    for (const e of step.value.entries) expect([e, e.range, e.range.start, e.range.end].every((o) => Object.getPrototypeOf(o) === Object.prototype)).toBe(true);
  });

  it('a query across two names, or with a line break, finds nothing', () => {
    expect(querySymbols(index, `${index.keys[0]}\n${index.keys[1]}`)).toEqual([]);
    expect(querySymbols(index, `${index.keys[0].slice(-2)}${index.keys[1].slice(0, 2)}`).every((m) => m.name.toLowerCase().includes(`${index.keys[0].slice(-2)}${index.keys[1].slice(0, 2)}`))).toBe(true);
  });
});

describe('the Trace ClusterIP pick of a large snapshot, filtered where the snapshot lives', () => {
  const services = randomServices(1_500, 2, 5);
  const text = generateIptablesDump({ services, style: 'iptables-nft-save', family: 'ipv4', comments: true });
  const snapshot = buildSnapshot([analyzeFile('big.iptables', text)!]);
  const all = runSnapshotQuery(snapshot, 'frontendItems', ['clusterIP']);
  const holds = (q: string) => all.filter((r) => [r.label, r.description, r.detail].some((f) => f.toLowerCase().includes(q.trim().toLowerCase())));

  it('sends the first rows and how many there are, not every row', () => {
    expect(all.length).toBeGreaterThan(1_000);
    const first = runSnapshotQuery(snapshot, 'frontendRows', ['clusterIP', '', 200]);
    expect(first).toEqual({ rows: all.slice(0, 200), matched: all.length, total: all.length });
  });

  it('finds every row by what is typed, as the pick itself would match it (any field, any case)', () => {
    const row = all[1_234];
    for (const q of [row.label, row.description.toUpperCase(), ` ${row.detail.split(' ')[0]} `, row.label.slice(3, 9)]) {
      const answer = runSnapshotQuery(snapshot, 'frontendRows', ['clusterIP', q, 200]);
      expect(answer.rows, q).toEqual(holds(q).slice(0, 200));
      expect(answer.matched, q).toBe(holds(q).length);
      expect(answer.rows, q).toContainEqual(row);
    }
  });

  it('List Services filters its rows the same way', () => {
    const rows = runSnapshotQuery(snapshot, 'serviceItems', []);
    const q = rows[777].label;
    const answer = runSnapshotQuery(snapshot, 'serviceRows', [q, 200]);
    expect(answer.rows).toContainEqual(rows[777]);
    expect(answer).toEqual(filterRows(rows, q, 200));
    expect(runSnapshotQuery(snapshot, 'serviceRows', ['', 200])).toEqual({ rows: rows.slice(0, 200), matched: rows.length, total: rows.length });
  });

  it('a query across two fields finds nothing; a limit beyond the bound is the bound', () => {
    expect(runSnapshotQuery(snapshot, 'frontendRows', ['clusterIP', `${all[0].label} ${all[0].description}`, 200]).matched).toBe(0);
    const rows = Array.from({ length: MAX_PICK_ROWS + 5 }, (_, i) => ({ label: `r${i}` }));
    expect(filterRows(rows, '', 1e9).rows.length).toBe(MAX_PICK_ROWS);
    expect(filterRows(rows, 'r1', -3)).toEqual({ rows: [], matched: rows.filter((r) => r.label.includes('r1')).length, total: rows.length });
  });
});
