// Helpers for the extension's walkthrough ("Read a node's Service dataplane", package.json contributes.walkthroughs)
// and the bundled samples, shared by the English and the zh-cn tests. Texts come from the files the extension ships
// (package.nls*.json, l10n bundles), so a test checks what a person reading that language sees.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vscode from './vscode.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const json = (file) => JSON.parse(readFileSync(path.join(REPO, file), 'utf8'));

/** package.json's %key% strings in display language `locale` ('en' = package.nls.json). */
export function nls(locale = 'en') {
  return locale === 'en' ? json('package.nls.json') : { ...json('package.nls.json'), ...json(`package.nls.${locale}.json`) };
}

/** The runtime message `english` in display language `locale` (l10n/bundle.l10n.<locale>.json), filled like t(). */
export function message(locale, english, ...args) {
  const text = locale === 'en' ? english : json(`l10n/bundle.l10n.${locale}.json`)[english];
  if (typeof text !== 'string') throw new Error(`no ${locale} translation of "${english}"`);
  return text.replace(/\{(\d+)\}/g, (whole, i) => (args[Number(i)] === undefined ? whole : String(args[Number(i)])));
}

/** Lines of a bundled sample dump, e.g. sampleLines('iptables-nft', 'node1.iptables'). */
export function sampleLines(mode, file) {
  return readFileSync(path.join(REPO, 'samples', mode, file), 'utf8')
    .replace(/\r\n/g, '\n')
    .split('\n');
}

/** Walkthrough steps in order: { id, title, links: [{ label, command }] } in display language `locale`. */
export function walkthroughSteps(locale = 'en') {
  const strings = nls(locale);
  const text = (v) => v.replace(/^%(.+)%$/, (_, k) => strings[k]);
  const [walk] = json('package.json').contributes.walkthroughs;
  return walk.steps.map((s) => ({
    id: s.id,
    title: text(s.title),
    links: [...text(s.description).matchAll(/\[([^\]]+)\]\((command:[^)\s]+)\)/g)].map((m) => ({ label: m[1], command: m[2] })),
  }));
}

export function walkthroughTitle(locale = 'en') {
  const [walk] = json('package.json').contributes.walkthroughs;
  return walk.title.replace(/^%(.+)%$/, (_, k) => nls(locale)[k]);
}

const PAGE = '.gettingStartedContainer';

/** Titles of the steps the open walkthrough page shows. */
export async function shownStepTitles(page) {
  return page.$$eval(`${PAGE} h3.step-title`, (els) => els.filter((e) => e.getBoundingClientRect().height > 0).map((e) => e.innerText.trim()));
}

/** Opens the walkthrough `title` with "Welcome: Open Walkthrough..." and waits for its step list. */
export async function openWalkthrough(page, title) {
  await vscode.runCommand(page, 'Welcome: Open Walkthrough...');
  await vscode.chooseInQuickInput(page, title, { what: `walkthrough "${title}" in the picker`, timeout: 20_000 });
  await vscode.poll(async () => (await page.locator(`${PAGE} h2.category-title`, { hasText: title }).count()) > 0, { what: `the walkthrough page "${title}"`, timeout: 20_000 });
  // The page selects its first unfinished step and moves the focus there a moment later, closing a command palette
  // opened in between.
  await vscode.sleep(1000);
}

/** Text of step `stepTitle` of the open walkthrough, expanded or not (no click: selecting a step focuses its Markdown). */
export async function stepText(page, stepTitle) {
  const step = page.locator(`${PAGE} button.getting-started-step`, { has: page.locator('h3.step-title', { hasText: stepTitle }) }).first();
  return (await step.textContent()) ?? '';
}

