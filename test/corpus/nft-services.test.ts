// `dataplane services --json` on kube-proxy's nftables-mode dumps: the text (`nft list ruleset`) and JSON
// (`nft -j`) forms of every dump give the same Services; the text parses without errors.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

function cli(...args: string[]) {
  const out: string[] = [];
  const code = run(
    args,
    (s) => out.push(s),
    () => {},
  );
  return { code, out: out.join('\n') };
}

describe.skipIf(!HAVE_CORPUS)(`kube-proxy nftables dumps (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  if (!HAVE_CORPUS) return;
  const dir = join(CORPUS, 'nft/kube-proxy');
  const texts = readdirSync(dir).filter((f) => f.endsWith('.nft'));
  it('has the 15 text/JSON pairs', () => {
    expect(texts.length).toBe(15);
    expect(texts.every((f) => existsSync(join(dir, f.replace(/\.nft$/, '.json'))))).toBe(true);
  });
  for (const f of texts) {
    it(`${f}: 0 parse errors, and the text and JSON forms list the same Services`, () => {
      const parsed = JSON.parse(cli('parse', join(dir, f), '--json').out);
      expect(parsed.diagnostics.filter((d: { severity: string }) => d.severity === 'error')).toEqual([]);
      const parsedJson = JSON.parse(cli('parse', join(dir, f.replace(/\.nft$/, '.json')), '--json').out);
      expect(parsedJson.diagnostics.filter((d: { severity: string }) => d.severity === 'error')).toEqual([]);
      const text = cli('services', join(dir, f), '--json');
      const json = cli('services', join(dir, f.replace(/\.nft$/, '.json')), '--json');
      expect(text.code).toBe(0);
      expect(JSON.parse(json.out)).toEqual(JSON.parse(text.out));
      expect(JSON.parse(text.out).mode).toBe('nftables');
    });
  }
});
