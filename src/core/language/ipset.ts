// Language features for `ipset save` / restore input and `ipset list` output, as pure functions over the
// analysed document.
import { kubeIpsetInfo, type IpSet, type IpsetMember } from '../model/ipset';
import { containsPosition, type Position, type Range } from '../model/range';
import type { SymbolDefinition } from '../model/symbols';
import { parseIpset } from '../parse/ipset/parser';
import { explainIpset, explainIpsetField, explainIpsetOption, explainIpsetType, explainKubeIpset } from '../explain/ipvs';
import { bold, code, join, md, mdT, text, type Md } from '../explain/markdown';
import { t } from '../l10n';
import type { IpsetAnalysis } from '../analysis';
export type { IpsetAnalysis } from '../analysis';
import { cappedItems, type FoldingRange, type Hover, type LanguageFeatures, type NamedObject, type OutlineItem, type StatusSummary } from './types';
import { nameTable } from '../model/name-table';

export function analyzeIpset(text: string): IpsetAnalysis {
  const dump = parseIpset(text);
  return { dialect: 'ipset', dump, diagnostics: dump.diagnostics };
}

/** The create line (or `Name:` line) of the set under the cursor. */
export function definitionAt(a: IpsetAnalysis, position: Position): SymbolDefinition | undefined {
  const def = a.dump.symbols.resolve(position);
  return def && def.kind === 'ipset' ? def : undefined;
}

/** Every add/del/test/flush/… line naming the set, and list:set members that contain it. */
export function referencesAt(a: IpsetAnalysis, position: Position, includeDeclaration: boolean): Range[] {
  const hit = a.dump.symbols.at(position);
  if (!hit) return [];
  const { kind, scope, name } = hit.type === 'definition' ? hit.definition : hit.reference;
  if (kind !== 'ipset') return [];
  const out: Range[] = [];
  const def = a.dump.symbols.definition(kind, scope, name);
  if (includeDeclaration && def) out.push(def.range);
  for (const ref of a.dump.symbols.referencesTo(kind, scope, name)) out.push(ref.range);
  return out;
}

export function outline(a: IpsetAnalysis, limit = Number.POSITIVE_INFINITY): OutlineItem[] {
  const sets = a.dump.sets;
  return cappedItems(sets.length, limit, (k) => {
    const set = sets[k];
    const parts = [set.type || '?', set.members.length === 1 ? t('1 member') : t('{0} members', set.members.length)];
    if (set.family === 'inet6') parts.splice(1, 0, 'IPv6');
    const children: OutlineItem[] = set.type === 'list:set' ? set.members.map((m) => ({ name: m.text, detail: t('member set'), kind: 'set' as const, range: m.range, selectionRange: m.textRange, children: [] })) : [];
    return {
      name: set.name,
      detail: parts.join(' · '),
      kind: 'set' as const,
      range: set.fullRange,
      selectionRange: set.nameRange,
      children,
    };
  });
}

/** The outline's sets and the member sets of list:set ones, by name (an ipset dump has no tables). */
export function namedObjects(a: IpsetAnalysis): NamedObject[] {
  return a.dump.sets.flatMap((set) => [
    { name: set.name, kind: 'set' as const, container: '', selectionRange: set.nameRange },
    ...(set.type === 'list:set' ? set.members.map((m) => ({ name: m.text, kind: 'set' as const, container: '', selectionRange: m.textRange })) : []),
  ]);
}

/** Each set from its create / Name: line through its last member. */
export function foldingRanges(a: IpsetAnalysis): FoldingRange[] {
  return a.dump.sets.filter((s) => s.fullRange.end.line > s.fullRange.start.line).map((s) => ({ start: s.fullRange.start.line, end: s.fullRange.end.line }));
}

function setByName(a: IpsetAnalysis, name: string): IpSet | undefined {
  return a.dump.setByName.get(name) ?? a.dump.sets.find((s) => s.name === name);
}

/** What one member means, in words: `10.96.0.10,udp:53` → address 10.96.0.10, UDP port 53. */
export function describeMember(m: IpsetMember): Md {
  const words: Md[] = [];
  for (const p of m.parts) {
    switch (p.dimension) {
      case 'ip':
      case 'net': {
        const addr = p.addressTo !== undefined ? `${p.address}-${p.addressTo}` : p.prefix !== undefined ? `${p.address}/${p.prefix}` : (p.address ?? p.text);
        words.push(p.prefix !== undefined && p.dimension === 'net' ? mdT('network {0}', code(addr)) : mdT('address {0}', code(addr)));
        break;
      }
      case 'port':
        if (p.icmp !== undefined) words.push(mdT('{0} type {1}', text((p.protocol ?? 'icmp').toUpperCase()), code(p.icmp)));
        else if (p.port !== undefined) {
          const ports = p.portTo !== undefined ? `${p.port}-${p.portTo}` : String(p.port);
          words.push(p.protocol ? mdT('{0} port {1}', text(p.protocol.toUpperCase()), code(ports)) : mdT('port {0}', code(ports)));
        }
        break;
      case 'mac':
        words.push(mdT('MAC {0}', code(p.text)));
        break;
      case 'iface':
        words.push(p.physdev ? mdT('bridge port {0}', code(p.address ?? '')) : mdT('interface {0}', code(p.address ?? '')));
        break;
      case 'mark':
        words.push(mdT('mark {0}', code(p.text)));
        break;
      case 'set':
        words.push(mdT('set {0}', code(p.text)));
        break;
    }
  }
  return words.length > 0 ? join(words, ', ') : code(m.text);
}

