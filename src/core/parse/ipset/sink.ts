// The ipset sink: the only code that makes the ipset model — sets, members, commands, symbols and references,
// the per-line indexes and the diagnostics of what they mean. The reference reader (reference.ts) and the
// accelerators (accelerators/*.ts) tell it what each line says; finish() checks what needs the whole file.
import type { IToken } from 'chevrotain';
import type { Severity } from '../../model/diagnostics';
import { IPSET_SCOPE, kubeIpsetInfo, MAX_IPSET_NAME, typeDimensions, type IpSet, type IpsetCommand, type IpsetDump, type IpsetMember } from '../../model/ipset';
import { spanRanges, tokenRange, type Range } from '../../model/range';
import { Symbols, type ReferenceRole, type SymbolDefinition } from '../../model/symbols';
import { LineMap } from '../../model/line-map';
import { nameTable } from '../../model/name-table';
import { t } from '../../l10n';
import { DiagnosticsCollector, type LineSink, type PendingReference } from '../pipeline';
import type { IpsetLineCst } from './grammar';
import { unquote } from './lexer';
import { parseMemberParts } from './members';
import { AddCommandNode, MemberByLine, SetReference, type MemberNode } from './nodes';

const COMMAND_ALIASES: Record<string, IpsetCommand['command']> = nameTable({
  create: 'create',
  '-N': 'create',
  add: 'add',
  '-A': 'add',
  del: 'del',
  '-D': 'del',
  test: 'test',
  '-T': 'test',
  destroy: 'destroy',
  '-X': 'destroy',
  flush: 'flush',
  '-F': 'flush',
  rename: 'rename',
  '-E': 'rename',
  swap: 'swap',
  '-W': 'swap',
});

interface CreateOptionSpec {
  arity: 0 | 1;
  /** Which set methods accept it; undefined = all. */
  types?: (type: string, method: string) => boolean;
}
const HASH = (_: string, method: string) => method === 'hash';
const CREATE_OPTIONS: Record<string, CreateOptionSpec> = nameTable({
  family: { arity: 1, types: (type, method) => method === 'hash' && type !== 'hash:mac' },
  hashsize: { arity: 1, types: HASH },
  maxelem: { arity: 1, types: HASH },
  bucketsize: { arity: 1, types: HASH },
  initval: { arity: 1, types: HASH },
  forceadd: { arity: 0, types: HASH },
  netmask: { arity: 1, types: (type) => ['hash:ip', 'hash:ip,port', 'hash:net,net', 'bitmap:ip'].includes(type) },
  markmask: { arity: 1, types: (type) => type === 'hash:ip,mark' },
  range: { arity: 1, types: (_, method) => method === 'bitmap' },
  size: { arity: 1, types: (_, method) => method === 'list' },
  timeout: { arity: 1 },
  counters: { arity: 0 },
  comment: { arity: 0 },
  skbinfo: { arity: 0 },
  '-exist': { arity: 0 },
  '-!': { arity: 0 },
});

export const MEMBER_OPTIONS: Record<string, 0 | 1> = nameTable({
  timeout: 1,
  packets: 1,
  bytes: 1,
  comment: 1,
  nomatch: 0,
  skbmark: 1,
  skbprio: 1,
  skbqueue: 1,
  before: 1,
  after: 1,
  '-exist': 0,
  '-!': 0,
});

type PendingRef = PendingReference;

/**
 * Where each element text of one members array sits, so that `del` finds the first live one without a scan (a
 * restore file may delete every element it added). Deleted members stay in the array, marked, until compact():
 * the array's positions are what this indexes. It catches up with members pushed since the last `del`, so the
 * `add` path pays nothing.
 */
class MemberIndex {
  private indexed = 0;
  /** The positions of each text, ascending, and how many at the front are deleted. */
  private readonly at = new Map<string, { positions: number[]; deleted: number }>();
  private readonly gone = new Set<number>();

  constructor(private readonly members: IpsetMember[]) {}

  /** Deletes the first live member with this text, as ipset would; false when there is none. */
  delete(text: string): boolean {
    for (; this.indexed < this.members.length; this.indexed++) {
      const key = this.members[this.indexed].text;
      const entry = this.at.get(key);
      if (entry) entry.positions.push(this.indexed);
      else this.at.set(key, { positions: [this.indexed], deleted: 0 });
    }
    const entry = this.at.get(text);
    if (!entry || entry.deleted === entry.positions.length) return false;
    this.gone.add(entry.positions[entry.deleted++]);
    return true;
  }

