// nftables for the kernel tests: what this machine can do, and loading a kube-proxy nftables-mode dump into a
// node namespace (and listing it back) in each of the generator's forms. Every nft command runs under
// `ip netns exec NS` in a namespace of this run (nsExec refuses others); the root namespace's ruleset is never
// read or changed.
import { existsSync } from 'node:fs';
import { nsExec, nsName } from './netns';
import { runSync } from './proc';

export interface NftEnvironment {
  /** Why the suite is skipped; undefined when it runs. */
  skip?: string;
  /** `nft --version`'s version, e.g. "1.0.6". */
  version?: string;
}

function which(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin', '/usr/bin', '/bin'])) {
    const p = `${dir}/${cmd}`;
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

/** Every kind of statement kube-proxy's nftables mode uses, in a tiny ruleset: loading it tells nft and the kernel can do it. */
const PROBE_RULESET = `add table ip dpk-probe
add chain ip dpk-probe svc
add chain ip dpk-probe ep
add chain ip dpk-probe pre { type nat hook prerouting priority -100 ; }
add chain ip dpk-probe post { type nat hook postrouting priority 100 ; }
add chain ip dpk-probe in { type filter hook input priority 0 ; }
add set ip dpk-probe aff { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }
add map ip dpk-probe svcs { type ipv4_addr . inet_proto . inet_service : verdict ; }
add element ip dpk-probe svcs { 10.96.0.1 . tcp . 80 : goto svc }
add rule ip dpk-probe pre ip daddr . meta l4proto . th dport vmap @svcs
add rule ip dpk-probe pre fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap { tcp . 30000 : goto svc }
add rule ip dpk-probe svc ip saddr @aff goto ep
add rule ip dpk-probe svc numgen random mod 2 vmap { 0 : goto ep , 1 : goto ep }
add rule ip dpk-probe ep update @aff { ip saddr }
add rule ip dpk-probe ep meta l4proto tcp dnat to 10.1.2.3:80
add rule ip dpk-probe post mark and 0x00004000 == 0 return
add rule ip dpk-probe post mark set mark xor 0x00004000
add rule ip dpk-probe post masquerade fully-random
add rule ip dpk-probe in ct state new fib saddr type local reject
`;

export function probeNftEnvironment(): NftEnvironment {
  if (process.platform !== 'linux') return { skip: 'needs Linux network namespaces' };
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return { skip: 'needs root (ip netns, nft inside namespaces)' };
  if (!which('ip')) return { skip: 'needs the ip tool (Debian package iproute2)' };
  if (!which('nft')) return { skip: 'needs nft (Debian package nftables)' };
  const v = runSync('nft', ['--version']);
  const version = /v(\d+\.\d+(?:\.\d+)?)/.exec(v.stdout)?.[1];
  const probe = nsName('nftprobe');
  const add = runSync('ip', ['netns', 'add', probe]);
  if (add.code !== 0) return { skip: `ip netns add failed: ${add.stderr.trim()}` };
  try {
    const r = runSync('ip', ['netns', 'exec', probe, 'nft', '-f', '-'], PROBE_RULESET);
    if (r.code !== 0) return { skip: `nft cannot load kube-proxy's rule kinds here: ${r.stderr.trim().split('\n')[0]}` };
  } finally {
    runSync('ip', ['netns', 'delete', probe]);
  }
  return { ...(version ? { version } : {}) };
}

/**
 * How a dump reaches the kernel: `cmds` = kube-proxy's transaction (add/flush/delete commands, `nft -f -`),
 * `adds` = only its add commands, `list` = the text `nft list ruleset` prints (`nft -f -`), `json` = what
 * `nft -j list ruleset` prints (`nft -j -f -`, chains moved before the sets and maps: see reorderJsonForLoad).
 */
export type NftLoadForm = 'cmds' | 'adds' | 'list' | 'json';

/**
 * `nft -j list ruleset` lists sets and maps before chains, and nft 1.0.6 cannot load that back as it is: a
 * verdict map element that says `goto <chain>` fails with ENOENT ("Could not process rule: No such file or
 * directory") while the chain does not exist yet. Listing the chains first (table, chains, sets and maps,
 * rules) loads.
 */
export function reorderJsonForLoad(json: string): string {
  const doc = JSON.parse(json) as { nftables: Record<string, unknown>[] };
  const rank = (o: Record<string, unknown>) => {
    const k = Object.keys(o)[0];
    return k === 'metainfo' ? 0 : k === 'table' ? 1 : k === 'chain' ? 2 : k === 'set' || k === 'map' ? 3 : 4;
  };
  const items = doc.nftables.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i);
  return JSON.stringify({ nftables: items.map((x) => x.o) });
}

export interface NftListing {
  text: string;
  json: string;
}

/** Loads `dump` into the namespace (which must have no ruleset yet) and lists the ruleset back, as text and as JSON. */
export async function loadNft(ns: string, dump: string, form: NftLoadForm): Promise<NftListing> {
  // `nft -j -f -` opens /dev/stdin, which fails (ENXIO) when stdin is a socket, as Node's child stdio is: cat
  // gives it a pipe.
  if (form === 'json') await nsExec(ns, 'sh', ['-c', 'cat | nft -j -f -'], { input: reorderJsonForLoad(dump), timeoutMs: 60_000 });
  else await nsExec(ns, 'nft', ['-f', '-'], { input: dump, timeoutMs: 60_000 });
  return listNft(ns);
}

export async function listNft(ns: string): Promise<NftListing> {
  const [text, json] = await Promise.all([nsExec(ns, 'nft', ['list', 'ruleset'], { timeoutMs: 60_000 }), nsExec(ns, 'nft', ['-j', 'list', 'ruleset'], { timeoutMs: 60_000 })]);
  return { text: text.stdout, json: json.stdout };
}

/** Drops `handle` members (the kernel numbers objects in load order, which differs between load forms). */
export function withoutHandles(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutHandles);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'handle')
        .map(([k, v]) => [k, withoutHandles(v)]),
    );
  }
  return value;
}

/**
 * nft 1.0.6 loading JSON keeps no set or map comment (its JSON parser does not read them; the table comment
 * and the reject-chain comment are not in the JSON listing at all): those lines of the text listing, and the
 * `comment` members of sets and maps in the JSON listing, are what a JSON load loses.
 */
export function withoutObjectComments(text: string): string {
  return text.replace(/^\t+comment "[^"\n]*"\n/gm, '');
}

export function withoutSetComments(value: unknown): unknown {
  const doc = withoutHandles(value) as { nftables: Record<string, Record<string, unknown>>[] };
  return {
    nftables: doc.nftables.map((o) => {
      const [k] = Object.keys(o);
      if (k !== 'set' && k !== 'map') return o;
      const { comment: _c, ...rest } = o[k]!;
      return { [k!]: rest };
    }),
  };
}

/** The listing without the tables after kube-proxy's (text: everything from the second table on; JSON: their objects). */
export function withoutTable(l: NftListing): NftListing {
  const second = l.text.indexOf('\ntable ', l.text.indexOf('table ') + 1);
  const text = second < 0 ? l.text : l.text.slice(0, second + 1);
  const doc = JSON.parse(l.json) as { nftables: Record<string, { table?: string; name?: string; family?: string }>[] };
  const own = (o: Record<string, { table?: string; name?: string }>) => {
    const [k] = Object.keys(o);
    const v = o[k!]!;
    return k === 'metainfo' || (k === 'table' ? v.name : v.table) === 'kube-proxy';
  };
  return { text, json: JSON.stringify({ nftables: doc.nftables.filter(own) }) };
}
