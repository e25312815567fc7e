import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BASIC_OPTIONS, MATCH_EXTENSIONS, TARGET_EXTENSIONS, lookupMatchOption, lookupTargetOption, type ExtensionSpec, type OptionSpec } from '../../src/core/parse/iptables/extensions';

// ------------------------------------------------------------------------------------------------
// A tiny rule checker driven only by the knowledge table
// ------------------------------------------------------------------------------------------------

/** Splits a rule into words; double (and single) quotes group words and are removed. */
function tokenize(rule: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inToken = false;
  let quote: string | null = null;
  for (const ch of rule) {
    if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inToken = true;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inToken) out.push(cur);
      cur = '';
      inToken = false;
      continue;
    }
    cur += ch;
    inToken = true;
  }
  if (inToken) out.push(cur);
  return out;
}

/** An option word (not a value such as "-1" or "!"). */
const isOptionWord = (t: string): boolean => /^--?[A-Za-z]/.test(t) || t === '-4' || t === '-6';

/** iptables resolves `-p NUMBER` through /etc/protocols and then loads the match of that name. */
const PROTOCOL_NAMES: Record<string, string> = {
  '1': 'icmp',
  '6': 'tcp',
  '17': 'udp',
  '33': 'dccp',
  '50': 'esp',
  '51': 'ah',
  '58': 'ipv6-icmp',
  '108': 'ipcomp',
  '132': 'sctp',
};

type Family = 'ipv4' | 'ipv6' | 'both';
type IssueKind = 'unknown-module' | 'unknown-option' | 'arity' | 'not-negatable' | 'stray-word' | 'family';

interface Issue {
  kind: IssueKind;
  detail: string;
}

interface Loaded {
  label: string; // "-m tcp", "-j DNAT", "-p tcp (implicit)"
  spec: ExtensionSpec;
  kind: 'match' | 'target';
}

interface CheckResult {
  issues: Issue[];
  /** Extensions used, "match:tcp" / "target:DNAT". */
  extensions: string[];
  /** Options used, "match:tcp --dport" / "basic -p". */
  options: string[];
}

function own(rec: Record<string, OptionSpec>, key: string): OptionSpec | undefined {
  return Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : undefined;
}

