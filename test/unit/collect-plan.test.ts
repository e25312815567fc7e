// What "Capture Node Snapshot…" and `dataplane collect` run: program and arguments built from the user's picks
// (never a shell line), the debug pod's deletion, --cluster's kubectl calls, and the guards on names that come
// from kubectl's own output. package.json: the command and its program settings are off in Restricted Mode.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { captureFolderName, clusterInvocations, contextsInvocations, debugPodCleanup, nameLines, nodesInvocation, plainName, scriptInvocation } from '../../src/core/collect/plan';
import { COLLECT_SCRIPT } from '../../src/core/collect/stream';

const PROGRAMS = { kubectl: '/opt/bin/kubectl', ssh: '/usr/bin/ssh' };
const MARKER = '@@dpx-0123456789abcdef@@';

describe('collect plan', () => {
  it('kubectl node: one kubectl debug with the script as the last argument, context and image passed', () => {
    const { invocation, via } = scriptInvocation({ target: { kind: 'kubectl', node: 'kind-worker', context: 'kind-kind', image: 'busybox:1.36' } }, PROGRAMS, MARKER);
    expect(via).toBe('kubectl debug node/kind-worker');
    expect(invocation.program).toBe('/opt/bin/kubectl');
    expect(invocation.argv.slice(0, -1)).toEqual([
      '--context',
      'kind-kind',
      '-n',
      'default',
      'debug',
      'node/kind-worker',
      '--profile=sysadmin',
      '--image=busybox:1.36',
      '--attach=true',
      '--',
      'chroot',
      '/host',
      'sh',
      '-c',
    ]);
    expect(invocation.argv.at(-1)).toContain(COLLECT_SCRIPT);
    expect(invocation.argv.at(-1)).toContain(`DPX_B='${MARKER}'`);
    expect(invocation.argv.at(-1)).toContain('DPX_QUIET=1');
    expect(invocation.input).toBeUndefined();
  });

  it('kubectl node without a context: the current one, default image, namespace default', () => {
    const { invocation } = scriptInvocation({ target: { kind: 'kubectl', node: 'n1' } }, PROGRAMS, MARKER);
    expect(invocation.argv.slice(0, 6)).toEqual(['-n', 'default', 'debug', 'node/n1', '--profile=sysadmin', '--image=busybox']);
  });

  it('ssh: batch mode, the script on standard input; local: sh -s', () => {
    const ssh = scriptInvocation({ target: { kind: 'ssh', host: 'root@10.0.0.5' }, conntrack: true }, PROGRAMS, MARKER);
    expect(ssh.invocation).toMatchObject({ program: '/usr/bin/ssh', argv: ['-o', 'BatchMode=yes', '-T', 'root@10.0.0.5', 'sh', '-s'] });
    expect(ssh.invocation.input).toContain('DPX_CONNTRACK=1');
    expect(ssh.via).toBe('ssh root@10.0.0.5');
    const local = scriptInvocation({ target: { kind: 'local' } }, PROGRAMS, MARKER);
    expect(local.invocation).toMatchObject({ program: 'sh', argv: ['-s'] });
    expect(local.invocation.input).toContain('DPX_CONNTRACK=0');
  });

  it('the debug pod kubectl named is deleted in its namespace and context; nothing for ssh or an unnamed pod', () => {
    const req = { target: { kind: 'kubectl' as const, node: 'n1', context: 'prod', namespace: 'debug' } };
    const said = 'Creating debugging pod node-debugger-n1-x7k2p with container debugger on node n1.\n';
    expect(debugPodCleanup(req, PROGRAMS, said)).toEqual({
      pod: 'node-debugger-n1-x7k2p',
      invocation: { program: '/opt/bin/kubectl', argv: ['--context', 'prod', '-n', 'debug', 'delete', 'pod', 'node-debugger-n1-x7k2p', '--wait=false'] },
    });
    expect(debugPodCleanup(req, PROGRAMS, 'error: nodes "n1" not found')).toEqual({});
    expect(debugPodCleanup({ target: { kind: 'ssh', host: 'h' } }, PROGRAMS, said)).toEqual({});
  });

  it('--cluster: the API objects from the target context (or the given one); none without --cluster', () => {
    const kube = clusterInvocations({ target: { kind: 'kubectl', node: 'n1', context: 'prod' }, cluster: true }, PROGRAMS);
    expect(kube.map((c) => [c.path, c.invocation.argv.join(' ')])).toEqual([
      ['cluster-state.json', '--context prod get services,endpointslices,nodes -A -o json'],
      ['kube-proxy-configmap.yaml', '--context prod -n kube-system get configmap kube-proxy -o yaml'],
    ]);
    expect(clusterInvocations({ target: { kind: 'ssh', host: 'h' }, cluster: true, context: 'c2' }, PROGRAMS)[0].invocation.argv.slice(0, 2)).toEqual(['--context', 'c2']);
    expect(clusterInvocations({ target: { kind: 'local' } }, PROGRAMS)).toEqual([]);
  });

  it('contexts and nodes: the listing commands, and only plain names from their output', () => {
    expect(contextsInvocations(PROGRAMS).list.argv).toEqual(['config', 'get-contexts', '-o', 'name']);
    expect(contextsInvocations(PROGRAMS).current.argv).toEqual(['config', 'current-context']);
    expect(nodesInvocation(PROGRAMS, 'kind-kind')).toEqual({ program: '/opt/bin/kubectl', argv: ['--context', 'kind-kind', 'get', 'nodes', '-o', 'name'] });
    // A name that would read as an option, or carries blanks, is dropped, never passed on.
    expect(nameLines('node/kind-control-plane\nnode/kind-worker\r\n\nnode/--kubeconfig=/tmp/x\nnode/a b\nnode/kind-worker\n')).toEqual(['kind-control-plane', 'kind-worker']);
    expect(['prod', 'arn:aws:eks:eu-west-1:1:cluster/x', 'user@host'].every(plainName)).toBe(true);
    expect(['', '-oProxyCommand=x', 'a b', 'a\nb'].some(plainName)).toBe(false);
  });

  it('the folder name: node or host and the UTC time, one path segment', () => {
    const at = new Date('2026-12-07T16:05:09.123Z');
    expect(captureFolderName({ kind: 'kubectl', node: 'ip-10-0-1-5.ec2.internal' }, at)).toBe('ip-10-0-1-5.ec2.internal-20261207T160509Z');
    expect(captureFolderName({ kind: 'ssh', host: 'root@node-1' }, at)).toBe('node-1-20261207T160509Z');
    expect(captureFolderName({ kind: 'ssh', host: '../x/y' }, at)).toBe('.._x_y-20261207T160509Z');
    expect(captureFolderName({ kind: 'local' }, at)).toBe('local-20261207T160509Z');
    expect(captureFolderName({ kind: 'kubectl', node: 'prod-db-1' }, at, true)).toBe('anonymized-20261207T160509Z');
  });
});

describe('Capture Node Snapshot in package.json', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  it('is disabled in untrusted workspaces, and its program paths are restricted settings', () => {
    const cmd = pkg.contributes.commands.find((c: { command: string }) => c.command === 'dataplane.captureNodeSnapshot');
    expect(cmd.enablement).toBe('isWorkspaceTrusted');
    expect(pkg.contributes.menus.commandPalette).toContainEqual({ command: 'dataplane.captureNodeSnapshot', when: 'isWorkspaceTrusted' });
    expect(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations).toEqual(expect.arrayContaining(['dataplane.capture.kubectlPath', 'dataplane.capture.sshPath']));
    const props = pkg.contributes.configuration.properties ?? pkg.contributes.configuration[0]?.properties;
    expect(props['dataplane.capture.kubectlPath']).toMatchObject({ type: 'string', default: 'kubectl' });
    expect(props['dataplane.capture.sshPath']).toMatchObject({ type: 'string', default: 'ssh' });
  });
});
