// Activation (issue #8: ≤ 50 ms): dist/extension.js holds the adapters only and loads the parsers (dist/core.js)
// on first use. Built here exactly as scripts/build.mjs builds them (same plugin): the activation bundle contains
// no parser, Chevrotain or catalog code; activate() registers every contributed command without loading
// dist/core.js; the dumps already open are analysed just after activation, which loads dist/core.js, and the
// core messages in it are translated with the extension's translator. The cheap language lists match the registry.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreOnDemand } from '../../scripts/core-on-demand.mjs';
import { LANGUAGES } from '../../src/core/language';
import { DUMP_LANGUAGE_IDS, SEMANTIC_LANGUAGE_IDS, isDumpLanguage } from '../../src/extension/dumpLanguages';

let dir: string;
let extensionInputs: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dataplane-activation-test-'));
  const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning', metafile: true, loader: { '.sh': 'text' } } as const;
  const [extension] = await Promise.all([
    esbuild.build({ ...common, entryPoints: ['src/extension/extension.ts'], outfile: join(dir, 'extension.js'), external: ['vscode'], plugins: [coreOnDemand] }),
    esbuild.build({ ...common, entryPoints: ['src/extension/core.ts'], outfile: join(dir, 'core.js') }),
  ]);
  extensionInputs = Object.keys(extension.metafile.inputs);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The core modules the activation bundle may hold: small, with no state but l10n's translator (see loadCore.ts). */
const CHEAP_CORE = [
  'src/core/l10n.ts',
  'src/core/detect.ts',
  'src/core/model/address.ts',
  'src/core/graph/protocol.ts',
  'src/core/explain/node-protocol.ts',
  'src/core/explain/label.ts',
  'src/core/language/status.ts',
  'src/core/graph/title.ts',
  // Capture Node Snapshot's invocations and the collector script (a few KB of text); anonymizing loads core.js.
  'src/core/collect/plan.ts',
  'src/core/collect/stream.ts',
  'src/core/collect/collect.sh',
];

/**
 * Loads the built extension.js in a fresh Node process against a recording stub `vscode` (one iptables dump with
 * two errors open), runs activate(), then lets the timers run; reports what was registered and published.
 */
function activateInChild(): {
  coreAfterActivate: boolean;
  coreAfterTimers: boolean;
  commands: string[];
  hoverSelector: unknown;
  diagnostics: string[];
} {
  const probe = `
    const Module = require('node:module');
    const text = '*filter\\nbogus line\\n-A INPUT -j NOPE\\nCOMMIT\\n';
    const doc = {
      uri: { toString: () => 'untitled:dump', fsPath: '/nowhere/dump', scheme: 'untitled' },
      fileName: '/nowhere/dump', languageId: 'iptables', version: 1, isClosed: false,
      lineCount: text.split('\\n').length, getText: () => text, offsetAt: () => text.length,
      lineAt: (i) => ({ text: text.split('\\n')[i] }),
    };
    const calls = [];
    const published = [];
    class Value { constructor(...args) { this.args = args; } }
    class Diagnostic { constructor(range, message, severity) { this.range = range; this.message = message; this.severity = severity; } }
    const overrides = {
      'vscode.workspace.textDocuments': [doc],
      'vscode.window.activeTextEditor': { document: doc },
      'vscode.window.tabGroups.activeTabGroup.activeTab': undefined,
      'vscode.l10n.t': (m, ...a) => '«' + m.replace(/\\{(\\d+)\\}/g, (w, i) => String(a[i])) + '»',
      'vscode.workspace.getConfiguration': () => ({ get: (_k, d) => d }),
      'vscode.languages.createDiagnosticCollection': () => ({ set: (uri, d) => published.push(...d.map((x) => x.message)), delete() {}, dispose() {} }),
      'vscode.Position': Value, 'vscode.Range': Value, 'vscode.Diagnostic': Diagnostic,
    };
    const cache = new Map();
    const stub = (path) => {
      if (cache.has(path)) return cache.get(path);
      const proxy = new Proxy(function () {}, {
        get: (_t, p) => {
          if (p === 'then' || typeof p === 'symbol') return p === Symbol.toPrimitive ? () => '' : undefined;
          const key = path + '.' + p;
          return Object.hasOwn(overrides, key) ? overrides[key] : stub(key);
        },
        apply: (_t, _this, args) => { calls.push([path, args]); return stub(path + '()'); },
        construct: () => stub('new ' + path),
        // esbuild's namespace import copies own properties; other property reads fall through to the prototype.
        getPrototypeOf: () => proxy,
        set: () => true,
      });
      cache.set(path, proxy);
      return proxy;
    };
    const vscode = stub('vscode');
    const load = Module._load;
    Module._load = function (request, ...rest) { return request === 'vscode' ? vscode : load.call(this, request, ...rest); };
    const context = { subscriptions: [], extensionUri: stub('uri'), extensionPath: ${JSON.stringify(resolve('.'))}, globalState: stub('g'), workspaceState: stub('w'), extensionMode: 1, asAbsolutePath: (p) => p };
    const core = ${JSON.stringify(join(dir, 'core.js'))};
    require(${JSON.stringify(join(dir, 'extension.js'))}).activate(context);
    const coreAfterActivate = core in require.cache;
    setTimeout(() => setTimeout(() => {
      process.stdout.write(JSON.stringify({
        coreAfterActivate,
        coreAfterTimers: core in require.cache,
        commands: calls.filter(([p]) => p === 'vscode.commands.registerCommand').map(([, a]) => a[0]),
        hoverSelector: calls.find(([p]) => p === 'vscode.languages.registerHoverProvider')?.[1][0],
        diagnostics: published,
      }));
      process.exit(0);
    }, 50), 0);`;
  return JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }));
}

