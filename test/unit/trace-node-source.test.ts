// A process on the node gets the source address the kernel's route lookup picks (checked in a throw-away namespace:
// `ip route get` to an address bound on the node answers `local … dev lo src <that address>`, to anything else the
// route's source, the node's address), not 127.0.0.1. The node's address is given (--node-ip), configured
// (dataplane.nodeIPs) or inferred where a dump names it (nft's nodeport-ips set, IPVS NodePort virtual services,
// kube-proxy's `--nodeport-addresses` rules `-A KUBE-SERVICES -d NODE/32 … -j KUBE-NODEPORTS`); else a stand-in,
// with a warning. Samples: samples/iptables-nft, samples/nftables, samples/ipvs (kube-proxy's three modes).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { analyzeFile } from '../../src/core/snapshot';
import { traceSnapshot, traceToJson, type SnapshotFile as TraceFile, type TraceRequest } from '../../src/core/trace';

const sample = (path: string) => readFileSync(`samples/${path}`, 'utf8');
const snapshot = (entries: [string, string][]): TraceFile[] => entries.map(([name, text]) => ({ name, analysis: analyzeFile(name, text)!.analysis as TraceFile['analysis'] }));
const IPT = (): [string, string][] => [['node1.iptables', sample('iptables-nft/node1.iptables')]];
const NFT = (): [string, string][] => [['node1.nft', sample('nftables/node1.nft')]];
const IPVS = (): [string, string][] => ['node1.ipvsadm', 'node1.ipset', 'node1.iptables'].map((n) => [n, sample(`ipvs/${n}`)]);
const web = (files: TraceFile[], request: Partial<TraceRequest> = {}) => traceSnapshot(files, { to: '10.96.12.40', dport: 80, protocol: 'tcp', entry: 'node', ...request });

describe('the source of a packet from this node', () => {
  it('with no node address anywhere: a stand-in (not 127.0.0.1), a warning, origin unknown', () => {
    const r = web(snapshot(IPT()));
    expect(r.packet.src).toBe('192.0.2.1');
    expect(r.source?.origin).toBe('stand-in');
    expect(r.warnings.join(' ')).toMatch(/stand-in for this node's address/);
    const json = traceToJson(r, ['node1.iptables']) as { nodeIPs: { origin: string }; source: { origin: string } };
    expect(json.nodeIPs.origin).toBe('unknown');
    expect(json.source.origin).toBe('stand-in');
    // Outside the cluster CIDR the rules masquerade it, as they would the node's address.
    expect(r.outcomes.every((o) => o.masquerade)).toBe(true);
  });

  it('given: the node address is the source, and masquerade depends on it (KUBE-MARK-MASQ for ! -s 10.0.0.0/8)', () => {
    const outside = web(snapshot(IPT()), { nodeIPs: ['192.168.0.10'] });
    expect(outside.packet.src).toBe('192.168.0.10');
    expect(outside.source?.text).toMatch(/as given/);
    expect(outside.outcomes.every((o) => o.masquerade)).toBe(true);
    const inside = web(snapshot(IPT()), { nodeIPs: ['10.1.2.3'] });
    expect(inside.outcomes.some((o) => o.masquerade)).toBe(false);
    expect((traceToJson(inside, []) as { nodeIPs: unknown }).nodeIPs).toEqual({ addresses: ['10.1.2.3'], origin: 'given' });
  });

  it('configured: said so', () => {
    const r = web(snapshot(IPT()), { nodeIPs: ['192.168.0.10'], nodeIPsOrigin: 'configured' });
    expect(r.source?.text).toMatch(/dataplane\.nodeIPs/);
    expect((traceToJson(r, []) as { nodeIPs: { origin: string } }).nodeIPs.origin).toBe('configured');
  });

  it("inferred from kube-proxy's --nodeport-addresses rule in KUBE-SERVICES", () => {
    const text = sample('iptables-nft/node1.iptables').replace(
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
      '-A KUBE-SERVICES -d 192.168.0.10/32 -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -j KUBE-NODEPORTS',
    );
    const r = web(snapshot([['node1.iptables', text]]));
    expect(r.packet.src).toBe('192.168.0.10');
    expect(r.context.nodeIPsOrigin).toBe('inferred');
    expect(r.source?.text).toMatch(/inferred from KUBE-SERVICES rules that send 192\.168\.0\.10 to KUBE-NODEPORTS/);
  });

  it("inferred from nft's nodeport-ips set", () => {
    const r = web(snapshot(NFT()));
    expect(r.packet.src).not.toBe('127.0.0.1');
    expect(r.context.nodeIPsOrigin).toBe('inferred');
    expect(r.context.nodeIPsEvidence).toMatch(/nodeport-ips/);
    expect((traceToJson(r, []) as { nodeIPs: { evidence: string } }).nodeIPs.evidence).toMatch(/nodeport-ips/);
  });

  it('IPVS: a ClusterIP is bound on the node (kube-ipvs0), so its local route gives the ClusterIP itself as the source', () => {
    const r = web(snapshot(IPVS()));
    expect(r.packet.src).toBe('10.96.12.40');
    expect(r.source?.origin).toBe('local-destination');
  });

  it('a loopback destination keeps 127.0.0.1; REDIRECT from the node goes to loopback', () => {
    const text = ['*nat', ':OUTPUT ACCEPT [0:0]', '-A OUTPUT -p tcp -m tcp --dport 2222 -j REDIRECT --to-ports 22', 'COMMIT', ''].join('\n');
    const loop = traceSnapshot(snapshot([['n.iptables', text]]), { to: '127.0.0.1', dport: 2222, protocol: 'tcp', entry: 'node', nodeIPs: ['192.168.0.10'] });
    expect(loop.packet.src).toBe('127.0.0.1');
    expect(loop.source?.origin).toBe('loopback');
    const away = traceSnapshot(snapshot([['n.iptables', text]]), { to: '198.51.100.1', dport: 2222, protocol: 'tcp', entry: 'node', nodeIPs: ['192.168.0.10'] });
    expect(away.outcomes.map((o) => o.destination)).toEqual(['127.0.0.1:22']);
  });

  it('the CLI text says where the source comes from', () => {
    const dir = 'samples/iptables-nft/node1.iptables';
    const lines: string[] = [];
    const errors: string[] = [];
    expect(
      run(
        ['trace', dir, '--to', '10.96.12.40:80', '--entry', 'node', '--node-ip', '192.168.0.10'],
        (s) => lines.push(s),
        (s) => errors.push(s),
      ),
    ).toBe(0);
    expect(lines.join('\n')).toMatch(/tcp 192\.168\.0\.10 → 10\.96\.12\.40:80[^\n]*\n\s+Source 192\.168\.0\.10: this node's address, as given/);
  });
});
