// The one place that builds the nft model (DESIGN §1): tables, chains, sets and maps, their symbol definitions,
// and the capped diagnostics. The text reader (parser.ts and its fast paths) and the JSON reader (json.ts) both
// write through an NftSink, so a table, chain or set is made the same way whichever front end read it.
//
// The text reader keeps its objects compact (ChainNode, ChainDefinition, StoredDefinition: a 10,000-Service dump
// declares some 100,000 chains, see docs/performance.md); the JSON reader keeps plain objects. `compact` says which.
import { StoredDefinition } from '../../model/stored-ranges';
import { MAX_DIAGNOSTICS, type Diagnostic, type Severity } from '../../model/diagnostics';
import type { NftChain, NftFamily, NftMap, NftSet, NftTable } from '../../model/nft';
import type { Range } from '../../model/range';
import { Symbols, type SymbolDefinition, type SymbolKind, type SymbolReference } from '../../model/symbols';
import { ChainDefinition, ChainNode } from './nodes';
import { EditedChains } from './ruleOrder';
import { DeletedChains } from './deletedChains';

export class NftSink {
  readonly diagnostics: Diagnostic[] = [];
  /** Problems past MAX_DIAGNOSTICS: counted, then summed up in one diagnostic (see summarize). */
  private suppressed = 0;
  readonly symbols: Symbols;
  readonly tables: NftTable[] = [];
  readonly tableById = new Map<string, NftTable>();
  /** Tables declared in this file: references into them must resolve here. */
  readonly declaredTables = new Set<string>();
  /** Chains that insert, replace or delete rule commands edit: their rules in a list until the end. */
  readonly edited = new EditedChains();
  /** `delete chain` commands, applied at the end. */
  readonly deletedChains = new DeletedChains();
  /** The table table() answered last (while it is in tableById). */
  private lastTable: NftTable | undefined;

  constructor(
    lineCount: number,
    /** Compact objects (the text reader) or plain ones (the JSON reader). */
    private readonly compact: boolean,
  ) {
    this.symbols = new Symbols(lineCount);
  }

  // ---------------------------------------------------------------------------------------------------
  // Diagnostics

  diag(range: Range, severity: Severity, code: string, message: string): void {
    if (this.diagnostics.length >= MAX_DIAGNOSTICS) {
      this.suppressed++;
      return;
    }
    this.diagnostics.push({ range, severity, code, message });
  }

  /** A diagnostic pushed past the cap (a summary). */
  append(diagnostic: Diagnostic): void {
    this.diagnostics.push(diagnostic);
  }

  /** The one warning that counts the problems not reported, if any were. */
  summarize(range: Range, message: (count: number) => string): void {
    if (this.suppressed > 0) this.append({ range, severity: 'warning', code: 'too-many-problems', message: message(this.suppressed) });
  }

  // ---------------------------------------------------------------------------------------------------
  // Tables

  /** The table `family name`, made (undeclared) if the file has not named it yet. */
  table(family: NftFamily, name: string, nameRange: Range, declRange: Range): NftTable {
    // Commands name the same table again and again (`add rule ip kube-proxy …`): no key built and looked up for those.
    const last = this.lastTable;
    if (last !== undefined && last.family === family && last.name === name) return last;
    const id = `${family} ${name}`;
    let table = this.tableById.get(id);
    if (!table) {
      table = {
        id,
        family,
        name,
        flags: [],
        chains: [],
        sets: [],
        maps: [],
        flowtables: [],
        objects: [],
        chainByName: new Map(),
        setByName: new Map(),
        mapByName: new Map(),
        range: declRange,
        nameRange,
        declared: false,
      };
      this.tables.push(table);
      this.tableById.set(id, table);
    }
    this.lastTable = table;
    return table;
  }

  /** Marks a table declared here (its first declaration's ranges stay); true when this is its first declaration. */
  declareTable(table: NftTable, nameRange: Range, declRange: Range): boolean {
    this.declaredTables.add(table.id);
    if (table.declared) return false;
    table.declared = true;
    table.range = declRange;
    table.nameRange = nameRange;
    return true;
  }

  /** The definition of table `family name`. */
  defineTable(family: NftFamily, name: string, nameRange: Range, declRange: Range): SymbolDefinition {
    const def: SymbolDefinition = this.compact ? new StoredDefinition('table', name, family, nameRange, declRange) : { kind: 'table', name, scope: family, range: nameRange, fullRange: declRange };
    this.symbols.define(def);
    return def;
  }

  removeTable(table: NftTable): void {
    if (table === this.lastTable) this.lastTable = undefined;
    const i = this.tables.indexOf(table);
    if (i >= 0) this.tables.splice(i, 1);
    this.tableById.delete(table.id);
  }

  /** `flush ruleset`. */
  removeAllTables(): void {
    this.lastTable = undefined;
    this.tables.length = 0;
    this.tableById.clear();
  }

  // ---------------------------------------------------------------------------------------------------
  // Chains, sets and maps

  /** A new chain of `table`, undeclared; `declRange` is also its full range. */
  newChain(table: NftTable, name: string, nameRange: Range, declRange: Range): NftChain {
    const chain: NftChain = this.compact ? new ChainNode(name, table.id, nameRange, declRange) : { name, tableId: table.id, flags: [], rules: [], range: declRange, nameRange, fullRange: declRange, declared: false };
    table.chains.push(chain);
    table.chainByName.set(name, chain);
    return chain;
  }

  /** The definition of a chain; `isNew` when no definition of that chain can exist yet (no lookup then). */
  defineChain(table: NftTable, chain: NftChain, nameRange: Range, declRange: Range, isNew: boolean): SymbolDefinition {
    const name = chain.name;
    let definition: SymbolDefinition;
    if (!this.compact) definition = { kind: 'chain', name, scope: table.id, range: nameRange, fullRange: declRange };
    else definition = chain instanceof ChainNode ? new ChainDefinition(name, table.id, chain) : new StoredDefinition('chain', name, table.id, nameRange, declRange);
    if (isNew) this.symbols.defineNew(definition, nameRange.start.line);
    else this.symbols.define(definition, nameRange.start.line);
    return definition;
  }

  /** A new set or map of `table`, with no type yet. */
  newSet(table: NftTable, kind: 'set' | 'map', name: string, nameRange: Range, declRange: Range, elements: NftSet['elements'] = []): NftSet | NftMap {
    const base = { name, tableId: table.id, keyType: [], keyTypeof: false, flags: [], extra: [], elements, range: declRange, nameRange, fullRange: declRange };
    if (kind === 'map') {
      const map: NftMap = { kind: 'map', ...base, dataType: [], dataTypeof: false };
      table.maps.push(map);
      table.mapByName.set(name, map);
      return map;
    }
    const set: NftSet = { kind: 'set', ...base };
    table.sets.push(set);
    table.setByName.set(name, set);
    return set;
  }

  /** The definition of a set, map, flowtable or stateful object of `table`. */
  defineObject(kind: SymbolKind, table: NftTable, name: string, nameRange: Range, declRange: Range): SymbolDefinition {
    const definition: SymbolDefinition = this.compact ? new StoredDefinition(kind, name, table.id, nameRange, declRange) : { kind, name, scope: table.id, range: nameRange, fullRange: declRange };
    this.symbols.define(definition, nameRange.start.line);
    return definition;
  }

  reference(reference: SymbolReference): void {
    this.symbols.reference(reference);
  }
}
