// Cluster-state text (kubectl's JSON or YAML) to plain values, with the start offset of every object so the
// objects read from it can point back into the file. JSON takes the fast path (the engine's JSON.parse plus one
// scan for where each object starts); YAML, and JSON that JSON.parse refuses, go through readers that give a
// diagnostic with the offset of what is wrong, and keep what could be read.
import { parseAllDocuments, isAlias, isMap, isScalar, isSeq, type Document, type Node as YamlNode } from 'yaml';
import { readJson, type JValue } from '../parse/nft/jsonReader';
import { t } from '../l10n';
import { grown } from '../model/typed-arrays';

/** A problem found while reading the text, at an offset. */
export interface TextProblem {
  offset: number;
  code: string;
  message: string;
  severity: 'error' | 'warning';
}

export interface ReadText {
  /** The top-level values: one per JSON value or YAML document. */
  documents: unknown[];
  /** Where each object (not array, not scalar) starts in the text. */
  offsets: Map<object, number>;
  problems: TextProblem[];
  json: boolean;
}

/** Deeper than any Kubernetes object; hostile input stops here instead of exhausting the stack. */
export const MAX_DEPTH = 512;
/** Nodes that YAML aliases may add in one file: a "billion laughs" stops here. */
export const MAX_ALIAS_NODES = 100_000;

export function readText(text: string): ReadText {
  const first = firstNonSpace(text);
  const json = text.charCodeAt(first) === 123 || text.charCodeAt(first) === 91;
  const out: ReadText = { documents: [], offsets: new Map(), problems: [], json };
  if (!json) readYamlText(text, out);
  else {
    readJsonText(text, first, out);
    // Flow-style YAML (`{kind: Service, …}`) starts like JSON: when JSON gives nothing, clean YAML wins.
    if (out.documents.length === 0 && out.problems.length > 0) {
      const yaml: ReadText = { documents: [], offsets: new Map(), problems: [], json: false };
      readYamlText(text, yaml);
      if (yaml.problems.length === 0) return yaml;
    }
  }
  return out;
}

function firstNonSpace(text: string): number {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
}

// ---- JSON ----

function readJsonText(text: string, from: number, out: ReadText): void {
  if (fastJson(text, from, text.length, out)) return;
  const values = topLevelValues(text, from);
  for (const [start, end] of values) {
    if (values.length === 1 || !fastJson(text, start, end, out)) exactJson(text, start, end, out);
  }
}

/**
 * Where each top-level JSON value starts and ends: usually one, several when lists were appended to one file
 * (`kubectl get … -o json >> file`). A value left open runs to the end of the text.
 */
function topLevelValues(text: string, from: number): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let start = from;
  const n = text.length;
  for (let i = from; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) i = stringEnd(text, i);
    else if (c === 123 || c === 91) {
      if (depth === 0) start = i;
      depth++;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) out.push([start, i + 1]);
      if (depth < 0) break;
    } else if (depth === 0 && c > 32) {
      // Not JSON between values: the exact reader says where.
      return [[from, n]];
    }
  }
  if (depth > 0 || out.length === 0) out.push([start, n]);
  return out;
}

/** The offset of the closing quote of the string that opens at `i` (the text's end when it is not closed). */
function stringEnd(text: string, i: number): number {
  for (;;) {
    const j = text.indexOf('"', i + 1);
    if (j < 0) return text.length;
    let k = j - 1;
    while (text.charCodeAt(k) === 92) k--;
    if ((j - 1 - k) % 2 === 0) return j;
    i = j;
  }
}

/** Offsets of every `{` outside strings in [start, end): JSON.parse makes the objects in this order. */
function objectStarts(text: string, start: number, end: number): Int32Array {
  let starts = new Int32Array(1024);
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) i = stringEnd(text, i);
    else if (c === 123) {
      if (n === starts.length) starts = grown(starts, n * 2);
      starts[n++] = i;
    }
  }
  return starts.subarray(0, n);
}

/**
 * JSON.parse, then each object's offset by walking the value in the order its objects were written. False
 * when that order is not the text's (a repeated key, an integer-like key, which objects list first) or the
 * value is nested too deeply: the exact reader handles those.
 */
function fastJson(text: string, start: number, end: number, out: ReadText): boolean {
  let value: unknown;
  try {
    value = JSON.parse(start === 0 && end === text.length ? text : text.slice(start, end));
  } catch {
    return false;
  }
  // kubectl's indented output first (cheap), then any JSON.
  for (const scan of [prettyObjectStarts, objectStarts]) {
    const offsets = out.offsets.size === 0 ? new Map<object, number>() : out.offsets;
    const placed = placeObjects(value, scan(text, start, end), offsets);
    if (placed === 'order') return false;
    if (placed === 'placed') {
      out.offsets = offsets;
      out.documents.push(value);
      return true;
    }
  }
  return false;
}

