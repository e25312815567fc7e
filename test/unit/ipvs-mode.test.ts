// Which kube-proxy mode a node runs, decided by what KUBE-SERVICES dispatches to, with the other mode's rules
// reported as leftovers; IPVS virtual services on node addresses as (probable) NodePorts; kube-proxy's ipset
// memberships inferred from the IPVS table when there is no ipset dump.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { kubeProxyLeftoversOfIptables, kubeProxyModeOfIptables } from '../../src/core/detect';
import { explainNode } from '../../src/core/explain/node';
import { analyzeIpvsadm, hoverAt } from '../../src/core/language/ipvsadm';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { traceSnapshot, type SnapshotFile as TraceFile } from '../../src/core/trace';

const read = (path: string) => readFileSync(path, 'utf8');

function snapshot(named: Record<string, string>) {
  const files = Object.entries(named).map(([name, text]) => analyzeFile(name, text)!);
  return buildSnapshot(files);
}

function cli(args: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = run(
    args,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function trace(files: SnapshotFile[], to: string, dport: number, entry: 'pod' | 'node' | 'external', extra: { from?: string; nodeIPs?: string[] } = {}) {
  const traceFiles: TraceFile[] = files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));
  return traceSnapshot(traceFiles, { to, dport, protocol: 'tcp', entry, ...extra });
}

// kube-proxy in IPVS mode after iptables mode: KUBE-SERVICES matches its ipsets only, the KUBE-SVC/SEP chains of
// iptables mode are still there and nothing jumps to them.
const IPVS_WITH_LEFTOVERS = `*nat
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-SEP-AAAAAAAAAAAAAAAA - [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-AAAAAAAAAAAAAAAA - [0:0]
:KUBE-SVC-BBBBBBBBBBBBBBBB - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000
-A KUBE-NODEPORTS -p tcp -m comment --comment "default/web:http" -m tcp --dport 30080 -j KUBE-SVC-AAAAAAAAAAAAAAAA
-A KUBE-SEP-AAAAAAAAAAAAAAAA -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination 10.244.0.4:8080
-A KUBE-SERVICES ! -s 10.244.0.0/16 -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT
-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT
-A KUBE-SVC-AAAAAAAAAAAAAAAA -m comment --comment "default/web:http -> 10.244.0.4:8080" -j KUBE-SEP-AAAAAAAAAAAAAAAA
-A KUBE-SVC-BBBBBBBBBBBBBBBB -m comment --comment "default/api:http -> 10.244.0.6:80" -j KUBE-SEP-AAAAAAAAAAAAAAAA
COMMIT
`;

const CLUSTER_IP_SETS = `create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536
add KUBE-CLUSTER-IP 10.96.0.10,udp:53
create KUBE-LOOP-BACK hash:ip,port,ip family inet hashsize 1024 maxelem 65536
create KUBE-NODE-PORT-TCP bitmap:port range 0-65535
`;

