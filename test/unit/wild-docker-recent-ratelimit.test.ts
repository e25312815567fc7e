// test/fixtures/wild/docker-recent-ratelimit.iptables: a Docker host whose admin rate-limits SSH and DNS with
// -m recent (see the fixture's header for its sources). It parses clean, and the trace reads the recent lists
// literally: no session-affinity story, the lists' history as conditions, Docker's published port unaffected.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, type Outcome, type SnapshotFile as TraceFile, type TraceRequest } from '../../src/core/trace';

const PATH = 'test/fixtures/wild/docker-recent-ratelimit.iptables';
const text = readFileSync(PATH, 'utf8');
const analysis = analyzeFile('docker.iptables', text)!.analysis as TraceFile['analysis'];
const trace = (request: Partial<TraceRequest>) =>
  traceSnapshot([{ name: 'docker.iptables', analysis }], { to: '192.0.2.10', dport: 22, protocol: 'tcp', from: '198.51.100.7', entry: 'external', nodeIPs: ['192.0.2.10'], ...request });
const summary = (outcomes: Outcome[]) => outcomes.map((o) => `${o.verdict}${o.destination ? ` ${o.destination}` : ''} [${o.assumptions.join('; ')}]`).sort();

/** Root with iptables-restore and network namespaces: the real tool judges the fixture. */
function canUseNetns(): boolean {
  try {
    return process.getuid?.() === 0 && execFileSync('sh', ['-c', 'command -v iptables-restore && command -v ip'], { encoding: 'utf8' }).length > 0;
  } catch {
    return false;
  }
}

describe('wild: a Docker host rate-limiting with -m recent', () => {
  it('parses clean', () => {
    const diagnostics = (analysis as { ruleset: { diagnostics: { severity: string }[] } }).ruleset.diagnostics;
    expect(diagnostics).toEqual([]);
  });

  it("SSH: dropped when the DEFAULT list (or the DNS limit's list) saw the client often enough, else accepted", () => {
    const r = trace({});
    expect(summary(r.outcomes)).toEqual([
      'accept [assuming recent list DEFAULT saw 198.51.100.7 fewer than 2 times in the last 60 s before this connection; assuming recent list dnsratelimit saw 198.51.100.7 fewer than 100 times in the last 10 s before this connection]',
      'drop [assuming recent list DEFAULT saw 198.51.100.7 at least 2 times in the last 60 s before this connection]',
      'drop [assuming recent list DEFAULT saw 198.51.100.7 fewer than 2 times in the last 60 s before this connection; assuming recent list dnsratelimit saw 198.51.100.7 at least 100 times in the last 10 s before this connection]',
    ]);
    for (const o of r.outcomes) expect(o.notes.join(' ')).not.toMatch(/affinity|endpoint it used before/);
  });

  it("DNS: this connection's --set counts, so 99 earlier ones in 10 s are enough to drop it", () => {
    expect(summary(trace({ dport: 53, protocol: 'udp' }).outcomes)).toEqual([
      'accept [assuming recent list dnsratelimit saw 198.51.100.7 fewer than 99 times in the last 10 s before this connection]',
      'drop [assuming recent list dnsratelimit saw 198.51.100.7 at least 99 times in the last 10 s before this connection]',
    ]);
  });

  it('the published container port goes to the container through FORWARD, which no recent list guards', () => {
    // The trace does not route: the output interface stays a condition (Docker accepts only what leaves through docker0).
    expect(summary(trace({ dport: 8080 }).outcomes)).toEqual(['dnat 172.17.0.2:80 [assuming the packet leaves through interface docker0]', 'drop [assuming the packet does not leave through interface docker0]']);
  });

  it.skipIf(!canUseNetns())('iptables-restore --test accepts it (in a throw-away namespace)', () => {
    const ns = `dpx-wild-${process.pid}`;
    execFileSync('ip', ['netns', 'add', ns]);
    try {
      execFileSync('ip', ['netns', 'exec', ns, 'iptables-restore', '--test'], { input: text });
    } finally {
      execFileSync('ip', ['netns', 'del', ns]);
    }
  });
});
