// Which file each collected record becomes, named as the extension recognises it (src/core/detect.ts and
// package.json `contributes.languages`), and the snapshot.json manifest. The folder holds one listing per
// ruleset, so that the snapshot's Service catalog counts each Service once; second listings of the same rules
// (nft -j, ipvsadm --stats, the nft view of iptables-nft's tables) go to extra/.
import type { CollectRecord, CollectStream } from './stream';

export interface CollectedFile {
  /** Path relative to the snapshot folder. */
  path: string;
  text: string;
}

export interface ManifestCommand {
  record: string;
  command: string;
  exitCode: number;
  file?: string;
  bytes: number;
  note?: string;
}

export interface SnapshotManifest {
  format: 'dataplane-snapshot/1';
  node: string | null;
  kernel: string | null;
  /** The node's clock when the script started. */
  time: string | null;
  via: string;
  complete: boolean;
  kubeProxyMode: string | null;
  commands: ManifestCommand[];
  tools: Record<string, string>;
  missing: string[];
  anonymized: boolean;
}

/** The command each record ran (as collect.sh runs it). */
const COMMANDS: Record<string, string> = {
  'meta/hostname': 'uname -n',
  'meta/kernel': 'uname -r',
  'meta/time': 'date -u',
  'iptables/iptables': 'iptables-save -c',
  'iptables/ip6tables': 'ip6tables-save -c',
  'nft/json': 'nft -j list ruleset',
  'nft/text': 'nft list ruleset',
  'ipvs/save': 'ipvsadm -Sn',
  'ipvs/stats': 'ipvsadm -Ln --stats',
  'ipset/save': 'ipset save',
  'ip/addr': 'ip -j addr',
  'ip/route': 'ip -j route show table all',
  'ip/rule': 'ip -j rule',
  'conntrack/list': 'conntrack -L',
  'sysctl/all': 'sysctl (read from /proc/sys)',
  'kube-proxy/mode': 'curl -s localhost:10249/proxyMode',
};

export function commandOf(record: string): string {
  const backend = /^iptables\/(ip6?tables)-(nft|legacy)$/.exec(record);
  if (backend) return `${backend[1]}-${backend[2]}-save -c`;
  const version = /^version\/(.+)$/.exec(record);
  if (version) return `${version[1]} --version`;
  return COMMANDS[record] ?? record;
}

const FIXED: Record<string, string> = {
  'nft/json': 'extra/nft-ruleset.nft.json',
  'ipvs/save': 'ipvs.ipvsadm',
  'ipvs/stats': 'extra/ipvsadm-stats.txt',
  'ipset/save': 'ipset.ipset',
  'ip/addr': 'ip-addr.json',
  'ip/route': 'ip-route.json',
  'ip/rule': 'ip-rule.json',
  'conntrack/list': 'conntrack.txt',
  'sysctl/all': 'sysctl.txt',
};

/** Whether an iptables listing has a rule (`-c` puts counters first); a backend nobody wrote to has none. */
function hasIptablesRules(text: string): boolean {
  return /^(\[\d+:\d+\] )?-A /m.test(text);
}

/**
 * An nft listing with only iptables-nft's tables repeats iptables-nft-save. nft marks them with a warning since
 * 1.0.7; older ones print them as plain tables named like iptables' (1.0.6 here).
 */
function onlyIptablesNftTables(text: string, iptablesNft: boolean): boolean {
  const tables = text.match(/^table \S+ \S+/gm) ?? [];
  const managed = text.match(/^# Warning: table \S+ \S+ is managed by iptables-nft/gm)?.length ?? 0;
  if (tables.length > 0 && managed >= tables.length) return true;
  return iptablesNft && tables.length > 0 && tables.every((t) => /^table (ip|ip6|arp|bridge) (filter|nat|mangle|raw|security)$/.test(t));
}

/** Where a record goes, or why it does not become a file; iptablesNft: iptables-nft-save printed rules. */
export function fileOf(r: CollectRecord, iptablesNft = false): { path?: string; note?: string } {
  if (r.name.startsWith('meta/') || r.name.startsWith('version/') || r.name === 'kube-proxy/mode') return {};
  if (r.exitCode !== 0 && r.text.trim() === '') return { note: 'failed, no output' };
  if (r.text.trim() === '') return { note: 'empty' };
  const backend = /^iptables\/(ip6?tables)(?:-(nft|legacy))?$/.exec(r.name);
  if (backend) {
    if (!hasIptablesRules(r.text)) return { note: 'no rules' };
    return { path: `${backend[1]}${backend[2] ? `-${backend[2]}` : ''}.iptables` };
  }
  if (r.name === 'nft/text') return onlyIptablesNftTables(r.text, iptablesNft) ? { path: 'extra/nft-ruleset.nft', note: 'only iptables-nft tables' } : { path: 'nft-ruleset.nft' };
  const path = FIXED[r.name];
  return path ? { path } : { note: 'unknown record' };
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  );
}

/** The files to write and the manifest, from the parsed stream. */
export function snapshotOf(stream: CollectStream, via: string): { files: CollectedFile[]; manifest: SnapshotManifest } {
  const files: CollectedFile[] = [];
  const meta = (name: string) => {
    const r = stream.records.find((x) => x.name === name);
    return r && r.exitCode === 0 ? firstLine(r.text) || null : null;
  };
  const manifest: SnapshotManifest = {
    format: 'dataplane-snapshot/1',
    node: meta('meta/hostname'),
    kernel: meta('meta/kernel'),
    time: meta('meta/time'),
    via,
    complete: stream.complete && stream.truncated === undefined,
    kubeProxyMode: meta('kube-proxy/mode'),
    commands: [],
    tools: {},
    missing: [...stream.missing],
    anonymized: false,
  };
  const iptablesNft = stream.records.some((r) => /^iptables\/ip6?tables-nft$/.test(r.name) && hasIptablesRules(r.text));
  for (const r of stream.records) {
    if (r.name.startsWith('version/')) {
      if (r.exitCode === 0) manifest.tools[r.name.slice('version/'.length)] = firstLine(r.text);
      continue;
    }
    const { path, note } = fileOf(r, iptablesNft);
    if (path) files.push({ path, text: r.text.endsWith('\n') || r.text === '' ? r.text : `${r.text}\n` });
    manifest.commands.push({ record: r.name, command: commandOf(r.name), exitCode: r.exitCode, bytes: new TextEncoder().encode(r.text).length, ...(path ? { file: path } : {}), ...(note ? { note } : {}) });
  }
  return { files, manifest };
}
