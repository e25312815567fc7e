// A small JSON reader that keeps the source offsets of every value, so that the nft model built from
// `nft -j list ruleset` output can point back into the text. Errors are returned (one, with its offset),
// never thrown; nesting is bounded so hostile input cannot exhaust the stack.

export interface JBase {
  start: number;
  /** Exclusive. */
  end: number;
}
export interface JObject extends JBase {
  t: 'object';
  keys: string[];
  values: JValue[];
}
export interface JArray extends JBase {
  t: 'array';
  items: JValue[];
}
export interface JString extends JBase {
  t: 'string';
  v: string;
}
export interface JNumber extends JBase {
  t: 'number';
  v: number;
}
export interface JLiteral extends JBase {
  t: 'literal';
  v: boolean | null;
}
export type JValue = JObject | JArray | JString | JNumber | JLiteral;

export interface JsonError {
  offset: number;
  message: string;
}

export const MAX_JSON_DEPTH = 512;

class Failure {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** One reading of a JSON text: the text and where it is at. */
class JsonCursor {
  i: number;
  private readonly n: number;

  constructor(
    private readonly text: string,
    from: number,
  ) {
    this.i = from;
    this.n = text.length;
  }

  fail(message: string, at = this.i): never {
    throw new Failure(Math.min(at, this.n), message);
  }

  skipWs(): void {
    const text = this.text;
    const n = this.n;
    let i = this.i;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.i = i;
  }

  describe(at: number): string {
    return at >= this.n ? 'the end of the text' : JSON.stringify(this.text[at]);
  }

  readString(): JString {
    const text = this.text;
    const start = this.i;
    this.i++; // opening quote
    let out = '';
    let chunk = this.i;
    for (;;) {
      const i = this.i;
      if (i >= this.n) this.fail('unterminated string', start);
      const c = text.charCodeAt(i);
      if (c === 34) {
        out += text.slice(chunk, i);
        this.i = i + 1;
        return { t: 'string', v: out, start, end: this.i };
      }
      if (c === 92) {
        out += text.slice(chunk, i) + this.escape();
        this.i += 2;
        chunk = this.i;
        continue;
      }
      if (c < 32) this.fail('control character in a string');
      this.i = i + 1;
    }
  }

