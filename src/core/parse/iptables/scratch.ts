// The per-parse scratch state of the line being read: its tokens, its items (an option with its negation and
// values), and the matches and target its options find their owner among. One per parse, never shared.
import type { OptionSpec } from './extensions';
import { doubledTo, grown } from '../../model/compact/typed-arrays';
import { TokenTable, type MatchNode, type TargetNode } from './nodes';

export class LineScratch {
  readonly tokens = new TokenTable();
  // Item j: its `!` token before the option (-1: none), its option token, its `!` after the option (-1: none),
  // its first value token and its number of values.
  neg = new Int32Array(64);
  opt = new Int32Array(64);
  late = new Int32Array(64);
  v0 = new Int32Array(64);
  nv = new Int32Array(64);
  // The matches and the target of the line being built, in order: options find their owner among them (ownerOf).
  readonly containerName: string[] = [];
  containerIsTarget = new Uint8Array(64);
  // Their objects, when a rule's details are being built.
  readonly containerNode: (MatchNode | TargetNode | undefined)[] = [];
  containerCount = 0;
  // What the last ownerOf call found besides the container.
  ownerSpec: OptionSpec | undefined;
  ownerKnown = false;
  ownerIsNewImplicit = false;
  // The first words of a declaration line (restoreWords): start and end columns.
  readonly wordStart = new Int32Array(4);
  readonly wordEnd = new Int32Array(4);

  ensureItems(capacity: number): void {
    if (capacity <= this.opt.length) return;
    const size = doubledTo(this.opt.length, capacity);
    this.neg = new Int32Array(size);
    this.opt = new Int32Array(size);
    this.late = new Int32Array(size);
    this.v0 = new Int32Array(size);
    this.nv = new Int32Array(size);
  }

  pushContainer(name: string, isTarget: boolean, node: MatchNode | TargetNode | undefined): number {
    const k = this.containerCount++;
    if (k === this.containerIsTarget.length) this.containerIsTarget = grown(this.containerIsTarget, k * 2);
    this.containerName[k] = name;
    this.containerIsTarget[k] = isTarget ? 1 : 0;
    this.containerNode[k] = node;
    return k;
  }

  /** Drops what it holds of the last line (names are slices of the document). */
  forget(): void {
    this.containerName.fill('', 0, this.containerCount);
    this.containerNode.fill(undefined, 0, this.containerCount);
    this.containerCount = 0;
  }

  /**
   * Finds the words of `text` from column `from` as iptables-restore's strtok(" \t\n") does (only spaces and tabs
   * separate them); notes where the first four are and answers how many there are, counting at most 4.
   */
  restoreWords(text: string, from: number): number {
    let count = 0;
    let p = from;
    const length = text.length;
    while (count < 4) {
      while (p < length && (text.charCodeAt(p) === 32 || text.charCodeAt(p) === 9)) p++;
      if (p >= length) break;
      this.wordStart[count] = p;
      while (p < length && text.charCodeAt(p) !== 32 && text.charCodeAt(p) !== 9) p++;
      this.wordEnd[count++] = p;
    }
    return count;
  }
}
