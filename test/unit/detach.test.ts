// Long-lived caches keep copies of names, never slices of a document (V8 keeps the whole text alive for a slice
// of 13 or more characters), and a parse leaves no regular-expression match on the document behind.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { detached, releaseLastMatch } from '../../src/core/parse/detach';
import { parseIptables } from '../../src/core/parse/iptables/parser';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap kept (MB) while `hold` holds what `make` gives from a fresh 40 MB text. */
function keptMb(make: (text: string) => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  let text: string | undefined = `${'x'.repeat(40_000_000)}${Math.random()}`;
  const hold = make(text);
  text = undefined;
  gc();
  const kept = (process.memoryUsage().heapUsed - before) / 1e6;
  expect(hold).toBeDefined();
  return kept;
}

describe('detached strings', () => {
  it('are equal to the slice', () => {
    const text = 'a long line of text: -A KUBE-SERVICES -j KUBE-SVC-ABCDEFGHIJKLMNOP';
    for (const [a, b] of [[0, 5], [21, 38], [42, text.length]]) expect(detached(text.slice(a, b))).toBe(text.slice(a, b));
  });

  it('do not keep the text they were cut from alive (a slice does)', () => {
    expect(keptMb((text) => text.slice(1000, 1040))).toBeGreaterThan(30);
    expect(keptMb((text) => detached(text.slice(1000, 1040)))).toBeLessThan(5);
  });

  it('releaseLastMatch lets the last regular-expression subject go', () => {
    expect(keptMb((text) => /x{3}/.exec(text.slice(5, 100))?.index)).toBeGreaterThan(30);
    expect(
      keptMb((text) => {
        const index = /x{3}/.exec(text.slice(5, 100))?.index;
        releaseLastMatch();
        return index;
      }),
    ).toBeLessThan(5);
  });
});

describe('the iptables parser', () => {
  it('keeps nothing of a document after its model is dropped (the table of repeated words outlives the parse)', () => {
    // Long options and words a table keeps between parses: slices of 13 or more characters would hold the text.
    const rules = '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m conntrack --ctstate-not-an-option NEW -m comment --comment a-word-of-20-chars -j ACCEPT\nCOMMIT\n';
    expect(keptMb((text) => parseIptables(rules + text).tables.length)).toBeLessThan(5);
  });
});
