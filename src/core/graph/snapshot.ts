// The graph of a node snapshot: which file each Service object lives in, and the DNAT rule of each KUBE-SEP.
import type { Endpoint, Service } from '../kube/service';
import type { IptablesAnalysis } from '../language/iptables';
import type { NodeSnapshot } from '../snapshot';
import { clusterOverlay } from './cluster';
import { buildGraphModel, graphsOf, keysWhere, type GraphModel, type GraphOptions, type GraphSource, type ServiceGraph } from './model';

/** Where the graph's objects live in the snapshot's files. */
function graphOptions(snapshot: NodeSnapshot): GraphOptions {
  const owner = new Map<Service, number>();
  snapshot.files.forEach((f, i) => {
    for (const s of f.features.services(f.analysis) as Service[]) if (!owner.has(s)) owner.set(s, i);
  });
  const firstOf = (languageId: string) => snapshot.files.findIndex((f) => f.languageId === languageId);
  const fileOf = (s: Service, tableId?: string): number => {
    const ipvs = /^ipvs:(\d+)$/.exec(tableId ?? '');
    if (ipvs) return Number(ipvs[1]);
    if (snapshot.mode === 'ipvs') {
      // Real servers and frontends live in the ipvsadm file of the Service's virtual service.
      if (tableId === undefined) {
        const vs = s.objects.find((o) => o.role === 'virtual-service');
        const m = /^ipvs:(\d+)$/.exec(vs?.tableId ?? '');
        if (m) return Number(m[1]);
      }
      const i = firstOf('iptables');
      return i >= 0 ? i : 0;
    }
    return owner.get(s) ?? 0;
  };
  const endpointSource = (s: Service, e: Endpoint): GraphSource | undefined => {
    if (!e.chain?.startsWith('KUBE-SEP-')) return undefined;
    const fileIndex = owner.get(s);
    const file = fileIndex === undefined ? undefined : snapshot.files[fileIndex];
    if (!file || file.languageId !== 'iptables') return undefined;
    const svcTable = s.objects.find((o) => o.role === 'service-chain' || o.role === 'service-local-chain')?.tableId;
    const ruleset = (file.analysis as IptablesAnalysis).ruleset;
    for (const table of ruleset.tables) {
      if (svcTable !== undefined && table.id !== svcTable) continue;
      const chain = table.chainByName.get(e.chain);
      const dnat = chain?.rules.find((r) => r.target?.kind === 'dnat');
      if (dnat) return { fileIndex: fileIndex!, range: dnat.range };
      if (chain) return { fileIndex: fileIndex!, range: chain.nameRange };
    }
    return undefined;
  };
  const overlay = clusterOverlay(snapshot);
  return { fileOf, endpointSource, ...(overlay ? { marks: overlay.marks } : {}) };
}

/** The file of a Service's object (of the table `tableId`, else of its frontends) in the snapshot. */
export function snapshotFileLocator(snapshot: NodeSnapshot): (s: Service, tableId?: string) => number {
  return graphOptions(snapshot).fileOf!;
}

/** The Service graph of a snapshot: every Service's summary, and the graphs of the first `eager` Services. */
export function graphOfSnapshot(snapshot: NodeSnapshot, eager = Number.POSITIVE_INFINITY): GraphModel {
  const model = buildGraphModel(snapshot.services, graphOptions(snapshot), eager);
  // The Services the API has and the node never programmed: listed after the dump's, with their API-side graph.
  for (const x of clusterOverlay(snapshot)?.notProgrammed ?? []) {
    model.services.push(x.summary);
    model.graphs.set(x.graph.key, x.graph);
  }
  return model;
}

/** The graphs of the Services with these keys. */
export function graphsOfSnapshot(snapshot: NodeSnapshot, keys: readonly string[]): ServiceGraph[] {
  const api = new Map((clusterOverlay(snapshot)?.notProgrammed ?? []).map((x) => [x.graph.key, x.graph]));
  const dump = new Map(
    graphsOf(
      snapshot.services,
      keys.filter((k) => !api.has(k)),
      graphOptions(snapshot),
    ).map((g) => [g.key, g]),
  );
  return keys.flatMap((k) => api.get(k) ?? dump.get(k) ?? []);
}

/**
 * The keys of the first `max` Services whose graph `reached` accepts, each graph built and dropped in turn (only of
 * the Services `candidate` accepts).
 */
export function snapshotKeysWhere(snapshot: NodeSnapshot, reached: (graph: ServiceGraph) => boolean, max: number, candidate?: (s: Service) => boolean): string[] {
  return keysWhere(snapshot.services, reached, graphOptions(snapshot), max, candidate);
}
