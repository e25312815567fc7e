// Guards the nftables TextMate grammar against super-linear tokenization.
//
// Tokenizes hostile 100,000-character lines with vscode-textmate (the engine VS Code uses; it comes with
// vscode-tmgrammar-test) and fails if any line takes a second or more of CPU time, or a hostile short line
// (../short-lines.mjs) more than a few milliseconds. A regex with catastrophic backtracking, or a capture
// with nested "patterns" (vscode-textmate re-scans a copy of the line prefix for each such capture, which is
// quadratic), shows up here as seconds per line. Many lines are tokenized both
// at the top level and inside `table … { chain … {` (where rules, sets and braces push their own rules).
// Also checks that a trailing carriage return or tabs instead of spaces do not change the scopes of the
// visible text.
// Every unbounded repeat of the grammar must be possessive or atomic (../quantifiers.mjs, a static check).
//
// Run: node test/grammar/nft/linear-time.check.mjs
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkQuantifiers } from '../quantifiers.mjs';
import { checkShortLines, cpuTime, shortLines } from '../short-lines.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const rootRequire = createRequire(path.join(root, 'package.json'));
/** Resolves a package from the repository root, or next to vscode-tmgrammar-test when it is not hoisted. */
function resolve(name) {
  try {
    return rootRequire.resolve(name);
  } catch {
    return createRequire(rootRequire.resolve('vscode-tmgrammar-test/package.json')).resolve(name);
  }
}
const tm = rootRequire(resolve('vscode-textmate'));
const onig = rootRequire(resolve('vscode-oniguruma'));

const LIMIT_MS = 1000;
const N = 100_000;
const grammarPath = path.join(root, 'syntaxes/nftables.tmLanguage.json');
const wasmPath = path.join(path.dirname(resolve('vscode-oniguruma')), 'onig.wasm');

const onigLib = onig.loadWASM(fs.readFileSync(wasmPath).buffer).then(() => ({
  createOnigScanner: (patterns) => new onig.OnigScanner(patterns),
  createOnigString: (s) => new onig.OnigString(s),
}));
const registry = new tm.Registry({
  onigLib,
  loadGrammar: async () => tm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath),
});
const grammar = await registry.loadGrammar('source.nftables');

/** Rule stack after the given lines, to tokenize a hostile line inside a block. */
const stackAfter = (lines) => lines.reduce((stack, line) => grammar.tokenizeLine(line, stack).ruleStack, tm.INITIAL);
const contexts = {
  'top level': tm.INITIAL,
  'in a chain': stackAfter(['table ip kube-proxy {', '\tchain services {']),
  'in a set': stackAfter(['table inet filter {', '\tset s {']),
  'in elements': stackAfter(['table inet filter {', '\tmap m {', '\t\ttype ipv4_addr : verdict', '\t\telements = {']),
};
// compile the scanners before timing
for (const stack of Object.values(contexts)) grammar.tokenizeLine('ip saddr 10.0.0.1 tcp dport 80 accept', stack);

let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const pick = (alphabet) => {
  let s = '';
  while (s.length < N) s += alphabet[Math.floor(random() * alphabet.length)];
  return s.slice(0, N);
};
const repeat = (unit) => unit.repeat(Math.ceil(N / unit.length)).slice(0, N);

