// Kernel differential tests (issue #6 part 4): the Linux kernel is the judge of the packet tracer.
//
// For each backend (iptables-nft, iptables-legacy) and each scenario, a generated kube-proxy dump is loaded into
// the "node" namespace of a fresh set of network namespaces (lib/topology.ts), real TCP connections and UDP
// exchanges go from a client pod, from outside, from the node itself and from endpoint pods to the Service,
// and what happened to them (which endpoint answered, seeing which source; refused; timed out) is compared
// with traceSnapshot() on the dump that iptables-save prints back. See README.md beside this file.
//
// Needs root, `ip netns`, iptables (nft and/or legacy); skipped with a message otherwise. Not part of
// `npm test`: run `npm run test:kernel` (= `vitest run --config test/kernel/vitest.config.mts`).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateIptablesDump } from '../../tools/generate/iptables';
import { analyzeIptables } from '../../src/core/language/iptables';
import { traceSnapshot, type SnapshotFile, type TraceResult } from '../../src/core/trace';
import { attemptKey, conntrackProblems, describeCounts, describeTrace, judge, predicted, tally, underInterfaces } from './lib/compare';
import { deleteAllSync, installExitCleanup, PREFIX, probeEnvironment, sweepLeftovers, type Backend } from './lib/netns';
import { stopAllDaemons } from './lib/proc';
import { AFFINITY_CLIENTS, CAPACITY_CLIENTS, handScenario, ifaceScenario, outsidePorts, randomScenario, withExtraRules, type Probe, type Scenario } from './lib/scenarios';
import { chiSquare, gammaQ } from './lib/stats';
import { CLUSTER_CIDR, NODE_ADDRESSES, OUTSIDE, POD_GATEWAY, Topology, type Attempt, type AttemptResult } from './lib/topology';
import { ANSWER_GRACE_MS, TIMEOUT_MS } from './lib/timing';
import { countedBetween, countersByLine, unconfirmedTimeouts } from './lib/counters';

/** Attempts per probe when the trace predicts several outcomes (frequencies are tested), and when it predicts one. */
const N_SPREAD = 300;
const N_SINGLE = 30;
/**
 * Level of each chi-square test. About 150 tests per backend; at 1e-6 each, a correct tracer fails a run (both
 * backends) by chance with probability below 0.03%. With N = 300 that still catches e.g. 1/2, 1/4, 1/4 predicted where the
 * kernel does 1/3 each (chi² ≈ 37, p ≈ 1e-8). All tests of a backend are also combined into one (sum of the
 * statistics against chi² with the summed degrees of freedom) at level 1e-4, which catches a small bias that
 * recurs in many probes.
 */
const ALPHA = 1e-6;
const ALPHA_COMBINED = 1e-4;

const env = probeEnvironment();
if (env.skip) console.warn(`kernel differential tests skipped: ${env.skip}`);
for (const m of env.missing) console.warn(`kernel differential tests: backend skipped: ${m}`);
if (!env.skip && !env.nfacct) console.warn('kernel differential tests: no nfacct tool; the -m nfacct matches are cut from the dumps (see test/kernel/README.md)');

const scenarios: Scenario[] = [handScenario(), ifaceScenario(), randomScenario(1, 12, 3), randomScenario(2, 12, 3), randomScenario(5, 12, 4), randomScenario(8, 12, 2)];

interface Stats {
  probes: number;
  attempts: number;
  chi: { statistic: number; df: number; p: number; name: string }[];
  started: number;
}

function fail(probe: Probe, trace: TraceResult, observed: Map<string, number>, problems: string[]): never {
  throw new Error([`${probe.protocol} ${probe.name}: tracer and kernel disagree`, ...problems.map((p) => `- ${p}`), 'trace:', describeTrace(trace), 'kernel:', describeCounts(observed)].join('\n'));
}

function readIpListTot(): number {
  try {
    return Number(readFileSync('/sys/module/xt_recent/parameters/ip_list_tot', 'utf8').trim()) || 100;
  } catch {
    return 100;
  }
}

