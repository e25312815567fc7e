// The top-level units of nft text, read by the reference reader (reference.ts): commands (`add rule …`,
// `delete chain …`, `flush ruleset`, the `table … {` header) and the units every block allows (include, define,
// undefine). They act on the reader through ReaderHost (reader-host.ts).
import type { CstNode, IToken } from 'chevrotain';
import type { NftCommand, NftCommandVerb, NftDefine, NftTable } from '../../model/nft';
import type { Range } from '../../model/range';
import { t } from '../../l10n';
import { isBraceGroup, itemsOf, type Item } from './grammar';
import { unquote } from './lexer';
import { wordOf } from './declaration-units';
import { CT_OBJECTS, VERBS, type ReaderHost, type Spec } from './reader-host';

/** A unit at the top level: a common unit or a command. */
export function topUnit(host: ReaderHost, cst: CstNode, range: Range, blockOpen: IToken | undefined): void {
  host.seq++;
  if (commonUnit(host, cst, range)) return;
  command(host, itemsOf(cst.children.items?.[0] as CstNode), range, blockOpen);
}

/** nft's common_block, allowed at the top and in every block: include, define / redefine, undefine. */
export function commonUnit(host: ReaderHost, cst: CstNode, range: Range): boolean {
  const c = cst.children;
  if (c.includeCommand) {
    const node = c.includeCommand[0] as CstNode;
    const path = unquote((node.children.path as IToken[])[0].image);
    host.includes.push({ path, range });
    host.diag(range, 'information', 'include', t('nft reads {0} here; what it holds is not part of this dump, so it is not analysed.', JSON.stringify(path)));
    return true;
  }
  if (c.defineCommand) {
    defineCommand(host, c.defineCommand[0] as CstNode, range);
    return true;
  }
  if (c.undefineCommand) {
    const name = ((c.undefineCommand[0] as CstNode).children.name as IToken[])[0];
    if (!host.defineByName.delete(name.image)) host.diag(host.sites.item(name), 'error', 'undefined-variable', t('Variable ${0} is not defined (before this line).', name.image));
    return true;
  }
  return false;
}

function defineCommand(host: ReaderHost, node: CstNode, range: Range): void {
  const nameToken = (node.children.name as IToken[])[0];
  const valueItems = itemsOf(node.children.value?.[0] as CstNode);
  const nameRange = host.sites.item(nameToken);
  if (valueItems.length === 0) {
    host.missing(nameRange, t('A value after "="'));
    return;
  }
  const valueRange = host.sites.items(valueItems);
  const define: NftDefine = { name: nameToken.image, value: host.text(valueRange), range, nameRange };
  const expression = host.reader.readValue(valueItems);
  if (expression) define.expression = expression;
  host.defines.push(define);
  host.defineByName.set(define.name, define);
}

/** The verb (`add` when none is written) and object of a command, and where its arguments start. */
function commandWords(items: Item[], w0: string): { verb: NftCommandVerb; explicitVerb: boolean; object: string | undefined; i: number } {
  let i = 0;
  let verb: NftCommandVerb = 'add';
  const explicitVerb = VERBS.has(w0);
  if (explicitVerb) {
    verb = (['describe', 'monitor', 'get', 'export', 'import'].includes(w0) ? 'other' : w0) as NftCommandVerb;
    i = 1;
  }
  let object = wordOf(items[i]);
  if (object === 'ct' && CT_OBJECTS.has(wordOf(items[i + 1]) ?? '')) {
    object = `ct ${wordOf(items[i + 1])}`;
    i += 2;
  } else if (object !== undefined) {
    i++;
  }
  return { verb, explicitVerb, object, i };
}

