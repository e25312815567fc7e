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
