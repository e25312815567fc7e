// The words of the symbol index (what a definition and a reference are), apart from the index itself
// (symbols.ts) so that the packed stores it uses (reference-columns.ts, stored-ranges.ts) can name them.
import type { Range } from './range';

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
