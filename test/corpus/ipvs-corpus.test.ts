// Every `ipvsadm -Ln` output of ../shared/corpus/ipvs (Kubernetes' IPVS README, the kubernetes.io blog post,
// kube-router's docs and a terminal paste from a kube-proxy IPVS node) parses; the `# source:` line that the
// corpus adds gets a diagnostic and changes nothing else; a few services and real servers checked by hand.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeIpvsadm } from '../../src/core/language/ipvsadm';
import { realServerLabel, weightShares, type IpvsDump } from '../../src/core/model/ipvs';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

const DIR = join(CORPUS, 'ipvs');

function files(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => statSync(join(dir, f)).isFile() && !f.endsWith('.md') && !f.endsWith('.tsv'))
    .sort();
}

function shape(d: IpvsDump) {
  return d.services.map((s) => ({
    name: s.name,
    scheduler: s.scheduler,
    persistent: s.persistent && { timeout: s.persistent.timeout, netmask: s.persistent.netmask },
    servers: s.realServers.map((r) => `${realServerLabel(r)} ${r.forward} w${r.weight} ${r.activeConn}/${r.inactConn}`),
  }));
}

describe.skipIf(!HAVE_CORPUS)(`ipvsadm corpus (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  if (!HAVE_CORPUS) return;
  const names = files(DIR);
  const read = (name: string, pristine = false) => readFileSync(join(DIR, pristine ? 'pristine' : '', name), 'utf8');
  const byName = (part: string) => {
    const name = names.find((n) => n.includes(part));
    if (!name) throw new Error(`no corpus file matching ${part}`);
    return analyzeIpvsadm(read(name)).dump;
  };

  it('has the six ipvsadm outputs, each with a pristine twin', () => {
    expect(names).toHaveLength(6);
    expect(files(join(DIR, 'pristine'))).toEqual(names);
  });

  for (const name of names) {
    describe(name, () => {
      const text = read(name);
      const a = analyzeIpvsadm(text);
      const pristine = analyzeIpvsadm(read(name, true));

      it('parses: header, titles and every service; no errors or warnings', () => {
        expect(a.dump.formats).toEqual(['list']);
        expect(a.dump.producer).toBe('IP Virtual Server version 1.2.1');
        expect(a.dump.tableSize).toBe(4096);
        expect(a.dump.services.length).toBeGreaterThan(0);
        // A listed virtual service without real servers is worth a warning (one blog listing has one).
        const bad = a.diagnostics.filter((d) => (d.severity === 'error' || d.severity === 'warning') && d.code !== 'no-real-servers');
        expect(bad.map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
        // Every non-blank line of the output is understood: a service, a real server, a header or the source note.
        const lines = text.split('\n');
        lines.forEach((line, i) => {
          if (line.trim() === '') return;
          const known = a.dump.serviceByLine.has(i) || a.dump.realServerByLine.has(i) || a.dump.headers.some((h) => h.range.start.line === i);
          expect(known, `line ${i + 1}: ${line}`).toBe(true);
        });
      });

      it('the `# source:` line gets a diagnostic; the pristine bytes get none but hints', () => {
        const first = a.diagnostics.filter((d) => d.range.start.line === 0);
        expect(first.map((d) => [d.code, d.severity])).toEqual([['comment', 'information']]);
        expect(pristine.diagnostics.filter((d) => d.severity !== 'hint' && d.code !== 'no-real-servers')).toEqual([]);
      });

      it('the source line changes nothing else: same model as the pristine output', () => {
        expect(shape(a.dump)).toEqual(shape(pristine.dump));
      });

      it('prompts and prose pasted around the output get diagnostics; the output is read the same', () => {
        const wrapped = ['[root@centos kubeworkspace]# ipvsadm -Ln', read(name, true).trimEnd(), 'So the NodePort is there, but curl hangs.', '[root@centos kubeworkspace]# '].join('\n');
        const w = analyzeIpvsadm(wrapped);
        const lineCount = wrapped.split('\n').length;
        expect(w.diagnostics.filter((d) => d.severity !== 'hint' && d.code !== 'no-real-servers').map((d) => [d.range.start.line, d.code])).toEqual([
          [0, 'shell-prompt'],
          [lineCount - 2, 'not-ipvsadm'],
          [lineCount - 1, 'shell-prompt'],
        ]);
        expect(shape(w.dump)).toEqual(shape(pristine.dump));
      });
    });
  }

  it('kubernetes pkg/proxy/ipvs README (debug): kubernetes and kube-dns, checked by hand', () => {
    const d = byName('README__debug');
    expect(shape(d)).toEqual([
      { name: 'TCP 10.0.0.1:443', scheduler: 'rr', persistent: { timeout: 10800, netmask: undefined }, servers: ['192.168.0.1:6443 masq w1 1/0'] },
      { name: 'TCP 10.0.0.10:53', scheduler: 'rr', persistent: undefined, servers: ['172.17.0.2:53 masq w1 0/0'] },
      { name: 'UDP 10.0.0.10:53', scheduler: 'rr', persistent: undefined, servers: ['172.17.0.2:53 masq w1 0/0'] },
    ]);
    expect(d.services[2]).toMatchObject({ protocol: 'udp', address: '10.0.0.10', port: 53, family: 'ipv4' });
  });

  it('kube-router pod-toolbox: persistence with mask 0.0.0.0 gets a hint; 45 active connections on etcd', () => {
    const d = byName('kube-router');
    const api = d.services.find((s) => s.name === 'TCP 10.3.0.1:443')!;
    expect(api.persistent).toMatchObject({ timeout: 10800, netmask: '0.0.0.0' });
    expect(d.diagnostics.filter((x) => x.code === 'mask-all-clients').map((x) => x.range.start.line)).toEqual([api.line]);
    expect(d.services.find((s) => s.name === 'TCP 10.3.0.15:2379')!.realServers[0]).toMatchObject({ address: '10.10.3.3', port: 2379, activeConn: 45, inactConn: 0 });
    expect(d.services.map((s) => s.name)).toContain('UDP 10.3.0.10:53');
  });

  it('kubernetes.io blog: a session-affinity service shown without real servers; nginx-service with two pods', () => {
    const affinity = byName('session-affinity');
    expect(affinity.services).toHaveLength(1);
    expect(affinity.services[0]).toMatchObject({ name: 'TCP 10.102.128.4:3080', persistent: { timeout: 10800 }, realServers: [] });
    const topology = byName('topology');
    expect(topology.services[0].realServers.map(realServerLabel)).toEqual(['10.244.0.235:8080', '10.244.1.237:8080']);
    expect(weightShares(topology.services[0])).toEqual([0.5, 0.5]);
  });

  it('terminal paste from a kube-proxy node: NodePort 32470 on four node addresses, each with the same two pods', () => {
    const d = byName('lifalin0802');
    expect(d.services).toHaveLength(10);
    const nodePorts = d.services.filter((s) => s.port === 32470);
    expect(nodePorts.map((s) => s.address)).toEqual(['172.17.0.1', '172.18.0.1', '172.19.0.1', '192.168.5.100']);
    for (const s of nodePorts) {
      expect(s.realServers.map(realServerLabel)).toEqual(['172.17.0.3:80', '172.17.0.4:80']);
      expect(weightShares(s)).toEqual([0.5, 0.5]);
    }
    expect(d.services.find((s) => s.name === 'TCP 10.96.0.1:443')!.realServers.map(realServerLabel)).toEqual(['192.168.5.100:8443']);
    expect(d.services.find((s) => s.name === 'TCP 10.96.0.10:9153')!.realServers.map(realServerLabel)).toEqual(['172.17.0.5:9153']);
  });
});
