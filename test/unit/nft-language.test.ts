// nftables language features through the pure core, on a kube-proxy nftables-mode dump from the
// project's generator, with positions found in its text.
import { describe, expect, it } from 'vitest';
import { analyzeNft, definitionAt, foldingRanges, hoverAt, outline, referencesAt, statusSummary } from '../../src/core/language/nft';
import { generateNftDump } from '../../tools/generate/nft';
import { SAMPLE_SERVICES } from '../../tools/generate/samples';

const text = generateNftDump({ services: SAMPLE_SERVICES, style: 'nft-list-ruleset' });
const lines = text.split('\n');
const a = analyzeNft(text);

/** Position of `needle` (plus an offset into it) on the first line that satisfies `pred`. */
function at(pred: (l: string) => boolean, needle: string, offset = 1) {
  const line = lines.findIndex(pred);
  expect(line, needle).toBeGreaterThanOrEqual(0);
  const character = lines[line].indexOf(needle);
  expect(character, needle).toBeGreaterThanOrEqual(0);
  return { line, character: character + offset };
}

describe('nftables language features', () => {
  it('analyses the dump without problems and finds the Services', () => {
    expect(a.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')).toEqual([]);
    expect(statusSummary(a)).toMatchObject({ dialect: 'nftables', kubeProxyMode: 'nftables', services: 6, errors: 0 });
  });

  it('F12 on a goto target lands on the chain, and references list every jump', () => {
    const gotoLine = lines.find((l) => /goto service-\S+-shop\/web\/tcp\/http/.test(l))!;
    const target = /goto (service-[^\s,}]+)/.exec(gotoLine)![1];
    const pos = at((l) => l === gotoLine, target);
    const def = definitionAt(a, pos)!;
    expect(def.name).toBe(target);
    expect(lines[def.range.start.line]).toContain(`chain ${target} {`);
    const refs = referencesAt(a, pos, false);
    expect(refs.length).toBeGreaterThanOrEqual(1);
    expect(refs.every((r) => lines[r.start.line].includes(target))).toBe(true);
  });

  it('hover on a service-ips element: the Service and its endpoints with shares', () => {
    const pos = at((l) => l.includes('10.96.12.40 . tcp . 80'), '10.96.12.40');
    const md = hoverAt(a, pos)!.markdown;
    expect(md).toContain('shop/web:http/tcp');
    expect(md).toContain('10.244.1.7:8080');
    expect(md).toContain('33.3%');
  });

  it('hover on numgen explains the share of each branch; on the table, nftables mode', () => {
    const pos = at((l) => l.includes('numgen random mod 3'), 'numgen');
    expect(hoverAt(a, pos)!.markdown).toContain('each of the 3 endpoints gets 1/3');
    const table = at((l) => l.startsWith('table ip kube-proxy'), 'kube-proxy');
    expect(hoverAt(a, table)!.markdown).toContain('one hash lookup');
  });

  it('outline: table → sets, maps, chains; folding by table and block', () => {
    const [table] = outline(a);
    expect(table.name).toBe('ip kube-proxy');
    expect(table.children.some((c) => c.kind === 'map' && c.name === 'service-ips')).toBe(true);
    expect(table.children.some((c) => c.kind === 'chain' && c.name === 'services')).toBe(true);
    expect(foldingRanges(a)[0].start).toBe(table.range.start.line);
  });

  it('outline and hover name the Service of each chain; an endpoint chain no Service sends to has none', () => {
    const chains = outline(a)[0].children.filter((c) => c.kind === 'chain');
    const chainName = (label: string) => label.split(' · ').pop()!;
    const endpointChains = chains.filter((c) => chainName(c.name).startsWith('endpoint-'));
    expect(endpointChains.length).toBeGreaterThan(3);
    for (const c of chains) {
      const name = chainName(c.name);
      const service = a.catalog.services.find((s) => s.endpoints.some((e) => e.chain === name) || s.objects.some((o) => o.name === name && o.role !== 'map-element' && o.role !== 'set-element'));
      // The Service leads the label: `shop/web:http · service-…`.
      if (service) expect(c.name, name).toMatch(new RegExp(`^${service.namespace}/${service.name}\\b.* · ${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`));
      else expect(c.name, name).toBe(name);
    }
    // A stale endpoint chain spelled like one of shop/web's: same Service part, not one of its endpoints.
    const web = a.catalog.services.find((s) => s.namespace === 'shop' && s.name === 'web')!;
    const stale = web.endpoints[0].chain!.replace(/__.*$/, '__10.9.9.9/1');
    const withStale = analyzeNft(text.replace(/(\ttable ip kube-proxy \{\n|table ip kube-proxy \{\n)/, `$1\tchain ${stale} {\n\t}\n`));
    const staleItem = outline(withStale)[0].children.find((c) => c.name === stale)!;
    expect(staleItem.detail).toBe('0 rules');
    const own = outline(withStale)[0].children.find((c) => c.name.endsWith(` · ${web.endpoints[0].chain}`))!;
    expect(own.name).toMatch(/^shop\/web/);
  });

  it('the iptables-nft warning says the rules come from iptables mode', () => {
    const b = analyzeNft('# Warning: table ip nat is managed by iptables-nft, do not touch!\ntable ip nat {\n\tchain PREROUTING {\n\t\ttype nat hook prerouting priority dstnat; policy accept;\n\t}\n}\n');
    expect(hoverAt(b, { line: 0, character: 3 })!.markdown).toContain('**iptables mode**');
  });
});

describe('semantic tokens', () => {
  it('colour chain definitions and goto targets alike, sets and maps as variables, kube-proxy objects marked', async () => {
    const { nftFeatures } = await import('../../src/core/language/nft');
    const tokens = nftFeatures.semanticSymbols!(a);
    const textOf = (s: (typeof tokens)[number]) => lines[s.range.start.line].slice(s.range.start.character, s.range.end.character);
    const svc = tokens.filter((s) => textOf(s).startsWith('service-') && textOf(s).includes('shop/web'));
    expect(svc.some((s) => s.declaration && s.kind === 'chain')).toBe(true);
    expect(svc.some((s) => !s.declaration && s.kind === 'chain')).toBe(true);
    expect(tokens.some((s) => s.kind === 'map' && textOf(s) === 'service-ips' && s.declaration && s.kube)).toBe(true);
    // Sorted, no overlaps: what VS Code's token stream requires.
    for (let i = 1; i < tokens.length; i++) {
      const p = tokens[i - 1].range;
      const c = tokens[i].range;
      expect(c.start.line > p.start.line || c.start.character >= p.end.character).toBe(true);
    }
  });
});