function checkRule(tokens: string[], family: Family): CheckResult {
  const issues: Issue[] = [];
  const extensions: string[] = [];
  const options: string[] = [];
  const loaded: Loaded[] = [];
  let implicit: Loaded | undefined;
  let protocol: string | undefined;
  let negate = false;

  const familyCheck = (spec: ExtensionSpec, label: string) => {
    if (spec.ipv4Only && family !== 'ipv4') issues.push({ kind: 'family', detail: `${label} is IPv4-only but used in ${family}` });
    if (spec.ipv6Only && family !== 'ipv6') issues.push({ kind: 'family', detail: `${label} is IPv6-only but used in ${family}` });
  };

  let i = 0;
  while (i < tokens.length) {
    let word = tokens[i];
    if (word === '!') {
      if (negate) issues.push({ kind: 'stray-word', detail: 'double !' });
      negate = true;
      i++;
      continue;
    }
    if (!isOptionWord(word)) {
      issues.push({ kind: 'stray-word', detail: `unexpected word ${JSON.stringify(word)}` });
      negate = false;
      i++;
      continue;
    }
    // getopt's --option=value form, and a short option with its value attached (-ptcp)
    let inline: string | undefined;
    if (word.startsWith('--') && word.includes('=')) {
      inline = word.slice(word.indexOf('=') + 1);
      word = word.slice(0, word.indexOf('='));
    } else if (/^-[A-Za-z]./.test(word) && own(BASIC_OPTIONS, word.slice(0, 2))?.arity === 1) {
      inline = word.slice(2);
      word = word.slice(0, 2);
    }
    i++;

    // Which table entry describes this option?
    let spec: OptionSpec | undefined = own(BASIC_OPTIONS, word);
    let owner: Loaded | undefined;
    let ownerLabel = 'basic';
    if (!spec) {
      if (!word.startsWith('--')) {
        issues.push({ kind: 'unknown-option', detail: `${word} is not a basic option` });
        negate = false;
        continue;
      }
      // iptables merges the most recently loaded extension's options first; an exact spelling
      // anywhere wins over an abbreviation (getopt_long), and the -p protocol's match is loaded
      // only when no loaded extension knows the option.
      const candidates = [...loaded].reverse();
      const lookup = (l: Loaded): OptionSpec | undefined => (l.kind === 'match' ? lookupMatchOption(l.spec.name, word) : lookupTargetOption(l.spec.name, word));
      owner = candidates.find((l) => own(l.spec.options, word)) ?? candidates.find((l) => lookup(l));
      if (!owner && protocol) {
        const protoName = PROTOCOL_NAMES[protocol] ?? protocol;
        const protoSpec = Object.prototype.hasOwnProperty.call(MATCH_EXTENSIONS, protoName) ? MATCH_EXTENSIONS[protoName] : undefined;
        if (protoSpec && lookupMatchOption(protoName, word)) {
          implicit ??= { label: `-p ${protocol} (implicit -m ${protoSpec.name})`, spec: protoSpec, kind: 'match' };
          if (!loaded.includes(implicit)) {
            loaded.push(implicit);
            extensions.push(`match:${protoSpec.name}`);
            familyCheck(protoSpec, implicit.label);
          }
          owner = implicit;
        }
      }
      if (!owner) {
        const where = loaded.map((l) => l.label).join(', ') || 'nothing loaded';
        issues.push({ kind: 'unknown-option', detail: `${word} is known to none of: ${where}` });
        negate = false;
        // Skip the option's words so they are not reported again.
        while (i < tokens.length && tokens[i] !== '!' && !isOptionWord(tokens[i])) i++;
        continue;
      }
      spec = owner.kind === 'match' ? lookupMatchOption(owner.spec.name, word) : lookupTargetOption(owner.spec.name, word);
      ownerLabel = `${owner.kind}:${owner.spec.name}`;
    }
    if (!spec) throw new Error('unreachable');
    options.push(`${ownerLabel} ${spec.name}`);

    if (negate && !spec.negatable) issues.push({ kind: 'not-negatable', detail: `! ${word} (${ownerLabel})` });
    negate = false;

    // Value words.
    const values: string[] = inline !== undefined ? [inline] : [];
    const isValue = (t: string | undefined): t is string => t !== undefined && t !== '!' && !isOptionWord(t);
    let arity = spec.arity;
    if (spec.name === '-c' && inline === undefined && tokens[i]?.includes(',')) arity = 1; // "-c packets,bytes"
    if (arity === 'optional') {
      if (values.length === 0 && isValue(tokens[i])) values.push(tokens[i++]);
    } else {
      while (values.length < arity && isValue(tokens[i])) values.push(tokens[i++]);
      if (values.length < arity) {
        issues.push({ kind: 'arity', detail: `${word} (${ownerLabel}) takes ${arity} value(s), got ${values.length}` });
      }
    }
    if (isValue(tokens[i])) {
      issues.push({ kind: 'arity', detail: `${word} (${ownerLabel}) takes ${arity} value(s) but is followed by ${JSON.stringify(tokens[i])}` });
      while (isValue(tokens[i])) i++;
    }

    // Options that load things.
    if (spec.name === '-m' && values[0] !== undefined) {
      const name = values[0];
      const ext = Object.prototype.hasOwnProperty.call(MATCH_EXTENSIONS, name) ? MATCH_EXTENSIONS[name] : undefined;
      if (!ext) {
        issues.push({ kind: 'unknown-module', detail: `-m ${name}` });
      } else {
        const l: Loaded = { label: `-m ${name}`, spec: ext, kind: 'match' };
        loaded.push(l);
        extensions.push(`match:${ext.name}`);
        familyCheck(ext, l.label);
      }
    } else if (spec.name === '-j' && values[0] !== undefined) {
      const name = values[0];
      const ext = Object.prototype.hasOwnProperty.call(TARGET_EXTENSIONS, name) ? TARGET_EXTENSIONS[name] : undefined;
      if (ext) {
        const l: Loaded = { label: `-j ${name}`, spec: ext, kind: 'target' };
        loaded.push(l);
        extensions.push(`target:${ext.name}`);
        familyCheck(ext, l.label);
      } // else: a user-defined chain, which takes no options
    } else if (spec.name === '-p' && values[0] !== undefined) {
      protocol = values[0].toLowerCase();
    } else if (spec.name === '-f' && family !== 'ipv4') {
      issues.push({ kind: 'family', detail: '-f is IPv4-only' });
    }
  }
  if (negate) issues.push({ kind: 'stray-word', detail: 'trailing !' });
  return { issues, extensions, options };
}

