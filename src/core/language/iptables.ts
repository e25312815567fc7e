// Language features for iptables dumps, as pure functions over the analysed document. The VS Code
// providers only convert types; everything that decides what the user sees lives (and is tested) here.
import { withLater } from '../model/diagnostics';
import type { Chain, IptablesRuleset, Option, Rule, Table } from '../model/iptables';
import { containsPosition, type Position, type Range } from '../model/range';
import type { SymbolDefinition } from '../model/symbols';
import { parseIptables } from '../parse/iptables/parser';
import { buildCatalog } from '../kube/catalog';
import { type Service } from '../kube/service';
import { classifyKubeChain, isKubernetesNodeChain } from '../kube/chains';
import { explainKubeChainKind, kubeChainKindTitle, kubeChainOwnerText } from '../explain/kube-chains';
import { explainBuiltinChain, explainDnat, explainHeader, explainMark, explainMasquerade, explainOption, explainProbability, explainRecent, explainTable, explainTarget } from '../explain/iptables';
import { bold, hoverOf, join, md, MarkdownBuilder, mdT, text } from '../explain/markdown';
import { t } from '../l10n';
import { ChainIndex, EndpointIndex, type IptablesAnalysis } from '../analysis';
export { ChainIndex, EndpointIndex, type IptablesAnalysis } from '../analysis';
import { kubeProxyModeOfIptables } from '../detect';
import { describeService } from '../explain/service';
import { cappedItems, problemCounts, serviceFirst, type FoldingRange, type Hover, type LanguageFeatures, type NamedObject, type OutlineItem, type StatusSummary } from './types';
import { symbolsToSemantic } from './semantic';

export type { FoldingRange, Hover, OutlineItem, StatusSummary } from './types';

export function analyzeIptables(text: string): IptablesAnalysis {
  return analyzeIptablesRuleset(parseIptables(text));
}

/** The analysis of an already parsed ruleset (the benchmark times parsing and this part apart). */
export function analyzeIptablesRuleset(ruleset: IptablesRuleset): IptablesAnalysis {
  const catalog = buildCatalog(ruleset);
  const serviceByChain = new ChainIndex<Service>();
  for (const s of catalog.services) {
    for (const o of s.objects) {
      if (o.role !== 'frontend-rule' && o.role !== 'reject-rule') serviceByChain.set(o.tableId, o.name, s);
    }
    // Endpoint chains (KUBE-SEP-…, never the name of one of the objects above) in the table of the Service's chains.
    const natTableId = s.objects.find((o) => o.role !== 'reject-rule' && o.role !== 'frontend-rule')?.tableId;
    if (natTableId === undefined) continue;
    for (const e of s.endpoints) if (e.chain) serviceByChain.set(natTableId, e.chain, s);
  }
  const endpointByChain = new EndpointIndex(serviceByChain);
  return {
    dialect: 'iptables',
    ruleset,
    catalog,
    diagnostics: withLater(ruleset.diagnostics, catalog.diagnostics, catalog.unreported),
    serviceByChain,
    endpointByChain,
  };
}

/** Go to Definition: the `:CHAIN` (or `-N CHAIN`) line of the chain under the cursor. */
export function definitionAt(a: IptablesAnalysis, position: Position): SymbolDefinition | undefined {
  const def = a.ruleset.symbols.resolve(position);
  return def && def.kind === 'chain' ? def : undefined;
}

/** Find All References: every jump, goto and chain command naming the chain under the cursor. */
export function referencesAt(a: IptablesAnalysis, position: Position, includeDeclaration: boolean): Range[] {
  return a.ruleset.symbols.rangesOfSymbolAt(position, ['chain'], includeDeclaration, (ref) => ref.role === 'jump' || ref.role === 'goto' || ref.role === 'command');
}

/**
 * A chain's outline range: its declaration through its last rule when every line between is one of its rules
 * (the `-N` style); else its declaration line alone. iptables-save declares every chain before any rule, and a
 * span would hold the later declarations and the other chains' rules.
 */
function outlineRange(chain: Chain): Range {
  const start = chain.range.start.line;
  const end = chain.fullRange.end.line;
  if (chain.fullRange.start.line !== start || end === start) return chain.range;
  let own = 0;
  for (const rule of chain.rules) {
    const line = rule.line ?? rule.range.start.line;
    if (line > start && line <= end) own++;
  }
  return own === end - start ? chain.fullRange : chain.range;
}

