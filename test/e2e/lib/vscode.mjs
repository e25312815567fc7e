// Helpers that drive the VS Code workbench (code-server) through its DOM, the way a person would:
// keyboard shortcuts, the command palette, quick open, the status bar, the Monaco editor's rendered lines.

const NBSP = /\u00a0/g;
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value (returned) or the time is up (throws with the last value/error). */
export async function poll(fn, { timeout = 15_000, interval = 250, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  let lastErr;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      const detail = lastErr ? `; last error: ${lastErr.message}` : last !== undefined ? `; last value: ${JSON.stringify(last)}` : '';
      throw new Error(`timed out after ${timeout / 1000}s waiting for ${what}${detail}`);
    }
    await sleep(interval);
  }
}

export async function waitForWorkbench(page) {
  await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  await page.waitForSelector('.part.statusbar', { timeout: 60_000 });
  // The explorer shows the workspace's files once the remote file system answers.
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60_000 });
  await sleep(1000);
}

/** Closes whatever transient UI (quick input, hover, peek, find widget) a previous step may have left open. */
export async function resetUi(page) {
  for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
  await page.mouse.move(1, 1);
}

async function quickInput(page, opener, text) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // A key pressed while a webview has the focus reaches the workbench only when the webview forwards it, and on a
  // loaded machine that can be lost: press it again, as a person would when nothing opens.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press(opener);
    try {
      await input.waitFor({ state: 'visible', timeout: 7_000 });
      break;
    } catch (e) {
      if (attempt === 3) throw new Error(`${opener} opened no quick input in 3 tries: ${e.message.split('\n')[0]}`);
    }
  }
  if (text !== undefined) await input.fill(text);
  return input;
}

/** Texts (aria-labels, else inner text) of the rows the quick input shows now. */
export async function quickInputRows(page) {
  return page.$$eval('.quick-input-widget .quick-input-list .monaco-list-row', (rows) => rows.map((r) => r.getAttribute('aria-label') || r.innerText));
}

/** Runs a command through the command palette (F1) by its visible label, e.g. "View: Close All Editors". */
export async function runCommand(page, label) {
  await quickInput(page, 'F1', `>${label}`);
  await poll(async () => (await quickInputRows(page)).some((r) => r.startsWith(label)), { what: `command "${label}" in the palette` });
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  const count = await rows.count();
  for (let i = 0; i < count; i++) {
    const label_ = (await rows.nth(i).getAttribute('aria-label')) || (await rows.nth(i).innerText());
    if (label_.startsWith(label)) {
      await rows.nth(i).click();
      return;
    }
  }
  throw new Error(`command "${label}" not found in the palette`);
}

/**
 * Opens a workspace file through quick open (Ctrl+P) and waits until its editor is active.
 * `query`: what to type (default `name`, e.g. a relative path when several files share the name); `row(label)`: whether
 * the focused row's aria-label is the file (default: its first word is `name`); `tabTimeout`: patience for the tab (ms);
 * `lines: false` skips waiting for rendered lines (a large file may ask before it opens).
 */
export async function openFile(page, name, { query = name, row, tabTimeout = 15_000, lines = true } = {}) {
  const isFile = row ?? ((label) => label.split(/[\s,]/)[0] === name);
  await quickInput(page, 'Control+P', query);
  // Wait until the focused (first) row is the file itself: before the search answers, the list shows history.
  // Quick open closes when the focus moves (e.g. a large editor closed by the previous step settles late), and a
  // search can be answered for the query's first keystrokes only: reopen it, or type the query again, as a person would.
  const input = page.locator('.quick-input-widget .quick-input-box input');
  const started = Date.now();
  let retyped = started;
  let seen = 'nothing';
  await poll(
    async () => {
      if (!(await input.isVisible())) {
        seen = 'quick open closed';
        await quickInput(page, 'Control+P', query);
        retyped = Date.now();
        return false;
      }
      const focused = page.locator('.quick-input-widget .quick-input-list .monaco-list-row.focused');
      const label = (await focused.count()) > 0 ? ((await focused.first().getAttribute('aria-label')) ?? '') : '';
      if (label && isFile(label)) return true;
      seen = label ? `first row "${label}"` : 'no focused row';
      if (Date.now() - retyped > 5_000) {
        await input.fill('');
        await input.fill(query);
        retyped = Date.now();
      }
      return false;
    },
    { what: `"${query}" as the first row of quick open`, timeout: 40_000 },
  ).catch((e) => {
    throw new Error(`${e.message} (${seen} after ${Date.now() - started} ms)`);
  });
  await page.keyboard.press('Enter');
  await poll(async () => (await activeTab(page))?.startsWith(name), { what: `active editor tab "${name}"`, timeout: tabTimeout });
  if (lines) await page.waitForSelector('.editor-instance .monaco-editor .view-lines .view-line');
}