/**
 * Gives each object of `value` its start, in the order JSON.parse made them: 'placed', 'count' when there are
 * not as many starts as objects, 'order' when the order cannot be the text's (integer-like keys, too deep).
 */
function placeObjects(value: unknown, starts: Int32Array, offsets: Map<object, number>): 'placed' | 'count' | 'order' {
  let next = 0;
  let order = false;
  const walk = (v: unknown, depth: number): boolean => {
    if (v === null || typeof v !== 'object') return true;
    if (depth > MAX_DEPTH) return !(order = true);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (!walk(v[i], depth + 1)) return false;
      return true;
    }
    if (next >= starts.length) return false;
    offsets.set(v, starts[next++]);
    for (const key in v) {
      const d = key.charCodeAt(0);
      if (d >= 48 && d <= 57 && /^(?:0|[1-9]\d*)$/.test(key)) return !(order = true);
      if (!walk((v as Record<string, unknown>)[key], depth + 1)) return false;
    }
    return true;
  };
  if (walk(value, 0) && next === starts.length) return 'placed';
  return order ? 'order' : 'count';
}

/**
 * Object starts in indented JSON (kubectl's, JSON.stringify's with an indent) without reading the strings: a `{`
 * that ends its line, or a `{}` after `": "` or alone on its line, cannot be inside a string. In other layouts
 * some starts are missed or (a string holding `": {}"`) one is extra; placeObjects then finds the count wrong.
 */
function prettyObjectStarts(text: string, start: number, end: number): Int32Array {
  let starts = new Int32Array(1024);
  let n = 0;
  for (let i = text.indexOf('{', start); i >= 0 && i < end; i = text.indexOf('{', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next === 10 || next === 13 || (next === 125 && emptyObjectValue(text, i, start))) {
      if (n === starts.length) starts = grown(starts, n * 2);
      starts[n++] = i;
    }
  }
  return starts.subarray(0, n);
}

function emptyObjectValue(text: string, i: number, start: number): boolean {
  if (text.charCodeAt(i - 1) === 32 && text.charCodeAt(i - 2) === 58 && text.charCodeAt(i - 3) === 34) return true;
  let j = i - 1;
  while (j >= start && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j--;
  return j < start || text.charCodeAt(j) === 10 || text.charCodeAt(j) === 13;
}

/**
 * The reader that knows where it failed: its error, then what came before it, closed where it was cut (the
 * same text up to there, so the fast path gives the same offsets).
 */
function exactJson(text: string, start: number, end: number, out: ReadText): void {
  const slice = start === 0 && end === text.length ? text : text.slice(start, end);
  const read = readJson(slice);
  if (read.value !== undefined) {
    out.documents.push(fromJValue(read.value, start, out.offsets));
    return;
  }
  const error = read.error!;
  out.problems.push({ offset: start + error.offset, code: 'cluster-bad-json', severity: 'error', message: t('This is not valid JSON: {0}. What comes before it is still read.', error.message) });
  const cut = salvagePoint(slice, error.offset);
  if (cut === undefined) return;
  const closed = text.slice(0, start + cut.at) + cut.closers;
  if (fastJson(closed, start, closed.length, out)) return;
  const again = readJson(closed.slice(start));
  if (again.value !== undefined) out.documents.push(fromJValue(again.value, start, out.offsets));
}

/**
 * The last point before `errorAt` where a top-level property or an item of a top-level array (a List's
 * `items`) ends, with what closes the containers open there: the text up to it, closed, is valid JSON.
 */
function salvagePoint(text: string, errorAt: number): { at: number; closers: string } | undefined {
  const stack: number[] = [];
  let best: { at: number; closers: string } | undefined;
  const close = (): string =>
    stack
      .map((c) => (c === 123 ? '}' : ']'))
      .reverse()
      .join('');
  for (let i = 0; i < errorAt; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
      continue;
    }
    if (c === 123 || c === 91) stack.push(c);
    else if (c === 125 || c === 93) {
      stack.pop();
      if (stack.length > 0 && stack.length <= 2) best = { at: i + 1, closers: close() };
    } else if (c === 44 && stack.length <= 2) best = { at: i, closers: close() };
  }
  return best;
}