/** A command: `[verb] object [family] names… [arguments]`, applied to the model and kept in `commands`. */
function command(host: ReaderHost, items: Item[], range: Range, blockOpen: IToken | undefined): void {
  const w0 = wordOf(items[0]);
  if (w0 === undefined) {
    host.diag(host.sites.item(items[0]), 'error', 'syntax', t('Unexpected {0}: a command such as "table", "add rule" or "flush ruleset" was expected.', JSON.stringify(host.text(host.sites.item(items[0])))));
    return;
  }
  const { verb, explicitVerb, object, i } = commandWords(items, w0);
  const objectRange = items[explicitVerb ? 1 : 0] ? host.sites.item(items[explicitVerb ? 1 : 0]) : range;
  const text = host.text(range);
  const record = (spec?: Spec, name?: string): void => {
    const cmd: NftCommand = { verb, object: object ?? '', text, range };
    if (spec) {
      cmd.family = spec.family;
      cmd.table = spec.names[0];
    }
    if (name !== undefined) cmd.name = name;
    host.commands.push(cmd);
  };
  if (object === undefined) {
    host.diag(range, 'error', 'syntax', t('{0} needs an object: table, chain, rule, set, map, element or ruleset.', w0));
    return;
  }
  if (verb === 'other' || verb === 'list' || (verb === 'reset' && !['counter', 'quota', 'rule', 'element'].includes(object))) {
    record();
    return;
  }
  switch (object) {
    case 'table': {
      const spec = host.spec(items, i, 1);
      if (!spec) return host.missing(objectRange, t('A table name'));
      const table = tableCommand(host, verb, spec, range);
      record(spec);
      if (table && blockOpen) host.openTable(table, range);
      return;
    }
    case 'ruleset': {
      const fam = wordOf(items[i]);
      if (verb === 'flush' || verb === 'delete' || verb === 'destroy') {
        for (const table of [...host.tables]) if (!fam || table.family === fam) removeTable(host, table);
      }
      record();
      return;
    }
    case 'chain':
    case 'set':
    case 'map':
    case 'flowtable':
    case 'counter':
    case 'quota':
    case 'limit':
    case 'secmark':
    case 'synproxy':
    case 'meter':
    case 'ct helper':
    case 'ct timeout':
    case 'ct expectation': {
      const spec = host.spec(items, i, 2);
      if (spec && spec.names[1] === 'handle' && /^\d+$/.test(wordOf(items[spec.next]) ?? '')) {
        // `delete chain ip t handle 5`
        record(spec);
        return;
      }
      if (!spec) return host.missing(objectRange, t('A table and a name'));
      record(spec, spec.names[1]);
      objectCommand(host, verb, object, spec, range, blockOpen, items);
      return;
    }
    case 'rule':
      return ruleCommand(host, verb, items, i, range, record, objectRange);
    case 'element':
      return elementCommandUnit(host, verb, items, i, objectRange, record);
    default:
      if (verb === 'add' || verb === 'insert' || verb === 'create' || verb === 'replace') {
        if (explicitVerb && host.spec(items, i - 1, 2)) {
          // `add ip t c <statements>`: the rule shorthand
          return ruleCommand(host, verb, items, i - 1, range, record, objectRange);
        }
      }
      otherCommand(host, w0, object, explicitVerb, objectRange, record);
  }
}

/** `add element t s { … }`. */
function elementCommandUnit(host: ReaderHost, verb: NftCommandVerb, items: Item[], i: number, objectRange: Range, record: (spec?: Spec, name?: string) => void): void {
  const spec = host.spec(items, i, 2);
  if (!spec) return host.missing(objectRange, t('A table and a set name'));
  record(spec, spec.names[1]);
  const group = items[spec.next];
  if (!group || !isBraceGroup(group)) return host.missing(spec.ranges[1], t('The elements in {…}'));
  if (spec.next + 1 < items.length) host.diag(host.sites.items(items, spec.next + 1), 'error', 'syntax', t('Unexpected {0}.', JSON.stringify(host.text(host.sites.items(items, spec.next + 1)))));
  elementCommand(host, verb, spec, group);
}

/** A listing command (`list chains`), kept as a command, or an unknown one. */
function otherCommand(host: ReaderHost, w0: string, object: string, explicitVerb: boolean, objectRange: Range, record: () => void): void {
  if (/^(tables|chains|sets|maps|counters|quotas|limits|flowtables|meters|secmarks|synproxys|hooks)$/.test(object)) {
    record();
    return;
  }
  host.diag(
    objectRange,
    'error',
    'unknown-command',
    explicitVerb ? t('{0} {1} is not an nft command.', w0, object) : t('{0} is not an nft command: a line starts with table, add, insert, delete, flush, define or include.', JSON.stringify(object)),
  );
}

