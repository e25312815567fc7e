// Data for the browser benchmark of the Service graph (bench/graph.mjs bundles this with esbuild): real graph
// models built by the core from generated kube-proxy dumps.
import { generateIptablesDump, randomServices, type GenServicePort } from '../tools/generate/iptables';
import { graphOfSnapshot } from '../src/core/graph/snapshot';
import type { ServiceGraph, ServiceSummary } from '../src/core/graph/model';
import { analyzeFile, buildSnapshot } from '../src/core/snapshot';

function model(services: GenServicePort[], comments = true) {
  const text = generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true, comments });
  return graphOfSnapshot(buildSnapshot([analyzeFile('node1.iptables', text)!]));
}

/** One Service (ClusterIP + NodePort) with `endpoints` endpoints: its summary and graph. */
export function wideService(endpoints: number): { summary: ServiceSummary; graph: ServiceGraph } {
  const eps = Array.from({ length: endpoints }, (_, i) => ({ address: `10.244.${Math.floor(i / 250)}.${(i % 250) + 2}`, port: 8080 }));
  const m = model([{ namespace: 'bench', name: 'wide', portName: 'http', protocol: 'tcp', clusterIP: '10.96.0.10', port: 80, nodePort: 30080, endpoints: eps }]);
  const summary = m.services.find((s) => s.name === 'wide')!;
  return { summary, graph: m.graphs.get(summary.key)! };
}

/** `count` generated Services (1 endpoint each): the summaries of the list. */
export function manyServices(count: number): ServiceSummary[] {
  return model(randomServices(count, 1, 1)).services;
}
