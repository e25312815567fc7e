// Hostile SHORT lines for the grammars' linear-time checks.
//
// Oniguruma gives up a match after a fixed number of backtracking steps (its retry limit), so a regex with
// nested quantifiers costs about the same few hundred milliseconds on a 40-character line as on a
// 100,000-character one: the long-line cases pass while a 2 KB file of such short lines takes seconds. Each
// short line here must therefore tokenize in a few milliseconds. The lines repeat a unit that an address, a
// number or a name rule would consume, then end in a character that makes the rule's final lookahead fail
// (a letter outside ASCII is `\w` for Oniguruma but not for `[0-9A-Za-z]`).

const UNITS = ['f:', 'ff:', '1:', '1.', 'f.', '1.f:', '::', ':f', 'f', '1', '1-', '1/', 'a,', '0x1/', '[::', 'x-', '"\\'];
const ENDINGS = ['é', 'x', '_', '.', ':', ']', '/', '-', '"', ''];
const COUNTS = [6, 12, 24];
const LIMIT_MS = 25;

/** Each hostile short line after each prefix (the prefix puts the line in a rule's context). */
export function shortLines(prefixes) {
  const lines = [];
  for (const prefix of prefixes) {
    for (const unit of UNITS) {
      for (const n of COUNTS) for (const end of ENDINGS) lines.push(prefix + unit.repeat(n) + end);
    }
  }
  return lines;
}

/**
 * Tokenizes each line with `tokenize(line)` and counts lines slower than LIMIT_MS of CPU time (timed twice,
 * the faster run counts, so a garbage collection does not fail the check). Prints the first few slow lines.
 */
export function checkShortLines(label, lines, tokenize) {
  let failed = 0;
  let worst = 0;
  for (const line of lines) {
    const ms = Math.min(cpuTime(() => tokenize(line)).ms, cpuTime(() => tokenize(line)).ms);
    worst = Math.max(worst, ms);
    if (ms < LIMIT_MS) continue;
    if (++failed <= 5) console.log(`FAIL ${label} short line ${JSON.stringify(line)}: ${ms.toFixed(0)} ms`);
    if (failed >= 20) break; // enough evidence; every further slow line costs the retry limit again
  }
  console.log(`${failed ? 'FAIL' : 'ok  '} ${label.padEnd(15)} ${lines.length} hostile short lines, slowest ${worst.toFixed(1)} ms`);
  return failed;
}

/** CPU time of `fn()` in milliseconds: the checks share the machine with other work, wall time would flake. */
export function cpuTime(fn) {
  const start = process.cpuUsage();
  const result = fn();
  const used = process.cpuUsage(start);
  return { ms: (used.user + used.system) / 1000, result };
}
