// "Dataplane Explorer: Capture Node Snapshot…" from the palette, against a stand-in kubectl and ssh
// (fixtures/stand-in-bin/: check every argument the way test/kernel/collect.test.ts's stand-ins do, log each
// call, exit 9 on anything else). The workspace settings dataplane.capture.kubectlPath / sshPath point the
// extension at them; nothing else of code-server changes. As root with `ip netns`, the debug call runs the real collector
// inside a throw-away namespace loaded with node1.txt's kube-proxy rules (iptables-nft-restore); otherwise it
// prints a canned collect stream around node1.txt. Either way the root namespace's firewall is never read.
// Restricted Mode is not checked here: run.mjs starts code-server with --disable-workspace-trust, so an untrusted
// window would need a second server (the command's `enablement`/`when` is isWorkspaceTrusted in package.json).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const CONTEXT = 'kind-e2e';
const NODE = 'e2e-worker';

/**
 * A namespace holding node1.txt's rules, or undefined (not root, no ip/iptables-nft-restore, or
 * DATAPLANE_E2E_CANNED_COLLECT=1 to exercise the other path: the canned stream).
 */
function makeNamespace(name, dump, log) {
  if (process.getuid?.() !== 0 || process.env.DATAPLANE_E2E_CANNED_COLLECT === '1') return undefined;
  const add = spawnSync('ip', ['netns', 'add', name], { encoding: 'utf8' });
  if (add.status !== 0) {
    log(`  no namespace (${(add.stderr || add.error?.message || '').trim()}): canned collect stream`);
    return undefined;
  }
  const load = spawnSync('ip', ['netns', 'exec', name, 'iptables-nft-restore'], { input: readFileSync(dump), encoding: 'utf8' });
  if (load.status !== 0) {
    log(`  iptables-nft-restore failed in ${name} (${(load.stderr || load.error?.message || '').trim()}): canned collect stream`);
    spawnSync('ip', ['netns', 'del', name]);
    return undefined;
  }
  return name;
}

/** Adds `values` to the workspace settings; returns a function that puts the file back as it was. */
function withWorkspaceSettings(workspace, values) {
  const file = path.join(workspace, '.vscode', 'settings.json');
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ ...(before ? JSON.parse(before) : {}), ...values }, null, 2));
  return () => (before === undefined ? rmSync(file, { force: true }) : writeFileSync(file, before));
}

/** Opens the command; retries (Escape, run again) until the picker lists the stand-in's context, i.e. the setting is read. */
async function openCaptureWithStandIn(page, vscode) {
  await vscode.poll(
    async () => {
      await vscode.resetUi(page);
      await vscode.runCommand(page, 'Dataplane Explorer: Capture Node Snapshot');
      return vscode
        .poll(async () => (await vscode.quickInputRows(page)).some((r) => r.includes(CONTEXT)), { timeout: 8_000, what: `${CONTEXT} in the picker` })
        .then(() => true)
        .catch(() => false);
    },
    { timeout: 45_000, interval: 0, what: `the stand-in's context ${CONTEXT} in the capture picker (dataplane.capture.kubectlPath read)` },
  );
}

/**
 * Runs `capture(standIn)` with the stand-ins set up (settings, stand-in.env, namespace) and removes all of it,
 * and the snapshot folders, afterwards. standIn: { callLog, calls(), snapshot(prefix) }.
 */
async function withStandIns({ page, vscode, workspace, log }, capture) {
  const bin = path.join(workspace, 'stand-in-bin');
  const env = path.join(bin, 'stand-in.env');
  const callLog = path.join(bin, 'calls.log');
  const snapshots = path.join(workspace, 'dataplane-snapshots');
  const hadSnapshots = existsSync(snapshots);
  const made = [];
  const ns = makeNamespace(`dpe2e-${process.pid}-capture`, path.join(workspace, 'node1.txt'), log);
  let restoreSettings;
  try {
    log(`  collector: ${ns ? `real collect script in namespace ${ns}` : 'canned collect stream'}`);
    for (const p of ['kubectl', 'ssh']) chmodSync(path.join(bin, p), 0o755);
    writeFileSync(env, `STANDIN_LOG='${callLog}'\nSTANDIN_NS='${ns ?? ''}'\nSTANDIN_DUMP='${path.join(workspace, 'node1.txt')}'\n`);
    writeFileSync(callLog, '');
    restoreSettings = withWorkspaceSettings(workspace, { 'dataplane.capture.kubectlPath': path.join(bin, 'kubectl'), 'dataplane.capture.sshPath': path.join(bin, 'ssh') });
    const calls = () => {
      const lines = readFileSync(callLog, 'utf8').trim().split('\n');
      const bad = lines.filter((c) => c.startsWith('unexpected'));
      if (bad.length) throw new Error(`a stand-in saw unexpected calls: ${bad.join(' | ')}`);
      return lines;
    };
    const snapshot = async (prefix) => {
      const folder = await vscode.poll(
        () => {
          const name = existsSync(snapshots) ? readdirSync(snapshots).find((n) => new RegExp(`^${prefix}-\\d{8}T\\d{6}Z$`).test(n)) : undefined;
          return name && existsSync(path.join(snapshots, name, 'snapshot.json')) ? path.join(snapshots, name) : undefined;
        },
        { timeout: 60_000, what: `dataplane-snapshots/${prefix}-<time>/snapshot.json` },
      );
      made.push(folder);
      log(`  ${path.basename(folder)}: ${readdirSync(folder).join(', ')}`);
      return folder;
    };
    await openCaptureWithStandIn(page, vscode);
    await capture({ calls, snapshot });
  } finally {
    await vscode.runCommand(page, 'View: Close All Editors').catch(() => {});
    restoreSettings?.();
    for (const f of made) rmSync(f, { recursive: true, force: true });
    if (!hadSnapshots) rmSync(snapshots, { recursive: true, force: true });
    rmSync(env, { force: true });
    rmSync(callLog, { force: true });
    if (ns) spawnSync('ip', ['netns', 'del', ns]);
  }
}

