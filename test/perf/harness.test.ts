// The perf tier's own checks must be able to fail: the injection detector and the pipeline's invariants.
import { describe, expect, it, vi } from 'vitest';
import { IptablesReader } from '../../src/core/parse/iptables/reference';
import { liveInjection, newStats, runInput } from './harness';

describe('perf harness', () => {
  it('finds live links, images and HTML from dump text, and nothing in code spans or escapes', () => {
    expect(liveInjection('policy [x](https://PWN.example/a)')).toBe('link to dump text');
    expect(liveInjection('chain ![b](https://PWN.example/p.png)')).toBe('image');
    expect(liveInjection('name <img src=x onerror=PWN>')).toBe('HTML tag');
    expect(liveInjection('[r]: https://PWN.example')).toBe('link to dump text');
    expect(liveInjection('policy `[x](https://PWN.example/a)`')).toBeUndefined();
    expect(liveInjection('policy ``a ` [x](https://PWN.example/a)``')).toBeUndefined();
    expect(liveInjection('policy \\[x\\]\\(https://PWN.example/a\\) \\!\\[b\\] &lt;img&gt;')).toBeUndefined();
    expect(liveInjection('[Trace this Service](command:dataplane.tracePacket?%5B%5D)')).toBeUndefined();
  });

  it('an invariant broken in the pipeline fails with the input', () => {
    // What throws inside the pipeline (here a broken companion dump) fails naming the input and its salt.
    const stats = newStats();
    runInput('iptables', '*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n', 1, stats);
    expect(stats.inputs).toBe(1);
    expect(() => runInput('iptables', 'x', 1, stats, [null as never])).toThrow(/iptables input \(salt 1\) "x"/);
  });

  it('a reader that threw fails the input, though the pipeline turned it into a diagnostic', () => {
    const spy = vi.spyOn(IptablesReader.prototype, 'read').mockImplementationOnce(() => {
      throw new Error('planted');
    });
    try {
      expect(() => runInput('iptables', '*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n', 1, newStats())).toThrow(/parser-bug: .*planted/);
    } finally {
      spy.mockRestore();
    }
  });
});