/** Expands step `stepTitle` of the open walkthrough (opening it first when needed) and returns the step's element. */
export async function showStep(page, walkthrough, stepTitle) {
  const visible = async () => (await page.locator(`${PAGE} h2.category-title`, { hasText: walkthrough }).count()) > 0 && (await page.locator(`${PAGE} h3.step-title`, { hasText: stepTitle }).first().isVisible());
  if (!(await visible())) await openWalkthrough(page, walkthrough);
  const step = page.locator(`${PAGE} button.getting-started-step`, { has: page.locator('h3.step-title', { hasText: stepTitle }) }).first();
  await step.click();
  await vscode.poll(async () => (await step.getAttribute('class'))?.includes('expanded'), { what: `step "${stepTitle}" expanded` });
  // Selecting a step moves the focus (to the step, its Markdown) a moment later; a button clicked before that
  // runs its command while the focus moves back to the walkthrough's group.
  await vscode.sleep(1000);
  return step;
}

/** Clicks the button or link `label` of step `stepTitle` in the walkthrough `walkthrough`. */
export async function clickStepLink(page, walkthrough, stepTitle, label) {
  const step = await showStep(page, walkthrough, stepTitle);
  const target = step.locator('.step-description-container .monaco-button, .step-description-container a', { hasText: label }).first();
  await vscode
    .poll(async () => (await target.count()) > 0 && (await target.isVisible()), { what: `"${label}" in step "${stepTitle}"` })
    .catch(async (e) => {
      throw new Error(`${e.message}; step text: ${JSON.stringify(await step.innerText())}`);
    });
  await target.click();
}

/** aria-label of the active tab of the active editor group (the walkthrough keeps its own group beside the samples). */
export async function activeGroupTab(page) {
  const tab = page.locator('.part.editor .editor-group-container.active .tab.active');
  return (await tab.count()) ? tab.first().getAttribute('aria-label') : undefined;
}

/** Waits until the active editor tab is `name` and the editor's language mode is `mode`; returns the mode shown. */
export async function waitForEditor(page, name, mode) {
  await vscode
    .poll(async () => (await activeGroupTab(page))?.startsWith(name), { what: `${name} in front`, timeout: 20_000 })
    .catch(async (e) => {
      throw new Error(`${e.message}; active tab: ${await activeGroupTab(page)}`);
    });
  await page.waitForSelector('.editor-instance .monaco-editor .view-lines .view-line');
  const shown = await vscode
    .poll(
      async () => {
        const m = await vscode.statusItem(page, 'status.editor.mode');
        return m && m.toLowerCase() === mode.toLowerCase() ? m : undefined;
      },
      { what: `language mode ${mode} for ${name}` },
    )
    .catch(async (e) => {
      throw new Error(`${e.message}; status bar shows ${await vscode.statusItem(page, 'status.editor.mode')}`);
    });
  return shown;
}

/** Goes back from the walkthrough to the editor `name` beside it (its tab; Ctrl+1/Ctrl+2 focus the groups). */
export async function focusTab(page, name) {
  const tab = page.locator('.part.editor .tab', { hasText: name }).first();
  let i = 0;
  await vscode.poll(
    async () => {
      // The walkthrough takes the focus back when it has just selected a step: try the tab, then the group shortcuts.
      if (i % 3 === 0) await tab.click();
      else await page.keyboard.press(i % 3 === 1 ? 'Control+2' : 'Control+1');
      i++;
      await vscode.sleep(300);
      return (await activeGroupTab(page))?.startsWith(name);
    },
    { what: `${name} focused`, interval: 200 },
  );
}

/** Rendered text of the first visible lines of the active editor. */
export async function visibleLines(page) {
  return page.$$eval('.editor-instance .monaco-editor .view-lines .view-line', (els) =>
    els
      .map((e) => ({ top: e.getBoundingClientRect().top, text: e.textContent.replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text),
  );
}

/** Puts the cursor on `needle` of line `line` (1-based) of `lines`, presses F12 and returns the line it lands on. */
export async function f12(page, lines, line, needle) {
  const col = lines[line - 1].indexOf(needle) + 3;
  if (col < 3) throw new Error(`"${needle}" not in line ${line}`);
  await vscode.gotoLine(page, line, col);
  return (await vscode.f12FromLine(page, line, { what: `F12 on ${needle} to move the cursor` })).line;
}
