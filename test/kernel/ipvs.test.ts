// Kernel differential test of kube-proxy's IPVS mode: a virtual service is programmed with ipvsadm in the node
// namespace of a throw-away topology (lib/topology.ts) the way kube-proxy programs one (the ClusterIP bound to the
// dummy interface kube-ipvs0, a masquerading real server per endpoint, `rr`), real TCP connections go from a client
// pod to the ClusterIP, and the endpoints that answered are compared with traceSnapshot() on what `ipvsadm -Ln`
// and iptables-save print back from the namespace.
//
// Needs root, `ip netns`, ipvsadm and IPVS in the kernel (/proc/net/ip_vs inside a namespace, after `modprobe
// ip_vs` where modprobe exists); skipped with the reason otherwise. Nothing is done in the root namespace.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';
import { analyzeIpvsadm } from '../../src/core/language/ipvsadm';
import { traceSnapshot, type SnapshotFile } from '../../src/core/trace';
import { attemptKey, describeCounts, describeTrace, judge, predicted, tally } from './lib/compare';
import { deleteAllSync, installExitCleanup, nsExec, PREFIX } from './lib/netns';
import { stopAllDaemons } from './lib/proc';
import { ANSWER_GRACE_MS, TIMEOUT_MS } from './lib/timing';
import { unconfirmedTimeouts } from './lib/counters';
import { NODE_ADDRESSES, Topology, type Attempt } from './lib/topology';

const VIP = '10.96.0.50';
const PORTS = { service: 80, target: 8080 };
const PODS = ['10.244.1.1', '10.244.1.2', '10.244.2.1'];
const N = 300;

/** Why this machine cannot run the test (every reason), or undefined. */
function ipvsUnavailable(): string | undefined {
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const have = (tool: string) => {
    try {
      run('sh', ['-c', `command -v ${tool}`]);
      return true;
    } catch {
      return false;
    }
  };
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  if (!have('ip')) return 'needs ip (Debian package iproute2)';
  const reasons: string[] = [];
  const ns = `${PREFIX}ipvs-probe`;
  try {
    run('ip', ['netns', 'add', ns]);
    // Loading the module is global, not a firewall change; where modprobe is missing, the kernel may have it built in.
    run('ip', ['netns', 'exec', ns, 'sh', '-c', 'command -v modprobe >/dev/null && modprobe ip_vs; test -e /proc/net/ip_vs']);
  } catch {
    reasons.push(`the kernel has no IPVS (/proc/net/ip_vs is missing in a new namespace${have('modprobe') ? ' after modprobe ip_vs' : '; no modprobe'})`);
  } finally {
    try {
      run('ip', ['netns', 'del', ns]);
    } catch {
      // not created
    }
  }
  for (const [tool, pkg] of [
    ['ipvsadm', 'ipvsadm'],
    ['iptables-nft-save', 'iptables'],
  ])
    if (!have(tool)) reasons.push(`needs ${tool} (Debian package ${pkg})`);
  return reasons.length ? reasons.join('; ') : undefined;
}

const skip = ipvsUnavailable();

if (skip) {
  describe('IPVS kernel differential test', () => {
    it.skip(`skipped: ${skip}`, () => {});
  });
} else {
  describe('IPVS kernel differential test: ClusterIP virtual service, rr, masquerading real servers', () => {
    let topo: Topology | undefined;
    let files: SnapshotFile[] = [];
    beforeAll(async () => {
      installExitCleanup();
      topo = await Topology.create({
        id: 'ipvs',
        dump: '',
        pods: PODS.map((address, i) => ({ name: `pod${i}`, address, tcp: [PORTS.target], udp: [] })),
        outside: { tcp: [PORTS.service], udp: [] },
        load: async (node) => {
          const commands = [`-A -t ${VIP}:${PORTS.service} -s rr`, ...PODS.map((p) => `-a -t ${VIP}:${PORTS.service} -r ${p}:${PORTS.target} -m -w 1`)];
          await nsExec(node, 'sh', ['-c', `ip link add kube-ipvs0 type dummy && ip addr add ${VIP}/32 dev kube-ipvs0`]);
          await nsExec(node, 'ipvsadm', ['-R'], { input: commands.join('\n') + '\n' });
          const listing = (await nsExec(node, 'ipvsadm', ['-Ln'])).stdout;
          return { loaded: commands.join('\n'), saved: listing };
        },
      });
      const iptables = (await nsExec(topo.node, 'iptables-nft-save', [])).stdout;
      files = [
        { name: 'ipvsadm -Ln', analysis: analyzeIpvsadm(topo.savedDump) },
        { name: 'iptables-save', analysis: analyzeIptables(iptables) },
      ];
    });
    afterAll(async () => {
      await topo?.destroy();
      stopAllDaemons();
      deleteAllSync();
    });

    it('ipvsadm -Ln lists the virtual service and its three real servers without problems', () => {
      const a = files[0]!.analysis as ReturnType<typeof analyzeIpvsadm>;
      expect(a.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(a.dump.services.map((s) => s.realServers.length)).toEqual([PODS.length]);
    });

    it(`${N} connections from a pod reach the endpoints the tracer predicts, in its proportions`, async () => {
      const t = topo!;
      const trace = traceSnapshot(files, { to: VIP, dport: PORTS.service, protocol: 'tcp', entry: 'pod', nodeIPs: [...NODE_ADDRESSES] });
      const pred = predicted(trace);
      const ns = t.originNs({ kind: 'client' });
      const attempts: Attempt[] = t.ports(ns, N).map((sport) => ({ sport }));
      const { results, counted } = await t.request({ kind: 'client' }, { protocol: 'tcp', to: VIP, port: PORTS.service, attempts, concurrency: 32, timeoutMs: TIMEOUT_MS, answerGraceMs: ANSWER_GRACE_MS });
      expect(unconfirmedTimeouts(trace, results, counted), 'pod to VIP: timeouts the rule counters confirm').toEqual([]);
      const observed = tally(results.map(attemptKey));
      const v = judge(pred, observed, 1e-6);
      expect(v.ok, ['tracer and kernel disagree', ...v.problems, 'trace:', describeTrace(trace), 'kernel:', describeCounts(observed)].join('\n')).toBe(true);
    });
  });
}