/** The snapshot's first dump (iptables-nft.iptables, node1.txt's rules) is in front, in the iptables language. */
async function firstDumpOpen(page, vscode, folder) {
  if (!readFileSync(path.join(folder, 'iptables-nft.iptables'), 'utf8').includes('KUBE-SVC-XPGD46QRK7WJZT7O')) throw new Error("iptables-nft.iptables lacks node1.txt's ns1/svc1 chain");
  await vscode.poll(async () => (await vscode.activeTab(page))?.startsWith('iptables-nft.iptables'), { what: 'iptables-nft.iptables in the active tab' });
  await vscode.poll(async () => (await vscode.statusItem(page, 'status.editor.mode'))?.toLowerCase() === 'iptables', { what: 'language mode iptables' });
}

function manifestSays(folder, via) {
  const manifest = JSON.parse(readFileSync(path.join(folder, 'snapshot.json'), 'utf8'));
  if (manifest.via !== via || manifest.complete !== true) throw new Error(`snapshot.json: via ${manifest.via}, complete ${manifest.complete}; expected ${via}, complete`);
}

export default [
  {
    name: 'Capture Node Snapshot: context, node, options → a snapshot folder, its first dump open, the debug pod deleted',
    timeout: 150_000,
    run: (ctx) =>
      withStandIns(ctx, async ({ calls, snapshot }) => {
        const { page, vscode } = ctx;
        await vscode.chooseInQuickInput(page, CONTEXT);
        await vscode.chooseInQuickInput(page, NODE, { what: `node ${NODE} in the node picker` });
        // The options picker (Cluster state ticked): accepted as offered.
        await vscode.acceptQuickInputWhenShown(page, 'Cluster state', 'the options picker');
        const folder = await snapshot(NODE);
        const files = readdirSync(folder);
        for (const f of ['iptables-nft.iptables', 'cluster-state.json', 'kube-proxy-configmap.yaml']) if (!files.includes(f)) throw new Error(`the snapshot has no ${f}: ${files.join(', ')}`);
        manifestSays(folder, `kubectl debug node/${NODE}`);
        await firstDumpOpen(page, vscode, folder);
        const all = calls();
        const del = `--context ${CONTEXT} -n default delete pod node-debugger-${NODE}-e2e01 --wait=false`;
        if (!all.includes(del) || all.indexOf(del) < all.indexOf(`debug node/${NODE}`)) throw new Error(`no pod deletion after the debug call: ${JSON.stringify(all)}`);
      }),
  },
  {
    name: 'Capture Node Snapshot over SSH: the host typed in, one ssh -T HOST sh -s, its snapshot open',
    timeout: 150_000,
    run: (ctx) =>
      withStandIns(ctx, async ({ calls, snapshot }) => {
        const { page, vscode } = ctx;
        await vscode.chooseInQuickInput(page, 'SSH host');
        // The host input box (its prompt shown), not the picker it replaces.
        const widget = page.locator('.quick-input-widget');
        await vscode.poll(async () => (await widget.innerText()).includes('user@host'), { what: 'the SSH host input box' });
        const input = await vscode.fillQuickInput(page, 'root@e2e-ssh');
        await vscode.poll(async () => (await input.inputValue()) === 'root@e2e-ssh', { what: 'root@e2e-ssh typed into the input box' });
        await page.keyboard.press('Enter');
        await vscode.acceptQuickInputWhenShown(page, 'Connection tracking table', 'the options picker');
        const folder = await snapshot('e2e-ssh');
        manifestSays(folder, 'ssh root@e2e-ssh');
        await firstDumpOpen(page, vscode, folder);
        if (!calls().includes('-o BatchMode=yes -T root@e2e-ssh sh -s')) throw new Error(`no ssh call: ${JSON.stringify(calls())}`);
      }),
  },
];
