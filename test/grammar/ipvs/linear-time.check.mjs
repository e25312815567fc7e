// Guards the ipvsadm and ipset TextMate grammars against super-linear tokenization, like
// test/grammar/linear-time.check.mjs does for iptables: hostile 100,000-character lines must each tokenize
// in under a second of CPU time, hostile short lines (../short-lines.mjs) in a few milliseconds each, and a
// trailing carriage return or tabs instead of spaces must not change the scopes.
// Every unbounded repeat of the grammar must be possessive or atomic (../quantifiers.mjs, a static check).
//
// Run: node test/grammar/ipvs/linear-time.check.mjs
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkQuantifiers } from '../quantifiers.mjs';
import { checkShortLines, cpuTime, shortLines } from '../short-lines.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const rootRequire = createRequire(path.join(root, 'package.json'));
function resolve(name) {
  try {
    return rootRequire.resolve(name);
  } catch {
    return createRequire(rootRequire.resolve('vscode-tmgrammar-test/package.json')).resolve(name);
  }
}
const tm = rootRequire(resolve('vscode-textmate'));
const onig = rootRequire(resolve('vscode-oniguruma'));
const wasmPath = path.join(path.dirname(resolve('vscode-oniguruma')), 'onig.wasm');
const onigLib = onig.loadWASM(fs.readFileSync(wasmPath).buffer).then(() => ({
  createOnigScanner: (patterns) => new onig.OnigScanner(patterns),
  createOnigString: (s) => new onig.OnigString(s),
}));

const GRAMMARS = {
  'source.ipvsadm': path.join(root, 'syntaxes/ipvsadm.tmLanguage.json'),
  'source.ipset': path.join(root, 'syntaxes/ipset.tmLanguage.json'),
};
const registry = new tm.Registry({
  onigLib,
  loadGrammar: async (scope) => (GRAMMARS[scope] ? tm.parseRawGrammar(fs.readFileSync(GRAMMARS[scope], 'utf8'), GRAMMARS[scope]) : null),
});

const LIMIT_MS = 1000;
const N = 100_000;
let seed = 4242;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const pick = (alphabet) => {
  let s = '';
  while (s.length < N) s += alphabet[Math.floor(random() * alphabet.length)];
  return s.slice(0, N);
};
const repeat = (unit) => unit.repeat(Math.ceil(N / unit.length)).slice(0, N);