  /** Drops the deleted members from the array, in place (other sets may hold it after a swap). */
  compact(): void {
    if (this.gone.size === 0) return;
    let kept = 0;
    for (let k = 0; k < this.members.length; k++) if (!this.gone.has(k)) this.members[kept++] = this.members[k];
    this.members.length = kept;
  }
}

export class IpsetSink implements LineSink {
  private readonly diagnostics = new DiagnosticsCollector({ problems: (n) => t('{0} more problems were not reported; is this really ipset output?', n) });
  readonly symbols: Symbols;
  /** The live sets in order of creation (a Set: `destroy` takes one out without a scan). */
  private readonly live = new Set<IpSet>();
  /** The sets given members since the last `flush` of all sets: only these can have any to flush. */
  private readonly filled = new Set<IpSet>();
  /** The index of each members array a `del` has searched (keyed by the array: `swap` exchanges them). */
  private readonly memberIndex = new Map<IpsetMember[], MemberIndex>();
  readonly setByName = new Map<string, IpSet>();
  readonly commands: IpsetCommand[] = [];
  readonly formats: Array<'save' | 'list'> = [];
  readonly setByLine = new Map<number, IpSet>();
  readonly commandByLine = new LineMap<IpsetCommand>();
  readonly memberByLine = new MemberByLine(this.commandByLine);
  readonly fieldByLine = new Map<number, { key: string; keyRange: Range; set: IpSet }>();
  private readonly definitionOf = new Map<IpSet, SymbolDefinition>();
  /** A fast-path `add` line's reference stands for itself (required, rule-owner): no wrapper per member. */
  private readonly pendingRefs: Array<PendingRef | SetReference> = [];
  /** The set of an `ipset list` block being read, and whether its Members: section is open. */
  listed: IpSet | undefined;
  inMembers = false;
  private membersSeen = false;
  /**
   * The set fast-path lines added to since another line was read, through the end (line, character) of the last
   * of them: its fullRange is extended once, when another line is read (not one new Range per member).
   */
  extended: IpSet | undefined;
  private extendedLine = 0;
  private extendedEnd = 0;

  /** The line being read (set by the line loop). */
  line = 0;

  constructor(lineCount: number) {
    this.symbols = new Symbols(lineCount);
    // Most lines of a save are `add` commands.
    this.commandByLine.reserve(lineCount);
  }

  diag(range: Range, severity: Severity, code: string, message: string, unnecessary?: boolean): void {
    this.diagnostics.add(range, severity, code, message, unnecessary);
  }

  /** The dump, once every line was read (`lineCount` of them). */
  finish(lineCount: number): IpsetDump {
    this.extendSet();
    this.closeListed();
    for (const index of this.memberIndex.values()) index.compact();
    this.resolveReferences();
    for (const [set, def] of this.definitionOf) def.fullRange = set.fullRange;
    const sets = [...this.live];
    for (const set of sets) this.kubeChecks(set);
    const diagnostics = this.diagnostics.close();
    return {
      dialect: 'ipset',
      formats: this.formats,
      sets,
      setByName: this.setByName,
      commands: this.commands,
      diagnostics,
      symbols: this.symbols,
      memberByLine: this.memberByLine,
      setByLine: this.setByLine,
      commandByLine: this.commandByLine,
      fieldByLine: this.fieldByLine,
      lineCount,
    };
  }

  private noteFormat(f: 'save' | 'list'): void {
    if (!this.formats.includes(f)) this.formats.push(f);
  }

  /** An accelerated `add SET MEMBER` line: what command() and addMember() make of it, with a compact node. */
  addFastMember(set: IpSet, member: MemberNode, memberEnd: number): void {
    const i = this.line;
    // commandLine(): the command and the reference to the set (named by the set's own string).
    this.noteFormat('save');
    const cmd = new AddCommandNode(member);
    this.commands.push(cmd);
    this.commandByLine.set(i, cmd);
    this.pendingRefs.push(new SetReference(member));
    // addMember() without options.
    const values: IpsetMember = member;
    if (set.type === 'bitmap:port' && set.range && values.port !== undefined) {
      const from = Number(set.range.from);
      const to = Number(set.range.to);
      if (values.port < from || (values.portTo ?? values.port) > to) {
        this.diag(
          member.textRange,
          'error',
          'out-of-range',
          t('Port {0} is outside the set\'s range {1}: ipset says "Element is out of the range of the set".', values.portTo !== undefined ? `${values.port}-${values.portTo}` : values.port, set.range.text),
        );
      }
    }
    set.members.push(member);
    this.memberByLine.addFastMember();
    // Any other line, a flush among them, clears `extended`: the first add to a set after one lands here.
    if (this.extended !== set) {
      this.extendSet();
      this.filled.add(set);
    }
    this.extended = set;
    this.extendedLine = i;
    this.extendedEnd = memberEnd;
  }

