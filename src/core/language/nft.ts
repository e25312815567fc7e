// Language features for nftables (`nft list ruleset`, nft scripts, `nft -j` JSON), as pure functions.
import { withLater } from '../model/diagnostics';
import type { NftChain, NftElement, NftMap, NftSet, NftStatement, NftTable } from '../model/nft';
import { containsPosition, type Position, type Range } from '../model/range';
import type { SymbolDefinition } from '../model/symbols';
import { parseNft } from '../parse/nft/parser';
import { parseNftJson } from '../parse/nft/json';
import { promptsBefore } from '../parse/prompt';
import { SNIFF_BYTES } from '../detect';
import { buildNftCatalog, classifyNftKubeObject, isKubeProxyNftTable, type NftCatalog } from '../kube/nft-catalog';
import type { Service } from '../kube/service';
import { nftEndpointServicePart } from '../kube/nft-hash';
import { explainNftKubeIdiom, explainNftKubeObjectName, explainNftKubeProxyMode, nftKubeObjectTitle } from '../explain/kube-nft';
import { describeService } from '../explain/service';
import { bold, code, hoverOf, join, md, MarkdownBuilder, mdT, text, type Md } from '../explain/markdown';
import { t } from '../l10n';
import { cappedItems, problemCounts, serviceFirst, type FoldingRange, type Hover, type LanguageFeatures, type NamedObject, type OutlineItem, type StatusSummary } from './types';
import { symbolsToSemantic } from './semantic';
import type { NftAnalysis, ServiceByObject } from '../analysis';
export type { NftAnalysis } from '../analysis';

function serviceOf(a: NftAnalysis, tableId: string, name: string): Service | undefined {
  const named = a.serviceByObject.byName.get(tableId)?.get(name);
  if (named !== undefined) return named;
  const part = nftEndpointServicePart(name);
  const s = part === undefined ? undefined : a.serviceByObject.byEndpointPart.get(tableId)?.get(part);
  return s !== undefined && s.endpoints.some((e) => e.chain === name) ? s : undefined;
}

function addService(map: Map<string, Map<string, Service>>, tableId: string, name: string, s: Service): void {
  let names = map.get(tableId);
  if (!names) map.set(tableId, (names = new Map()));
  names.set(name, s);
}

