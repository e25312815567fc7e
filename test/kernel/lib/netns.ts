// Network namespaces for the kernel tests. Every namespace is named PREFIX + something, PREFIX carrying this
// process' pid, so that concurrent runs never touch each other's namespaces and leftovers of dead runs can
// be recognised and swept. Nothing here ever changes the root namespace's firewall, routes or links: every
// `ip` command that configures something runs with `-n NS` or under `ip netns exec NS`.
import { existsSync } from 'node:fs';
import { pidAlive, run, runSync } from './proc';

export const PREFIX_BASE = 'dpk-';
export const PREFIX = `${PREFIX_BASE}${process.pid}-`;

const created = new Set<string>();

export function nsName(suffix: string): string {
  const name = PREFIX + suffix;
  if (!/^[A-Za-z0-9_.-]{1,200}$/.test(name)) throw new Error(`bad namespace name ${name}`);
  return name;
}

export async function addNamespaces(names: string[]): Promise<void> {
  for (const n of names) {
    if (!n.startsWith(PREFIX)) throw new Error(`refusing to create namespace ${n} without prefix ${PREFIX}`);
    created.add(n); // registered first: a half-made namespace is deleted too
  }
  await run('ip', ['-batch', '-'], { input: names.map((n) => `netns add ${n}\n`).join('') });
}

/** Pids of the processes inside a namespace (ours: listeners and clients of this or of a dead earlier run). */
function pidsIn(ns: string): number[] {
  const r = runSync('ip', ['netns', 'pids', ns]);
  return r.stdout
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .filter((p) => Number.isInteger(p) && p > 1 && p !== process.pid);
}

function deleteOneSync(ns: string): void {
  if (!ns.startsWith(PREFIX_BASE)) throw new Error(`refusing to delete namespace ${ns}`);
  for (const pid of pidsIn(ns)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  runSync('ip', ['netns', 'delete', ns]);
}

export async function deleteNamespaces(names: string[]): Promise<void> {
  for (const ns of names) {
    deleteOneSync(ns);
    created.delete(ns);
  }
}

/** Deletes every namespace this process made (also called from process 'exit'). */
export function deleteAllSync(): void {
  for (const ns of [...created]) {
    deleteOneSync(ns);
    created.delete(ns);
  }
}

export function listNamespaces(): string[] {
  const r = runSync('ip', ['netns', 'list']);
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

/** Leftovers of earlier runs: namespaces with our base prefix whose run (pid) is gone. */
export function sweepLeftovers(): string[] {
  const swept: string[] = [];
  for (const ns of listNamespaces()) {
    const m = /^dpk-(\d+)-/.exec(ns);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || pidAlive(pid)) continue;
    deleteOneSync(ns);
    swept.push(ns);
  }
  return swept;
}

let exitHook = false;
export function installExitCleanup(): void {
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => deleteAllSync());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      deleteAllSync();
      process.kill(process.pid, signal); // the default action, now that our handler is gone
    });
  }
}

export function nsExec(ns: string, cmd: string, args: string[], opts: { input?: string; timeoutMs?: number; allowFail?: boolean } = {}) {
  if (!ns.startsWith(PREFIX)) throw new Error(`refusing to run ${cmd} outside our namespaces (${ns})`);
  return run('ip', ['netns', 'exec', ns, cmd, ...args], opts);
}

export function ipBatch(ns: string, lines: string[], timeoutMs = 30_000) {
  if (!ns.startsWith(PREFIX)) throw new Error(`refusing to configure ${ns}`);
  return run('ip', ['-n', ns, '-batch', '-'], { input: lines.map((l) => l + '\n').join(''), timeoutMs });
}

// ---------------------------------------------------------------------------------------------------------
// What this machine can do

export interface Backend {
  /** 'nf_tables' or 'legacy'. */
  name: 'nf_tables' | 'legacy';
  restore: string;
  save: string;
  /** The generator style that matches this backend's iptables-save. */
  style: 'iptables-nft-save' | 'iptables-legacy-save';
}