  /** Extends the fullRange of the set the last fast lines added to through the last of them (see `extended`). */
  extendSet(): void {
    const set = this.extended;
    if (set === undefined) return;
    set.fullRange = { start: set.fullRange.start, end: { line: this.extendedLine, character: this.extendedEnd } };
    this.extended = undefined;
  }

  notIpset(extent: Range): void {
    this.diag(extent, 'warning', 'not-ipset', t('This line is not ipset output (text or a shell prompt pasted around it?); ignored.'));
  }

  // ---- ipset list ---------------------------------------------------------------------------------------

  /** A `Key: value` line of an `ipset list` block. */
  field(i: number, line: IpsetLineCst, extent: Range): void {
    this.noteFormat('list');
    const key = line.keyword!.image.slice(0, -1);
    const values = line.values;
    const valueText = values.map((v) => v.image).join(' ');
    if (key === 'Name') {
      this.closeListed();
      const nameToken = values[0];
      if (!nameToken) {
        this.diag(extent, 'error', 'missing-name', t('The set name is missing.'));
        return;
      }
      const set = this.newSet(i, nameToken, '', 'list', extent);
      this.fieldByLine.set(i, { key, keyRange: tokenRange(i, line.keyword!), set });
      this.listed = set;
      this.membersSeen = false;
      this.addSet(set, tokenRange(i, nameToken));
      return;
    }
    const set = this.listed;
    if (!set) {
      this.diag(extent, 'error', 'field-without-set', t('{0}: belongs to a set, but no Name: line comes before it.', key));
      return;
    }
    this.setByLine.set(i, set);
    this.fieldByLine.set(i, { key, keyRange: tokenRange(i, line.keyword!), set });
    set.fullRange = spanRanges(set.fullRange, extent);
    const number = (): number | undefined => {
      if (/^\d+$/.test(valueText)) return Number(valueText);
      this.diag(extent, 'warning', 'bad-field', t('{0}: should be a number.', key));
      return undefined;
    };
    switch (key) {
      case 'Type':
        if (values[0]) this.setType(i, set, values[0]);
        return;
      case 'Revision':
        set.revision = number();
        return;
      case 'Header':
        this.createOptions(i, set, values);
        return;
      case 'Size in memory':
        set.sizeInMemory = number();
        return;
      case 'References':
        set.references = number();
        return;
      case 'Number of entries':
        set.numberOfEntries = number();
        return;
      case 'Members':
        this.inMembers = true;
        this.membersSeen = true;
        return;
    }
  }

  /** A member line of an `ipset list` block's Members: section. */
  memberLine(i: number, line: IpsetLineCst, extent: Range): void {
    const set = this.listed!;
    // A member line is one element and its options; anything else is text pasted into the listing.
    const rest = line.values.slice(1);
    for (let k = 0; k < rest.length; k++) {
      const arity = MEMBER_OPTIONS[rest[k].image];
      if (arity === undefined) {
        this.notIpset(extent);
        return;
      }
      k += arity;
    }
    this.addMember(i, set, line.values, extent, 'list');
  }

  closeListed(): void {
    const set = this.listed;
    this.inMembers = false;
    this.listed = undefined;
    if (!set) return;
    if (this.membersSeen && set.numberOfEntries !== undefined && set.numberOfEntries !== set.members.length) {
      this.diag(set.nameRange, 'warning', 'entry-count', t('ipset says the set has {0} entries, but {1} are listed: is the listing cut?', set.numberOfEntries, set.members.length));
    }
    if (!set.type) this.diag(set.nameRange, 'warning', 'missing-type', t('The Type: line of set {0} is missing.', set.name));
  }

  // ---- save / restore --------------------------------------------------------------------------------------

