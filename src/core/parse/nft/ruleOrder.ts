// The rules of chains that commands edit in place (`insert rule`, `add rule … position|handle|index`, `replace
// rule`, `delete rule handle`): a linked list per such chain, so that each command costs what it changes, not
// the length of the chain (splicing an array and numbering every rule again after each made a file of many such
// commands quadratic). A chain no command edits keeps its plain array, pushed to.
import type { NftChain, NftRule } from '../../model/nft';

interface RuleNode {
  rule: NftRule;
  prev: RuleNode | undefined;
  next: RuleNode | undefined;
  gone: boolean;
}

/** One edited chain's rules in order, and the live nodes of each handle (the first given that handle first). */
class RuleList {
  private head: RuleNode | undefined;
  private tail: RuleNode | undefined;
  private count = 0;
  private readonly byHandle = new Map<number, RuleNode[]>();

  constructor(rules: readonly NftRule[]) {
    for (const rule of rules) this.insertBefore(undefined, rule);
  }

  get length(): number {
    return this.count;
  }

  /** The first live rule with this handle, if any. */
  withHandle(handle: number): RuleNode | undefined {
    const nodes = this.byHandle.get(handle);
    while (nodes !== undefined && nodes.length > 0 && nodes[0].gone) nodes.shift();
    return nodes?.[0];
  }

  /** The node at 0-based position `at` (undefined at the end), walked to from the nearer end. */
  nodeAt(at: number): RuleNode | undefined {
    if (at >= this.count) return undefined;
    let node: RuleNode;
    if (at < this.count / 2) {
      node = this.head!;
      for (let k = 0; k < at; k++) node = node.next!;
    } else {
      node = this.tail!;
      for (let k = this.count - 1; k > at; k--) node = node.prev!;
    }
    return node;
  }

  first(): RuleNode | undefined {
    return this.head;
  }

  /** Inserts `rule` before `next` (at the end when undefined). */
  insertBefore(next: RuleNode | undefined, rule: NftRule): void {
    this.noteHandle(this.link(next, rule));
  }

  private link(next: RuleNode | undefined, rule: NftRule): RuleNode {
    const prev = next ? next.prev : this.tail;
    const node: RuleNode = { rule, prev, next, gone: false };
    if (prev) prev.next = node;
    else this.head = node;
    if (next) next.prev = node;
    else this.tail = node;
    this.count++;
    return node;
  }

  remove(node: RuleNode): void {
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.gone = true;
    this.count--;
  }

  /** Puts `rule` where `node`'s rule was, and in its place among the rules of its handle when it keeps it. */
  replace(node: RuleNode, rule: NftRule): void {
    const next = node.next;
    this.remove(node);
    const same = rule.handle !== undefined && rule.handle === node.rule.handle ? this.byHandle.get(rule.handle) : undefined;
    const at = same ? same.indexOf(node) : -1;
    if (same && at >= 0) same.splice(at, 1, this.link(next, rule));
    else this.insertBefore(next, rule);
  }

  toArray(): NftRule[] {
    const out: NftRule[] = [];
    for (let node = this.head; node; node = node.next) out.push(node.rule);
    return out;
  }

  private noteHandle(node: RuleNode): void {
    const handle = node.rule.handle;
    if (handle === undefined) return;
    const nodes = this.byHandle.get(handle);
    if (nodes) nodes.push(node);
    else this.byHandle.set(handle, [node]);
  }
}

/**
 * The edited chains of one ruleset. A chain's `rules` array is stale while it is edited here: settle(chain)
 * writes it back (and numbers the rules) before anything else reads it, and settleAll() at the end.
 */
export class EditedChains {
  private readonly lists = new Map<NftChain, RuleList>();

  /** The chain's list, made from its array on the first edit. */
  list(chain: NftChain): RuleList {
    let list = this.lists.get(chain);
    if (!list) this.lists.set(chain, (list = new RuleList(chain.rules)));
    return list;
  }

  /** Appends a rule: to the list of an edited chain, else to the array (numbered now). */
  push(chain: NftChain, rule: NftRule): void {
    const list = this.lists.size > 0 ? this.lists.get(chain) : undefined;
    if (list) list.insertBefore(undefined, rule);
    else rule.index = chain.rules.push(rule);
  }

  /** Writes an edited chain's rules back to its array, numbered; the chain is plain again. */
  settle(chain: NftChain): NftRule[] {
    const list = this.lists.get(chain);
    if (list) {
      chain.rules = list.toArray();
      for (let k = 0; k < chain.rules.length; k++) chain.rules[k].index = k + 1;
      this.lists.delete(chain);
    }
    return chain.rules;
  }

  settleAll(): void {
    for (const chain of [...this.lists.keys()]) this.settle(chain);
  }
}