/** Fills the open quick input (command palette, picker) with `text` once it is shown. */
export async function fillQuickInput(page, text) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(text);
  return input;
}

/** Types `filter` into the open quick input, waits until its first row contains `text` and accepts it with Enter. */
export async function chooseInQuickInput(page, filter, { text = filter, what = `"${text}" first`, timeout = 15_000 } = {}) {
  await page.locator('.quick-input-widget .quick-input-box input').fill(filter);
  await poll(async () => (await quickInputRows(page))[0]?.includes(text), { what, timeout });
  await page.keyboard.press('Enter');
}

/** Waits until a row of the open quick input contains `text`, then accepts the focused row with Enter. */
export async function acceptQuickInputWhenShown(page, text, what = `"${text}" in the picker`, timeout = 15_000) {
  await poll(async () => (await quickInputRows(page)).some((r) => r.includes(text)), { what, timeout });
  await page.keyboard.press('Enter');
}

/** Rows (aria-label, else text; no-break spaces as spaces) of the lists and trees in the panel (e.g. Dataplane Trace). */
export async function panelRows(page) {
  return page.$$eval('[id="workbench.parts.panel"] .monaco-list-row', (els) => els.map((r) => (r.getAttribute('aria-label') || r.innerText).replace(/\u00a0/g, ' ')));
}

/**
 * The document of the newest ready webview (its inner `#active-frame`) that holds an element matching `selector`
 * (several webviews may be open: the walkthrough's media is one too).
 */
export async function webviewWith(page, selector, what = `a webview with ${selector}`) {
  return poll(
    async () => {
      const count = await page.locator('iframe.webview.ready').count();
      for (let i = count - 1; i >= 0; i--) {
        const frame = page.frameLocator('iframe.webview.ready').nth(i).frameLocator('iframe#active-frame');
        if ((await frame.locator(selector).count()) > 0) return frame;
      }
      return undefined;
    },
    { timeout: 30_000, what },
  );
}

/**
 * Makes sure the active editor is in language mode `id`; when it is not, switches it the way a person would
 * (F1 > Change Language Mode) and returns the mode it had, so a test can tell that detection did not work.
 */
export async function ensureLanguageMode(page, id, log) {
  const mode = await statusItem(page, 'status.editor.mode');
  if (mode?.toLowerCase() === id) return mode;
  log?.(`  (editor was in language mode "${mode}"; switching it to ${id} with Change Language Mode)`);
  await runCommand(page, 'Change Language Mode');
  await page.locator('.quick-input-widget .quick-input-box input').fill(id);
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  let labels = [];
  const index = await poll(
    async () => {
      labels = await quickInputRows(page);
      const i = labels.findIndex((l) => /^(\S+?),? \((\S+)\)/.exec(l.trim())?.[2] === id); // "iptables, (iptables)": name, (id)
      return i >= 0 ? i + 1 : undefined;
    },
    { what: `language "${id}" in the language picker` },
  ).catch((e) => {
    throw new Error(`${e.message}; rows: ${JSON.stringify(labels)}`);
  });
  await rows.nth(index - 1).click();
  await poll(async () => (await statusItem(page, 'status.editor.mode'))?.toLowerCase() === id, { what: `language mode ${id}` });
  return mode;
}

/** aria-label of the active editor tab. */
export async function activeTab(page) {
  const tab = page.locator('.tabs-container .tab.active');
  return (await tab.count()) ? tab.first().getAttribute('aria-label') : undefined;
}

/** Text of a status bar item, by its entry id (e.g. "status.editor.mode", "status.editor.selection"). */
export async function statusItem(page, id) {
  const el = page.locator(`.part.statusbar [id="${id}"]`);
  if ((await el.count()) === 0) return undefined;
  return (await el.first().innerText()).trim();
}

/** Texts of all status bar items (for error messages). */
export async function statusBarTexts(page) {
  return page.$$eval('.part.statusbar .statusbar-item', (els) => els.map((e) => `${e.id}=${e.innerText.trim()}`).filter((t) => !t.endsWith('=')));
}

