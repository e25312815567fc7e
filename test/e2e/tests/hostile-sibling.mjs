// A hostile file beside a dump: nft's define bomb (each `define vN = { $vN-1, $vN-1 }` doubles a set) saved as
// `readme.txt` next to a normal nftables dump. Nobody opens it, but the snapshot reads the files beside a dump by
// content: it must be analysed in the worker (and bounded there), never on the extension host. Opening the normal
// dump: its hover and F12 work, and no task of this extension's code on the extension host takes over 100 ms (the
// host's CPU profiles, lib/host-profile.mjs; the whole host's longest task, VS Code's own work included, is only
// logged). The folder is written at run time into the test workspace (hostile-sibling/): a copy of
// samples/nftables/node1.nft and the bomb.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extensionLog } from '../lib/vscode.mjs';
import { hostBlocks, hostProfiles } from '../lib/host-profile.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const NAME = 'sibling-node.nft';
const TEXT = readFileSync(path.join(REPO, 'samples', 'nftables', 'node1.nft'), 'utf8');
const LINES = TEXT.split('\n');
const ELEMENT_LINE = LINES.findIndex((l) => l.includes('10.96.12.40 . tcp . 80 : goto')) + 1;
const GOTO = /goto (service-[^\s,}]+)/.exec(LINES[ELEMENT_LINE - 1] ?? '')?.[1];
const CHAIN_LINE = LINES.findIndex((l) => GOTO && l.trim() === `chain ${GOTO} {`) + 1;
const MAX_TASK_MS = 100;

/** 27 doubling defines: 2^28 set elements if nothing stopped them; the first line makes it an nft script. */
function defineBomb() {
  let text = '#!/usr/sbin/nft -f\ndefine v0 = { 10.0.0.1, 10.0.0.2 }\n';
  for (let i = 1; i <= 27; i++) text += `define v${i} = { $v${i - 1}, $v${i - 1} }\n`;
  return `${text}table ip t {\n\tchain c {\n\t\tip daddr { $v27 } accept\n\t}\n}\n`;
}

/** The extension host's longest tasks the extension logged while the worker worked, in order. */
const longestTasks = (workspace) => [...extensionLog(workspace).matchAll(/while the worker worked \([^)]*\): longest task (\d+) ms/g)].map((m) => Number(m[1]));

/** Hover on the web Service element and F12 on its goto target, in the open copy of the nft sample. */
async function hoverAndF12(page, vscode) {
  await vscode.gotoLine(page, ELEMENT_LINE);
  const text = await vscode.hoverUntil(page, LINES[ELEMENT_LINE - 1], '10.96.12.40', 'shop/web:http', { what: 'a hover naming shop/web:http' });
  const missing = ['10.244.1.7:8080', '10.244.2.8:8080', '10.244.3.9:8080'].filter((s) => !text.includes(s));
  if (missing.length) throw new Error(`hover misses ${missing.join(', ')}: ${text}`);
  await vscode.resetUi(page);
  const visual = LINES[ELEMENT_LINE - 1].replace(/^\t+/, (tabs) => ' '.repeat(tabs.length * 4));
  await vscode.gotoLine(page, ELEMENT_LINE, visual.indexOf(GOTO) + 3);
  // F12 asks the node snapshot: with a file beside the dump, the worker.
  const pos = await vscode.f12FromLine(page, ELEMENT_LINE);
  if (pos.line !== CHAIN_LINE) throw new Error(`F12 went to ${pos.text}, expected Ln ${CHAIN_LINE} (chain ${GOTO})`);
  await vscode.resetUi(page);
}

export default [
  {
    name: 'hostile sibling: a define bomb saved as readme.txt beside an nft dump is analysed in the worker; the host never waits',
    timeout: 240_000,
    async run({ page, vscode, log, workspace }) {
      if (ELEMENT_LINE <= 0 || !GOTO || CHAIN_LINE <= 0) throw new Error('samples/nftables/node1.nft lacks the web Service element or its chain');
      // First the same features on the sample alone (no file beside it): the extension's first nft parse, hover
      // and F12 (loading and compiling the parsers) are not what is measured here.
      await vscode.openFile(page, 'node1.nft');
      await vscode.ensureLanguageMode(page, 'nftables', log);
      await hoverAndF12(page, vscode);

      const dir = path.join(workspace, 'hostile-sibling');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'readme.txt'), defineBomb());
      writeFileSync(path.join(dir, NAME), TEXT);
      const before = longestTasks(workspace).length;
      const profilesBefore = hostProfiles(workspace).length;
      await vscode.openFile(page, NAME);
      await vscode.ensureLanguageMode(page, 'nftables', log);
      // The Problems of the node snapshot are asked with the files beside the dump: the worker reads readme.txt.
      const first = await vscode.poll(
        () => {
          const all = longestTasks(workspace).slice(before);
          return all.length > 0 ? all : undefined;
        },
        { timeout: 60_000, interval: 250, what: 'the extension host measured while the worker read the node snapshot' },
      );
      log(`  extension host while the worker read the snapshot: longest task ${first.join(', ')} ms`);
      await hoverAndF12(page, vscode);

      // Every watch that ended by now, the F12's included (a watch is logged 5 s after its last request).
      await vscode.sleep(6000);
      const all = longestTasks(workspace).slice(before);
      log(`  all measurements: longest task ${all.join(', ')} ms`);
      if (/snapshot: \S*readme\.txt read as/.test(extensionLog(workspace))) throw new Error('readme.txt was analysed on the extension host');
      const profiles = await vscode.poll(
        () => {
          const files = hostProfiles(workspace).slice(profilesBefore);
          return files.length >= all.length ? files : undefined;
        },
        { timeout: 10_000, interval: 250, what: 'a host profile for each measurement' },
      );
      const blocks = profiles.map(hostBlocks);
      for (const b of blocks) log(`  host profile: longest of this extension's code ${b.ours.ms} ms (${b.ours.where || 'none'}); longest of any code ${b.any.ms} ms (${b.any.where})`);
      const worst = Math.max(...blocks.map((b) => b.ours.ms));
      if (worst > MAX_TASK_MS) throw new Error(`the extension's code kept the extension host busy for ${worst} ms at a stretch (at most ${MAX_TASK_MS} ms)`);
    },
  },
];