export interface Environment {
  /** Why the whole suite is skipped; undefined when it runs. */
  skip?: string;
  backends: Backend[];
  /** Backends that exist but could not be used, with the reason. */
  missing: string[];
  nfacct: boolean;
}

function which(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin', '/usr/bin', '/bin'])) {
    const p = `${dir}/${cmd}`;
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

/** Every kind of rule kube-proxy writes, in a tiny ruleset: loading it tells the backend and kernel can do it. */
const PROBE_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-PROBE - [0:0]
-A KUBE-PROBE -m comment --comment "probe" -m conntrack --ctstate NEW -p tcp -m tcp --dport 1 -j REJECT --reject-with icmp-port-unreachable
-A KUBE-PROBE -m addrtype --dst-type LOCAL -m mark --mark 0x4000/0x4000 -j DROP
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:KUBE-PROBE - [0:0]
-A KUBE-PROBE -m statistic --mode random --probability 0.50000000000 -j RETURN
-A KUBE-PROBE -m recent --rcheck --seconds 10800 --reap --name KUBE-PROBE --mask 255.255.255.255 --rsource -j RETURN
-A KUBE-PROBE -m recent --set --name KUBE-PROBE --mask 255.255.255.255 --rsource -p tcp -m tcp -j DNAT --to-destination 10.1.2.3:80
-A KUBE-PROBE -j MARK --set-xmark 0x4000/0x4000
-A KUBE-PROBE -j MASQUERADE
COMMIT
`;

export function probeEnvironment(): Environment {
  const env: Environment = { backends: [], missing: [], nfacct: false };
  if (process.platform !== 'linux') return { ...env, skip: 'needs Linux network namespaces' };
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return { ...env, skip: 'needs root (ip netns, iptables inside namespaces)' };
  if (!which('ip')) return { ...env, skip: 'needs the ip tool (Debian package iproute2)' };
  const candidates: (Backend & { version: RegExp })[] = [
    { name: 'nf_tables', restore: 'iptables-nft-restore', save: 'iptables-nft-save', style: 'iptables-nft-save', version: /nf_tables/ },
    { name: 'legacy', restore: 'iptables-legacy-restore', save: 'iptables-legacy-save', style: 'iptables-legacy-save', version: /legacy/ },
  ];
  const present = candidates.filter((c) => which(c.restore) && which(c.save));
  if (present.length === 0) return { ...env, skip: 'needs iptables-nft-restore / iptables-legacy-restore (Debian package iptables)' };
  // KERNEL_TEST_NFACCT=0 runs the fallback (dumps without -m nfacct) on a machine that has the tool.
  env.nfacct = which('nfacct') !== undefined && process.env.KERNEL_TEST_NFACCT !== '0';

  const probe = nsName('probe');
  const add = runSync('ip', ['netns', 'add', probe]);
  if (add.code !== 0) return { ...env, skip: `ip netns add failed: ${add.stderr.trim()}` };
  try {
    for (const c of present) {
      const r = runSync('ip', ['netns', 'exec', probe, c.restore], PROBE_RULES);
      if (r.code !== 0) env.missing.push(`${c.name}: ${c.restore} cannot load kube-proxy's rule kinds here: ${r.stderr.trim().split('\n')[0]}`);
      else env.backends.push({ name: c.name, restore: c.restore, save: c.save, style: c.style });
    }
    if (env.nfacct) {
      const r = runSync('ip', ['netns', 'exec', probe, 'nfacct', 'add', 'dpk_probe']);
      if (r.code !== 0) env.nfacct = false;
    }
  } finally {
    runSync('ip', ['netns', 'delete', probe]);
  }
  if (env.backends.length === 0) return { ...env, skip: `no usable iptables backend: ${env.missing.join('; ')}` };
  return env;
}