  /** A save / restore command line (`create`, `add`, `del`, …): the reference reader's and the create accelerator's. */
  command(i: number, line: IpsetLineCst, extent: Range): void {
    this.closeListed();
    this.noteFormat('save');
    const keyword = line.keyword!;
    const command = COMMAND_ALIASES[keyword.image];
    const values = line.values;
    const nameToken = values[0];
    const cmd: IpsetCommand = { command, keyword: keyword.image, args: values.slice(1).map((v) => v.image), range: extent, line: i };
    if (nameToken) {
      cmd.set = unquote(nameToken.image);
      cmd.setRange = tokenRange(i, nameToken);
    }
    this.commands.push(cmd);
    this.commandByLine.set(i, cmd);
    if (!nameToken) {
      if (command !== 'destroy' && command !== 'flush') this.diag(extent, 'error', 'missing-name', t('{0} needs a set name.', keyword.image));
      else if (command === 'flush') this.flushAll();
      return;
    }
    const name = unquote(nameToken.image);
    const nameRange = tokenRange(i, nameToken);
    switch (command) {
      case 'create':
        return this.createSet(i, name, nameToken, values, extent);
      case 'add':
      case 'del':
      case 'test':
        return this.memberCommand(i, command, keyword, name, nameRange, values, extent);
      case 'destroy':
      case 'flush':
        return this.setCommand(i, command, name, nameRange);
      case 'rename':
      case 'swap':
        return this.renameOrSwap(i, command, keyword, name, nameRange, values, extent);
    }
  }

  private createSet(i: number, name: string, nameToken: IToken, values: IToken[], extent: Range): void {
    const nameRange = tokenRange(i, nameToken);
    const typeToken = values[1];
    if (this.setByName.has(name)) {
      this.diag(nameRange, 'error', 'duplicate-set', t('Set {0} already exists: ipset restore fails here ("set with the same name already exists").', name));
      this.pendingRefs.push({ name, range: nameRange, role: 'command', line: i, required: false });
      return;
    }
    const set = this.newSet(i, nameToken, '', 'save', extent);
    if (typeToken) this.setType(i, set, typeToken);
    else this.diag(extent, 'error', 'missing-type', t('create needs a set type such as hash:ip,port.'));
    this.createOptions(i, set, values.slice(2));
    if (set.method === 'bitmap' && !set.range) {
      this.diag(extent, 'error', 'missing-range', t('A {0} set needs range: ipset says "Mandatory option `range\' is missing".', set.type));
    }
    this.addSet(set, nameRange);
    return;
  }

  private memberCommand(i: number, command: 'add' | 'del' | 'test', keyword: IToken, name: string, nameRange: Range, values: IToken[], extent: Range): void {
    this.pendingRefs.push({ name, range: nameRange, role: command === 'add' ? 'rule-owner' : 'command', line: i, required: true });
    const set = this.setByName.get(name);
    const memberTokens = values.slice(1);
    if (memberTokens.length === 0) {
      this.diag(extent, 'error', 'missing-member', t('{0} needs an element after the set name.', keyword.image));
      return;
    }
    if (!set) return;
    if (command === 'add') {
      this.addMember(i, set, memberTokens, extent, 'save');
      set.fullRange = spanRanges(set.fullRange, extent);
    } else if (command === 'del') {
      const text = memberTokens[0].image;
      if (!this.deleteMember(set, text)) this.diag(tokenRange(i, memberTokens[0]), 'warning', 'not-a-member', t('{0} is not in set {1} at this point: ipset restore fails here unless -exist is given.', text, name));
    }
    return;
  }

  private setCommand(i: number, command: 'destroy' | 'flush', name: string, nameRange: Range): void {
    this.pendingRefs.push({ name, range: nameRange, role: 'command', line: i, required: true });
    const set = this.setByName.get(name);
    if (!set) return;
    if (command === 'flush') set.members = [];
    else {
      this.live.delete(set);
      this.setByName.delete(name);
    }
    return;
  }