/** `add/delete/flush … table`: the table declared (returned, to open its block), removed or emptied. */
function tableCommand(host: ReaderHost, verb: NftCommandVerb, spec: Spec, range: Range): NftTable | undefined {
  const [name] = spec.names;
  const id = `${spec.family} ${name}`;
  switch (verb) {
    case 'add':
    case 'create':
      return host.ensureTable(spec.family, name, spec.ranges[0], range, true);
    case 'delete':
    case 'destroy': {
      const table = host.tableById.get(id);
      tableRef(host, spec);
      if (table) removeTable(host, table);
      return undefined;
    }
    case 'flush': {
      const table = host.tableById.get(id);
      tableRef(host, spec);
      if (table) {
        for (const chain of host.sink.deletedChains.live(table)) {
          host.sink.edited.settle(chain);
          chain.rules = [];
        }
      }
      return undefined;
    }
    default:
      tableRef(host, spec);
      return undefined;
  }
}

function tableRef(host: ReaderHost, spec: Spec): void {
  host.symbols.reference({ kind: 'table', name: spec.names[0], scope: spec.family, range: spec.ranges[0], role: 'command' });
}

function removeTable(host: ReaderHost, table: NftTable): void {
  host.chainsForgotten = true;
  host.sink.removeTable(table);
  for (const chain of host.sink.deletedChains.live(table)) for (const rule of host.sink.edited.settle(chain)) host.forgetRule(rule);
}

function tableOf(host: ReaderHost, spec: Spec, range: Range): NftTable {
  const table = host.ensureTable(spec.family, spec.names[0], spec.ranges[0], range, false);
  host.symbols.reference({ kind: 'table', name: spec.names[0], scope: spec.family, range: spec.ranges[0], role: 'command' });
  return table;
}

/** A command on a chain, set, map, flowtable or stateful object of a table. */
function objectCommand(host: ReaderHost, verb: NftCommandVerb, object: string, spec: Spec, range: Range, blockOpen: IToken | undefined, items: Item[]): void {
  const table = tableOf(host, spec, range);
  const name = spec.names[1];
  const nameRange = spec.ranges[1];
  host.currentTable = table;
  if (verb === 'add' || verb === 'create') {
    if (spec.next < items.length) {
      host.diag(host.sites.items(items, spec.next), 'error', 'syntax', t('Unexpected {0}: a declaration continues in { … }.', JSON.stringify(host.text(host.sites.items(items, spec.next)))));
    }
    host.openDeclaration(table, object, name, nameRange, range, blockOpen !== undefined);
    return;
  }
  if (verb === 'rename' && object === 'chain') {
    const chain = table.chainByName.get(name);
    const written = host.nameOf(items[spec.next]);
    const newName = written === undefined ? undefined : host.name('chain', table, written);
    host.pend('chain', table, name, nameRange, 'command');
    if (chain && newName !== undefined) {
      host.chainsForgotten = true;
      table.chainByName.delete(name);
      chain.name = newName;
      table.chainByName.set(newName, chain);
      for (const rule of host.sink.edited.settle(chain)) rule.chain = newName;
    }
    return;
  }
  if (object === 'chain') {
    host.pend('chain', table, name, nameRange, 'command');
    const chain = table.chainByName.get(name);
    if (!chain) return;
    if (verb === 'flush') {
      for (const rule of host.sink.edited.settle(chain)) host.forgetRule(rule);
      chain.rules = [];
    } else if (verb === 'delete' || verb === 'destroy') {
      for (const rule of host.sink.edited.settle(chain)) host.forgetRule(rule);
      host.chainsForgotten = true;
      host.sink.deletedChains.delete(table, chain);
      table.chainByName.delete(name);
    }
    return;
  }
  if (object === 'set' || object === 'map' || object === 'meter') {
    host.pend('set', table, name, nameRange, 'command');
    const set = object === 'map' ? table.mapByName.get(name) : (table.setByName.get(name) ?? table.mapByName.get(name));
    if (!set) return;
    if (verb === 'flush') set.elements = [];
    else if (verb === 'delete' || verb === 'destroy') {
      if (set.kind === 'map') {
        table.maps.splice(table.maps.indexOf(set), 1);
        table.mapByName.delete(name);
      } else {
        table.sets.splice(table.sets.indexOf(set), 1);
        table.setByName.delete(name);
      }
    }
    return;
  }
  if (verb === 'delete' || verb === 'destroy') {
    if (object === 'flowtable') {
      const ft = table.flowtables.findIndex((f) => f.name === name);
      if (ft >= 0) table.flowtables.splice(ft, 1);
    } else {
      const ob = table.objects.findIndex((o) => o.kind === object && o.name === name);
      if (ob >= 0) table.objects.splice(ob, 1);
    }
  }
}

