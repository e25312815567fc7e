// The graph of a node snapshot: which file each Service object lives in, and the DNAT rule of each KUBE-SEP.
import type { Endpoint, Service } from '../kube/catalog';
import type { IptablesAnalysis } from '../language/iptables';
import type { NodeSnapshot } from '../snapshot';
import { buildGraphModel, type GraphModel, type GraphSource } from './model';

export function graphOfSnapshot(snapshot: NodeSnapshot): GraphModel {
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
  return buildGraphModel(snapshot.services, { fileOf, endpointSource });
}
