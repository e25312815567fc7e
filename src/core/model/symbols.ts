import { containsPosition, type Position } from './range';
import type { ReferenceColumns } from './compact/references';
import { grown } from './typed-arrays';
import type { SymbolDefinition, SymbolKind, SymbolReference } from './symbol-types';

export type { ReferenceRole, SymbolDefinition, SymbolKind, SymbolReference } from './symbol-types';

/**
 * References a model keeps in its own objects and makes when asked (the owner chain of every rule of a
 * 400,000-line iptables dump, one object each otherwise): found by position and listed by allReferences, never
 * by name (referencesTo), at most one per line.
 */
export interface DerivedReferences {
  at(line: number): SymbolReference | undefined;
  all(): Iterable<SymbolReference>;
}

export type SymbolHit = { type: 'definition'; definition: SymbolDefinition } | { type: 'reference'; reference: SymbolReference };

/**
 * Below this length a list grows by copying into an array of the exact size: `push` would reserve room for
 * about 20 entries, and most names have two or three references.
 */
const SMALL = 8;

function appended<T>(list: T[], item: T): T[] {
  const n = list.length;
  const out = new Array<T>(n + 1);
  for (let i = 0; i < n; i++) out[i] = list[i];
  out[n] = item;
  return out;
}

/** A reference as the name index keeps it: the object, or its number in the symbol table's ReferenceColumns. */
type StoredReference = SymbolReference | number;

/** name → value, for one kind and scope. */
type NameMap<T> = Map<string, T>;

/**
 * The symbol table of one document: definitions and references, indexed for position lookups.
 *
 * Large dumps define and reference hundreds of thousands of names, so the indexes are nested maps
 * (kind → scope → name) keyed by the strings the entries already hold (no composite key string is built,
 * hashed or kept per entry), a name referenced once keeps its reference without an array, and the
 * per-line index lives in typed arrays.
 */
export class Symbols {
  readonly definitions: SymbolDefinition[] = [];
  /** The references stored here; allReferences adds the derived ones. */
  readonly references: SymbolReference[] = [];
  /** References kept as columns (indexColumn), after the objects in `references`. */
  private columns: ReferenceColumns | undefined;
  private derived: DerivedReferences | undefined;
  private readonly definitionIndex = new Map<SymbolKind, Map<string, NameMap<SymbolDefinition>>>();
  /** A name's references: objects, and numbers for those in `columns`. */
  private readonly referenceIndex = new Map<SymbolKind, Map<string, NameMap<StoredReference | StoredReference[]>>>();
  /**
   * Definitions and references by line, as linked lists in typed arrays: `heads[line]` and `tails[line]` are
   * the first and last entry of the line, `next[entry]` the one after it, `slots[entry]` which definition or
   * reference it is.
   */
  private count = 0;
  private heads: Int32Array<ArrayBuffer>;
  private tails: Int32Array<ArrayBuffer>;
  private next = new Int32Array(0);
  private slots = new Int32Array(0);
  // The name map of the last kind and scope used: consecutive entries are mostly in the same table.
  private lastDefKind: SymbolKind | undefined;
  private lastDefScope: string | undefined;
  private lastDefNames: NameMap<SymbolDefinition> | undefined;
  private lastRefKind: SymbolKind | undefined;
  private lastRefScope: string | undefined;
  private lastRefNames: NameMap<StoredReference | StoredReference[]> | undefined;
  /** A name with SMALL or more references, of the last kind and scope, and its list (see byName). */
  private lastRefName = '';
  private lastRefList: StoredReference[] | undefined;

  /**
   * `lineCount`: the document's lines, when the parser knows them: the per-line index is made that size at once
   * instead of growing by half again and again (a 591,000-line dump left some 14 MB of outgrown copies for the
   * garbage collector, part of the analysis' peak memory).
   */
  constructor(lineCount = 0) {
    const size = Number.isInteger(lineCount) && lineCount > 0 ? lineCount : 0;
    this.heads = new Int32Array(size);
    this.tails = new Int32Array(size);
  }

  private static names<T>(index: Map<SymbolKind, Map<string, NameMap<T>>>, kind: SymbolKind, scope: string, create: true): NameMap<T>;
  private static names<T>(index: Map<SymbolKind, Map<string, NameMap<T>>>, kind: SymbolKind, scope: string, create: false): NameMap<T> | undefined;
  private static names<T>(index: Map<SymbolKind, Map<string, NameMap<T>>>, kind: SymbolKind, scope: string, create: boolean): NameMap<T> | undefined {
    let scopes = index.get(kind);
    if (scopes === undefined) {
      if (!create) return undefined;
      index.set(kind, (scopes = new Map()));
    }
    let names = scopes.get(scope);
    if (names === undefined && create) scopes.set(scope, (names = new Map()));
    return names;
  }

