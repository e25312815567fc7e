// `dataplane collect` against real tools: generated kube-proxy rules are loaded into a throw-away network
// namespace (iptables-nft-restore, iptables-legacy-restore, nft -f), the collector runs there — with --local
// (the CLI itself under `ip netns exec`), and through stand-in `ssh` / `kubectl` programs that check their
// arguments and run the script in that namespace — and the folder it writes must give the same Service
// catalog (`services --json`) as the generated dump. Needs root, ip, iptables and nft; skipped otherwise.
// The root namespace's firewall is never read or changed: every tool runs under `ip netns exec dpk-<pid>-…`.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectCommand } from '../../src/cli/collect';
import { catalogToJson } from '../../src/core/kube/service';
import { generateIptablesDump, randomServices } from '../../tools/generate/iptables';
import { generateNftDump } from '../../tools/generate/nft';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { iptablesDumps, snapshotDiagnostics } from '../../src/core/crossref';
import { explainNode } from '../../src/core/explain/node';
import { iptablesBackendWriters } from '../../src/core/kube/backends';
import { addNamespaces, deleteAllSync, nsExec, nsName } from './lib/netns';

function have(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
}

function skipReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  for (const tool of ['ip', 'iptables-nft-restore', 'iptables-legacy-restore', 'nft']) if (!have(tool)) return `needs ${tool} (Debian packages iproute2, iptables, nftables)`;
  return undefined;
}

const skip = skipReason();
const tmp = mkdtempSync(join(tmpdir(), 'dpx-kcollect-'));
const cli = join(tmp, 'cli.js');
process.on('exit', deleteAllSync);

/** The Service catalog as `dataplane services --json` prints it, of the dumps given. */
function servicesJson(files: SnapshotFile[]): unknown {
  const snapshot = buildSnapshot(files);
  return JSON.parse(JSON.stringify(catalogToJson(snapshot.catalogs, { mode: snapshot.mode, leftovers: [] })));
}

/** The snapshot folder's dumps (its top level: extra/ holds second listings of the same rules). */
function folderServices(dir: string): unknown {
  const files = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && e.name !== 'snapshot.json');
  return servicesJson(files.map((e) => analyzeFile(join(dir, e.name), readFileSync(join(dir, e.name), 'utf8'))).filter((f): f is SnapshotFile => f !== undefined));
}