// ------------------------------------------------------------------------------------------------
// Table shape and the facts the parser relies on
// ------------------------------------------------------------------------------------------------

const ALL: Array<[string, ExtensionSpec]> = [...Object.entries(MATCH_EXTENSIONS), ...Object.entries(TARGET_EXTENSIONS)];

describe('extension knowledge table', () => {
  it('is well formed', () => {
    for (const [key, ext] of ALL) {
      expect(ext.summary.length, key).toBeGreaterThan(10);
      expect(ext.kind === 'match' ? MATCH_EXTENSIONS[key] : TARGET_EXTENSIONS[key], key).toBe(ext);
      if (ext.kind === 'match') expect(key, 'match keys are lower case').toBe(key.toLowerCase());
      expect(ext.ipv4Only && ext.ipv6Only, key).toBeFalsy();
      for (const [optKey, opt] of Object.entries(ext.options)) {
        const where = `${key} ${optKey}`;
        expect(optKey, where).toMatch(/^--[a-z0-9][a-z0-9-]*$/);
        expect(opt.name, where).toMatch(/^--[a-z0-9][a-z0-9-]*$/);
        expect(ext.options[opt.name]?.name, `${where}: canonical entry exists`).toBe(opt.name);
        expect(opt.summary.length, where).toBeGreaterThan(8);
        expect(opt.summary, where).not.toMatch(/\n/);
        expect(opt.arity === 'optional' || (Number.isInteger(opt.arity) && opt.arity >= 0 && opt.arity <= 2), where).toBe(true);
        if (opt.arity === 0) expect(opt.valueKind, where).toBeUndefined();
        else expect(opt.valueKind, where).toBeDefined();
      }
    }
    for (const [key, opt] of Object.entries(BASIC_OPTIONS)) {
      expect(key, key).toMatch(/^(-[a-z0-9]|--[a-z0-9-]+)$/i);
      expect(BASIC_OPTIONS[opt.name]?.name, key).toBe(opt.name);
    }
  });

  it('covers every iptables 1.8.x extension', () => {
    const matches = [
      'addrtype',
      'ah',
      'bpf',
      'cgroup',
      'cluster',
      'comment',
      'connbytes',
      'connlabel',
      'connlimit',
      'connmark',
      'conntrack',
      'cpu',
      'dccp',
      'devgroup',
      'dscp',
      'dst',
      'ecn',
      'esp',
      'eui64',
      'frag',
      'hashlimit',
      'hbh',
      'helper',
      'hl',
      'icmp',
      'icmp6',
      'ipcomp',
      'iprange',
      'ipv6header',
      'ipvs',
      'length',
      'limit',
      'mac',
      'mark',
      'mh',
      'multiport',
      'nfacct',
      'osf',
      'owner',
      'physdev',
      'pkttype',
      'policy',
      'quota',
      'rateest',
      'realm',
      'recent',
      'rpfilter',
      'rt',
      'sctp',
      'set',
      'socket',
      'srh',
      'state',
      'statistic',
      'string',
      'tcp',
      'tcpmss',
      'time',
      'tos',
      'ttl',
      'u32',
      'udp',
    ];
    const targets = [
      'ACCEPT',
      'DROP',
      'RETURN',
      'QUEUE',
      'AUDIT',
      'CHECKSUM',
      'CLASSIFY',
      'CLUSTERIP',
      'CONNMARK',
      'CONNSECMARK',
      'CT',
      'DNAT',
      'DNPT',
      'DSCP',
      'ECN',
      'HL',
      'HMARK',
      'IDLETIMER',
      'LED',
      'LOG',
      'MARK',
      'MASQUERADE',
      'NETMAP',
      'NFLOG',
      'NFQUEUE',
      'NOTRACK',
      'RATEEST',
      'REDIRECT',
      'REJECT',
      'SECMARK',
      'SET',
      'SNAT',
      'SNPT',
      'SYNPROXY',
      'TCPMSS',
      'TCPOPTSTRIP',
      'TEE',
      'TOS',
      'TPROXY',
      'TRACE',
      'TTL',
      'ULOG',
    ];
    for (const name of matches) expect(MATCH_EXTENSIONS[name]?.kind, name).toBe('match');
    for (const name of targets) expect(TARGET_EXTENSIONS[name]?.kind, name).toBe('target');
    // ip6tables accepts these spellings of -m icmp6 as well.
    expect(MATCH_EXTENSIONS['ipv6-icmp']).toBe(MATCH_EXTENSIONS.icmp6);
    expect(MATCH_EXTENSIONS.icmpv6).toBe(MATCH_EXTENSIONS.icmp6);
    const basic = ['-s', '--source', '-d', '--destination', '-p', '--protocol', '-i', '--in-interface', '-o', '--out-interface', '-f', '--fragment', '-4', '-6', '-c', '-j', '-g', '-m'];
    for (const name of basic) expect(BASIC_OPTIONS[name], name).toBeDefined();
  });

  it('knows the arity of the options the parser must get right', () => {
    const arity = (module: string, option: string) => lookupMatchOption(module, option)?.arity;
    const tArity = (target: string, option: string) => lookupTargetOption(target, option)?.arity;
    expect(arity('tcp', '--sport')).toBe(1);
    expect(arity('tcp', '--source-port')).toBe(1);
    expect(lookupMatchOption('tcp', '--source-port')?.name).toBe('--sport');
    expect(arity('tcp', '--destination-port')).toBe(1);
    expect(arity('tcp', '--tcp-flags')).toBe(2);
    expect(arity('tcp', '--syn')).toBe(0);
    expect(lookupMatchOption('tcp', '--syn')?.negatable).toBe(true);
    expect(arity('tcp', '--tcp-option')).toBe(1);
    for (const o of ['--name', '--seconds', '--hitcount', '--mask']) expect(arity('recent', o), o).toBe(1);
    for (const o of ['--set', '--rcheck', '--update', '--remove', '--reap', '--rttl', '--rsource', '--rdest']) expect(arity('recent', o), o).toBe(0);
    expect(arity('set', '--match-set')).toBe(2);
    expect(arity('set', '--return-nomatch')).toBe(0);
    expect(lookupMatchOption('set', '--update-counters')).toMatchObject({ arity: 0, negatable: true });
    expect(arity('set', '--packets-eq')).toBe(1);
    expect(arity('sctp', '--chunk-types')).toBe(2);
    for (const o of ['--mode', '--probability', '--every', '--packet']) expect(arity('statistic', o), o).toBe(1);
    expect(lookupMatchOption('statistic', '--probability')?.valueKind).toBe('probability');
    expect(arity('rateest', '--rateest-bps')).toBe('optional');
    for (const o of ['--set-xmark', '--set-mark', '--and-mark', '--or-mark', '--xor-mark']) expect(tArity('MARK', o), o).toBe(1);
    expect(tArity('REJECT', '--reject-with')).toBe(1);
    expect(tArity('DNAT', '--to-destination')).toBe(1);
    expect(tArity('DNAT', '--random')).toBe(0);
    expect(tArity('DNAT', '--persistent')).toBe(0);
    expect(tArity('MASQUERADE', '--to-ports')).toBe(1);
    expect(tArity('MASQUERADE', '--random-fully')).toBe(0);
    expect(tArity('SET', '--add-set')).toBe(2);
    for (const o of ['--datestart', '--datestop', '--timestart', '--timestop', '--monthdays', '--weekdays']) expect(arity('time', o), o).toBe(1);
    for (const o of ['--kerneltz', '--contiguous']) expect(arity('time', o), o).toBe(0);
    expect(lookupMatchOption('time', '--days')).toBeUndefined();
    expect(BASIC_OPTIONS['-c'].arity).toBe(2);
    expect(BASIC_OPTIONS['-f'].arity).toBe(0);
  });

  it('resolves the way iptables does: implicit protocols, aliases and getopt abbreviations', () => {
    expect(lookupMatchOption('6', '--dport')?.name).toBe('--dport');
    expect(lookupMatchOption('ipv6-icmp', '--icmpv6-type')?.arity).toBe(1);
    expect(lookupMatchOption('TCP', '--dport')?.name).toBe('--dport');
    expect(lookupMatchOption('tcp', 'dport')?.name).toBe('--dport');
    expect(lookupMatchOption('multiport', '--destination-ports')?.name).toBe('--dports');
    expect(lookupMatchOption('set', '--set')?.name).toBe('--match-set');
    expect(lookupTargetOption('REDIRECT', '--to-port')?.name).toBe('--to-ports');
    expect(lookupTargetOption('SNAT', '--to')?.name).toBe('--to-source');
    expect(lookupMatchOption('tcp', '--d')?.name).toBe('--dport'); // --dport and --destination-port are one option
    expect(lookupMatchOption('recent', '--r')).toBeUndefined(); // ambiguous
    expect(lookupMatchOption('nosuchmodule', '--x')).toBeUndefined();
    expect(lookupTargetOption('MARK', '--nosuch')).toBeUndefined();
    expect(lookupTargetOption('mark', '--set-mark')).toBeUndefined(); // target names are case-sensitive
  });

  it('checks rules with the tiny checker used on the corpus', () => {
    const ok = (rule: string, family: Family = 'ipv4') => checkRule(tokenize(rule), family).issues;
    expect(ok('-A INPUT -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -m comment --comment "ssh in" -j ACCEPT')).toEqual([]);
    expect(ok('-A KUBE-SVC -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-X')).toEqual([]);
    expect(ok('-A INPUT -p tcp --tcp-flags SYN,ACK SYN -j DROP')).toEqual([]);
    expect(ok('-A INPUT -m set --match-set blocked src,dst ! --update-counters -j DROP')).toEqual([]);
    expect(ok('-c 10 20 -A INPUT -j ACCEPT')).toEqual([]);
    expect(ok('-A INPUT -m time --days Mon')[0]?.kind).toBe('unknown-option');
    expect(ok('-A INPUT -p tcp --tcp-flags SYN')[0]?.kind).toBe('arity');
    expect(ok('-A INPUT -m recent --set 5')[0]?.kind).toBe('arity');
    expect(ok('-A INPUT -m limit ! --limit 5/s')[0]?.kind).toBe('not-negatable');
    expect(ok('-A INPUT -m nosuch --x 1')[0]?.kind).toBe('unknown-module');
    expect(ok('-A INPUT -m hl --hl-eq 5')[0]?.kind).toBe('family');
  });
});

