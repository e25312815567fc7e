// What analysing one dump gives, per dialect: the parsed model, its kube-proxy catalog and the indexes the
// features share. Below language/, trace/ and explain/, which all read it; it knows none of them.
import type { Diagnostic } from './model/diagnostics';
import type { IptablesRuleset } from './model/iptables';
import type { NftRuleset } from './model/nft';
import type { IpvsDump } from './model/ipvs';
import type { IpsetDump } from './model/ipset';
import type { Catalog, Endpoint, Service } from './kube/service';
import type { NftCatalog } from './kube/nft-catalog';

export interface IptablesAnalysis {
  dialect: 'iptables';
  ruleset: IptablesRuleset;
  catalog: Catalog;
  /** Parser diagnostics plus kube-proxy hints (hash mismatches). */
  diagnostics: Diagnostic[];
  /** (table id, chain) → the Service the chain implements. */
  serviceByChain: ChainIndex<Service>;
  /** (table id, KUBE-SEP chain) → the endpoint and its Service. */
  endpointByChain: EndpointIndex;
}

/** Values by table id and chain name (no key string is built per chain: a large dump has 100,000 of them). */
export class ChainIndex<T> {
  private readonly byTable = new Map<string, Map<string, T>>();

  get(tableId: string, chain: string): T | undefined {
    return this.byTable.get(tableId)?.get(chain);
  }

  set(tableId: string, chain: string, value: T): void {
    let byName = this.byTable.get(tableId);
    if (byName === undefined) this.byTable.set(tableId, (byName = new Map()));
    byName.set(chain, value);
  }
}

/**
 * The endpoint a KUBE-SEP chain implements, found through serviceByChain, which maps each such chain to the Service
 * whose endpoints list it last (in catalog order), and then among that Service's endpoints: no second index of
 * 100,000 entries and pairs kept for a large dump (docs/performance.md#memory).
 */
export class EndpointIndex {
  constructor(private readonly serviceByChain: ChainIndex<Service>) {}

  get(tableId: string, chain: string): { service: Service; endpoint: Endpoint } | undefined {
    const service = this.serviceByChain.get(tableId, chain);
    if (service === undefined) return undefined;
    const endpoints = service.endpoints;
    // The last one, as an index filled in list order would keep.
    for (let k = endpoints.length - 1; k >= 0; k--) if (endpoints[k].chain === chain) return { service, endpoint: endpoints[k] };
    return undefined;
  }
}

export interface NftAnalysis {
  dialect: 'nftables';
  ruleset: NftRuleset;
  catalog: NftCatalog;
  diagnostics: Diagnostic[];
  /** The Service each object of a table implements (servicesByObject). */
  serviceByObject: ServiceByObject;
}

/**
 * Which Service an object implements, per table: by name for the Service's own chains and sets, and for endpoint
 * chains by the Service port their kube-proxy name spells (`endpoint-HASH-ns/svc/tcp/p80__10.0.0.1/80`), checked
 * against the Service's endpoints. An entry per endpoint chain (100,000 for 10,000 Services) was a 4 MB table that
 * had grown by copies (docs/performance.md#memory).
 */
export interface ServiceByObject {
  /** table id → object name → Service. */
  byName: Map<string, Map<string, Service>>;
  /** table id → Service port part of its endpoint chains' names → Service. */
  byEndpointPart: Map<string, Map<string, Service>>;
}

export interface IpvsadmAnalysis {
  dialect: 'ipvsadm';
  dump: IpvsDump;
  diagnostics: Diagnostic[];
}

export interface IpsetAnalysis {
  dialect: 'ipset';
  dump: IpsetDump;
  diagnostics: Diagnostic[];
}
