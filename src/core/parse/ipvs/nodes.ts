// Compact model objects of the ipvsadm fast path (issue #8): a listing of 10,000 Services has ~150,000 real
// server lines, and a Range is three objects. These classes keep each column as one packed number
// (start | end << 15, lines shorter than FAST_MAX_LINE) and make the Range when it is asked for; from the
// outside they are the RealServer / VirtualService / SymbolDefinition of model/ipvs.ts (a range can still be
// assigned, as the merge of two listings does).
import type { IpvsFamily, IpvsForward, IpvsFormat, IpvsStats, Persistence, RealServer, TunnelInfo, VirtualService } from '../../model/ipvs';
import { IPVS_SCOPE } from '../../model/ipvs';
import type { Range } from '../../model/range';
import type { SymbolDefinition } from '../../model/symbols';
import { LineMap } from '../../model/line-map';

/** The fast path only reads lines shorter than this, so that a column fits in 15 bits. */
export const FAST_MAX_LINE = 0x7fff;

export const pack = (start: number, end: number): number => start | (end << 15);

/** The Range of a packed column on `line` (a fresh object each time, like any other Range of the model). */
export const unpack = (line: number, packed: number): Range => ({
  start: { line, character: packed & 0x7fff },
  end: { line, character: packed >>> 15 },
});

/** A range stored packed until it is replaced by an assigned Range (or undefined). */
type Slot = number | Range | undefined;

/** The `notInDump` of every plain listing's server (nothing missing): one frozen array, replaced, never edited. */
const NOTHING_MISSING = Object.freeze([]) as unknown as Array<'forward' | 'weight'>;
const read = (line: number, slot: Slot): Range | undefined => (typeof slot === 'number' ? unpack(line, slot) : slot);

export class RealServerNode implements RealServer {
  address: string;
  family: IpvsFamily;
  port?: number;
  forward: IpvsForward;
  declare localNode?: boolean;
  weight: number;
  activeConn?: number;
  inactConn?: number;
  notInDump: Array<'forward' | 'weight'> = NOTHING_MISSING;
  line: number;
  // Optional columns other listings add when they are merged into this server.
  declare hostname?: boolean;
  declare portName?: string;
  declare persistConn?: number;
  declare upperThreshold?: number;
  declare lowerThreshold?: number;
  declare stats?: IpvsStats;
  declare tunnel?: TunnelInfo;
  #range: Slot;
  #address: Slot;
  #forward: Slot;
  #weight: Slot;
  #active: Slot;
  #inact: Slot;
  #service: VirtualService;

  constructor(
    service: VirtualService,
    line: number,
    address: string,
    family: IpvsFamily,
    port: number,
    forward: IpvsForward,
    local: boolean,
    weight: number,
    active: number,
    inact: number,
    /** [start, end) of the line's six words (`->`, address, forward, weight, active, inactive) at 2k, 2k + 1. */
    columns: Int32Array,
  ) {
    this.address = address;
    this.family = family;
    this.port = port;
    this.forward = forward;
    if (local) this.localNode = true;
    this.weight = weight;
    this.activeConn = active;
    this.inactConn = inact;
    this.line = line;
    this.#service = service;
    this.#range = pack(columns[0], columns[11]);
    this.#address = pack(columns[2], columns[3]);
    this.#forward = pack(columns[4], columns[5]);
    this.#weight = pack(columns[6], columns[7]);
    this.#active = pack(columns[8], columns[9]);
    this.#inact = pack(columns[10], columns[11]);
  }

  /** The virtual service whose line list this server is on (for RealServerByLine). */
  serviceOf(): VirtualService {
    return this.#service;
  }

  get range(): Range {
    return read(this.line, this.#range)!;
  }
  set range(r: Range) {
    this.#range = r;
  }
  get addressRange(): Range {
    return read(this.line, this.#address)!;
  }
  set addressRange(r: Range) {
    this.#address = r;
  }
  get forwardRange(): Range | undefined {
    return read(this.line, this.#forward);
  }
  set forwardRange(r: Range | undefined) {
    this.#forward = r;
  }
  get weightRange(): Range | undefined {
    return read(this.line, this.#weight);
  }
  set weightRange(r: Range | undefined) {
    this.#weight = r;
  }
  get activeRange(): Range | undefined {
    return read(this.line, this.#active);
  }
  set activeRange(r: Range | undefined) {
    this.#active = r;
  }
  get inactRange(): Range | undefined {
    return read(this.line, this.#inact);
  }
  set inactRange(r: Range | undefined) {
    this.#inact = r;
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
  flags: string[] = [];
  flagRanges: Range[] = [];
  realServers: RealServer[] = [];
  format: IpvsFormat;
  line: number;
  declare portName?: string;
  declare fwmark?: number;
  declare hostname?: boolean;
  declare stats?: IpvsStats;
  #range: Slot;
  #name: Slot;
  #scheduler: Slot;
  /** The last line of the service (its last real server) and that line's end; or an assigned Range. */
  #fullEndLine: number;
  #fullEnd: number | Range;

  constructor(line: number, name: string, protocol: VirtualService['protocol'], family: IpvsFamily, format: IpvsFormat, range: number, nameColumns: number, schedulerColumns: number) {
    this.name = name;
    this.protocol = protocol;
    this.family = family;
    this.format = format;
    this.line = line;
    this.#range = range;
    this.#name = nameColumns;
    this.#scheduler = schedulerColumns;
    this.#fullEndLine = line;
    this.#fullEnd = range >>> 15;
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
  readonly kind = 'virtualService' as const;
  readonly scope = IPVS_SCOPE;
  readonly name: string;
  #service: ServiceNode;
  #fullRange: Range | undefined;
  constructor(name: string, service: ServiceNode) {
    this.name = name;
    this.#service = service;
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
