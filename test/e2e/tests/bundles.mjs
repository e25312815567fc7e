// "Open Support Bundle…": each bundle fixture of test/fixtures/bundles (sosreport, Rancher logs collector,
// cilium-bugtool, antctl supportbundle, Retina capture, a plain folder; see its README for the real layouts they copy)
// opens from its folder and from an archive, through the command's picker and the (simple) open dialog, and the
// Explorer's Support Bundles view shows its node. A dump opens read-only and Explain This Node answers for its node.
// A hostile archive (an entry climbing out with ../) is refused with the reason, and nothing is written outside.
// Folders and archives are made at run time in the test workspace (archives by tar and python3's zipfile: the
// test builds them, the extension reads them with its libraries).
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'bundles');

/** Each fixture, the node it shows, and the archive format it is also opened as (the collector's own where known). */
const BUNDLES = [
  { folder: 'sosreport-worker-a-2026-12-01-qzkwtbe', node: 'worker-a', archive: 'tar.xz' },
  { folder: 'worker-b-2026-12-01_10_00_00', node: 'worker-b', archive: 'tar.gz' },
  { folder: 'cilium-bugtool-20261201-100000.123+0000-UTC-2811', node: 'worker-c', archive: 'zip' },
  { folder: 'antrea-supportbundle', node: 'worker-d', archive: 'tar.gz' },
  { folder: 'retina-capture-worker-e-20261201100000UTC', node: 'retina-capture-worker-e', archive: 'tar' },
  { folder: 'plain', node: 'plain', archive: 'tar.gz' },
];

const TITLE = 'Support Bundles';

/** The bundle folders and archives, in the workspace under bundles/ and archives/. */
function prepare(workspace) {
  const folders = path.join(workspace, 'bundles');
  const archives = path.join(workspace, 'archives');
  if (existsSync(archives)) return { folders, archives };
  mkdirSync(archives, { recursive: true });
  cpSync(FIXTURES, folders, { recursive: true, verbatimSymlinks: true });
  for (const b of BUNDLES) {
    const out = path.join(archives, `${b.folder}.${b.archive}`);
    if (b.archive === 'zip') execFileSync('python3', ['-m', 'zipfile', '-c', out, b.folder], { cwd: folders });
    else execFileSync('tar', [b.archive === 'tar.xz' ? '-cJf' : b.archive === 'tar.gz' ? '-czf' : '-cf', out, b.folder], { cwd: folders });
  }
  const hostile = `import tarfile, io\nt = tarfile.open(${JSON.stringify(path.join(archives, 'hostile.tar'))}, 'w')\nfor n in ['ok.iptables', '../x-escaped']:\n    i = tarfile.TarInfo(n); i.size = 3; t.addfile(i, io.BytesIO(b'hi\\n'))\nt.close()\n`;
  execFileSync('python3', ['-c', hostile]);
  return { folders, archives };
}

/** Row labels of the Explorer's Support Bundles view. */
async function bundleRows(page) {
  return page.$$eval(
    '.pane',
    (panes, title) => {
      const pane = panes.find((p) => (p.querySelector('.pane-header')?.textContent ?? '').toLowerCase().includes(title.toLowerCase()));
      return pane ? [...pane.querySelectorAll('.monaco-list-row')].map((r) => (r.querySelector('.label-name') ?? r).textContent?.trim() ?? '') : [];
    },
    TITLE,
  );
}

/** Runs a palette command, again when the palette does not list it yet (a loaded machine registers it late). */
async function command(page, vscode, label) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await vscode.runCommand(page, label);
    } catch (e) {
      if (attempt === 3) throw e;
      await vscode.resetUi(page);
      await vscode.sleep(3000);
    }
  }
}

/**
 * Runs the command, picks archive or folder, and types the path into the (simple) open dialog: a folder with a
 * trailing slash, which the dialog enters before Enter accepts it. Enter is pressed until the dialog closes.
 */
async function openBundle(page, vscode, file, folder) {
  // A webview that takes the focus as it finishes loading (the previous step's Explain This Node) closes the picker:
  // run the command again then.
  for (let attempt = 1; ; attempt++) {
    try {
      await command(page, vscode, 'Dataplane Explorer: Open Support Bundle…');
      await vscode.poll(async () => (await vscode.quickInputRows(page)).some((r) => r.includes('An archive')), { what: 'the archive or folder picker' });
      await vscode.chooseInQuickInput(page, folder ? 'A folder' : 'An archive', { text: folder ? 'A folder' : 'An archive' });
      break;
    } catch (e) {
      if (attempt === 3) throw e;
      await vscode.resetUi(page);
    }
  }
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await vscode.poll(async () => (await input.isVisible()) && (await input.inputValue()).startsWith('/'), { what: 'the open dialog' });
  // The dialog fills in its starting folder once it has read it: type the path again until it stays.
  const target = folder ? `${file}/` : file;
  await vscode.poll(
    async () => {
      if ((await input.inputValue()) === target) return true;
      await input.fill(target);
      await vscode.sleep(500);
      return (await input.inputValue()) === target;
    },
    { what: `${target} in the open dialog` },
  );
  for (let i = 0; i < 5 && (await input.isVisible()); i++) {
    await vscode.sleep(1500);
    if (await input.isVisible()) await page.keyboard.press('Enter');
  }
}