/** The cursor position the status bar reports: { line, col } from "Ln N, Col M". */
export async function cursorPosition(page) {
  const text = await statusItem(page, 'status.editor.selection');
  const m = /Ln (\d+), Col (\d+)/.exec(text ?? '');
  return m ? { line: Number(m[1]), col: Number(m[2]), text } : { text };
}

/** Moves the cursor with Go to Line (Ctrl+G), which also reveals the line. */
export async function gotoLine(page, line, col = 1) {
  await quickInput(page, 'Control+G', `:${line}:${col}`);
  await page.keyboard.press('Enter');
  await poll(
    async () => {
      const pos = await cursorPosition(page);
      return pos.line === line && pos.col === col;
    },
    { what: `cursor at Ln ${line}, Col ${col}` },
  );
}

/**
 * Finds the rendered token (Monaco `.view-line > span > span`) that covers the first character of `needle` in the
 * rendered line whose text equals `lineText`. Returns its text, computed colour, font style and bounding box.
 */
export async function token(page, lineText, needle, occurrence = 0) {
  return page.evaluate(
    ({ lineText, needle, occurrence }) => {
      const norm = (s) => s.replace(/\u00a0/g, ' ');
      // Tabs render as runs of spaces: compare lines with whitespace runs collapsed.
      const squash = (s) => norm(s).replace(/\s+/g, ' ').trim();
      const lines = [...document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')];
      const line = lines.find((l) => squash(l.textContent) === squash(lineText));
      if (!line) return { error: `line not rendered: ${lineText}` };
      let at = -1;
      for (let i = 0; i <= occurrence; i++) at = norm(line.textContent).indexOf(needle, at + 1);
      if (at < 0) return { error: `"${needle}" not in line` };
      let offset = 0;
      for (const span of line.querySelectorAll(':scope > span > span')) {
        const len = span.textContent.length;
        if (at >= offset && at < offset + len) {
          const cs = getComputedStyle(span);
          const r = span.getBoundingClientRect();
          return { text: norm(span.textContent), className: span.className, color: cs.color, fontStyle: cs.fontStyle, fontWeight: cs.fontWeight, box: { x: r.x, y: r.y, width: r.width, height: r.height } };
        }
        offset += len;
      }
      return { error: `no token span at offset ${at}` };
    },
    { lineText, needle, occurrence },
  );
}

/** Point in the middle of the first `len` characters of a token's box (so a long token is hit at the needle). */
export function tokenPoint(tok) {
  return { x: tok.box.x + Math.min(tok.box.width / 2, 20), y: tok.box.y + tok.box.height / 2 };
}

/** Visible editor hover text ('' when none). */
export async function hoverText(page) {
  return page.evaluate(() => {
    const hovers = [...document.querySelectorAll('.monaco-editor .monaco-hover, .monaco-hover')].filter((h) => !h.classList.contains('hidden') && h.getBoundingClientRect().height > 0);
    return hovers
      .map((h) => h.innerText)
      .join('\n---\n')
      .trim();
  });
}

/**
 * Moves the mouse away and then to `await point()` ({ x, y }, or { error } to retry) until the editor's hover
 * contains `expect`; each attempt watches the hover `tries` × `every` ms. Returns the hover text; on timeout throws
 * with the last hover text seen.
 */
export async function hoverPointUntil(page, point, expect, { what = `a hover containing "${expect}"`, timeout = 30_000, interval = 100, away = 100, steps = 3, tries = 12, every = 250 } = {}) {
  let text = '';
  await poll(
    async () => {
      const p = await point();
      if (p.error) throw new Error(p.error);
      await page.mouse.move(1, 1);
      await sleep(away);
      await page.mouse.move(p.x, p.y, { steps });
      // The extension may still be activating: give the hover a few seconds, then hover again.
      for (let i = 0; i < tries; i++) {
        await sleep(every);
        text = await hoverText(page);
        if (text.includes(expect)) return true;
      }
      return false;
    },
    { timeout, interval, what },
  ).catch((e) => {
    throw new Error(`${e.message}; hover text: ${JSON.stringify(text.slice(0, 2000))}`);
  });
  return text;
}

/** Hovers the token `needle` in the rendered line `lineText` until the hover contains `expect`; returns the hover text. */
export async function hoverUntil(page, lineText, needle, expect, { what = `a hover on ${needle} containing "${expect}"` } = {}) {
  return hoverPointUntil(
    page,
    async () => {
      const tok = await token(page, lineText, needle);
      return tok.error ? tok : tokenPoint(tok);
    },
    expect,
    { what },
  );
}

/**
 * Presses F12 until `done(await read())` (each press gets 8 × 250 ms to show its effect, for 20 s); returns the last
 * value read. On timeout throws with `describe(value)`.
 */
export async function f12Until(page, read, done, { what = 'F12 to move the cursor', describe = (v) => `last seen: ${JSON.stringify(v)}` } = {}) {
  let value;
  await poll(
    async () => {
      await page.keyboard.press('F12');
      for (let i = 0; i < 8; i++) {
        await sleep(250);
        value = await read();
        if (done(value)) return true;
      }
      return false;
    },
    { timeout: 20_000, interval: 100, what },
  ).catch((e) => {
    throw new Error(`${e.message}; ${describe(value)}`);
  });
  return value;
}

/** Presses F12 until the cursor leaves line `line`; returns the cursor position ({ line, col, text }) it lands on. */
export async function f12FromLine(page, line, { what = 'F12 to move the cursor', expected } = {}) {
  return f12Until(
    page,
    () => cursorPosition(page),
    (pos) => pos.line !== line,
    {
      what,
      describe: (pos) => `status bar says "${pos?.text}"${expected ? `, expected ${expected}` : ''}`,
    },
  );
}

/** Rows (aria-label, level, text) of a tree/list in the element matching `containerSelector`. */
export async function listRows(page, containerSelector) {
  return page.$$eval(`${containerSelector} .monaco-list-row`, (rows) =>
    rows.map((r) => ({ label: r.getAttribute('aria-label') ?? '', level: Number(r.getAttribute('aria-level') ?? 0), text: r.innerText.replace(/\s+/g, ' ').trim() })),
  );
}

export function fixtureLines(text) {
  return text.replace(/\r\n/g, '\n').split('\n');
}

export { NBSP };

/** Our output channel's log files of this run (the workspace's sibling data/logs folder), joined. */
export function extensionLog(workspace) {
  const logs = path.join(workspace, '..', 'data', 'logs');
  if (!existsSync(logs)) return '';
  const found = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name === 'Dataplane Explorer.log') found.push(path.join(dir, e.name));
    }
  };
  walk(logs);
  return found.map((f) => readFileSync(f, 'utf8')).join('\n');
}

