// Compact model objects of the ipset fast path (see docs/performance.md): kube-proxy's `ipset save` of 10,000 Services has
// ~60,000 `add` lines. A member keeps its typed values and where the words start, and makes its text (when it is
// the canonical form of those values), its ranges, its typed parts and its (empty) options when they are asked
// for; its command and its set reference are views of it. From the outside these are the IpsetMember,
// IpsetCommand and SymbolReference of model/ipset.ts and model/symbols.ts.
import type { IpSet, IpsetCommand, IpsetMember, IpsetMemberOptions, IpsetMemberPart } from '../../model/ipset';
import { IPSET_SCOPE } from '../../model/ipset';
import { lineRange, type Range } from '../../model/range';
import type { ReferenceRole, SymbolReference } from '../../model/symbols';
import { LineMap } from '../../model/line-map';
import { endColumn, packColumns, startColumn } from '../../model/compact/columns';
// A cycle (parser.ts builds these nodes), read only when a member's parts are first asked for.
import { parseMemberParts } from './members';

const NO_OPTIONS: IpsetMemberOptions = Object.freeze({});

/**
 * The set a run of `add` lines adds to, and its name as those lines write it (a later `rename` changes
 * set.name, not what the earlier lines named). One per run of lines, shared by their members.
 */
export interface AddTarget {
  readonly set: IpSet;
  readonly name: string;
}

// Rarely there (a hover asks for the parts; nothing assigns options): kept beside the members, not in a field each.
const partsOf = new WeakMap<MemberNode, IpsetMemberPart[]>();
const optionsOf = new WeakMap<MemberNode, IpsetMemberOptions>();

/** Where a fast-path line's words start: the line and its spacing (see MemberNode). */
export interface AddLine {
  line: number;
  target: AddTarget;
  nameStart: number;
  nameEnd: number;
  memberStart: number;
}

/**
 * A fast-path `add SET MEMBER` line's member (the line runs from column 0 to the member's end). Its subclasses
 * keep the typed values: as properties (ValueMemberNode) or packed (kube-proxy's IPv4 members).
 */
export abstract class MemberNode implements IpsetMember {
  line: number;
  #target: AddTarget;
  /** The member as written, unless it is canonicalText() (most kube-proxy members): then undefined. */
  #text: string | undefined;
  /** The spaces beyond one before the set name and before the member (packColumns). */
  #spacing: number;

  constructor(at: AddLine) {
    this.line = at.line;
    this.#target = at.target;
    this.#text = undefined;
    this.#spacing = packColumns(at.nameStart - 4, at.memberStart - at.nameEnd - 1);
  }

  /** The member's text made from its values (the parser keeps the written text when it differs). */
  abstract canonicalText(): string;

  /** The set it was added to (for MemberByLine; its type and family, fixed once a set is created, type its parts). */
  setOf(): IpSet {
    return this.#target.set;
  }
  /** The set's name as the line writes it. */
  setName(): string {
    return this.#target.name;
  }

  get text(): string {
    return this.#text ?? this.canonicalText();
  }
  set text(text: string) {
    this.#text = text;
  }
  hasCanonicalText(): boolean {
    return this.#text === undefined;
  }

  nameStart(): number {
    return 4 + startColumn(this.#spacing);
  }
  memberStart(): number {
    return this.nameStart() + this.#target.name.length + 1 + endColumn(this.#spacing);
  }

  get range(): Range {
    return lineRange(this.line, 0, this.memberStart() + this.text.length);
  }
  get textRange(): Range {
    const start = this.memberStart();
    return lineRange(this.line, start, start + this.text.length);
  }
  /** Made on first use and kept (a hover asks for them; the model is read, not edited). */
  get parts(): IpsetMemberPart[] {
    let parts = partsOf.get(this);
    if (parts === undefined) {
      const set = this.#target.set;
      parts = parseMemberParts(this.text, this.textRange, set.type, set.family).parts;
      partsOf.set(this, parts);
    }
    return parts;
  }
  set parts(parts: IpsetMemberPart[]) {
    partsOf.set(this, parts);
  }
  /** A member of the fast path has no options: one frozen empty object for all (assign to give it others). */
  get options(): IpsetMemberOptions {
    return optionsOf.get(this) ?? NO_OPTIONS;
  }
  set options(options: IpsetMemberOptions) {
    optionsOf.set(this, options);
  }
}

/** A member whose values are properties, written by the parser (a `bitmap:port` member, an IPv6 or a network one). */
export class ValueMemberNode extends MemberNode {
  declare address?: string;
  declare prefix?: number;
  declare protocol?: string;
  declare port?: number;
  declare portTo?: number;
  declare address2?: string;
  declare prefix2?: number;

