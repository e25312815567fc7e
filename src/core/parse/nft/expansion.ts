// A variable holding a set copies its elements wherever it is used in another set: `define v2 = { $v1, $v1 }`
// doubles, and 27 such lines (800 bytes) would make 2^27 elements. So a set gets at most MAX_SET_FROM_VARIABLES
// elements from variables, and a document MAX_VARIABLE_COPIES in all (some 100 ms of copying): far above real
// rulesets, far below what stalls the parse. A document that writes more elements than that may copy in
// proportion to its length (a 150,000-address define used twice is real): the work stays linear in the input.
import type { Range } from '../../model/range';
import type { Severity } from '../../model/diagnostics';
import { t } from '../../l10n';

/** Elements one set may hold after its variables are expanded. */
export const MAX_SET_FROM_VARIABLES = 100_000;
/** Elements copied from variables in one document, all sets together. */
export const MAX_VARIABLE_COPIES = 250_000;

type Report = (range: Range, severity: Severity, code: string, message: string) => void;

/** Characters of document per element a set may take, and per element copied, beyond the fixed limits. */
const CHARACTERS_PER_SET_ELEMENT = 8;
const CHARACTERS_PER_COPY = 4;

export class ExpansionBudget {
  private copied = 0;
  private maxSet = MAX_SET_FROM_VARIABLES;
  private maxCopies = MAX_VARIABLE_COPIES;

  /** Raises the limits for a long document, in proportion to its length. */
  allowFor(documentLength: number): this {
    this.maxSet = Math.max(MAX_SET_FROM_VARIABLES, Math.floor(documentLength / CHARACTERS_PER_SET_ELEMENT));
    this.maxCopies = Math.max(MAX_VARIABLE_COPIES, Math.floor(documentLength / CHARACTERS_PER_COPY));
    return this;
  }

  /**
   * Whether `adding` elements of `$name` may join a set that holds `size` already; when not, says so at the
   * variable and the set goes on without them.
   */
  admit(size: number, adding: number, name: string, range: Range, report: Report): boolean {
    if (size + adding > this.maxSet) {
      report(range, 'warning', 'expansion-limit', t('${0} would make this set larger than {1} elements: its elements are left out here.', name, this.maxSet));
      return false;
    }
    if (this.copied + adding > this.maxCopies) {
      report(range, 'warning', 'expansion-limit', t('Variables have been expanded to {0} set elements in this file: the elements of ${1} are left out here.', this.maxCopies, name));
      return false;
    }
    this.copied += adding;
    return true;
  }
}