/** `nft -j` output is JSON, maybe after the prompt that ran it; everything else is nft text (list output or a script). */
export function isNftJson(text: string): boolean {
  const head = text.slice(0, SNIFF_BYTES);
  const { start } = promptsBefore(head, head.charCodeAt(0) === 0xfeff ? 1 : 0);
  return /^\s*\{\s*"nftables"\s*:/.test(head.slice(start, start + 4096));
}

export function analyzeNft(text: string): NftAnalysis {
  const ruleset = isNftJson(text) ? parseNftJson(text) : parseNft(text);
  const catalog = buildNftCatalog(ruleset);
  // Made now, not on the first hover: some 120,000 entries for 10,000 Services would make that hover wait.
  return { dialect: 'nftables', ruleset, catalog, diagnostics: withLater(ruleset.diagnostics, catalog.diagnostics, catalog.unreported), serviceByObject: servicesByObject(catalog) };
}

function servicesByObject(catalog: NftCatalog): ServiceByObject {
  const byName = new Map<string, Map<string, Service>>();
  const byEndpointPart = new Map<string, Map<string, Service>>();
  for (const s of catalog.services) {
    const tableId = s.objects[0]?.tableId;
    for (const o of s.objects) if (o.role !== 'map-element' && o.role !== 'set-element' && o.role !== 'endpoint-chain') addService(byName, o.tableId, o.name, s);
    if (tableId === undefined) continue;
    // A Service's endpoint chains mostly share their Service port part: the last one's entry is known.
    let lastPart: string | undefined;
    let lastKnown: Service | undefined;
    for (const e of s.endpoints) {
      if (!e.chain) continue;
      const part = nftEndpointServicePart(e.chain);
      const known = part === undefined ? undefined : part === lastPart ? lastKnown : byEndpointPart.get(tableId)?.get(part);
      if (part !== undefined) {
        lastPart = part;
        lastKnown = known ?? s;
      }
      if (part !== undefined && known === undefined) addService(byEndpointPart, tableId, part, s);
      // A name not spelled like kube-proxy's, or another Service spells its endpoints the same: by name.
      else if (known !== s) addService(byName, tableId, e.chain, s);
    }
  }
  return { byName, byEndpointPart };
}

export function definitionAt(a: NftAnalysis, position: Position): SymbolDefinition | undefined {
  const def = a.ruleset.symbols.resolve(position);
  return def && (def.kind === 'chain' || def.kind === 'set' || def.kind === 'map') ? def : undefined;
}

export function referencesAt(a: NftAnalysis, position: Position, includeDeclaration: boolean): Range[] {
  return a.ruleset.symbols.rangesOfSymbolAt(position, ['chain', 'set', 'map'], includeDeclaration, (ref) => ref.role !== 'rule-owner');
}

function chainDetail(chain: NftChain, serviceDetail: string[]): string {
  const parts: string[] = [];
  if (chain.type && chain.hook) parts.push(`${chain.type} ${chain.hook}${chain.priority ? ` ${chain.priority.text}` : ''}`);
  if (chain.policy) parts.push(chain.policy);
  parts.push(chain.rules.length === 1 ? t('1 rule') : t('{0} rules', chain.rules.length));
  parts.push(...serviceDetail);
  return parts.join(' · ');
}

function chainItem(a: NftAnalysis, table: NftTable, chain: NftChain): OutlineItem {
  const label = serviceFirst(chain.name, serviceOf(a, table.id, chain.name));
  return {
    name: label.name,
    objectName: chain.name,
    detail: chainDetail(chain, label.detail),
    kind: 'chain',
    range: chain.fullRange,
    selectionRange: chain.nameRange,
    children: [],
  };
}

/**
 * The tables and their sets, maps and chains, at most `limit` of those in all (then one "… N more" per table): the
 * items beyond the outline's cap are not made (a 10,000-Service dump has 30,000 sets, maps and chains).
 */
export function outline(a: NftAnalysis, limit = Number.POSITIVE_INFINITY): OutlineItem[] {
  let left = limit;
  return a.ruleset.tables.map((table) => {
    const { sets, maps, chains } = table;
    const count = sets.length + maps.length + chains.length;
    const item = (k: number): OutlineItem =>
      k < sets.length ? setItem(sets[k], 'set') : k < sets.length + maps.length ? setItem(maps[k - sets.length], 'map') : chainItem(a, table, chains[k - sets.length - maps.length]);
    const children = cappedItems(count, left, item, limit);
    left = Math.max(0, left - count);
    return {
      name: `${table.family} ${table.name}`,
      detail: table.managedBy ? t('managed by iptables-nft') : isKubeProxyNftTable(table) ? t('kube-proxy') : '',
      kind: 'table' as const,
      range: table.range,
      selectionRange: table.nameRange,
      children,
    };
  });
}

/** The outline's sets, maps and chains, in its order, by their own names. */
export function namedObjects(a: NftAnalysis): NamedObject[] {
  return a.ruleset.tables.flatMap((table) => {
    const container = `${table.family} ${table.name}`;
    const named =
      (kind: NamedObject['kind']) =>
      (o: { name: string; nameRange: Range }): NamedObject => ({ name: o.name, kind, container, selectionRange: o.nameRange });
    return [...table.sets.map(named('set')), ...table.maps.map(named('map')), ...table.chains.map(named('chain'))];
  });
}

function setItem(s: NftSet | NftMap, kind: 'set' | 'map'): OutlineItem {
  const type = kind === 'map' ? `${s.keyType.join(' . ')} : ${(s as NftMap).dataType.join(' . ')}` : s.keyType.join(' . ');
  return {
    name: s.name,
    detail: `${type} · ${s.elements.length === 1 ? t('1 element') : t('{0} elements', s.elements.length)}`,
    kind,
    range: s.fullRange,
    selectionRange: s.nameRange,
    children: [],
  };
}

export function foldingRanges(a: NftAnalysis): FoldingRange[] {
  const out: FoldingRange[] = [];
  const add = (r: Range) => {
    if (r.end.line > r.start.line) out.push({ start: r.start.line, end: r.end.line - 1 });
  };
  for (const table of a.ruleset.tables) {
    add(table.range);
    for (const c of table.chains) add(c.fullRange);
    for (const s of [...table.sets, ...table.maps]) add(s.fullRange);
  }
  return out;
}

function tableOf(a: NftAnalysis, scope: string): NftTable | undefined {
  return a.ruleset.tableById.get(scope);
}

/** The chain's facts for its hover: hook and priority, policy, rule count, Service (all dump text escaped). */
function chainFacts(a: NftAnalysis, table: NftTable, chain: NftChain): Md {
  return text(chainDetail(chain, serviceFirst(chain.name, serviceOf(a, table.id, chain.name)).detail));
}

function objectHover(a: NftAnalysis, table: NftTable, name: string, kind: 'chain' | 'set' | 'map'): MarkdownBuilder {
  const title = nftKubeObjectTitle(name);
  const out = new MarkdownBuilder().push(title ? md`${bold(text(name))} — ${title}` : bold(text(name)), md``);
  if (kind === 'chain') {
    const chain = table.chainByName.get(name);
    if (chain) out.push(chainFacts(a, table, chain));
  } else {
    const s = kind === 'map' ? table.mapByName.get(name) : table.setByName.get(name);
    if (s) {
      const type = kind === 'map' ? md`${code(s.keyType.join(' . '))} : ${code((s as NftMap).dataType.join(' . '))}` : code(s.keyType.join(' . '));
      const timeout = s.timeout ? md` · ${mdT('timeout {0}', text(s.timeout))}` : md``;
      out.push(md`${text(kind)} ${type} · ${mdT('{0} elements', s.elements.length)}${timeout}`);
    }
  }
  // The answer first (the Service), then what this kind of object does.
  const service = serviceOf(a, table.id, name);
  if (service) {
    out.push(md``);
    describeService(out, service, { endpointChain: classifyNftKubeObject(name) === 'endpoint' ? name : undefined, hashChain: name });
  }
  const explained = isKubeProxyNftTable(table) ? explainNftKubeObjectName(name) : undefined;
  if (explained) out.push(md``, explained);
  return out;
}

function elementAt(table: NftTable, position: Position): { set: NftSet | NftMap; element: NftElement } | undefined {
  for (const s of [...table.maps, ...table.sets]) {
    if (!containsPosition(s.fullRange, position)) continue;
    for (const element of s.elements) if (containsPosition(element.range, position)) return { set: s, element };
  }
  return undefined;
}

function statementAt(statements: NftStatement[], position: Position): NftStatement | undefined {
  return statements.find((s) => containsPosition(s.range, position));
}

function withCommands(out: MarkdownBuilder, range: Range): Hover {
  return hoverOf(out, range);
}

function elementHover(a: NftAnalysis, table: NftTable, set: NftSet | NftMap, element: NftElement): MarkdownBuilder {
  const v = element.value;
  const value = v === undefined ? md`` : md` : ${code(typeof v === 'string' ? v : `${v.kind}${v.chain ? ` ${v.chain}` : ''}`)}`;
  const out = new MarkdownBuilder().push(md`${code(element.key.join(' . '))}${value}`);
  const chain = typeof v === 'object' ? v.chain : undefined;
  const service = chain ? serviceOf(a, table.id, chain) : undefined;
  if (service) {
    out.push(md``);
    describeService(out, service, { endpointChain: classifyNftKubeObject(chain!) === 'endpoint' ? chain : undefined });
  }
  if (element.comment) out.push(md``, md`${mdT('comment')}: ${code(element.comment)}`);
  const explained = isKubeProxyNftTable(table) ? explainNftKubeObjectName(set.name) : undefined;
  if (explained) out.push(md``, explained);
  return out;
}

export function hoverAt(a: NftAnalysis, position: Position): Hover | undefined {
  const comment = a.ruleset.comments.find((c) => c.range.start.line === position.line);
  if (comment?.kind === 'warning') {
    return {
      range: comment.range,
      markdown: join([
        bold(mdT('Managed by iptables-nft')),
        md``,
        mdT(
          'This table was written by iptables-nft, the nf_tables backend of iptables: these are iptables rules shown in nft syntax (xt matches, odd spacing, no comments). If they contain KUBE-SVC/KUBE-SEP chains, kube-proxy runs in **iptables mode** on this node, not in nftables mode — nftables mode writes its own table ip kube-proxy. Read these rules with iptables-save instead.',
        ),
      ]),
    };
  }
  const hit = a.ruleset.symbols.at(position);
  if (hit) {
    const sym = hit.type === 'definition' ? hit.definition : hit.reference;
    const range = hit.type === 'definition' ? hit.definition.range : hit.reference.range;
    const table = tableOf(a, sym.scope);
    if (sym.kind === 'table') {
      const t2 = a.ruleset.tables.find((x) => x.name === sym.name && x.family === sym.scope) ?? a.ruleset.tables.find((x) => x.name === sym.name);
      if (t2 && isKubeProxyNftTable(t2)) return { markdown: md`${bold(text(`${t2.family} ${t2.name}`))}\n\n${explainNftKubeProxyMode()}`, range };
      return { markdown: md`${bold(text(`${t2 ? `${t2.family} ` : ''}${sym.name}`))} — ${mdT('table')}`, range };
    }
    if (table && (sym.kind === 'chain' || sym.kind === 'set' || sym.kind === 'map')) return withCommands(objectHover(a, table, sym.name, sym.kind), range);
  }
  for (const table of a.ruleset.tables) {
    if (!containsPosition(table.range, position)) continue;
    const hitElement = elementAt(table, position);
    if (hitElement) {
      return withCommands(elementHover(a, table, hitElement.set, hitElement.element), hitElement.element.range);
    }
  }
  const rule = a.ruleset.ruleByLine.get(position.line);
  const statement = rule ? statementAt(rule.statements, position) : undefined;
  if (statement) {
    if (statement.kind === 'vmap' && statement.key.kind === 'numgen') {
      return { markdown: explainNftKubeIdiom('numgen', statement.key.mod), range: statement.range };
    }
    if (statement.kind === 'vmap') return { markdown: explainNftKubeIdiom('vmap-by-destination'), range: statement.range };
    if (statement.kind === 'nat' && statement.type === 'dnat') return { markdown: md`**dnat** ${code(statement.text)}\n\n${explainNftKubeIdiom('dnat')}`, range: statement.range };
    if (statement.kind === 'nat' && statement.type === 'masquerade') {
      return {
        markdown: md`**masquerade**\n\n${mdT("Source NAT to the address of the interface the packet leaves through, for packets marked for masquerade (bit 0x4000 of the mark in kube-proxy's tables).")}`,
        range: statement.range,
      };
    }
    if (statement.kind === 'mark' && /0x0*4000\b/.test(statement.text)) return { markdown: explainNftKubeIdiom('mark-masq'), range: statement.range };
  }
  return undefined;
}

export function statusSummary(a: NftAnalysis): StatusSummary {
  const tables = a.ruleset.tables;
  const kube = tables.some(isKubeProxyNftTable);
  const viaIptables = tables.some((tb) => tb.managedBy === 'iptables-nft' && tb.chains.some((c) => /^KUBE-(SVC|SEP)-/.test(c.name)));
  return {
    dialect: 'nftables',
    kubeProxyMode: kube ? 'nftables' : viaIptables ? 'iptables' : undefined,
    producer: a.ruleset.format === 'json' ? 'nft -j' : a.ruleset.producer,
    backend: 'nf_tables',
    family: tables[0]?.family ?? 'ip',
    tables: tables.length,
    chains: tables.reduce((n, tb) => n + tb.chains.length, 0),
    rules: tables.reduce((n, tb) => n + tb.chains.reduce((m, c) => m + c.rules.length, 0), 0),
    services: a.catalog.services.length,
    ...problemCounts(a.diagnostics),
  };
}

export const nftFeatures: LanguageFeatures<NftAnalysis> = {
  languageId: 'nftables',
  analyze: analyzeNft,
  definitionAt,
  referencesAt,
  outline,
  namedObjects,
  foldingRanges,
  hoverAt,
  statusSummary,
  services: (a) => a.catalog.services,
  semanticSymbols: (a, lines) => symbolsToSemantic(a.ruleset.symbols, (name) => classifyNftKubeObject(name) !== undefined, lines),
};