  private renameOrSwap(i: number, command: 'rename' | 'swap', keyword: IToken, name: string, nameRange: Range, values: IToken[], extent: Range): void {
    this.pendingRefs.push({ name, range: nameRange, role: 'command', line: i, required: true });
    const other = values[1];
    if (!other) {
      this.diag(extent, 'error', 'missing-name', t('{0} needs two set names.', keyword.image));
      return;
    }
    const otherName = unquote(other.image);
    if (command === 'swap') {
      this.pendingRefs.push({ name: otherName, range: tokenRange(i, other), role: 'command', line: i, required: true });
      const a = this.setByName.get(name);
      const b = this.setByName.get(otherName);
      if (a && b) {
        [a.members, b.members] = [b.members, a.members];
        this.filled.add(a).add(b);
      }
    } else {
      const set = this.setByName.get(name);
      if (set && !this.setByName.has(otherName)) {
        this.setByName.delete(name);
        set.name = otherName;
        this.setByName.set(otherName, set);
        // From here on the set answers to its new name.
        this.symbols.define({ kind: 'ipset', name: otherName, scope: IPSET_SCOPE, range: tokenRange(i, other), fullRange: extent });
      }
    }
    return;
  }

  private deleteMember(set: IpSet, text: string): boolean {
    let index = this.memberIndex.get(set.members);
    if (!index) this.memberIndex.set(set.members, (index = new MemberIndex(set.members)));
    return index.delete(text);
  }

  /** `flush` without a name empties every live set. */
  private flushAll(): void {
    for (const s of this.filled) if (this.live.has(s)) s.members = [];
    this.filled.clear();
  }

  private newSet(i: number, nameToken: IToken, type: string, source: 'save' | 'list', extent: Range): IpSet {
    const name = unquote(nameToken.image);
    const nameRange = tokenRange(i, nameToken);
    if (name.length > MAX_IPSET_NAME) {
      this.diag(nameRange, 'error', 'name-too-long', t('Set names are at most 31 characters; {0} has {1}.', name, name.length));
    }
    return {
      name,
      type,
      dimensions: [],
      options: [],
      members: [],
      source,
      declarationRange: extent,
      nameRange,
      fullRange: extent,
      line: i,
    };
  }

  private addSet(set: IpSet, nameRange: Range): void {
    const existing = this.setByName.get(set.name);
    if (existing && set.source === 'list') {
      this.diag(nameRange, 'warning', 'duplicate-set', t('Set {0} is listed twice.', set.name));
    }
    this.live.add(set);
    if (!existing) this.setByName.set(set.name, set);
    this.setByLine.set(set.line, set);
    const def: SymbolDefinition = { kind: 'ipset', name: set.name, scope: IPSET_SCOPE, range: nameRange, fullRange: set.fullRange };
    this.symbols.define(def);
    this.definitionOf.set(set, def);
  }

  private setType(i: number, set: IpSet, token: IToken): void {
    const r = tokenRange(i, token);
    set.type = token.image;
    set.typeRange = r;
    const dims = typeDimensions(token.image);
    if (!dims) {
      this.diag(r, 'warning', 'unknown-type', t('Unknown set type {0}: members are kept as text.', token.image));
      return;
    }
    set.method = dims.method;
    set.dimensions = dims.dimensions;
    if (dims.method === 'hash' && set.type !== 'hash:mac') set.family = 'inet';
    if (set.type === 'bitmap:ip' || set.type === 'bitmap:ip,mac') set.family = 'inet';
  }

  /** The options of a create line or a Header: line. */
  private createOptions(i: number, set: IpSet, tokens: IToken[]): void {
    for (let k = 0; k < tokens.length; k++) {
      const tk = tokens[k];
      const name = tk.image;
      const spec = CREATE_OPTIONS[name];
      const r = tokenRange(i, tk);
      if (!spec) {
        this.diag(r, 'warning', 'unknown-option', t('Unknown set option {0}.', name));
        continue;
      }
      let value: string | undefined;
      let range = r;
      if (spec.arity === 1) {
        const v = tokens[k + 1];
        if (!v) {
          this.diag(r, 'error', 'missing-value', t('{0} needs a value.', name));
          continue;
        }
        value = unquote(v.image);
        range = spanRanges(r, tokenRange(i, v));
        k++;
      }
      if (name === '-exist' || name === '-!') continue;
      if (set.method && spec.types && !spec.types(set.type, set.method)) {
        this.diag(r, 'error', 'option-not-for-type', t('A {0} set does not take {1}: ipset says "Unknown argument".', set.type, name));
      }
      set.options.push(value === undefined ? { name, range } : { name, value, range });
      this.applyOption(set, name, value, range);
    }
  }