/** The text of the language status hover (its items' texts), after pointing at the status bar entry; '' when none. */
export async function languageStatusHover(page) {
  const box = await page
    .locator('.part.statusbar [id="status.languageStatus"]')
    .first()
    .boundingBox()
    .catch(() => null);
  if (!box) return '';
  await page.mouse.move(1, 1);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 2 });
  for (let i = 0; i < 8; i++) {
    await new Promise((r) => setTimeout(r, 150));
    const text = await page.evaluate(() =>
      [...document.querySelectorAll('.hover-language-status')]
        .map((e) => e.innerText)
        .join(' | ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    if (text) return text;
  }
  return '';
}

/** Opens a workspace file by its relative path (several dumps share a name, e.g. samples/…/node1.iptables). */
export async function openRelative(page, relative) {
  const name = path.basename(relative);
  await openFile(page, name, { query: relative, row: (label) => label.startsWith(name) && label.includes(path.dirname(relative)) });
}

/** Visible texts (label and description; no-break spaces as spaces) of the rows of the lists and trees in the panel. */
export async function panelTexts(page) {
  return page.$$eval('[id="workbench.parts.panel"] .monaco-list-row', (els) =>
    els.map((r) =>
      r.innerText
        .replace(/\u00a0/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

/** The labels of the active editor's breadcrumbs, e.g. ['node1.txt', 'nat', 'KUBE-SERVICES']. */
export async function breadcrumbs(page) {
  return page.$$eval('.editor-group-container.active .breadcrumbs-control .monaco-breadcrumb-item', (els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
}

/**
 * The system clipboard as the workbench reads it (navigator.clipboard, which VS Code's web clipboard service uses):
 * `setClipboard` writes a marker first, so that a test can wait until a copy replaced it.
 */
export async function setClipboard(page, text) {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
}

export async function clipboardText(page) {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** Runs `copy()` and waits until the clipboard holds something else than before; returns it. */
export async function copied(page, copy, what = 'the copied text') {
  const marker = `marker ${Date.now()}`;
  await setClipboard(page, marker);
  await copy();
  return poll(
    async () => {
      const text = await clipboardText(page);
      return text !== marker ? text : undefined;
    },
    { what: `${what} on the clipboard` },
  );
}