if (env.skip) {
  describe('kernel differential tests', () => {
    it.skip(`skipped: ${env.skip}`, () => {});
  });
} else {
  describe(`kernel differential tests (namespaces ${PREFIX}*)`, () => {
    beforeAll(() => {
      installExitCleanup();
      const swept = sweepLeftovers();
      if (swept.length) console.warn(`swept ${swept.length} namespaces left by earlier runs: ${swept.join(', ')}`);
    });
    afterAll(() => {
      stopAllDaemons();
      deleteAllSync();
    });

    for (const backend of env.backends) describeBackend(backend);
  });
}

function describeBackend(backend: Backend): void {
  describe(`iptables ${backend.name} (${backend.restore})`, () => {
    const stats: Stats = { probes: 0, attempts: 0, chi: [], started: 0 };
    beforeAll(() => {
      stats.started = Date.now();
    });

    for (const sc of scenarios) {
      describe(`${sc.title}: ${sc.services.length} service ports, ${sc.pods.length} endpoint pods`, () => {
        let topo: Topology | undefined;
        let files: SnapshotFile[] = [];
        beforeAll(async () => {
          const dump = withExtraRules(generateIptablesDump({ services: sc.services, style: backend.style, nodeRules: true, clusterCIDR: CLUSTER_CIDR }), sc.extraRules);
          topo = await Topology.create({
            id: `${backend.name === 'legacy' ? 'l' : 'n'}${sc.id}`,
            backend,
            dump,
            pods: sc.pods,
            outside: outsidePorts(sc.services),
            extraClientAddresses: sc.extraClientAddresses,
            sideClients: sc.sideClients,
            nodeRoutes: sc.nodeRoutes,
            nfacct: env.nfacct,
          });
          files = [{ name: backend.save, analysis: analyzeIptables(topo.savedDump) }];
        });
        afterAll(async () => {
          await topo?.destroy();
        });

        it('iptables-save prints every table back as generated', () => {
          // Compared per table: legacy iptables-save lists the tables newest-registered first, which depends on
          // the namespace's history, and iptables-nft-save names itself so in its header.
          const tables = (dump: string) => {
            const out = new Map<string, string>();
            for (const m of dump.matchAll(/^\*(\w+)\n([\s\S]*?)^COMMIT$/gm)) out.set(m[1]!, m[2]!);
            return out;
          };
          const saved = tables(topo!.savedDump);
          const loaded = tables(topo!.loadedDump);
          expect([...saved.keys()].sort()).toEqual([...loaded.keys()].sort());
          for (const [name, text] of loaded) expect(saved.get(name), `table ${name}`).toBe(text);
        });

        for (const probe of sc.probes) {
          it(`${probe.protocol}: ${probe.name}`, async () => {
            const t = topo!;
            const full = traceSnapshot(files, { to: probe.to, dport: probe.port, protocol: probe.protocol, from: probe.from, entry: probe.entry, nodeIPs: NODE_ADDRESSES });
            // With interfaces given, the prediction is the outcomes whose interface conditions hold for them.
            const under = probe.via ? underInterfaces(full, probe.via) : undefined;
            expect(under?.problems ?? [], describeTrace(full)).toEqual([]);
            const trace = under?.result ?? full;
            const pred = predicted(trace);
            const total = [...pred.values()].reduce((s, p) => s + p, 0);
            expect(total, describeTrace(full)).toBeCloseTo(1, 6);
            if (!probe.via)
              expect(
                trace.outcomes.flatMap((o) => o.assumptions),
                'the trace needs no assumptions here',
              ).toEqual([]);
            stats.probes++;
            switch (probe.kind) {
              case 'plain':
                return plainProbe(t, probe, trace, pred, stats);
              case 'affinity':
                return affinityProbe(t, probe, trace, pred, stats);
              case 'sticky':
                return stickyProbe(t, probe, trace, pred, stats);
              case 'same-flow':
                return sameFlowProbe(t, probe, pred, stats);
              case 'recent-capacity':
                return capacityProbe(t, probe, trace, stats);
            }
          });
        }
      });
    }

    it(`all chi-square tests of this backend together (level ${ALPHA_COMBINED})`, () => {
      const statistic = stats.chi.reduce((s, c) => s + c.statistic, 0);
      const df = stats.chi.reduce((s, c) => s + c.df, 0);
      const p = df > 0 ? gammaQ(df / 2, statistic / 2) : 1;
      console.log(
        `[kernel ${backend.name}] ${stats.probes} probes, ${stats.attempts} connections/exchanges, ${stats.chi.length} chi-square tests (combined chi² ${statistic.toFixed(1)}, df ${df}, p ${p.toFixed(3)}), ${((Date.now() - stats.started) / 1000).toFixed(1)} s`,
      );
      const lowest = [...stats.chi].sort((a, b) => a.p - b.p).slice(0, 3);
      console.log(`[kernel ${backend.name}] lowest p-values: ${lowest.map((c) => `${c.p.toExponential(1)} (${c.name})`).join('; ')}`);
      expect(p).toBeGreaterThan(ALPHA_COMBINED);
    });
  });
}

