// The units inside declaration blocks of nft text — a chain's hook, policy and devices, sets and maps, flowtables,
// stateful objects — and the values several blocks share (flags, devices, priorities), read from their CST
// (grammar.ts) by the reference reader.
import type { CstNode, IToken } from 'chevrotain';
import { standardPriority, type NftChain, type NftChainPriority, type NftExpression, type NftFamily, type NftFlowtable, type NftMap, type NftObject, type NftSet, type NftTable } from '../../model/nft';
import type { Severity } from '../../model/diagnostics';
import type { Range } from '../../model/range';
import { appendAll } from '../../model/append';
import { t } from '../../l10n';
import { isGroup, itemsOf, type Item } from './grammar';
import { Comma, Dot, isWordy, StringTok, unquote, Variable } from './lexer';
import type { RangeSites, StatementReader } from './statements';

/** What the block readers need of the reader. */
export interface UnitHost {
  readonly sites: RangeSites;
  readonly reader: StatementReader;
  text(range: Range): string;
  diag(range: Range, severity: Severity, code: string, message: string): void;
  variable(name: string, range: Range): NftExpression | undefined;
}

const SET_PROPERTIES = new Set(['timeout', 'gc-interval', 'size', 'policy', 'auto-merge', 'comment', 'counter', 'quota', 'limit', 'ct', 'last']);

const HOOKS: Record<NftFamily, readonly string[]> = {
  ip: ['prerouting', 'input', 'forward', 'output', 'postrouting', 'ingress'],
  ip6: ['prerouting', 'input', 'forward', 'output', 'postrouting', 'ingress'],
  inet: ['prerouting', 'input', 'forward', 'output', 'postrouting', 'ingress'],
  arp: ['input', 'output'],
  bridge: ['prerouting', 'input', 'forward', 'output', 'postrouting', 'ingress'],
  netdev: ['ingress', 'egress'],
};
const CHAIN_TYPES = new Set(['filter', 'nat', 'route']);

/** A chain's `type … hook … priority …`, `policy …` or `devices = …`: whether the unit was one of them. */
export function chainPropertyUnit(host: UnitHost, chain: NftChain, table: NftTable, cst: CstNode): boolean {
  const c = cst.children;
  if (c.hookSpec) {
    hookSpec(host, c.hookSpec[0] as CstNode, chain, table);
    return true;
  }
  if (c.policySpec) {
    const p = (c.policySpec[0] as CstNode).children.policy![0] as IToken;
    let policy = p.image;
    if (p.tokenType === Variable) {
      const v = host.variable(p.image.slice(1), host.sites.item(p));
      policy = v && v.kind === 'value' ? v.value : p.image;
    }
    if (policy !== 'accept' && policy !== 'drop' && p.tokenType !== Variable) {
      host.diag(host.sites.item(p), 'error', 'bad-policy', t('A chain policy is accept or drop, not {0}.', JSON.stringify(policy)));
    }
    chain.policy = policy;
    return true;
  }
  if (c.devicesSpec) {
    chain.devices = devicesOf(host, c.devicesSpec[0] as CstNode);
    return true;
  }
  return false;
}

function hookSpec(host: UnitHost, node: CstNode, chain: NftChain, table: NftTable): void {
  const c = node.children;
  const type = (c.chainType as IToken[])[0];
  const hook = (c.hook as IToken[])[0];
  chain.type = type.image;
  chain.hook = hook.image;
  if (!CHAIN_TYPES.has(type.image)) host.diag(host.sites.item(type), 'error', 'bad-chain-type', t('Unknown chain type {0}: nft knows filter, nat and route.', JSON.stringify(type.image)));
  if (!HOOKS[table.family].includes(hook.image)) {
    host.diag(host.sites.item(hook), 'error', 'bad-hook', t('The {0} family has no hook {1} (it has {2}).', table.family, JSON.stringify(hook.image), HOOKS[table.family].join(', ')));
  }
  const device = (c.device as IToken[] | undefined)?.[0];
  if (device) {
    if (device.tokenType === Variable) {
      const v = host.variable(device.image.slice(1), host.sites.item(device));
      chain.device = v ? (v.kind === 'value' ? v.value : v.text) : device.image;
    } else chain.device = unquote(device.image);
  }
  if (c.devices) chain.devices = devicesOf(host, node);
  if (c.priority) {
    const items = itemsOf(c.priority[0] as CstNode);
    if (items.length === 0) {
      host.diag(host.sites.item((c.Kw_priority as IToken[])[0]), 'error', 'syntax', t('{0} is missing here.', t('A priority')));
      return;
    }
    chain.priority = priority(host, items, table.family, hook.image);
  }
}

