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
  constructor(readonly offset: number, readonly message: string) {}
}

/**
 * Parses JSON text with positions, from offset `from` on (what comes before is not read; offsets stay those of the
 * whole text). `error` is set when the text is not JSON; `value` then is undefined.
 */
export function readJson(text: string, from = 0): { value?: JValue; error?: JsonError } {
  let i = from;
  const n = text.length;

  const fail = (message: string, at = i): never => {
    throw new Failure(Math.min(at, n), message);
  };

  const skipWs = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
  };

  const describe = (at: number): string => (at >= n ? 'the end of the text' : JSON.stringify(text[at]));

  const readString = (): JString => {
    const start = i;
    i++; // opening quote
    let out = '';
    let chunk = i;
    for (;;) {
      if (i >= n) fail('unterminated string', start);
      const c = text.charCodeAt(i);
      if (c === 34) {
        out += text.slice(chunk, i);
        i++;
        return { t: 'string', v: out, start, end: i };
      }
      if (c === 92) {
        out += text.slice(chunk, i);
        const e = text[i + 1];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            const hex = text.slice(i + 2, i + 6);
            if (!/^[0-9A-Fa-f]{4}$/.test(hex)) fail('bad \\u escape');
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            fail('bad escape in a string');
        }
        i += 2;
        chunk = i;
        continue;
      }
      if (c < 32) fail('control character in a string');
      i++;
    }
  };

  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

  const readValue = (depth: number): JValue => {
    if (depth > MAX_JSON_DEPTH) fail('nested too deeply');
    skipWs();
    if (i >= n) fail('unexpected end of the text');
    const c = text.charCodeAt(i);
    const start = i;
    if (c === 123 /* { */) {
      i++;
      const keys: string[] = [];
      const values: JValue[] = [];
      skipWs();
      if (text.charCodeAt(i) === 125) {
        i++;
        return { t: 'object', keys, values, start, end: i };
      }
      for (;;) {
        skipWs();
        if (text.charCodeAt(i) !== 34) fail(`expected a property name in double quotes, found ${describe(i)}`);
        keys.push(readString().v);
        skipWs();
        if (text.charCodeAt(i) !== 58) fail(`expected ":" after a property name, found ${describe(i)}`);
        i++;
        values.push(readValue(depth + 1));
        skipWs();
        const d = text.charCodeAt(i);
        if (d === 44) {
          i++;
          continue;
        }
        if (d === 125) {
          i++;
          return { t: 'object', keys, values, start, end: i };
        }
        fail(`expected "," or "}", found ${describe(i)}`);
      }
    }
    if (c === 91 /* [ */) {
      i++;
      const items: JValue[] = [];
      skipWs();
      if (text.charCodeAt(i) === 93) {
        i++;
        return { t: 'array', items, start, end: i };
      }
      for (;;) {
        items.push(readValue(depth + 1));
        skipWs();
        const d = text.charCodeAt(i);
        if (d === 44) {
          i++;
          continue;
        }
        if (d === 93) {
          i++;
          return { t: 'array', items, start, end: i };
        }
        fail(`expected "," or "]", found ${describe(i)}`);
      }
    }
    if (c === 34) return readString();
    if (text.startsWith('true', i)) {
      i += 4;
      return { t: 'literal', v: true, start, end: i };
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return { t: 'literal', v: false, start, end: i };
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return { t: 'literal', v: null, start, end: i };
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m && m[0].length > 0) {
      i += m[0].length;
      return { t: 'number', v: Number(m[0]), start, end: i };
    }
    return fail(`unexpected ${describe(i)}`);
  };

  try {
    // A byte order mark is harmless.
    if (text.charCodeAt(i) === 0xfeff) i++;
    const value = readValue(0);
    skipWs();
    if (i < n) fail(`unexpected ${describe(i)} after the JSON value`);
    return { value };
  } catch (e) {
    if (e instanceof Failure) return { error: { offset: e.offset, message: e.message } };
    if (e instanceof RangeError) return { error: { offset: i, message: 'nested too deeply' } };
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
