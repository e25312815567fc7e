// What every feature outputs for one input group (a dump, or a node snapshot folder), as normalised JSON: the
// golden record that proves a refactoring changed no behaviour (test/golden/run.mjs builds, runs and compares it).
// Only public entry points are called: the CLI's `run`, the language features of each dump, the snapshot, Explain
// This Node and the graph model; never a parser's internals.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { run } from '../../src/cli/main';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { explainNode } from '../../src/core/explain/node';
import { graphOfSnapshot } from '../../src/core/graph/snapshot';

interface Group {
  id: string;
  dir: string;
  files: string[];
}

interface Pos {
  line: number;
  character: number;
}
interface Rng {
  start: Pos;
  end: Pos;
}

const MAX_SYMBOLS = 300;
const MAX_REFERENCE_SAMPLES = 100;
const MAX_RANGES = 200;
const MAX_HOVER_LINES = 60;
const MAX_TRACES = 20;
/** The cluster-state files the generator and the samples write beside a dump (trace reads them with it). */
const CLUSTER_STATE = /^(cluster-state\.ya?ml|services\.json|nodes\.json|kube-proxy\.json)$/;

const r = (x: Rng | undefined) => (x ? `${x.start.line}:${x.start.character}-${x.end.line}:${x.end.character}` : null);

/** Maps and Sets as arrays, functions dropped, so that JSON shows all of a model. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value.entries()] };
  if (value instanceof Set) return { $set: [...value] };
  if (typeof value === 'bigint') return `${value}n`;
  return value;
}

function cli(argv: string[]): { status: number; json?: unknown; out?: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const status = run(argv, (s) => out.push(s), (s) => err.push(s));
  try {
    return { status, json: argv.includes('--json') && out.length ? JSON.parse(out.join('\n')) : undefined, out: argv.includes('--json') ? undefined : out, err };
  } catch {
    return { status, out, err };
  }
}

/** Every `count`-th element so that at most `max` remain (the first included). */
function sample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const step = items.length / max;
  return Array.from({ length: max }, (_, k) => items[Math.floor(k * step)]);
}