/** `add/insert/replace/delete rule [family] table chain [position|handle|index N] statements`. */
function ruleCommand(host: ReaderHost, verb: NftCommandVerb, items: Item[], i: number, range: Range, record: (spec?: Spec, name?: string) => void, objectRange: Range): void {
  const spec = host.spec(items, i, 2);
  if (!spec) return host.missing(objectRange, t('A table and a chain name'));
  record(spec, spec.names[1]);
  const table = tableOf(host, spec, range);
  host.currentTable = table;
  const chainName = spec.names[1];
  const chainRange = spec.ranges[1];
  let k = spec.next;
  let position: { kind: 'position' | 'handle' | 'index'; value: number } | undefined;
  const pw = wordOf(items[k]);
  if ((pw === 'position' || pw === 'handle' || pw === 'index') && /^\d+$/.test(wordOf(items[k + 1]) ?? '')) {
    position = { kind: pw, value: Number(wordOf(items[k + 1])) };
    k += 2;
  }
  const { chain } = host.ensureChain(table, chainName, chainRange, range, false, 'rule-owner');
  if (verb === 'delete' || verb === 'destroy') {
    if (position && position.kind === 'handle') {
      const list = host.sink.edited.list(chain);
      const node = list.withHandle(position.value);
      if (node) {
        host.forgetRule(node.rule);
        list.remove(node);
      }
    } else {
      host.missing(chainRange, t('"handle N" of the rule to delete'));
    }
    return;
  }
  if (k >= items.length) {
    if (verb === 'reset') return;
    return host.missing(host.sites.items(items, items.length - 1), t('The statements of the rule'));
  }
  const rule = host.makeRule(table, chain, items.slice(k));
  if (verb === 'reset') return;
  if (verb !== 'insert' && !position) return host.sink.edited.push(chain, rule);
  const list = host.sink.edited.list(chain);
  // The rule the new one goes before (undefined: at the end).
  let before = verb === 'insert' ? list.first() : undefined;
  if (position?.kind === 'index') {
    before = list.nodeAt(verb === 'insert' ? position.value : position.value + 1);
  } else if (position) {
    const h = list.withHandle(position.value);
    if (h && verb === 'replace') {
      host.forgetRule(h.rule);
      return list.replace(h, rule);
    }
    if (h) before = verb === 'insert' ? h : h.next;
  }
  list.insertBefore(before, rule);
}

/** The elements of `add/delete element` added to or taken from their set or map. */
function elementCommand(host: ReaderHost, verb: NftCommandVerb, spec: Spec, group: CstNode): void {
  const table = tableOf(host, spec, spec.ranges[0]);
  host.currentTable = table;
  const name = spec.names[1];
  host.pend('set', table, name, spec.ranges[1], 'command');
  const elements = host.reader.readElements(group);
  const set = table.mapByName.get(name) ?? table.setByName.get(name);
  if (!set) {
    // Unknown here (the set may exist in the kernel): keep the elements on an undeclared set of the table.
    if (verb !== 'add' && verb !== 'create') return;
    const kind = elements.some((e) => e.value !== undefined) ? 'map' : 'set';
    host.sink.newSet(table, kind, name, spec.ranges[1], spec.ranges[1], elements);
    return;
  }
  if (verb === 'add' || verb === 'create') {
    for (const e of elements) set.elements.push(e);
  } else if (verb === 'delete' || verb === 'destroy') {
    host.deletedElements.delete(set.elements, elements);
  }
}
