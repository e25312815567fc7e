// Compact model objects of the ipvsadm accelerators (see docs/performance.md): a listing of 10,000 Services has ~150,000 real
// server lines, and a Range is three objects. These classes keep each column as one packed number
// (packColumns of model/compact, lines shorter than FAST_MAX_LINE), a real server just where its line starts in the text,
// and make the Range when it is asked for; from the outside they are the RealServer / VirtualService /
// SymbolDefinition of model/ipvs.ts (a range can still be assigned, as the merge of two listings does).
import type { IpvsFamily, IpvsForward, IpvsFormat, IpvsStats, Persistence, RealServer, TunnelInfo, VirtualService } from '../../model/ipvs';
import { IPVS_SCOPE } from '../../model/ipvs';
import type { Range } from '../../model/range';
import type { SymbolDefinition } from '../../model/symbols';
import { LineMap } from '../../model/line-map';
import { digitsValue } from '../digits';
import { columnsRange, endColumn, MAX_PACKED_COLUMN, packColumns } from '../../model/compact/columns';

/** The fast path only reads lines shorter than this, so that its columns fit packColumns. */
export const FAST_MAX_LINE = MAX_PACKED_COLUMN;

export const pack = packColumns;

/** The Range of a packed column on `line` (a fresh object each time, like any other Range of the model). */
export const unpack = columnsRange;

/** A range stored packed until it is replaced by an assigned Range (or undefined). */
type Slot = number | Range | undefined;

/** The `notInDump` of every plain listing's server (nothing missing): one frozen array, replaced, never edited. */
const NOTHING_MISSING = Object.freeze([]) as unknown as Array<'forward' | 'weight'>;
const read = (line: number, slot: Slot): Range | undefined => (typeof slot === 'number' ? unpack(line, slot) : slot);

/** What a RealServerNode keeps of its own once one of its read-on-demand fields was assigned. */
type ServerField = Slot | string | IpvsFamily | IpvsForward | Array<'forward' | 'weight'>;

/** The ranges of a real server, in the order RealServerNode keeps them once one is assigned. */
const SERVER_RANGES = ['range', 'addressRange', 'forwardRange', 'weightRange', 'activeRange', 'inactRange'] as const;

/** [start, end) of the six words of a real server line, at 2k and 2k + 1 (one array, reused). */
const serverWords = new Int32Array(12);

/**
 * The first `count` words (`->`, address, forward, weight, active, inactive) of the real server line at
 * `lineStart` of `text`, relative to the line: a line the fast path read holds six words of printable characters
 * between spaces.
 */
export function serverLineWords(text: string, lineStart: number, count = 6): Int32Array {
  let k = lineStart;
  for (let w = 0; w < 2 * count; w += 2) {
    while (text.charCodeAt(k) === 32) k++;
    serverWords[w] = k - lineStart;
    // A word ends at a space, the line break or the end of the text (NaN).
    while (text.charCodeAt(k) > 32) k++;
    serverWords[w + 1] = k - lineStart;
  }
  return serverWords;
}

const MASQ = { forward: 'masq', local: false } as const;
const ROUTE = { forward: 'route', local: false } as const;
const TUNNEL = { forward: 'tunnel', local: false } as const;
const LOCAL = { forward: 'route', local: true } as const;

/** The Forward column (`Masq`, `Route`, `Tunnel`, `Local`) at [start, end), without slicing it. */
export function forwardAt(text: string, start: number, end: number): { forward: IpvsForward; local: boolean } | undefined {
  switch (end - start) {
    case 4:
      return text.startsWith('Masq', start) ? MASQ : undefined;
    case 5:
      return text.startsWith('Route', start) ? ROUTE : text.startsWith('Local', start) ? LOCAL : undefined;
    case 6:
      return text.startsWith('Tunnel', start) ? TUNNEL : undefined;
    default:
      return undefined;
  }
}

/** Where the address of the real server line at `lineStart` starts (after `->`): `10.0.0.1:80` or `[fd00::1]:80`. */
function addressStart(text: string, lineStart: number): number {
  let k = lineStart;
  while (text.charCodeAt(k) === 32) k++;
  k += 2;
  while (text.charCodeAt(k) === 32) k++;
  return k;
}

export class RealServerNode implements RealServer {
  declare localNode?: boolean;
  /** A field, not read from the line: the catalog's weight shares read every server's. */
  weight: number;
  line: number;
  // Optional columns other listings add when they are merged into this server.
  declare hostname?: boolean;
  declare portName?: string;
  declare persistConn?: number;
  declare upperThreshold?: number;
  declare lowerThreshold?: number;
  declare stats?: IpvsStats;
  declare tunnel?: TunnelInfo;
  /**
   * Where the line starts in dumpText() (the line's columns are read again from it when a range, address, port,
   * count, family or forward is asked for); or, once a range or read-on-demand field was assigned, the six ranges
   * (SERVER_RANGES order) then activeConn, inactConn, family, forward, notInDump, port and address.
   */
  #columns: number | ServerField[];
  #service: VirtualService;