describe('activation bundle', () => {
  it('holds the adapters and a few small core modules, no parser, Chevrotain or catalog', () => {
    expect(extensionInputs.filter((f) => f.includes('node_modules'))).toEqual([]);
    for (const f of extensionInputs.filter((x) => x.startsWith('src/core/'))) expect(CHEAP_CORE).toContain(f);
    expect(extensionInputs).not.toContain('src/extension/core.ts');
    expect(extensionInputs).not.toContain('src/extension/analysis/queries.ts');
    const code = readFileSync(join(dir, 'extension.js'), 'utf8');
    expect(code.match(/require\("\.\/core\.js"\)/g)).toHaveLength(1);
    // The whole of it is a small fraction of the core it loads later.
    expect(code.length * 5).toBeLessThan(readFileSync(join(dir, 'core.js'), 'utf8').length);
  });

  it('activates without loading the core, then analyses the open dump with it, translated', () => {
    const r = activateInChild();
    const contributed = (JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { commands: { command: string }[] } }).contributes.commands.map((c) => c.command);
    expect(contributed.length).toBeGreaterThan(10);
    expect(r.commands).toEqual(expect.arrayContaining(contributed));
    expect(r.hoverSelector).toEqual(DUMP_LANGUAGE_IDS.map((language) => ({ language })));
    expect(r.coreAfterActivate).toBe(false);
    expect(r.coreAfterTimers).toBe(true);
    // The parse error and the missing chain, with messages from dist/core.js's copy of core/l10n, translated.
    expect(r.diagnostics).toHaveLength(2);
    for (const message of r.diagnostics) expect(message).toMatch(/^«.+»$/s);
    expect(r.diagnostics.join('\n')).toContain('NOPE');
  });
});

describe('dump languages known without the registry', () => {
  it('match core/language', () => {
    expect(DUMP_LANGUAGE_IDS).toEqual(LANGUAGES.map((l) => l.languageId));
    expect(SEMANTIC_LANGUAGE_IDS).toEqual(LANGUAGES.filter((l) => l.semanticSymbols).map((l) => l.languageId));
    for (const l of LANGUAGES) expect(isDumpLanguage(l.languageId)).toBe(true);
    for (const other of ['plaintext', 'json', 'shellscript', '', 'IPTABLES']) expect(isDumpLanguage(other)).toBe(false);
  });
});
