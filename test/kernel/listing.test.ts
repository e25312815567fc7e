// `iptables -L` and `iptables -S` as input: generated kube-proxy rulesets (iptables and IPVS mode, IPv4 and IPv6)
// loaded with iptables-restore into a throw-away namespace and printed back by the real tools, per table, must give
// the same Service catalog (names, frontends, endpoints, shares) as the same ruleset's iptables-save; and the real
// tools' listings of every corpus dump that loads must read without an error diagnostic.
//
// Root only; the namespaces are deleted afterwards (never the root namespace). Run with
// `npx vitest run --config test/kernel/vitest.config.mts test/kernel/listing.test.ts`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { ipv6Variant } from '../../tools/generate/nft';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import type { Service } from '../../src/core/kube/service';

const CORPUS = '/work/shared/corpus/iptables';
const root = process.getuid?.() === 0 && spawnSync('ip', ['-V']).status === 0 && spawnSync('iptables', ['--version']).status === 0;

function netns<T>(fn: (ns: string) => T): T {
  const ns = `dpe-list-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
  execFileSync('ip', ['netns', 'add', ns]);
  try {
    return fn(ns);
  } finally {
    spawnSync('ip', ['netns', 'del', ns]);
  }
}

const run = (ns: string, tool: string, args: string[], input?: string): string =>
  execFileSync('ip', ['netns', 'exec', ns, tool, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'pipe'] });

const TABLES = ['filter', 'nat', 'mangle', 'raw'];
const LISTINGS: Record<string, string[]> = { 'L -n -v': ['-L', '-n', '-v'], 'L -n -v -x --line-numbers': ['-L', '-n', '-v', '-x', '--line-numbers'], S: ['-S'] };

/** Each listing of the loaded ruleset: per table, with a prompt line before it and without one. */
function listings(ns: string, tool: string): Record<string, string> {
  const out: Record<string, string> = {};
  const tables = TABLES.filter((tb) => run(ns, tool, ['-t', tb, '-S']).trim() !== '');
  for (const [name, args] of Object.entries(LISTINGS)) {
    const parts = tables.map((tb) => ({ tb, text: run(ns, tool, ['-t', tb, ...args]) }));
    out[`${name} (prompts)`] = parts.map((p) => `# ${tool} -t ${p.tb} ${args.join(' ')}\n${p.text}`).join('\n');
    out[`${name} (bare)`] = parts.map((p) => p.text).join(name === 'S' ? '' : '\n');
  }
  return out;
}

