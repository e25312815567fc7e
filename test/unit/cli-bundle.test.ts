// `dataplane … BUNDLE`: each faithful bundle fixture (test/fixtures/bundles/README.md says what each copies) opens as
// a folder and as archives built here from the folder, and answers per node exactly as its dumps given one by one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWithBundles } from '../../src/cli/bundle';
import { run } from '../../src/cli/main';
import { gzip, tarOf, tarOfFolder, xz, zipOfFolder } from '../helpers/archive';

const FIXTURES = join(__dirname, '../fixtures/bundles');

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runWithBundles(
    run,
    args,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function direct(...args: string[]) {
  const out: string[] = [];
  const code = run(
    args,
    (s) => out.push(s),
    () => undefined,
  );
  return { code, out: out.join('\n') };
}

/** Each fixture: its folder, the node it holds, and the dumps that node's answer must equal. */
const CASES = [
  { folder: 'sosreport-worker-a-2026-12-01-qzkwtbe', node: 'worker-a', dumps: ['sos_commands/firewall_tables/nft_list_ruleset'] },
  { folder: 'worker-b-2026-12-01_10_00_00', node: 'worker-b', dumps: ['networking/iptablessave'] },
  { folder: 'cilium-bugtool-20261201-100000.123+0000-UTC-2811', node: 'worker-c', dumps: ['cmd/iptables-legacy-save--c.md', 'cmd/iptables-nft-save--c.md'] },
  // A newer cilium-bugtool: system/cmd/<words>.txt, with a .txt.err beside each.
  { folder: 'cilium-bugtool-20261202-100000.123+0000-UTC-3907', node: 'worker-f', dumps: ['system/cmd/iptables-legacy-save-c.txt', 'system/cmd/iptables-nft-save-c.txt'] },
  { folder: 'antrea-supportbundle', node: 'worker-d', dumps: ['agent_worker-d/iptables'] },
  { folder: 'plain', node: 'plain', dumps: ['node1.ipset', 'node1.iptables', 'node1.ipvsadm'] },
  // Retina's combined file: its iptables-save section is the generated sample, byte for byte.
  { folder: 'retina-capture-worker-e-20261201100000UTC', node: 'retina-capture-worker-e', dumps: ['../../../../samples/iptables-nft/node1.iptables'] },
];

const work = mkdtempSync(join(tmpdir(), 'dataplane-cli-bundle-'));

const ARCHIVES: [string, (dir: string, prefix: string) => Promise<Buffer>][] = [
  ['.tar', (d, p) => tarOfFolder(d, p)],
  ['.tar.gz', async (d, p) => gzip(await tarOfFolder(d, p))],
  ['.tar.xz', async (d, p) => xz(await tarOfFolder(d, p))],
  ['.zip', async (d, p) => zipOfFolder(d, p)],
];

describe('dataplane services BUNDLE', () => {
  for (const c of CASES) {
    const folder = join(FIXTURES, c.folder);
    const expected = direct('services', '--json', ...c.dumps.map((d) => join(folder, d)));

    it(`${c.folder} as a folder: node ${c.node}, the same catalog as its dumps`, async () => {
      expect(expected.code).toBe(0);
      const r = await cli('services', folder, '--json');
      expect(r.err).toContain(`node ${c.node} `);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toEqual(JSON.parse(expected.out));
      const text = await cli('services', folder);
      expect(text.out.split('\n')[0]).toBe(`== node ${c.node} ==`);
    });

    for (const [ext, build] of ARCHIVES) {
      it(`${c.folder} as ${ext}: the same answer, --node picks the node`, async () => {
        const archive = join(work, c.folder + ext);
        writeFileSync(archive, await build(folder, `${c.folder}/`));
        const r = await cli('services', archive, '--json', '--node', c.node);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.out)).toEqual(JSON.parse(expected.out));
      });
    }
  }

  it('all fixtures in one archive: one section per node, in name order', async () => {
    const archive = join(work, 'all.tar.gz');
    writeFileSync(archive, gzip(await tarOfFolder(FIXTURES)));
    const r = await cli('services', archive);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter((l) => l.startsWith('== node'))).toEqual(['plain', 'retina-capture-worker-e', 'worker-a', 'worker-b', 'worker-c', 'worker-d', 'worker-f'].map((n) => `== node ${n} ==`));
    const one = await cli('services', archive, '--json');
    expect(one.code).toBe(2);
    expect(one.err).toContain('--json answers for one node: pick one with --node (the bundle has: plain, retina-capture-worker-e, worker-a, worker-b, worker-c, worker-d, worker-f)');
  });

  it('a cilium sysdump: a zip holding one bugtool archive per agent, each opened in turn', async () => {
    const bugtool = 'cilium-bugtool-20261201-100000.123+0000-UTC-2811';
    const inner = gzip(await tarOfFolder(join(FIXTURES, bugtool), `${bugtool}/`));
    const { zipSync } = await import('fflate');
    const sysdump = zipSync({
      'cilium-sysdump-20261201-100000': {
        'cilium-bugtool-cilium-x7k2p-20261201-100000.tar.gz': new Uint8Array(inner),
        'k8s-nodes-20261201-100000.yaml': new TextEncoder().encode('items: []\n'),
        'logs-cilium-x7k2p-cilium-agent-20261201-100000.log.gz': new Uint8Array(gzip(Buffer.from('level=info msg=started\n'))),
      },
    });
    const archive = join(work, 'cilium-sysdump-20261201-100000.zip');
    writeFileSync(archive, sysdump);
    const r = await cli('services', archive, '--json');
    expect(r.err).toContain('node worker-c (name from cilium-sysdump-20261201-100000/cilium-bugtool-cilium-x7k2p-20261201-100000/');
    expect(r.code).toBe(0);
    const expected = direct('services', '--json', ...CASES[2].dumps.map((d) => join(FIXTURES, bugtool, d)));
    expect(JSON.parse(r.out)).toEqual(JSON.parse(expected.out));
  });

  it('--node naming no node of the bundle is a usage error listing the nodes', async () => {
    const r = await cli('services', join(FIXTURES, 'plain'), '--node', 'nope');
    expect(r.code).toBe(2);
    expect(r.err).toContain('no node named nope in the bundle (it has: plain)');
  });

  it('parse, trace and check take a bundle too', async () => {
    const rancher = join(FIXTURES, 'worker-b-2026-12-01_10_00_00');
    const parse = await cli('parse', rancher, '--json');
    expect(parse.code).toBe(0);
    expect(JSON.parse(parse.out)).toMatchObject({ dialect: 'iptables', counts: { errors: 0 } });
    const trace = await cli('trace', rancher, '--to', '10.96.20.5:443');
    expect(trace.code).toBe(0);
    expect(trace.out).toContain('== node worker-b ==');
    expect(trace.out).toMatch(/DNAT|endpoint/i);
  });

  it('a hostile archive is refused with its reason, status 2', async () => {
    const archive = join(work, 'evil.tar');
    writeFileSync(archive, await tarOf([{ header: { name: '../evil', size: 1 }, body: 'x' }]));
    const r = await cli('services', archive);
    expect(r.code).toBe(2);
    expect(r.err).toContain('"../evil": a path that climbs out of the bundle');
    expect(r.out).toBe('');
  });

  it('a bundle without any dump says so', async () => {
    const r = await cli('services', join(FIXTURES, 'antrea-supportbundle/controller'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('no iptables, nft, ipvsadm or ipset dump found');
  });
});