  /** The character the escape at i stands for (i moves past a \u escape's four digits). */
  private escape(): string {
    const e = this.text[this.i + 1];
    switch (e) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = this.text.slice(this.i + 2, this.i + 6);
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) this.fail('bad \\u escape');
        this.i += 4;
        return String.fromCharCode(parseInt(hex, 16));
      }
      default:
        return this.fail('bad escape in a string');
    }
  }

  readValue(depth: number): JValue {
    if (depth > MAX_JSON_DEPTH) this.fail('nested too deeply');
    this.skipWs();
    if (this.i >= this.n) this.fail('unexpected end of the text');
    const c = this.text.charCodeAt(this.i);
    if (c === 123 /* { */) return this.readObject(depth);
    if (c === 91 /* [ */) return this.readArray(depth);
    if (c === 34) return this.readString();
    return this.readScalar();
  }

  private readObject(depth: number): JValue {
    const text = this.text;
    const start = this.i++;
    const keys: string[] = [];
    const values: JValue[] = [];
    this.skipWs();
    if (text.charCodeAt(this.i) === 125) {
      this.i++;
      return { t: 'object', keys, values, start, end: this.i };
    }
    for (;;) {
      this.skipWs();
      if (text.charCodeAt(this.i) !== 34) this.fail(`expected a property name in double quotes, found ${this.describe(this.i)}`);
      keys.push(this.readString().v);
      this.skipWs();
      if (text.charCodeAt(this.i) !== 58) this.fail(`expected ":" after a property name, found ${this.describe(this.i)}`);
      this.i++;
      values.push(this.readValue(depth + 1));
      this.skipWs();
      const d = text.charCodeAt(this.i);
      if (d === 44) {
        this.i++;
        continue;
      }
      if (d === 125) {
        this.i++;
        return { t: 'object', keys, values, start, end: this.i };
      }
      this.fail(`expected "," or "}", found ${this.describe(this.i)}`);
    }
  }

  private readArray(depth: number): JValue {
    const text = this.text;
    const start = this.i++;
    const items: JValue[] = [];
    this.skipWs();
    if (text.charCodeAt(this.i) === 93) {
      this.i++;
      return { t: 'array', items, start, end: this.i };
    }
    for (;;) {
      items.push(this.readValue(depth + 1));
      this.skipWs();
      const d = text.charCodeAt(this.i);
      if (d === 44) {
        this.i++;
        continue;
      }
      if (d === 93) {
        this.i++;
        return { t: 'array', items, start, end: this.i };
      }
      this.fail(`expected "," or "]", found ${this.describe(this.i)}`);
    }
  }

  /** true, false, null or a number. */
  private readScalar(): JValue {
    const text = this.text;
    const start = this.i;
    if (text.startsWith('true', start)) {
      this.i += 4;
      return { t: 'literal', v: true, start, end: this.i };
    }
    if (text.startsWith('false', start)) {
      this.i += 5;
      return { t: 'literal', v: false, start, end: this.i };
    }
    if (text.startsWith('null', start)) {
      this.i += 4;
      return { t: 'literal', v: null, start, end: this.i };
    }
    NUMBER.lastIndex = start;
    const m = NUMBER.exec(text);
    if (m && m[0].length > 0) {
      this.i += m[0].length;
      return { t: 'number', v: Number(m[0]), start, end: this.i };
    }
    return this.fail(`unexpected ${this.describe(start)}`);
  }
}

/**
 * Parses JSON text with positions, from offset `from` on (what comes before is not read; offsets stay those of the
 * whole text). `error` is set when the text is not JSON; `value` then is undefined.
 */
export function readJson(text: string, from = 0): { value?: JValue; error?: JsonError } {
  const cursor = new JsonCursor(text, from);
  try {
    // A byte order mark is harmless.
    if (text.charCodeAt(cursor.i) === 0xfeff) cursor.i++;
    const value = cursor.readValue(0);
    cursor.skipWs();
    if (cursor.i < text.length) cursor.fail(`unexpected ${cursor.describe(cursor.i)} after the JSON value`);
    return { value };
  } catch (e) {
    if (e instanceof Failure) return { error: { offset: e.offset, message: e.message } };
    if (e instanceof RangeError) return { error: { offset: cursor.i, message: 'nested too deeply' } };
    throw e;
  }
}

/** The value of a property, or undefined. */
export function prop(o: JValue | undefined, key: string): JValue | undefined {
  if (!o || o.t !== 'object') return undefined;
  const k = o.keys.indexOf(key);
  return k >= 0 ? o.values[k] : undefined;
}

export function str(v: JValue | undefined): string | undefined {
  return v && v.t === 'string' ? v.v : undefined;
}

/** The string value of `key` in object `o`, with its offsets; undefined when it is missing or not a string. */
export function stringProp(o: JValue | undefined, key: string): JString | undefined {
  const v = prop(o, key);
  return v && v.t === 'string' ? v : undefined;
}

export function num(v: JValue | undefined): number | undefined {
  return v && v.t === 'number' ? v.v : undefined;
}

/** Offsets to 0-based line and UTF-16 column, for text with \n, \r\n or \r line ends. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let k = 0; k < text.length; k++) {
      const c = text.charCodeAt(k);
      if (c === 10) this.starts.push(k + 1);
      else if (c === 13) {
        if (text.charCodeAt(k + 1) === 10) k++;
        this.starts.push(k + 1);
      }
    }
  }

  get lineCount(): number {
    return this.starts.length;
  }

  position(offset: number): { line: number; character: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }
}
