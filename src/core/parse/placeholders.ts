// Anonymised placeholders people paste instead of addresses (`xx:xx:xx:xx:xx:xx`, `a.b.c.d`, `<IP>`, `X.X.X.X`,
// `10.x.x.x`): one grouped diagnostic for all of them, instead of one error per occurrence.
import { t } from '../l10n';
import type { Diagnostic } from '../model/diagnostics';
import type { Range } from '../model/range';

/** One dotted-quad part: a number, one letter, or a run of x or *. */
const QUAD = String.raw`(?:\d{1,3}|[a-zA-Z]|[xX]{2,3}|\*{1,3})`;
const SUFFIX = String.raw`(?:\/(?:\d{1,3}|[xX]{1,3}))?(?::(?:\d{1,5}|[xX]+))?`;
/** An IPv4 placeholder needs a non-number part; a MAC or IPv6 one an x or * group. */
const IPV4 = String.raw`(?=[\d.]*[a-zA-Z*])${QUAD}(?:\.${QUAD}){3}`;
const COLONS = String.raw`(?=[0-9a-fA-F:]*[xX*])[0-9a-fA-FxX*]{1,4}(?::[0-9a-fA-FxX*]{0,4}){2,7}`;
const NAMED = String.raw`<[A-Za-z][\w.-]*>|\[[A-Za-z][A-Za-z_-]*\]`;
const WORD = new RegExp(String.raw`^(?:${IPV4}|${COLONS}|${NAMED})${SUFFIX}$`);
/** Placeholders inside a line: each must stand alone between separators. */
const IN_LINE = new RegExp(String.raw`(?<![\w.:<\[*-])(?:${IPV4}|${COLONS}|${NAMED})${SUFFIX}(?![\w.:>\]*-])`, 'g');

/** Whether a whole word is an anonymised placeholder (with its /prefix or :port). */
export function isPlaceholder(word: string): boolean {
  return WORD.test(word);
}

/** The first placeholder in a line: its start and end character. */
export function placeholderIn(line: string): { start: number; end: number } | undefined {
  IN_LINE.lastIndex = 0;
  const m = IN_LINE.exec(line);
  return m ? { start: m.index, end: m.index + m[0].length } : undefined;
}

/** Counts the placeholders a parser met, for one diagnostic at the first. */
export class PlaceholderTally {
  count = 0;
  first: Range | undefined;

  note(range: Range): void {
    this.count++;
    this.first ??= range;
  }

  /** The grouped diagnostic, or undefined when none were met. */
  diagnostic(): Diagnostic | undefined {
    if (!this.first) return undefined;
    const at = this.first.start;
    return {
      range: this.first,
      severity: 'warning',
      code: 'anonymised-placeholders',
      message: t('{0} anonymised placeholders (addresses or MACs replaced by text such as x.x.x.x), first at {1}:{2}; the rest of each line is read.', this.count, at.line + 1, at.character + 1),
    };
  }
}
