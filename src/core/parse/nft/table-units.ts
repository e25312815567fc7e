// The units inside table and chain blocks of nft text, read by the reference reader (reference.ts): what opens a
// block (`table … {`, `chain … {`, `set … {`), a table's flags, comment and declarations, a chain's properties and
// rules, and the units of set, flowtable and object blocks (handed to declaration-units.ts).
import type { CstNode, IToken } from 'chevrotain';
import type { NftObjectKind, NftTable } from '../../model/nft';
import type { Range } from '../../model/range';
import { appendAll } from '../../model/append';
import { t } from '../../l10n';
import { isGroup, itemsOf, type Item } from './grammar';
import { Flags, isWordy, unquote } from './lexer';
import { chainPropertyUnit, flagsOf, flowtableUnit, isString, objectUnit, setUnit, wordOf } from './declaration-units';
import { commonUnit } from './commands';
import { TABLE_CHILDREN, type ReaderHost } from './reader-host';

/** `table ip t {`: the table's block opens (its range is the header's until the `}`). */
export function openTable(host: ReaderHost, table: NftTable, header: Range): void {
  host.currentTable = table;
  host.push({ kind: 'table', table, header, definition: host.tableDefinitions.get(table.id) });
  if (table.range.start.line === header.start.line && table.range.start.character === header.start.character) table.range = header;
  const handle = host.handleOf(header);
  if (handle !== undefined) table.handle = handle;
}

/** A declaration inside a table block or from `add chain/set/map/… ip t name`. */
export function openDeclaration(host: ReaderHost, table: NftTable, object: string, name: string, nameRange: Range, header: Range, block: boolean): void {
  const handle = host.handleOf(header);
  switch (object) {
    case 'chain': {
      const { chain, definition } = host.ensureChain(table, name, nameRange, header, true, 'command');
      if (handle !== undefined) chain.handle = handle;
      if (block) host.push({ kind: 'chain', table, chain, header, definition });
      return;
    }
    case 'set':
    case 'map':
    case 'meter': {
      const { set, definition } = host.ensureSet(table, object === 'map' ? 'map' : 'set', name, nameRange, header);
      if (handle !== undefined) set.handle = handle;
      if (block) host.push({ kind: object === 'map' ? 'map' : 'set', table, set, header, definition });
      return;
    }
    case 'flowtable': {
      let ft = table.flowtables.find((f) => f.name === name);
      if (!ft) {
        ft = { name, tableId: table.id, devices: [], flags: [], range: header, nameRange, fullRange: header };
        table.flowtables.push(ft);
      }
      if (handle !== undefined) ft.handle = handle;
      if (block) host.push({ kind: 'flowtable', table, flowtable: ft, header });
      return;
    }
    default: {
      const kind = object as NftObjectKind;
      let ob = table.objects.find((o) => o.kind === kind && o.name === name);
      if (!ob) {
        ob = { kind, name, tableId: table.id, properties: [], range: header, nameRange, fullRange: header };
        table.objects.push(ob);
      }
      if (handle !== undefined) ob.handle = handle;
      if (block) host.push({ kind: 'object', table, object: ob, header });
    }
  }
}

