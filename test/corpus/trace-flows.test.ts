// kube-proxy's own packet-flow expectations (TestTracePacket.flows.json) against our tracer. Their tracer
// simplifies (see the file's notes); ours follows the kernel's hooks, so only the observable result is
// compared: the set of DNAT destinations, or ACCEPT / DROP / REJECT, and masquerade.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeIptables } from '../../src/core/language/iptables';
import { traceSnapshot, type Entry } from '../../src/core/trace';
import { parseAddress, parsePrefix, prefixContains } from '../../src/core/model/address';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

interface Flow {
  name: string;
  sourceIP: string;
  destIP: string;
  destPort: number;
  output: string;
  masq: boolean;
}

describe.skipIf(!HAVE_CORPUS)(`TestTracePacket flows (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  if (!HAVE_CORPUS) return;
  const dir = join(CORPUS, 'iptables/kube-proxy');
  const spec = JSON.parse(readFileSync(join(dir, 'TestTracePacket.flows.json'), 'utf8')) as { localIPs: string[]; flows: Flow[] };
  const file = { name: 'TestTracePacket.iptables-save', analysis: analyzeIptables(readFileSync(join(dir, 'TestTracePacket.iptables-save'), 'utf8')) };
  const cluster = parsePrefix('10.0.0.0/8')!;

  for (const flow of spec.flows) {
    it(`${flow.name}: ${flow.sourceIP} → ${flow.destIP}:${flow.destPort} gives ${flow.output || '(no match)'}${flow.masq ? ', masqueraded' : ''}`, () => {
      const src = parseAddress(flow.sourceIP)!;
      const entry: Entry = spec.localIPs.includes(flow.sourceIP) ? 'node' : prefixContains(cluster, src) ? 'pod' : 'external';
      const result = traceSnapshot([file], { to: flow.destIP, dport: flow.destPort, protocol: 'tcp', from: flow.sourceIP, entry, nodeIPs: spec.localIPs });
      const total = result.outcomes.reduce((sum, o) => sum + o.probability, 0);
      expect(total).toBeCloseTo(1, 9);
      expect(result.outcomes.every((o) => o.assumptions.length === 0)).toBe(true);
      const dnat = result.outcomes
        .filter((o) => o.verdict === 'dnat')
        .map((o) => o.destination)
        .sort();
      if (flow.output === '') {
        expect(result.outcomes.map((o) => o.verdict)).toEqual(['accept']);
      } else if (/^\d/.test(flow.output)) {
        expect(dnat).toEqual(flow.output.split(', ').sort());
        expect(result.outcomes.every((o) => o.verdict === 'dnat')).toBe(true);
      } else {
        expect(result.outcomes.map((o) => o.verdict.toUpperCase())).toEqual([flow.output]);
      }
      expect(result.outcomes.every((o) => o.masquerade === flow.masq)).toBe(true);
    });
  }
});