  /** `line` (the name's start line) lets models whose ranges are made on demand avoid making one here. */
  define(definition: SymbolDefinition, line: number = definition.range.start.line): void {
    const names = this.definitionNames(definition);
    const name = definition.name;
    if (!names.has(name)) names.set(name, definition);
    this.index(line, this.definitions.push(definition) - 1);
  }

  /**
   * define, for a name the caller knows has no definition yet (a chain it has just made): one lookup fewer in a
   * map of 100,000 names for each.
   */
  defineNew(definition: SymbolDefinition, line: number = definition.range.start.line): void {
    this.definitionNames(definition).set(definition.name, definition);
    this.index(line, this.definitions.push(definition) - 1);
  }

  private definitionNames(definition: SymbolDefinition): NameMap<SymbolDefinition> {
    const { kind, scope } = definition;
    let names = this.lastDefNames;
    if (names === undefined || kind !== this.lastDefKind || scope !== this.lastDefScope) {
      names = this.lastDefNames = Symbols.names(this.definitionIndex, kind, scope, true);
      this.lastDefKind = kind;
      this.lastDefScope = scope;
    }
    return names;
  }

  /**
   * `line` (the range's start line) lets models whose ranges are made on demand avoid making one here.
   * `byName: false` leaves the reference out of referencesTo (still found by position and listed in `references`):
   * for references no caller of referencesTo wants, such as the owner chain of each of 300,000 iptables rules.
   */
  reference(reference: SymbolReference, line: number = reference.range.start.line, byName = true): void {
    if (!byName) {
      this.index(line, ~((this.references.push(reference) - 1) * 2));
      return;
    }
    this.byName(reference.kind, reference.scope, reference.name, reference);
    this.index(line, ~((this.references.push(reference) - 1) * 2));
  }

  /**
   * Indexes reference `i` of `columns` (the same columns for every call: a symbol table keeps one), by name and by
   * the line it starts on. allReferences and referencesTo make objects of them when asked.
   */
  indexColumn(columns: ReferenceColumns, i: number): void {
    if (this.columns === undefined) this.columns = columns;
    else if (this.columns !== columns) throw new Error('Symbols.indexColumn: one ReferenceColumns per symbol table');
    this.byName(columns.kind(i), columns.scope(i), columns.name(i), i);
    this.index(columns.line(i), ~(i * 2 + 1));
  }

  private byName(kind: SymbolKind, scope: string, name: string, reference: StoredReference): void {
    let names = this.lastRefNames;
    if (names === undefined || kind !== this.lastRefKind || scope !== this.lastRefScope) {
      names = this.lastRefNames = Symbols.names(this.referenceIndex, kind, scope, true);
      this.lastRefKind = kind;
      this.lastRefScope = scope;
      this.lastRefList = undefined;
    }
    // The long list of the name referenced last (every endpoint chain of a dump jumps to the masquerade chain):
    // grown in place, without a lookup in a map of 100,000 names.
    const list = this.lastRefList;
    if (list !== undefined && name === this.lastRefName) {
      list.push(reference);
      return;
    }
    const known = names.get(name);
    if (known === undefined) names.set(name, reference);
    else if (!Array.isArray(known)) names.set(name, [known, reference]);
    else if (known.length < SMALL) names.set(name, appended(known, reference));
    else {
      known.push(reference);
      this.lastRefName = name;
      this.lastRefList = known;
    }
  }

  /** A stored reference as an object: itself, or the one made of its columns. */
  private referenceOf(stored: StoredReference): SymbolReference {
    return typeof stored === 'number' ? this.columns!.reference(stored) : stored;
  }

  /** The reference of a line-index slot (~(i * 2) for references[i], ~(i * 2 + 1) for column i). */
  private referenceOfSlot(slot: number): SymbolReference {
    const id = ~slot;
    return id & 1 ? this.columns!.reference(id >>> 1) : this.references[id >>> 1];
  }

