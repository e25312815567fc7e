// Symbol references kept as columns of numbers and shared strings, made into objects when asked: the
// nft text of 10,000 Services references some 235,000 chains and sets (a `jump mark-for-masquerade` in each
// endpoint chain, a `goto` per endpoint in each Service's vmap), and one object each, with its array slot, was some
// 17 MB of what an analysis kept. A reference here is four entries in chunked columns (17 bytes), its scope a run.
import type { Range } from '../range';
import { columnsRange, fitsColumns, packColumns } from './columns';
import { copyRange, fitsLine } from './ranges';
import type { ReferenceRole, SymbolKind, SymbolReference } from '../symbol-types';

const KINDS: readonly SymbolKind[] = ['chain', 'set', 'map', 'ipset', 'virtualService', 'table'];
const ROLES: readonly ReferenceRole[] = ['jump', 'goto', 'command', 'rule-owner', 'lookup'];

function kindIndex(kind: SymbolKind): number {
  const k = KINDS.indexOf(kind);
  if (k < 0) throw new RangeError(`ReferenceColumns: unknown kind ${kind}`);
  return k;
}

function roleIndex(role: ReferenceRole): number {
  const k = ROLES.indexOf(role);
  if (k < 0) throw new RangeError(`ReferenceColumns: unknown role ${role}`);
  return k;
}

/** Entries per chunk (a power of two): the columns grow by chunks, never by copying what they hold. */
const CHUNK_BITS = 13;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

export class ReferenceColumns {
  length = 0;
  readonly #names: string[][] = [];
  /** Scopes as runs (references come table by table): from reference #runStarts[k] on, #runScopes[k]. */
  readonly #runStarts: number[] = [];
  readonly #runScopes: string[] = [];
  readonly #lines: Int32Array[] = [];
  /** The range's columns (packColumns) when it is on one line and they fit; else -1 - k, the range being #wide[k]. */
  readonly #columns: Int32Array[] = [];
  /** kind index * 8 + role index. */
  readonly #kindRoles: Uint8Array[] = [];
  readonly #wide: Range[] = [];

  /** Adds a reference; its number (0, 1, …). */
  push(kind: SymbolKind, name: string, scope: string, role: ReferenceRole, range: Range): number {
    const i = this.length++;
    const slot = i & MASK;
    if (slot === 0) {
      this.#names.push(new Array<string>(CHUNK));
      this.#lines.push(new Int32Array(CHUNK));
      this.#columns.push(new Int32Array(CHUNK));
      this.#kindRoles.push(new Uint8Array(CHUNK));
    }
    const c = i >> CHUNK_BITS;
    const { start, end } = range;
    this.#names[c][slot] = name;
    const runs = this.#runScopes.length;
    if (runs === 0 || this.#runScopes[runs - 1] !== scope) {
      this.#runStarts.push(i);
      this.#runScopes.push(scope);
    }
    this.#lines[c][slot] = start.line;
    if (start.line === end.line && fitsColumns(start.character, end.character) && fitsLine(start.line)) {
      this.#columns[c][slot] = packColumns(start.character, end.character);
    } else {
      this.#columns[c][slot] = -1 - this.#wide.length;
      this.#wide.push(copyRange(range));
    }
    this.#kindRoles[c][slot] = kindIndex(kind) * 8 + roleIndex(role);
    return i;
  }

  name(i: number): string {
    return this.#names[i >> CHUNK_BITS][i & MASK];
  }

  scope(i: number): string {
    // The last run starting at or before i.
    const starts = this.#runStarts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (starts[mid] <= i) low = mid;
      else high = mid - 1;
    }
    return this.#runScopes[low];
  }

  kind(i: number): SymbolKind {
    return KINDS[this.#kindRoles[i >> CHUNK_BITS][i & MASK] >> 3];
  }

  /** Changes the kind of reference `i` (the nft parser knows whether `@name` is a set or a map at the end). */
  setKind(i: number, kind: SymbolKind): void {
    const chunk = this.#kindRoles[i >> CHUNK_BITS];
    chunk[i & MASK] = kindIndex(kind) * 8 + (chunk[i & MASK] & 7);
  }

  role(i: number): ReferenceRole {
    return ROLES[this.#kindRoles[i >> CHUNK_BITS][i & MASK] & 7];
  }

  /** The line the range of reference `i` starts on. */
  line(i: number): number {
    const packed = this.#columns[i >> CHUNK_BITS][i & MASK];
    return packed >= 0 ? this.#lines[i >> CHUNK_BITS][i & MASK] : this.#wide[-1 - packed].start.line;
  }

  /** The range of reference `i` (a new object each time). */
  range(i: number): Range {
    const packed = this.#columns[i >> CHUNK_BITS][i & MASK];
    return packed >= 0 ? columnsRange(this.#lines[i >> CHUNK_BITS][i & MASK], packed) : copyRange(this.#wide[-1 - packed]);
  }

  /** Reference `i` as an object (a new one each time: compare references by value). */
  reference(i: number): SymbolReference {
    return { kind: this.kind(i), name: this.name(i), scope: this.scope(i), range: this.range(i), role: this.role(i) };
  }
}
