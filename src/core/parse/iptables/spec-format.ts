// `iptables [-t TABLE] -S [CHAIN]` output: `-P`, `-N` and `-A` lines in iptables-save's own syntax, without the
// `*table` and COMMIT lines. Read by the reference reader (and its accelerators) line by line as a save would be;
// this file only opens and closes the tables around the runs of lines, named by a pasted prompt line
// (`# iptables -t nat -S`) or guessed from what the lines use, and says which (an information diagnostic).
import { lineRange, type Range } from '../../model/range';
import { t } from '../../l10n';
import { promptCommand } from '../prompt';
import { guessTable, pastedCommand, type PastedCommand, type TableGuess } from './paste-format';
import type { IptablesReader } from './reference';
import type { IptablesSink } from './sink';

/** A run of lines of one table: where it starts, the prompt line that printed it, what it uses. */
export interface PastedRun {
  start: number;
  command?: PastedCommand;
  builtins: Set<string>;
  chains: Set<string>;
  targets: Set<string>;
}

export function newRun(start: number, command?: PastedCommand): PastedRun {
  return { start, command, builtins: new Set(), chains: new Set(), targets: new Set() };
}

const BUILTIN = /^(INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING)$/;

/** Notes a chain name the run declares or uses. */
export function noteChain(run: PastedRun, name: string): void {
  if (BUILTIN.test(name)) run.builtins.add(name);
  else run.chains.add(name);
}

/** The runs of an `iptables -S` paste: a prompt line, or a `-P` after other lines, starts the next. */
function specRuns(sink: IptablesSink): PastedRun[] {
  const runs: PastedRun[] = [];
  let run: PastedRun | undefined;
  let last = '';
  for (let i = 0; i < sink.lines.count; i++) {
    const text = sink.lines.line(i) ?? '';
    const command = pastedCommand(text);
    if (command !== undefined) {
      runs.push((run = newRun(i, command)));
      last = '';
      continue;
    }
    const words = text.trim().split(/\s+/);
    const verb = words[0];
    if (verb !== '-P' && verb !== '-N' && verb !== '-A') continue;
    if (run === undefined || (verb === '-P' && (last === '-N' || last === '-A' || run.builtins.has(words[1])))) runs.push((run = newRun(i)));
    last = verb;
    noteChain(run, words[1] ?? '');
    const jump = words.findIndex((w) => w === '-j' || w === '-g');
    if (jump > 0 && words[jump + 1]) run.targets.add(words[jump + 1]);
  }
  return runs;
}

/** The table of a run: the prompt's `-t`, else a guess from what it uses. */
export function runTable(run: PastedRun): TableGuess & { named: boolean } {
  if (run.command?.table) return { table: run.command.table, evidence: '', named: true };
  if (run.command?.chain) noteChain(run, run.command.chain);
  return { ...guessTable(run.builtins, run.chains, run.targets), named: false };
}

/** Opens the table of a run at its first line (`header`: where it is said), with a diagnostic naming the evidence. */
export function openRunTable(sink: IptablesSink, run: PastedRun, format: 'S' | 'L'): void {
  const { table, evidence, named } = runTable(run);
  const text = sink.lines.line(run.start) ?? '';
  const range = lineRange(run.start, 0, text.trimEnd().length);
  const at = named ? text.search(new RegExp(`(?<=-t\\s*|--table[= ])${table}\\b`)) : -1;
  const nameRange: Range = at >= 0 ? lineRange(run.start, at, at + table.length) : lineRange(run.start, 0, 0);
  if (sink.table) sink.closeTable(run.start - 1);
  sink.openTable(table, nameRange, range, range);
  const tool = `iptables -${format}`;
  const message = named
    ? t('The {0} table, as the pasted command line says ({1} output has no table lines).', table, tool)
    : evidence
      ? t('Read as the {0} table, inferred from {1}: {2} output names no table.', table, evidence, tool)
      : t('Read as the filter table: {0} output names no table, and without -t it lists the filter table.', tool);
  sink.diag(range, 'information', 'inferred-table', message);
}

/** Reads an `iptables -S` paste (`text`): the reference reader reads its lines inside the tables opened here. */
export function readSpec(text: string, sink: IptablesSink, reader: IptablesReader): void {
  const runs = specRuns(sink);
  const starts = new Map(runs.map((r) => [r.start, r]));
  // Tried before the accelerators: the run's table opens before its first line is read; prompt lines are taken.
  reader.read(text, (document, start, end, into) => {
    const i = into.line;
    const run = starts.get(i);
    if (run !== undefined) openRunTable(sink, run, 'S');
    // The reader's string of the line: made once, it is the one the accelerators and the reference reader read too.
    const line = reader.lineOf(document, start, end);
    if (run?.command === undefined && promptCommand(line) === undefined) return false;
    sink.header('comment', line, lineRange(i, 0, end - start));
    return true;
  });
  if (sink.table) sink.closeTable(sink.lines.count - 1);
}