function checkSources(probe: Probe, results: AttemptResult[]): void {
  for (const r of results) {
    // The client's own source is the one the tracer was told; a masqueraded packet reaches the endpoint
    // from the node's address towards the pods.
    if (r.src !== null) expect(r.src, `${probe.name}: client source`).toBe(probe.from);
    if (r.outcome === 'answer' && r.name !== OUTSIDE && r.seen !== r.src) expect(r.seen, `${probe.name}: masqueraded source`).toBe(POD_GATEWAY);
  }
}

async function plainProbe(t: Topology, probe: Probe, trace: TraceResult, pred: Map<string, number>, stats: Stats): Promise<void> {
  const spread = [...pred.values()].filter((p) => p > 0).length > 1;
  const n = spread ? N_SPREAD : N_SINGLE;
  const ns = t.originNs(probe.origin);
  // A process on the node does not bind an address: routing picks it (the node's address, or 127.0.0.1).
  const src = probe.origin.kind === 'node' ? undefined : probe.from;
  const attempts: Attempt[] = t.ports(ns, n).map((sport) => ({ sport, ...(src ? { src } : {}) }));
  const { results, counted } = await t.request(probe.origin, { protocol: probe.protocol, to: probe.to, port: probe.port, attempts, concurrency: spread ? 32 : n, timeoutMs: TIMEOUT_MS, answerGraceMs: ANSWER_GRACE_MS });
  expect(unconfirmedTimeouts(trace, results, counted), `${probe.name}: timeouts the rule counters confirm`).toEqual([]);
  stats.attempts += results.length;
  const observed = tally(results.map(attemptKey));
  const v = judge(pred, observed, ALPHA);
  if (v.chi) stats.chi.push({ ...v.chi, name: `${probe.protocol} ${probe.name}` });
  if (!v.ok) fail(probe, trace, observed, v.problems);
  checkSources(probe, results);
  if (probe.origin.kind === 'node') expect(conntrackProblems(await t.conntrack(), { protocol: probe.protocol, address: probe.to, port: probe.port }, results), `${probe.name}: conntrack`).toEqual([]);
}

async function affinityProbe(t: Topology, probe: Probe, trace: TraceResult, pred: Map<string, number>, stats: Stats): Promise<void> {
  expect(
    trace.outcomes.some((o) => o.notes.some((n) => /session affinity/i.test(n))),
    'the trace tells what a returning client gets',
  ).toBe(true);
  const rounds = 5;
  const ns = t.originNs(probe.origin);
  const ports = t.ports(ns, AFFINITY_CLIENTS.length * rounds);
  const attempts: Attempt[] = [];
  for (let r = 0; r < rounds; r++) AFFINITY_CLIENTS.forEach((c, i) => attempts.push({ src: c, sport: ports[r * AFFINITY_CLIENTS.length + i]!, wave: r }));
  const { results, counted } = await t.request(probe.origin, { protocol: probe.protocol, to: probe.to, port: probe.port, attempts, concurrency: 32, timeoutMs: TIMEOUT_MS, answerGraceMs: ANSWER_GRACE_MS });
  expect(unconfirmedTimeouts(trace, results, counted), `${probe.name}: timeouts the rule counters confirm`).toEqual([]);
  stats.attempts += results.length;
  const byClient = new Map<string, string[]>();
  results.forEach((r, i) => {
    const c = attempts[i]!.src!;
    byClient.set(c, [...(byClient.get(c) ?? []), attemptKey({ ...r, src: c })]);
  });
  // Every client's connections all went to the endpoint its first one went to.
  for (const [c, keys] of byClient) expect(new Set(keys), `client ${c}: ${keys.join(', ')}`).toEqual(new Set([keys[0]]));
  // First choices of the clients: as the trace predicts for a new client.
  const first = tally([...byClient.values()].map((k) => k[0]!));
  const v = judge(pred, first, ALPHA);
  if (v.chi) stats.chi.push({ ...v.chi, name: `${probe.protocol} ${probe.name}` });
  if (!v.ok) fail(probe, trace, first, v.problems);
}

