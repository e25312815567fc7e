/** The Service entries of `services --json` (catalogToJson), as tests read them. */
export interface CatalogJsonService {
  namespace: string;
  name: string;
  portName: string;
  protocol: string;
  frontends: { kind: string; address?: string; port: number }[];
  endpoints: { address: string; port: number; probability: number; local?: boolean }[];
  policies?: Record<string, unknown>;
}

export interface CatalogJson {
  mode?: string;
  services: CatalogJsonService[];
}
