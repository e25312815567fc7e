// A parsed model as plain data, to compare two parses of one text deeply (accelerators on and off): getters of the
// compact nodes read, Maps and Symbols as entries, undefined values dropped.
import { Symbols } from '../../src/core/model/symbols';
import type { NftRuleset } from '../../src/core/model/nft';

/**
 * A model object as plain data: its own enumerable properties and the getters of its classes, read
 * recursively; undefined values count as absent (as toEqual counts them). Maps become entry lists.
 */
export function plainModel(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(plainModel);
  if (value instanceof Map) return [...value.entries()].map(([k, v]) => [k, entry(v)]);
  if (value instanceof Symbols) return { definitions: plainModel(value.definitions), references: plainModel(value.references) };
  const keys = new Set(Object.keys(value));
  for (const k of getterNames(Object.getPrototypeOf(value))) keys.add(k);
  const out: Record<string, unknown> = {};
  for (const k of [...keys].sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = plainModel(v);
  }
  return out;
}

/** The getters of a prototype chain, looked up once per class: the walk above meets some 10⁵ nodes a dump. */
const getters = new WeakMap<object, string[]>();
function getterNames(proto: object | null): string[] {
  if (!proto || proto === Object.prototype) return [];
  let names = getters.get(proto);
  if (!names) {
    names = [
      ...Object.entries(Object.getOwnPropertyDescriptors(proto))
        .filter(([, d]) => d.get)
        .map(([k]) => k),
      ...getterNames(Object.getPrototypeOf(proto)),
    ];
    getters.set(proto, names);
  }
  return names;
}

/** A set or service (compared in full in its list) by name and line; a per-line index value with those as references. */
const isContainer = (v: unknown): v is { name: string; line: number } => typeof v === 'object' && v !== null && ('members' in v || 'realServers' in v);
function entry(v: unknown): unknown {
  if (isContainer(v)) return { ref: v.name, line: v.line };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return plainModel(v);
  const out: Record<string, unknown> = {};
  for (const k of ['set', 'service', 'server', 'member', 'range', 'key', 'keyRange']) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) out[k] = isContainer(x) ? { ref: x.name, line: x.line } : plainModel(x);
  }
  return Object.keys(out).length > 0 ? out : plainModel(v);
}

/**
 * The nft model as plain data, without the line a LazyRule keeps to read itself again (not part of NftRule), with
 * every reference (the text reader keeps its references as columns, which `references` does not list).
 */
export function plainNft(model: NftRuleset): unknown {
  const plain = plainModel(model) as { tables: { chains: { rules: { line?: number }[] }[] }[]; allReferences?: unknown };
  for (const table of plain.tables) for (const chain of table.chains) for (const rule of chain.rules) delete rule.line;
  plain.allReferences = plainModel(model.symbols.allReferences());
  return plain;
}
