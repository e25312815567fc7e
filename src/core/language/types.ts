// What every dump language offers the editor and the CLI; one implementation per dialect.
import { countBySeverity, type Diagnostic } from '../model/diagnostics';
import type { Position, Range } from '../model/range';
import type { SymbolDefinition } from '../model/symbols';
import { servicePortNameString, type Service } from '../kube/service';
import type { HoverCommand, HoverService, Md } from '../explain/markdown';
import { t } from '../l10n';

export interface OutlineItem {
  name: string;
  /** The object's own name when the label says more (a chain led by its Service). */
  objectName?: string;
  detail: string;
  kind: 'table' | 'chain' | 'set' | 'map' | 'object' | 'service';
  range: Range;
  selectionRange: Range;
  children: OutlineItem[];
  /** A capped list's last item ("… N more"): how many items it stands for. */
  more?: number;
}

/** A chain, set or map as Ctrl+T lists it: its own name, the table it is in (none: ''), where its name is. */
export interface NamedObject {
  name: string;
  kind: 'chain' | 'set' | 'map';
  container: string;
  selectionRange: Range;
}

/**
 * A chain's outline label and detail parts: the Service it serves first (`default/nginx:http · KUBE-SVC-…`), as
 * people look for Services, not hashes; its protocol goes to the detail.
 */
export function serviceFirst(chain: string, service: Service | undefined): { name: string; detail: string[] } {
  if (!service) return { name: chain, detail: [] };
  return { name: `${service.anonymous ? service.name : servicePortNameString(service)} · ${chain}`, detail: service.anonymous ? [] : [service.protocol] };
}

/**
 * The last item of a capped outline list: "… N more", at the place of the first item left out. A dump of a
 * million virtual services or sets would otherwise be a million editor symbols (and seconds of work to make).
 */
export function moreItem(first: OutlineItem, more: number, limit: number): OutlineItem {
  return {
    name: t('… {0} more', more),
    detail: t('the outline lists {0} items of large dumps; List Services and F12 reach the others', limit),
    kind: first.kind,
    range: first.range,
    selectionRange: first.selectionRange,
    children: [],
    more,
  };
}

/**
 * The first `limit` of `count` items made by `make`, and one moreItem for the rest; `total`: the cap its message
 * names (the outline's, when `limit` is what is left of it).
 */
export function cappedItems(count: number, limit: number, make: (k: number) => OutlineItem, total = limit): OutlineItem[] {
  const out: OutlineItem[] = [];
  for (let k = 0; k < Math.min(count, limit); k++) out.push(make(k));
  if (count > limit) out.push(moreItem(make(limit), count - limit, total));
  return out;
}

export interface FoldingRange {
  start: number;
  end: number;
}

export interface Hover {
  /** Written with explain/markdown, which escapes all dump text. */
  markdown: Md;
  range: Range;
  /** The commands the code linked to (MarkdownBuilder.commandLink); the editor enables exactly these. */
  commands?: HoverCommand[];
  /** The Service port the hover describes, if any. */
  service?: HoverService;
}

export interface StatusSummary {
  dialect: string;
  /** kube-proxy's mode as far as this dump shows it (iptables, ipvs, nftables-or-none, none). */
  kubeProxyMode?: string;
  producer?: string;
  backend: string;
  family: string;
  tables: number;
  chains: number;
  rules: number;
  services: number;
  errors: number;
  warnings: number;
}

/** A status summary's counts of errors and warnings. */
export function problemCounts(diagnostics: readonly Diagnostic[]): Pick<StatusSummary, 'errors' | 'warnings'> {
  const counts = countBySeverity(diagnostics);
  return { errors: counts.error, warnings: counts.warning };
}

/** A name the symbol table knows: coloured by what it is (semantic tokens), not by how it looks. */
export interface SemanticSymbol {
  range: Range;
  kind: 'chain' | 'set' | 'map' | 'table' | 'virtualService' | 'ipset';
  declaration: boolean;
  /** Kubernetes' own objects (kube-proxy's and kubelet's, not other KUBE-* names) get a modifier so themes can tell them apart. */
  kube?: boolean;
}

export interface DumpAnalysis {
  dialect: string;
  diagnostics: Diagnostic[];
}

export interface LanguageFeatures<A extends DumpAnalysis> {
  /** The VS Code language id. */
  languageId: string;
  analyze(text: string): A;
  definitionAt(a: A, position: Position): SymbolDefinition | undefined;
  referencesAt(a: A, position: Position, includeDeclaration: boolean): Range[];
  /** `limit`: the most top-level items a dialect whose items are all top level (services, sets) makes. */
  outline(a: A, limit?: number): OutlineItem[];
  /**
   * The chains, sets and maps of the outline, in its order, without its labels and details (a 10,000-Service
   * dump's outline costs most of a second to label; Ctrl+T needs only the names). Absent: none.
   */
  namedObjects?(a: A): NamedObject[];
  foldingRanges(a: A): FoldingRange[];
  hoverAt(a: A, position: Position): Hover | undefined;
  statusSummary(a: A): StatusSummary;
  services(a: A): Service[];
  /**
   * Names for semantic highlighting (definitions and references from the symbol table): of the whole document, or
   * of lines [lines.from, lines.to) only.
   */
  semanticSymbols?(a: A, lines?: { from: number; to: number }): SemanticSymbol[];
}