async function stickyProbe(t: Topology, probe: Probe, trace: TraceResult, pred: Map<string, number>, stats: Stats): Promise<void> {
  if (trace.outcomes.some((o) => o.verdict === 'dnat')) {
    expect(
      trace.outcomes.some((o) => o.notes.some((n) => /session affinity/i.test(n))),
      'the trace tells what a returning client gets',
    ).toBe(true);
  }
  const ns = t.originNs(probe.origin);
  const src = probe.origin.kind === 'node' ? undefined : probe.from;
  // The first connection alone, then the others: all from the same source address.
  const attempts: Attempt[] = t.ports(ns, N_SINGLE).map((sport, i) => ({ sport, wave: i === 0 ? 0 : 1, ...(src ? { src } : {}) }));
  const { results, counted } = await t.request(probe.origin, { protocol: probe.protocol, to: probe.to, port: probe.port, attempts, concurrency: 32, timeoutMs: TIMEOUT_MS, answerGraceMs: ANSWER_GRACE_MS });
  expect(unconfirmedTimeouts(trace, results, counted), `${probe.name}: timeouts the rule counters confirm`).toEqual([]);
  stats.attempts += results.length;
  const observed = tally(results.map(attemptKey));
  const [first] = [...observed.keys()];
  if (observed.size !== 1 || !((pred.get(first!) ?? 0) > 0)) {
    fail(probe, trace, observed, ['with session affinity every connection from one source goes where its first went, to one of the predicted endpoints']);
  }
  checkSources(probe, results);
}

async function sameFlowProbe(t: Topology, probe: Probe, pred: Map<string, number>, stats: Stats): Promise<void> {
  expect([...pred.values()].filter((p) => p > 0).length, 'the trace spreads new flows over several endpoints').toBeGreaterThan(1);
  const ns = t.originNs(probe.origin);
  const [sport] = t.ports(ns, 1);
  const attempts: Attempt[] = Array.from({ length: 40 }, () => ({ src: probe.from, sport: sport! }));
  const { results } = await t.request(probe.origin, { protocol: probe.protocol, to: probe.to, port: probe.port, attempts, concurrency: 1, timeoutMs: TIMEOUT_MS, answerGraceMs: ANSWER_GRACE_MS });
  stats.attempts += results.length;
  const observed = tally(results.map(attemptKey));
  expect([...observed.keys()], 'one conntrack entry, one endpoint').toHaveLength(1);
  const [key] = [...observed.keys()];
  expect((pred.get(key!) ?? 0) > 0, `${key} is one of the trace's outcomes`).toBe(true);
  expect(key!.startsWith('dnat ')).toBe(true);
}

async function capacityProbe(t: Topology, probe: Probe, trace: TraceResult, stats: Stats): Promise<void> {
  const limit = readIpListTot();
  const ns = t.originNs(probe.origin);
  const ports = t.ports(ns, CAPACITY_CLIENTS.length);
  const attempts: Attempt[] = CAPACITY_CLIENTS.map((c, i) => ({ src: c, sport: ports[i]! }));
  // One after the other, so that the order in which xt_recent saw the clients is known.
  const { results, counted } = await t.request(probe.origin, { protocol: probe.protocol, to: probe.to, port: probe.port, attempts, concurrency: 1, timeoutMs: TIMEOUT_MS, answerGraceMs: ANSWER_GRACE_MS });
  expect(unconfirmedTimeouts(trace, results, counted), `${probe.name}: timeouts the rule counters confirm`).toEqual([]);
  stats.attempts += results.length;
  const keys = results.map(attemptKey);
  const pred = predicted(trace);
  for (const k of keys) expect((pred.get(k) ?? 0) > 0, `${k} predicted`).toBe(true);

  // The recent list of each endpoint (named after its KUBE-SEP chain) holds the last `limit` clients that chose it.
  const lists = await t.recentLists();
  const spn = `kernel/recent-capacity:${probe.protocol}`;
  const sepOf = new Map<string, string>();
  for (const line of t.savedDump.split('\n')) {
    const m = /^-A (KUBE-SEP-[A-Z0-9]+) .*"([^"]+)".* --to-destination (\S+)/.exec(line);
    if (m && m[2] === spn) sepOf.set(m[3]!, m[1]!);
  }
  expect(sepOf.size).toBe(2);
  let evicted = 0;
  for (const [endpoint, sep] of sepOf) {
    const chose = CAPACITY_CLIENTS.filter((_, i) => keys[i] === `dnat ${endpoint}`);
    const kept = lists.get(sep) ?? [];
    expect(kept.length, `${sep} (${endpoint}): ${chose.length} clients chose it`).toBe(Math.min(limit, chose.length));
    expect(new Set(kept)).toEqual(new Set(chose.slice(-limit)));
    evicted += Math.max(0, chose.length - limit);
  }
  console.log(`[kernel] xt_recent ip_list_tot=${limit}: ${CAPACITY_CLIENTS.length} clients, ${evicted} forgotten (their next connection is a new random choice)`);
}