/** Opens the bundle until the view shows `node` (a dialog that missed a key is tried once more); the view's rows. */
async function openUntilShown(page, vscode, file, folder, node) {
  for (let attempt = 1; ; attempt++) {
    await openBundle(page, vscode, file, folder);
    try {
      return await vscode.poll(
        async () => {
          const r = await bundleRows(page);
          return r.includes(node) ? r : undefined;
        },
        { timeout: 30_000, what: `node ${node} of ${path.basename(file)} in the ${TITLE} view` },
      );
    } catch (e) {
      if (attempt === 2) throw e;
      await vscode.resetUi(page);
    }
  }
}

async function notifications(page) {
  return page.$$eval('.notifications-toasts .notification-list-item-message', (els) => els.map((e) => e.textContent ?? ''));
}

export default [
  {
    name: 'Support bundles: each fixture opens from its folder and from an archive and shows its node',
    timeout: 420_000,
    async run({ page, vscode, workspace, log }) {
      const { folders, archives } = prepare(workspace);
      for (const b of BUNDLES) {
        for (const [file, folder] of [
          [path.join(folders, b.folder), true],
          [path.join(archives, `${b.folder}.${b.archive}`), false],
        ]) {
          const rows = await openUntilShown(page, vscode, file, folder, b.node);
          log(`  ${path.basename(file)}: ${rows.join(' | ')}`);
          await command(page, vscode, 'Dataplane Explorer: Close Support Bundle');
          await vscode.poll(async () => (await bundleRows(page)).length === 0, { what: 'the bundle closed' });
        }
      }
    },
  },
  {
    name: 'Support bundles: a dump opens read-only and Explain This Node answers for the node',
    timeout: 180_000,
    async run({ page, vscode, workspace }) {
      const { folders } = prepare(workspace);
      await openUntilShown(page, vscode, path.join(folders, 'plain'), true, 'plain');
      const row = page.locator('.pane .monaco-list-row', { hasText: 'node1.ipset' }).first();
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      await row.click();
      await vscode.poll(async () => (await vscode.activeTab(page))?.startsWith('node1.ipset'), { timeout: 30_000, what: 'node1.ipset in front' });
      await page.waitForSelector('.editor-instance .monaco-editor .view-lines .view-line');
      const first = async () => page.$eval('.editor-instance .monaco-editor .view-lines', (el) => el.innerText.split('\n')[0]);
      const before = await first();
      await vscode.gotoLine(page, 1);
      await page.keyboard.type('XYZ');
      await vscode.sleep(500);
      if ((await first()) !== before) throw new Error(`the dump could be edited: first line "${await first()}"`);
      await command(page, vscode, 'Dataplane Explorer: Explain This Node');
      const frame = await vscode.webviewWith(page, '#headline', 'the Explain This Node webview');
      const headline = await vscode.poll(async () => ((await frame.locator('#headline').textContent()) ?? '').trim() || undefined, { what: 'the headline' });
      if (!/IPVS/i.test(headline)) throw new Error(`Explain This Node says "${headline}", expected the IPVS mode of the plain bundle`);
      await vscode.resetUi(page);
      await command(page, vscode, 'Dataplane Explorer: Close Support Bundle');
    },
  },
  {
    name: 'Support bundles: an archive with an entry climbing out (../) is refused with the reason',
    async run({ page, vscode, workspace }) {
      const { archives } = prepare(workspace);
      await vscode.runCommand(page, 'View: Close All Editor Groups');
      await vscode.resetUi(page);
      await openBundle(page, vscode, path.join(archives, 'hostile.tar'), false);
      const shown = await vscode.poll(async () => (await notifications(page)).find((m) => m.includes('hostile.tar')), { timeout: 30_000, what: 'the refusal' });
      if (!shown.includes('Cannot open the support bundle hostile.tar') || !shown.includes('climbs out of the bundle')) throw new Error(`refusal: "${shown}"`);
      if (existsSync(path.join(archives, '..', 'x-escaped')) || existsSync(path.join(archives, 'x-escaped'))) throw new Error('x-escaped was written');
      if ((await bundleRows(page)).includes('hostile.tar')) throw new Error('the refused bundle is shown in the view');
      await vscode.resetUi(page);
    },
  },
];
