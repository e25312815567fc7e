// Every nft dump of ../shared/corpus/nft: what nft 1.0.6 loads must parse without errors; the text and JSON
// forms of the same ruleset must give the same model; kube-proxy's command files get a diagnostic on every
// line nft names when it refuses them (VALIDATION*.tsv).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NftMatchStatement, NftRuleset, NftStatement } from '../../src/core/model/nft';
import { isVerdictMap } from '../../src/core/model/nft';
import { parseNftJson } from '../../src/core/parse/nft/json';
import { parseNft } from '../../src/core/parse/nft/parser';
import { CORPUS, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

const NFT = join(CORPUS, 'nft');
const read = (...parts: string[]) => readFileSync(join(NFT, ...parts), 'utf8');
const at = (d: { range: { start: { line: number; character: number } } }) => `${d.range.start.line + 1}:${d.range.start.character + 1}`;
const describeProblems = (r: NftRuleset, ...severities: string[]) => r.diagnostics.filter((d) => severities.includes(d.severity)).map((d) => `${at(d)} ${d.code} ${d.message}`);

function tsv(path: string): string[][] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));
}

/** Hex and decimal are the same number (`nft -j` prints marks in decimal). */
const norm = (s: string) => s.replace(/0x[0-9a-f]+/gi, (h) => String(parseInt(h, 16)));

function statementShape(s: NftStatement): string {
  if (s.kind === 'match') return `match(${s.left.kind} ${s.op}${s.negated ? ' not' : ''} ${s.right.kind})`;
  if (s.kind === 'verdict') return `${s.verdict}${s.chain ? ' ' + s.chain : ''}`;
  if (s.kind === 'vmap') return `vmap(${s.key.kind} ${s.map.kind})`;
  if (s.kind === 'nat') return `${s.type}`;
  return s.kind;
}

/**
 * What must agree between forms of one ruleset: tables; chains with hook, priority and policy; every rule's
 * statement kinds; sets and maps with key types (nft -j prints `typeof` declarations as plain types, so those
 * are compared by name only) and every element.
 */
