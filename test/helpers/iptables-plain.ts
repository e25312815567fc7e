// The iptables model as plain data, read through its public interface (getters included), so that two
// models can be compared with toEqual whatever classes and lazy ranges implement them.
import type { IptablesRuleset, Match, Option, Rule, Target } from '../../src/core/model/iptables';
import type { Range } from '../../src/core/model/range';
import { RuleFacts } from '../../src/core/parse/iptables/rule-facts';

const range = (r: Range | undefined) => r && { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };

const option = (o: Option) => ({
  name: o.name,
  negated: o.negated,
  values: [...o.values],
  range: range(o.range),
  nameRange: range(o.nameRange),
  valueRanges: o.valueRanges.map(range),
});

const match = (m: Match) => ({ module: m.module, implicit: m.implicit, range: range(m.range), moduleRange: range(m.moduleRange), options: m.options.map(option) });

const target = (tg: Target | undefined) => tg && { kind: tg.kind, name: tg.name, range: range(tg.range), nameRange: range(tg.nameRange), options: tg.options.map(option) };

const facts = new RuleFacts();

/** What the Service catalog reads of the rule (the facts the parser kept), and whether the line told it. */
export function plainFacts(r: Rule) {
  const f = facts.read(r);
  return {
    fromLine: (f as unknown as { fromLine: boolean }).fromLine,
    comment: f.comment(),
    protocol: f.protocol(),
    port: f.destinationPort(),
    source: f.source(),
    affinity: f.isAffinityCheck(),
    seconds: f.affinitySeconds(),
  };
}

export const plainRule = (r: Rule) => ({
  tableId: r.tableId,
  chain: r.chain,
  index: r.index,
  operation: r.operation,
  position: r.position,
  raw: r.raw,
  range: range(r.range),
  chainRange: range(r.chainRange),
  counters: r.counters && { packets: r.counters.packets, bytes: r.counters.bytes, range: range(r.counters.range) },
  params: r.params.map(option),
  matches: r.matches.map(match),
  target: target(r.target),
  facts: plainFacts(r),
});

export function plainRuleset(r: IptablesRuleset) {
  return {
    producer: r.producer,
    backend: r.backend,
    family: r.family,
    lineCount: r.lineCount,
    saves: r.saves.map((s) => ({ ...s, headerRange: range(s.headerRange) })),
    headers: r.headers.map((h) => ({ ...h, range: range(h.range) })),
    diagnostics: r.diagnostics.map((d) => ({ ...d, range: range(d.range) })),
    tables: r.tables.map((tb) => ({
      id: tb.id,
      name: tb.name,
      family: tb.family,
      saveIndex: tb.saveIndex,
      headerRange: range(tb.headerRange),
      commitRange: range(tb.commitRange),
      range: range(tb.range),
      chainNames: [...tb.chainByName.keys()],
      chains: tb.chains.map((c) => ({
        name: c.name,
        tableId: c.tableId,
        builtin: c.builtin,
        declared: c.declared,
        policy: c.policy,
        counters: c.counters && { packets: c.counters.packets, bytes: c.counters.bytes, range: range(c.counters.range) },
        range: range(c.range),
        nameRange: range(c.nameRange),
        fullRange: range(c.fullRange),
        deletedAt: range(c.deletedAt),
        ruleLines: c.rules.map((x) => x.range.start.line),
      })),
      rules: tb.rules.map(plainRule),
      commands: tb.commands.map((c) => ({ ...c, range: range(c.range), chainRange: range(c.chainRange) })),
    })),
    tableIds: [...r.tableById.keys()],
    definitions: r.symbols.definitions.map((d) => ({ kind: d.kind, name: d.name, scope: d.scope, range: range(d.range), fullRange: range(d.fullRange), builtin: d.builtin })),
    references: r.symbols.allReferences().map((x) => ({ kind: x.kind, name: x.name, scope: x.scope, role: x.role, range: range(x.range) })),
    ruleLines: [...r.ruleByLine.keys()],
  };
}
