// Guards the iptables TextMate grammar against super-linear tokenization.
//
// Tokenizes hostile 100,000-character lines with vscode-textmate (the engine VS Code uses; it comes with
// vscode-tmgrammar-test) and fails if any line takes a second or more of CPU time, or a hostile short line
// (short-lines.mjs) more than a few milliseconds. A regex with catastrophic backtracking, or a capture with
// nested "patterns" (vscode-textmate re-scans a copy of the line prefix for each such capture, which is
// quadratic), shows up here as seconds per line. Also checks that a trailing
// carriage return or tabs instead of spaces do not change the scopes of the visible text.
// Every unbounded repeat of the grammar must be possessive or atomic (quantifiers.mjs, a static check).
//
// Run: node test/grammar/linear-time.check.mjs
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkQuantifiers } from './quantifiers.mjs';
import { checkShortLines, cpuTime, shortLines } from './short-lines.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
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
const grammarPath = path.join(root, 'syntaxes/iptables.tmLanguage.json');
const wasmPath = path.join(path.dirname(resolve('vscode-oniguruma')), 'onig.wasm');

const onigLib = onig.loadWASM(fs.readFileSync(wasmPath).buffer).then(() => ({
  createOnigScanner: (patterns) => new onig.OnigScanner(patterns),
  createOnigString: (s) => new onig.OnigString(s),
}));
const registry = new tm.Registry({
  onigLib,
  loadGrammar: async () => tm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath),
});
const grammar = await registry.loadGrammar('source.iptables');
grammar.tokenizeLine('-A X -j ACCEPT', tm.INITIAL); // compile the scanners before timing

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
  'random grammar characters': pick('-:. 0123456789abcdefABCDEFxX"\\![]/,\t#*KUBE'),
  'random tokens': pick(['-A ', 'KUBE-', '-j ', '--dport ', '! ', '0x', '/', ':', '::', '10.', '"', '\\"', '[', ']', '0', 'fd00', ' ', '\t', 'ACCEPT', ',']),
  digits: repeat('1'),
  'digits then a letter': repeat('1') + 'a',
  colons: repeat(':'),
  'hex and colons': repeat('abcd:1234:'),
  'dotted digits': repeat('1.'),
  'IPv4 ranges': repeat('1.1.1.1-'),
  'IPv6 in brackets': repeat('[::'),
  'MAC-like': repeat('aa:'),
  dashes: repeat('-'),
  spaces: repeat(' '),
  '-j then spaces then a quote': `-j${repeat(' ')}"`,
  'KUBE- then a long name': `KUBE-${repeat('x')}`,
  'quote then backslashes': `"${repeat('\\')}`,
  'unclosed counters': repeat('[0:0'),
  'hex masks': repeat('0x1/'),
  rates: repeat('1/'),
  'times after --timestart': `--timestart ${repeat('1:')}`,
  'many long options': repeat('--a '),
  'many short options': repeat('-s '),
  'many negations': repeat('! '),
  'many jumps': repeat('x -j '),
  'many commands': repeat('x -A '),
  'many -N declarations': repeat(':x -N y '),
  'many ipset names': repeat('--match-set KUBE-X '),
  'upper-case lists': repeat('A,'),
  'comment line': `# ${repeat('x')}`,
  'chain declaration line': `:${repeat('K')}`,
  'table line': `*${repeat('f')}`,
};

let passed = 0;
let failed = checkQuantifiers('source.iptables', grammarPath);
for (const [name, line] of Object.entries(cases)) {
  const { ms, result } = cpuTime(() => grammar.tokenizeLine(line, tm.INITIAL));
  const ok = ms < LIMIT_MS && !result.stoppedEarly;
  ok ? passed++ : failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(30)} ${String(line.length).padStart(7)} chars ${ms.toFixed(0).padStart(6)} ms`);
}

// Hostile short lines (see short-lines.mjs) where addresses, values and strings are tokenized.
const shortLinePrefixes = ['', '-A X -s ', '-A X -j DNAT --to-destination ', '-A X -m comment --comment ', '-A X --dport '];
failed += checkShortLines('source.iptables', shortLines(shortLinePrefixes), (line) => grammar.tokenizeLine(line, tm.INITIAL));

// A trailing \r (CRLF text split on \n only) or tabs between words must not change the scopes of the text.
const sample = [
  '# Generated by iptables-nft-save v1.8.9 (nf_tables) on Tue Nov 26 10:00:00 2024',
  '*nat',
  ':KUBE-SERVICES - [0:0]',
  ':PREROUTING ACCEPT [0:0]',
  '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O',
  '[0:0] -A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000',
  '-A KUBE-SEP-SXIVWICOYRO3J4NJ -s 10.180.0.1/32 -m comment --comment ns1/svc1:p80 -j KUBE-MARK-MASQ',
  '-A KUBE-SEP-ZX7GRIZKSNUQ3LAJ -p tcp -m tcp -j DNAT --to-destination [fd00:10:244:1::5]:8080',
  '-A KUBE-FIREWALL ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP',
  '-P FORWARD DROP',
  'COMMIT',
];
const scopesByChar = (line) => {
  const out = [];
  for (const t of grammar.tokenizeLine(line, tm.INITIAL).tokens) {
    for (let i = t.startIndex; i < t.endIndex; i++) out[i] = t.scopes.join(' ');
  }
  return out;
};
for (const line of sample) {
  const plain = scopesByChar(line);
  const variants = { 'trailing CR': line + '\r' };
  if (!line.startsWith('#') && !line.includes('"')) variants.tabs = line.replace(/ /g, '\t');
  for (const [variant, text] of Object.entries(variants)) {
    const other = scopesByChar(text);
    const at = [...line].findIndex((ch, i) => ch !== ' ' && plain[i] !== other[i]);
    const ok = at < 0;
    ok ? passed++ : failed++;
    if (!ok) console.log(`FAIL ${variant}: ${JSON.stringify(line)} column ${at}: ${plain[at]} != ${other[at]}`);
  }
}

console.log(`grammar-linear-time: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
