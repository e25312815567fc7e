// The chain and set references of an nft text, kept until the end of the parse (a name may be defined after its
// use) and then resolved: indexed by the symbol table, and reported when they name nothing, name something a later
// command adds (nft -f runs commands in order), or jump to a base chain. Also where each definition starts to
// exist (the command number), which that needs.
import type { Severity } from '../../model/diagnostics';
import type { NftTable } from '../../model/nft';
import type { Range } from '../../model/range';
import { ReferenceColumns } from '../../model/compact/references';
import type { ReferenceRole, SymbolDefinition, Symbols } from '../../model/symbols';
import { t } from '../../l10n';

interface Defined {
  definition: SymbolDefinition;
  /** Sequence number of the command from which it exists. */
  seq: number;
}

export interface TableDefs {
  /**
   * The command from which each chain exists: chainSeq, the first chain's, unless laterChains says otherwise.
   * Whether a chain is defined is whether the symbol table has its definition. A table block is one command: its
   * 100,000 chains need no map (docs/performance.md#memory).
   */
  chainSeq: number;
  laterChains: Map<string, number>;
  /** Sets and maps share one namespace in nft. */
  sets: Map<string, Defined>;
}

export class PendingReferences {
  /** The references pending until the end of the parse (then indexed by the symbol table, which keeps these columns). */
  private readonly pending = new ReferenceColumns();
  /**
   * The table and command number of the pending references, as runs: from reference runStarts[k] on, runTables[k]
   * and runSeqs[k] (a table block is one command, so a dump is a few runs).
   */
  private readonly runStarts: number[] = [];
  private readonly runTables: NftTable[] = [];
  private readonly runSeqs: number[] = [];
  /** Per table id: the first definition of each chain and set/map, and from which command on it exists. */
  private readonly defs = new Map<string, TableDefs>();

  /** The definitions of table `tableId` so far. */
  defsOf(tableId: string): TableDefs {
    let d = this.defs.get(tableId);
    if (!d) this.defs.set(tableId, (d = { chainSeq: -1, laterChains: new Map(), sets: new Map() }));
    return d;
  }

  /** A reference to `name` (the shared string) in `table`, made by command number `seq`. */
  add(kind: 'chain' | 'set', table: NftTable, name: string, range: Range, role: ReferenceRole, seq: number): void {
    const runs = this.runTables.length;
    if (runs === 0 || this.runTables[runs - 1] !== table || this.runSeqs[runs - 1] !== seq) {
      this.runStarts.push(this.pending.length);
      this.runTables.push(table);
      this.runSeqs.push(seq);
    }
    this.pending.push(kind, name, table.id, role, range);
  }

  /**
   * Indexes every pending reference in `symbols` and reports those to nothing, to something defined later, and
   * jumps to base chains.
   */
  resolve(symbols: Symbols, declaredTables: ReadonlySet<string>, diag: (range: Range, severity: Severity, code: string, message: string) => void): void {
    const reported = new Set<string>();
    // Per table: the names of its base chains (a few), not a lookup among all its chains per jump.
    const baseChainNames = new Map<NftTable, Set<string>>();
    const baseChainsOf = (table: NftTable): Set<string> => {
      let names = baseChainNames.get(table);
      if (names === undefined) {
        names = new Set();
        for (const [name, chain] of table.chainByName) if (chain.hook !== undefined) names.add(name);
        baseChainNames.set(table, names);
      }
      return names;
    };
    let run = -1;
    let table = this.runTables[0];
    let seq = this.runSeqs[0];
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++) {
      const name = pending.name(i);
      const scope = pending.scope(i);
      const role = pending.role(i);
      if (this.runStarts[run + 1] === i) {
        run++;
        table = this.runTables[run];
        seq = this.runSeqs[run];
      }
      const d = this.defs.get(scope);
      let definition: SymbolDefinition | undefined;
      let available: number | undefined;
      const isChain = pending.kind(i) === 'chain';
      if (d !== undefined && isChain) {
        definition = symbols.definition('chain', scope, name);
        if (definition !== undefined) available = d.laterChains.get(name) ?? d.chainSeq;
      } else if (d !== undefined) {
        const defined = d.sets.get(name);
        definition = defined?.definition;
        available = defined?.seq;
      }
      if (!isChain) pending.setKind(i, definition?.kind ?? 'set');
      const kind = pending.kind(i);
      symbols.indexColumn(pending, i);
      const declaredHere = declaredTables.has(table.id);
      if (available === undefined) {
        if (role === 'command' && !declaredHere) continue;
        const range = pending.range(i);
        const rk = `${kind}\u0000${table.id}\u0000${name}\u0000${range.start.line}\u0000${range.start.character}`;
        if (reported.has(rk)) continue;
        reported.add(rk);
        const severity: Severity = declaredHere ? 'error' : 'warning';
        if (isChain) {
          diag(
            range,
            severity,
            'undefined-chain',
            declaredHere ? t('No chain {0} in table {1}.', name, table.id) : t('No chain {0} in table {1} in this file: nft accepts this only when the kernel already has it.', name, table.id),
          );
        } else {
          diag(
            range,
            severity,
            'undefined-set',
            declaredHere ? t('No set or map {0} in table {1}.', name, table.id) : t('No set or map {0} in table {1} in this file: nft accepts this only when the kernel already has it.', name, table.id),
          );
        }
      } else if (available > seq) {
        diag(pending.range(i), 'warning', 'defined-later', t('{0} is only added on line {1}: nft -f runs commands in order, so this one fails ("No such file or directory").', name, definition!.range.start.line + 1));
      } else if ((role === 'jump' || role === 'goto') && baseChainsOf(table).has(name)) {
        diag(pending.range(i), 'error', 'jump-to-base-chain', t('{0} is a base chain (it has a hook): the kernel refuses jump and goto to it ("Operation not supported").', name));
      }
    }
  }
}