function capped<T>(items: readonly T[], max: number) {
  return items.length <= max ? items : { first: items.slice(0, max), total: items.length };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function hoverJson(h: any) {
  if (!h) return null;
  return { markdown: String(h.markdown), range: r(h.range), commands: h.commands ?? null, service: h.service ?? null };
}

/** The positions of the sampled lines' words (every start of a run of non-blank characters). */
function wordStarts(text: string): Pos[] {
  const lines = text.split(/\r\n|\r|\n/);
  const picked = sample(lines.map((_, i) => i), MAX_HOVER_LINES);
  const out: Pos[] = [];
  for (const line of picked) {
    const re = /\S+/g;
    let m: RegExpExecArray | null;
    let n = 0;
    while ((m = re.exec(lines[line])) && n++ < 24) out.push({ line, character: m.index });
  }
  return out;
}

/** The language features of one dump. */
function fileGolden(file: SnapshotFile, text: string) {
  const { features: f, analysis: a } = file;
  const diagnostics = a.diagnostics.map((d: { range: Rng; severity: string; code?: string; message: string }) => ({ at: r(d.range), severity: d.severity, code: d.code ?? null, message: d.message }));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const outline = (items: any[]): unknown => items.map((o) => ({ name: o.name, objectName: o.objectName ?? null, detail: o.detail, kind: o.kind, range: r(o.range), selection: r(o.selectionRange), children: outline(o.children) }));
  const semantic: { range: Rng; kind: string; declaration: boolean; kube?: boolean }[] = f.semanticSymbols?.(a) ?? [];
  // Dialects without semantic tokens (ipvsadm, ipset): their outline's names are the declarations.
  const flat = (items: { selectionRange: Rng; children: unknown[] }[]): Rng[] => items.flatMap((o) => [o.selectionRange, ...flat(o.children as typeof items)]);
  const declarations = semantic.length ? semantic.filter((s) => s.declaration) : flat(f.outline(a)).map((range) => ({ range }));
  const references = semantic.filter((s) => !s.declaration);
  const symbolAt = (p: Pos, withReferences: boolean) => {
    const d = f.definitionAt(a, p);
    const refs: Rng[] = withReferences ? f.referencesAt(a, p, true) : [];
    return {
      at: `${p.line}:${p.character}`,
      definition: d ? { kind: d.kind, name: d.name, scope: d.scope, range: r(d.range), full: r(d.fullRange), builtin: d.builtin ?? false } : null,
      ...(withReferences ? { references: capped(refs.map(r), MAX_RANGES) } : {}),
      hover: hoverJson(f.hoverAt(a, p)),
    };
  };
  return {
    languageId: file.languageId,
    dialect: a.dialect,
    status: f.statusSummary(a),
    diagnostics,
    outline: outline(f.outline(a)),
    folding: f.foldingRanges(a).map((x: { start: number; end: number }) => `${x.start}-${x.end}`),
    semanticTokens: semantic.map((s) => `${r(s.range)} ${s.kind}${s.declaration ? ' decl' : ''}${s.kube ? ' kube' : ''}`),
    workspaceSymbols: (f.namedObjects?.(a) ?? []).map((o: { name: string; kind: string; container: string; selectionRange: Rng }) => `${o.kind} ${o.container}/${o.name} ${r(o.selectionRange)}`),
    services: f.services(a).length,
    declarations: declarations.slice(0, MAX_SYMBOLS).map((s) => symbolAt(s.range.start, true)),
    references: sample(references, MAX_REFERENCE_SAMPLES).map((s) => symbolAt(s.range.start, false)),
    hovers: wordStarts(text)
      .map((p) => ({ at: `${p.line}:${p.character}`, hover: hoverJson(f.hoverAt(a, p)) }))
      .filter((h) => h.hover !== null),
  };
}

interface ServicesJson {
  services?: { protocol: string; frontends: { kind: string; address?: string; port: number }[] }[];
}

/** The trace of each Service frontend with an address (the first MAX_TRACES), as `dataplane trace --json` gives it. */
function traces(group: Group, services: ServicesJson | undefined, dumps: Set<string>) {
  const out: unknown[] = [];
  for (const s of services?.services ?? []) {
    for (const fe of s.frontends) {
      if (fe.address === undefined || out.length >= MAX_TRACES) continue;
      const to = `${fe.address.includes(':') ? `[${fe.address}]` : fe.address}:${fe.port}/${s.protocol.toLowerCase()}`;
      out.push({ to, ...cli(['trace', '--json', '--to', to, ...group.files.filter((f) => dumps.has(f) || CLUSTER_STATE.test(f))]) });
    }
  }
  return out;
}

function groupGolden(group: Group) {
  process.chdir(group.dir);
  const texts = group.files.map((f) => readFileSync(f, 'utf8'));
  // kube-proxy's nft command files (corpus) start with commands that detection does not take for a ruleset.
  const analysed = group.files.map((name, i) => ({ name, text: texts[i], file: analyzeFile(name, texts[i]) ?? (name.endsWith('.nft-cmds') ? analyzeFile(name, texts[i], 'nftables') : undefined) }));
  const dumps = analysed.filter((x) => x.file !== undefined);
  const files: Record<string, unknown> = {};
  for (const x of analysed) {
    files[x.name] = {
      sha256: createHash('sha256').update(x.text).digest('hex'),
      ...(x.file ? { parse: cli(['parse', '--json', x.name]), features: fileGolden(x.file, x.text) } : { recognised: false }),
    };
  }
  if (dumps.length === 0) return { id: group.id, files };
  const snapshot = buildSnapshot(dumps.map((x) => x.file!));
  const services = cli(['services', '--json', ...dumps.map((x) => x.name)]);
  return {
    id: group.id,
    files,
    snapshot: { mode: snapshot.mode, services: snapshot.services.length, leftovers: snapshot.leftovers },
    servicesJson: services,
    traces: traces(group, services.json as ServicesJson | undefined, new Set(dumps.map((x) => x.name))),
    explain: explainNode(snapshot, dumps.map((x) => x.text)),
    graph: graphOfSnapshot(snapshot),
  };
}

/**
 * argv: GROUPS.json OUTDIR [PATH=replacement]… — writes OUTDIR/<id>.json per group. Called by run.mjs through
 * `node -e` (the bundle holds the CLI, which runs itself when it is the main module).
 */
export function main(argv: string[]): void {
  const [groupsFile, outDir, ...replacements] = argv;
  const groups = JSON.parse(readFileSync(groupsFile, 'utf8')) as Group[];
  mkdirSync(outDir, { recursive: true });
  const here = process.cwd();
  for (const group of groups) {
    let json: string;
    try {
      json = JSON.stringify(groupGolden(group), replacer, 1);
    } catch (e) {
      json = JSON.stringify({ id: group.id, threw: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }, null, 1);
    }
    process.chdir(here);
    for (const rep of replacements) {
      const [from, to] = rep.split('=');
      json = json.split(from).join(to);
    }
    writeFileSync(join(outDir, `${group.id.replace(/[^\w.-]+/g, '__')}.json`), json + '\n');
  }
}