const common = {
  'random printable ASCII': pick(Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))),
  'random address characters': pick('0123456789abcdef.:[]/-, \t'),
  digits: repeat('1'),
  colons: repeat(':'),
  'hex and colons': repeat('abcd:1234:'),
  'dotted digits': repeat('1.'),
  'IPv6 in brackets': repeat('[::'),
  spaces: repeat(' '),
  dashes: repeat('-'),
  'comment line': `# ${repeat('x')}`,
  'prompt line': `[root@node ~]# ${repeat('x ')}`,
};
const cases = {
  'source.ipvsadm': {
    ...common,
    'random tokens': pick(['TCP ', 'UDP ', '-> ', 'Masq ', 'rr ', 'persistent ', '10.0.0.1:80 ', '[fd00::1]:53 ', '0 ', '1 ', '(sh-port,', '-A ', '-t ', '-w ', ':', ' ']),
    'service line with many flags': `TCP  10.0.0.1:80 rr ${repeat('persistent 1 ')}`,
    'real server with many columns': `  -> 10.0.0.1:80 Masq ${repeat('1 ')}`,
    'real server with a long name': `  -> ${repeat('a')}:http Route 1 0 0`,
    'connection entry': `TCP 14:59  ESTABLISHED ${repeat('10.0.0.1:1 ')}`,
    'many commands': repeat('-A -t 1.1.1.1:1 -s rr '),
    'many weights': repeat('-w 0 '),
    'version header': `IP Virtual Server version ${repeat('1.')}`,
  },
  'source.ipset': {
    ...common,
    'random tokens': pick(['add ', 'create ', 'KUBE-', 'hash:ip,port ', '10.0.0.1', ',tcp:', '80', '/24', ' timeout ', ' comment "', '"', '\\', ' ', '-']),
    'many create options': `create x hash:ip ${repeat('family inet ')}`,
    'add with many options': `add x 10.0.0.1 ${repeat('timeout 1 ')}`,
    'unterminated comment': `add x 1.1.1.1 comment "${repeat('\\"')}`,
    'member with many parts': repeat('10.0.0.1,tcp:80,'),
    'header line': `Header: ${repeat('hashsize 1 ')}`,
    'port ranges': repeat('1-2,'),
    'marks with masks': repeat('0x1/0xff '),
  },
};
// Where an address is tokenized: a virtual service, a real server, a connection entry, a member.
const shortLinePrefixes = {
  'source.ipvsadm': ['TCP  ', '  -> ', 'TCP 14:59  ESTABLISHED ', '-A -t ', 'FWM  1 '],
  'source.ipset': ['', 'add x ', 'create x hash:ip ', 'Header: '],
};
const samples = {
  'source.ipvsadm': [
    'IP Virtual Server version 1.2.1 (size=4096)',
    'TCP  10.96.0.10:53 rr persistent 10800 mask 255.255.255.0',
    '  -> 10.244.1.3:53                Masq    1      1          0',
    'TCP  203.0.113.10:443 sh (sh-fallback,sh-port)',
    'TCP 14:58  ESTABLISHED 10.244.1.20:51234  10.96.0.1:443      192.168.10.10:6443',
    '-a -t 10.96.0.10:53 -r 10.244.1.3:53 -m -w 0',
    'FWM  200 IPv6 wlc persistent 300 mask 64',
  ],
  'source.ipset': [
    'create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x9e2f4fe9',
    'add KUBE-LOAD-BALANCER-SOURCE-CIDR 203.0.113.40,tcp:443,198.51.100.0/24',
    'add web-ports 10.1.0.0/16,tcp:80 skbmark 0x1/0xff skbprio 1:10 skbqueue 3',
    'Header: family inet6 hashsize 1024 maxelem 65536',
    'create KUBE-NODE-PORT-TCP bitmap:port range 0-65535',
  ],
};

let passed = 0;
let failed = 0;
for (const [scope, file] of Object.entries(GRAMMARS)) failed += checkQuantifiers(scope, file);
for (const [scope, lines] of Object.entries(cases)) {
  const grammar = await registry.loadGrammar(scope);
  grammar.tokenizeLine('warm up', tm.INITIAL);
  for (const [name, line] of Object.entries(lines)) {
    const { ms, result } = cpuTime(() => grammar.tokenizeLine(line, tm.INITIAL));
    const ok = ms < LIMIT_MS && !result.stoppedEarly;
    ok ? passed++ : failed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${scope.padEnd(15)} ${name.padEnd(32)} ${String(line.length).padStart(7)} chars ${ms.toFixed(0).padStart(6)} ms`);
  }
  failed += checkShortLines(scope, shortLines(shortLinePrefixes[scope]), (line) => grammar.tokenizeLine(line, tm.INITIAL));
  const scopesByChar = (line) => {
    const out = [];
    for (const t of grammar.tokenizeLine(line, tm.INITIAL).tokens) {
      for (let i = t.startIndex; i < t.endIndex; i++) out[i] = t.scopes.join(' ');
    }
    return out;
  };
  for (const line of samples[scope]) {
    const plain = scopesByChar(line);
    for (const [variant, text] of Object.entries({ 'trailing CR': line + '\r', tabs: line.replace(/ /g, '\t') })) {
      const other = scopesByChar(text);
      const at = [...line].findIndex((ch, i) => ch !== ' ' && plain[i] !== other[i]);
      const ok = at < 0;
      ok ? passed++ : failed++;
      if (!ok) console.log(`FAIL ${variant}: ${JSON.stringify(line)} column ${at}: ${plain[at]} != ${other[at]}`);
    }
  }
}

console.log(`ipvs-grammar-linear-time: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