const cases = {
  'random printable ASCII': pick(Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))),
  'random grammar characters': pick('-:. 0123456789abcdefABCDEFxX"\\!{}[]()/,;@$=<>&|^*\t#_'),
  'random tokens': pick(['ip ', 'saddr ', 'tcp ', 'dport ', ' . ', '{ ', '} ', '; ', '@', '$', 'jump ', 'goto ',
    'chain ', 'table ', 'set ', 'map ', 'add ', 'rule ', 'ct ', 'state ', 'meta ', 'mark ', 'vmap ', 'dnat ', 'to ',
    '10.', '0x', '/', ':', '::', 'fd00', '"', '\\"', '-', ',', '0', '1s', ' ', '\t', 'accept', 'KUBE-', 'service-']),
  digits: repeat('1'),
  'digits then a letter': repeat('1') + 'a',
  'time units': repeat('1h'),
  'time units then a letter': repeat('1m') + 'x',
  colons: repeat(':'),
  'hex and colons': repeat('abcd:1234:'),
  'dotted digits': repeat('1.'),
  'IPv4 ranges': repeat('1.1.1.1-'),
  'IPv4 with ports': repeat('1.1.1.1:'),
  'IPv6 in brackets': repeat('[::'),
  'MAC-like': repeat('aa:'),
  dashes: repeat('-'),
  spaces: repeat(' '),
  'one long name': `jump service-${repeat('x/')}`,
  'kube-proxy name then a quote': `goto endpoint-5OJB2KTY-${repeat('a.1/_')}"`,
  'quote then backslashes': `"${repeat('\\')}`,
  'unclosed strings': repeat('"x '),
  'open braces': repeat('{ '),
  'close braces': repeat('} '),
  'open parens': repeat('( '),
  'concatenations': repeat('ip saddr . '),
  'set references': repeat('@s '),
  'raw payload': repeat('@th,1,'),
  'variables': repeat('$x '),
  'many jumps': repeat('jump '),
  'many gotos to kube names': repeat('goto service-ULMVA6XW-ns1/svc1/tcp/p80 '),
  'many chain headers': repeat('chain x '),
  'many add chain commands': repeat('add chain ip t '),
  'many add rule commands': repeat('add rule ip t c '),
  'many table headers': repeat('table ip '),
  'many set headers': repeat('set s '),
  'many types': repeat('type filter hook input priority '),
  'many priorities': repeat('priority dstnat - '),
  'many dnat': repeat('dnat to '),
  'many ct': repeat('ct original ip '),
  'many interfaces': repeat('iifname eth0 '),
  'many counters': repeat('counter packets 1 bytes '),
  'many fields': repeat('saddr '),
  'many comma lists': repeat('a,'),
  'many flags': repeat('flags a,'),
  'many operators': repeat('!= '),
  'many word operators': repeat('and '),
  'comment line': `# ${repeat('x')}`,
  'handle comment': `# handle ${repeat('1')}`,
  'warning line': `# Warning: ${repeat('x')}`,
  'define line': `define ${repeat('x')}`,
};

let passed = 0;
let failed = checkQuantifiers('source.nftables', grammarPath);
for (const [name, line] of Object.entries(cases)) {
  for (const [where, stack] of Object.entries(contexts)) {
    const { ms, result } = cpuTime(() => grammar.tokenizeLine(line, stack));
    const ok = ms < LIMIT_MS && !result.stoppedEarly;
    ok ? passed++ : failed++;
    if (!ok || process.argv.includes('--verbose')) {
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(30)} ${where.padEnd(12)} ${String(line.length).padStart(7)} chars ${ms.toFixed(0).padStart(6)} ms`);
    }
  }
}

// Hostile short lines where addresses, values and strings are tokenized, at the top level and in a chain.
for (const [where, stack] of Object.entries(contexts)) {
  const lines = shortLines(['', 'ip saddr ', 'dnat to ', 'elements = { ', 'comment ']);
  failed += checkShortLines(`nft ${where}`, lines, (line) => grammar.tokenizeLine(line, stack));
}

// A trailing \r (CRLF text split on \n only) or tabs between words must not change the scopes of the text.
const sample = [
  '# Warning: table ip nat is managed by iptables-nft, do not touch!',
  'table ip kube-proxy {',
  '\tchain endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 {',
  '\t\ttype nat hook prerouting priority dstnat - 10; policy accept;',
  '\t\tip daddr . meta l4proto . th dport vmap @service-ips',
  '\t\tnumgen random mod 2 vmap { 0 : goto endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80, 1 : goto x }',
  '\t\tmeta l4proto tcp dnat to 10.180.0.1:80',
  '\t\tct state new counter packets 3 bytes 180 jump mark-for-masquerade # handle 4',
  '\t\tip6 saddr fd00::/8 limit rate 10/second log prefix "x" drop',
  '\t}',
  '}',
  'add rule ip kube-proxy services ip daddr @cluster-ips reject',
];
const scopesByChar = (lines) => {
  const out = [];
  let stack = tm.INITIAL;
  for (const line of lines) {
    const r = grammar.tokenizeLine(line, stack);
    stack = r.ruleStack;
    const row = [];
    for (const t of r.tokens) for (let i = t.startIndex; i < t.endIndex; i++) row[i] = t.scopes.join(' ');
    out.push(row);
  }
  return out;
};
const plain = scopesByChar(sample);
const variants = {
  'trailing CR': sample.map((l) => l + '\r'),
  tabs: sample.map((l) => (l.startsWith('#') || l.includes('"') ? l : l.replace(/ /g, '\t'))),
};
for (const [variant, lines] of Object.entries(variants)) {
  const other = scopesByChar(lines);
  sample.forEach((line, n) => {
    const at = [...line].findIndex((ch, i) => ch !== ' ' && ch !== '\t' && plain[n][i] !== other[n][i]);
    const ok = at < 0;
    ok ? passed++ : failed++;
    if (!ok) console.log(`FAIL ${variant}: ${JSON.stringify(line)} column ${at}: ${plain[n][at]} != ${other[n][at]}`);
  });
}

console.log(`nftables-grammar-linear-time: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
