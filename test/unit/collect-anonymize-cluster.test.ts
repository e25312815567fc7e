// --anonymize with --cluster: the bundled samples' dumps and their cluster state (kubectl's YAML, and the same
// objects as kubectl's JSON, which `collect --cluster` saves) rewritten by one Anonymizer. The cluster check of
// the anonymized snapshot finds the same drift (codes, severities, frontends, summary, the node inferred alike),
// and no original address, Service, namespace, node, pod or zone name is left in any file.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { anonymizeSnapshot } from '../../src/core/collect/anonymize-snapshot';
import type { CollectedFile, SnapshotManifest } from '../../src/core/collect/files';
import { checkSnapshot } from '../../src/core/cluster/check';
import { readClusterFile } from '../../src/core/cluster/read';
import { formatAddress, parseAddress } from '../../src/core/model/address';
import { analyzeFile, buildSnapshot, type SnapshotFile } from '../../src/core/snapshot';
import { SAMPLES } from '../helpers/cluster-snapshot';

const MANIFEST: SnapshotManifest = {
  format: 'dataplane-snapshot/1',
  node: 'node1',
  kernel: null,
  time: null,
  via: 'kubectl debug node/node1',
  complete: true,
  kubeProxyMode: null,
  commands: [],
  tools: {},
  missing: [],
  anonymized: false,
};
const KEY = new Uint8Array(32).fill(7);
const CLUSTER = /^cluster-state\.(yaml|json)$/;

function check(files: CollectedFile[]) {
  const dumps = files
    .filter((f) => !CLUSTER.test(f.path))
    .map((f) => analyzeFile(f.path, f.text))
    .filter((f): f is SnapshotFile => f !== undefined);
  const state = files.find((f) => CLUSTER.test(f.path))!;
  const result = checkSnapshot(buildSnapshot(dumps), readClusterFile(state.path, state.text));
  return {
    node: result.node.inferredFrom ?? null,
    mode: result.mode,
    summary: result.summary,
    findings: result.findings.map((f) => `${f.code} ${f.severity} ${f.service.protocol} ${f.frontend?.kind ?? '-'} ${f.endpoint ? 'ep' : '-'} ${f.evidence.length}`).sort(),
  };
}

const V4 = /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w.])/g;
function addresses(text: string): Set<string> {
  const kept = /^(0|127|22[4-9]|2[3-5]\d)\.|^169\.254\./;
  return new Set(
    [...text.matchAll(V4)]
      .map((m) => parseAddress(m[0]))
      .filter((a) => a !== undefined)
      .map(formatAddress)
      .filter((a) => !kept.test(a)),
  );
}

/** Names of the API objects (and their namespaces, nodes, pods, zones) that say something about the site. */
function names(yamlText: string): Set<string> {
  const kept = new Set(['default', 'kube-system', 'kubernetes', 'kube-dns', 'Pod', 'kube-proxy']);
  const out = new Set<string>();
  // Port names stay (kube-proxy's chain names hash them with the Service's).
  const walk = (v: unknown, key = ''): void => {
    if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v))
        if (k !== 'ports') walk(x, k);
        else if (typeof v === 'string' && v !== '' && ['name', 'namespace', 'nodeName', 'zone', 'kubernetes.io/service-name', 'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'app'].includes(key) && !kept.has(v))
          out.add(v);
  };
  for (const d of parseAllDocuments(yamlText)) walk(d.toJS());
  return out;
}

/** kubectl's JSON of the same objects: one List (the YAML has the ConfigMap as a second document). */
function asJsonList(yamlText: string): string {
  const items = parseAllDocuments(yamlText).flatMap((d) => {
    const o = d.toJS() as { kind?: string; items?: unknown[] };
    return o.kind === 'List' ? (o.items ?? []) : [o];
  });
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 4);
}

const FOLDERS = readdirSync(SAMPLES).filter((d) => !d.includes('.'));

describe('collect --anonymize --cluster', () => {
  for (const folder of FOLDERS) {
    for (const format of ['yaml', 'json'] as const) {
      it(`${folder}, cluster state as ${format}: the same check result, no original address or name`, () => {
        const dir = join(SAMPLES, folder);
        const yamlText = readFileSync(join(dir, 'cluster-state.yaml'), 'utf8');
        const state = format === 'yaml' ? yamlText : asJsonList(yamlText);
        const files: CollectedFile[] = [
          ...readdirSync(dir)
            .filter((n) => n !== 'cluster-state.yaml')
            .map((n) => ({ path: n, text: readFileSync(join(dir, n), 'utf8') })),
          { path: `cluster-state.${format}`, text: state },
        ];
        const before = check(files);
        expect(before.findings.length).toBeGreaterThan(0);
        const { files: out } = anonymizeSnapshot(files, MANIFEST, KEY);
        expect(check(out)).toEqual(before);
        const all = out.map((f) => f.text).join('\n');
        const original = addresses(files.map((f) => f.text).join('\n'));
        expect(original.size).toBeGreaterThan(5);
        expect([...original].filter((a) => addresses(all).has(a))).toEqual([]);
        const leaked = [...names(yamlText)].filter((n) => new RegExp(`(?<![\\w-])${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(all));
        expect(leaked).toEqual([]);
        // Nothing the check does not read that could name the site.
        expect(all).not.toMatch(/\buid\b|resourceVersion|creationTimestamp|managedFields/);
      });
    }
  }
});
