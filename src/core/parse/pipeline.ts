// What every dialect's parse shares: the line loop, the line checks, the capped diagnostics, memory hygiene and
// the options. A parser is a reference reader (tokens → Chevrotain → a visitor), a sink (the only code that makes
// model objects) and accelerators (hand-written readers of the commonest lines that make the same sink calls).
//
// API (for the parser of each dialect):
// - ParseOptions: `{ accelerators?: 'on' | 'off' }` for every dialect; 'off' reads every line with the reference
//   reader (the accelerators' oracle, for tests). acceleratorsOn(options) reads it (and the older `mode` spelling).
// - readLines(text, reader): the line loop. Per line (cut as VS Code counts lines, read in place, progress
//   reported) it tries each accelerator `tryLine(text, start, end, sink)` in order (when on), else calls
//   `reader.reference(i, start, end)`. Answers the line count.
// - LINE_LIMITS, lineProblem(i, text, limits): a line too long or binary → the diagnostic to give (else undefined).
// - DiagnosticsCollector: `add(range, severity, code, message, unnecessary?)` keeps MAX_DIAGNOSTICS, counts the rest;
//   `close()` appends the one summary ("N more problems…; is this really X?", or "N more hints…").
// - guarded(dialect, parse, fallback): runs a parse; a throw (a parser bug) becomes a 'parser-bug' diagnostic on
//   the model `fallback(diagnostic)` gives, never an exception. guardedParse(dialect, text, parse): the fallback
//   is parse('') with the bug among its diagnostics. guardedLineParse(dialect, text, options, read, referenceParser):
//   the same for a dialect read line by line, releasing its reference parser's input afterwards.
// - releaseInputs(...parsers): after a parse, Chevrotain parsers forget their last tokens (cut from the text).
// - detached(s): a copy of a slice that keeps no document alive (re-exported from detach.ts).
import type { Diagnostic, Severity } from '../model/diagnostics';
import { MAX_DIAGNOSTICS } from '../model/diagnostics';
import { binaryRange, lineRange, type Range } from '../model/range';
import type { ReferenceRole } from '../model/symbols';
import { t } from '../l10n';
import { LineSpans } from './lines';

export { MAX_DIAGNOSTICS };
export { detached, releaseLastMatch } from './detach';
export { LineCursor, LineSpans, LineStarts, splitLines } from './lines';
export { reportLine, reportProgress, withProgress } from '../progress';

/** The options of every dialect's parse. */
export interface ParseOptions {
  /** 'off' reads every line with the reference reader (the accelerators' oracle); default 'on'. */
  accelerators?: 'on' | 'off';
  /** The older spelling of `accelerators`: 'chevrotain' is 'off'. */
  mode?: 'fast' | 'chevrotain';
}

export function acceleratorsOn(options: ParseOptions = {}): boolean {
  return options.accelerators !== 'off' && options.mode !== 'chevrotain';
}

/** A hand-written reader of one kind of line: the sink calls the reference reader would make, or false and nothing. */
export type Accelerator<S> = (text: string, start: number, end: number, sink: S) => boolean;

/** A sink the line loop tells which line is read (accelerators take no line number). */
export interface LineSink {
  /** The number (from 0) of the line being read. */
  line: number;
}

export interface LineReader<S extends LineSink> {
  readonly sink: S;
  /** Tried in order on each line when accelerators are on. */
  readonly accelerators: readonly Accelerator<S>[];
  /** Reads line `i` at [start, end) of the text the reference way (a line no accelerator took). */
  reference(i: number, start: number, end: number): void;
}

/** The line loop: each line to the first accelerator that takes it, else to the reference reader. The line count. */
export function readLines<S extends LineSink>(text: string, reader: LineReader<S>, accelerators = true): number {
  const spans = new LineSpans(text);
  const { sink } = reader;
  const tries = accelerators ? reader.accelerators : [];
  while (spans.next()) {
    const { index, start, end } = spans;
    sink.line = index;
    let taken = false;
    for (let k = 0; k < tries.length && !taken; k++) taken = tries[k](text, start, end, sink);
    if (!taken) reader.reference(index, start, end);
  }
  return spans.count;
}

export interface LineLimits {
  /** Longer lines are not analysed. */
  maxLength: number;
  /** The message of a line with a NUL character ("Binary data, not ipset output."). */
  binary: () => string;
}

/** Each dialect's limits (the nft text's lines can be long: a set's elements are one line in `nft -s` output). */
export const LINE_LIMITS = {
  ipset: { maxLength: 65_536, binary: () => t('Binary data, not ipset output.') },
  ipvsadm: { maxLength: 65_536, binary: () => t('Binary data, not ipvsadm output.') },
  iptables: { maxLength: 65_536, binary: () => t('Binary data, not iptables-save text.') },
  nftables: { maxLength: 1_000_000, binary: () => t('Binary data, not nft text.') },
} satisfies Record<string, LineLimits>;