// ------------------------------------------------------------------------------------------------
// netfilter's own test files
// ------------------------------------------------------------------------------------------------

const dir = path.resolve(__dirname, '../../../shared/corpus/iptables/extensions-tests');

interface TestLine {
  file: string;
  line: number; // 1-based, as in the VALIDATION TSVs
  rule: string;
  result: string; // OK | FAIL
  family: Family;
}

function familyOf(file: string): Family | undefined {
  if (file.startsWith('libarpt_') || file.startsWith('libebt_')) return undefined;
  if (file.startsWith('libip6t_')) return 'ipv6';
  if (file.startsWith('libipt_')) return 'ipv4';
  if (file.startsWith('libxt_')) return 'both';
  return 'ipv4'; // iptables.t
}

function readTests(): TestLine[] {
  const out: TestLine[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.t'))
    .sort()) {
    const family = familyOf(file);
    if (!family) continue;
    const lines = readFileSync(path.join(dir, file), 'utf8').split('\n');
    lines.forEach((text, idx) => {
      if (!text.trim() || /^[:*#@%]/.test(text)) return;
      const fields = text.split(';');
      if (fields.length < 3) return;
      out.push({ file, line: idx + 1, rule: fields[0].trim(), result: fields[2].trim(), family });
    });
  }
  return out;
}

/** "file:line" → problems the VALIDATION TSVs report for iptables 1.8.9 (legacy and nft). */
function readValidation(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of readdirSync(dir).filter((n) => n.startsWith('VALIDATION') && n.endsWith('.tsv'))) {
    for (const row of readFileSync(path.join(dir, f), 'utf8').split('\n').slice(1)) {
      const [file, line, problem] = row.split('\t');
      if (!file || file.startsWith('#') || !problem) continue;
      const key = `${file}:${line}`;
      out.set(key, [...(out.get(key) ?? []), problem]);
    }
  }
  return out;
}

/** FAIL lines whose failure is syntactic, so the table alone must flag them (rule substring → issue kind). */
const EXPECTED_FLAGGED: Array<[string, IssueKind]> = [
  ['--conlimit-above', 'unknown-option'], // misspelt option
  ['-p tcp --multiport', 'unknown-option'], // multiport is a module, not an option
  ['-m state wrong', 'arity'], // -m takes one word; "wrong" is a stray value
  ['-j TEE ! --gateway', 'not-negatable'],
  ['! --suppl-groups', 'not-negatable'],
  ['-m hl --hl-gt;', 'arity'],
  ['-m comment --comment;', 'arity'],
  ['-j LOG --log-prefix;', 'arity'],
  ['-j HL --hl-set --hl-inc 1', 'arity'],
  ['-j TTL --ttl-set --ttl-inc 1', 'arity'],
  ['-m set --match-set foo;', 'arity'],
  ['-j IDLETIMER --timeout;', 'arity'],
];

describe.skipIf(!existsSync(dir))('netfilter extension tests (*.t; needs ../shared corpus)', () => {
  it('every OK line that iptables 1.8.9 loads uses known modules and options with the right number of values', () => {
    const tests = readTests();
    const validation = readValidation();
    const rejected = (tl: TestLine) => (validation.get(`${tl.file}:${tl.line}`) ?? []).some((p) => p.startsWith('cannot load'));
    const failures: string[] = [];
    const extensions = new Set<string>();
    const options = new Set<string>();
    let checked = 0;
    let occurrences = 0;
    let excluded = 0;
    let excludedStillClean = 0;
    for (const tl of tests.filter((x) => x.result === 'OK')) {
      const result = checkRule(tokenize(tl.rule), tl.family);
      if (rejected(tl)) {
        // iptables 1.8.9 refused these (mostly a kernel module missing on the validating host: ipvs, LED, SELinux).
        excluded++;
        if (result.issues.length === 0) excludedStillClean++;
        continue;
      }
      checked++;
      result.extensions.forEach((e) => extensions.add(e));
      result.options.forEach((o) => options.add(o));
      occurrences += result.options.length;
      for (const issue of result.issues) failures.push(`${tl.file}:${tl.line} [${issue.kind}] ${issue.detail}   <- ${tl.rule}`);
    }
    const tableOptions = ALL.reduce((n, [k, e]) => n + (k === e.name ? Object.keys(e.options).length : 0), 0);
    console.log(
      `extensions-tests: ${checked} OK lines checked (${excluded} more excluded as rejected by 1.8.9, ${excludedStillClean} of them still pass the table check); ` +
        `${extensions.size} distinct extensions and ${options.size} distinct options used (${occurrences} option occurrences); ` +
        `table: ${Object.values(MATCH_EXTENSIONS).filter((e, i, a) => a.indexOf(e) === i).length} matches, ${Object.keys(TARGET_EXTENSIONS).length} targets, ${tableOptions} option keys`,
    );
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  });

  it('FAIL lines whose failure is an unknown option, a bad negation or a missing value are flagged', () => {
    const tests = readTests();
    const validation = readValidation();
    const failLines = tests.filter((x) => x.result === 'FAIL');
    expect(failLines.length).toBeGreaterThan(0);
    const byKind = new Map<string, number>();
    const flagged = new Set<TestLine>();
    for (const tl of failLines) {
      const result = checkRule(tokenize(tl.rule), tl.family);
      if (result.issues.length === 0) continue;
      flagged.add(tl);
      if (process.env.SHOW_FLAGGED) console.log(`${tl.file}:${tl.line} ${result.issues.map((x) => `[${x.kind}] ${x.detail}`).join('; ')}  <- ${tl.rule}`);
      const kind = result.issues[0].kind;
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      // A line the table flags must really be refused by iptables 1.8.9 ("should fail" = 1.8.9 accepted it).
      const problems = validation.get(`${tl.file}:${tl.line}`) ?? [];
      expect(
        problems.filter((p) => p.startsWith('should fail')),
        `${tl.file}:${tl.line} ${tl.rule}`,
      ).toEqual([]);
    }
    console.log(
      `extensions-tests: ${failLines.length} FAIL lines, ${flagged.size} flagged by the table ` + `(${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}); the rest fail on values or semantics the table cannot know`,
    );
    const missed: string[] = [];
    for (const [needle, kind] of EXPECTED_FLAGGED) {
      const hits = failLines.filter((tl) => `${tl.rule};`.includes(needle));
      for (const tl of hits) {
        const issues = checkRule(tokenize(tl.rule), tl.family).issues;
        if (!issues.some((i) => i.kind === kind)) missed.push(`${tl.file}:${tl.line} expected ${kind}: ${tl.rule}`);
      }
    }
    expect(missed).toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------------
// The .txlate files next door: every iptables/ip6tables command in them is valid input
// ------------------------------------------------------------------------------------------------

const txlateDir = path.resolve(__dirname, '../../../shared/corpus/iptables/extensions-txlate');

describe.skipIf(!existsSync(txlateDir))('netfilter translation tests (*.txlate; needs ../shared corpus)', () => {
  it('every iptables-translate / ip6tables-translate rule is accepted by the table', () => {
    const failures: string[] = [];
    let checked = 0;
    for (const file of readdirSync(txlateDir)
      .filter((f) => f.endsWith('.txlate'))
      .sort()) {
      readFileSync(path.join(txlateDir, file), 'utf8')
        .split('\n')
        .forEach((text, idx) => {
          const m = /^(ip6?tables)-translate\s+(.*)$/.exec(text);
          if (!m) return;
          const family: Family = m[1] === 'ip6tables' ? 'ipv6' : 'ipv4';
          let tokens = tokenize(m[2]);
          // Drop the command part: -t TABLE, and -A/-I/-D/-R CHAIN [rulenum].
          const rest: string[] = [];
          let command = false;
          for (let i = 0; i < tokens.length; i++) {
            const t = tokens[i];
            if (t === '-t' || t === '--table') {
              i++;
              continue;
            }
            if (['-A', '-I', '-D', '-R', '-C', '--append', '--insert', '--delete', '--replace', '--check'].includes(t)) {
              command = true;
              i++;
              if (/^\d+$/.test(tokens[i + 1] ?? '')) i++;
              continue;
            }
            rest.push(t);
          }
          if (!command) return; // e.g. -F
          tokens = rest;
          checked++;
          for (const issue of checkRule(tokens, family).issues) failures.push(`${file}:${idx + 1} [${issue.kind}] ${issue.detail}   <- ${text}`);
        });
    }
    console.log(`extensions-txlate: ${checked} rules checked`);
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(200);
  });
});
