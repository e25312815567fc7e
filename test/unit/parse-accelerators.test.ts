// Every dialect's accelerators (hand-written readers of its commonest lines) must build exactly the model its
// reference reader builds: the model and its diagnostics deeply equal, accelerators on and off, for generated
// dumps, the shared corpus (when ../shared is present) and mutated dumps. One table: a dialect is one entry.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { parseIptables } from '../../src/core/parse/iptables/parser';
import { parseIpset } from '../../src/core/parse/ipset/parser';
import { parseIpvsadm } from '../../src/core/parse/ipvs/parser';
import { generateNftDump } from '../../tools/generate/nft';
import { parseNft } from '../../src/core/parse/nft/parser';
import { ipv6Services } from '../helpers/ipv6';
import { plainModel, plainNft } from '../helpers/model-plain';
import { plainRuleset } from '../helpers/iptables-plain';
import { mutate, mutationOf } from '../helpers/mutate';
import { expectSamePlain } from '../helpers/same-plain';
import { corpusFiles, HAVE_CORPUS, NO_CORPUS_MESSAGE } from '../helpers/shared';

interface DialectEntry {
  name: string;
  /** Set when the dialect cannot yet parse with `accelerators: 'off'`: why (the entry is skipped). */
  skip?: string;
  parse: (text: string, accelerators: 'on' | 'off') => unknown;
  /** The model as plain data to compare (default plainModel). */
  plain?: (model: unknown) => unknown;
  /** Generated dumps (fixtures of the repository count as generated: they are ours). */
  generated: () => string[];
  /** The corpus folder under ../shared/corpus (without the files `exclude` matches), or why there is none. */
  corpus: { folder: string; exclude?: RegExp } | { none: string };
  /** Tokens the mutations insert, and the text they mutate. */
  alphabet: readonly string[];
  mutationSeed: () => string;
}

const IPVS_FIXTURES = resolve(__dirname, '../grammar/ipvs/fixtures');
const fixtures = (ext: string) =>
  readdirSync(IPVS_FIXTURES)
    .filter((f) => f.endsWith(ext))
    .map((f) => readFileSync(join(IPVS_FIXTURES, f), 'utf8'));
const snapshots = () =>
  [1, 7, 42].flatMap((seed) => [
    generateIpvsSnapshot({ services: randomServices(40, 4, seed), nodeIPs: ['192.168.0.10', '10.0.2.15'] }),
    generateIpvsSnapshot({ services: ipv6Services(randomServices(15, 3, seed)), nodeIPs: ['fd00::10'], family: 'ipv6' }),
  ]);

/** Generated iptables-save dumps of each style, IPv4 and IPv6, with and without comments and counters. */
const iptablesDumps = () =>
  [1, 7, 42].flatMap((seed) => [
    ...(['iptables-nft-save', 'iptables-legacy-save', 'restore-input'] as const).map((style) =>
      generateIptablesDump({ services: randomServices(30, 4, seed), style, comments: seed !== 42, counters: seed === 7, nodeRules: true }),
    ),
    generateIptablesDump({ services: ipv6Services(randomServices(15, 3, seed)), style: 'iptables-nft-save', family: 'ipv6', clusterCIDR: 'fd00:10::/64' }),
  ]);