/** The diagnostic for line `i` when it is too long or binary (then it is not read); else undefined. */
export function lineProblem(i: number, text: string, limits: LineLimits): Diagnostic | undefined {
  if (text.length > limits.maxLength) return { range: lineRange(i, 0, 200), severity: 'error', code: 'line-too-long', message: t('Line is {0} characters long; not analysed.', text.length) };
  if (text.includes('\u0000')) return { range: binaryRange(i, text), severity: 'error', code: 'binary', message: limits.binary() };
  return undefined;
}

/** How the summary of the diagnostics left out reads. */
export interface SummaryStyle {
  /** The warning when problems were left out: "{0} more problems were not reported; is this really X?". */
  problems: (count: number) => string;
  /** When set, hints and information alone left out get this (an information) instead of `problems`. */
  hints?: (count: number) => string;
}

/** One parse's diagnostics: the first MAX_DIAGNOSTICS kept, the rest counted and summarised at the end. */
export class DiagnosticsCollector {
  readonly items: Diagnostic[] = [];
  /** How many were left out, and how many of those were errors or warnings. */
  suppressed = 0;
  suppressedProblems = 0;

  constructor(private readonly style: SummaryStyle) {}

  get full(): boolean {
    return this.items.length >= MAX_DIAGNOSTICS;
  }

  add(range: Range, severity: Severity, code: string, message: string, unnecessary?: boolean): void {
    if (this.items.length >= MAX_DIAGNOSTICS) {
      this.suppressed++;
      if (severity === 'error' || severity === 'warning') this.suppressedProblems++;
      return;
    }
    this.items.push(unnecessary ? { range, severity, code, message, unnecessary } : { range, severity, code, message });
  }

  /** The diagnostics, with the summary of those left out at the top of the document (once: it appends to items). */
  close(): Diagnostic[] {
    const top = lineRange(0, 0, 0);
    const { hints, problems } = this.style;
    if (hints !== undefined && this.suppressedProblems === 0 && this.suppressed > 0) {
      this.items.push({ range: top, severity: 'information', code: 'too-many-problems', message: hints(this.suppressed) });
    } else if (this.suppressed > 0 && (hints === undefined || this.suppressedProblems > 0)) {
      this.items.push({ range: top, severity: 'warning', code: 'too-many-problems', message: problems(this.suppressed) });
    }
    this.suppressed = this.suppressedProblems = 0;
    return this.items;
  }
}

/**
 * Runs a parse; if it throws (a bug of the parser: bad input never throws), the model `fallback` makes (an empty
 * one) with the bug as a diagnostic, so the document still gets an answer.
 */
export function guarded<T>(dialect: string, parse: () => T, fallback: (bug: Diagnostic) => T): T {
  try {
    return parse();
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return fallback({ range: lineRange(0, 0, 0), severity: 'error', code: 'parser-bug', message: t('The {0} reader failed on this text ({1}); please report it with the text.', dialect, detail) });
  }
}

/** guarded for a parse whose fallback is the model of an empty text, with the bug as its diagnostic. */
export function guardedParse<T extends { diagnostics: Diagnostic[] }>(dialect: string, text: string, parse: (text: string) => T): T {
  return guarded(
    dialect,
    () => parse(text),
    (bug) => {
      const empty = parse('');
      empty.diagnostics.push(bug);
      return empty;
    },
  );
}

/**
 * guardedParse of a line-by-line dialect: `read(text, accelerators)` with the options' accelerators, and then
 * (even after a bug) its Chevrotain reference parser, when one was made, forgets the text.
 */
export function guardedLineParse<T extends { diagnostics: Diagnostic[] }>(
  dialect: string,
  text: string,
  options: ParseOptions,
  read: (text: string, accelerators: boolean) => T,
  referenceParser: () => { input: unknown[] } | undefined,
): T {
  return guardedParse(dialect, text, (input) => {
    try {
      return read(input, acceleratorsOn(options));
    } finally {
      releaseInputs(referenceParser());
    }
  });
}

/** A reference met while reading, resolved once every line is read (a later line may define what it names). */
export interface PendingReference {
  name: string;
  range: Range;
  role: ReferenceRole;
  line: number;
  /** An error when nothing defines it before the line (restore input); otherwise at most a hint. */
  required: boolean;
}

/** Chevrotain parsers keep their last input, tokens cut from the text: they would keep a closed document alive. */
export function releaseInputs(...parsers: Array<{ input: unknown[] } | undefined>): void {
  for (const p of parsers) if (p) p.input = [];
}
