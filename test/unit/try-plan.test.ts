// `npm run try` (test/e2e/run.mjs --try) says which system packages it installs, and with which command, before it
// runs anything; without root it installs nothing and names the command to run by hand. Its first screen is set up
// by test/e2e/try/ (the walkthrough, the sample beside it) with the CodeLens on.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM of the e2e harness, without types
import { APT_PACKAGES, installSystemPackages, systemPackagesPlan } from '../../test/e2e/lib/install-plan.mjs';

const names: string[] = APT_PACKAGES.map((p: { name: string }) => p.name);

function record(missing: string[], root: boolean) {
  const events: string[] = [];
  let error: string | undefined;
  try {
    installSystemPackages({ installed: (p: string) => !missing.includes(p), root, print: (l: string) => events.push(`print ${l}`), run: (cmd: string, argv: string[]) => events.push(`run ${cmd} ${argv.join(' ')}`) });
  } catch (e) {
    error = (e as Error).message;
  }
  return { events, error };
}

describe("the try script's system packages", () => {
  it('prints the packages and the exact command before it runs it', () => {
    const { events, error } = record(['chromium', 'fonts-noto-cjk'], true);
    expect(error).toBeUndefined();
    expect(events).toEqual([
      expect.stringMatching(/^print System packages to install: chromium \(.+\), fonts-noto-cjk \(.+\)\.$/),
      'print will run: apt-get update -qq && apt-get install -y -qq chromium fonts-noto-cjk',
      'run apt-get update -qq',
      'run apt-get install -y -qq chromium fonts-noto-cjk',
    ]);
  });

  it('without root: installs nothing, names the packages and the command to run', () => {
    const { events, error } = record(['libkrb5-dev'], false);
    expect(events.filter((e) => e.startsWith('run '))).toEqual([]);
    expect(events[0]).toMatch(/^print System packages to install: libkrb5-dev/);
    expect(error).toContain('sudo apt-get update -qq && sudo apt-get install -y -qq libkrb5-dev');
  });

  it('nothing missing: says so and runs nothing', () => {
    const { events } = record([], true);
    expect(events).toEqual([`print System packages: ${names.join(', ')} are installed; nothing to install.`]);
    expect(systemPackagesPlan([], { root: false }).error).toBeUndefined();
  });
});

describe("the try script's first screen", () => {
  const read = (p: string) => readFileSync(resolve(__dirname, '../..', p), 'utf8');
  const pkg = JSON.parse(read('package.json'));

  it('npm run try is run.mjs --try, which turns the CodeLens on and installs the first-screen extension', () => {
    expect(pkg.scripts.try).toBe('node test/e2e/run.mjs --try');
    const run = read('test/e2e/run.mjs');
    expect(run).toMatch(/opt\.try \? \{ \.\.\.USER_SETTINGS, 'editor\.codeLens': true \}/);
    expect(run).toContain("path.join(HERE, 'try')");
  });

  it('the first-screen extension opens this walkthrough, then the sample its first button opens', () => {
    const walkthrough = `${pkg.publisher}.${pkg.name}#${pkg.contributes.walkthroughs[0].id}`;
    const source = read('test/e2e/try/extension.js');
    const opens = [...source.matchAll(/executeCommand\(([^)]*)\)/g)].map((m) => m[1]);
    expect(opens).toEqual([`'workbench.action.openWalkthrough', '${walkthrough}', false`, "'dataplane.openSamples', 'iptables-nft'"]);
    const first = pkg.contributes.walkthroughs[0].steps[0];
    expect(JSON.parse(read('package.nls.json'))[first.description.slice(1, -1)]).toContain('dataplane.openSamples?%5B%22iptables-nft%22%5D');
    expect(JSON.parse(read('test/e2e/try/package.json')).extensionDependencies).toEqual([`${pkg.publisher}.${pkg.name}`]);
  });
});