  /** `PORT` (bitmap:port); the parser keeps the text of any other. */
  canonicalText(): string {
    return String(this.port);
  }
}

/** The text of an IPv4 address stored as its 32-bit value. */
function ipv4Text(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

// An address assigned to a packed member (the parser never does; the model is read, not edited).
const assignedAddress = new WeakMap<MemberNode, { address?: string; address2?: string }>();

/** A `hash:ip` member `ADDR` of a canonical IPv4 address, kept as its value (no string per member). */
export class Ipv4MemberNode extends MemberNode {
  /** ipv4Number's value, as a 32-bit integer (a small integer, not a boxed number). */
  #address: number;

  constructor(at: AddLine, address: number) {
    super(at);
    this.#address = address | 0;
  }

  get address(): string {
    return assignedAddress.get(this)?.address ?? ipv4Text(this.#address >>> 0);
  }
  /** The address's 32-bit value (ipv4Number's), or undefined once another address was assigned. */
  addressValue(): number | undefined {
    return assignedAddress.has(this) ? undefined : this.#address >>> 0;
  }
  set address(address: string) {
    assignedAddress.set(this, { ...assignedAddress.get(this), address });
  }
  canonicalText(): string {
    return this.address;
  }
}

const PACKED_PROTOCOLS = ['tcp', 'udp', 'sctp'] as const;

/** A `hash:ip,port` member `ADDR,PROTO:PORT` of kube-proxy: the address and the port packed. */
export class Ipv4PortMemberNode extends Ipv4MemberNode {
  /** port | PACKED_PROTOCOLS index << 16. */
  #service: number;

  constructor(at: AddLine, address: number, protocol: 0 | 1 | 2, port: number) {
    super(at, address);
    this.#service = port | (protocol << 16);
  }

  get protocol(): string {
    return PACKED_PROTOCOLS[this.#service >>> 16];
  }
  get port(): number {
    return this.#service & 0xffff;
  }
  /** The protocol's number: tcp 0, udp 1, sctp 2. */
  protocolIndex(): number {
    return this.#service >>> 16;
  }
  override canonicalText(): string {
    return `${this.address},${this.protocol}:${this.port}`;
  }
}

/** A `hash:ip,port,ip` member `ADDR,PROTO:PORT,ADDR2` (KUBE-LOOP-BACK's endpoint,proto:port,endpoint). */
export class Ipv4PortIpMemberNode extends Ipv4PortMemberNode {
  #address2: number;

  constructor(at: AddLine, address: number, protocol: 0 | 1 | 2, port: number, address2: number) {
    super(at, address, protocol, port);
    this.#address2 = address2 | 0;
  }

  get address2(): string {
    return assignedAddress.get(this)?.address2 ?? ipv4Text(this.#address2 >>> 0);
  }
  /** Whether the second address is the first (KUBE-LOOP-BACK's members), read without making them. */
  repeatsAddress(): boolean {
    return this.addressValue() === this.#address2 >>> 0;
  }
  set address2(address2: string) {
    assignedAddress.set(this, { ...assignedAddress.get(this), address2 });
  }
  override canonicalText(): string {
    return `${this.address},${this.protocol}:${this.port},${this.address2}`;
  }
}

/** The `add SET MEMBER` command of a fast-path line: a view of its member. */
export class AddCommandNode implements IpsetCommand {
  /** The member the line adds: the command's argument, and its line is the command's. */
  readonly #member: MemberNode;

  constructor(member: MemberNode) {
    this.#member = member;
  }

  /** The member the line adds. */
  memberNode(): MemberNode {
    return this.#member;
  }

  get set(): string {
    return this.#member.setName();
  }
  get line(): number {
    return this.#member.line;
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
    const start = this.#member.nameStart();
    return lineRange(this.line, start, start + this.set.length);
  }
}

/** The reference to its set of a fast-path `add` line (required, rule-owner): a view of its member. */
export class SetReference implements SymbolReference {
  readonly #member: MemberNode;

  constructor(member: MemberNode) {
    this.#member = member;
  }

  get name(): string {
    return this.#member.setName();
  }
  get role(): ReferenceRole {
    return 'rule-owner';
  }
  get kind(): 'ipset' {
    return 'ipset';
  }
  get scope(): string {
    return IPSET_SCOPE;
  }
  get range(): Range {
    const start = this.#member.nameStart();
    return lineRange(this.#member.line, start, start + this.name.length);
  }

  /** The line of the reference (a method, not a property: a SymbolReference has no line field). */
  lineNumber(): number {
    return this.#member.line;
  }
}

export type MemberEntry = { set: IpSet; member: IpsetMember };

/**
 * IpsetDump.memberByLine. A fast-path `add` line's member has no slot of its own: it is found through the line's
 * AddCommandNode in commandByLine, and `{ set, member }` is made when asked for. Other members are stored here.
 * Built in line order, each line once, then only read.
 */
export class MemberByLine extends LineMap<MemberEntry> {
  readonly #commands: LineMap<IpsetCommand>;
  #fastMembers = 0;

  constructor(commands: LineMap<IpsetCommand>) {
    super();
    this.#commands = commands;
  }

  /** Counts the member of a fast-path line whose AddCommandNode commandByLine holds. */
  addFastMember(): void {
    this.#fastMembers++;
  }

  #fastAt(line: number): MemberEntry | undefined {
    const command = this.#commands.get(line);
    return command instanceof AddCommandNode ? entryOf(command.memberNode()) : undefined;
  }

  override get size(): number {
    return super.size + this.#fastMembers;
  }
  override get(line: number): MemberEntry | undefined {
    return super.get(line) ?? this.#fastAt(line);
  }
  override has(line: number): boolean {
    return super.has(line) || this.#commands.get(line) instanceof AddCommandNode;
  }

  /** The stored entries and the fast-path ones, both in increasing line order and never on the same line, merged. */
  override *entries(): MapIterator<[number, MemberEntry]> {
    const stored = super.entries();
    let next = stored.next();
    for (const [line, command] of this.#commands.entries()) {
      if (!(command instanceof AddCommandNode)) continue;
      for (; !next.done && next.value[0] < line; next = stored.next()) yield next.value;
      yield [line, entryOf(command.memberNode())];
    }
    for (; !next.done; next = stored.next()) yield next.value;
  }
}

function entryOf(member: MemberNode): MemberEntry {
  return { set: member.setOf(), member };
}
