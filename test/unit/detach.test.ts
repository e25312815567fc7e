// Long-lived caches keep copies of names, never slices of a document (V8 keeps the whole text alive for a slice
// of 13 or more characters), and a parse leaves no regular-expression match on the document behind.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { perfIt } from '../helpers/linear';
import { detached, releaseLastMatch } from '../../src/core/parse/detach';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import { parseNft } from '../../src/core/parse/nft/parser';
import { parseIpvsadm } from '../../src/core/parse/ipvs/parser';
import { parseIpset } from '../../src/core/parse/ipset/parser';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Heap kept (MB) while `hold` holds what `make` gives from a fresh 40 MB text. The text counts as kept only when
 * it is still there after the event loop has turned a few times: once, on a loaded CI machine, a parse's text was
 * still held right after it (40 MB) by something that passed, not by the model (the same parse keeps nothing
 * here, alone or under load), e.g. V8's background compiler finishing a job on the parser's code.
 */
async function keptMb(make: (text: string) => unknown): Promise<number> {
  gc();
  const before = process.memoryUsage().heapUsed;
  let text: string | undefined = `${'x'.repeat(40_000_000)}${Math.random()}`;
  const hold = make(text);
  text = undefined;
  let kept = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 4 && kept >= 5; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    gc();
    kept = (process.memoryUsage().heapUsed - before) / 1e6;
  }
  expect(hold).toBeDefined();
  return kept;
}

describe('detached strings', () => {
  it('are equal to the slice', () => {
    const text = 'a long line of text: -A KUBE-SERVICES -j KUBE-SVC-ABCDEFGHIJKLMNOP';
    for (const [a, b] of [
      [0, 5],
      [21, 38],
      [42, text.length],
    ])
      expect(detached(text.slice(a, b))).toBe(text.slice(a, b));
  });

  perfIt('do not keep the text they were cut from alive (a slice does)', async () => {
    expect(await keptMb((text) => text.slice(1000, 1040))).toBeGreaterThan(30);
    expect(await keptMb((text) => detached(text.slice(1000, 1040)))).toBeLessThan(5);
  });

  perfIt('releaseLastMatch lets the last regular-expression subject go', async () => {
    expect(await keptMb((text) => /x{3}/.exec(text.slice(5, 100))?.index)).toBeGreaterThan(30);
    expect(
      await keptMb((text) => {
        const index = /x{3}/.exec(text.slice(5, 100))?.index;
        releaseLastMatch();
        return index;
      }),
    ).toBeLessThan(5);
  });
});

describe('the iptables parser', () => {
  perfIt('keeps nothing of a document after its model is dropped (the table of repeated words outlives the parse)', async () => {
    // Long options and words a table keeps between parses: slices of 13 or more characters would hold the text.
    const rules = '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m conntrack --ctstate-not-an-option NEW -m comment --comment a-word-of-20-chars -j ACCEPT\nCOMMIT\n';
    expect(await keptMb((text) => parseIptables(rules + text).tables.length)).toBeLessThan(5);
  });
});

describe('the line parsers of nft, ipvsadm and ipset', () => {
  // A Chevrotain parser keeps its last input: the tokens of the last line it read (slices of the document), for nft
  // the tokens of a whole block (a set's elements over many lines: 90 MB for 200,000 of them).
  perfIt('keep nothing of a document after its model is dropped', async () => {
    const elements = Array.from({ length: 2000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(',\n\t\t');
    const nft = `table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = { ${elements} }\n\t}\n}\n`;
    expect(await keptMb((text) => parseNft(`${nft}# ${text}\n`).tables.length)).toBeLessThan(5);
    expect(await keptMb((text) => parseNft(`# ${text}\n${nft}`).tables.length)).toBeLessThan(5);
    // The last line is no ipvsadm output: the Chevrotain parser reads it (the fast path reads the others).
    expect(await keptMb((text) => parseIpvsadm(`TCP  10.0.0.1:80 rr\n  -> 10.0.0.2:80  Masq 1 0 0\n${text}\nsome prose that is not ipvsadm output at all\n`).services.length)).toBeLessThan(5);
    expect(await keptMb((text) => parseIpset(`create s hash:ip family inet hashsize 1024 maxelem 65536\nadd s 10.0.0.1\n${text}\nsome prose that is not ipset output at all\n`).sets.length)).toBeLessThan(5);
  });
});
