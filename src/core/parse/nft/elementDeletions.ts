// `delete element` commands, applied without filtering the whole element list for each: a file deleting the
// 40,000 elements it added one by one took 166 s.
import type { NftElement } from '../../model/nft';

const keyOf = (e: NftElement): string => e.key.join('\u0000');

interface Deleted {
  /** How many elements of the list are indexed in byKey (the list only grows while parsing). */
  indexed: number;
  byKey: Map<string, NftElement[]>;
  gone: Set<NftElement>;
}

/**
 * The elements deleted from each list, marked while parsing and dropped by apply() at the end. A list is keyed by
 * the array itself (a flush gives its set a new one). Indexed on its first deletion, and from there on only the
 * elements added since each.
 */
export class ElementDeletions {
  private readonly lists = new Map<NftElement[], Deleted>();

  /** Deletes every element of `list` with one of these elements' keys, as a filter of the list would. */
  delete(list: NftElement[], elements: readonly NftElement[]): void {
    let d = this.lists.get(list);
    if (!d) this.lists.set(list, (d = { indexed: 0, byKey: new Map(), gone: new Set() }));
    for (; d.indexed < list.length; d.indexed++) {
      const e = list[d.indexed];
      const key = keyOf(e);
      const same = d.byKey.get(key);
      if (same) same.push(e);
      else d.byKey.set(key, [e]);
    }
    for (const e of elements) {
      const key = keyOf(e);
      for (const old of d.byKey.get(key) ?? []) d.gone.add(old);
      d.byKey.delete(key);
    }
  }

  /** Drops the deleted elements from their lists, in place. */
  apply(): void {
    for (const [list, { gone }] of this.lists) {
      if (gone.size === 0) continue;
      let kept = 0;
      for (const e of list) if (!gone.has(e)) list[kept++] = e;
      list.length = kept;
    }
    this.lists.clear();
  }
}