/** The word an item is, if it is one. */
export function wordOf(item: Item | undefined): string | undefined {
  return item !== undefined && !isGroup(item) && isWordy(item) ? item.image : undefined;
}

/** Whether an item is a quoted string. */
export function isString(item: Item | undefined): boolean {
  return item !== undefined && !isGroup(item) && item.tokenType === StringTok;
}

/** The flags of a `flags a, b` node (variables read). */
export function flagsOf(host: UnitHost, node: CstNode): string[] {
  return ((node.children.flag as IToken[] | undefined) ?? []).map((f) => {
    if (f.tokenType === Variable) {
      const v = host.variable(f.image.slice(1), host.sites.item(f));
      return v ? (v.kind === 'value' ? v.value : v.text) : f.image;
    }
    return f.image;
  });
}

/** The devices of a `devices = …` node (variables read). */
function devicesOf(host: UnitHost, node: CstNode): string[] {
  const dev = node.children.devices?.[0];
  if (!dev) return [];
  if (isGroup(dev as Item)) {
    return itemsOf(dev as CstNode)
      .filter((it) => !isGroup(it) && it.tokenType !== Comma)
      .map((it) => {
        const tok = it as IToken;
        if (tok.tokenType === Variable) {
          const v = host.variable(tok.image.slice(1), host.sites.item(tok));
          return v ? (v.kind === 'value' ? v.value : v.text) : tok.image;
        }
        return unquote(tok.image);
      });
  }
  const tok = dev as IToken;
  const v = host.variable(tok.image.slice(1), host.sites.item(tok));
  if (v && v.kind === 'set') return v.elements.map((e) => e.key.join(' . '));
  return v ? [v.kind === 'value' ? v.value : v.text] : [];
}

/** `priority filter`, `priority -110`, `priority dstnat - 10`, `priority $p`. */
export function priority(host: UnitHost, items: Item[], family: NftFamily, hook: string | undefined): NftChainPriority {
  const range = host.sites.items(items);
  const text = host.text(range);
  const out: NftChainPriority = { text, range };
  const compact = text.replace(/\s+/g, '');
  let m = /^([a-z]+)(?:([+-])(\d+))?$/.exec(compact);
  let base: string | undefined;
  let sign = '+';
  let offset = 0;
  if (items.length === 1 && !isGroup(items[0]) && items[0].tokenType === Variable) {
    const v = host.variable(items[0].image.slice(1), range);
    if (!v || v.kind !== 'value') return out;
    const vm = /^(-?\d+)$/.exec(v.value);
    if (vm) {
      out.value = Number(vm[1]);
      return out;
    }
    m = /^([a-z]+)(?:([+-])(\d+))?$/.exec(v.value.replace(/\s+/g, ''));
  }
  if (/^-?\d+$/.test(compact)) {
    out.value = Number(compact);
    return out;
  }
  if (!m) {
    host.diag(range, 'error', 'bad-priority', t('{0} is not a priority: a number, or a name such as filter, optionally with + or - a number.', JSON.stringify(text)));
    return out;
  }
  base = m[1];
  sign = m[2] ?? '+';
  offset = m[3] ? Number(m[3]) : 0;
  const value = standardPriority(base, family, hook);
  if (value === undefined) {
    host.diag(range, 'error', 'bad-priority', t('{0} is not a valid priority for a {1} chain on the {2} hook.', JSON.stringify(base), family, hook ?? '?'));
    return out;
  }
  out.value = sign === '-' ? value - offset : value + offset;
  return out;
}