function standIn(name: string, body: string): string {
  const path = join(tmp, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

interface Case {
  tag: string;
  load: [string, string[]];
  dump: string;
  name: string;
  file: string;
}

const services = randomServices(12, 3, 7);
/** kube-proxy's nfacct counters need objects made with the nfacct tool first; the catalog does not use them. */
const noNfacct = (dump: string) => dump.replace(/ -m nfacct --nfacct-name +\S+/g, '');
const cases: Case[] = [
  { tag: 'nft', load: ['iptables-nft-restore', []], dump: noNfacct(generateIptablesDump({ services, style: 'iptables-nft-save', nodeRules: false })), name: 'node.iptables', file: 'iptables-nft.iptables' },
  { tag: 'legacy', load: ['iptables-legacy-restore', []], dump: noNfacct(generateIptablesDump({ services, style: 'iptables-legacy-save', nodeRules: false })), name: 'node.iptables', file: 'iptables-legacy.iptables' },
  { tag: 'nftables', load: ['nft', ['-f', '-']], dump: generateNftDump({ services, style: 'nft-cmds' }), name: 'node.nft', file: 'nft-ruleset.nft' },
];

if (skip) {
  describe('dataplane collect in a namespace', () => it.skip(`skipped: ${skip}`, () => {}));
} else {
  beforeAll(async () => {
    await build({ entryPoints: ['src/cli/main.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: cli, loader: { '.sh': 'text' }, logLevel: 'warning' });
  });
  afterAll(() => {
    deleteAllSync();
    rmSync(tmp, { recursive: true, force: true });
  });

  describe.each(cases)('dataplane collect: $tag rules', (c) => {
    const ns = nsName(`collect-${c.tag}`);
    const truth = () => servicesJson([analyzeFile(c.name, nft(c) ? generateNftDump({ services, style: 'nft-list-ruleset' }) : c.dump)!]);

    beforeAll(async () => {
      await addNamespaces([ns]);
      await nsExec(ns, 'ip', ['link', 'set', 'lo', 'up']);
      await nsExec(ns, c.load[0], c.load[1], { input: c.dump });
    });

    it("--local: the folder gives the generated dump's Service catalog", async () => {
      const dir = join(tmp, `${c.tag}-local`);
      const r = await nsExec(ns, process.execPath, [cli, 'collect', '--out', dir, '--local'], { timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(dir, c.file))).toBe(true);
      const manifest = JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8'));
      expect(manifest).toMatchObject({ complete: true, via: 'local' });
      expect(manifest.missing).not.toContain('nft');
      const expected = truth() as { services: unknown[] };
      expect(expected.services.length).toBeGreaterThan(10);
      expect(folderServices(dir)).toEqual(expected);
    });

    it('--local --anonymize: same Service counts and shares, none of the generated addresses', async () => {
      const dir = join(tmp, `${c.tag}-anon`);
      const r = await nsExec(ns, process.execPath, [cli, 'collect', '--out', dir, '--local', '--anonymize'], { timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      const shares = (j: unknown) =>
        (j as { services: { protocol: string; endpoints: { port: number; probability: number }[] }[] }).services
          .map(
            (s) =>
              `${s.protocol}:${s.endpoints
                .map((e) => `${e.port}/${e.probability}`)
                .sort()
                .join(',')}`,
          )
          .sort();
      expect(shares(folderServices(dir))).toEqual(shares(truth()));
      const text = readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
        .join('\n');
      const generated = new Set(c.dump.match(/\b10\.(96|244)\.\d+\.\d+\b/g));
      expect(generated.size).toBeGreaterThan(10);
      expect([...generated].filter((a) => new RegExp(`(?<![\\d.])${a.replace(/\./g, '\\.')}(?![\\d.])`).test(text))).toEqual([]);
      expect(JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8'))).toMatchObject({ anonymized: true, node: 'node-1' });
    });

    it('--ssh: one `ssh -o BatchMode=yes -T HOST sh -s`, run in the namespace', () => {
      const ssh = standIn(`ssh-${c.tag}`, `[ "$*" = "-o BatchMode=yes -T root@node-7 sh -s" ] || { echo "bad ssh arguments: $*" >&2; exit 9; }\nexec ip netns exec ${ns} sh -s`);
      const dir = join(tmp, `${c.tag}-ssh`);
      const err: string[] = [];
      expect(
        collectCommand(
          ['--out', dir, '--ssh', 'root@node-7', '--ssh-path', ssh],
          () => {},
          (s) => err.push(s),
          {},
        ),
      ).toBe(0);
      expect(folderServices(dir)).toEqual(truth());
    });

    it('--kubectl-node: kubectl debug … chroot /host sh -c SCRIPT, then the debug pod deleted', () => {
      const log = join(tmp, `kubectl-${c.tag}.log`);
      const kubectl = standIn(
        `kubectl-${c.tag}`,
        `printf '%s %s %s %s %s %s %s %s %s\\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" >> ${log}
case "$*" in
  "--context kind-x -n default debug node/node-7 --profile=sysadmin --image=busybox:1.36 --attach=true -- chroot /host sh -c "*)
    eval "script=\\\${$#}"
    echo "Creating debugging pod node-debugger-node-7-q8z2m with container debugger on node node-7."
    exec ip netns exec ${ns} sh -c "$script" 2>&1 ;;
  "--context kind-x -n default delete pod node-debugger-node-7-q8z2m --wait=false") echo 'pod "node-debugger-node-7-q8z2m" deleted' ;;
  *) echo "unexpected kubectl $*" >&2; exit 9 ;;
esac`,
      );
      const dir = join(tmp, `${c.tag}-kubectl`);
      const err: string[] = [];
      const status = collectCommand(
        ['--out', dir, '--kubectl-node', 'node-7', '--context', 'kind-x', '--image', 'busybox:1.36', '--kubectl', kubectl],
        () => {},
        (s) => err.push(s),
        {},
      );
      expect(err).toEqual([]);
      expect(status).toBe(0);
      const calls = readFileSync(log, 'utf8').trim().split('\n');
      expect(calls).toHaveLength(2);
      expect(calls[0]).toContain('-n default debug node/node-7');
      expect(calls[1]).toContain('-n default delete pod node-debugger-node-7-q8z2m');
      expect(folderServices(dir)).toEqual(truth());
    });
  });

  it.skipIf(have('ipvsadm'))('IPVS mode: skipped, ipvsadm is not installed here (Debian package ipvsadm)', () => {});

  describe('dataplane collect: both iptables backends hold rules', () => {
    const ns = nsName('collect-mixed');
    const docker = readFileSync(join(__dirname, '../fixtures/mixed-backends/iptables-legacy.iptables'), 'utf8');
    beforeAll(async () => {
      await addNamespaces([ns]);
      await nsExec(ns, 'ip', ['link', 'set', 'lo', 'up']);
      // Docker's rules through the legacy backend, kube-proxy's through nf_tables: one node, two backends.
      await nsExec(ns, 'iptables-legacy-restore', [], { input: docker });
      await nsExec(ns, 'iptables-nft-restore', [], { input: cases[0].dump });
    });

    it('--local saves each backend to its file; the snapshot says who wrote to which', async () => {
      const dir = join(tmp, 'mixed-local');
      const r = await nsExec(ns, process.execPath, [cli, 'collect', '--out', dir, '--local'], { timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      const names = ['iptables-nft.iptables', 'iptables-legacy.iptables'];
      for (const n of names) expect(existsSync(join(dir, n)), n).toBe(true);
      const texts = names.map((n) => readFileSync(join(dir, n), 'utf8'));
      const snapshot = buildSnapshot(names.map((n, i) => analyzeFile(join(dir, n), texts[i])!));
      expect(iptablesBackendWriters(iptablesDumps(snapshot)).map((w) => [w.backend, w.writers])).toEqual([
        // The generated node rules carry kubelet's KUBE-FIREWALL and canary chains too.
        ['nf_tables', ['kube-proxy', 'kubelet']],
        ['legacy', ['Docker']],
      ]);
      expect(snapshotDiagnostics(snapshot, 1).some((d) => d.code === 'mixed-iptables-backends')).toBe(true);
      const e = explainNode(snapshot, texts);
      expect(e.backend).toBe('mixed');
      // The Service catalog is kube-proxy's, from the nf_tables file.
      expect(folderServices(dir)).toEqual(servicesJson([analyzeFile('node.iptables', cases[0].dump)!]));
    });
  });
}

function nft(c: Case): boolean {
  return c.tag === 'nftables';
}
