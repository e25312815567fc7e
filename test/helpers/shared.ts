import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** ../shared/corpus beside the repository (present in CI and on developer machines; never copied in). */
export const CORPUS = resolve(__dirname, '../../../shared/corpus');
export const HAVE_CORPUS = existsSync(CORPUS);
export const NO_CORPUS_MESSAGE = `needs ../shared/corpus beside the repository (not found at ${CORPUS}); skipped`;

/**
 * Every file below `CORPUS/sub` (recursively) whose name `skip` does not match; none when the corpus is absent.
 * Throws when the corpus is there but `sub` has no such file: a loop over nothing would pass without testing.
 */
export function corpusFiles(sub: string, skip?: RegExp): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (!skip?.test(f)) out.push(p);
    }
  };
  const root = join(CORPUS, sub);
  if (existsSync(root)) walk(root);
  if (HAVE_CORPUS && out.length === 0) throw new Error(`no corpus files under ${root}`);
  return out;
}

/**
 * A trace's warnings other than those saying what the dump lacks: a table, chain or hook on the packet's way, or the
 * node's address (a stand-in when none was given).
 */
export const traceProblems = (warnings: string[]): string[] =>
  warnings.filter((w) => !/iptables-save (prints every table|always prints)|no base chain on hooks|No chain of type nat|a stand-in for this node's address/.test(w));