describe('kube-proxy mode from what KUBE-SERVICES dispatches to', () => {
  it('IPVS mode with iptables-mode leftovers is IPVS mode, and the KUBE-SVC chains are leftovers nothing jumps to', () => {
    const ruleset = parseIptables(IPVS_WITH_LEFTOVERS);
    expect(kubeProxyModeOfIptables(ruleset)).toEqual({ mode: 'ipvs', evidence: 'KUBE-CLUSTER-IP' });
    const left = kubeProxyLeftoversOfIptables(ruleset, 'ipvs')!;
    expect(left.of).toBe('iptables');
    expect(left.serviceChains).toBe(2);
    expect(left.chains.map((c) => c.name).sort()).toEqual(['KUBE-NODEPORTS', 'KUBE-SEP-AAAAAAAAAAAAAAAA', 'KUBE-SVC-AAAAAAAAAAAAAAAA', 'KUBE-SVC-BBBBBBBBBBBBBBBB']);
    expect(left.reached).toEqual([]);

    const snap = snapshot({ 'n/node.iptables': IPVS_WITH_LEFTOVERS });
    expect(snap.mode).toBe('ipvs');
    expect(snap.leftovers).toHaveLength(1);
    const e = explainNode(snap);
    expect(e.mode).toBe('ipvs');
    expect(e.headline).toContain('IPVS mode');
    const leftovers = e.sections.find((s) => s.id === 'leftovers')!;
    expect(leftovers.items[0].text).toContain('2 KUBE-SVC chains (and 2 other iptables-mode chains) are leftovers from iptables mode: nothing jumps to them');
    expect(leftovers.items[0].evidence[0].quote).toContain('KUBE-SVC-AAAAAAAAAAAAAAAA');
  });

  it('services says IPVS mode and lists the leftovers, in text and JSON', () => {
    const dir = `${__dirname}/../fixtures/wild`;
    const text = cli(['services', `${dir}/ipvs-leftovers.iptables`, `${dir}/ipvs-leftovers.ipvsadm`, `${dir}/ipvs-leftovers.ipset`]);
    expect(text.out).toMatch(
      /^kube-proxy mode: ipvs\nleftovers: 5 KUBE-SVC chains \(and 13 other iptables-mode chains\) are leftovers from iptables mode: nothing jumps to the KUBE-SVC chains, but filter\/KUBE-EXTERNAL-SERVICES, filter\/KUBE-NODEPORTS, filter\/KUBE-SERVICES are still jumped to/,
    );
    const json = JSON.parse(cli(['services', '--json', `${dir}/ipvs-leftovers.iptables`, `${dir}/ipvs-leftovers.ipvsadm`]).out);
    expect(json.mode).toBe('ipvs');
    expect(json.leftovers).toEqual([{ mode: 'iptables', file: `${dir}/ipvs-leftovers.iptables`, note: expect.stringContaining('5 KUBE-SVC chains') }]);
  });

  it('iptables mode with IPVS-mode leftovers: the KUBE-SVC jumps decide, and the IPVS filter chain still jumped to is said to be', () => {
    const text = `*filter
:INPUT ACCEPT [0:0]
:KUBE-IPVS-FILTER - [0:0]
-A INPUT -m comment --comment "kubernetes ipvs access filter" -j KUBE-IPVS-FILTER
-A KUBE-IPVS-FILTER -m set --match-set KUBE-CLUSTER-IP dst,dst -j RETURN
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:KUBE-LOAD-BALANCER - [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-AAAAAAAAAAAAAAAA - [0:0]
-A PREROUTING -j KUBE-SERVICES
-A KUBE-SERVICES -d 10.96.0.5/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-AAAAAAAAAAAAAAAA
COMMIT
`;
    const ruleset = parseIptables(text);
    expect(kubeProxyModeOfIptables(ruleset).mode).toBe('iptables');
    const snap = snapshot({ 'n/node.iptables': text, 'n/node.ipset': CLUSTER_IP_SETS });
    expect(snap.mode).toBe('iptables');
    expect(snap.leftovers.map((l) => l.of)).toEqual(['ipvs', 'ipvs']);
    const e = explainNode(snap);
    const items = e.sections.find((s) => s.id === 'leftovers')!.items.map((i) => i.text);
    expect(items).toContain("2 IPVS-mode chains and 1 rules matching kube-proxy's ipsets are leftovers from IPVS mode; filter/KUBE-IPVS-FILTER are still jumped to and may still filter packets.");
    expect(items).toContain("3 of kube-proxy's IPVS-mode ipsets are leftovers from IPVS mode.");
  });

  it('nftables mode with iptables-mode rules beside it: those Services are marked as leftovers, still hooked', () => {
    const snap = snapshot({ 'n/node.nft': read('samples/nftables/node1.nft'), 'n/node.iptables': read('samples/iptables-nft/node1.iptables') });
    expect(snap.mode).toBe('nftables');
    expect(snap.leftovers).toHaveLength(1);
    expect(snap.leftovers[0].chains!.reachedServiceChains).toBeGreaterThan(0);
    const json = JSON.parse(cli(['services', '--json', 'samples/nftables/node1.nft', 'samples/iptables-nft/node1.iptables']).out);
    expect(json.mode).toBe('nftables');
    expect(json.leftovers[0].note).toMatch(/KUBE-SVC chains .* are iptables-mode rules beside the current mode, still jumped to \(nat\/KUBE-SVC-/);
    const byLeftover = new Set(json.services.map((s: { leftover?: boolean }) => Boolean(s.leftover)));
    expect(byLeftover).toEqual(new Set([true, false]));
  });

  it('kube-proxy\'s ipsets alone mean IPVS mode, not "no kube-proxy rules"', () => {
    const snap = snapshot({ 'n/node.ipset': CLUSTER_IP_SETS });
    expect(snap.mode).toBe('ipvs');
    const e = explainNode(snap);
    expect(e.mode).toBe('ipvs');
    expect(e.headline).toContain('IPVS mode');
    expect(cli(['services', 'samples/ipvs/node1.ipset']).out).toContain('kube-proxy mode: ipvs');
    // And beside kubelet's chains only (what an IPVS node's iptables dump without kube-proxy's rules shows).
    const kubelet = '*mangle\n:KUBE-KUBELET-CANARY - [0:0]\nCOMMIT\n';
    expect(snapshot({ 'n/node.iptables': kubelet, 'n/node.ipset': CLUSTER_IP_SETS }).mode).toBe('ipvs');
  });

  it('the modes of the samples stay as they were', () => {
    expect(kubeProxyModeOfIptables(parseIptables(read('samples/iptables-nft/node1.iptables'))).mode).toBe('iptables');
    expect(kubeProxyModeOfIptables(parseIptables(read('samples/iptables-legacy/node1.iptables'))).mode).toBe('iptables');
    expect(kubeProxyModeOfIptables(parseIptables(read('samples/ipvs/node1.iptables'))).mode).toBe('ipvs');
    expect(snapshot({ 'n/node.iptables': read('samples/ipvs/node1.iptables'), 'n/node.ipvsadm': read('samples/ipvs/node1.ipvsadm') }).leftovers).toEqual([]);
  });
});

// The NodePort of the brief's example: the same port on loopback and two node addresses.
const NODE_PORT_IPVS = `IP Virtual Server version 1.2.1 (size=4096)
Prot LocalAddress:Port Scheduler Flags
  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn
TCP  127.0.0.1:30080 rr
  -> 10.244.0.5:8080              Masq    1      0          0
TCP  10.0.0.4:30080 rr
  -> 10.244.0.5:8080              Masq    1      0          0
TCP  172.17.0.1:30080 rr
  -> 10.244.0.5:8080              Masq    1      0          0
TCP  10.96.7.7:80 rr
  -> 10.244.0.5:8080              Masq    1      0          0
TCP  10.96.8.8:30081 rr
  -> 10.244.0.9:8080              Masq    1      0          0
`;

describe('IPVS virtual services on node addresses are NodePorts', () => {
  it('without ipsets: probably NodePorts, joined to their ClusterIP, and the JSON says it is a guess and why', () => {
    const json = JSON.parse(cli(['services', '--json', ...writeTemp('np.ipvsadm', NODE_PORT_IPVS)]).out);
    const web = json.services.find((s: { frontends: { address: string }[] }) => s.frontends.some((f) => f.address === '10.96.7.7'));
    expect(web.frontends).toEqual([
      { kind: 'clusterIP', address: '10.96.7.7', port: 80, uncertain: true, why: expect.stringContaining('probably a ClusterIP') },
      { kind: 'nodePort', address: '10.0.0.4', port: 30080, uncertain: true, why: 'probably a NodePort: the same port on 3 node addresses' },
      { kind: 'nodePort', address: '127.0.0.1', port: 30080, uncertain: true, why: expect.stringContaining('probably a NodePort: a loopback address') },
      { kind: 'nodePort', address: '172.17.0.1', port: 30080, uncertain: true, why: 'probably a NodePort: the same port on 3 node addresses' },
    ]);
    // A NodePort-range port on one address only is no reason to call it a NodePort.
    const lone = json.services.find((s: { frontends: { address: string }[] }) => s.frontends.some((f) => f.address === '10.96.8.8'));
    expect(lone.frontends[0].kind).toBe('clusterIP');
  });

  it("with kube-proxy's ipsets the kinds are certain", () => {
    const sets = 'create KUBE-CLUSTER-IP hash:ip,port family inet\nadd KUBE-CLUSTER-IP 10.96.7.7,tcp:80\ncreate KUBE-NODE-PORT-TCP bitmap:port range 0-65535\nadd KUBE-NODE-PORT-TCP 30080\n';
    const json = JSON.parse(cli(['services', '--json', ...writeTemp('np.ipvsadm', NODE_PORT_IPVS), ...writeTemp('np.ipset', sets)]).out);
    const web = json.services.find((s: { frontends: { address: string }[] }) => s.frontends.some((f) => f.address === '10.96.7.7'));
    expect(web.frontends.map((f: { kind: string; uncertain?: boolean }) => `${f.kind}${f.uncertain ? '?' : ''}`)).toEqual(['clusterIP', 'nodePort', 'nodePort', 'nodePort']);
  });

  it('the virtual service hover says it is probably a NodePort, as a guess', () => {
    const a = analyzeIpvsadm(NODE_PORT_IPVS);
    const line = NODE_PORT_IPVS.split('\n').findIndex((l) => l.startsWith('TCP  172.17.0.1:30080'));
    const hover = hoverAt(a, { line, character: 6 })!.markdown;
    expect(hover).toContain('probably a NodePort: the same port on 3 node addresses');
    expect(hover).toContain('IPVS keeps no Service kinds');
    const cluster = NODE_PORT_IPVS.split('\n').findIndex((l) => l.startsWith('TCP  10.96.7.7:80'));
    expect(hoverAt(a, { line: cluster, character: 6 })!.markdown).not.toContain('NodePort');
  });
});

describe("kube-proxy's ipset memberships inferred from the IPVS table", () => {
  const files = (withSets: boolean) => ['samples/ipvs/node1.iptables', 'samples/ipvs/node1.ipvsadm', ...(withSets ? ['samples/ipvs/node1.ipset'] : [])].map((f) => analyzeFile(f, read(f))!);
  const summary = (r: ReturnType<typeof trace>) => r.outcomes.map((o) => `${o.verdict} ${o.destination ?? ''} ${o.probability.toFixed(4)}${o.masquerade ? ' masq' : ''} [${o.assumptions.join('; ')}]`).sort();

  // Before: 76 (pod), 38 (node) and 73 (outside) outcomes, each ipset of kube-proxy an unknown condition.
  it.each([
    ['10.96.12.40', 80, 'pod'],
    ['10.96.12.40', 80, 'external'],
    ['192.168.0.10', 30080, 'external'],
    ['10.96.0.10', 53, 'pod'],
    ['10.96.12.42', 443, 'pod'],
  ] as const)('%s:%i from %s: the same outcomes as with the ipset dump, and a warning that they were inferred', (to, port, entry) => {
    const extra = { nodeIPs: ['192.168.0.10'] };
    const inferred = trace(files(false), to, port, entry, extra);
    const known = trace(files(true), to, port, entry, extra);
    expect(summary(inferred)).toEqual(summary(known));
    expect(inferred.outcomes.length).toBeLessThanOrEqual(3);
    expect(inferred.warnings.join('\n')).toContain("No ipset dump: membership of kube-proxy's ipsets was inferred from the IPVS virtual services");
    expect(known.warnings.join('\n')).not.toContain('inferred');
  });

  it('a set the IPVS table says nothing about stays a condition', () => {
    // Port 81 of a ClusterIP address: KUBE-HEALTH-CHECK-NODE-PORT and the -LOCAL sets are not in the IPVS table.
    const r = trace(files(false), '10.96.12.40', 81, 'pod');
    const conditions = new Set(r.outcomes.flatMap((o) => o.conditions.map((c) => c.key)));
    expect([...conditions].some((k) => /KUBE-HEALTH-CHECK-NODE-PORT|KUBE-EXTERNAL-IP-LOCAL/.test(k))).toBe(true);
    expect([...conditions].some((k) => /KUBE-CLUSTER-IP|KUBE-IPVS-IPS/.test(k))).toBe(false);
  });
});

function writeTemp(name: string, text: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'ipvs-mode-'));
  writeFileSync(`${dir}/${name}`, text);
  return [`${dir}/${name}`];
}

describe('KUBE-FIREWALL by table', () => {
  it('the filter table’s is kubelet’s; the nat table’s alone (IPVS source ranges) is not evidence of kubelet', () => {
    const dump = (table: string) => `*${table}\n:KUBE-FIREWALL - [0:0]\nCOMMIT\n`;
    expect(kubeProxyModeOfIptables(parseIptables(dump('filter')))).toEqual({ mode: 'nftables-or-none', evidence: 'KUBE-FIREWALL' });
    expect(kubeProxyModeOfIptables(parseIptables(dump('nat')))).toEqual({ mode: 'none', evidence: '' });
  });
});