  constructor(
    service: VirtualService,
    line: number,
    local: boolean,
    weight: number,
    /** Where the line starts in dumpText() (a line the fast path read: six words). */
    lineStart: number,
  ) {
    if (local) this.localNode = true;
    this.weight = weight;
    this.line = line;
    this.#service = service;
    this.#columns = lineStart;
  }

  /** The dump's text, kept by the service the fast path read (one field there, not one on each server). */
  protected dumpText(): string {
    return (this.#service as ServiceNode).dumpText();
  }

  /** The virtual service whose line list this server is on (for RealServerByLine). */
  serviceOf(): VirtualService {
    return this.#service;
  }

  // The two helpers are static: a private instance method would add a brand slot to each of the ~150,000 servers.
  /** The packed columns of range `which` (an index of SERVER_RANGES) of `server`, or the Range assigned to it. */
  static #slot(server: RealServerNode, which: number): Slot {
    const columns = server.#columns;
    if (typeof columns !== 'number') return columns[which] as Slot;
    // The whole line's range runs from `->` to the end of the last column; another needs the words up to its own.
    const words = serverLineWords(server.dumpText(), columns, which === 0 ? 6 : which + 1);
    return which === 0 ? pack(words[0], words[11]) : pack(words[2 * which], words[2 * which + 1]);
  }