function memberHover(set: IpSet, m: IpsetMember): Md {
  const lines = [md`${code(m.text)} — ${mdT('member of {0}', text(set.name))}`, md``, describeMember(m)];
  const kube = kubeIpsetInfo(set.name);
  if (kube) {
    const meaning: Record<string, Md> = nameTable({
      'hash:ip,port': mdT('kube-proxy: a Service frontend (address and port).'),
      'hash:ip,port,ip':
        kube.base === 'KUBE-LOOP-BACK'
          ? mdT('kube-proxy: an endpoint that would reach itself through its Service (hairpin): masqueraded.')
          : mdT('kube-proxy: a load balancer address and port with a source address allowed to use it.'),
      'hash:ip,port,net': mdT('kube-proxy: a load balancer address and port with a source range allowed to use it.'),
      'bitmap:port': kube.base === 'KUBE-HEALTH-CHECK-NODE-PORT' ? mdT('kube-proxy: a health-check node port.') : mdT('kube-proxy: a node port.'),
      'hash:ip': mdT('kube-proxy: an address bound to kube-ipvs0.'),
    });
    if (meaning[kube.type]) lines.push(md``, meaning[kube.type]);
  }
  const o = m.options;
  const extra: Md[] = [];
  if (o.timeout !== undefined) extra.push(mdT('expires in {0} s', o.timeout));
  if (o.packets !== undefined) extra.push(mdT('{0} packets, {1} bytes matched', o.packets, o.bytes ?? 0));
  if (o.comment !== undefined) extra.push(mdT('comment {0}', code(o.comment)));
  if (o.nomatch) extra.push(mdT('nomatch: an exception; packets in it do not match the set'));
  if (o.skbmark !== undefined) extra.push(mdT('skbmark {0}', code(o.skbmark)));
  if (o.skbprio !== undefined) extra.push(mdT('skbprio {0}', code(o.skbprio)));
  if (o.skbqueue !== undefined) extra.push(mdT('skbqueue {0}', o.skbqueue));
  if (extra.length > 0) lines.push(md``, join(extra, ' · '));
  return join(lines);
}

export function hoverAt(a: IpsetAnalysis, position: Position): Hover | undefined {
  const at = (r: Range | undefined) => r !== undefined && containsPosition(r, position);
  const dump = a.dump;
  const hit = dump.symbols.at(position);
  if (hit) {
    const sym = hit.type === 'definition' ? hit.definition : hit.reference;
    const range = hit.type === 'definition' ? hit.definition.range : hit.reference.range;
    const set = setByName(a, sym.name);
    if (set) return { markdown: explainIpset(set), range };
    const kube = explainKubeIpset(sym.name);
    return { markdown: kube ?? md`${bold(text(sym.name))}\n\n${mdT('Set {0} is not in this file.', text(sym.name))}`, range };
  }
  const set = dump.setByLine.get(position.line);
  if (set) {
    if (at(set.typeRange)) return { markdown: explainIpsetType(set.type), range: set.typeRange! };
    const option = set.options.find((o) => at(o.range));
    if (option) return { markdown: explainIpsetOption(option.name, option.value), range: option.range };
    const field = dump.fieldByLine.get(position.line);
    if (field && at(field.keyRange)) return { markdown: explainIpsetField(field.key), range: field.keyRange };
  }
  const entry = dump.memberByLine.get(position.line);
  if (entry) return { markdown: memberHover(entry.set, entry.member), range: entry.member.textRange };
  const command = dump.commandByLine.get(position.line);
  if (command && at(command.range)) {
    const known: Record<string, Md> = nameTable({
      destroy: mdT('destroy: removes the set (refused while iptables rules still use it).'),
      flush: mdT('flush: removes every member of the set.'),
      rename: mdT('rename: gives the set a new name.'),
      swap: mdT('swap: exchanges the contents of two sets at once (how kube-proxy and others replace a set atomically).'),
      del: mdT('del: removes a member.'),
      test: mdT('test: checks whether an element is in the set.'),
    });
    if (known[command.command]) return { markdown: known[command.command], range: command.range };
  }
  return undefined;
}

export function statusSummary(a: IpsetAnalysis): StatusSummary {
  const families = new Set(a.dump.sets.map((s) => s.family).filter((f) => f !== undefined));
  return {
    dialect: 'ipset',
    backend: 'ipset',
    family: families.size > 1 ? 'mixed' : families.has('inet6') ? 'ipv6' : 'ipv4',
    tables: 0,
    chains: a.dump.sets.length,
    rules: a.dump.sets.reduce((n, s) => n + s.members.length, 0),
    services: 0,
    errors: a.diagnostics.filter((d) => d.severity === 'error').length,
    warnings: a.diagnostics.filter((d) => d.severity === 'warning').length,
  };
}

export const ipsetFeatures: LanguageFeatures<IpsetAnalysis> = {
  languageId: 'ipset',
  analyze: analyzeIpset,
  definitionAt,
  referencesAt,
  outline,
  namedObjects,
  foldingRanges,
  hoverAt,
  statusSummary,
  services: () => [],
};