const DIALECTS: DialectEntry[] = [
  {
    name: 'ipset',
    parse: (text, accelerators) => parseIpset(text, { accelerators }),
    generated: () => [...fixtures('.ipset'), ...snapshots().flatMap((s) => [s['ipset-save'], s['ipset-list'], `${s['ipset-list']}\n${s['ipset-save']}`])],
    corpus: { none: 'the shared corpus has no ipset dumps' },
    alphabet: [
      'add',
      'create',
      'del',
      'flush',
      'swap',
      ' ',
      ',',
      ':',
      '/',
      '-',
      'tcp:',
      'udp:',
      '65535',
      'hash:ip,port',
      'timeout',
      'comment',
      '"',
      '#',
      'Members:',
      '中',
      '\n',
      'add KUBE-CLUSTER-IP 10.96.0.1,tcp:443\n',
    ],
    mutationSeed: () => fixtures('.ipset').join('\n'),
  },
  {
    name: 'ipvsadm',
    parse: (text, accelerators) => parseIpvsadm(text, { accelerators }),
    generated: () => [...fixtures('.ipvsadm'), ...snapshots().flatMap((s) => [s['ipvsadm-list'], s['ipvsadm-save']])],
    corpus: { folder: 'ipvs' },
    alphabet: ['-', '->', ' ', '  ', '\t', ':', '[', ']', '0', '65535', 'TCP', 'UDP', 'rr', 'persistent', 'Masq', 'Local', '-A', '#', '中', '\n', '  -> 10.0.0.1:80 Masq 1 0 0\n'],
    mutationSeed: () => fixtures('.ipvsadm').join('\n'),
  },
  {
    name: 'iptables',
    parse: (text, accelerators) => parseIptables(text, { accelerators }),
    plain: (model) => plainRuleset(model as ReturnType<typeof parseIptables>),
    generated: () => iptablesDumps(),
    corpus: { folder: 'iptables', exclude: /\.(tsv|json|md)$/ },
    alphabet: [
      '-A',
      '-j',
      '-m',
      '-p',
      '-s',
      '-d',
      '!',
      ' ',
      '  ',
      '\t',
      '"',
      '\\',
      '[0:0]',
      ':',
      '*nat',
      'COMMIT',
      '#',
      '--comment',
      '--dport',
      '--to-destination',
      'tcp',
      'KUBE-SVC-X',
      'DNAT',
      '10.0.0.1',
      '中',
      '\n',
      '-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m tcp --dport 443 -j KUBE-SVC-X\n',
    ],
    mutationSeed: () => generateIptablesDump({ services: randomServices(6, 2, 3), style: 'iptables-nft-save', comments: true, nodeRules: true }),
  },
  {
    name: 'nft text',
    parse: (text, accelerators) => parseNft(text, { accelerators }),
    plain: (model) => plainNft(model as ReturnType<typeof parseNft>),
    generated: () => nftDumps(),
    corpus: { folder: 'nft', exclude: /json|\.tsv$|\.txt$|\.md$/ },
    alphabet: [
      'table',
      'chain',
      'add rule ip t c ',
      '{',
      '}',
      ';',
      ' ',
      '\t',
      ',',
      '.',
      ':',
      '-',
      '@',
      '$',
      '"',
      '#',
      'elements = {',
      'vmap',
      'jump',
      'goto',
      'ip daddr',
      '10.0.0.1',
      '中',
      '\n',
      '\tip daddr 10.96.0.1 tcp dport 443 jump svc\n',
    ],
    mutationSeed: () => nftDumps()[0],
  },
  {
    name: 'nft JSON',
    skip: 'the JSON reader has no accelerators: it is its own reference reader',
    parse: () => undefined,
    generated: () => [],
    corpus: { none: 'skipped' },
    alphabet: [],
    mutationSeed: () => '',
  },
];

/** kube-proxy nftables dumps as `nft list ruleset` and as `nft -f` commands. */
function nftDumps(): string[] {
  return [3, 11].flatMap((seed) => (['nft-list-ruleset', 'nft-cmds'] as const).map((style) => generateNftDump({ services: randomServices(12, 3, seed), style })));
}

function same(d: DialectEntry, text: string): void {
  const plain = d.plain ?? plainModel;
  expectSamePlain(plain(d.parse(text, 'on')), plain(d.parse(text, 'off')));
}

describe.each(DIALECTS)('accelerators on = off: $name', (d) => {
  it.skipIf(d.skip !== undefined)(`generated dumps${d.skip ? ` (skipped: ${d.skip})` : ''}`, () => {
    const inputs = d.generated();
    expect(inputs.length).toBeGreaterThan(0);
    for (const text of inputs) same(d, text);
  });

  const folder = 'folder' in d.corpus ? d.corpus.folder : undefined;
  const noCorpus = d.skip ?? ('none' in d.corpus ? d.corpus.none : HAVE_CORPUS ? undefined : NO_CORPUS_MESSAGE);
  // (Slow on a loaded machine: the iptables corpus is some 300 dumps, each parsed twice.)
  it.skipIf(noCorpus !== undefined)(`the shared corpus${noCorpus ? ` (skipped: ${noCorpus})` : ''}`, { timeout: 240_000 }, () => {
    const files = corpusFiles(folder!, 'exclude' in d.corpus ? d.corpus.exclude : undefined);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) same(d, readFileSync(f, 'utf8'));
  });

  // (Slow on a loaded machine: two parses of a 10,000-character dump per input.)
  it.skipIf(d.skip !== undefined)('mutated dumps (100 inputs)', { timeout: 240_000 }, () => {
    const seed = d.mutationSeed();
    fc.assert(
      fc.property(fc.array(mutationOf(d.alphabet), { minLength: 1, maxLength: 6 }), (mutations) => same(d, mutate(seed, mutations))),
      { numRuns: 100, seed: 28 },
    );
  });
});
