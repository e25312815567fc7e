// Explain This Node's "Cluster state" section: the node and how it was inferred, how many Service ports match, the
// counts per severity and the worst findings with their Service, reason and evidence links (dump lines quoted from
// the dump, cluster-file objects by file and line), for a sample with its cluster-state.yaml and the generator's
// drifts; no section without a cluster state.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explainNode } from '../../src/core/explain/node';
import { MAX_CLUSTER_FINDINGS } from '../../src/core/explain/node-cluster';
import { parseToWebview, toView } from '../../src/core/explain/node-protocol';
import { driftSnapshot, sampleSnapshot } from '../helpers/cluster-snapshot';

const sectionOf = (e: ReturnType<typeof explainNode>) => e.sections.find((s) => s.id === 'cluster');

describe('Explain This Node: Cluster state', () => {
  it('the sample: node1 inferred from its local endpoints, 5 of 6 ports match, the worst findings with evidence', () => {
    const snapshot = sampleSnapshot('iptables-legacy');
    const texts = snapshot.files.map((f) => readFileSync(f.name, 'utf8'));
    const e = explainNode(snapshot, texts);
    const s = sectionOf(e)!;
    expect(s.title).toBe('Cluster state');
    expect(s.items[0]).toMatchObject({ kind: 'claim', text: expect.stringMatching(/^This dump is node `node1`, inferred from the endpoints the rules mark local: .*node1/) });
    const summary = snapshot.cluster!.check.summary;
    expect(s.items[1].text).toBe(`${summary.programmed - 1} of the ${summary.servicePorts} Service ports the API has for this node are programmed as it asks; ${summary.programmed} are programmed at all.`);
    expect(Object.fromEntries(s.facts.map((f) => [f.label, f.value]))).toMatchObject({ 'Cluster-state files': 'cluster-state.yaml', Errors: '2', Warnings: '0', Information: String(summary.findings.info) });
    // Worst first: the errors (not programmed, stale endpoint), each naming its Service, code, reason.
    const [np, stale] = s.items.slice(2);
    expect(np).toMatchObject({ kind: 'warning', text: expect.stringMatching(/^`shop\/checkout:http` TCP `not-programmed` \(error\): .* Why: Service shop\/checkout/) });
    expect(stale.text).toMatch(/^`shop\/web:http` TCP `stale-endpoint` \(error\): .*10\.244\.3\.9:8080.* Why: not ready in the API/);
    // The stale endpoint's evidence: the dump's DNAT line, quoted from the text, and the endpoint in the cluster file.
    const dumpLine = stale.evidence.find((x) => x.fileIndex >= 0)!;
    expect(dumpLine.quote).toContain('10.244.3.9:8080');
    expect(texts[dumpLine.fileIndex].split('\n')[dumpLine.range.start.line]).toContain('10.244.3.9');
    const apiObject = stale.evidence.find((x) => x.fileIndex < 0)!;
    expect(apiObject).toMatchObject({ clusterFile: 0, file: 'cluster-state.yaml', path: snapshot.cluster!.files[0] });
    expect(readFileSync(apiObject.path!, 'utf8').split('\n')[apiObject.range.start.line]).toMatch(/10\.244\.3\.9|addresses/);
    // Every evidence id is the explanation's, and the view passes the webview's check.
    for (const item of s.items) for (const x of item.evidence) expect(e.evidence[x.id]).toBe(x);
    expect(parseToWebview({ type: 'explain', title: 't', strings: { refresh: '', files: '', reveal: '', pro: '', con: '', warning: '' }, view: toView(e) })).toBeDefined();
  });

  it("the generator's drifts: at most the worst findings, the rest counted", () => {
    const { snapshot } = driftSnapshot('nftables', 'ipv6', 10);
    const s = sectionOf(explainNode(snapshot))!;
    const findings = snapshot.cluster!.check.findings;
    expect(findings.length).toBeGreaterThan(MAX_CLUSTER_FINDINGS);
    const listed = s.items.filter((i) => / `[a-z-]+` \((error|warning|info)\): /.test(i.text));
    expect(listed).toHaveLength(MAX_CLUSTER_FINDINGS);
    expect(listed.map((i) => /`([a-z-]+)` \(/.exec(i.text)![1])).toEqual(findings.slice(0, MAX_CLUSTER_FINDINGS).map((f) => f.code));
    expect(s.items.at(-1)!.text).toBe(`${findings.length - MAX_CLUSTER_FINDINGS} more findings: see Problems, or run \`dataplane check\`.`);
    expect(s.items[1].kind).toBe('warning');
  });

  it('no cluster state, no section', () => {
    const snapshot = sampleSnapshot('nftables');
    expect(sectionOf(explainNode({ ...snapshot, cluster: undefined }))).toBeUndefined();
  });
});
