// Typed access to the fields of one cluster-state file's objects: a wrong type or a missing required field is a
// diagnostic at the field (found near its object's start) and the caller gets undefined, never an exception.
import { CappedDiagnostics, type Diagnostic, type Severity } from '../model/diagnostics';
import type { Position, Range } from '../model/range';
import { t } from '../l10n';
import { grown } from '../model/typed-arrays';
import type { SourceLocation } from './types';

export type Obj = Record<string, unknown>;

/** How far past an object's start its own fields are looked for, for a diagnostic's position. */
const FIELD_WINDOW = 4000;

/**
 * Offsets to positions, for offsets asked mostly in increasing order (objects are read in document order): the
 * cursor moves forward line by line and keeps the line starts it passed, so going back is a binary search.
 */
export class LineCursor {
  private starts = new Int32Array(1024);
  private lines = 1;
  private scanned = 0;

  constructor(private readonly text: string) {}

  position(offset: number): Position {
    offset = Math.max(0, Math.min(offset, this.text.length));
    while (this.scanned <= offset) {
      const nl = this.text.indexOf('\n', this.scanned);
      if (nl < 0) {
        this.scanned = this.text.length + 1;
        break;
      }
      this.scanned = nl + 1;
      this.push(nl + 1);
    }
    let lo = 0;
    let hi = this.lines - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }

  private push(start: number): void {
    if (this.lines === this.starts.length) this.starts = grown(this.starts, this.lines * 2);
    this.starts[this.lines++] = start;
  }
}

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An own field only: `constructor` or `__proto__` of a parsed object is not a field. */
export function field(o: Obj, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return t('a list');
  if (isObj(v)) return t('an object');
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

export class ReadContext {
  readonly diagnostics = new CappedDiagnostics();
  private readonly lines: LineCursor;
  /** The object being read ("Service default/web"), for messages. */
  current = '';

  constructor(
    readonly file: string,
    readonly text: string,
    readonly offsets: Map<object, number>,
    readonly json: boolean,
  ) {
    this.lines = new LineCursor(text);
  }

  offsetOf(o: unknown, fallback = 0): number {
    return (isObj(o) && this.offsets.get(o)) || fallback;
  }

  position(offset: number): Position {
    return this.lines.position(offset);
  }

  /** From `offset` to the end of its line (without trailing space), at most 200 characters. */
  lineRange(offset: number): Range {
    const start = this.position(offset);
    const line = this.text.slice(offset, offset + 200);
    let end = line.search(/[\r\n]/);
    if (end < 0) end = line.length;
    while (end > 0 && /\s/.test(line[end - 1])) end--;
    return { start, end: { line: start.line, character: start.character + Math.max(1, end) } };
  }

  /** The range of `value` written as the value of `key` near `near`, or of the line at `near`. */
  valueRange(near: number, key: string, value: string): Range {
    const at = this.keyOffset(near, key);
    if (at !== undefined) {
      const written = [JSON.stringify(value), `'${value}'`, value];
      let v = at + key.length + (this.json ? 2 : 1);
      while (this.text[v] === ' ' || this.text[v] === ':') v++;
      for (const w of written) {
        if (this.text.startsWith(w, v)) {
          const start = this.position(v);
          return { start, end: { line: start.line, character: start.character + w.length } };
        }
      }
    }
    return this.lineRange(near);
  }

  /** The range of `value` written soon after `near` (an endpoint's first address), or of the line at `near`. */
  valueAfter(near: number, value: string): Range {
    for (const w of this.json ? [JSON.stringify(value)] : [value, JSON.stringify(value), `'${value}'`]) {
      const at = this.near(near, w);
      if (at !== undefined) {
        const start = this.position(at);
        return { start, end: { line: start.line, character: start.character + w.length } };
      }
    }
    return this.lineRange(near);
  }

  /** Where `key` is written as a field after `near` (close enough to be that object's), or undefined. */
  keyOffset(near: number, key: string): number | undefined {
    return this.near(near, this.json ? `"${key}"` : `${key}:`);
  }

  /** Where `s` is first written within FIELD_WINDOW after `near`: a search that a miss cannot make long. */
  private near(near: number, s: string): number | undefined {
    const at = this.text.slice(near, near + FIELD_WINDOW + s.length).indexOf(s);
    return at >= 0 ? near + at : undefined;
  }

  source(range: Range): SourceLocation {
    return { file: this.file, range };
  }

  report(severity: Severity, code: string, message: string, near: unknown, key?: string, fallback = 0): void {
    if (this.diagnostics.full) {
      this.diagnostics.unreported++;
      return;
    }
    const base = this.offsetOf(near, fallback);
    const at = key !== undefined ? (this.keyOffset(base, key) ?? base) : base;
    this.diagnostics.push({ range: this.lineRange(at), severity, code, message } satisfies Diagnostic);
  }

  wrongType(o: Obj, key: string, path: string, expected: string): void {
    this.report('warning', 'cluster-bad-field', t('{0}: {1} should be {2}, not {3}; it is ignored.', this.current, path, expected, describe(o[key])), o, key);
  }

  missing(o: unknown, path: string, fallback = 0, key?: string): void {
    this.report('error', 'cluster-missing-field', t('{0}: {1} is missing; this object is not used.', this.current, path), o, key, fallback);
  }

  str(o: Obj, key: string, path: string): string | undefined {
    const v = field(o, key);
    if (v === undefined || v === null || typeof v === 'string') return v ?? undefined;
    this.wrongType(o, key, path, t('a string'));
    return undefined;
  }

  bool(o: Obj, key: string, path: string): boolean | undefined {
    const v = field(o, key);
    if (v === undefined || v === null || typeof v === 'boolean') return v ?? undefined;
    this.wrongType(o, key, path, t('true or false'));
    return undefined;
  }

  /** A whole number in [min, max]. */
  int(o: Obj, key: string, path: string, min: number, max: number): number | undefined {
    const v = field(o, key);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
    this.wrongType(o, key, path, t('a whole number from {0} to {1}', min, max));
    return undefined;
  }

  obj(o: Obj, key: string, path: string): Obj | undefined {
    const v = field(o, key);
    if (v === undefined || v === null || isObj(v)) return v ?? undefined;
    this.wrongType(o, key, path, t('an object'));
    return undefined;
  }

  list(o: Obj, key: string, path: string): unknown[] {
    const v = field(o, key);
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    this.wrongType(o, key, path, t('a list'));
    return [];
  }

  /** A list of strings; other items are reported once and left out. */
  strings(o: Obj, key: string, path: string): string[] {
    const items = this.list(o, key, path);
    const out = items.filter((x): x is string => typeof x === 'string');
    if (out.length < items.length) this.wrongType(o, key, path, t('a list of strings'));
    return out.length < items.length ? out : (items as string[]);
  }

  /** A map of strings (labels, annotations, selector); other values are left out. */
  stringMap(o: Obj, key: string, path: string): Record<string, string> {
    const m = this.obj(o, key, path);
    const out: Record<string, string> = {};
    if (!m) return out;
    let bad = false;
    for (const k in m) {
      const v = m[k];
      if (typeof v === 'string') out[k] = v;
      else bad = true;
    }
    if (bad) this.wrongType(o, key, path, t('a map of strings'));
    return out;
  }
}
