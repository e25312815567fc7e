import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const read = (name: string) => JSON.parse(readFileSync(resolve(__dirname, '../..', name), 'utf8'));
const pkg = read('package.json');

/** Settings that bound the work done on the extension host: a repository must not be able to raise them. */
const HOST_WORK = ['dataplane.maxDocumentSize', 'dataplane.workerThreshold'];
/** Programs Capture Node Snapshot runs: a repository must never choose them. */
const PROGRAMS = ['dataplane.capture.kubectlPath', 'dataplane.capture.sshPath'];
/**
 * Settings a repository may set in Restricted Mode: display choices, a delay that the schema caps and the code
 * clamps (10 s), and the node's addresses (data about the dumps, checked as addresses when read).
 */
const WORKSPACE_SAFE = ['dataplane.graph.codeLens', 'dataplane.reportUnreferencedChains', 'dataplane.reanalyzeDelay', 'dataplane.nodeIPs'];

describe('package.json: untrusted workspaces', () => {
  const trust = pkg.capabilities.untrustedWorkspaces;

  it('restricts the settings that bound host work, so Restricted Mode ignores a repository’s values', () => {
    expect(trust.supported).toBe('limited');
    expect([...trust.restrictedConfigurations].sort()).toEqual([...HOST_WORK, ...PROGRAMS].sort());
  });

  it('has decided for every setting whether a repository may set it', () => {
    const settings = Object.keys(pkg.contributes.configuration.properties).sort();
    expect(settings).toEqual([...HOST_WORK, ...PROGRAMS, ...WORKSPACE_SAFE].sort());
  });

  it('tells the user, in every language, what Restricted Mode changes', () => {
    const key = /^%(.+)%$/.exec(trust.description)?.[1];
    expect(key).toBeDefined();
    for (const nls of ['package.nls.json', 'package.nls.zh-cn.json']) {
      const text: string = read(nls)[key!];
      for (const setting of HOST_WORK) expect(text).toContain(setting);
    }
  });
});