/** A unit in a set or map block (its common units, include and define, are the caller's). */
export function setUnit(host: UnitHost, set: NftSet | NftMap, cst: CstNode, range: Range): void {
  const c = cst.children;
  if (c.typeSpec) {
    const node = c.typeSpec[0] as CstNode;
    const typeofKw = (node.children.keyword as IToken[])[0].image === 'typeof';
    set.keyType = typeParts(host, node.children.key[0] as CstNode);
    set.keyTypeof = typeofKw;
    if (node.children.data) {
      let data = typeParts(host, node.children.data[0] as CstNode);
      if (set.kind !== 'map') {
        host.diag(range, 'error', 'set-with-data', t('A set has no data type; declare a map for "key : data".'));
        return;
      }
      if (data.length === 1 && data[0].startsWith('interval ')) {
        set.dataInterval = true;
        data = [data[0].slice('interval '.length)];
      }
      set.dataType = data;
      set.dataTypeof = typeofKw || node.children.dataTypeof !== undefined;
    } else if (set.kind === 'map') {
      host.diag(range, 'error', 'map-without-data', t('A map needs a data type: type KEY : DATA.'));
    }
    return;
  }
  if (c.flagsSpec) {
    appendAll(set.flags, flagsOf(host, c.flagsSpec[0] as CstNode));
    return;
  }
  if (c.elementsSpec) {
    const e = (c.elementsSpec[0] as CstNode).children.elements![0];
    if (isGroup(e as Item)) {
      for (const el of host.reader.readElements(e as CstNode)) set.elements.push(el);
    } else {
      const tok = e as IToken;
      const name = tok.image.slice(1);
      const v = host.variable(name, host.sites.item(tok));
      if (v && v.kind === 'set' && host.reader.expansions.admit(set.elements.length, v.elements.length, name, host.sites.item(tok), (...d) => host.diag(...d))) appendAll(set.elements, v.elements);
    }
    return;
  }
  const items = itemsOf(c.items?.[0] as CstNode);
  const w0 = wordOf(items[0]) ?? '';
  const valueText = items.length > 1 ? host.text(host.sites.items(items, 1)) : '';
  switch (w0) {
    case 'timeout':
      set.timeout = valueText;
      return;
    case 'gc-interval':
      set.gcInterval = valueText;
      return;
    case 'size':
      set.size = Number(valueText);
      if (!/^\d+$/.test(valueText)) host.diag(range, 'error', 'syntax', t('A set size is a number.'));
      return;
    case 'policy':
      set.policy = valueText;
      return;
    case 'auto-merge':
      set.autoMerge = true;
      return;
    case 'comment':
      if (items.length === 2 && isString(items[1])) {
        set.comment = unquote((items[1] as IToken).image);
        return;
      }
      break;
  }
  if (SET_PROPERTIES.has(w0)) {
    set.extra.push(host.text(range));
    return;
  }
  host.diag(range, 'error', 'unknown-property', t('{0} is not a set or map property (type, typeof, flags, timeout, size, policy, elements, comment…).', JSON.stringify(host.text(range).slice(0, 60))));
}

/** `ipv4_addr . inet_proto` → ['ipv4_addr', 'inet_proto']; `ip saddr . tcp dport` → ['ip saddr', 'tcp dport']. */
function typeParts(host: UnitHost, node: CstNode): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  for (const tok of (node.children.item as IToken[] | undefined) ?? []) {
    if (tok.tokenType === Dot) {
      parts.push(current.join(' '));
      current = [];
    } else if (tok.tokenType === Variable) {
      const v = host.variable(tok.image.slice(1), host.sites.item(tok));
      current.push(v ? (v.kind === 'value' ? v.value : v.text) : tok.image);
    } else current.push(unquote(tok.image));
  }
  parts.push(current.join(' '));
  return parts;
}

/** A unit in a flowtable block (its common units are the caller's). */
export function flowtableUnit(host: UnitHost, ft: NftFlowtable, cst: CstNode, range: Range): void {
  const c = cst.children;
  if (c.flagsSpec) {
    appendAll(ft.flags, flagsOf(host, c.flagsSpec[0] as CstNode));
    return;
  }
  if (c.devicesSpec) {
    ft.devices = devicesOf(host, c.devicesSpec[0] as CstNode);
    return;
  }
  const items = itemsOf(c.items?.[0] as CstNode);
  const w0 = wordOf(items[0]);
  if (w0 === 'hook') {
    ft.hook = wordOf(items[1]);
    const p = items.findIndex((it) => wordOf(it) === 'priority');
    if (p >= 0 && p + 1 < items.length) ft.priority = priority(host, items.slice(p + 1), 'netdev', ft.hook);
    return;
  }
  if (w0 === 'counter' || w0 === 'comment') return;
  host.diag(range, 'error', 'unknown-property', t('{0} is not a flowtable property (hook, priority, devices, flags, counter).', JSON.stringify(host.text(range).slice(0, 60))));
}

/** A unit in a stateful object's block (counter, quota, ct helper…; its common units are the caller's). */
export function objectUnit(host: UnitHost, object: NftObject, cst: CstNode, range: Range): void {
  const c = cst.children;
  const text = host.text(range);
  const items = itemsOf(c.items?.[0] as CstNode);
  if (wordOf(items[0]) === 'comment' && items.length === 2 && isString(items[1])) {
    object.comment = unquote((items[1] as IToken).image);
    return;
  }
  const first = /^[A-Za-z][\w-]*/.exec(text)?.[0];
  const name = first && !/^\d/.test(first) && !['over', 'until'].includes(first) ? first : '';
  object.properties.push({ name, value: name ? text.slice(name.length).trim() : text, text, range });
}