/** What the catalogs are compared on: names, frontends, endpoints and their shares. */
function shape(services: Service[]): unknown {
  return services
    .map((s) => ({
      name: `${s.namespace}/${s.name}:${s.portName}/${s.protocol}`,
      frontends: s.frontends.map((f) => `${f.kind} ${f.address ?? ''}:${f.port}`).sort(),
      endpoints: s.endpoints.map((e) => `${e.address}:${e.port} ${e.probability.toFixed(6)}${e.local ? ' local' : ''}`).sort(),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function catalog(iptablesName: string, iptablesText: string, others: SnapshotFile[]): Service[] {
  const file = analyzeFile(iptablesName, iptablesText, 'iptables')!;
  return buildSnapshot([file, ...others]).services;
}

const errors = (text: string) => parseIptables(text).diagnostics.filter((d) => d.severity === 'error');

interface Case {
  name: string;
  family: 'ipv4' | 'ipv6';
  dump: string;
  /** `ipset save` to load first (IPVS mode). */
  ipsets?: string;
  others: SnapshotFile[];
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const family of ['ipv4', 'ipv6'] as const) {
    const v4 = randomServices(12, 3, family === 'ipv4' ? 4 : 5);
    const services = family === 'ipv6' ? ipv6Variant(v4) : v4;
    out.push({ name: `iptables mode ${family}`, family, dump: generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: true, family }), others: [] });
    const nodeIPs = [family === 'ipv4' ? '192.168.0.10' : 'fd00::10'];
    const ipvs = generateIpvsSnapshot({ services, nodeIPs, family });
    const others = [analyzeFile('node.ipvsadm', ipvs['ipvsadm-list'], 'ipvsadm')!, analyzeFile('node.ipset', ipvs['ipset-save'], 'ipset')!];
    out.push({ name: `IPVS mode ${family}`, family, dump: ipvs['iptables-save'], ipsets: ipvs['ipset-save'], others });
  }
  return out;
}

/** Without what this kernel may lack (the nfacct tool's objects, xt_ipvs): both sides read what was loaded. */
const loadable = (dump: string) =>
  dump
    .replace(/ -m nfacct --nfacct-name +\S+/g, '')
    .split('\n')
    .filter((line) => !/ -m ipvs /.test(line))
    .join('\n');

describe.skipIf(!root)('iptables -L / -S printed by the real tools read as iptables-save does', () => {
  for (const c of cases()) {
    it(c.name, () => {
      const tool = c.family === 'ipv6' ? 'ip6tables' : 'iptables';
      netns((ns) => {
        if (c.ipsets) run(ns, 'ipset', ['restore'], c.ipsets);
        run(ns, `${tool}-restore`, [], loadable(c.dump));
        const saved = run(ns, `${tool}-save`, []);
        const expected = shape(catalog('node.iptables', saved, c.others));
        expect((expected as unknown[]).length).toBeGreaterThan(5);
        for (const [name, text] of Object.entries(listings(ns, tool))) {
          expect(parseIptables(text).listing?.format, name).toBe(name.startsWith('S') ? 'spec' : 'list');
          expect(errors(text).map((d) => `${name}: ${d.range.start.line + 1} ${d.code} ${d.message}`)).toEqual([]);
          expect(shape(catalog('node.txt', text, c.others)), name).toEqual(expected);
        }
      });
    });
  }
});

/** The corpus's iptables dumps (skipped with a message when the corpus is absent). */
function corpusDumps(): string[] {
  if (!existsSync(CORPUS)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!/\.(json|tsv|md)$/.test(name)) out.push(p);
    }
  };
  walk(CORPUS);
  return out.sort();
}

describe.skipIf(!root)('the real tools list every corpus dump that loads; the listings read without errors', () => {
  const dumps = corpusDumps();
  if (dumps.length === 0) it.skip(`no corpus at ${CORPUS}`, () => {});
  else
    it(`${dumps.length} corpus dumps`, () => {
      let loaded = 0;
      let withServices = 0;
      let compared = 0;
      const problems: string[] = [];
      for (const file of dumps) {
        const text = readFileSync(file, 'utf8');
        const tool = /ip6tables|\.v6\b|-6\b/.test(file) || /^-A \S+ .*-[sd] [0-9a-f]*:[0-9a-f:]*\//m.test(text) ? 'ip6tables' : 'iptables';
        netns((ns) => {
          if (spawnSync('ip', ['netns', 'exec', ns, `${tool}-restore`], { input: text }).status !== 0) return;
          loaded++;
          const expected = shape(catalog('node.iptables', run(ns, `${tool}-save`, []), []));
          if ((expected as unknown[]).length > 0) withServices++;
          for (const [name, listing] of Object.entries(listings(ns, tool))) {
            const where = `${path.relative(CORPUS, file)} ${name}`;
            for (const d of errors(listing)) problems.push(`${where}: ${d.range.start.line + 1} ${d.code} ${d.message}`);
            compared++;
            if (JSON.stringify(shape(catalog('node.txt', listing, []))) !== JSON.stringify(expected)) problems.push(`${where}: another Service catalog than iptables-save's`);
          }
        });
      }
      console.log(`corpus listings: ${loaded} of ${dumps.length} dumps loaded (${withServices} with Services); ${compared} listings compared; ${problems.length} problems`);
      expect(problems).toEqual([]);
      expect(loaded).toBeGreaterThan(0);
    }, 1_800_000);
});
