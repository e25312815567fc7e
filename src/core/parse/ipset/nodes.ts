// Compact model objects of the ipset fast path (issue #8): kube-proxy's `ipset save` of 10,000 Services has
// ~60,000 `add` lines. A member keeps its columns packed (start | end << 15) and makes its ranges, its typed
// parts and its (empty) options when they are asked for; from the outside these are the IpsetMember,
// IpsetCommand and SymbolReference of model/ipset.ts and model/symbols.ts.
import type { IpSet, IpsetCommand, IpsetMember, IpsetMemberOptions, IpsetMemberPart } from '../../model/ipset';
import { IPSET_SCOPE } from '../../model/ipset';
import type { Range } from '../../model/range';
import type { ReferenceRole, SymbolReference } from '../../model/symbols';
import { unpack } from '../ipvs/nodes';
import { LineMap } from '../../model/line-map';
// A cycle (parser.ts builds these nodes), read only when a member's parts are first asked for.
import { parseMemberParts } from './parser';

const NO_OPTIONS: IpsetMemberOptions = Object.freeze({});

export class MemberNode implements IpsetMember {
  text: string;
  line: number;
  declare address?: string;
  declare prefix?: number;
  declare protocol?: string;
  declare port?: number;
  declare portTo?: number;
  declare address2?: string;
  declare prefix2?: number;
  #text: number;
  /** The set it was added to (whose type and family, fixed once a set is created, type its parts). */
  #set: IpSet;
  #parts: IpsetMemberPart[] | undefined;
  #options: IpsetMemberOptions | undefined;

  /** `textColumns`: the member's columns; the line (`add SET MEMBER`) runs from column 0 to the member's end. */
  constructor(line: number, text: string, textColumns: number, set: IpSet) {
    this.text = text;
    this.line = line;
    this.#text = textColumns;
    this.#set = set;
  }

  /** The set it was added to (for MemberByLine). */
  setOf(): IpSet {
    return this.#set;
  }

  get range(): Range {
    return unpack(this.line, (this.#text >>> 15) << 15);
  }
  get textRange(): Range {
    return unpack(this.line, this.#text);
  }
  /** Made on first use and kept (a hover asks for them; the model is read, not edited). */
  get parts(): IpsetMemberPart[] {
    return (this.#parts ??= parseMemberParts(this.text, this.textRange, this.#set.type, this.#set.family).parts);
  }
  set parts(parts: IpsetMemberPart[]) {
    this.#parts = parts;
  }
  /** A member of the fast path has no options: one frozen empty object for all (assign to give it others). */
  get options(): IpsetMemberOptions {
    return this.#options ?? NO_OPTIONS;
  }
  set options(options: IpsetMemberOptions) {
    this.#options = options;
  }
}

/** The `add SET MEMBER` command of a fast-path line. */
export class AddCommandNode implements IpsetCommand {
  set: string;
  line: number;
  /** The member the line adds: the command's argument, and its line is the command's. */
  #member: MemberNode;
  #set: number;

  constructor(set: string, member: MemberNode, setColumns: number) {
    this.set = set;
    this.line = member.line;
    this.#member = member;
    this.#set = setColumns;
  }

  get command(): 'add' {
    return 'add';
  }
  get keyword(): string {
    return 'add';
  }
  get args(): string[] {
    return [this.#member.text];
  }
  get range(): Range {
    return this.#member.range;
  }
  get setRange(): Range {
    return unpack(this.line, this.#set);
  }
}

/** The reference to its set of a fast-path `add` line. */
export class SetReference implements SymbolReference {
  readonly name: string;
  readonly role: ReferenceRole;
  #line: number;
  #columns: number;

  constructor(name: string, role: ReferenceRole, line: number, columns: number) {
    this.name = name;
    this.role = role;
    this.#line = line;
    this.#columns = columns;
  }

  get kind(): 'ipset' {
    return 'ipset';
  }
  get scope(): string {
    return IPSET_SCOPE;
  }
  get range(): Range {
    return unpack(this.#line, this.#columns);
  }

  /** The line of the reference (a method, not a property: a SymbolReference has no line field). */
  lineNumber(): number {
    return this.#line;
  }
}

export type MemberEntry = { set: IpSet; member: IpsetMember };

/** IpsetDump.memberByLine: a fast-path `add` line stores just its MemberNode; `{ set, member }` is made when asked for. */
export class MemberByLine extends LineMap<MemberEntry> {
  protected override view(stored: unknown): MemberEntry {
    return stored instanceof MemberNode ? { set: stored.setOf(), member: stored } : (stored as MemberEntry);
  }

  setMember(member: MemberNode): void {
    this.store(member.line, member);
  }
}
