// A tiny sequential test runner for the browser tests.
// A test file exports `default` as an array of steps: { name, timeout?, run(ctx) }.
// Every step gets a screenshot in test-output/e2e/NN-<slug>.png (pass or fail); a failure prints the step's name,
// the error and the screenshot's path. Steps share one workbench page, so each step opens what it needs itself.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from './vscode.mjs';

const slug = (s) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000}s`)), ms);
    }),
  ]);
}

export async function runSuite({ context, url, workspace, fixtures, outDir, testFiles, grep, log, locale = 'en', retries = 1, stopped = () => false }) {
  const steps = [];
  for (const file of testFiles) {
    const mod = await import(pathToFileURL(file).href);
    for (const s of mod.default) steps.push({ ...s, file: path.basename(file) });
  }
  const selected = grep ? steps.filter((s) => s.name.toLowerCase().includes(grep.toLowerCase())) : steps;

  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const consoleErrors = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(String(e)));

  log(`opening ${url}`);
  await page.goto(url, { timeout: 60_000 }); // the first load compiles the workbench: slow on a busy machine
  await vscode.waitForWorkbench(page);
  log('workbench is ready');

  const ctx = { page, workspace, fixtures, vscode, log, locale };
  const results = [];
  let n = 0;
  for (const s of selected) {
    if (stopped()) break;
    n++;
    const shot = path.join(outDir, `${String(n).padStart(2, '0')}-${slug(s.name)}.png`);
    const start = Date.now();
    let error = await attempt(page, ctx, s, shot);
    let firstError;
    // A step that fails is run once more (VS Code's own background work on a loaded machine can make a timing
    // step miss once); it passes only if the second run passes, and is then reported as flaky with the first error.
    for (let retry = 0; error && retry < retries && !stopped(); retry++) {
      firstError ??= error;
      console.log(`     attempt ${retry + 1} failed: ${firstLine(error)}; running it again`);
      error = await attempt(page, ctx, s, shot.replace(/\.png$/, `-retry${retry + 1}.png`));
    }
    const secs = ((Date.now() - start) / 1000).toFixed(1);
    if (error) {
      console.log(`FAIL ${n} - ${s.name} (${secs}s)`);
      console.log(
        `     ${String(error?.message ?? error)
          .split('\n')
          .join('\n     ')}`,
      );
      console.log(`     screenshot: ${path.relative(process.cwd(), shot) || shot}`);
    } else {
      console.log(`ok   ${n} - ${s.name} (${secs}s)${firstError ? ` — flaky, the first attempt failed: ${firstLine(firstError)}` : ''}`);
    }
    results.push({
      name: s.name,
      file: s.file,
      ok: !error,
      error: error ? String(error?.message ?? error) : undefined,
      flaky: !error && firstError ? String(firstError?.message ?? firstError) : undefined,
      seconds: Number(secs),
      screenshot: shot,
    });
  }

  if (consoleErrors.length) writeFileSync(path.join(outDir, 'browser-console-errors.log'), consoleErrors.join('\n') + '\n');
  writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  const failed = results.filter((r) => !r.ok);
  const flaky = results.filter((r) => r.flaky);
  if (flaky.length) {
    console.log('\nFlaky steps (passed on a second run):');
    for (const r of flaky) console.log(`  - ${r.name}: ${r.flaky.split('\n')[0]}`);
  }
  if (failed.length) {
    console.log('\nFailed steps:');
    for (const r of failed) console.log(`  - ${r.name}: ${r.error.split('\n')[0]}\n    screenshot: ${r.screenshot}`);
  }
  return { passed: results.length - failed.length, failed: failed.length, flaky: flaky.length, results };
}

/** One run of a step from a reset UI, with its screenshot; the error, or undefined when it passed. */
async function attempt(page, ctx, step, shot) {
  let error;
  try {
    await vscode.resetUi(page);
    await withTimeout(step.run(ctx), step.timeout ?? 60_000, `step "${step.name}"`);
  } catch (err) {
    error = err;
  }
  try {
    await page.screenshot({ path: shot, timeout: 10_000 });
  } catch (err) {
    ctx.log(`could not take screenshot ${shot}: ${err.message}`);
  }
  return error;
}

const firstLine = (error) => String(error?.message ?? error).split('\n')[0];
