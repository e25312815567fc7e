// Hostile archives, built here: each is refused with its reason, the temporary folder is removed, and nothing
// appears outside it. Benign ones expand to their regular files only.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BundleError, openBundle } from '../../src/bundle/extract';
import { gzip, tarOf, xz, type TarEntry } from '../helpers/archive';

/** A sandbox: `work/` receives the archive, `tmp/` the extraction; the sandbox is checked for strays. */
function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'dataplane-hostile-'));
  const work = join(dir, 'work', 'deep');
  mkdirSync(work, { recursive: true });
  mkdirSync(join(dir, 'tmp'));
  return { dir, work, tmp: join(dir, 'tmp') };
}

async function refused(name: string, bytes: Buffer, limits = {}): Promise<string> {
  const box = sandbox();
  const file = join(box.work, name);
  writeFileSync(file, bytes);
  const error = await openBundle(file, { tempParent: box.tmp, limits }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BundleError);
  expect(readdirSync(box.tmp)).toEqual([]);
  expect(readdirSync(box.dir).sort()).toEqual(['tmp', 'work']);
  expect(readdirSync(join(box.dir, 'work'))).toEqual(['deep']);
  expect(readdirSync(box.work)).toEqual([name]);
  expect(existsSync('/tmp/x-escaped')).toBe(false);
  return (error as Error).message;
}

const file = (name: string, body = 'hello\n'): TarEntry => ({ header: { name, size: Buffer.byteLength(body) }, body });

