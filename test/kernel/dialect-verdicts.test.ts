// The real tools judge the dialect corners (test/helpers/restore-verdicts.ts) and the wild fixtures
// (test/fixtures/wild): iptables-restore --test, iptables-legacy-restore --test and nft -c -f inside one
// throw-away network namespace. Needs root, ip and the tools; skipped with the reason otherwise.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NFT_CASES, RESTORE_CASES } from '../helpers/restore-verdicts';
import { addNamespaces, deleteAllSync, installExitCleanup, nsName } from './lib/netns';
import { runSync } from './lib/proc';

const has = (tool: string) => runSync('sh', ['-c', `command -v ${tool}`]).code === 0;
const skip =
  process.platform !== 'linux'
    ? 'needs Linux network namespaces'
    : process.getuid?.() !== 0
      ? 'needs root (ip netns)'
      : !has('ip')
        ? 'needs the ip tool (Debian package iproute2)'
        : !has('iptables-nft-restore') || !has('iptables-legacy-restore')
          ? 'needs iptables-nft-restore and iptables-legacy-restore (Debian package iptables)'
          : !has('nft')
            ? 'needs nft (Debian package nftables)'
            : undefined;

const NS = nsName('dialect');
const wild = (name: string) => readFileSync(join(__dirname, '../fixtures/wild', name), 'utf8');

/** 'ok', or the line the tool names ("Error occurred at line: N", "line N", "FILE:N:"). */
function verdict(tool: string, args: string[], input: string): 'ok' | number | string {
  const r = runSync('ip', ['netns', 'exec', NS, tool, ...args], input);
  if (r.code === 0) return 'ok';
  const m = /at line:? (\d+)|line (\d+)|^\/dev\/stdin:(\d+):/m.exec(r.stderr);
  return m ? Number(m[1] ?? m[2] ?? m[3]) : r.stderr.trim();
}

if (skip) {
  describe('dialect verdicts of the real tools', () => {
    it.skip(`skipped: ${skip}`, () => {});
  });
} else {
  describe('dialect verdicts of the real tools', () => {
    beforeAll(async () => {
      installExitCleanup();
      await addNamespaces([NS]);
    });
    afterAll(() => deleteAllSync());

    for (const c of RESTORE_CASES) {
      it(`iptables-restore: ${c.name}`, () => {
        expect(verdict('iptables-nft-restore', ['--test'], c.text), 'iptables-nft-restore').toBe(c.nft);
        expect(verdict('iptables-legacy-restore', ['--test'], c.text), 'iptables-legacy-restore').toBe(c.legacy);
      });
    }

    for (const c of NFT_CASES) {
      it(`nft -c -f: ${c.name}`, () => {
        expect(verdict('nft', ['-c', '-f', '/dev/stdin'], c.text)).toBe(c.nft);
      });
    }

    it('both backends load the Istio restore inputs', () => {
      for (const name of ['istio-redirect.iptables', 'istio-tproxy.iptables']) {
        expect(verdict('iptables-nft-restore', ['--test'], wild(name)), name).toBe('ok');
        expect(verdict('iptables-legacy-restore', ['--test'], wild(name)), name).toBe('ok');
      }
    });

    it('nft -c -f accepts the firewall4 ruleset (without its flowtable on a kernel that has none)', () => {
      const text = wild('openwrt-fw4.nft');
      const r = runSync('ip', ['netns', 'exec', NS, 'nft', '-c', '-f', '/dev/stdin'], text);
      if (r.code === 0) return;
      // A kernel without nf_flow_table answers ENOENT on the flowtable and on `flow offload @ft` only.
      const errors = r.stderr.split('\n').filter((l) => /Error:/.test(l));
      expect(
        errors.every((l) => /No such file or directory/.test(l)),
        r.stderr,
      ).toBe(true);
      const withoutFlowtable = text.replace(/\tflowtable ft \{[\s\S]*?\n\t\}\n/, '').replace(/.*flow offload @ft;\n/, '');
      expect(verdict('nft', ['-c', '-f', '/dev/stdin'], withoutFlowtable)).toBe('ok');
    });
  });
}
