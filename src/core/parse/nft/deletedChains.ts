// `delete chain` commands, applied without searching and splicing the table's chain list for each (a file
// deleting its 40,000 chains first to last took 3 s, growing with the square of their number).
import type { NftChain, NftTable } from '../../model/nft';

/** The chains deleted from each table, marked while parsing and dropped by apply() at the end. */
export class DeletedChains {
  private readonly gone = new Map<NftTable, Set<NftChain>>();

  delete(table: NftTable, chain: NftChain): void {
    let chains = this.gone.get(table);
    if (!chains) this.gone.set(table, (chains = new Set()));
    chains.add(chain);
  }

  /** The table's chains not deleted so far. */
  live(table: NftTable): NftChain[] {
    const chains = this.gone.get(table);
    return chains ? table.chains.filter((c) => !chains.has(c)) : table.chains;
  }

  /** Drops the deleted chains from their tables. */
  apply(): void {
    for (const [table, chains] of this.gone) table.chains = table.chains.filter((c) => !chains.has(c));
    this.gone.clear();
  }
}
