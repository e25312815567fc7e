// Lists every function (declaration, method, arrow, accessor, constructor) longer than the limit, by the lines it
// spans, nested functions included: a function should fit on a screen. Data tables are exempt: a function whose
// body only returns (a switch whose cases only return, or one returned literal) is a table, however long.
//   node scripts/long-functions.mjs [--max N] [DIR…]     exit 1 when one is found (default: src webview scripts tools)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', 'out']);

function parseArgs(argv) {
  const o = { max: 100, dirs: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--max') o.max = Number(argv[++i]);
    else o.dirs.push(argv[i]);
  }
  if (!Number.isInteger(o.max) || o.max < 1) throw new Error('--max takes a whole number');
  if (o.dirs.length === 0) o.dirs = ['src', 'webview', 'scripts', 'tools'];
  return o;
}

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name)) yield* sourceFiles(path);
    } else if (/\.(m?ts|mjs|js)$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.d.mts')) yield path;
  }
}

const isFunction = (n) =>
  ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n);

/** A statement that only answers: `return` of a value, or a switch (or if) whose every branch only answers. */
function onlyReturns(s) {
  if (ts.isReturnStatement(s) || ts.isThrowStatement(s)) return true;
  if (ts.isSwitchStatement(s)) return s.caseBlock.clauses.every((c) => c.statements.every(onlyReturns));
  if (ts.isBlock(s)) return s.statements.every(onlyReturns);
  return false;
}

/** A data table: the body is an expression, or statements that only return (a message switch, a literal). */
function isTable(fn) {
  const body = fn.body;
  if (!body) return true;
  if (!ts.isBlock(body)) return ts.isObjectLiteralExpression(body) || ts.isArrayLiteralExpression(body) || (ts.isParenthesizedExpression(body) && ts.isObjectLiteralExpression(body.expression));
  return (
    body.statements.length > 0 &&
    body.statements.every(onlyReturns) &&
    body.statements.some((s) => ts.isSwitchStatement(s) || (ts.isReturnStatement(s) && s.expression && (ts.isObjectLiteralExpression(s.expression) || ts.isArrayLiteralExpression(s.expression))))
  );
}

function nameOf(fn, sf) {
  if (fn.name) return fn.name.getText(sf);
  if (ts.isConstructorDeclaration(fn)) return 'constructor';
  const p = fn.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return p.name.getText(sf);
  if (ts.isCallExpression(p)) return `(callback of ${p.expression.getText(sf).slice(0, 40)})`;
  return '(anonymous)';
}

function longFunctions(path, max) {
  const sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (n) => {
    if (isFunction(n)) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.end).line;
      const lines = last - first + 1;
      if (lines > max && !isTable(n)) found.push({ line: first + 1, lines, name: nameOf(n, sf) });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

const { max, dirs } = parseArgs(process.argv.slice(2));
let count = 0;
for (const dir of dirs) {
  for (const path of sourceFiles(resolve(ROOT, dir))) {
    for (const f of longFunctions(path, max)) {
      count++;
      console.log(`${relative(ROOT, path)}:${f.line}: ${f.name} is ${f.lines} lines (over ${max})`);
    }
  }
}
if (count > 0) {
  console.log(`${count} function${count === 1 ? '' : 's'} over ${max} lines: split them (data tables that only return are exempt)`);
  process.exitCode = 1;
} else console.log(`no function over ${max} lines in ${dirs.join(', ')}`);
