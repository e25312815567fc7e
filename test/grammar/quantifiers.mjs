// A static check of a grammar's regexes, beside the timing checks: every unbounded repeat must be possessive
// (`*+`, `++`) or inside an atomic group `(?>…)`. In Oniguruma's syntax `{n,}+` and `{n,m}+` are NOT
// possessive but a repeat of a repeat, and a greedy `*` or `+` can backtrack; either is how a regex becomes
// catastrophic. Bounded repeats (`{1,4}`) are fine: their cost per position is a constant.
import fs from 'node:fs';

/** `[where, regex, problem]` for each offending repeat in the grammar file. */
export function quantifierProblems(grammarPath) {
  const problems = [];
  const walk = (node, where) => {
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === 'string' && ['match', 'begin', 'end', 'while'].includes(key)) {
        for (const problem of regexProblems(value)) problems.push([`${where}.${key}`, value, problem]);
      } else if (value && typeof value === 'object') walk(value, `${where}.${key}`);
    }
  };
  walk(JSON.parse(fs.readFileSync(grammarPath, 'utf8')), '');
  return problems;
}

function regexProblems(regex) {
  const problems = [];
  const atomic = []; // for each open group: is it atomic?
  let inClass = false;
  for (let i = 0; i < regex.length; i++) {
    const c = regex[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (regex[i + 1] === '^') i++;
      if (regex[i + 1] === ']') i++; // a literal ] first in a class
      continue;
    }
    if (c === '(') {
      atomic.push(regex.startsWith('(?>', i) || atomic.at(-1) === true);
      continue;
    }
    if (c === ')') {
      atomic.pop();
      continue;
    }
    if (atomic.at(-1) === true || regex[i - 1] === '(') continue; // `(?` and `(*` are not repeats
    const bounds = /^\{(\d*)(,?)(\d*)\}/.exec(regex.slice(i));
    if (bounds) {
      if (bounds[2] && bounds[3] === '') problems.push(`${bounds[0]} at ${i}: unbounded and never possessive in Oniguruma`);
      else if (regex[i + bounds[0].length] === '+') problems.push(`${bounds[0]}+ at ${i}: a repeat of a repeat in Oniguruma, not possessive`);
      i += bounds[0].length - (regex[i + bounds[0].length] === '+' ? 0 : 1); // past a `+` after it too
      continue;
    }
    if ((c === '*' || c === '+') && regex[i + 1] !== '+') problems.push(`${c} at ${i}: not possessive`);
    if ((c === '*' || c === '+' || c === '?') && regex[i + 1] === '+') i++; // `?+` is possessive too
  }
  return problems;
}

/** Prints each problem; returns how many there are. */
export function checkQuantifiers(label, grammarPath) {
  const problems = quantifierProblems(grammarPath);
  for (const [where, regex, problem] of problems) console.log(`FAIL ${label} ${where}: ${problem}: ${regex}`);
  console.log(`${problems.length ? 'FAIL' : 'ok  '} ${label.padEnd(15)} every unbounded repeat possessive or atomic`);
  return problems.length;
}