  private applyOption(set: IpSet, name: string, value: string | undefined, range: Range): void {
    const int = (): number | undefined => {
      if (value !== undefined && /^\d+$/.test(value)) return Number(value);
      this.diag(range, 'error', 'bad-value', t('{0} needs a number, not {1}.', name, value ?? ''));
      return undefined;
    };
    switch (name) {
      case 'family':
        if (value === 'inet' || value === 'inet6') set.family = value;
        else this.diag(range, 'error', 'bad-value', t('family is inet or inet6, not {0}.', value ?? ''));
        return;
      case 'hashsize':
        set.hashsize = int();
        return;
      case 'maxelem':
        set.maxelem = int();
        return;
      case 'bucketsize':
        set.bucketsize = int();
        return;
      case 'timeout':
        set.timeout = int();
        return;
      case 'size':
        set.size = int();
        return;
      case 'netmask':
        set.netmask = int();
        return;
      case 'initval':
        set.initval = value;
        return;
      case 'markmask':
        set.markmask = value;
        return;
      case 'counters':
        set.counters = true;
        return;
      case 'comment':
        set.comment = true;
        return;
      case 'skbinfo':
        set.skbinfo = true;
        return;
      case 'forceadd':
        set.forceadd = true;
        return;
      case 'range': {
        const text = value ?? '';
        const [from, to] = text.includes('-') ? text.split('-') : [text, text];
        set.range = { from, to, text };
        return;
      }
    }
  }

  /** An `add` line's element and options, or a member line of a listing. */
  private addMember(i: number, set: IpSet, tokens: IToken[], extent: Range, source: 'save' | 'list'): void {
    const textToken = tokens[0];
    const text = textToken.image;
    const textRange = tokenRange(i, textToken);
    const member: IpsetMember = { text, parts: [], options: {}, range: extent, textRange, line: i };
    if (set.type) {
      const { parts, problems } = parseMemberParts(text, textRange, set.type, set.family);
      member.parts = parts;
      for (const p of problems) this.diag(p.range, p.severity, p.code, p.message);
      this.fillMember(member);
      if (set.type === 'list:set') {
        this.pendingRefs.push({ name: text, range: textRange, role: 'lookup', line: i, required: source === 'save' });
      }
      if (set.type === 'bitmap:port' && set.range && member.port !== undefined) {
        const from = Number(set.range.from);
        const to = Number(set.range.to);
        if (member.port < from || (member.portTo ?? member.port) > to) {
          this.diag(
            textRange,
            'error',
            'out-of-range',
            t('Port {0} is outside the set\'s range {1}: ipset says "Element is out of the range of the set".', member.portTo !== undefined ? `${member.port}-${member.portTo}` : member.port, set.range.text),
          );
        }
      }
    }
    this.memberOptions(i, set, member, tokens.slice(1));
    set.members.push(member);
    this.filled.add(set);
    this.memberByLine.set(i, { set, member });
    if (source === 'list') set.fullRange = spanRanges(set.fullRange, extent);
  }

  fillMember(member: IpsetMember, parts = member.parts): void {
    const addrs = parts.filter((p) => p.dimension === 'ip' || p.dimension === 'net');
    const port = parts.find((p) => p.dimension === 'port');
    if (addrs[0]) {
      member.address = addrs[0].address;
      if (addrs[0].prefix !== undefined) member.prefix = addrs[0].prefix;
    }
    if (addrs[1]) {
      member.address2 = addrs[1].address;
      if (addrs[1].prefix !== undefined) member.prefix2 = addrs[1].prefix;
    }
    if (port) {
      if (port.protocol !== undefined) member.protocol = port.protocol;
      if (port.port !== undefined) member.port = port.port;
      if (port.portTo !== undefined) member.portTo = port.portTo;
    }
  }