  /** `slot`: a definition's number, or the bitwise complement of a reference's id (see referenceOfSlot). */
  private index(line: number, slot: number): void {
    if (!(line >= 0 && line <= 0x7fffffff)) return; // not a line (ranges are made by our parsers: never happens)
    const n = this.count++;
    if (n === this.slots.length) {
      const size = Math.max(1024, Math.ceil(n * 1.5));
      this.slots = grown(this.slots, size);
      this.next = grown(this.next, size);
    }
    this.slots[n] = slot;
    if (line >= this.heads.length) {
      const size = Math.max(1024, line + 1, Math.ceil(this.heads.length * 1.5));
      this.heads = grown(this.heads, size);
      this.tails = grown(this.tails, size);
    }
    // Entry numbers are stored plus one (0 is "none"); a line's entries stay in the order they were added.
    const last = this.tails[line];
    if (last === 0) this.heads[line] = n + 1;
    else this.next[last - 1] = n + 1;
    this.tails[line] = n + 1;
  }

  /** Adds references made on demand (see DerivedReferences). */
  derive(references: DerivedReferences): void {
    this.derived = references;
  }

  /** Every reference: the stored objects, those kept as columns, then the derived ones. */
  allReferences(): SymbolReference[] {
    if (this.derived === undefined && this.columns === undefined) return this.references;
    const out = [...this.references];
    const columns = this.columns;
    if (columns !== undefined) for (let i = 0; i < columns.length; i++) out.push(columns.reference(i));
    if (this.derived !== undefined) for (const r of this.derived.all()) out.push(r);
    return out;
  }

  /** The first definition of a name (a redefinition is reported by the parser). */
  definition(kind: SymbolKind, scope: string, name: string): SymbolDefinition | undefined {
    return Symbols.names(this.definitionIndex, kind, scope, false)?.get(name);
  }

  referencesTo(kind: SymbolKind, scope: string, name: string): readonly SymbolReference[] {
    const known = Symbols.names(this.referenceIndex, kind, scope, false)?.get(name);
    if (known === undefined) return [];
    if (!Array.isArray(known)) return [this.referenceOf(known)];
    // Objects only: the list itself (no copy); else a list with the column references made.
    return this.columns === undefined ? (known as SymbolReference[]) : known.map((r) => this.referenceOf(r));
  }

  /**
   * The definitions and references indexed on `line`, in the order of `definitions` then allReferences (stored
   * references, columns, derived): what a walk over both lists meets on that line, without walking them.
   */
  onLine(line: number): (SymbolDefinition | SymbolReference)[] {
    if (!Number.isInteger(line) || line < 0) return [];
    const slots: number[] = [];
    if (line < this.heads.length) for (let k = this.heads[line]; k !== 0; k = this.next[k - 1]) slots.push(this.slots[k - 1]);
    // Definitions (slot ≥ 0) by number, then references[i] (~slot = 2i), then column i (~slot = 2i + 1).
    const order = (slot: number) => (slot >= 0 ? slot : ~slot & 1 ? 2 ** 52 + (~slot >>> 1) : 2 ** 51 + (~slot >>> 1));
    slots.sort((a, b) => order(a) - order(b));
    const out: (SymbolDefinition | SymbolReference)[] = slots.map((slot) => (slot >= 0 ? this.definitions[slot] : this.referenceOfSlot(slot)));
    const derived = this.derived?.at(line);
    if (derived !== undefined) out.push(derived);
    return out;
  }

  /** The definition or reference under a position, if any. */
  at(position: Position): SymbolHit | undefined {
    const line = position.line;
    if (!Number.isInteger(line) || line < 0) return undefined;
    const derived = this.derived?.at(line);
    if (derived !== undefined && containsPosition(derived.range, position)) return { type: 'reference', reference: derived };
    if (line >= this.heads.length) return undefined;
    for (let k = this.heads[line]; k !== 0; k = this.next[k - 1]) {
      const slot = this.slots[k - 1];
      const entry = slot >= 0 ? this.definitions[slot] : this.referenceOfSlot(slot);
      if (!containsPosition(entry.range, position)) continue;
      // Only references have a role.
      return 'role' in entry ? { type: 'reference', reference: entry } : { type: 'definition', definition: entry };
    }
    return undefined;
  }

  /** Resolves whatever is under the cursor to the definition it names. */
  resolve(position: Position): SymbolDefinition | undefined {
    const hit = this.at(position);
    if (!hit) return undefined;
    if (hit.type === 'definition') return hit.definition;
    const { kind, scope, name } = hit.reference;
    return this.definition(kind, scope, name);
  }
}
