// The walkthrough's editor buttons put the cursor where serviceToFollow says: the KUBE-SVC target of a Service's
// ClusterIP rule (F12 goes to its declaration) and the KUBE-SVC chain of a --probability rule (its hover names the
// Service). Checked on the bundled samples and on generated dumps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeIptables, definitionAt, hoverAt } from '../../src/core/language/iptables';
import { generateIptablesDump, type GenServicePort } from '../../tools/generate/iptables';
import type { Range } from '../../src/core/model/range';
import { serviceToFollow } from '../../src/core/walkthrough';

const SAMPLES = join(__dirname, '../../samples');
const textAt = (lines: string[], r: Range) => lines[r.start.line].slice(r.start.character, r.end.character);

const svc = (name: string, clusterIP: string, endpoints: number): GenServicePort => ({
  namespace: 'ns',
  name,
  portName: 'p',
  protocol: 'tcp',
  clusterIP,
  port: 80,
  endpoints: Array.from({ length: endpoints }, (_, i) => ({ address: `10.244.${i + 1}.${clusterIP.split('.')[3]}`, port: 8080 })),
});

describe('serviceToFollow', () => {
  for (const mode of ['iptables-nft', 'iptables-legacy']) {
    it(`${mode} sample: shop/web:http, the Service with the most endpoints; F12 and the hover work where it points`, () => {
      const text = readFileSync(join(SAMPLES, mode, 'node1.iptables'), 'utf8');
      const lines = text.split('\n');
      const a = analyzeIptables(text);
      const s = serviceToFollow(a);
      expect(s).toBeDefined();
      if (!s) return;
      expect(s.service).toBe('shop/web:http');
      expect(s.endpoints).toBe(3);
      expect(s.chain).toMatch(/^KUBE-SVC-[A-Z0-9]{16}$/);
      // -A KUBE-SERVICES -d 10.96.12.40/32 … -j KUBE-SVC-…, the cursor on the chain name after -j.
      const rule = lines[s.jumpTarget.start.line];
      expect(rule).toMatch(/^-A KUBE-SERVICES -d 10\.96\.12\.40\/32 .*"shop\/web:http cluster IP"/);
      expect(textAt(lines, s.jumpTarget)).toBe(s.chain);
      expect(rule.slice(s.jumpTarget.start.character - 3, s.jumpTarget.start.character)).toBe('-j ');
      // F12 from there lands on the declaration.
      expect(lines[s.declaration.start.line]).toBe(`:${s.chain} - [0:0]`);
      const def = definitionAt(a, s.jumpTarget.start);
      expect(def?.range.start.line).toBe(s.declaration.start.line);
      // The probability rule: -A KUBE-SVC-… … --probability 0.33333333349 -j KUBE-SEP-…
      const picker = lines[s.probabilityRuleChain.start.line];
      expect(picker.startsWith(`-A ${s.chain} `)).toBe(true);
      expect(picker).toMatch(/--probability 0\.333\d* -j KUBE-SEP-/);
      expect(textAt(lines, s.probabilityRuleChain)).toBe(s.chain);
      const hover = hoverAt(a, s.probabilityRuleChain.start)?.markdown ?? '';
      expect(hover).toContain('shop/web:http');
      for (const e of ['10.244.1.7:8080', '10.244.2.8:8080', '10.244.3.9:8080']) expect(hover).toContain(e);
    });
  }

  it('prefers more endpoints over an earlier rule, and the earlier rule among equals', () => {
    const dump = generateIptablesDump({ services: [svc('two', '10.96.0.1', 2), svc('four', '10.96.0.2', 4), svc('four-too', '10.96.0.3', 4)], style: 'iptables-nft-save' });
    const s = serviceToFollow(analyzeIptables(dump));
    expect(s?.service).toBe('ns/four:p');
    expect(s?.endpoints).toBe(4);
  });

  it('finds nothing without a named Service that picks among endpoints', () => {
    const single = generateIptablesDump({ services: [svc('one', '10.96.0.1', 1), svc('none', '10.96.0.2', 0)], style: 'iptables-nft-save' });
    expect(serviceToFollow(analyzeIptables(single))).toBeUndefined();
    expect(serviceToFollow(analyzeIptables(readFileSync(join(SAMPLES, 'ipvs', 'node1.iptables'), 'utf8')))).toBeUndefined();
    expect(serviceToFollow(analyzeIptables(''))).toBeUndefined();
    expect(serviceToFollow(analyzeIptables('*nat\n-A KUBE-SERVICES -j KUBE-SVC-\nCOMMIT\n'))).toBeUndefined();
  });
});
