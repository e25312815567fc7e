// `nft -j list ruleset` JSON (libnftables-json(5)) → the same nft model as the text parser builds. Ranges
// point at the JSON objects in the text (names at their string values), so navigation works in a .json
// dump too. Malformed JSON gets one diagnostic at the offending line and column; nothing here throws.
import type { Severity } from '../../model/diagnostics';
import {
  isNftFamily,
  type NftChain,
  type NftCommand,
  type NftCommandVerb,
  type NftElement,
  type NftExpression,
  type NftFamily,
  type NftObjectKind,
  type NftRelationalOperator,
  type NftRule,
  type NftRuleset,
  type NftSetExpression,
  type NftSetRefExpression,
  type NftStatement,
  type NftTable,
  type NftVerdictValue,
} from '../../model/nft';
import type { Range } from '../../model/range';
import type { SymbolDefinition, SymbolKind } from '../../model/symbols';
import { t } from '../../l10n';
import { LineIndex, num, prop, readJson, str, stringProp, type JObject, type JValue } from './jsonReader';
import { promptsAfter, promptsBefore } from '../prompt';
import { emptyNftRuleset } from './parser';
import { prefixProblem } from './statements';
import { nameTable } from '../../model/name-table';
import { appendAll } from '../../model/append';
import { NftSink } from './sink';

const SIMPLE_VERDICTS = new Set(['accept', 'drop', 'continue', 'return']);
const BITMASK_KEYS = new Set(['ct:state', 'ct:status', 'ct:event', 'tcp:flags']);
const BINOPS = new Set(['&', '|', '^', '<<', '>>']);
const OBJECT_KINDS: Record<string, NftObjectKind> = nameTable({
  counter: 'counter',
  quota: 'quota',
  limit: 'limit',
  secmark: 'secmark',
  synproxy: 'synproxy',
  'ct helper': 'ct helper',
  'ct timeout': 'ct timeout',
  'ct expectation': 'ct expectation',
});
const COMMAND_VERBS = new Set(['add', 'create', 'insert', 'replace', 'delete', 'destroy', 'flush', 'list', 'reset', 'rename']);

