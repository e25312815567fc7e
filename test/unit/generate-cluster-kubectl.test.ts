// kubectl judges the generator's cluster-state files: `kubectl annotate --local -f FILE x=y -o yaml|json` decodes
// every object with kubectl's own scheme and prints it back as `kubectl get` does, offline (no API server).
// Apart from the annotation it adds, what it prints must be byte for byte what the generator wrote: the
// samples, and a dual-stack cluster with every drift (hints, placeholder slices, LoadBalancers, headless).
// Skipped when kubectl is not on PATH.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { randomCluster } from '../../tools/generate/cluster';
import { clusterStateFiles, kubectlJson, kubectlYaml } from '../../tools/generate/cluster-objects';
import { DRIFT_KINDS, scenario } from '../../tools/generate/drift';
import { sampleFiles } from '../../tools/generate/samples';

const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'kubectl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What kubectl prints for the file's objects, without the annotation it was asked to add. */
function reprinted(file: string, output: 'yaml' | 'json'): string {
  const r = spawnSync('kubectl', ['annotate', '--local', '-f', file, 'generated-check=1', '-o', output], { encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  if (output === 'yaml') return r.stdout.replace(/\n {2}annotations:\n {4}generated-check: "1"\n(?! {4})/g, '\n').replace(/\n {4}generated-check: "1"\n/g, '\n');
  // JSON: the objects one after the other; drop the annotation and print each again (keys in kubectl's order).
  const all = JSON.parse(`[${r.stdout.replace(/\n\}\n\{/g, '\n},\n{')}]`) as { metadata: { annotations?: Record<string, string> } }[];
  for (const o of all) {
    delete o.metadata.annotations!['generated-check'];
    if (Object.keys(o.metadata.annotations!).length === 0) delete o.metadata.annotations;
  }
  return all.map((o) => kubectlJson(o as never)).join('');
}

/** The file's objects one by one, as the generator prints each. */
function objects(text: string, output: 'yaml' | 'json'): string {
  const docs = parseAllDocuments(text);
  const all = (Array.isArray(docs) ? docs : [docs]).map((d) => d.toJS()).flatMap((o) => (o.kind === 'List' ? o.items : [o]));
  return output === 'yaml' ? all.map(kubectlYaml).join('---\n') : all.map(kubectlJson).join('');
}

describe.skipIf(!hasKubectl)('kubectl reads the cluster state back unchanged', () => {
  const dual = scenario(randomCluster({ services: 80, endpoints: 4, seed: 7, family: 'ipv6', nodeIP: 'fd00::10', mode: 'nftables', dualStack: { otherNodeIP: '192.168.0.10' } }), {
    node: 'node-1',
    family: 'ipv6',
    mode: 'nftables',
    drifts: DRIFT_KINDS,
  });
  const cases: [string, string][] = [
    ['samples/ipvs/cluster-state.yaml', sampleFiles()['ipvs/cluster-state.yaml']!],
    ['dual-stack cluster-state.yaml', clusterStateFiles(dual.cluster, 'yaml')['cluster-state.yaml']!],
    ...Object.entries(clusterStateFiles(dual.cluster, 'json')).map(([name, text]): [string, string] => [`dual-stack ${name}`, text]),
  ];
  for (const [name, text] of cases) {
    it(name, () => {
      const output = name.endsWith('.json') ? 'json' : 'yaml';
      const file = join(dir, name.replace(/[ /]/g, '_'));
      writeFileSync(file, text);
      const got = reprinted(file, output);
      const want = objects(text, output);
      expect(got).toBe(want);
    });
  }
});
