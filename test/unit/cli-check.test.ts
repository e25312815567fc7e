// `dataplane check`: the JSON shape of the issue, the exit status, the text report grouped by Service worst first,
// and a bad cluster file that gets diagnostics with line and column and still a report.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main';
import { generateIptablesDump, type GenServicePort } from '../../tools/generate/iptables';
import { generateIpvsSnapshot } from '../../tools/generate/ipvs';
import { clusterListOf, NODE_IP, webPort } from '../helpers/cluster-check';

function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = run(
    args,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const web = (over: Partial<GenServicePort> = {}) => webPort({ nodePort: 30080, externalTrafficPolicy: 'Local', ...over });
const api = web({ name: 'api', clusterIP: '10.96.0.21', nodePort: undefined, externalTrafficPolicy: undefined, endpoints: [{ address: '10.244.2.9', port: 9000 }] });
const empty = web({ name: 'idle', clusterIP: '10.96.0.22', nodePort: undefined, externalTrafficPolicy: undefined, endpoints: [] });

const dir = mkdtempSync(join(tmpdir(), 'dataplane-check-'));
const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};
const dump = write('node.iptables', generateIptablesDump({ services: [web(), api, empty], style: 'iptables-nft-save' }));
const same = write('cluster.json', JSON.stringify(clusterListOf([web(), api, empty])));
// The API: api gained an endpoint the rules lack; web lost the one on node-2.
const drifted = write('drifted.json', JSON.stringify(clusterListOf([web({ endpoints: [web().endpoints[0]] }), { ...api, endpoints: [...api.endpoints, { address: '10.244.3.3', port: 9000 }] }, empty])));

describe('dataplane check', () => {
  it('--json: the shape of the issue, exit 0 with no drift', () => {
    const r = cli('check', dump, '--cluster', same, '--json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(Object.keys(json)).toEqual(['node', 'mode', 'findings', 'summary']);
    expect(json.node).toEqual({ name: 'node-1', inferredFrom: 'local-endpoints' });
    expect(json.mode).toBe('iptables');
    expect(json.summary).toEqual({ servicePorts: 3, programmed: 3, findings: { error: 0, warning: 0, info: 1 } });
    expect(json.findings).toEqual([
      {
        code: 'no-endpoints',
        severity: 'info',
        service: { namespace: 'shop', name: 'idle', portName: 'http', protocol: 'TCP' },
        expected: expect.any(String),
        actual: expect.any(String),
        reason: expect.any(String),
        message: expect.any(String),
        evidence: [
          { file: dump, line: expect.any(Number) },
          { file: same, line: expect.any(Number) },
        ],
      },
    ]);
    expect(r.err).toContain('node-1');
  });

  it('exit 1 on an error finding; endpoint and evidence lines point at the rule and the object', () => {
    const r = cli('check', dump, '--cluster', drifted, '--json', '--node', 'node-1');
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out);
    expect(json.node).toEqual({ name: 'node-1' });
    const brief = json.findings.map((f: { code: string; service: { name: string }; endpoint?: string }) => `${f.code} ${f.service.name} ${f.endpoint ?? ''}`);
    expect(brief).toEqual(['missing-endpoint api 10.244.3.3:9000', 'stale-endpoint web 10.244.2.6:8080', 'no-endpoints idle ']);
    const stale = json.findings[1];
    expect(stale.evidence[0].file).toBe(dump);
    const lines = generateIptablesDump({ services: [web(), api, empty], style: 'iptables-nft-save' }).split('\n');
    expect(lines[stale.evidence[0].line - 1]).toMatch(/KUBE-SEP/);
  });

  it('text: grouped by Service, worst first, with the counts', () => {
    const r = cli('check', dump, '--cluster', drifted, '--node', 'node-1');
    expect(r.code).toBe(1);
    const heads = r.out.split('\n').filter((l) => /^\S/.test(l));
    expect(heads).toEqual(['node: node-1 (given)', 'kube-proxy mode: iptables', 'shop/api', 'shop/web', 'shop/idle', '3 service ports expected, 3 programmed; 2 errors, 0 warnings, 1 info']);
    expect(r.out).toContain('  error   missing-endpoint  shop/api:http TCP  10.244.3.3:9000');
    expect(r.out).toMatch(/why: ready in the API/);
  });

  it('a bad cluster file: diagnostics with file:line:column, and still a report from the good one', () => {
    const bad = write('bad.yaml', 'apiVersion: v1\nkind: List\nitems:\n\t- kind: Service\n');
    const r = cli('check', dump, '--cluster', same, '--cluster', bad, '--json');
    expect(r.err).toMatch(new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: error `));
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).summary.programmed).toBe(3);
  });

  it('a truncated cluster file alone: a diagnostic, and every Service is stale', () => {
    const cut = write('cut.json', JSON.stringify(clusterListOf([web()])).slice(0, 40));
    const r = cli('check', dump, '--cluster', cut, '--json');
    expect(r.err).toMatch(/cut\.json:1:\d+: error/);
    expect(JSON.parse(r.out).findings.filter((f: { code: string }) => f.code === 'stale-service')).toHaveLength(3);
  });

  it('a cluster file among the FILEs is read as one; the node from the folder name', () => {
    const folder = join(dir, 'node-2');
    mkdirSync(folder, { recursive: true });
    const inFolder = join(folder, 'rules.txt');
    writeFileSync(inFolder, generateIptablesDump({ services: [api], style: 'iptables-nft-save' }));
    const r = cli('check', inFolder, same, '--json');
    const json = JSON.parse(r.out);
    expect(json.node).toEqual({ name: 'node-2', inferredFrom: 'folder' });
  });

  it('IPVS: the node from its NodePort virtual services', () => {
    const snap = generateIpvsSnapshot({ services: [web(), api, empty], nodeIPs: [NODE_IP.ipv4] });
    const files = [write('n.ipvs', snap['ipvsadm-list']), write('n.ipset', snap['ipset-save']), write('n.iptables', snap['iptables-save'])];
    const r = cli('check', ...files, '--cluster', same, '--json');
    const json = JSON.parse(r.out);
    expect(json.node).toEqual({ name: 'node-1', inferredFrom: 'address' });
    expect(json.mode).toBe('ipvs');
    expect(r.code).toBe(0);
  });

  it('usage: --cluster is needed, --node must name a node of the cluster state', () => {
    expect(cli('check', dump).code).toBe(2);
    const r = cli('check', dump, '--cluster', same, '--node', 'node-9');
    expect(r.code).toBe(2);
    expect(r.err).toContain('node-9');
    expect(r.err).toContain('node-1, node-2');
    expect(cli('services', dump, '--cluster', same).code).toBe(2);
  });

  it('--help lists check', () => {
    expect(cli('--help').out).toContain('dataplane check FILE… --cluster FILE');
  });
});
