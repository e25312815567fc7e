import { t } from '../l10n';
import type { Range } from './range';

export type Severity = 'error' | 'warning' | 'information' | 'hint';

export interface Diagnostic {
  range: Range;
  severity: Severity;
  /** Stable machine-readable code, e.g. `undefined-chain`. */
  code: string;
  /** Already localized text. */
  message: string;
  /** Marks unused/unnecessary code (rendered faded by editors). */
  unnecessary?: boolean;
}

export function countBySeverity(diagnostics: readonly Diagnostic[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const d of diagnostics) counts[d.severity]++;
  return counts;
}

/** Diagnostics in document order (line, then column): the order every listing and "the first error" use. */
export function byPosition<T extends Diagnostic>(diagnostics: readonly T[]): T[] {
  return [...diagnostics].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}

/** The error that comes first in the document, as `dataplane parse` lists it. */
export function firstError(diagnostics: readonly Diagnostic[]): Diagnostic | undefined {
  let first: Diagnostic | undefined;
  for (const d of diagnostics) {
    if (d.severity !== 'error') continue;
    if (first === undefined || d.range.start.line < first.range.start.line || (d.range.start.line === first.range.start.line && d.range.start.character < first.range.start.character)) first = d;
  }
  return first;
}

/** The most diagnostics a document gets (the parsers stop there too): the rest are one "N more" summary. */
export const MAX_DIAGNOSTICS = 1_000;

/**
 * Diagnostics up to MAX_DIAGNOSTICS, counting the rest: for those found after parsing (catalog checks, one per
 * virtual service or endpoint chain, cross-file checks), which a hostile dump could otherwise multiply into a
 * million. Check `full` before making a message, to skip the work.
 */
export class CappedDiagnostics {
  readonly items: Diagnostic[];
  unreported = 0;

  constructor(first: readonly Diagnostic[] = []) {
    this.items = first.slice();
  }

  get full(): boolean {
    return this.items.length >= MAX_DIAGNOSTICS;
  }

  push(d: Diagnostic): void {
    if (this.full) this.unreported++;
    else this.items.push(d);
  }

  /** The diagnostics kept, and a summary at the top of the document when some were not. */
  close(): Diagnostic[] {
    if (this.unreported === 0) return this.items;
    const top = { line: 0, character: 0 };
    return [...this.items, { range: { start: top, end: top }, severity: 'warning', code: 'too-many-problems', message: t('{0} more problems were not reported.', this.unreported) }];
  }
}

/** A parser's diagnostics followed by later ones, within the cap: `unreported` counts later ones already left out. */
export function withLater(parsed: readonly Diagnostic[], later: readonly Diagnostic[], unreported = 0): Diagnostic[] {
  if (later.length === 0 && unreported === 0) return parsed.slice();
  const all = new CappedDiagnostics(parsed);
  for (const d of later) all.push(d);
  all.unreported += unreported;
  return all.close();
}