function chainItem(a: IptablesAnalysis, table: Table, chain: Chain): OutlineItem {
  const service = a.serviceByChain.get(table.id, chain.name);
  const label = serviceFirst(chain.name, service);
  const parts = [chain.rules.length === 1 ? t('1 rule') : t('{0} rules', chain.rules.length), ...label.detail];
  if (chain.policy) parts.unshift(chain.policy);
  return {
    name: label.name,
    objectName: chain.name,
    detail: parts.join(' · '),
    kind: 'chain',
    range: outlineRange(chain),
    selectionRange: chain.nameRange,
    children: [],
  };
}

/**
 * The tables and their chains, at most `limit` chains in all (then one "… N more" per table): a 10,000-Service
 * dump has 110,000 chains, and labelling them all held the analysis worker for a second for the 5,000 shown.
 */
export function outline(a: IptablesAnalysis, limit = Number.POSITIVE_INFINITY): OutlineItem[] {
  const multipleSaves = new Set(a.ruleset.tables.map((tb) => tb.saveIndex)).size > 1;
  let left = limit;
  return a.ruleset.tables.map((table) => {
    const children = cappedItems(table.chains.length, left, (k) => chainItem(a, table, table.chains[k]), limit);
    left = Math.max(0, left - table.chains.length);
    return {
      name: table.name,
      detail: multipleSaves ? `${table.family}` : t('{0} chains', table.chains.length),
      kind: 'table' as const,
      range: table.range,
      selectionRange: table.headerRange,
      children,
    };
  });
}

/** The outline's chains, by their own names. */
export function namedObjects(a: IptablesAnalysis): NamedObject[] {
  return a.ruleset.tables.flatMap((table) => table.chains.map((chain) => ({ name: chain.name, kind: 'chain' as const, container: table.name, selectionRange: chain.nameRange })));
}

/** Tables (header to COMMIT) and each run of consecutive rules of one chain. */
export function foldingRanges(a: IptablesAnalysis): FoldingRange[] {
  const out: FoldingRange[] = [];
  for (const table of a.ruleset.tables) {
    if (table.range.end.line > table.range.start.line) out.push({ start: table.range.start.line, end: table.range.end.line - (table.commitRange ? 1 : 0) });
    let runStart = -1;
    let runEnd = -1;
    let runChain = '';
    const flush = () => {
      if (runStart >= 0 && runEnd > runStart) out.push({ start: runStart, end: runEnd });
    };
    for (const rule of table.rules) {
      const line = rule.line ?? rule.range.start.line;
      if (rule.chain === runChain && line === runEnd + 1) {
        runEnd = line;
      } else {
        flush();
        runStart = runEnd = line;
        runChain = rule.chain;
      }
    }
    flush();
  }
  return out;
}

export function hoverAt(a: IptablesAnalysis, position: Position): Hover | undefined {
  const header = a.ruleset.headers.find((h) => h.range.start.line === position.line);
  if (header && (header.kind === 'generated' || header.kind === 'warning')) {
    const save = a.ruleset.saves.find((s) => s.index === header.saveIndex) ?? a.ruleset.saves[0];
    return {
      markdown: explainHeader(
        save,
        header.kind,
        a.ruleset.tables.filter((tb) => tb.saveIndex === save.index),
        kubeProxyModeOfIptables(a.ruleset),
      ),
      range: header.range,
    };
  }
  const hit = a.ruleset.symbols.at(position);
  if (hit) {
    const sym = hit.type === 'definition' ? hit.definition : hit.reference;
    const range = hit.type === 'definition' ? hit.definition.range : hit.reference.range;
    if (sym.kind === 'table') {
      return { markdown: explainTable(sym.name), range };
    }
    if (sym.kind === 'chain') {
      const table = a.ruleset.tableById.get(sym.scope);
      if (table) {
        const out = chainHover(a, table, sym.name);
        return hoverOf(out, range);
      }
    }
  }
  const rule = a.ruleset.ruleByLine.get(position.line);
  if (rule) return ruleHover(a, rule, position);
  return undefined;
}

