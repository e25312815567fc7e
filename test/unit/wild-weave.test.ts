// A Weave Net node (test/fixtures/wild/weave-node.iptables, built from weave's source: see its header). It must parse
// clean; the real iptables-restore (both backends) must accept it, checked in a throw-away network namespace when
// root; and a pod's DNS query to kube-dns must trace to a few outcomes, each under consistent conditions (the dumps
// cannot tell interfaces, bridge ports or ipset members), that give the right answer in the node's real situation.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';
import { traceSnapshot, type Condition, type Outcome, type TraceRequest } from '../../src/core/trace';
import { assumptionGroups, compatible, conditionsKey } from '../../src/core/trace/facts';

const TEXT = readFileSync(join(__dirname, '../fixtures/wild/weave-node.iptables'), 'utf8');
const analysis = analyzeIptables(TEXT);
const NODE_IP = '192.168.56.11';
const KUBE_DNS = { to: '10.96.0.10', dport: 53, protocol: 'udp' } as const;
const trace = (r: Partial<TraceRequest>) => traceSnapshot([{ name: 'weave-node.iptables', analysis }], { ...KUBE_DNS, entry: 'pod', nodeIPs: [NODE_IP], ...r });

// ipset names of the fixture (npc/shortname.go), by what they hold.
const SETS = {
  defaultEgress: 'weave-s_+ChJId4Uy_$}G;WdH|~TK)I',
  kubeSystemIngress: 'weave-P.B|!ZhkAr5q=XZ?3}tMBA+0',
  shopEgress: 'weave-Ns~KmgQVxRxQb(v%tVk2a_pBN',
  shopWeb: 'weave-x9/=nZO(O}+NB|[]+G3r;#e(1',
};
// Each option of a match is one fact: the packet is bridged, but not from or to the router's port vethwe-bridge.
const PHYSDEV: Record<string, boolean> = {
  '-m physdev --physdev-in vethwe-bridge': false,
  '-m physdev --physdev-out vethwe-bridge': false,
  '-m physdev --physdev-is-bridged': true,
};

/**
 * A packet's real situation on the node: a local pod's packet arrives on the bridge `weave` from the pod's own veth
 * (not from the router's port vethwe-bridge) and, to a local pod, leaves through `weave` to that pod's veth; `members`
 * are the ipset memberships (set and direction) that hold; every other ipset does not hold the packet.
 */
function holds(c: Condition, members: string[]): boolean {
  if (c.iface) {
    const names = c.iface.anyOf ?? [c.iface.name];
    return names.some((n) => (/[+*]$/.test(n) ? 'weave'.startsWith(n.slice(0, -1)) : n === 'weave')) === c.holds;
  }
  const physdev = Object.keys(PHYSDEV).find((k) => c.key.endsWith(k));
  if (physdev) return c.holds === PHYSDEV[physdev];
  const set = /^ipset (\S+) (src|dst)$/.exec(c.key);
  if (!set) throw new Error(`a condition this test does not know: ${c.key}`);
  return members.includes(`${set[1]} ${set[2]}`) === c.holds;
}

const inSituation = (outcomes: Outcome[], members: string[]) => outcomes.filter((o) => o.conditions.every((c) => holds(c, members)));
const summary = (outcomes: Outcome[]) => outcomes.map((o) => `${o.probability.toFixed(2)} ${o.verdict}${o.destination ? ` ${o.destination}` : ''}${o.masquerade ? ' masq' : ''}`).sort();

