// The Service graph of a very large snapshot: the list of every Service at once, graphs when a Service is drawn.
import { describe, expect, it } from 'vitest';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';
import { runSnapshotQuery } from '../../src/extension/analysis/queries';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';

const COUNT = 25_000;
const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const lines = ['IP Virtual Server version 1.2.1 (size=4096)', 'Prot LocalAddress:Port Scheduler Flags', '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn'];
for (let i = 0; i < COUNT; i++) lines.push(`TCP  ${address(i)}:80 rr`, `  -> 10.244.${(i >> 8) & 255}.${i & 255}:8080          Masq    1      0          0`);
const file = analyzeFile('node.ipvsadm', lines.join('\n') + '\n', 'ipvsadm')!;
const snapshot = buildSnapshot([file]);

describe('graph of a snapshot with more Services than the panel draws at once', () => {
  it('lists every Service, builds the first graphs and the others when asked', () => {
    const model = runSnapshotQuery(snapshot, 'graph', []);
    expect(model.services).toHaveLength(COUNT);
    expect(model.complete).toBe(false);
    expect(model.graphs.size).toBeLessThan(COUNT);
    const last = model.services[COUNT - 1];
    expect(model.graphs.has(last.key)).toBe(false);
    const [graph] = runSnapshotQuery(snapshot, 'serviceGraphs', [[last.key]]);
    expect(graph.key).toBe(last.key);
    expect(graph.title).toBe(last.title);
    expect(graph.nodes.some((n) => n.kind === 'pod')).toBe(true);
  });

  it('finds the Service a trace reaches among those not built yet', () => {
    const model = runSnapshotQuery(snapshot, 'graph', []);
    const target = COUNT - 3;
    const files: TraceFile[] = [{ name: 'node.ipvsadm', analysis: file.analysis as TraceFile['analysis'] }];
    const trace = traceSnapshot(files, { to: address(target), dport: 80, protocol: 'tcp', entry: 'pod' });
    const keys = runSnapshotQuery(snapshot, 'tracedServices', [trace, 20]);
    expect(keys).toHaveLength(1);
    expect(model.services.find((s) => s.key === keys[0])!.frontends.join(' ')).toContain(`${address(target)}:80`);
    expect(model.graphs.has(keys[0])).toBe(false);
  });
});