  private memberOptions(i: number, set: IpSet, member: IpsetMember, tokens: IToken[]): void {
    for (let k = 0; k < tokens.length; k++) {
      const tk = tokens[k];
      const name = tk.image;
      const r = tokenRange(i, tk);
      const arity = MEMBER_OPTIONS[name];
      if (arity === undefined) {
        this.diag(r, 'error', 'unknown-option', t('Unknown element option {0}: ipset says "Unknown argument".', JSON.stringify(name)));
        continue;
      }
      let value: string | undefined;
      if (arity === 1) {
        const v = tokens[k + 1];
        if (!v) {
          this.diag(r, 'error', 'missing-value', t('{0} needs a value.', name));
          continue;
        }
        value = unquote(v.image);
        k++;
      }
      const o = member.options;
      const number = (): number | undefined => {
        if (value !== undefined && /^\d+$/.test(value)) return Number(value);
        this.diag(r, 'error', 'bad-value', t('{0} needs a number, not {1}.', name, value ?? ''));
        return undefined;
      };
      const need = (ok: boolean | undefined, message: string) => {
        if (!ok) this.diag(r, 'error', 'extension-missing', message);
      };
      switch (name) {
        case 'timeout':
          o.timeout = number();
          need(set.timeout !== undefined || !set.type, t('Timeout cannot be used: set {0} was created without timeout support.', set.name));
          break;
        case 'packets':
        case 'bytes':
          o[name] = number();
          need(set.counters || !set.type, t('Packet/byte counters cannot be used: set {0} was created without counter support.', set.name));
          break;
        case 'comment':
          o.comment = value;
          need(set.comment || !set.type, t('Comment cannot be used: set {0} was created without comment support.', set.name));
          break;
        case 'skbmark':
        case 'skbprio':
          o[name] = value;
          need(set.skbinfo || !set.type, t('skbinfo cannot be used: set {0} was created without skbinfo support.', set.name));
          break;
        case 'skbqueue':
          o.skbqueue = number();
          need(set.skbinfo || !set.type, t('skbinfo cannot be used: set {0} was created without skbinfo support.', set.name));
          break;
        case 'nomatch':
          o.nomatch = true;
          need(set.dimensions.includes('net') || !set.type, t('nomatch only exists for sets with a net part (hash:net, hash:net,port, …).'));
          break;
        case 'before':
        case 'after':
          o[name] = value;
          need(set.type === 'list:set' || !set.type, t('before and after only exist for list:set.'));
          if (value !== undefined) this.pendingRefs.push({ name: value, range: tokenRange(i, tokens[k]), role: 'lookup', line: i, required: true });
          break;
      }
    }
  }

  private resolveReferences(): void {
    for (const ref of this.pendingRefs) {
      if (ref instanceof SetReference) this.resolveReference(ref.name, ref, ref.role, ref.lineNumber(), true);
      else this.resolveReference(ref.name, ref.range, ref.role, ref.line, ref.required);
    }
    this.lastDefined = undefined;
  }

  /** The last name resolveReference looked up and its definition (runs of add lines name one set; nothing is defined meanwhile). */
  private lastDefined: { name: string; def: SymbolDefinition | undefined } | undefined;

  private resolveReference(name: string, range: Range | SetReference, role: ReferenceRole, line: number, required: boolean): void {
    if (range instanceof SetReference) this.symbols.reference(range, line);
    else this.symbols.reference({ kind: 'ipset', name, scope: IPSET_SCOPE, range, role });
    let last = this.lastDefined;
    if (last === undefined || last.name !== name) last = this.lastDefined = { name, def: this.symbols.definition('ipset', IPSET_SCOPE, name) };
    const def = last.def;
    if (required && (!def || def.range.start.line > line)) {
      this.diag(range instanceof SetReference ? range.range : range, 'error', 'undefined-set', t('No set {0} is created before this line: ipset restore fails here ("The set with the given name does not exist").', name));
    } else if (!def && role === 'lookup') {
      this.diag(range instanceof SetReference ? range.range : range, 'hint', 'set-not-in-file', t('Set {0} is not in this file.', name));
    }
  }

  /** kube-proxy's IPVS-mode sets have fixed types and families. */
  private kubeChecks(set: IpSet): void {
    const info = kubeIpsetInfo(set.name);
    if (!info || !set.type) return;
    if (set.type !== info.type) {
      this.diag(set.typeRange ?? set.nameRange, 'warning', 'kube-set-type', t('kube-proxy creates {0} as {1}, not {2}.', set.name, info.type, set.type));
    }
    if (set.family && set.family !== info.family) {
      this.diag(
        set.nameRange,
        'warning',
        'kube-set-family',
        info.family === 'inet6' ? t("{0} is kube-proxy's IPv6 set: it should be family inet6.", set.name) : t("{0} is kube-proxy's IPv4 set (the IPv6 one is named KUBE-6-…): it should be family inet.", set.name),
      );
    }
  }
}
