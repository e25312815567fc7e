// A bundle as the editor gets it: one folder per node holding read-only copies of its dumps, each named with its
// dialect's extension (the editor picks the language from it); the extraction is gone, the copies stay until
// removed; a refused archive leaves nothing; a dead window's copies are removed by the next one.
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundleError } from '../../src/bundle/extract';
import { isBundleError, openBundleSnapshots, removeBundleSnapshots, removeStaleBundleSnapshots } from '../../src/bundle/snapshots';
import { gzip, tarOf, tarOfFolder } from '../helpers/archive';

const FIXTURES = join(__dirname, '../fixtures/bundles');

describe('openBundleSnapshots', () => {
  it('copies each node of a sosreport folder into its own folder, read-only, named by dialect', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'dataplane-snapshots-'));
    const opened = await openBundleSnapshots(join(FIXTURES, 'sosreport-worker-a-2026-12-01-qzkwtbe'), parent);
    expect(opened.nodes.map((n) => n.name)).toEqual(['worker-a']);
    const [node] = opened.nodes;
    expect(basename(node.folder)).toBe('worker-a');
    expect(node.dumps.map((d) => [basename(d.file), d.source, d.dialect])).toEqual([['nft_list_ruleset.nft', 'sos_commands/firewall_tables/nft_list_ruleset', 'nftables']]);
    expect(statSync(node.dumps[0].file).mode & 0o777).toBe(0o400);
    expect(opened.skipped.map((s) => s.name)).toEqual(['hostname']);
    removeBundleSnapshots(opened.folder);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('leaves only the node folders of an archive (the extraction is removed at once)', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'dataplane-snapshots-'));
    const file = join(parent, '..', `${basename(parent)}.tar.gz`);
    writeFileSync(file, gzip(await tarOfFolder(join(FIXTURES, 'cilium-bugtool-20261201-100000.123+0000-UTC-2811'), 'cilium-bugtool-x/')));
    const opened = await openBundleSnapshots(file, parent);
    expect(readdirSync(opened.folder)).toEqual(opened.nodes.map((n) => basename(n.folder)));
    expect(opened.nodes[0].dumps.every((d) => d.file.endsWith('.iptables') || d.file.endsWith('.ipset'))).toBe(true);
    removeBundleSnapshots(opened.folder);
  });

  it('a refused archive leaves nothing under the parent', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'dataplane-snapshots-'));
    const file = join(parent, '..', `${basename(parent)}-hostile.tar`);
    writeFileSync(file, await tarOf([{ header: { name: '../escape', size: 3 }, body: 'hi\n' }]));
    const error = await openBundleSnapshots(file, parent).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleError);
    expect(isBundleError(error)).toBe(true);
    expect(readdirSync(parent)).toEqual([]);
  });

  it("removes the session folders of windows that are gone, not its own nor a running one's", () => {
    const parent = mkdtempSync(join(tmpdir(), 'dataplane-snapshots-'));
    for (const name of ['bundle-999999-aaa', `bundle-${process.pid}-bbb`, 'bundle-12345-ccc', 'other']) mkdirSync(join(parent, name));
    expect(removeStaleBundleSnapshots(parent, (pid) => pid === 12345)).toEqual(['bundle-999999-aaa']);
    expect(readdirSync(parent).sort()).toEqual(['bundle-12345-ccc', `bundle-${process.pid}-bbb`, 'other'].sort());
  });
});