/** Hover text for a chain: what kind of chain it is and, for kube-proxy's per-Service chains, the Service. */
export function chainHover(a: IptablesAnalysis, table: Table, name: string): MarkdownBuilder {
  const chain = table.chainByName.get(name);
  const out = new MarkdownBuilder();
  const kube = classifyKubeChain(name, table.name);
  out.push(kube ? md`${bold(text(name))} — ${kubeChainKindTitle(kube.kind)}` : bold(text(name)));
  if (!chain) return out.push(md``, mdT('Not defined in table {0}.', text(table.name)));
  const refs = a.ruleset.symbols.referencesTo('chain', table.id, name).filter((r) => r.role === 'jump' || r.role === 'goto').length;
  const facts = [chain.builtin ? mdT('built-in chain of table {0}', text(table.name)) : mdT('user chain in table {0}', text(table.name)), chain.rules.length === 1 ? mdT('1 rule') : mdT('{0} rules', chain.rules.length)];
  if (!chain.builtin) facts.push(refs === 1 ? mdT('1 jump to it') : mdT('{0} jumps to it', refs));
  if (chain.policy) facts.push(mdT('policy {0}', text(chain.policy)));
  // The answer first: which Service, its frontends and endpoints; what this kind of chain does comes after.
  const service = a.serviceByChain.get(table.id, name);
  if (service && kube) {
    out.push(md``);
    describeService(out, service, { endpointChain: kube.kind === 'endpoint' ? name : undefined, hashChain: name });
  }
  out.push(md``, join(facts, ' · '));
  if (chain.builtin) {
    out.push(md``, explainBuiltinChain(table.name, name));
  } else if (kube) {
    out.push(md``, explainKubeChainKind(kube.kind, table.name));
    const owner = kubeChainOwnerText(kube.kind);
    if (owner) out.push(md``, owner);
  }
  return out;
}

function ruleHover(a: IptablesAnalysis, rule: Rule, position: Position): Hover | undefined {
  const table = a.ruleset.tableById.get(rule.tableId);
  const at = (r: Range | undefined) => r !== undefined && containsPosition(r, position);
  // Module names after -m.
  for (const m of rule.matches) {
    if (m.moduleRange && at(m.moduleRange)) {
      if (m.module === 'recent') return { markdown: explainRecent(a, rule, undefined), range: m.moduleRange };
      return { markdown: explainOption(m.module, undefined, 'match'), range: m.moduleRange };
    }
    for (const o of m.options) {
      if (!at(o.range)) continue;
      const range = optionPartRange(o, position);
      if (o.name === '--probability') return { markdown: explainProbability(a, rule, o), range };
      if (m.module === 'recent') return { markdown: explainRecent(a, rule, o), range };
      if (m.module === 'mark' && o.values.some((v) => /0x0*4000\b/i.test(v))) return { markdown: explainMark(o), range };
      return { markdown: explainOption(m.module, o, 'match'), range };
    }
  }
  const target = rule.target;
  if (target) {
    if (at(target.nameRange) || at(target.range) || target.options.some((o) => at(o.range))) {
      const option = target.options.find((o) => at(o.range));
      const range = option ? optionPartRange(option, position) : target.nameRange;
      if (target.kind === 'dnat') return { markdown: explainDnat(a, rule), range };
      if (target.kind === 'masquerade') return { markdown: explainMasquerade(), range };
      if (target.kind === 'mark' && (option?.values.some((v) => /0x0*4000\b/i.test(v)) || target.options.some((o) => o.values.some((v) => /0x0*4000\b/i.test(v))))) {
        return { markdown: explainMark(option ?? target.options[0]), range };
      }
      return { markdown: explainTarget(target.name, option, table?.name ?? 'filter'), range };
    }
  }
  for (const p of rule.params) {
    if (at(p.range)) return { markdown: explainOption('', p, 'param'), range: optionPartRange(p, position) };
  }
  return undefined;
}

function optionPartRange(o: Option, position: Position): Range {
  for (const r of o.valueRanges) if (containsPosition(r, position)) return r;
  return o.nameRange;
}

export function statusSummary(a: IptablesAnalysis): StatusSummary {
  const tables = a.ruleset.tables;
  return {
    dialect: 'iptables',
    kubeProxyMode: kubeProxyModeOfIptables(a.ruleset).mode,
    producer: a.ruleset.producer,
    backend: a.ruleset.backend,
    family: a.ruleset.family,
    tables: tables.length,
    chains: tables.reduce((n, tb) => n + tb.chains.length, 0),
    rules: tables.reduce((n, tb) => n + tb.rules.length, 0),
    services: a.catalog.services.length,
    ...problemCounts(a.diagnostics),
  };
}

export const iptablesFeatures: LanguageFeatures<IptablesAnalysis> = {
  languageId: 'iptables',
  analyze: analyzeIptables,
  definitionAt,
  referencesAt,
  outline,
  namedObjects,
  foldingRanges,
  hoverAt,
  statusSummary,
  services: (a) => a.catalog.services,
  semanticSymbols: (a, lines) => symbolsToSemantic(a.ruleset.symbols, (name) => isKubernetesNodeChain(name), lines),
};
