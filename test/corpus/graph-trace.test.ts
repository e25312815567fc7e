// The Service graph of kube-proxy's own test dumps (iptables and nftables proxier tests): "Trace from here" on every
// frontend lights one connected path, and ns2/svc2 of the Overall tests (externalTrafficPolicy Local, its endpoint
// on another node) draws the external chain's two branches: pods and this node to the cluster chain, other
// sources to kube-proxy's "has no local endpoints" DROP.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';
import { traceHighlight } from '../../src/core/graph/trace';
import { traceSnapshot, type Entry, type SnapshotFile as TraceFile } from '../../src/core/trace';
import { analyzeFile, buildSnapshot } from '../../src/core/snapshot';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE, corpusFiles } from '../helpers/shared';
import { disconnections } from '../helpers/graph';

const NODE_IP = '192.168.0.2';

describe.skipIf(!HAVE_CORPUS)(`Trace from here on kube-proxy's test dumps (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  if (!HAVE_CORPUS) return;
  const dumps = [...corpusFiles('iptables/kube-proxy').filter((f) => f.endsWith('.iptables-save')), ...corpusFiles('nft/kube-proxy').filter((f) => /\.(nft|json)$/.test(f))];
  it('found the dumps of both modes', () => expect(dumps.length).toBeGreaterThan(15));

  it.each(dumps.map((f) => [basename(f), f]))('%s: every frontend lights a connected path', (_, file) => {
    const snapshot = buildSnapshot([analyzeFile(basename(file), readFileSync(file, 'utf8'))!]);
    const files: TraceFile[] = snapshot.files.map((f) => ({ name: f.name, analysis: f.analysis as TraceFile['analysis'] }));
    const model = graphOfSnapshot(snapshot);
    for (const g of model.graphs.values()) {
      for (const n of g.nodes.filter((m) => m.kind === 'frontend')) {
        const entries: Entry[] = n.target!.frontend === 'clusterIP' ? ['pod'] : ['external', 'pod'];
        for (const entry of entries) {
          const protocol = (['tcp', 'udp', 'sctp'].includes(n.target!.protocol) ? n.target!.protocol : 'tcp') as 'tcp';
          const result = traceSnapshot(files, { to: n.target!.address ?? NODE_IP, dport: n.target!.port, protocol, entry, nodeIPs: [NODE_IP] });
          expect(disconnections(g, traceHighlight([g], result)), `${g.title} ${n.label} from ${entry}`).toEqual([]);
        }
      }
    }
  });

  it.each([['iptables/kube-proxy/TestOverallIPTablesRules.iptables-save'], ['nft/kube-proxy/TestOverallNFTablesRules.nft']])('%s: ns2/svc2 branches to the cluster chain and the DROP', (relative) => {
    const snapshot = buildSnapshot([analyzeFile(basename(relative), readFileSync(join(CORPUS, relative), 'utf8'))!]);
    const model = graphOfSnapshot(snapshot);
    const g = model.graphs.get(model.services.find((s) => s.title === 'ns2/svc2:p80/tcp')!.key)!;
    const label = new Map(g.nodes.map((n) => [n.id, n.kind === 'verdict' ? n.label : n.label.replace(/^(KUBE-|)(\w+)-.*$/, '$2')]));
    const fromExt = g.edges
      .filter((e) => /^(EXT|external)$/.test(label.get(e.from)!))
      .map((e) => `${label.get(e.to)} [${e.label}]`)
      .sort();
    expect(fromExt).toEqual([`DROP [other sources]`, `${relative.startsWith('nft') ? 'service' : 'SVC'} [from pods (10.0.0.0/8) or this node]`]);
  });
});
