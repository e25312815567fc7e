// Test setup (vitest setupFiles): model nodes that keep their ranges as numbers in private fields and make them
// when read (issue #8) compare by what their getters give, so toEqual / toStrictEqual see their ranges.
import { expect } from 'vitest';
import type { Tester } from '@vitest/expect';
import { ElementNode, VerdictNode } from '../../src/core/parse/nft/statements';

function defined(view: Record<string, unknown>): Record<string, unknown> {
  for (const k of Object.keys(view)) if (view[k] === undefined) delete view[k];
  return view;
}

/** The node as plain data, or undefined when `x` is not such a node. */
function nodeView(x: unknown): Record<string, unknown> | undefined {
  if (x instanceof ElementNode) {
    return defined({ key: x.key, value: x.value, comment: x.comment, timeout: x.timeout, expires: x.expires, statements: x.statements, range: x.range, keyRange: x.keyRange, valueRange: x.valueRange });
  }
  if (x instanceof VerdictNode) return { kind: x.kind, chain: x.chain, chainRange: x.chainRange };
  return undefined;
}

const packedNodes: Tester = function (a, b, testers) {
  const va = nodeView(a);
  const vb = nodeView(b);
  if (va === undefined && vb === undefined) return undefined;
  return this.equals(va ?? a, vb ?? b, testers);
};

expect.addEqualityTesters([packedNodes]);