  /** Column `word` (4: ActiveConn, 5: InActConn) of `server`'s line as a number, or the count assigned to it. */
  static #count(server: RealServerNode, word: 4 | 5): number | undefined {
    const columns = server.#columns;
    if (typeof columns !== 'number') return columns[word + 2] as number | undefined;
    const text = server.dumpText();
    const words = serverLineWords(text, columns, word + 1);
    return digitsValue(text, columns + words[2 * word], columns + words[2 * word + 1]);
  }

  /** The ranges and counts of `server` as an array of its own, to assign one of them. */
  static #detach(server: RealServerNode): ServerField[] {
    if (typeof server.#columns === 'number') {
      server.#columns = [
        ...SERVER_RANGES.map((_, k) => RealServerNode.#slot(server, k)),
        RealServerNode.#count(server, 4),
        RealServerNode.#count(server, 5),
        server.family,
        server.forward,
        server.notInDump,
        server.port,
        server.address,
      ];
    }
    return server.#columns;
  }

  static #assign(server: RealServerNode, which: number, r: Range | undefined): void {
    RealServerNode.#detach(server)[which] = r;
  }

  // The address is read from the line too (a string per server, kept as long as the model, was ~3 MB on a
  // 10,000-Service node, see docs/performance.md): the text between `->` and the port, without the brackets of an IPv6 one.
  get address(): string {
    const columns = this.#columns;
    if (typeof columns !== 'number') return columns[12] as string;
    const text = this.dumpText();
    const k = addressStart(text, columns);
    return text.charCodeAt(k) === 91 /* [ */ ? text.slice(k + 1, text.indexOf(']', k)) : text.slice(k, text.indexOf(':', k));
  }
  set address(address: string) {
    RealServerNode.#detach(this)[12] = address;
  }

  /**
   * ipv4Number(server.address) * 65536 + server.port for a server of a fast-path line with an IPv4 address, read
   * from the line in one pass (the catalog reads every server's, and makes no address string); -1 for another.
   */
  static ipv4Endpoint(server: RealServer): number {
    if (!(server instanceof RealServerNode) || typeof server.#columns !== 'number') return -1;
    const text = server.dumpText();
    let k = addressStart(text, server.#columns);
    if (text.charCodeAt(k) === 91 /* [ */) return -1;
    // The fast path read a dotted address isIpv4 accepts, then `:` and the port's digits.
    let value = 0;
    let octet = 0;
    for (let c = text.charCodeAt(k); c !== 58 /* : */; c = text.charCodeAt(++k)) {
      if (c === 46 /* . */) {
        value = value * 256 + octet;
        octet = 0;
      } else octet = octet * 10 + (c - 48);
    }
    let port = 0;
    for (let c = text.charCodeAt(++k); c >= 48 && c <= 57; c = text.charCodeAt(++k)) port = port * 10 + (c - 48);
    // (value * 2^24 is past the small integers from the first 10.x address on: no overflow to deoptimise at 128.x.)
    return value * 16777216 + octet * 65536 + port;
  }

  // A fast-path line's family is its address's: an IPv6 one was written in brackets, an IPv4 one dotted.
  get family(): IpvsFamily {
    const columns = this.#columns;
    if (typeof columns !== 'number') return columns[8] as IpvsFamily;
    const text = this.dumpText();
    return text.charCodeAt(addressStart(text, columns)) === 91 /* [ */ ? 'ipv6' : 'ipv4';
  }
  set family(family: IpvsFamily) {
    RealServerNode.#detach(this)[8] = family;
  }
  get forward(): IpvsForward {
    const columns = this.#columns;
    if (typeof columns !== 'number') return columns[9] as IpvsForward;
    const text = this.dumpText();
    const words = serverLineWords(text, columns, 3);
    return forwardAt(text, columns + words[4], columns + words[5])!.forward;
  }
  set forward(forward: IpvsForward) {
    RealServerNode.#detach(this)[9] = forward;
  }
  /** Nothing is missing from a plain listing's line (one frozen array, replaced, never edited). */
  get notInDump(): Array<'forward' | 'weight'> {
    const columns = this.#columns;
    return typeof columns !== 'number' ? (columns[10] as Array<'forward' | 'weight'>) : NOTHING_MISSING;
  }
  set notInDump(missing: Array<'forward' | 'weight'>) {
    RealServerNode.#detach(this)[10] = missing;
  }

  get port(): number | undefined {
    const columns = this.#columns;
    if (typeof columns !== 'number') return columns[11] as number | undefined;
    // The digits after the address (`10.0.0.1:80`, `[fd00::1]:80`).
    const text = this.dumpText();
    let k = addressStart(text, columns);
    k = text.charCodeAt(k) === 91 /* [ */ ? text.indexOf(']', k) + 2 : text.indexOf(':', k) + 1;
    let port = 0;
    for (let c = text.charCodeAt(k); c >= 48 && c <= 57; c = text.charCodeAt(++k)) port = port * 10 + (c - 48);
    return port;
  }
  set port(port: number | undefined) {
    RealServerNode.#detach(this)[11] = port;
  }

  // The connection counts are read from the line when asked for, like the ranges (two fields fewer per server).
  get activeConn(): number | undefined {
    return RealServerNode.#count(this, 4);
  }
  set activeConn(n: number | undefined) {
    RealServerNode.#detach(this)[6] = n;
  }
  get inactConn(): number | undefined {
    return RealServerNode.#count(this, 5);
  }
  set inactConn(n: number | undefined) {
    RealServerNode.#detach(this)[7] = n;
  }

  get range(): Range {
    return read(this.line, RealServerNode.#slot(this, 0))!;
  }
  set range(r: Range) {
    RealServerNode.#assign(this, 0, r);
  }
  get addressRange(): Range {
    return read(this.line, RealServerNode.#slot(this, 1))!;
  }
  set addressRange(r: Range) {
    RealServerNode.#assign(this, 1, r);
  }
  get forwardRange(): Range | undefined {
    return read(this.line, RealServerNode.#slot(this, 2));
  }
  set forwardRange(r: Range | undefined) {
    RealServerNode.#assign(this, 2, r);
  }
  get weightRange(): Range | undefined {
    return read(this.line, RealServerNode.#slot(this, 3));
  }
  set weightRange(r: Range | undefined) {
    RealServerNode.#assign(this, 3, r);
  }
  get activeRange(): Range | undefined {
    return read(this.line, RealServerNode.#slot(this, 4));
  }
  set activeRange(r: Range | undefined) {
    RealServerNode.#assign(this, 4, r);
  }
  get inactRange(): Range | undefined {
    return read(this.line, RealServerNode.#slot(this, 5));
  }
  set inactRange(r: Range | undefined) {
    RealServerNode.#assign(this, 5, r);
  }
}

/** A fast-path server of a service line the slow path read (a plain VirtualService): it keeps the text itself. */
export class PlainServiceServerNode extends RealServerNode {
  #text: string;
  constructor(service: VirtualService, line: number, local: boolean, weight: number, lineStart: number, text: string) {
    super(service, line, local, weight, lineStart);
    this.#text = text;
  }

  protected override dumpText(): string {
    return this.#text;
  }
}

export class ServiceNode implements VirtualService {
  name: string;
  protocol: VirtualService['protocol'];
  address?: string;
  port?: number;
  family: IpvsFamily;
  scheduler?: string;
  declare persistent?: Persistence;
  realServers: RealServer[] = [];
  format: IpvsFormat;
  line: number;
  declare portName?: string;
  declare fwmark?: number;
  declare hostname?: boolean;
  declare stats?: IpvsStats;
  /** Made when first asked for: the listing's services have no scheduler flags (two empty arrays fewer each). */
  #flags: string[] | undefined;
  #flagRanges: Range[] | undefined;
  #range: Slot;
  #name: Slot;
  #scheduler: Slot;
  /** The last line of the service (its last real server) and that line's end; or an assigned Range. */
  #fullEndLine: number;
  #fullEnd: number | Range;
  /** The dump's text, which its fast-path real servers read their columns from (one field here, not one each). */
  #text: string;

  constructor(line: number, name: string, protocol: VirtualService['protocol'], family: IpvsFamily, format: IpvsFormat, range: number, nameColumns: number, schedulerColumns: number, text: string) {
    this.name = name;
    this.protocol = protocol;
    this.family = family;
    this.format = format;
    this.line = line;
    this.#range = range;
    this.#name = nameColumns;
    this.#scheduler = schedulerColumns;
    this.#fullEndLine = line;
    this.#fullEnd = endColumn(range);
    this.#text = text;
  }

  /** The text of the dump this service was read from. */
  dumpText(): string {
    return this.#text;
  }

  get flags(): string[] {
    return (this.#flags ??= []);
  }
  set flags(flags: string[]) {
    this.#flags = flags;
  }
  get flagRanges(): Range[] {
    return (this.#flagRanges ??= []);
  }
  set flagRanges(ranges: Range[]) {
    this.#flagRanges = ranges;
  }
  get range(): Range {
    return read(this.line, this.#range)!;
  }
  set range(r: Range) {
    this.#range = r;
  }
  get nameRange(): Range {
    return read(this.line, this.#name)!;
  }
  set nameRange(r: Range) {
    this.#name = r;
  }
  get schedulerRange(): Range | undefined {
    return read(this.line, this.#scheduler);
  }
  set schedulerRange(r: Range | undefined) {
    this.#scheduler = r;
  }
  get fullRange(): Range {
    const end = this.#fullEnd;
    if (typeof end !== 'number') return end;
    return { start: this.range.start, end: { line: this.#fullEndLine, character: end } };
  }
  set fullRange(r: Range) {
    this.#fullEnd = r;
  }

  /** The end line of fullRange, without making it. */
  fullEndLine(): number {
    return typeof this.#fullEnd === 'number' ? this.#fullEndLine : this.#fullEnd.end.line;
  }

  /** Extends fullRange through the end of line `line` (what `spanRanges(fullRange, line)` would give). */
  extendTo(line: number, end: number): void {
    if (typeof this.#fullEnd !== 'number') {
      this.#fullEnd = { start: this.#fullEnd.start, end: { line, character: end } };
      return;
    }
    this.#fullEndLine = line;
    this.#fullEnd = end;
  }
}

/** The symbol definition of a listed virtual service: its ranges are the service's. */
export class ServiceDefinition implements SymbolDefinition {
  #service: ServiceNode;
  #fullRange: Range | undefined;
  constructor(service: ServiceNode) {
    this.#service = service;
  }

  // Kind, scope and name are read from the prototype and the service (three fields fewer on each of ~20,000).
  get kind(): 'virtualService' {
    return 'virtualService';
  }
  get scope(): string {
    return IPVS_SCOPE;
  }
  get name(): string {
    return this.#service.name;
  }

  /** Whether this is the definition of `service`. */
  defines(service: ServiceNode): boolean {
    return this.#service === service;
  }

  get range(): Range {
    return this.#service.nameRange;
  }
  get fullRange(): Range {
    return this.#fullRange ?? this.#service.fullRange;
  }
  set fullRange(r: Range) {
    this.#fullRange = r;
  }
}

/** A value of IpvsDump.realServerByLine: the server, its service and the line's own extent. */
export class RealServerLine {
  readonly service: VirtualService;
  readonly server: RealServer;
  #line: number;
  #extent: number;
  constructor(service: VirtualService, server: RealServer, line: number, extent: number) {
    this.service = service;
    this.server = server;
    this.#line = line;
    this.#extent = extent;
  }

  get range(): Range {
    return unpack(this.#line, this.#extent);
  }
}

export type RealServerEntry = { service: VirtualService; server: RealServer; range: Range };

/**
 * IpvsDump.realServerByLine: a fast-path server line stores just its RealServerNode, and the entry
 * `{ service, server, range }` is made when asked for (one object less per real server).
 */
export class RealServerByLine extends LineMap<RealServerEntry> {
  protected override view(stored: unknown): RealServerEntry {
    if (stored instanceof RealServerNode) return { service: stored.serviceOf(), server: stored, range: stored.range };
    return stored as RealServerEntry;
  }

  /** The line of `server` itself (its own range is the line's). */
  setServer(server: RealServerNode): void {
    this.store(server.line, server);
  }
}