/** Seconds as nft prints durations: 10800 → `3h`, 90 → `1m30s`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  let rest = Math.floor(seconds);
  const ms = Math.round((seconds - rest) * 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (ms > 0) parts.push(`${ms}ms`);
  return parts.length > 0 ? parts.join('') : '0s';
}

interface PendingRef {
  kind: 'chain' | 'set';
  table: NftTable;
  name: string;
  range: Range;
  role: 'jump' | 'goto' | 'lookup' | 'rule-owner' | 'command';
}

class NftJsonBuilder {
  /** Where the model is built (the text reader builds through one too). */
  private readonly sink = new NftSink(0, false, { problems: (count) => t('{0} more problems were not reported.', count) });
  private readonly tables = this.sink.tables;
  readonly commands: NftCommand[] = [];
  readonly ruleByLine = new Map<number, NftRule>();
  private readonly lines: LineIndex;
  private producer: string | undefined;
  private readonly pending: PendingRef[] = [];
  private readonly defined = new Map<string, SymbolDefinition>();
  private readonly setKinds = new Map<string, 'set' | 'map'>();
  private readonly edited = this.sink.edited;
  private readonly deletedChains = this.sink.deletedChains;
  private table: NftTable | undefined;

  constructor(private readonly text: string) {
    this.lines = new LineIndex(text);
  }

  private diag(range: Range, severity: Severity, code: string, message: string): void {
    this.sink.diag(range, severity, code, message);
  }

  private range(v: { start: number; end: number }): Range {
    return { start: this.position(v.start), end: this.position(v.end) };
  }

  /**
   * An offset as a position; the end of a text that ends with a line break stays on the last line, and the \n of
   * a \r\n is where its \r is (the line ends before both).
   */
  private position(offset: number): { line: number; character: number } {
    const p = this.lines.position(offset);
    if (p.line > 0 && p.line >= this.lineCount()) return this.position(offset - 1);
    if (this.text.charCodeAt(offset) === 10 && this.text.charCodeAt(offset - 1) === 13) return this.lines.position(offset - 1);
    return p;
  }

  private lineCount(): number {
    const n = this.lines.lineCount;
    return n > 1 && /(?:\r\n|\r|\n)$/.test(this.text.slice(-2)) ? n - 1 : n;
  }

  /** The inside of a string value (without its quotes), for names. */
  private innerRange(v: JValue): Range {
    if (v.t === 'string' && v.end - v.start >= 2) return this.range({ start: v.start + 1, end: v.end - 1 });
    return this.range(v);
  }

  build(): NftRuleset {
    // A pasted terminal session: the prompt that ran `nft -j list ruleset` before the JSON, the next prompt after it.
    const before = promptsBefore(this.text, this.text.charCodeAt(0) === 0xfeff ? 1 : 0);
    const after = promptsAfter(this.text, before.start);
    for (const p of [...before.prompts, ...after.prompts]) this.diag(this.range(p), 'information', 'shell-prompt', t('A shell prompt and command, not nft output: ignored.'));
    // Cutting the end keeps every offset, and so every line and column, those of the whole text.
    const { value, error } = readJson(after.end < this.text.length ? this.text.slice(0, after.end) : this.text, before.start);
    if (error) {
      const p = this.position(error.offset);
      // The character there, if any: at the end of the text (or of a line) the range is empty.
      const one = error.offset < this.text.length && !'\r\n'.includes(this.text[error.offset]) ? 1 : 0;
      this.diag({ start: p, end: { line: p.line, character: p.character + one } }, 'error', 'bad-json', t('Not valid JSON at line {0}, column {1}: {2}.', p.line + 1, p.character + 1, error.message));
    } else if (value) {
      this.root(value);
    }
    this.edited.settleAll();
    this.deletedChains.apply();
    this.resolveReferences();
    return {
      dialect: 'nftables',
      producer: this.producer,
      format: 'json',
      tables: this.tables,
      tableById: this.sink.tableById,
      diagnostics: this.sink.closeDiagnostics(),
      symbols: this.sink.symbols,
      lineCount: this.lineCount(),
      defines: [],
      includes: [],
      commands: this.commands,
      comments: [],
      ruleByLine: this.ruleByLine,
    };
  }

  private root(value: JValue): void {
    const list = prop(value, 'nftables');
    if (!list || list.t !== 'array') {
      this.diag(this.range({ start: value.start, end: Math.min(value.end, value.start + 1) }), 'error', 'not-nft-json', t('This JSON is not an nft ruleset: it needs {"nftables": [ … ]}.'));
      return;
    }
    for (const item of list.items) {
      if (item.t !== 'object' || item.keys.length !== 1) {
        this.diag(this.range(item), 'error', 'bad-json-object', t('Each entry of "nftables" is an object with one key such as "table", "chain" or "rule".'));
        continue;
      }
      const kind = item.keys[0];
      const body = item.values[0];
      if (COMMAND_VERBS.has(kind)) {
        this.command(kind as NftCommandVerb, body, item);
        continue;
      }
      this.object(kind, body, item, 'add');
    }
  }

  private command(verb: NftCommandVerb, body: JValue, item: JObject): void {
    if (body.t !== 'object' || body.keys.length !== 1) {
      this.diag(this.range(item), 'error', 'bad-json-object', t('A "{0}" command holds one object such as "table" or "rule".', verb));
      return;
    }
    const kind = body.keys[0];
    const inner = body.values[0];
    const cmd: NftCommand = { verb, object: kind, text: this.text.slice(item.start, Math.min(item.end, item.start + 200)), range: this.range(item) };
    const family = str(prop(inner, 'family'));
    if (family && isNftFamily(family)) cmd.family = family;
    const tableName = kind === 'table' ? str(prop(inner, 'name')) : str(prop(inner, 'table'));
    if (tableName) cmd.table = tableName;
    const name = kind !== 'table' ? (str(prop(inner, 'name')) ?? str(prop(inner, 'chain'))) : undefined;
    if (name) cmd.name = name;
    this.commands.push(cmd);
    if (verb === 'add' || verb === 'create' || verb === 'insert' || verb === 'replace') {
      this.object(kind, inner, item, verb);
      return;
    }
    if (verb === 'flush' && kind === 'ruleset') {
      this.edited.settleAll();
      this.sink.removeAllTables();
      return;
    }
    const table = this.sink.tableById.get(`${family ?? 'ip'} ${tableName}`);
    if (!table) return;
    if (verb === 'delete' || verb === 'destroy') {
      if (kind === 'table') {
        for (const c of this.deletedChains.live(table)) this.edited.settle(c);
        this.sink.removeTable(table);
      } else if (kind === 'chain' && name) {
        const chain = table.chainByName.get(name);
        if (chain) {
          this.edited.settle(chain);
          this.deletedChains.delete(table, chain);
          table.chainByName.delete(name);
        }
      } else if (kind === 'rule') {
        const chain = table.chainByName.get(str(prop(inner, 'chain')) ?? '');
        const handle = num(prop(inner, 'handle'));
        if (chain && handle !== undefined) {
          const list = this.edited.list(chain);
          for (let node = list.withHandle(handle); node; node = list.withHandle(handle)) list.remove(node);
        }
      }
    } else if (verb === 'flush') {
      if (kind === 'table') for (const c of this.deletedChains.live(table)) this.flushChain(c);
      else if (kind === 'chain' && name) {
        const chain = table.chainByName.get(name);
        if (chain) this.flushChain(chain);
      } else if ((kind === 'set' || kind === 'map') && name) {
        const set = table.setByName.get(name) ?? table.mapByName.get(name);
        if (set) set.elements = [];
      }
    }
  }

  private object(kind: string, body: JValue, item: JObject, verb: NftCommandVerb): void {
    switch (kind) {
      case 'metainfo': {
        const version = str(prop(body, 'version'));
        this.producer = version && /^\d/.test(version) ? `nft v${version}` : 'nft';
        return;
      }
      case 'table':
        this.tableObject(body, item);
        return;
      case 'chain':
        this.chainObject(body, item);
        return;
      case 'rule':
        this.ruleObject(body, item, verb);
        return;
      case 'set':
      case 'map':
      case 'meter':
        this.setObject(kind === 'map' ? 'map' : 'set', body, item);
        return;
      case 'element':
        this.elementObject(body, item);
        return;
      case 'flowtable':
        this.flowtableObject(body, item);
        return;
      default:
        if (OBJECT_KINDS[kind]) {
          this.namedObject(OBJECT_KINDS[kind], body, item);
          return;
        }
        this.diag(this.range(item), 'warning', 'unknown-json-object', t('Unknown nft JSON object "{0}"; ignored.', kind));
    }
  }

  private familyOf(body: JValue, item: JObject): NftFamily | undefined {
    const family = str(prop(body, 'family'));
    if (family && isNftFamily(family)) return family;
    this.diag(this.range(item), 'error', 'bad-family', t('Unknown or missing family {0}.', JSON.stringify(family ?? '')));
    return undefined;
  }

  /** The table an object belongs to (`"family"` and `"table"` properties). */
  private ownerTable(body: JValue, item: JObject): NftTable | undefined {
    const family = this.familyOf(body, item);
    const tableValue = prop(body, 'table');
    const name = str(tableValue);
    if (!family || name === undefined || !tableValue) {
      if (family) this.diag(this.range(item), 'error', 'bad-json-object', t('"table" is missing.'));
      return undefined;
    }
    const table = this.sink.table(family, name, this.innerRange(tableValue), this.range(item));
    this.table = table;
    return table;
  }

  private tableObject(body: JValue, item: JObject): void {
    const family = this.familyOf(body, item);
    const nameValue = prop(body, 'name');
    const name = str(nameValue);
    if (!family || name === undefined || !nameValue) {
      if (family) this.diag(this.range(item), 'error', 'bad-json-object', t('"name" is missing.'));
      return;
    }
    const range = this.range(item);
    const nameRange = this.innerRange(nameValue);
    const table = this.sink.table(family, name, nameRange, range);
    if (this.sink.declareTable(table, nameRange, range)) this.sink.defineTable(family, name, nameRange, range);
    const handle = num(prop(body, 'handle'));
    if (handle !== undefined) table.handle = handle;
    const comment = str(prop(body, 'comment'));
    if (comment !== undefined) table.comment = comment;
    appendAll(table.flags, this.strings(prop(body, 'flags')));
  }

  private strings(v: JValue | undefined): string[] {
    if (!v) return [];
    if (v.t === 'string') return [v.v];
    if (v.t === 'array') return v.items.flatMap((x) => (x.t === 'string' ? [x.v] : x.t === 'number' ? [String(x.v)] : []));
    return [];
  }

  /** Defines a set, map or object of `table` unless it is defined already; whether it defined it. */
  private define(kind: SymbolKind, table: NftTable, name: string, nameRange: Range, range: Range): boolean {
    const key = `${kind}\u0000${table.id}\u0000${name}`;
    if (this.defined.has(key)) return false;
    this.defined.set(key, this.sink.defineObject(kind, table, name, nameRange, range));
    return true;
  }

  /** Defines a chain unless it is defined already; whether it defined it. */
  private defineChain(table: NftTable, chain: NftChain, nameRange: Range, range: Range): boolean {
    const key = `chain\u0000${table.id}\u0000${chain.name}`;
    if (this.defined.has(key)) return false;
    this.defined.set(key, this.sink.defineChain(table, chain, nameRange, range, false));
    return true;
  }

  private chainObject(body: JValue, item: JObject): void {
    const table = this.ownerTable(body, item);
    const nameValue = stringProp(body, 'name');
    if (!table || !nameValue) return;
    const name = nameValue.v;
    const range = this.range(item);
    const nameRange = this.innerRange(nameValue);
    let chain = table.chainByName.get(name);
    if (!chain) {
      chain = this.sink.newChain(table, name, nameRange, range);
      chain.declared = true;
    } else if (!chain.declared) {
      chain.declared = true;
      chain.range = chain.fullRange = range;
      chain.nameRange = nameRange;
    }
    if (!this.defineChain(table, chain, nameRange, range)) this.pending.push({ kind: 'chain', table, name, range: nameRange, role: 'command' });
    const handle = num(prop(body, 'handle'));
    if (handle !== undefined) chain.handle = handle;
    const type = str(prop(body, 'type'));
    if (type !== undefined) chain.type = type;
    const hook = str(prop(body, 'hook'));
    if (hook !== undefined) chain.hook = hook;
    const priority = this.priority(body);
    if (priority) chain.priority = priority;
    const policy = str(prop(body, 'policy'));
    if (policy !== undefined) chain.policy = policy;
    const dev = prop(body, 'dev');
    if (dev && dev.t === 'string') chain.device = dev.v;
    else if (dev && dev.t === 'array') chain.devices = this.strings(dev);
    const comment = str(prop(body, 'comment'));
    if (comment !== undefined) chain.comment = comment;
  }

  /** A chain's or flowtable's `"prio"` when it is a number. */
  private priority(body: JValue): NftChain['priority'] {
    const prio = prop(body, 'prio');
    return prio && prio.t === 'number' ? { value: prio.v, text: String(prio.v), range: this.range(prio) } : undefined;
  }

  private chainFor(table: NftTable, body: JValue): NftChain | undefined {
    const chainValue = prop(body, 'chain');
    const name = str(chainValue);
    if (name === undefined || !chainValue) return undefined;
    const nameRange = this.innerRange(chainValue);
    this.pending.push({ kind: 'chain', table, name, range: nameRange, role: 'rule-owner' });
    return table.chainByName.get(name) ?? this.sink.newChain(table, name, nameRange, nameRange);
  }

  private ruleObject(body: JValue, item: JObject, verb: NftCommandVerb): void {
    const table = this.ownerTable(body, item);
    if (!table) return;
    const chain = this.chainFor(table, body);
    if (!chain) {
      this.diag(this.range(item), 'error', 'bad-json-object', t('"chain" is missing.'));
      return;
    }
    const range = this.range(item);
    const exprValue = prop(body, 'expr');
    const statements: NftStatement[] = [];
    if (exprValue && exprValue.t === 'array') {
      for (const st of exprValue.items) statements.push(this.statement(st));
    } else {
      this.diag(range, 'error', 'bad-json-object', t('"expr" (the statements of the rule) is missing.'));
    }
    const rule: NftRule = { tableId: table.id, chain: chain.name, index: 0, statements, raw: '', range };
    const comment = prop(body, 'comment');
    if (comment && comment.t === 'string') {
      rule.comment = comment.v;
      statements.push({ kind: 'comment', comment: comment.v, text: `comment ${JSON.stringify(comment.v)}`, range: this.range(comment) });
    }
    rule.raw = statements.map((s) => s.text).join(' ');
    const handle = num(prop(body, 'handle'));
    if (handle !== undefined) rule.handle = handle;
    if (verb === 'insert') {
      const position = num(prop(body, 'position')) ?? num(prop(body, 'handle'));
      const list = this.edited.list(chain);
      // Before the rule with that handle, else first.
      list.insertBefore((position !== undefined ? list.withHandle(position) : undefined) ?? list.first(), rule);
    } else if (verb === 'replace' && handle !== undefined) {
      const list = this.edited.list(chain);
      const old = list.withHandle(handle);
      if (old) list.replace(old, rule);
      else list.insertBefore(undefined, rule);
    } else {
      this.edited.push(chain, rule);
    }
    if (!this.ruleByLine.has(range.start.line)) this.ruleByLine.set(range.start.line, rule);
  }

  private flushChain(chain: NftChain): void {
    this.edited.settle(chain);
    chain.rules = [];
  }

  private setObject(kind: 'set' | 'map', body: JValue, item: JObject): void {
    const table = this.ownerTable(body, item);
    const nameValue = stringProp(body, 'name');
    if (!table || !nameValue) return;
    const name = nameValue.v;
    const range = this.range(item);
    const nameRange = this.innerRange(nameValue);
    const set = (kind === 'map' ? table.mapByName.get(name) : table.setByName.get(name)) ?? this.sink.newSet(table, kind, name, nameRange, range);
    if (this.define(kind, table, name, nameRange, range)) this.setKinds.set(`${table.id}\u0000${name}`, kind);
    else this.pending.push({ kind: 'set', table, name, range: nameRange, role: 'command' });
    const type = prop(body, 'type');
    if (type) {
      const parts = this.typeParts(type);
      set.keyType = parts.parts;
      set.keyTypeof = parts.typeof;
    }
    if (set.kind === 'map') {
      const data = prop(body, 'map');
      if (data) {
        const parts = this.typeParts(data);
        set.dataType = parts.parts;
        set.dataTypeof = parts.typeof;
      }
    }
    appendAll(set.flags, this.strings(prop(body, 'flags')));
    const timeout = num(prop(body, 'timeout'));
    if (timeout !== undefined) set.timeout = formatDuration(timeout);
    const gc = num(prop(body, 'gc-interval'));
    if (gc !== undefined) set.gcInterval = formatDuration(gc);
    const size = num(prop(body, 'size'));
    if (size !== undefined) set.size = size;
    const policy = str(prop(body, 'policy'));
    if (policy !== undefined) set.policy = policy;
    const comment = str(prop(body, 'comment'));
    if (comment !== undefined) set.comment = comment;
    if (prop(body, 'auto-merge')) set.autoMerge = true;
    const handle = num(prop(body, 'handle'));
    if (handle !== undefined) set.handle = handle;
    const elem = prop(body, 'elem');
    if (elem && elem.t === 'array') {
      this.table = table;
      for (const e of elem.items) {
        const element = this.element(e, set.kind === 'map');
        if (element) set.elements.push(element);
      }
    }
  }

  /** `"ipv4_addr"`, `["ipv4_addr", "inet_service"]`, `{"typeof": {"concat": [ … ]}}`. */
  private typeParts(v: JValue): { parts: string[]; typeof: boolean } {
    if (v.t === 'string') return { parts: [v.v], typeof: false };
    if (v.t === 'array') return { parts: v.items.map((x) => (x.t === 'string' ? x.v : this.expression(x).text)), typeof: false };
    const tf = prop(v, 'typeof');
    if (tf) {
      const e = this.expression(tf);
      return { parts: e.kind === 'concat' ? e.parts.map((p) => p.text) : [e.text], typeof: true };
    }
    return { parts: [this.text.slice(v.start, v.end)], typeof: false };
  }

  private elementObject(body: JValue, item: JObject): void {
    const table = this.ownerTable(body, item);
    const nameValue = stringProp(body, 'name');
    if (!table || !nameValue) return;
    const name = nameValue.v;
    this.pending.push({ kind: 'set', table, name, range: this.innerRange(nameValue), role: 'command' });
    const set = table.mapByName.get(name) ?? table.setByName.get(name);
    // `"elem": [ … ]` or, as libnftables-json documents it, `"elem": {"set": [ … ]}`
    let elem = prop(body, 'elem');
    if (elem && elem.t === 'object') elem = prop(elem, 'set');
    if (!elem || elem.t !== 'array') return;
    for (const e of elem.items) {
      const element = this.element(e, set === undefined || set.kind === 'map');
      if (element && set) set.elements.push(element);
    }
  }

  private flowtableObject(body: JValue, item: JObject): void {
    const table = this.ownerTable(body, item);
    const nameValue = stringProp(body, 'name');
    if (!table || !nameValue) return;
    const name = nameValue.v;
    const range = this.range(item);
    const ft = {
      name,
      tableId: table.id,
      devices: this.strings(prop(body, 'dev')),
      flags: this.strings(prop(body, 'flags')),
      range,
      nameRange: this.innerRange(nameValue),
      fullRange: range,
    } as NftTable['flowtables'][number];
    const hook = str(prop(body, 'hook'));
    if (hook !== undefined) ft.hook = hook;
    const priority = this.priority(body);
    if (priority) ft.priority = priority;
    const handle = num(prop(body, 'handle'));
    if (handle !== undefined) ft.handle = handle;
    table.flowtables.push(ft);
  }

  private namedObject(kind: NftObjectKind, body: JValue, item: JObject): void {
    const table = this.ownerTable(body, item);
    const nameValue = stringProp(body, 'name');
    if (!table || !nameValue || body.t !== 'object') return;
    const name = nameValue.v;
    const range = this.range(item);
    const ob: NftTable['objects'][number] = { kind, name, tableId: table.id, properties: [], range, nameRange: this.innerRange(nameValue), fullRange: range };
    for (let k = 0; k < body.keys.length; k++) {
      const key = body.keys[k];
      if (key === 'family' || key === 'table' || key === 'name') continue;
      const v = body.values[k];
      if (key === 'handle' && v.t === 'number') {
        ob.handle = v.v;
        continue;
      }
      if (key === 'comment' && v.t === 'string') {
        ob.comment = v.v;
        continue;
      }
      const value = v.t === 'string' ? v.v : v.t === 'number' || v.t === 'literal' ? String(v.v) : this.text.slice(v.start, v.end);
      ob.properties.push({ name: key, value, text: `${key} ${value}`, range: this.range(v) });
    }
    table.objects.push(ob);
  }

  // ---------------------------------------------------------------------------------------------------
  // Statements

  private statement(v: JValue): NftStatement {
    const range = this.range(v);
    if (v.t !== 'object' || v.keys.length !== 1) return { kind: 'raw', text: this.jsonText(v), range };
    const key = v.keys[0];
    const body = v.values[0];
    if (SIMPLE_VERDICTS.has(key)) return { kind: 'verdict', verdict: key as 'accept', text: key, range };
    return this.typedStatement(key, body, range) ?? { kind: 'raw', text: this.render(v), range };
  }

  /** The statement of type `key` as the model types it, or undefined for one kept raw. */
  private typedStatement(key: string, body: JValue, range: Range): NftStatement | undefined {
    switch (key) {
      case 'jump':
      case 'goto':
        return this.jumpStatement(key, body, range);
      case 'match':
        return this.matchStatement(body, range);
      case 'vmap':
        return this.vmapStatement(body, range);
      case 'mangle':
        return this.mangleStatement(body, range);
      case 'counter':
        return this.counterStatement(body, range);
      case 'log':
        return this.logStatement(body, range);
      case 'limit':
        return this.limitStatement(body, range);
      case 'quota':
        return this.quotaStatement(body, range);
      case 'reject':
        return this.rejectStatement(body, range);
      case 'dnat':
      case 'snat':
      case 'masquerade':
      case 'redirect':
        return this.natStatement(key, body, range);
      case 'set':
        return this.setUpdateStatement(body, range);
      case 'map':
        return this.mapUpdateStatement(body, range);
      case 'ct helper':
      case 'ct timeout':
      case 'ct expectation':
      case 'secmark':
        return this.objectSetStatement(key, body, range);
      case 'xt':
        return this.xtStatement(body, range);
    }
    return undefined;
  }

  private jumpStatement(key: 'jump' | 'goto', body: JValue, range: Range): NftStatement | undefined {
    const target = prop(body, 'target');
    const chain = str(target);
    if (chain === undefined || !target) return undefined;
    const chainRange = this.innerRange(target);
    this.chainRef(chain, chainRange, key);
    return { kind: 'verdict', verdict: key, chain, chainRange, text: `${key} ${chain}`, range };
  }

  private matchStatement(body: JValue, range: Range): NftStatement | undefined {
    const left = this.expression(prop(body, 'left'));
    const right = this.expression(prop(body, 'right'));
    const written = str(prop(body, 'op')) ?? '==';
    const setLike = right.kind === 'set' || right.kind === 'setRef' || right.kind === 'list';
    let op: NftRelationalOperator;
    let negated = false;
    if (written === '!=') {
      op = setLike ? 'in' : '!=';
      negated = true;
    } else if (written === '==' || written === 'in') {
      // nft -j prints an implicit operator as "==", or as "in" for flags (`ct state new`)
      const bitmask = (left.kind === 'ct' && BITMASK_KEYS.has(`ct:${left.key}`)) || (left.kind === 'payload' && BITMASK_KEYS.has(`${left.protocol}:${left.field}`));
      op = setLike || written === 'in' || bitmask ? 'in' : '==';
    } else if (written === '<' || written === '>' || written === '<=' || written === '>=') {
      op = written;
    } else {
      op = '==';
    }
    const opText = written === 'in' || written === '==' ? '' : ` ${written}`;
    return { kind: 'match', left, op, right, negated, implicit: written === 'in' || written === '==', text: `${left.text}${opText} ${right.text}`, range };
  }

  private vmapStatement(body: JValue, range: Range): NftStatement | undefined {
    const keyExpr = this.expression(prop(body, 'key'));
    const map = this.mapData(prop(body, 'data'));
    return { kind: 'vmap', key: keyExpr, map, text: `${keyExpr.text} vmap ${map.text}`, range };
  }

  private mangleStatement(body: JValue, range: Range): NftStatement | undefined {
    const target = this.expression(prop(body, 'key'));
    const value = this.expression(prop(body, 'value'));
    const text = `${target.text} set ${value.text}`;
    if ((target.kind === 'meta' || target.kind === 'ct') && target.key === 'mark' && !(target.kind === 'ct' && target.direction)) {
      return { kind: 'mark', target: target.kind === 'meta' ? 'meta mark' : 'ct mark', value, text, range };
    }
    return { kind: 'mangle', key: target, value, text, range };
  }

  private counterStatement(body: JValue, range: Range): NftStatement | undefined {
    if (body.t === 'string') return { kind: 'counter', name: body.v, text: `counter name ${JSON.stringify(body.v)}`, range };
    const packets = num(prop(body, 'packets'));
    const bytes = num(prop(body, 'bytes'));
    const out: NftStatement = { kind: 'counter', text: packets !== undefined ? `counter packets ${packets} bytes ${bytes ?? 0}` : 'counter', range };
    if (packets !== undefined) out.packets = packets;
    if (bytes !== undefined) out.bytes = bytes;
    return out;
  }

  private logStatement(body: JValue, range: Range): NftStatement | undefined {
    const options: Record<string, string> = {};
    if (body.t === 'object') {
      for (let k = 0; k < body.keys.length; k++) {
        const x = body.values[k];
        options[body.keys[k]] = x.t === 'string' ? x.v : x.t === 'number' || x.t === 'literal' ? String(x.v) : this.strings(x).join(',');
      }
    }
    const out: NftStatement = { kind: 'log', options, text: ['log', ...Object.entries(options).map(([k, x]) => (k === 'prefix' ? `prefix ${JSON.stringify(x)}` : `${k} ${x}`))].join(' '), range };
    if (options.prefix !== undefined) out.prefix = options.prefix;
    if (options.level !== undefined) out.level = options.level;
    if (options.group !== undefined) out.group = Number(options.group);
    return out;
  }

  private limitStatement(body: JValue, range: Range): NftStatement | undefined {
    if (body.t === 'string') return { kind: 'limit', name: body.v, over: false, text: `limit name ${JSON.stringify(body.v)}`, range };
    const rate = num(prop(body, 'rate'));
    const per = str(prop(body, 'per')) ?? 'second';
    const unit = str(prop(body, 'rate_unit'));
    const over = prop(body, 'inv')?.t === 'literal' && (prop(body, 'inv') as { v: unknown }).v === true;
    const rateText = unit && unit !== 'packets' ? `${rate} ${unit}/${per}` : `${rate}/${per}`;
    const out: NftStatement = { kind: 'limit', over, rate: rateText, text: `limit rate ${over ? 'over ' : ''}${rateText}`, range };
    const burst = num(prop(body, 'burst'));
    if (burst !== undefined && burst > 0) {
      const bu = str(prop(body, 'burst_unit'));
      out.burst = `${burst} ${bu ?? 'packets'}`;
      out.text += ` burst ${out.burst}`;
    }
    return out;
  }

  private quotaStatement(body: JValue, range: Range): NftStatement | undefined {
    if (body.t === 'string') return { kind: 'quota', name: body.v, over: false, text: `quota name ${JSON.stringify(body.v)}`, range };
    const val = num(prop(body, 'val'));
    const unit = str(prop(body, 'val_unit')) ?? 'bytes';
    const over = prop(body, 'inv')?.t === 'literal' && (prop(body, 'inv') as { v: unknown }).v === true;
    const out: NftStatement = { kind: 'quota', over, amount: `${val} ${unit}`, text: `quota ${over ? 'over ' : ''}${val} ${unit}`, range };
    const used = num(prop(body, 'used'));
    if (used !== undefined && used > 0) out.used = `${used} ${str(prop(body, 'used_unit')) ?? 'bytes'}`;
    return out;
  }

  private rejectStatement(body: JValue, range: Range): NftStatement | undefined {
    const type = str(prop(body, 'type'));
    const code = str(prop(body, 'expr'));
    const out: NftStatement = { kind: 'reject', text: 'reject', range };
    if (type) {
      out.type = type === 'tcp reset' ? 'tcp reset' : type;
      out.with = type === 'tcp reset' ? 'tcp reset' : `${type} type ${code ?? ''}`.trim();
      if (code) out.code = code;
      out.text = `reject with ${out.with}`;
    }
    return out;
  }

  private natStatement(key: 'dnat' | 'snat' | 'masquerade' | 'redirect', body: JValue, range: Range): NftStatement | undefined {
    const out: NftStatement = { kind: 'nat', type: key, flags: this.strings(prop(body, 'flags')), text: key, range };
    const family = str(prop(body, 'family'));
    if (family === 'ip' || family === 'ip6') out.family = family;
    const addr = prop(body, 'addr');
    const port = prop(body, 'port');
    if (addr) out.addr = this.expression(addr);
    if (port) out.port = this.expression(port);
    const typeFlags = this.strings(prop(body, 'type_flags'));
    if (typeFlags.length > 0) out.typeFlags = typeFlags;
    const to = out.addr && out.port ? `${out.addr.text}:${out.port.text}` : out.addr ? out.addr.text : out.port ? `:${out.port.text}` : undefined;
    if (out.addr && !out.port) out.to = out.addr;
    else if (out.port && !out.addr) out.to = out.port;
    else if (to !== undefined) out.to = { kind: 'value', value: to, text: to, range };
    out.text = [key, out.family, to !== undefined ? `to ${to}` : undefined, out.flags.length ? out.flags.join(',') : undefined].filter(Boolean).join(' ');
    return out;
  }

  /** The operation and the set (`"set"`) or map (`"map"`) of a set or map update, its reference reported. */
  private updated(body: JValue, which: 'set' | 'map'): { op: 'add' | 'update' | 'delete'; name: string; setRange: Range } | undefined {
    const op = str(prop(body, 'op'));
    const setValue = prop(body, which);
    const setName = str(setValue);
    if (!((op === 'add' || op === 'update' || op === 'delete') && setName !== undefined && setValue)) return undefined;
    const name = setName.replace(/^@/, '');
    const setRange = this.innerRange(setValue);
    this.setRef(name, setRange);
    return { op, name, setRange };
  }

  private setUpdateStatement(body: JValue, range: Range): NftStatement | undefined {
    const update = this.updated(body, 'set');
    if (update) {
      const { op, name, setRange } = update;
      const keyExpr = this.expression(prop(body, 'elem'));
      const stmts = prop(body, 'stmt');
      const statements = stmts && stmts.t === 'array' ? stmts.items.map((s) => this.statement(s).text) : [];
      const out: NftStatement = { kind: 'setUpdate', op, set: name, setRange, key: keyExpr, statements, text: `${op} @${name} { ${[keyExpr.text, ...statements].join(' ')} }`, range };
      const timeout = num(prop(prop(body, 'elem'), 'timeout'));
      if (timeout !== undefined) out.timeout = formatDuration(timeout);
      return out;
    }
    return undefined;
  }

  private mapUpdateStatement(body: JValue, range: Range): NftStatement | undefined {
    // `update @m { ip saddr : tcp sport }`
    const update = this.updated(body, 'map');
    if (update) {
      const { op, name, setRange } = update;
      const keyExpr = this.expression(prop(body, 'elem'));
      const data = this.expression(prop(body, 'data'));
      return { kind: 'setUpdate', op, set: name, setRange, key: keyExpr, data, statements: [], text: `${op} @${name} { ${keyExpr.text} : ${data.text} }`, range };
    }
    return undefined;
  }

  private objectSetStatement(key: string, body: JValue, range: Range): NftStatement | undefined {
    // object references: `ct helper set "ftp"`, `meta secmark set "ssh"`
    const target: NftExpression = key === 'secmark' ? { kind: 'meta', key: 'secmark', text: 'meta secmark', range } : { kind: 'ct', key: key.slice(3), text: key, range };
    const value = this.expression(body);
    return { kind: 'mangle', key: target, value, text: `${target.text} set ${value.text}`, range };
  }

  private xtStatement(body: JValue, range: Range): NftStatement | undefined {
    const type = str(prop(body, 'type'));
    const name = str(prop(body, 'name'));
    if ((type === 'match' || type === 'target' || type === 'watcher') && name) return { kind: 'xt', type, name, text: `xt ${type} ${name}`, range };
    return undefined;
  }

  private chainRef(name: string, range: Range, role: 'jump' | 'goto'): void {
    if (this.table) this.pending.push({ kind: 'chain', table: this.table, name, range, role });
  }

  private setRef(name: string, range: Range): void {
    if (this.table) this.pending.push({ kind: 'set', table: this.table, name, range, role: 'lookup' });
  }

  private jsonText(v: JValue): string {
    return this.text.slice(v.start, Math.min(v.end, v.start + 2000));
  }

  /** nft syntax for a JSON expression or statement nft would print (best effort, for raw items). */
  private render(v: JValue): string {
    if (v.t === 'object' && v.keys.length === 1) {
      const key = v.keys[0];
      const body = v.values[0];
      if (body.t === 'literal' && body.v === null) return key;
      if (body.t === 'object') {
        const parts = body.keys.map((k, i) => {
          const x = body.values[i];
          const value = x.t === 'string' ? x.v : x.t === 'number' || x.t === 'literal' ? String(x.v) : this.expression(x).text;
          return `${k} ${value}`;
        });
        return [key, ...parts].join(' ');
      }
      return `${key} ${this.expression(body).text}`;
    }
    return this.jsonText(v);
  }

  // ---------------------------------------------------------------------------------------------------
  // Expressions

  private expression(v: JValue | undefined): NftExpression {
    if (!v) return { kind: 'raw', text: '', range: this.range({ start: 0, end: 0 }) };
    const range = this.range(v);
    switch (v.t) {
      case 'string':
        if (v.v.startsWith('@')) {
          const name = v.v.slice(1);
          const nameRange = this.range({ start: v.start + 2, end: v.end - 1 });
          this.setRef(name, nameRange);
          return { kind: 'setRef', name, nameRange, text: v.v, range };
        }
        return { kind: 'value', value: v.v, text: v.v, range };
      case 'number':
        return { kind: 'value', value: String(v.v), text: String(v.v), range };
      case 'literal':
        return { kind: 'value', value: String(v.v), text: String(v.v), range };
      case 'array': {
        const values = v.items.map((x) => this.expression(x).text);
        return { kind: 'list', values, text: values.join(','), range };
      }
    }
    if (v.keys.length !== 1) return { kind: 'raw', text: this.jsonText(v), range };
    const key = v.keys[0];
    const body = v.values[0];
    if (SIMPLE_VERDICTS.has(key) || key === 'jump' || key === 'goto') {
      const verdict = this.verdictValue(v);
      if (verdict) return { kind: 'verdict', verdict, text: verdict.chain ? `${verdict.kind} ${verdict.chain}` : verdict.kind, range };
    }
    if (BINOPS.has(key) && body.t === 'array' && body.items.length >= 2) {
      let left = this.expression(body.items[0]);
      for (let k = 1; k < body.items.length; k++) {
        const right = this.expression(body.items[k]);
        left = { kind: 'binop', op: key as '&', left, right, text: `${left.text} ${key} ${right.text}`, range };
      }
      return left;
    }
    return this.typedExpression(key, body, range) ?? { kind: 'raw', text: this.render(v), range };
  }

  /** The expression of type `key` as the model types it, or undefined for one kept raw. */
  private typedExpression(key: string, body: JValue, range: Range): NftExpression | undefined {
    switch (key) {
      case 'payload':
        return this.payloadExpression(body, range);
      case 'meta': {
        const k = str(prop(body, 'key')) ?? '';
        return { kind: 'meta', key: k, text: `meta ${k}`, range };
      }
      case 'ct':
        return this.ctExpression(body, range);
      case 'fib': {
        const flags = this.strings(prop(body, 'flags'));
        const result = str(prop(body, 'result')) ?? '';
        return { kind: 'fib', flags, result, text: `fib ${flags.join(' . ')} ${result}`, range };
      }
      case 'numgen':
        return this.numgenExpression(body, range);
      case 'jhash':
      case 'symhash':
        return this.hashExpression(key, body, range);
      case 'concat': {
        if (body.t !== 'array') break;
        const parts = body.items.map((x) => this.expression(x));
        return { kind: 'concat', parts, text: parts.map((p) => p.text).join(' . '), range };
      }
      case 'prefix':
        return this.prefixExpression(body, range);
      case 'range': {
        if (body.t !== 'array' || body.items.length !== 2) break;
        const from = this.expression(body.items[0]).text;
        const to = this.expression(body.items[1]).text;
        return { kind: 'range', from, to, text: `${from}-${to}`, range };
      }
      case 'set': {
        const items = body.t === 'array' ? body.items : [body];
        const elements = items.map((x) => this.element(x, false)).filter((e): e is NftElement => e !== undefined);
        return { kind: 'set', elements, text: `{ ${elements.map((e) => this.elementText(e)).join(', ')} }`, range };
      }
      case 'map': {
        const keyExpr = this.expression(prop(body, 'key'));
        const data = this.mapData(prop(body, 'data'));
        return { kind: 'map', key: keyExpr, map: data, text: `${keyExpr.text} map ${data.text}`, range };
      }
      case 'elem': {
        const inner = this.expression(prop(body, 'val'));
        return { ...inner, range };
      }
    }
    return undefined;
  }

  private payloadExpression(body: JValue, range: Range): NftExpression {
    const protocol = str(prop(body, 'protocol'));
    const field = str(prop(body, 'field'));
    if (protocol && field) return { kind: 'payload', protocol, field, text: `${protocol} ${field}`, range };
    const base = str(prop(body, 'base'));
    const raw = `@${base},${num(prop(body, 'offset'))},${num(prop(body, 'len'))}`;
    return { kind: 'payload', protocol: 'raw', field: raw, text: raw, range };
  }

  private ctExpression(body: JValue, range: Range): NftExpression {
    const k = str(prop(body, 'key')) ?? '';
    const dir = str(prop(body, 'dir'));
    const family = str(prop(body, 'family'));
    const e: NftExpression = { kind: 'ct', key: k, text: ['ct', dir, family, k].filter(Boolean).join(' '), range };
    if (dir === 'original' || dir === 'reply') e.direction = dir;
    if (family === 'ip' || family === 'ip6') e.family = family;
    return e;
  }

  private numgenExpression(body: JValue, range: Range): NftExpression {
    const mode = str(prop(body, 'mode')) === 'inc' ? 'inc' : 'random';
    const mod = num(prop(body, 'mod')) ?? 0;
    const offset = num(prop(body, 'offset'));
    const e: NftExpression = { kind: 'numgen', mode, mod, text: `numgen ${mode} mod ${mod}${offset ? ` offset ${offset}` : ''}`, range };
    if (offset !== undefined) e.offset = offset;
    return e;
  }

  private hashExpression(key: 'jhash' | 'symhash', body: JValue, range: Range): NftExpression {
    const mod = num(prop(body, 'mod')) ?? 0;
    const e: NftExpression = { kind: 'hash', function: key, mod, text: '', range };
    const inner = prop(body, 'expr');
    if (inner) e.expr = this.expression(inner);
    const seed = num(prop(body, 'seed'));
    if (seed !== undefined) e.seed = seed;
    const offset = num(prop(body, 'offset'));
    if (offset !== undefined) e.offset = offset;
    e.text = [key, e.expr?.text, `mod ${mod}`, seed !== undefined ? `seed 0x${seed.toString(16)}` : undefined, offset ? `offset ${offset}` : undefined].filter(Boolean).join(' ');
    return e;
  }

  private prefixExpression(body: JValue, range: Range): NftExpression {
    const addr = this.expression(prop(body, 'addr')).text;
    const len = num(prop(body, 'len')) ?? 0;
    const problem = prefixProblem(addr, len);
    if (problem) this.diag(range, 'error', 'bad-prefix', problem);
    return { kind: 'prefix', address: addr, length: len, text: `${addr}/${len}`, range };
  }

  /** The data of a vmap or map: an anonymous map `{"set": [[k, v], …]}` or `"@name"`. */
  private mapData(v: JValue | undefined): NftSetExpression | NftSetRefExpression {
    const range = v ? this.range(v) : this.range({ start: 0, end: 0 });
    if (v && v.t === 'string' && v.v.startsWith('@')) {
      const name = v.v.slice(1);
      const nameRange = this.range({ start: v.start + 2, end: v.end - 1 });
      this.setRef(name, nameRange);
      return { kind: 'setRef', name, nameRange, text: v.v, range };
    }
    const items = prop(v, 'set');
    const list = items && items.t === 'array' ? items.items : [];
    const elements = list.map((x) => this.element(x, true)).filter((e): e is NftElement => e !== undefined);
    return { kind: 'set', elements, text: `{ ${elements.map((e) => this.elementText(e)).join(', ')} }`, range };
  }

  private elementText(e: NftElement): string {
    const key = e.key.join(' . ');
    if (e.value === undefined) return key;
    const value = typeof e.value === 'string' ? e.value : e.value.chain ? `${e.value.kind} ${e.value.chain}` : e.value.kind;
    return `${key} : ${value}`;
  }

  private verdictValue(v: JValue): NftVerdictValue | undefined {
    if (v.t !== 'object' || v.keys.length !== 1) return undefined;
    const key = v.keys[0];
    if (SIMPLE_VERDICTS.has(key) || key === 'queue') return { kind: key as 'accept' };
    if (key === 'jump' || key === 'goto') {
      const target = prop(v.values[0], 'target');
      const chain = str(target);
      if (chain === undefined || !target) return undefined;
      const chainRange = this.innerRange(target);
      this.chainRef(chain, chainRange, key);
      return { kind: key, chain, chainRange };
    }
    return undefined;
  }

  /** A key expression as element key parts. */
  private keyParts(v: JValue): string[] {
    const concat = prop(v, 'concat');
    if (concat && concat.t === 'array') return concat.items.map((x) => this.expression(x).text);
    return [this.expression(v).text];
  }

  /** A set element: `"1.2.3.4"`, `{"concat": …}`, `{"elem": {"val": …, "timeout": …}}`, or `[key, data]` in maps. */
  private element(v: JValue, isMap: boolean): NftElement | undefined {
    const range = this.range(v);
    let keyValue: JValue = v;
    let dataValue: JValue | undefined;
    if (isMap && v.t === 'array' && v.items.length === 2) {
      keyValue = v.items[0];
      dataValue = v.items[1];
    }
    let elem: JValue | undefined;
    const wrapped = prop(keyValue, 'elem');
    if (wrapped) {
      elem = wrapped;
      keyValue = prop(wrapped, 'val') ?? wrapped;
    }
    const element: NftElement = { key: this.keyParts(keyValue), range, keyRange: this.range(keyValue) };
    if (elem) {
      const timeout = num(prop(elem, 'timeout'));
      if (timeout !== undefined) element.timeout = formatDuration(timeout);
      const expires = num(prop(elem, 'expires'));
      if (expires !== undefined) element.expires = formatDuration(expires);
      const comment = str(prop(elem, 'comment'));
      if (comment !== undefined) element.comment = comment;
      const counter = prop(elem, 'counter');
      if (counter) element.statements = [this.statement({ t: 'object', keys: ['counter'], values: [counter], start: counter.start, end: counter.end } as JObject).text];
    }
    if (dataValue) {
      element.valueRange = this.range(dataValue);
      const verdict = this.verdictValue(dataValue);
      if (verdict) element.value = verdict;
      else element.value = this.keyParts(dataValue).join(' . ');
    }
    return element;
  }

  // ---------------------------------------------------------------------------------------------------

  private resolveReferences(): void {
    for (const ref of this.pending) {
      let kind: SymbolKind = 'chain';
      if (ref.kind === 'set') kind = this.setKinds.get(`${ref.table.id}\u0000${ref.name}`) ?? 'set';
      this.sink.reference({ kind, name: ref.name, scope: ref.table.id, range: ref.range, role: ref.role });
      if (this.defined.has(`${kind}\u0000${ref.table.id}\u0000${ref.name}`)) {
        if ((ref.role === 'jump' || ref.role === 'goto') && ref.table.chainByName.get(ref.name)?.hook !== undefined) {
          this.diag(ref.range, 'error', 'jump-to-base-chain', t('{0} is a base chain (it has a hook): the kernel refuses jump and goto to it ("Operation not supported").', ref.name));
        }
        continue;
      }
      const declaredHere = this.sink.declaredTables.has(ref.table.id);
      if (ref.role === 'command' && !declaredHere) continue;
      const severity: Severity = declaredHere ? 'error' : 'warning';
      if (ref.kind === 'chain') {
        this.diag(ref.range, severity, 'undefined-chain', t('No chain {0} in table {1}.', ref.name, ref.table.id));
      } else {
        this.diag(ref.range, severity, 'undefined-set', t('No set or map {0} in table {1}.', ref.name, ref.table.id));
      }
    }
  }
}

/** Parses `nft -j list ruleset` output (or an `nft -j -f` input) into the nft model. Never throws. */
export function parseNftJson(text: string): NftRuleset {
  try {
    return new NftJsonBuilder(text).build();
  } catch (e) {
    return emptyNftRuleset('json', new LineIndex(text).lineCount, t('The nft JSON reader failed on this text ({0}); please report it.', e instanceof Error ? e.message : String(e)));
  }
}