/** A unit directly in a table block: flags, comment, a common unit, or a declaration that opens its block. */
export function tableUnit(host: ReaderHost, cst: CstNode, range: Range, blockOpen: IToken | undefined): void {
  const block = host.stack[host.stack.length - 1];
  const table = block.table!;
  host.currentTable = table;
  const c = cst.children;
  if (c.flagsSpec) {
    appendAll(table.flags, flagsOf(host, c.flagsSpec[0] as CstNode));
    return;
  }
  if (commonUnit(host, cst, range)) return;
  if (c.devicesSpec) {
    host.diag(range, 'error', 'syntax', t('"devices" belongs in a chain or flowtable, not in a table.'));
    return;
  }
  const items = itemsOf(c.items?.[0] as CstNode);
  const w0 = wordOf(items[0]);
  if (blockOpen) {
    let object = w0 ?? '';
    let k = 1;
    if (object === 'ct') {
      object = `ct ${wordOf(items[1])}`;
      k = 2;
    }
    const name = host.nameOf(items[k]);
    if (name === undefined) return host.missing(host.sites.item(items[k - 1]), t('A name'));
    if (items.length > k + 1) host.diag(host.sites.items(items, k + 1), 'error', 'syntax', t('Unexpected {0}.', JSON.stringify(host.text(host.sites.items(items, k + 1)))));
    openDeclaration(host, table, object, name, host.sites.item(items[k]), range, true);
    return;
  }
  if (w0 === 'comment' && items.length === 2 && isString(items[1])) {
    table.comment = unquote((items[1] as IToken).image);
    return;
  }
  if (w0 !== undefined && TABLE_CHILDREN.has(w0)) {
    host.diag(range, 'error', 'syntax', t('{0} needs a block: {0} NAME { … }.', w0));
    return;
  }
  host.diag(range, 'error', 'unexpected-in-table', t('{0} is not allowed directly in a table: rules belong in a chain.', JSON.stringify(host.text(range).slice(0, 60))));
}

/** A unit of a chain block parsed with the grammar: a property or common unit, or a rule. */
export function chainUnit(host: ReaderHost, cst: CstNode, tokens: IToken[]): void {
  const c = cst.children;
  if (!c.items) {
    chainDeclarationUnit(host, cst, tokens);
    return;
  }
  chainItems(host, itemsOf(c.items[0] as CstNode), tokens);
}

/** A chain's hook, policy or devices, or a define in a chain. */
function chainDeclarationUnit(host: ReaderHost, cst: CstNode, tokens: IToken[]): void {
  const block = host.stack[host.stack.length - 1];
  host.currentTable = block.table!;
  if (!chainPropertyUnit(host, block.chain!, block.table!, cst)) commonUnit(host, cst, host.unitRange(tokens, undefined));
}

/** A rule, or a chain's comment or flags (the unit's items). */
export function chainItems(host: ReaderHost, items: Item[], tokens: IToken[]): void {
  const block = host.stack[host.stack.length - 1];
  const chain = block.chain!;
  const table = block.table!;
  host.currentTable = table;
  const first = items[0];
  if (wordOf(first) === 'comment' && items.length === 2 && isString(items[1])) {
    chain.comment = unquote((items[1] as IToken).image);
    return;
  }
  if (first && !isGroup(first) && first.tokenType === Flags) {
    // A new array: a ChainNode's flags may be the one shared empty array.
    chain.flags = chain.flags.concat(
      items
        .slice(1)
        .filter((it) => wordOf(it) !== undefined)
        .map((it) => (it as IToken).image),
    );
    return;
  }
  if (first && !isGroup(first) && isWordy(first) && (first.image === 'type' || first.image === 'hook' || first.image === 'priority')) {
    host.diag(host.unitRange(tokens, undefined), 'error', 'syntax', t('A base chain is declared as "type TYPE hook HOOK priority PRIORITY".'));
    return;
  }
  const rule = host.makeRule(table, chain, items);
  host.sink.edited.push(chain, rule);
}

/** A unit in a set, map, flowtable or object block (declaration-units.ts). */
export function declarationUnit(host: ReaderHost, cst: CstNode, range: Range): void {
  const block = host.stack[host.stack.length - 1];
  if (block.kind === 'set' || block.kind === 'map') host.currentTable = block.table;
  else if (block.kind === 'object' && !block.object) return;
  if (commonUnit(host, cst, range)) return;
  if (block.set) setUnit(host, block.set, cst, range);
  else if (block.flowtable) flowtableUnit(host, block.flowtable, cst, range);
  else if (block.object) objectUnit(host, block.object, cst, range);
}
