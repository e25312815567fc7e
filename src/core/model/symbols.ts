import { containsPosition, type Position, type Range } from './range';

export type SymbolKind = 'chain' | 'set' | 'map' | 'ipset' | 'virtualService' | 'table';

/** A named thing that can be jumped to. `scope` keeps equal names in different tables apart. */
export interface SymbolDefinition {
  kind: SymbolKind;
  name: string;
  scope: string;
  /** The name itself (selection range). */
  range: Range;
  /** The whole declaration, e.g. a chain with all its rules (folding / outline). */
  fullRange: Range;
  builtin?: boolean;
}

export type ReferenceRole = 'jump' | 'goto' | 'command' | 'rule-owner' | 'lookup';

export interface SymbolReference {
  kind: SymbolKind;
  name: string;
  scope: string;
  range: Range;
  role: ReferenceRole;
}

export type SymbolHit =
  | { type: 'definition'; definition: SymbolDefinition }
  | { type: 'reference'; reference: SymbolReference };

/** The symbol table of one document: definitions and references, indexed for position lookups. */
export class Symbols {
  readonly definitions: SymbolDefinition[] = [];
  readonly references: SymbolReference[] = [];
  private readonly definitionIndex = new Map<string, SymbolDefinition>();
  private readonly referenceIndex = new Map<string, SymbolReference[]>();
  private readonly byLine = new Map<number, SymbolHit[]>();

  private static key(kind: SymbolKind, scope: string, name: string): string {
    return `${kind}\u0000${scope}\u0000${name}`;
  }

  define(definition: SymbolDefinition): void {
    const key = Symbols.key(definition.kind, definition.scope, definition.name);
    if (!this.definitionIndex.has(key)) this.definitionIndex.set(key, definition);
    this.definitions.push(definition);
    this.index(definition.range.start.line, { type: 'definition', definition });
  }

  reference(reference: SymbolReference): void {
    const key = Symbols.key(reference.kind, reference.scope, reference.name);
    let list = this.referenceIndex.get(key);
    if (!list) this.referenceIndex.set(key, (list = []));
    list.push(reference);
    this.references.push(reference);
    this.index(reference.range.start.line, { type: 'reference', reference });
  }

  private index(line: number, hit: SymbolHit): void {
    let hits = this.byLine.get(line);
    if (!hits) this.byLine.set(line, (hits = []));
    hits.push(hit);
  }

  /** The first definition of a name (a redefinition is reported by the parser). */
  definition(kind: SymbolKind, scope: string, name: string): SymbolDefinition | undefined {
    return this.definitionIndex.get(Symbols.key(kind, scope, name));
  }

  referencesTo(kind: SymbolKind, scope: string, name: string): readonly SymbolReference[] {
    return this.referenceIndex.get(Symbols.key(kind, scope, name)) ?? [];
  }

  /** The definition or reference under a position, if any. */
  at(position: Position): SymbolHit | undefined {
    for (const hit of this.byLine.get(position.line) ?? []) {
      const r = hit.type === 'definition' ? hit.definition.range : hit.reference.range;
      if (containsPosition(r, position)) return hit;
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
