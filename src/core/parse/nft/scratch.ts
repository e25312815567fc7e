// The per-parse scratch state of the nft text reader's accelerators: where the words and references of the line
// being read are. Reused line after line (no arrays made per line); one per parse, never shared.
export class LineScratch {
  /** The words of a plain rule line (plainRuleLine): start and end columns, and LINE_* types. */
  readonly wordStarts: number[] = [];
  readonly wordEnds: number[] = [];
  readonly wordTypes: number[] = [];
  /** The references plainRuleLine found, in order: columns (a set's name without its `@`) and PLAIN_* kinds. */
  readonly refStarts: number[] = [];
  readonly refEnds: number[] = [];
  readonly refKinds: number[] = [];
  /** The targets of a numgen vmap line: columns, and 1 for goto, 2 for jump. */
  readonly vmapStarts: number[] = [];
  readonly vmapEnds: number[] = [];
  readonly vmapVerdicts: number[] = [];
  /** The key of the element being read (each element gets a copy of exact length). */
  readonly elementKey: string[] = [];
}
