// Ranges kept as numbers and made into `{ start, end }` objects when read (issue #8): a kube-proxy dump of
// 10,000 Services declares some 100,000 chains, and three Range objects (nine small objects) for each were a
// good part of what a parser kept. The base class of the iptables and nft chain nodes.
import type { Range } from './range';

/** Whether a range is [startLine:startCharacter, endLine:endCharacter) (stored ranges compare by value). */
export function rangeIs(r: Range, startLine: number, startCharacter: number, endLine: number, endCharacter: number): boolean {
  return r.start.line === startLine && r.start.character === startCharacter && r.end.line === endLine && r.end.character === endCharacter;
}

const make = (startLine: number, startCharacter: number, endLine: number, endCharacter: number): Range => ({
  start: { line: startLine, character: startCharacter },
  end: { line: endLine, character: endCharacter },
});

/**
 * A declaration's `range`, `nameRange` and `fullRange` as numbers. Reading one makes a new object each time
 * (equal, not the same: compare ranges by value); assigning one stores its numbers.
 */
export class DeclarationRanges {
  // Start line, start character, end line, end character of range (r), nameRange (n) and fullRange (f).
  private r0 = 0;
  private r1 = 0;
  private r2 = 0;
  private r3 = 0;
  private n0 = 0;
  private n1 = 0;
  private n2 = 0;
  private n3 = 0;
  private f0 = 0;
  private f1 = 0;
  private f2 = 0;
  private f3 = 0;

  get range(): Range {
    return make(this.r0, this.r1, this.r2, this.r3);
  }

  set range(r: Range) {
    this.r0 = r.start.line;
    this.r1 = r.start.character;
    this.r2 = r.end.line;
    this.r3 = r.end.character;
  }

  get nameRange(): Range {
    return make(this.n0, this.n1, this.n2, this.n3);
  }

  set nameRange(r: Range) {
    this.n0 = r.start.line;
    this.n1 = r.start.character;
    this.n2 = r.end.line;
    this.n3 = r.end.character;
  }

  get fullRange(): Range {
    return make(this.f0, this.f1, this.f2, this.f3);
  }

  set fullRange(r: Range) {
    this.f0 = r.start.line;
    this.f1 = r.start.character;
    this.f2 = r.end.line;
    this.f3 = r.end.character;
  }

  /** The first line of `range`, without making it. */
  get line(): number {
    return this.r0;
  }

  /** Whether fullRange is `r` (by value). */
  fullRangeIs(r: Range): boolean {
    return rangeIs(r, this.f0, this.f1, this.f2, this.f3);
  }
}