function shape(r: NftRuleset, typeofNames: Set<string> = new Set()) {
  return r.tables
    .map((t) => ({
      id: t.id,
      chains: t.chains.map((c) => `${c.name} ${c.type ?? ''} ${c.hook ?? ''} ${c.priority?.value ?? ''} ${c.policy ?? ''}: ${c.rules.map((rule) => rule.statements.map(statementShape).join(' ')).join(' | ')}`).sort(),
      sets: [...t.sets, ...t.maps]
        .map((s) => `${s.kind} ${s.name} ${typeofNames.has(`${t.id} ${s.name}`) ? '' : s.keyType.join('.')} ${s.kind === 'map' && !typeofNames.has(`${t.id} ${s.name}`) ? s.dataType.join('.') : ''} ${s.elements.length}`)
        .sort(),
      elements: [...t.sets, ...t.maps]
        .flatMap((s) => s.elements.map((e) => norm(`${s.name} ${e.key.join(' . ')} ${typeof e.value === 'string' ? e.value : e.value ? `${e.value.kind} ${e.value.chain ?? ''}` : ''}`)))
        .sort(),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

function typeofSets(r: NftRuleset): Set<string> {
  const out = new Set<string>();
  for (const t of r.tables) for (const s of [...t.sets, ...t.maps]) if (s.keyTypeof || (s.kind === 'map' && s.dataTypeof)) out.add(`${t.id} ${s.name}`);
  return out;
}

function counts(r: NftRuleset) {
  return r.tables.map((t) => ({
    id: t.id,
    chains: t.chains.length,
    rules: t.chains.reduce((n, c) => n + c.rules.length, 0),
    sets: t.sets.length,
    maps: t.maps.length,
    elements: [...t.sets, ...t.maps].reduce((n, s) => n + s.elements.length, 0),
  }));
}

describe.skipIf(!HAVE_CORPUS)(`nft corpus (${HAVE_CORPUS ? 'shared corpus' : NO_CORPUS_MESSAGE})`, () => {
  if (!HAVE_CORPUS) return;

  describe('kube-proxy (nftables mode)', () => {
    const dir = join(NFT, 'kube-proxy');
    const dumps = readdirSync(dir).filter((f) => f.endsWith('.nft'));

    it('has the three forms of every dump', () => {
      expect(dumps.length).toBe(15);
      for (const f of dumps) {
        expect(existsSync(join(dir, f.replace(/\.nft$/, '.json'))), f).toBe(true);
        expect(existsSync(join(dir, `${f}-cmds`)), f).toBe(true);
      }
    });

    for (const f of dumps) {
      const base = f.replace(/\.nft$/, '');
      it(`${base}: nft list ruleset and nft -j give the same model, without problems`, () => {
        const text = parseNft(read('kube-proxy', f));
        const json = parseNftJson(read('kube-proxy', `${base}.json`));
        expect(describeProblems(text, 'error', 'warning', 'information')).toEqual([]);
        expect(describeProblems(json, 'error', 'warning', 'information')).toEqual([]);
        expect(counts(json)).toEqual(counts(text));
        expect(shape(json, typeofSets(text))).toEqual(shape(text, typeofSets(text)));
        expect(json.producer).toBe('nft v1.0.6');
      });
      it(`${base}: the add commands kube-proxy wrote build the same tables as the kernel's listing`, () => {
        const cmds = parseNft(read('kube-proxy', `${f}-cmds`));
        const text = parseNft(read('kube-proxy', f));
        expect(counts(cmds)).toEqual(counts(text));
        const names = (r: NftRuleset) => r.tables.flatMap((t) => [...t.chains.map((c) => `${c.name}:${c.rules.length}`), ...t.maps.map((m) => `${m.name}:${m.elements.length}`)]).sort();
        expect(names(cmds)).toEqual(names(text));
      });
    }

    describe('command files against nft -f (VALIDATION-nft-1.0.6.tsv)', () => {
      const rows = tsv(join(dir, 'VALIDATION-nft-1.0.6.tsv'));
      it('has a row for every command file', () => {
        expect(rows.map((r) => r[0]).sort()).toEqual(
          readdirSync(dir)
            .filter((x) => x.endsWith('.nft-cmds'))
            .sort(),
        );
      });
      for (const [file, asIs, errorAsIs, reordered] of rows) {
        const r = parseNft(read('kube-proxy', file));
        if (asIs === 'OK') {
          it(`loads as it is: ${file} has no problems`, () => {
            expect(describeProblems(r, 'error', 'warning')).toEqual([]);
          });
          continue;
        }
        // The TSV cuts its error column at 300 characters: only complete `file:L:C-C: Error` entries count.
        const named = [...errorAsIs.matchAll(/nft-cmds:(\d+):(\d+)-\d+: Error/g)].map((m) => Number(m[1]));
        it(`refused as it is: ${file} gets a diagnostic on each line nft names (${[...new Set(named)].join(', ')})`, () => {
          expect(named.length).toBeGreaterThan(0);
          const lines = new Set(r.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning').map((d) => d.range.start.line + 1));
          expect(named.filter((l) => !lines.has(l))).toEqual([]);
        });
        if (reordered === 'OK') {
          it(`loads after reordering: ${file} has only order warnings (defined-later), no errors`, () => {
            expect(describeProblems(r, 'error')).toEqual([]);
            expect(new Set(r.diagnostics.map((d) => d.code))).toEqual(new Set(['defined-later']));
          });
        } else {
          it(`refused even reordered: ${file} has errors (maps used but never declared)`, () => {
            expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toContain('undefined-set');
          });
        }
      }
    });

    it('TestOverallNFTablesRules: typed statements the trace and the catalog read', () => {
      const r = parseNft(read('kube-proxy', 'TestOverallNFTablesRules.nft'));
      const t = r.tableById.get('ip kube-proxy')!;
      expect(t.comment).toBe('rules for kube-proxy');
      const serviceIps = t.mapByName.get('service-ips')!;
      expect(isVerdictMap(serviceIps)).toBe(true);
      const e = serviceIps.elements.find((x) => x.key.join(' . ') === '172.30.0.41 . tcp . 80')!;
      expect(e.value).toMatchObject({ kind: 'goto', chain: 'service-ULMVA6XW-ns1/svc1/tcp/p80' });
      const lines = read('kube-proxy', 'TestOverallNFTablesRules.nft').split('\n');
      const chainRange = (e.value as { chainRange: { start: { line: number; character: number }; end: { character: number } } }).chainRange;
      expect(lines[chainRange.start.line].slice(chainRange.start.character, chainRange.end.character)).toBe('service-ULMVA6XW-ns1/svc1/tcp/p80');
      expect(r.symbols.resolve(chainRange.start)?.name).toBe('service-ULMVA6XW-ns1/svc1/tcp/p80');
      expect(t.chainByName.get('filter-prerouting-pre-dnat')!.priority).toMatchObject({ text: 'dstnat - 10', value: -110 });
      expect(t.chainByName.get('nat-postrouting')!.priority).toMatchObject({ text: 'srcnat', value: 100 });
      const svc4 = t.chainByName.get('service-LAUZTJTB-ns4/svc4/tcp/p80')!.rules[1].statements[0];
      expect(svc4).toMatchObject({ kind: 'vmap', key: { kind: 'numgen', mode: 'random', mod: 2 } });
      if (svc4.kind !== 'vmap' || svc4.map.kind !== 'set') throw new Error('anonymous vmap');
      expect(svc4.map.elements.map((x) => (typeof x.value === 'object' ? x.value.chain : x.value))).toEqual(['endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80', 'endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80']);
      const ep = t.chainByName.get('endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80')!.rules;
      expect(ep.map((x) => x.statements.map((s) => s.kind))).toEqual([['match', 'verdict'], ['setUpdate'], ['match', 'nat']]);
      expect(ep[2].statements[1]).toMatchObject({ type: 'dnat', addr: { value: '10.180.0.3' }, port: { value: '80' } });
      expect(t.setByName.get('affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80')).toMatchObject({ timeout: '3h', size: 65535, flags: ['dynamic', 'timeout'] });
      const masq = t.chainByName.get('masquerading')!.rules.map((x) => x.statements);
      expect(masq[0][0]).toMatchObject({ kind: 'match', left: { kind: 'binop', op: '&' }, right: { value: '0x00000000' } });
      expect(masq[1][0]).toMatchObject({ kind: 'mark', target: 'meta mark', value: { kind: 'binop', op: '^' } });
      expect(masq[2][0]).toMatchObject({ kind: 'nat', type: 'masquerade', flags: ['fully-random'] });
      const ext = t.chainByName.get('external-42NFTM6N-ns2/svc2/tcp/p80')!.rules;
      expect(ext[1].statements[0]).toMatchObject({ left: { kind: 'fib', flags: ['saddr'], result: 'type' }, right: { value: 'local' } });
      expect(ext[0].comment).toBe('short-circuit pod traffic');
      const fw = t.chainByName.get('firewall-HVFWP5L3-ns5/svc5/tcp/p80')!.rules[0].statements[0] as NftMatchStatement;
      expect(fw).toMatchObject({ op: '!=', negated: true, right: { kind: 'prefix', address: '203.0.113.0', length: 25 } });
      const json = parseNftJson(read('kube-proxy', 'TestOverallNFTablesRules.json'));
      const je = json.tableById
        .get('ip kube-proxy')!
        .mapByName.get('service-ips')!
        .elements.find((x) => x.key.join(' . ') === '172.30.0.41 . tcp . 80')!;
      expect(je.value).toMatchObject({ kind: 'goto', chain: 'service-ULMVA6XW-ns1/svc1/tcp/p80' });
    });
  });

  describe('kube-proxy iptables mode through iptables-nft', () => {
    const files = readdirSync(join(NFT, 'kube-proxy-iptables-mode-via-iptables-nft'));
    it('found the dumps', () => expect(files.length).toBeGreaterThan(0));
    for (const f of files) {
      it(`${f}: parses without problems, knows the tables iptables-nft manages`, () => {
        const r = parseNft(read('kube-proxy-iptables-mode-via-iptables-nft', f));
        expect(describeProblems(r, 'error', 'warning')).toEqual([]);
        expect(r.producer).toBe('iptables-nft');
        expect(r.tables.every((t) => t.managedBy === 'iptables-nft')).toBe(true);
        const all = r.tables.flatMap((t) => t.chains.flatMap((c) => c.rules.flatMap((x) => x.statements)));
        expect(all.filter((s) => s.kind === 'raw')).toEqual([]);
        if (f === 'TestOverallIPTablesRules.nft') expect(all.some((s) => s.kind === 'xt' && s.name === 'nfacct')).toBe(true);
      });
    }
  });

  describe('netfilter nftables test dumps (VALIDATION-nft-1.0.6.tsv)', () => {
    const dir = join(NFT, 'nftables-tests');
    const rows = tsv(join(dir, 'VALIDATION-nft-1.0.6.tsv'));
    it('has a row for every dump', () => {
      expect(rows.map((r) => r[0]).sort()).toEqual(
        readdirSync(dir)
          .filter((f) => f.endsWith('.nft'))
          .sort(),
      );
    });
    const loads = rows.filter((r) => r[1] === 'OK');
    const refused = rows.filter((r) => r[1] !== 'OK');
    it(`the ${loads.length} dumps nft 1.0.6 loads parse without errors or warnings, and type every statement start`, () => {
      const bad: string[] = [];
      const unknown: string[] = [];
      for (const [file] of loads) {
        const r = parseNft(read('nftables-tests', file));
        for (const p of describeProblems(r, 'error', 'warning')) bad.push(`${file}:${p}`);
        for (const t of r.tables) for (const c of t.chains) for (const x of c.rules) if (x.statements.length === 0) unknown.push(`${file}: ${x.raw}`);
      }
      expect(bad).toEqual([]);
      expect(unknown).toEqual([]);
      expect(loads.length).toBe(351);
    });
    // nft 1.0.6 refuses these for newer syntax (shifts on marks, typeof concatenations, `persist`, multi-statement
    // sets), for semantic reasons (datatype mismatches, values out of range) or for missing devices; none of that
    // is a syntax error, so the parser reads them leniently too.
    it(`the ${refused.length} dumps nft 1.0.6 refuses for newer syntax or semantics still parse without errors`, () => {
      const bad: string[] = [];
      for (const [file] of refused) {
        const r = parseNft(read('nftables-tests', file));
        for (const p of describeProblems(r, 'error')) bad.push(`${file}:${p}`);
      }
      expect(bad).toEqual([]);
    });
  });

  describe('netfilter nftables JSON dumps (VALIDATION-json-nft-1.0.6.tsv)', () => {
    const dir = join(NFT, 'nftables-tests', 'json');
    const rows = tsv(join(NFT, 'nftables-tests', 'VALIDATION-json-nft-1.0.6.tsv'));
    it('has a row for every JSON dump', () => {
      expect(rows.map((r) => r[0]).sort()).toEqual(readdirSync(dir).sort());
    });
    it('every JSON dump parses without problems (the refused ones fail on semantics, not on JSON)', () => {
      const bad: string[] = [];
      for (const [file] of rows) {
        const r = parseNftJson(read('nftables-tests', 'json', file));
        for (const p of describeProblems(r, 'error', 'warning')) bad.push(`${file}:${p}`);
      }
      expect(bad).toEqual([]);
    });
    it('each JSON dump gives the same model as the text dump of the same test', () => {
      const textRows = new Map(tsv(join(NFT, 'nftables-tests', 'VALIDATION-nft-1.0.6.tsv')).map((r) => [r[0], r[1]]));
      const diffs: string[] = [];
      let compared = 0;
      for (const [file] of rows) {
        const textFile = file.replace(/\.json-nft$/, '.nft');
        if (!textRows.has(textFile)) continue;
        const text = parseNft(read('nftables-tests', textFile));
        const json = parseNftJson(read('nftables-tests', 'json', file));
        compared++;
        if (JSON.stringify(shape(json, typeofSets(text))) !== JSON.stringify(shape(text, typeofSets(text)))) diffs.push(file);
      }
      expect(compared).toBe(298);
      expect(diffs).toEqual([]);
    });
  });

  it('real-world rulesets parse without problems', () => {
    const files = readdirSync(join(NFT, 'real-world'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const r = parseNft(read('real-world', f));
      expect(describeProblems(r, 'error', 'warning'), f).toEqual([]);
      expect(r.tables.length, f).toBeGreaterThan(0);
    }
  });

  // Bonus: netfilter's rule-level tests (tests/py/*.t): every rule marked `;ok`, and the form nft lists it back
  // in, parses inside a chain of the test's family without problems.
  it('every `;ok` rule of the nftables py tests parses (2,000+ rules)', () => {
    const dir = join(NFT, 'nftables-py-tests');
    // `127.0.0.1:symhash` is one word to this lexer (nft's scanner splits an address from `:` and a keyword).
    const KNOWN = new Set(['meta l4proto 6 tproxy ip to 127.0.0.1:symhash mod 2 map { 0 : 23, 1 : 42 }']);
    const bad: string[] = [];
    let total = 0;
    for (const f of readdirSync(dir)) {
      let family = 'ip';
      for (const line of read('nftables-py-tests', f).split('\n')) {
        if (line.startsWith('*')) {
          family = line.slice(1).split(';')[0];
          continue;
        }
        const m = /^([^#:*!?%-].*?);ok(?:;(.*))?$/.exec(line);
        if (!m) continue;
        for (const rule of [m[1], m[2]].filter((x): x is string => Boolean(x))) {
          if (KNOWN.has(rule)) continue;
          total++;
          const r = parseNft(`table ${family} t {\n\tchain c {\n\t\t${rule}\n\t}\n}\n`);
          const problems = r.diagnostics.filter((d) => !['undefined-set', 'undefined-chain'].includes(d.code));
          if (problems.length > 0 || r.tables[0]?.chains[0]?.rules.length !== 1) bad.push(`${f}: ${rule} → ${problems.map((d) => d.message).join('; ')}`);
        }
      }
    }
    expect(total).toBeGreaterThan(2000);
    expect(bad).toEqual([]);
  });
});