describe('openBundle refuses hostile archives', () => {
  it('a tar entry climbing out with ../', async () => {
    expect(await refused('a.tar', await tarOf([file('ok'), file('../x'), file('../../x')]))).toMatch(/"\.\.\/x": a path that climbs out/);
  });
  it('a tar entry climbing out from inside a folder (a/../../x)', async () => {
    expect(await refused('a.tar', await tarOf([file('a/../../x')]))).toMatch(/climbs out/);
  });
  it('a tar entry with an absolute path', async () => {
    expect(await refused('a.tar', await tarOf([file('/tmp/x-escaped')]))).toMatch(/"\/tmp\/x-escaped": an absolute path/);
  });
  it('a tar symbolic link pointing outside', async () => {
    const tar = await tarOf([{ header: { name: 'passwd', type: 'symlink', linkname: '/etc/passwd' } }, file('passwd', 'overwrite\n')]);
    expect(await refused('a.tar', tar)).toMatch(/"passwd": a symbolic link to "\/etc\/passwd", outside the bundle/);
  });
  it('a tar symbolic link climbing out, then a file written through it', async () => {
    const tar = await tarOf([{ header: { name: 'd', type: 'symlink', linkname: '../..' } }, file('d/x-escaped')]);
    expect(await refused('a.tar', tar)).toMatch(/"d": a symbolic link/);
  });
  it('a tar hard link to a file outside', async () => {
    const tar = await tarOf([{ header: { name: 'h', type: 'link', linkname: '../../etc/shadow' } }]);
    expect(await refused('a.tar', tar)).toMatch(/"h": a hard link/);
  });
  it('a character device and a FIFO', async () => {
    expect(await refused('a.tar', await tarOf([{ header: { name: 'null', type: 'character-device', devmajor: 1, devminor: 3 } }]))).toMatch(/"null": a device file/);
    expect(await refused('a.tar', await tarOf([{ header: { name: 'p', type: 'fifo' } }]))).toMatch(/"p": a FIFO/);
  });
  it('too many entries', async () => {
    const tar = await tarOf(Array.from({ length: 12 }, (_, i) => file(`f${i}`)));
    expect(await refused('a.tar', tar, { maxEntries: 10 })).toMatch(/more than 10 entries/);
  });
  it('a file above the per-file limit, by its header and by its bytes', async () => {
    expect(await refused('a.tar', await tarOf([file('big', 'x'.repeat(5000))]), { maxFileBytes: 4096 })).toMatch(/"big": 5000 bytes is above the limit of 4096/);
  });
  it('a gzip bomb of zeros stops at the cap', async () => {
    const bomb = gzip(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(await refused('bomb.tar.gz', bomb, { maxTotalBytes: 1024 * 1024, maxEntries: 100 })).toMatch(/decompression bomb/);
  });
  it('a tar.gz whose one file expands past the total', async () => {
    const tar = gzip(await tarOf([file('zeros', '\0'.repeat(3 * 1024 * 1024))]));
    expect(await refused('a.tgz', tar, { maxTotalBytes: 2 * 1024 * 1024 })).toMatch(/bytes in all/);
  });
  it('an xz bomb of zeros stops at the cap', async () => {
    const bomb = xz(Buffer.alloc(64 * 1024 * 1024));
    expect(await refused('bomb.tar.xz', bomb, { maxTotalBytes: 1024 * 1024, maxEntries: 100 })).toMatch(/decompression bomb/);
    // The xz library holds one lock for the whole process: a refused archive must release it.
    const box = sandbox();
    writeFileSync(join(box.work, 'ok.tar.xz'), xz(await tarOf([file('a')])));
    const b = await openBundle(join(box.work, 'ok.tar.xz'), { tempParent: box.tmp });
    expect(b.files).toEqual(['a']);
    b.dispose();
  }, 30_000);
  it('a zip entry climbing out with ../, and an absolute one', async () => {
    expect(await refused('a.zip', Buffer.from(zipSync({ ok: new Uint8Array([65]), '../x': new Uint8Array([66]) })))).toMatch(/"\.\.\/x": a path that climbs out/);
    expect(await refused('a.zip', Buffer.from(zipSync({ '/tmp/x-escaped': new Uint8Array([66]) })))).toMatch(/absolute path/);
  });
  it('a zip larger than the total limit is not read into memory', async () => {
    const zip = Buffer.from(zipSync({ a: new Uint8Array(4096).map((_, i) => (i * 7919) % 251) }, { level: 0 }));
    expect(await refused('big.zip', zip, { maxTotalBytes: 1024 })).toMatch(/a zip archive of \d+ bytes is above the limit of 1024/);
  });
  it('a zip symbolic link (Unix mode bits in the central directory)', async () => {
    const link = Buffer.from(zipSync({ l: [new TextEncoder().encode('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }] }));
    expect(await refused('a.zip', link)).toMatch(/"l": a symbolic link/);
  });
  it('a zip bomb stops at the cap, whatever its headers declare', async () => {
    const bomb = Buffer.from(zipSync({ zeros: new Uint8Array(64 * 1024 * 1024) }, { level: 9 }));
    // The declared size says 64 MiB: refused before inflating. Then with the size field lied about.
    expect(await refused('a.zip', bomb, { maxTotalBytes: 1024 * 1024 })).toMatch(/"zeros": 67108864 bytes is above|bytes in all/);
    const liar = lieAboutSize(bomb);
    expect(await refused('b.zip', liar, { maxTotalBytes: 1024 * 1024 })).toMatch(/decompression bomb|limit per file/);
  });
});

describe('archives inside archives', () => {
  it('an unpacked folder holding archives: they expand into a temporary folder, the folder is left as it was', async () => {
    const box = sandbox();
    const inner = gzip(await tarOf([file('bugtool/cmd/hostname.md', 'worker-c\n'), file('bugtool/cmd/iptables-save--c.md', '*nat\nCOMMIT\n')]));
    writeFileSync(join(box.work, 'cilium-bugtool-x.tar.gz'), inner);
    writeFileSync(join(box.work, 'agent.log.gz'), gzip(Buffer.from('not a tar\n')));
    writeFileSync(join(box.work, 'k8s-nodes.yaml'), 'items: []\n');
    const b = await openBundle(box.work, { tempParent: box.tmp });
    expect(b.files).toEqual(['agent.log.gz', 'cilium-bugtool-x/bugtool/cmd/hostname.md', 'cilium-bugtool-x/bugtool/cmd/iptables-save--c.md', 'k8s-nodes.yaml']);
    expect(readFileSync(b.locate('cilium-bugtool-x/bugtool/cmd/iptables-save--c.md'), 'utf8')).toBe('*nat\nCOMMIT\n');
    expect(b.locate('k8s-nodes.yaml')).toBe(join(box.work, 'k8s-nodes.yaml'));
    expect(readdirSync(box.work).sort()).toEqual(['agent.log.gz', 'cilium-bugtool-x.tar.gz', 'k8s-nodes.yaml']);
    b.dispose();
    expect(readdirSync(box.tmp)).toEqual([]);
  });
  it('a bomb inside a tar is refused too: the budget is shared', async () => {
    const inner = gzip(await tarOf([file('zeros', '\0'.repeat(3 * 1024 * 1024))]));
    const outer = await tarOf([{ header: { name: 'agent_x.tar.gz', size: inner.length }, body: inner }]);
    expect(await refused('outer.tar', outer, { maxTotalBytes: 2 * 1024 * 1024 })).toMatch(/bytes in all/);
  });
  it('a path escaping from an inner archive is refused', async () => {
    const inner = await tarOf([file('../../../x-escaped')]);
    expect(await refused('outer.tar', await tarOf([{ header: { name: 'a/inner.tar', size: inner.length }, body: inner }]))).toMatch(/climbs out/);
  });
});

/** Rewrites every declared uncompressed size of a zip to 10 bytes. */
function lieAboutSize(zip: Buffer): Buffer {
  const out = Buffer.from(zip);
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = out.readUInt32LE(i);
    if (sig === 0x04034b50) out.writeUInt32LE(10, i + 22);
    if (sig === 0x02014b50) out.writeUInt32LE(10, i + 24);
  }
  return out;
}

describe('openBundle expands benign archives', () => {
  const entries = [file('node1/iptables-save', '*nat\nCOMMIT\n'), { header: { name: 'node1/', type: 'directory' as const } }, file('./top')];
  for (const [name, build] of [
    ['b.tar', async () => tarOf(entries)],
    ['b.tar.gz', async () => gzip(await tarOf(entries))],
    ['b.tar.xz', async () => xz(await tarOf(entries))],
    ['b.zip', async () => Buffer.from(zipSync({ node1: { 'iptables-save': new TextEncoder().encode('*nat\nCOMMIT\n') }, top: new TextEncoder().encode('hello\n') }))],
  ] as const) {
    it(`${name}: regular files only, removed by dispose`, async () => {
      const box = sandbox();
      const path = join(box.work, name);
      writeFileSync(path, await build());
      const b = await openBundle(path, { tempParent: box.tmp });
      expect(b.files).toEqual(['node1/iptables-save', 'top']);
      expect(readFileSync(join(b.root, 'node1/iptables-save'), 'utf8')).toBe('*nat\nCOMMIT\n');
      b.dispose();
      b.dispose();
      expect(readdirSync(box.tmp)).toEqual([]);
    });
  }

  it('skips links that stay inside (sosreport keeps hostname as one), writing nothing for them', async () => {
    const box = sandbox();
    const path = join(box.work, 's.tar');
    writeFileSync(path, await tarOf([file('sos_commands/host/hostname', 'node-a\n'), { header: { name: 'hostname', type: 'symlink', linkname: 'sos_commands/host/hostname' } }]));
    const b = await openBundle(path, { tempParent: box.tmp });
    expect(b.files).toEqual(['sos_commands/host/hostname']);
    expect(b.skipped).toEqual([{ name: 'hostname', why: 'a symbolic link to sos_commands/host/hostname, not followed' }]);
    b.dispose();
  });

  it('a folder is read in place, its links listed as skipped, not followed', async () => {
    const box = sandbox();
    writeFileSync(join(box.work, 'iptables-save'), '*nat\nCOMMIT\n');
    symlinkSync('/etc/passwd', join(box.work, 'passwd'));
    const b = await openBundle(box.work);
    expect(b.root).toBe(box.work);
    expect(b.files).toEqual(['iptables-save']);
    expect(b.skipped).toEqual([{ name: 'passwd', why: 'a symbolic link' }]);
  });
});