function fromJValue(v: JValue, base: number, offsets: Map<object, number>): unknown {
  switch (v.t) {
    case 'object': {
      const o: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      offsets.set(o, base + v.start);
      for (let k = 0; k < v.keys.length; k++) o[v.keys[k]] = fromJValue(v.values[k], base, offsets);
      return o;
    }
    case 'array':
      return v.items.map((item) => fromJValue(item, base, offsets));
    default:
      return v.v;
  }
}

// ---- YAML ----

function readYamlText(text: string, out: ReadText): void {
  const tooDeep = (offset: number) => out.problems.push({ offset, code: 'cluster-too-deep', severity: 'error', message: t('This file is nested too deeply to be a Kubernetes object list.') });
  // The library recurses into flow collections and spends seconds unwinding a stack overflow: not for these.
  const deepAt = flowDepthOver(text, MAX_DEPTH);
  if (deepAt >= 0) return void tooDeep(deepAt);
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: false }) as Document.Parsed[];
  } catch (e) {
    // The library's own recursion on hostile nesting, or anything else it did not expect: never thrown on.
    if (e instanceof RangeError) return void tooDeep(0);
    out.problems.push({ offset: 0, code: 'cluster-bad-yaml', severity: 'error', message: t('This is not valid YAML: {0}', e instanceof Error ? firstLine(e.message) : String(e)) });
    return;
  }
  if (!Array.isArray(docs)) return;
  const budget: AliasBudget = { aliasNodes: MAX_ALIAS_NODES, warned: false, deep: false, targets: new Map() };
  for (const doc of docs) {
    for (const e of doc.errors) {
      // The library reports its own stack overflow as a syntax error.
      if (/call stack/i.test(e.message)) {
        if (!budget.deep) tooDeep(e.pos[0]);
        budget.deep = true;
      } else out.problems.push({ offset: e.pos[0], code: 'cluster-bad-yaml', severity: 'error', message: t('This is not valid YAML: {0}', firstLine(e.message)) });
    }
    if (doc.contents === null) continue;
    out.documents.push(fromYaml(doc.contents, doc, 0, false, budget, out));
  }
}

/**
 * Where flow brackets (`[`, `{`) first nest deeper than `max`, or -1. Brackets in quotes count too, so that stray
 * ones cannot add up over a long file the count starts again at each line that starts a top-level key or item.
 */
function flowDepthOver(text: string, max: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) {
      if (++depth > max) return i;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
    else if (c === 10 && depth > 0 && /[^\s[\]{}]/.test(text[i + 1] ?? ' ')) depth = 0;
  }
  return -1;
}

function firstLine(message: string): string {
  const nl = message.indexOf('\n');
  return nl < 0 ? message : message.slice(0, nl);
}

interface AliasBudget {
  aliasNodes: number;
  warned: boolean;
  deep: boolean;
  /** Alias.resolve searches the whole document: once per alias is enough. */
  targets: Map<object, unknown>;
}

function fromYaml(node: unknown, doc: Document.Parsed, depth: number, viaAlias: boolean, budget: AliasBudget, out: ReadText): unknown {
  if (depth > MAX_DEPTH) {
    if (!budget.deep) out.problems.push({ offset: offsetOf(node), code: 'cluster-too-deep', severity: 'error', message: t('This file is nested too deeply to be a Kubernetes object list.') });
    budget.deep = true;
    return null;
  }
  if (viaAlias && --budget.aliasNodes < 0) {
    if (!budget.warned)
      out.problems.push({ offset: offsetOf(node), code: 'cluster-yaml-aliases', severity: 'error', message: t('YAML aliases here expand to more than {0} values; the rest of them is not read.', MAX_ALIAS_NODES) });
    budget.warned = true;
    return null;
  }
  if (isAlias(node)) {
    if (!budget.targets.has(node)) budget.targets.set(node, node.resolve(doc));
    return fromYaml(budget.targets.get(node), doc, depth + 1, true, budget, out);
  }
  if (isScalar(node)) return node.value;
  if (isSeq(node)) return node.items.map((item) => fromYaml(item, doc, depth + 1, viaAlias, budget, out));
  if (isMap(node)) {
    const o: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    if (!viaAlias) out.offsets.set(o, offsetOf(node));
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key !== undefined) o[key] = fromYaml(pair.value, doc, depth + 1, viaAlias, budget, out);
    }
    return o;
  }
  return null;
}

function offsetOf(node: unknown): number {
  const r = (node as YamlNode | null)?.range;
  return r ? r[0] : 0;
}