// Keep the statistics helpers honest (cheap, no kernel needed).
describe('chi-square helper', () => {
  it('matches known values', () => {
    expect(gammaQ(0.5, 3.841458820694124 / 2)).toBeCloseTo(0.05, 6); // chi²(1) 95% quantile
    expect(gammaQ(2, 18.46682695290317 / 2)).toBeCloseTo(0.001, 6); // chi²(4) 99.9% quantile
    expect(chiSquare([100, 100, 100], [1 / 3, 1 / 3, 1 / 3]).p).toBeCloseTo(1, 9);
    expect(chiSquare([200, 100, 100], [1 / 3, 1 / 3, 1 / 3]).p).toBeLessThan(1e-10);
  });
});

describe('rule counters confirm a timeout', () => {
  const saved = ['# Generated by iptables-save', '*filter', ':INPUT ACCEPT [0:0]', ':FORWARD DROP [0:0]', '-A FORWARD -j KUBE-X', '-A KUBE-X -d 10.96.0.1/32 -j DROP', '-A KUBE-X -d 10.96.0.1/32 -j DROP', 'COMMIT'].join(
    '\n',
  );
  const withCounts = (a: number, b: number, policy: number) =>
    [
      '# Generated by iptables-save',
      '*filter',
      ':INPUT ACCEPT [9:900]',
      `:FORWARD DROP [${policy}:0]`,
      '[7:0] -A FORWARD -j KUBE-X',
      `[${a}:0] -A KUBE-X -d 10.96.0.1/32 -j DROP`,
      `[${b}:0] -A KUBE-X -d 10.96.0.1/32 -j DROP`,
      'COMMIT',
    ].join('\n');
  const trace = (line: number) => ({ outcomes: [{ verdict: 'drop', path: [{ line: 4 }, { line }] }] }) as unknown as TraceResult;
  const timedOut = [
    { sport: 1, src: null, outcome: 'timeout' },
    { sport: 2, src: null, outcome: 'timeout' },
  ] as AttemptResult[];

  it('reads each line’s packets, the n-th copy of a line from the n-th', () => {
    expect([...countersByLine(saved, withCounts(1, 2, 3))]).toEqual([
      [2, 9],
      [3, 3],
      [4, 7],
      [5, 1],
      [6, 2],
    ]);
  });

  it('calls two timeouts drops only when the rule the trace names counted two packets while they were sent again', () => {
    const moved = countedBetween(countersByLine(saved, withCounts(1, 2, 3)), countersByLine(saved, withCounts(1, 4, 3)));
    expect(unconfirmedTimeouts(trace(6), timedOut, moved)).toEqual([]);
    expect(unconfirmedTimeouts(trace(5), timedOut, moved)).toEqual([expect.stringContaining('counted 0 packets')]);
    expect(unconfirmedTimeouts(trace(3), timedOut, moved)).toEqual([expect.stringContaining('(lines 4)')]);
    // No counter on the named line (nft rules without `counter`), no timeout, or no retry: nothing to confirm.
    expect(unconfirmedTimeouts(trace(7), timedOut, moved)).toEqual([]);
    expect(unconfirmedTimeouts(trace(5), [], moved)).toEqual([]);
    expect(unconfirmedTimeouts(trace(5), timedOut, undefined)).toEqual([]);
  });
});
