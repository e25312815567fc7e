// Answers of the analysis worker as plain data. Models make ranges and other values on demand with getters
// (docs/performance.md#memory: a large dump would otherwise keep millions of small objects), and a worker message is a structured
// clone, which copies own properties only: what a getter answers must become a property before it travels.

/** Getter names of each prototype (models have few classes: found once each). */
const gettersOf = new WeakMap<object, string[]>();

function getters(proto: object): string[] {
  let names = gettersOf.get(proto);
  if (names === undefined) {
    names = [];
    for (let p: object | null = proto; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) if (d.get && !names.includes(name)) names.push(name);
    }
    gettersOf.set(proto, names);
  }
  return names;
}

/**
 * `value` with every object's getters turned into properties (deeply; the object's own properties first).
 * Plain objects, arrays, Maps and Sets without getter-made objects inside are returned as they are; typed arrays
 * are left to the structured clone.
 */
export function plainData<T>(value: T): T {
  return convert(value, new Map()) as T;
}

/** `seen`: each object converted so far (shared objects stay shared; a cycle leads back to the original). */
function convert(value: unknown, seen: Map<object, unknown>): unknown {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (seen.has(value)) return seen.get(value);
  seen.set(value, value);
  const out = convertObject(value, seen);
  seen.set(value, out);
  return out;
}

function convertObject(value: object, seen: Map<object, unknown>): unknown {
  if (value instanceof Map) {
    let changed = false;
    const entries = [...value].map(([k, v]) => {
      const converted = convert(v, seen);
      changed ||= converted !== v;
      return [k, converted] as const;
    });
    // A subclass (LineMap, SortedLineMap) may keep its entries outside the Map: the structured clone would drop them.
    return changed || Object.getPrototypeOf(value) !== Map.prototype ? new Map(entries) : value;
  }
  if (value instanceof Set) {
    const before = [...value];
    const items = before.map((item) => convert(item, seen));
    return Object.getPrototypeOf(value) !== Set.prototype || items.some((item, i) => item !== before[i]) ? new Set(items) : value;
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const converted = convert(item, seen);
      if (converted !== item) (out ??= value.slice())[i] = converted;
    }
    return out ?? value;
  }
  const proto = Object.getPrototypeOf(value) as object | null;
  const names = proto === null || proto === Object.prototype ? undefined : getters(proto);
  let out: Record<string, unknown> | undefined;
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const item = source[key];
    const converted = convert(item, seen);
    if (converted !== item) (out ??= { ...source })[key] = converted;
  }
  if (names !== undefined) {
    out ??= { ...source };
    for (const name of names) if (!(name in out)) out[name] = convert(source[name], seen);
  }
  return out ?? value;
}