describe('wild: Weave Net node (kube-proxy iptables mode + weave-npc)', () => {
  it('parses without a diagnostic (WEAVE-CANARY is a canary, not a stale chain), and finds the Services', () => {
    expect(analysis.diagnostics.map((d) => `${d.severity} ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
    const names = analysis.catalog.services.map((s) => `${s.namespace}/${s.name}`);
    expect(new Set(names)).toEqual(new Set(['default/kubernetes', 'kube-system/kube-dns', 'shop/web', 'shop/db']));
  });

  it('a pod asking kube-dns (UDP 53) gets a small set of outcomes, each under consistent conditions', () => {
    const r = trace({ from: '10.32.0.5' });
    console.log(
      `[wild-weave] pod → kube-dns 10.96.0.10:53/udp: ${r.outcomes.length} outcomes (${r.outcomes.filter((o) => o.verdict === 'drop').length} DROP), ${new Set(r.outcomes.map((o) => conditionsKey(o.conditions))).size} condition sets`,
    );
    expect(r.outcomes.length).toBeGreaterThan(1);
    // Each physdev option and each ipset is its own fact (about 280 outcomes): far from the 1,444 of deciding each
    // rule anew, and bounded so that a return to that shows.
    expect(r.outcomes.length).toBeLessThanOrEqual(320);
    const seen = new Set<string>();
    for (const o of r.outcomes) {
      // A condition and its negation never in one outcome; interface names that one packet can have.
      expect(compatible(o.conditions, o.conditions), o.assumptions.join('; ')).toBe(true);
      expect(new Set(o.conditions.map((c) => c.key)).size).toBe(o.conditions.length);
      // Outcomes alike under the same conditions are one.
      const key = `${o.verdict} ${o.destination ?? ''} ${o.masquerade} ${conditionsKey(o.conditions)}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      // Only kube-proxy's statistic splits shares; a DROP is whole under the conditions that explain it.
      expect([0.5, 1]).toContain(Number(o.probability.toFixed(6)));
      if (o.verdict !== 'dnat') expect(o.conditions.length, 'a DROP here needs a reason the dump cannot decide').toBeGreaterThan(0);
    }
    for (const group of assumptionGroups(r.outcomes)) {
      expect(group.reduce((s, i) => s + r.outcomes[i]!.probability, 0)).toBeCloseTo(1, 9);
    }
  });

  it('in the node’s real situation the DNS query reaches either coredns pod, and the web pod’s egress policy drops metrics', () => {
    // A pod of namespace default (no policy: in its namespace's egress default-allow set) to coredns (kube-system).
    const fromDefault = inSituation(trace({ from: '10.32.0.5' }).outcomes, [`${SETS.defaultEgress} src`, `${SETS.kubeSystemIngress} dst`]);
    expect(summary(fromDefault)).toEqual(['0.50 dnat 10.32.0.2:53', '0.50 dnat 10.32.0.3:53']);
    // shop's web pod is selected by an egress policy that lets DNS through (WEAVE-NPC-EGRESS-CUSTOM).
    const web = [`${SETS.shopWeb} src`, `${SETS.kubeSystemIngress} dst`];
    expect(summary(inSituation(trace({ from: '10.32.0.4' }).outcomes, web))).toEqual(['0.50 dnat 10.32.0.2:53', '0.50 dnat 10.32.0.3:53']);
    // … but not coredns' metrics port: NFLOG, then DROP at the end of WEAVE-NPC-EGRESS.
    const metrics = inSituation(trace({ from: '10.32.0.4', dport: 9153, protocol: 'tcp' }).outcomes, web);
    expect(summary(metrics)).toEqual(['1.00 drop']);
  });

  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const have = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
  const tools = ['iptables-legacy-restore', 'iptables-nft-restore'].filter(have);
  it.skipIf(!root || !have('ip') || !have('ipset') || tools.length === 0)('the real iptables-restore --test accepts it (each backend there is, throw-away namespace)', () => {
    const ns = `dpw-${process.pid}`;
    const run = (args: string[], input?: string) => spawnSync('ip', ['netns', 'exec', ns, ...args], { input, encoding: 'utf8', timeout: 30_000 });
    expect(spawnSync('ip', ['netns', 'add', ns]).status).toBe(0);
    try {
      // -m set needs its sets, -m nfacct its objects (kube-proxy's), in the namespace that checks the rules.
      const sets = new Set([...TEXT.matchAll(/--match-set (\S+) /g)].map((m) => m[1]!));
      for (const s of sets) expect(run(['ipset', 'create', s, s === 'weaver-no-masq-local' ? 'hash:net' : 'hash:ip']).status, s).toBe(0);
      const nfacct = have('nfacct');
      for (const o of nfacct ? ['ct_state_invalid_dropped_pkts', 'localhost_nps_accepted_pkts'] : []) run(['nfacct', 'add', o]);
      const text = nfacct ? TEXT : TEXT.replace(/ -m nfacct --nfacct-name +\S+/g, '');
      for (const tool of tools) {
        const r = run([tool, '--test'], text);
        expect(`${tool}: ${r.status} ${r.stderr}`).toBe(`${tool}: 0 `);
      }
    } finally {
      spawnSync('ip', ['netns', 'delete', ns]);
    }
  });
});
