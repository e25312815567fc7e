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
  /** Definitions and references by line: one entry as it is, several in an array (large dumps have one per line). */
  private readonly byLine = new Map<number, SymbolDefinition | SymbolReference | (SymbolDefinition | SymbolReference)[]>();

  private static key(kind: SymbolKind, scope: string, name: string): string {
    return `${kind}\u0000${scope}\u0000${name}`;
  }

  define(definition: SymbolDefinition): void {
    const key = Symbols.key(definition.kind, definition.scope, definition.name);
    if (!this.definitionIndex.has(key)) this.definitionIndex.set(key, definition);
    this.definitions.push(definition);
    this.index(definition.range.start.line, definition);
  }

  /** `line` (the range's start line) lets models whose ranges are made on demand avoid making one here. */
  reference(reference: SymbolReference, line: number = reference.range.start.line): void {
    const key = Symbols.key(reference.kind, reference.scope, reference.name);
    let list = this.referenceIndex.get(key);
    if (!list) this.referenceIndex.set(key, (list = []));
    list.push(reference);
    this.references.push(reference);
    this.index(line, reference);
  }

  private index(line: number, entry: SymbolDefinition | SymbolReference): void {
    const known = this.byLine.get(line);
    if (known === undefined) this.byLine.set(line, entry);
    else if (Array.isArray(known)) known.push(entry);
    else this.byLine.set(line, [known, entry]);
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
    const known = this.byLine.get(position.line);
    if (known === undefined) return undefined;
    for (const entry of Array.isArray(known) ? known : [known]) {
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
