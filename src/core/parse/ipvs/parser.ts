// ipvsadm output and restore input → the IPVS model (DESIGN §3).
// Reads `ipvsadm -L[n]` (plain, --stats, --rate, --thresholds, --persistent-conn, --tun-info), `ipvsadm -L[n]c`
// connection tables and `ipvsadm -S[n]` / `ipvsadm -R` input, also several of them pasted into one file.
// Each line is lexed and parsed on its own; problems are returned as diagnostics, nothing here throws.
import type { IToken } from 'chevrotain';
import { MAX_DIAGNOSTICS, type Severity } from '../../model/diagnostics';
import { acceleratorsOn, DiagnosticsCollector, guardedParse, LINE_LIMITS, lineProblem, releaseInputs, readLines, type Accelerator, type ParseOptions, type PendingReference } from '../pipeline';
import {
  DEFAULT_PERSISTENT_TIMEOUT,
  DEFAULT_SCHEDULER,
  IPVS_SCHEDULERS,
  IPVS_SCOPE,
  type IpvsCommand,
  type IpvsConnection,
  type IpvsDump,
  type IpvsEndpoint,
  type IpvsFamily,
  type IpvsFormat,
  type IpvsForward,
  type IpvsHeaderLine,
  type IpvsOption,
  type IpvsStats,
  type RealServer,
  type VirtualService,
} from '../../model/ipvs';
import { lineRange, spanRanges, tokenRange, type Range } from '../../model/range';
import { Symbols, type SymbolDefinition } from '../../model/symbols';
import { t } from '../../l10n';
import { endpointNumber, ipv4Value, isIpv4, isIpv6 } from '../../model/address';
import { parseCount, parsePort } from './address';
import { LineCursor } from '../lines';
import { IpvsLineParser, lineOf, type CommandItem, type LineCst } from './grammar';
import { lineLexer } from './lexer';
import { FAST_MAX_LINE, forwardAt, pack, PlainServiceServerNode, RealServerByLine, RealServerLine, RealServerNode, ServiceDefinition, ServiceNode } from './nodes';
import { listingKey, restoreKey, ServerIndex } from './serverIndex';
import { digitsValue } from '../digits';
import { promptCommand } from '../prompt';
import { SortedLineMap } from '../../model/line-map';
import { emptyNameTable, nameTable } from '../../model/name-table';

/** Lines longer than this are not lexed (no ipvsadm line comes near it). */
export const MAX_LINE_LENGTH = LINE_LIMITS.ipvsadm.maxLength;
// Past the shared cap a file is clearly not this dialect; the rest are summarised in one.
export { MAX_DIAGNOSTICS };

const SCHEDULERS = new Set<string>(IPVS_SCHEDULERS);
const SCHEDULER_NAMES = new Map<string, string>(IPVS_SCHEDULERS.map((s) => [s, s]));
const SCHED_FLAGS = new Set(['sh-fallback', 'sh-port', 'mh-fallback', 'mh-port', 'flag-1', 'flag-2', 'flag-3']);
const FORWARD_NAMES: Record<string, { forward: IpvsForward; local?: boolean }> = nameTable({
  Masq: { forward: 'masq' },
  Route: { forward: 'route' },
  Tunnel: { forward: 'tunnel' },
  Local: { forward: 'route', local: true },
});
/** Protocol names in /proc/net/ip_vs_conn (`IP` marks persistence templates of fwmark services). */
const CONNECTION_PROTOCOLS = new Set(['TCP', 'UDP', 'SCTP', 'IP', 'ICMP', 'ICMPv6', 'AH', 'ESP']);

const COMMANDS: Record<string, IpvsCommand['command']> = nameTable({
  '-A': 'add-service',
  '--add-service': 'add-service',
  '-E': 'edit-service',
  '--edit-service': 'edit-service',
  '-D': 'delete-service',
  '--delete-service': 'delete-service',
  '-a': 'add-server',
  '--add-server': 'add-server',
  '-e': 'edit-server',
  '--edit-server': 'edit-server',
  '-d': 'delete-server',
  '--delete-server': 'delete-server',
  '-C': 'clear',
  '--clear': 'clear',
  '-Z': 'zero',
  '--zero': 'zero',
  '--set': 'set',
});
/** Commands that ipvsadm accepts on its command line but not in `ipvsadm -R` input. */
const NOT_RESTORABLE = new Set(['-L', '-l', '--list', '-S', '--save', '-R', '--restore', '-h', '--help', '-v', '--version', '--start-daemon', '--stop-daemon']);

type Arity = number | 'optional';
interface OptionSpec {
  canonical: string;
  arity: Arity;
  /** Which commands accept it. */
  for: 'service-spec' | 'service' | 'server' | 'server-spec' | 'any';
}
const OPTIONS = emptyNameTable<OptionSpec>();
function option(names: string[], canonical: string, arity: Arity, scope: OptionSpec['for']): void {
  for (const n of names) OPTIONS[n] = { canonical, arity, for: scope };
}
option(['-t', '--tcp-service'], '-t', 1, 'service-spec');
option(['-u', '--udp-service'], '-u', 1, 'service-spec');
option(['--sctp-service'], '--sctp-service', 1, 'service-spec');
option(['-f', '--fwmark-service'], '-f', 1, 'service-spec');
option(['-6', '--ipv6'], '-6', 0, 'service-spec');
option(['-s', '--scheduler'], '-s', 1, 'service');
option(['-p', '--persistent'], '-p', 'optional', 'service');
option(['-M', '--netmask'], '-M', 1, 'service');
option(['--pe'], '--pe', 1, 'service');
option(['-b', '--sched-flags'], '-b', 1, 'service');
option(['-o', '--ops'], '-o', 0, 'service');
option(['-r', '--real-server'], '-r', 1, 'server-spec');
option(['-g', '--gatewaying'], '-g', 0, 'server');
option(['-i', '--ipip'], '-i', 0, 'server');
option(['-m', '--masquerading'], '-m', 0, 'server');
option(['-w', '--weight'], '-w', 1, 'server');
option(['-x', '--u-threshold'], '-x', 1, 'server');
option(['-y', '--l-threshold'], '-y', 1, 'server');
option(['--tun-type'], '--tun-type', 1, 'server');
option(['--tun-port'], '--tun-port', 1, 'server');
option(['--tun-nocsum'], '--tun-nocsum', 0, 'server');
option(['--tun-csum'], '--tun-csum', 0, 'server');
option(['--tun-remcsum'], '--tun-remcsum', 0, 'server');
option(['-n', '--numeric'], '-n', 0, 'any');

const SERVICE_SPEC_PROTOCOL: Record<string, 'TCP' | 'UDP' | 'SCTP' | 'FWM'> = nameTable({ '-t': 'TCP', '-u': 'UDP', '--sctp-service': 'SCTP', '-f': 'FWM' });

const DAEMON_RE = /^(master|backup) sync daemon\b/;

type PendingRef = PendingReference;

function lineExtent(i: number, text: string): Range {
  const start = text.length - text.trimStart().length;
  return lineRange(i, start, Math.max(start, text.trimEnd().length));
}

// Built on first parse, not at load: the grammar self-analysis costs milliseconds the extension's activation
// does not have (docs/performance.md#accelerators). One instance, reused with a new input per line (Chevrotain's performance guide).
let parserInstance: IpvsLineParser | undefined;
const lineParser = (): IpvsLineParser => (parserInstance ??= new IpvsLineParser());

interface EndpointResult {
  endpoint: IpvsEndpoint;
  /** Whether the text had a `:port` part at all (restore input may leave it out). */
  hasPort: boolean;
  problems: Array<{ severity: Severity; code: string; message: string }>;
}

/** Parses `10.0.0.1:443`, `[fd00::1]:80`, `kubernetes.default.svc:https`, `10.0.0.1` (restore input without a port). */
export function parseEndpoint(text: string, range: Range): EndpointResult {
  const problems: EndpointResult['problems'] = [];
  let host = text;
  let portText: string | undefined;
  let family: IpvsFamily = 'ipv4';
  let bracketed = false;
  if (text.startsWith('[')) {
    const m = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
    if (m) {
      host = m[1];
      portText = m[2];
      bracketed = true;
      family = 'ipv6';
    } else {
      problems.push({ severity: 'error', code: 'bad-address', message: t('{0} is not an address: the closing bracket is missing.', text) });
    }
  } else {
    const colons = text.split(':').length - 1;
    if (colons >= 2) {
      family = 'ipv6';
    } else if (colons === 1) {
      const at = text.indexOf(':');
      host = text.slice(0, at);
      portText = text.slice(at + 1);
    }
  }
  const endpoint: IpvsEndpoint = { address: host, family, text, range };
  if (family === 'ipv6' && isIpv6(host)) {
    // fine
  } else if (/^[\d.]+$/.test(host)) {
    if (!isIpv4(host)) problems.push({ severity: 'error', code: 'bad-address', message: t('{0} is not an IPv4 address.', host) });
  } else if (!bracketed && family === 'ipv6') {
    problems.push({ severity: 'error', code: 'bad-address', message: t('{0} is not an IPv6 address.', host) });
  } else if (/^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_.])?$/.test(host)) {
    endpoint.hostname = true;
  } else if (problems.length === 0) {
    problems.push({ severity: 'error', code: 'bad-address', message: t('{0} is not an address or a host name.', host === '' ? text : host) });
  }
  if (portText !== undefined) {
    const p = parsePort(portText);
    if (!p.valid) {
      problems.push({ severity: 'error', code: 'bad-port', message: t('{0} is not a port.', portText === '' ? text : portText) });
    } else {
      endpoint.port = p.port;
      if (p.name !== undefined) endpoint.portName = p.name;
    }
  }
  return { endpoint, problems, hasPort: portText !== undefined };
}

/** `TCP ` and the other prefixes of service names, made once (a listing has a name per virtual service). */
const NAME_PREFIXES = new Map(['TCP', 'UDP', 'SCTP', 'FWM'].map((p) => [p, `${p} `]));

/** What the fast path reads a line as, by its first character (FAST_START). */
const SERVER_LINE = 1;
const SERVICE_LINE = 2;
const TITLE_LINE = 3;
const FAST_START = new Uint8Array(128);
FAST_START[32] = SERVER_LINE; // `  -> …` (or the real server column titles)
for (const c of 'TUS') FAST_START[c.charCodeAt(0)] = SERVICE_LINE;
for (const c of 'IP') FAST_START[c.charCodeAt(0)] = TITLE_LINE;

/** The protocols of fast-path service lines: the model's name and the service name's prefix. */
const FAST_PROTOCOLS = new Map((['TCP', 'UDP', 'SCTP'] as const).map((p) => [p as string, { protocol: p.toLowerCase() as VirtualService['protocol'], prefix: NAME_PREFIXES.get(p)! }]));

function serviceName(protocol: string, endpointText: string): string {
  return (NAME_PREFIXES.get(protocol) ?? `${protocol} `) + endpointText;
}

/** The virtual service a save / restore command names. */
interface CommandService {
  name: string;
  family: IpvsFamily;
  endpoint: IpvsEndpoint | undefined;
  hasPort: boolean;
  fwmark: number | undefined;
  protocolWord: 'TCP' | 'UDP' | 'SCTP' | 'FWM';
  specRange: Range;
}

class IpvsBuilder {
  private readonly diagnostics = new DiagnosticsCollector({ problems: (n) => t('{0} more problems were not reported; is this really ipvsadm output?', n) });
  readonly symbols: Symbols;
  services: VirtualService[] = [];
  private readonly serviceByName = new Map<string, VirtualService>();
  /** The definitions of the services the slow path made (a ServiceDefinition reads its ranges from its ServiceNode). */
  private readonly definitionOf = new Map<VirtualService, SymbolDefinition>();
  readonly connections: IpvsConnection[] = [];
  readonly commands: IpvsCommand[] = [];
  readonly headers: IpvsHeaderLine[] = [];
  readonly formats: IpvsFormat[] = [];
  /** Service lines are a tenth of a listing's lines: sorted lines and values, not a hash table (docs/performance.md#memory). */
  readonly serviceByLine = new SortedLineMap<VirtualService>();
  readonly realServerByLine = new RealServerByLine();
  readonly connectionByLine = new Map<number, IpvsConnection>();
  readonly commandByLine = new Map<number, IpvsCommand>();
  private readonly pendingRefs: PendingRef[] = [];
  private producer?: string;
  private version?: string;
  private tableSize?: number;
  private timeouts?: { tcp: number; tcpFin: number; udp: number };
  /** The listing format in force (from the column titles, or predicted by a pasted `ipvsadm …` prompt). */
  private format: IpvsFormat | undefined;
  /** Connection tables printed with --persistent-conn carry two more columns. */
  private connectionColumns = 6;
  private current: VirtualService | undefined;
  /**
   * Which output a line belongs to: listings pasted one after another are separate blocks. The line the current
   * block starts on: a service is of this block when its own line is not before it (no map from service to block:
   * on a node of 10,000 Services it would be megabytes of garbage once the parse is done, docs/performance.md#memory).
   */
  private blockStart = 0;
  private lastKind: string | undefined;

  /** The line being read by the slow path (serverCommand extends its service through it). */
  private lineText = '';
  /** How many lines the text has (as LineCursor counts them). */
  private lineCount = 0;
  private readonly lines: LineCursor;

  constructor(
    private readonly text: string,
    private readonly fast = true,
  ) {
    this.lines = new LineCursor(text);
    const lineCount = this.lines.lineCountHint();
    this.symbols = new Symbols(lineCount);
    // Most lines of a listing are real servers.
    this.realServerByLine.reserve(lineCount);
  }

  diag(range: Range, severity: Severity, code: string, message: string, unnecessary?: boolean): void {
    this.diagnostics.add(range, severity, code, message, unnecessary);
  }

  build(): IpvsDump {
    const all = this.text;
    // Read in place: the fast path reads a line's columns in the text itself, and only a line it leaves is made a
    // string (see LineSpans).
    const sink = { line: 0 };
    const fastLine: Accelerator<typeof sink> = (_, start, end, at) => this.fastLine(at.line, start, end);
    const reference = (i: number, start: number, end: number) => {
      const text = all.slice(start, end);
      this.lineText = text;
      this.line(i, text);
    };
    this.lineCount = readLines(all, { sink, accelerators: [fastLine], reference }, this.fast);
    this.resolveReferences();
    // A listed service's definition reads its ranges from the service itself; the others get them now.
    for (const [svc, def] of this.definitionOf) def.fullRange = svc.fullRange;
    const diagnostics = this.diagnostics.close();
    // Each list grew by push, with room to spare: an exact copy is about half the size (docs/performance.md#memory).
    this.closeServers();
    if (this.goneServices.size > 0) this.services = this.services.filter((s) => !this.goneServices.has(s));
    if (this.listsEdited) for (const s of this.services) if (s.realServers.length > 0) s.realServers = this.liveServers(s.realServers);
    const families = new Set(this.services.map((s) => s.family));
    return {
      dialect: 'ipvsadm',
      producer: this.producer,
      version: this.version,
      tableSize: this.tableSize,
      formats: this.formats,
      family: families.size > 1 ? 'mixed' : families.has('ipv6') ? 'ipv6' : 'ipv4',
      services: this.services,
      connections: this.connections,
      commands: this.commands,
      headers: this.headers,
      timeouts: this.timeouts,
      diagnostics,
      symbols: this.symbols,
      serviceByLine: this.serviceByLine,
      realServerByLine: this.realServerByLine,
      connectionByLine: this.connectionByLine,
      commandByLine: this.commandByLine,
      lineCount: this.lineCount,
    };
  }

  private noteFormat(format: IpvsFormat): void {
    if (!this.formats.includes(format)) this.formats.push(format);
  }

  private newBlock(line: number): void {
    this.blockStart = line;
    this.current = undefined;
  }

  /**
   * The fast path (docs/performance.md#memory): a service line (`TCP  10.96.0.10:53 rr [persistent N]`) or a real server line
   * (`  -> 10.244.1.5:8080  Masq  1  0  0`) of a plain listing, with valid addresses, a known scheduler and
   * numeric columns, read without Chevrotain into the compact nodes of ./nodes. Builds exactly what line()
   * builds; false (nothing done) for any other line, which line() then reads.
   */
  private fastLine(i: number, start: number, end: number): boolean {
    if (end - start >= FAST_MAX_LINE || end === start) return false;
    // By a table of first characters: a listing's UDP and SCTP services come after thousands of TCP ones, and a
    // comparison first made then would throw away the optimised code (no type feedback for it yet).
    const c0 = this.text.charCodeAt(start);
    const kind = c0 < 128 ? FAST_START[c0] : 0;
    if (kind === SERVER_LINE) return this.fastRealServer(i, start, end) || this.fastTitles(i, this.text.slice(start, end));
    if (kind === SERVICE_LINE) return this.fastService(i, start, end);
    if (kind === TITLE_LINE) return this.fastTitles(i, this.text.slice(start, end));
    return false;
  }

  /**
   * The three title lines of a plain `ipvsadm -Ln` exactly as ipvsadm prints them, as dispatch() reads them
   * (a kube-proxy listing then needs no Chevrotain parser at all).
   */
  private fastTitles(i: number, text: string): boolean {
    const trimmed = text.trimEnd();
    // Trailing spaces only (other whitespace the lexer and trim() may see differently).
    for (let k = trimmed.length; k < text.length; k++) if (text.charCodeAt(k) !== 32) return false;
    const version = FAST_VERSION_RE.exec(trimmed);
    if (version) {
      if (this.lastKind !== 'prompt') this.newBlock(i);
      this.version ??= version[1];
      this.producer ??= `IP Virtual Server version ${version[1]}`;
      if (this.tableSize === undefined) this.tableSize = Number(version[2]);
      this.headers.push({ kind: 'version', text: trimmed, range: lineRange(i, 0, trimmed.length) });
      if (this.format === undefined || this.format === 'save' || this.format === 'connections') this.format = 'list';
      this.lastKind = 'version';
      return true;
    }
    if (trimmed === FAST_COLUMNS) {
      if (this.lastKind !== 'version') this.newBlock(i);
      this.format = 'list';
      this.current = undefined;
      this.noteFormat('list');
      this.headers.push({ kind: 'columns', text: trimmed, range: lineRange(i, 0, trimmed.length), format: 'list' });
      this.lastKind = 'columns';
      return true;
    }
    if (FAST_SERVER_COLUMNS_RE.test(trimmed)) {
      const start = trimmed.indexOf('-');
      this.headers.push({ kind: 'real-server-columns', text: trimmed.slice(start), range: lineRange(i, start, trimmed.length), format: this.format });
      this.lastKind = 'realServer';
      return true;
    }
    return false;
  }

  /** The line at [start, end) of the text; `cols` are relative to the line, the reads add `start`. */
  private fastService(i: number, start: number, end: number): boolean {
    const f = this.format;
    if (f !== undefined && f !== 'list' && f !== 'save' && f !== 'connections') return false;
    const text = this.text;
    const n = scanWords(text, start, end);
    if (n !== 3 && n !== 5) return false;
    // A table, not a chain of comparisons: a listing's UDP and SCTP services come after thousands of TCP ones,
    // and a comparison first made then would throw away the optimised code (no type feedback for it yet).
    const proto = FAST_PROTOCOLS.get(text.slice(start, start + cols[1]));
    if (proto === undefined) return false;
    const ep = fastEndpoint(text, start + cols[2], start + cols[3], this.addresses);
    if (!ep) return false;
    // The known name's own string, not a slice of the line.
    const scheduler = SCHEDULER_NAMES.get(text.slice(start + cols[4], start + cols[5]));
    if (scheduler === undefined) return false;
    let timeout = -1;
    if (n === 5) {
      if (cols[7] - cols[6] !== 10 || !text.startsWith('persistent', start + cols[6]) || !isDigits(text, start + cols[8], start + cols[9], 15)) return false;
      timeout = digitsValue(text, start + cols[8], start + cols[9]);
    }
    const last = cols[2 * n - 1];
    this.format = 'list';
    // Joined, not concatenated: one flat string, where `+` keeps a pair of strings and a slice of the text that
    // the name map's hashing then copies into a flat one anyway (three strings per service, kept).
    const name = [proto.prefix, text.slice(start + cols[2], start + cols[3])].join('');
    const svc = new ServiceNode(i, name, proto.protocol, ep.family, 'list', pack(0, last), pack(0, cols[3]), pack(cols[4], cols[5]), text);
    svc.address = ep.address;
    svc.port = ep.port;
    svc.scheduler = scheduler;
    if (timeout >= 0) svc.persistent = { timeout, range: lineRange(i, cols[6], cols[9]) };
    this.registerService(i, svc);
    this.lastKind = 'service';
    return true;
  }

  /** The line at [start, end) of the text; `cols` are relative to the line, the reads add `start`. */
  private fastRealServer(i: number, start: number, end: number): boolean {
    const svc = this.current;
    const f = this.format;
    if (!svc || (f !== undefined && f !== 'list' && f !== 'save' && f !== 'connections' && f !== 'tun-info')) return false;
    const text = this.text;
    if (scanWords(text, start, end) !== 6) return false;
    if (cols[1] - cols[0] !== 2 || text.charCodeAt(start + cols[0]) !== 45 /* - */ || text.charCodeAt(start + cols[0] + 1) !== 62 /* > */) return false;
    // The server reads its address from the line when asked: the endpoint is only checked here.
    const family = endpointFamily(text, start + cols[2], start + cols[3]);
    if (family === undefined) return false;
    const fwd = forwardAt(text, start + cols[4], start + cols[5]);
    if (fwd === undefined) return false;
    if (!isDigits(text, start + cols[6], start + cols[7], 15) || !isDigits(text, start + cols[8], start + cols[9], 15) || !isDigits(text, start + cols[10], start + cols[11], 15)) return false;
    const extent = pack(cols[0], cols[11]);
    const weight = digitsValue(text, start + cols[6], start + cols[7]);
    if (weight > 65535) return false; // weight() reports it
    const server = svc instanceof ServiceNode ? new RealServerNode(svc, i, fwd.local, weight, start) : new PlainServiceServerNode(svc, i, fwd.local, weight, start, text);
    // What weight(), the family check and realServerLine() do for such a line, in the same order.
    if (server.weight === 0) {
      this.diag(server.weightRange!, 'hint', 'weight-zero', t('Weight 0: this real server gets no new connections; existing ones go on. kube-proxy sets it while an endpoint terminates.'));
    }
    // The parsed family and forward, not the server's (it reads them from the line again).
    if (family !== svc.family && fwd.forward !== 'tunnel' && !svc.hostname && svc.protocol !== 'fwmark') {
      this.diag(
        server.addressRange,
        'warning',
        'family-mismatch',
        t('An {0} real server behind an {1} virtual service: only tunnelling can do that.', family === 'ipv6' ? 'IPv6' : 'IPv4', svc.family === 'ipv6' ? 'IPv6' : 'IPv4'),
      );
    }
    if (this.currentServers.add(text, start + cols[2], start + cols[3])) {
      this.diag(server.addressRange, 'warning', 'duplicate-real-server', t('Real server {0} is listed twice under {1}.', text.slice(start + cols[2], start + cols[3]), svc.name));
    }
    let target: RealServer = server;
    if (this.currentIsMerge) {
      const address = server.address;
      const port = server.port;
      const same = this.listedServer(svc, listingKey(address, port));
      if (same) {
        mergeServer(same, server);
        target = same;
      }
    }
    if (target === server) {
      this.pushServer(svc, server);
      this.realServerByLine.setServer(server);
    } else {
      this.realServerByLine.set(i, new RealServerLine(svc, target, i, extent));
    }
    this.extendAt(svc, i, start, end);
    this.lastKind = 'realServer';
    return true;
  }

  private line(i: number, text: string): void {
    if (text.trim() === '') return;
    const problem = lineProblem(i, text, LINE_LIMITS.ipvsadm);
    if (problem !== undefined) {
      this.diag(problem.range, problem.severity, problem.code, problem.message);
      return;
    }
    const extent = lineExtent(i, text);
    const command = promptCommand(text);
    if (command !== undefined) {
      this.prompt(text, command, extent);
      return;
    }
    if (/^\s*#/.test(text)) {
      this.headers.push({ kind: 'comment', text, range: extent });
      this.diag(extent, 'information', 'comment', t('ipvsadm prints no comments: this line is not part of the output and is ignored.'));
      return;
    }
    if (DAEMON_RE.test(text.trim())) {
      this.headers.push({ kind: 'daemon', text: text.trim(), range: extent });
      return;
    }
    const lexed = lineLexer.tokenize(text);
    if (lexed.errors.length > 0 || lexed.tokens.length === 0) {
      this.notIpvsadm(extent);
      return;
    }
    const parser = lineParser();
    parser.input = lexed.tokens;
    const cst = parser.line();
    const parsed = parser.errors.length === 0 ? lineOf(cst) : undefined;
    if (!parsed) {
      this.notIpvsadm(extent);
      return;
    }
    this.dispatch(i, text, parsed, extent);
    this.lastKind = parsed.kind;
  }

  private notIpvsadm(extent: Range): void {
    this.diag(extent, 'warning', 'not-ipvsadm', t('This line is not ipvsadm output (text or a shell prompt pasted around it?); ignored.'));
    this.lastKind = 'prose';
  }

  private prompt(text: string, command: string, extent: Range): void {
    this.headers.push({ kind: 'prompt', text, range: extent });
    this.diag(extent, 'information', 'shell-prompt', t('A shell prompt and command, not ipvsadm output: ignored.'));
    const words = command.trim().split(/\s+/);
    if (words[0] === 'sudo') words.shift();
    if (words[0] !== 'ipvsadm') return;
    this.newBlock(extent.start.line);
    this.lastKind = 'prompt';
    const long = new Set(words.filter((w) => w.startsWith('--')));
    const letters = new Set(words.filter((w) => /^-[A-Za-z]+$/.test(w)).flatMap((w) => [...w.slice(1)]));
    if (letters.has('S') || long.has('--save')) this.format = 'save';
    else if (letters.has('c') || long.has('--connection')) this.format = 'connections';
    else if (long.has('--stats')) this.format = 'stats';
    else if (long.has('--rate')) this.format = 'rate';
    else if (long.has('--thresholds')) this.format = 'thresholds';
    else if (long.has('--persistent-conn')) this.format = 'persistent-conn';
    else if (long.has('--tun-info')) this.format = 'tun-info';
    else if (letters.has('L') || letters.has('l') || long.has('--list')) this.format = 'list';
    if (this.format === 'connections') this.connectionColumns = long.has('--persistent-conn') ? 8 : 6;
  }

  private dispatch(i: number, text: string, line: LineCst, extent: Range): void {
    const tokens = line.tokens;
    switch (line.kind) {
      case 'comment':
        this.headers.push({ kind: 'comment', text, range: extent });
        this.diag(extent, 'information', 'comment', t('ipvsadm prints no comments: this line is not part of the output and is ignored.'));
        return;
      case 'version': {
        if (this.lastKind !== 'prompt') this.newBlock(i);
        const version = tokens[1]?.image;
        const size = /^\(size=(\d+)\)$/.exec(tokens[2]?.image ?? '');
        this.version ??= version;
        this.producer ??= version ? `IP Virtual Server version ${version}` : 'IP Virtual Server';
        if (size && this.tableSize === undefined) this.tableSize = Number(size[1]);
        this.headers.push({ kind: 'version', text: text.trim(), range: extent });
        if (!version || !/^\d+\.\d+\.\d+$/.test(version)) {
          this.diag(extent, 'warning', 'bad-header', t('Expected "IP Virtual Server version X.Y.Z (size=N)".'));
        }
        if (this.format === undefined || this.format === 'save' || this.format === 'connections') this.format = 'list';
        return;
      }
      case 'columns': {
        if (this.lastKind !== 'version') this.newBlock(i);
        const words = new Set(tokens.map((tk) => tk.image));
        const format: IpvsFormat = words.has('Conns') ? 'stats' : words.has('CPS') ? 'rate' : words.has('Uthreshold') ? 'thresholds' : words.has('PersistConn') ? 'persistent-conn' : 'list';
        this.format = format;
        this.current = undefined;
        this.noteFormat(format);
        this.headers.push({ kind: 'columns', text: text.trim(), range: extent, format });
        return;
      }
      case 'connectionsHeader':
        this.newBlock(i);
        this.format = 'connections';
        this.connectionColumns = 6;
        this.noteFormat('connections');
        this.headers.push({ kind: 'connections', text: text.trim(), range: extent, format: 'connections' });
        return;
      case 'connectionColumns': {
        if (this.lastKind !== 'connectionsHeader') this.newBlock(i);
        this.format = 'connections';
        this.noteFormat('connections');
        this.connectionColumns = tokens.some((tk) => tk.image === 'pe' || tk.image === 'pe_data') ? 8 : 6;
        this.headers.push({ kind: 'connection-columns', text: text.trim(), range: extent, format: 'connections' });
        return;
      }
      case 'timeout': {
        const values = tokens.slice(1).map((tk) => Number(tk.image));
        if (values.length === 3 && values.every((v) => Number.isInteger(v) && v >= 0)) {
          this.timeouts = { tcp: values[0], tcpFin: values[1], udp: values[2] };
        } else {
          this.diag(extent, 'warning', 'bad-timeout', t('Expected three timeouts in seconds: tcp, tcpfin and udp.'));
        }
        this.headers.push({ kind: 'timeout', text: text.trim(), range: extent });
        return;
      }
      case 'realServer':
        if (tokens[1]?.image === 'RemoteAddress:Port') {
          if (tokens.some((tk) => tk.image === 'TunnelInfo')) {
            this.format = 'tun-info';
            this.noteFormat('tun-info');
          }
          this.headers.push({ kind: 'real-server-columns', text: text.trim(), range: extent, format: this.format });
          return;
        }
        this.realServerLine(i, text, tokens, extent);
        return;
      case 'service':
      case 'fwmarkService':
        this.serviceLine(i, line.kind === 'fwmarkService', tokens, extent);
        return;
      case 'connection':
        this.connectionLine(i, tokens, extent);
        return;
      case 'command':
        this.commandLine(i, line.items ?? [], extent);
        return;
    }
  }

  private endpoint(i: number, token: IToken): IpvsEndpoint {
    return this.endpointResult(i, token).endpoint;
  }

  private endpointResult(i: number, token: IToken): EndpointResult {
    const r = tokenRange(i, token);
    const result = parseEndpoint(token.image, r);
    const { endpoint, problems } = result;
    for (const p of problems) this.diag(r, p.severity, p.code, p.message);
    if (endpoint.portName !== undefined && endpoint.port === undefined) {
      this.diag(r, 'hint', 'unknown-port-name', t('Port name {0} is not a well-known service name: its number is unknown here. ipvsadm -Ln prints numbers.', endpoint.portName));
    }
    return result;
  }

  /** `TCP  10.96.0.10:53 rr persistent 10800 mask 255.255.255.0 pe sip ops` or `FWM  100 IPv6 rr`, and the --stats/--rate variants. */
  private serviceLine(i: number, fwmark: boolean, tokens: IToken[], extent: Range): void {
    if (this.format === 'save' || this.format === 'connections' || this.format === undefined) {
      this.format = 'list';
    }
    const protoToken = tokens[0];
    const rest = tokens.slice(1);
    if (rest.length === 0) {
      this.diag(extent, 'error', 'missing-address', fwmark ? t('The firewall mark is missing.') : t('The virtual address is missing.'));
      this.current = undefined;
      return;
    }
    let svc: VirtualService;
    let k = 1;
    if (fwmark) {
      const markToken = rest[0];
      const mark = Number(markToken.image);
      if (!/^\d+$/.test(markToken.image) || mark <= 0 || mark > 0xffffffff) {
        this.diag(tokenRange(i, markToken), 'error', 'bad-fwmark', t('{0} is not a firewall mark (an integer greater than zero).', markToken.image));
      }
      let last = markToken;
      let family: IpvsFamily = 'ipv4';
      if (rest[1]?.image === 'IPv6') {
        family = 'ipv6';
        last = rest[1];
        k = 2;
      }
      const name = family === 'ipv6' ? `FWM ${markToken.image} IPv6` : `FWM ${markToken.image}`;
      svc = this.newService(i, name, 'fwmark', family, spanRanges(tokenRange(i, protoToken), tokenRange(i, last)), extent);
      svc.fwmark = mark;
    } else {
      const ep = this.endpoint(i, rest[0]);
      const protocol = protoToken.image.toLowerCase() as 'tcp' | 'udp' | 'sctp';
      svc = this.newService(i, serviceName(protoToken.image, rest[0].image), protocol, ep.family, spanRanges(tokenRange(i, protoToken), tokenRange(i, rest[0])), extent);
      svc.address = ep.address;
      svc.port = ep.port;
      if (ep.portName !== undefined) svc.portName = ep.portName;
      if (ep.hostname) svc.hostname = true;
      if (ep.hostname && ep.port === undefined && ep.portName === undefined && !rest[0].image.includes(':')) {
        this.diag(tokenRange(i, rest[0]), 'warning', 'truncated-name', t('ipvsadm -L cuts service names at 33 characters, so the port is missing here. List with -n for numbers.'));
      } else if (ep.hostname && ep.port === undefined && rest[0].image.length === 28) {
        this.diag(tokenRange(i, rest[0]), 'hint', 'maybe-truncated', t('ipvsadm -L cuts service names at 33 characters; this one may be cut. List with -n for numbers.'));
      }
    }
    const columns = rest.slice(k);
    const format = this.serviceFormat(columns);
    svc.format = format;
    if (format === 'stats' || format === 'rate') {
      svc.stats = this.stats(i, format, columns, extent);
    } else {
      this.serviceColumns(i, svc, columns, extent);
    }
    this.registerService(i, svc);
  }

  private serviceFormat(columns: IToken[]): IpvsFormat {
    const f = this.format;
    if (f === 'stats' || f === 'rate' || f === 'list' || f === 'thresholds' || f === 'persistent-conn' || f === 'tun-info') {
      // A pasted listing without its titles: the shape decides.
      if (!this.headers.some((h) => h.kind === 'columns') && columns.length === 5 && columns.every((c) => parseCount(c.image))) return 'stats';
      return f;
    }
    return columns.length === 5 && columns.every((c) => parseCount(c.image)) ? 'stats' : 'list';
  }

  private stats(i: number, kind: 'stats' | 'rate', columns: IToken[], extent: Range): IpvsStats | undefined {
    const counts = columns.slice(0, 5).map((c) => parseCount(c.image));
    if (columns.length !== 5 || counts.some((c) => !c)) {
      this.diag(extent, 'warning', 'bad-columns', kind === 'stats' ? t('Expected five counters: Conns, InPkts, OutPkts, InBytes, OutBytes.') : t('Expected five rates: CPS, InPPS, OutPPS, InBPS, OutBPS.'));
      return undefined;
    }
    const v = counts.map((c) => c!.value);
    return {
      kind,
      conns: v[0],
      inPackets: v[1],
      outPackets: v[2],
      inBytes: v[3],
      outBytes: v[4],
      approximate: counts.some((c) => c!.approximate),
      range: spanRanges(tokenRange(i, columns[0]), tokenRange(i, columns[4])),
    };
  }

  /** `rr persistent 10800 mask 0.0.0.0 pe sip ops (sh-fallback,sh-port)` */
  private serviceColumns(i: number, svc: VirtualService, columns: IToken[], extent: Range): void {
    const sched = columns[0];
    if (!sched) {
      this.diag(extent, 'error', 'missing-scheduler', t('The scheduler is missing.'));
      return;
    }
    svc.scheduler = sched.image;
    svc.schedulerRange = tokenRange(i, sched);
    if (!SCHEDULERS.has(sched.image)) {
      this.diag(svc.schedulerRange, 'warning', 'unknown-scheduler', t('Unknown scheduler {0}: the kernel knows rr, wrr, lc, wlc, lblc, lblcr, dh, sh, sed, nq, mh, fo, ovf and twos.', sched.image));
    }
    for (let k = 1; k < columns.length; k++) {
      const tk = columns[k];
      const r = tokenRange(i, tk);
      const word = tk.image;
      if (word === 'persistent') {
        const value = columns[k + 1];
        const timeout = value && /^\d+$/.test(value.image) ? Number(value.image) : undefined;
        if (timeout === undefined) {
          this.diag(r, 'error', 'missing-value', t('persistent needs a timeout in seconds.'));
          continue;
        }
        svc.persistent = { timeout, range: spanRanges(r, tokenRange(i, value)) };
        k++;
      } else if (word === 'mask' || word === 'pe') {
        const value = columns[k + 1];
        if (!value) {
          this.diag(r, 'error', 'missing-value', t('{0} needs a value.', word));
          continue;
        }
        k++;
        if (!svc.persistent) {
          this.diag(r, 'warning', 'without-persistence', t('{0} only applies to persistent services.', word));
          continue;
        }
        svc.persistent.range = spanRanges(svc.persistent.range, tokenRange(i, value));
        if (word === 'mask') {
          svc.persistent.netmask = value.image;
          this.checkNetmask(tokenRange(i, value), svc, value.image);
        } else {
          svc.persistent.engine = value.image;
        }
      } else if (word === 'ops' || word === 'synproxy') {
        svc.flags.push(word);
        svc.flagRanges.push(r);
      } else if (
        /^\(?[\w-]+(,[\w-]+)*\)?$/.test(word) &&
        word
          .replace(/[()]/g, '')
          .split(',')
          .every((f) => SCHED_FLAGS.has(f))
      ) {
        for (const f of word.replace(/[()]/g, '').split(',')) {
          svc.flags.push(f);
          if (!flagFits(f, svc.scheduler)) {
            this.diag(r, 'warning', 'incompatible-flag', t('Scheduler flag {0} does not apply to scheduler {1}.', f, svc.scheduler ?? '?'));
          }
        }
        svc.flagRanges.push(r);
      } else {
        this.diag(r, 'warning', 'unexpected-column', t('Unexpected {0} after the scheduler: ipvsadm prints persistent, mask, pe, ops and scheduler flags here.', JSON.stringify(word)));
      }
    }
  }

  private checkNetmask(r: Range, svc: VirtualService, mask: string): void {
    if (svc.family === 'ipv6' || (svc.protocol === 'fwmark' && /^\d+$/.test(mask))) {
      if (!/^\d+$/.test(mask) || Number(mask) > 128) this.diag(r, 'error', 'bad-netmask', t('{0} is not an IPv6 prefix length (0–128).', mask));
      else if (Number(mask) === 0) this.diag(r, 'hint', 'mask-all-clients', t('mask 0 puts every client into one persistence group: all of them go to the same real server.'));
      return;
    }
    if (!isIpv4(mask)) {
      this.diag(r, 'error', 'bad-netmask', t('{0} is not an IPv4 netmask.', mask));
      return;
    }
    const bits = mask
      .split('.')
      .map(Number)
      .reduce((n, o) => n * 256 + o, 0);
    const inverted = ~bits >>> 0;
    if ((inverted & (inverted + 1)) !== 0) this.diag(r, 'warning', 'bad-netmask', t('{0} is not a contiguous netmask.', mask));
    if (mask === '0.0.0.0') {
      this.diag(r, 'hint', 'mask-all-clients', t('mask 0.0.0.0 puts every client into one persistence group: all of them go to the same real server while the template lives.'));
    }
  }

  private newService(i: number, name: string, protocol: VirtualService['protocol'], family: IpvsFamily, nameRange: Range, extent: Range): VirtualService {
    return {
      name,
      protocol,
      family,
      flags: [],
      flagRanges: [],
      realServers: [],
      format: this.format ?? 'list',
      range: extent,
      nameRange,
      fullRange: extent,
      line: i,
    };
  }

  /** Adds a listed service, or merges it into the same service of an earlier listing (e.g. -Ln then --stats). */
  private registerService(i: number, svc: VirtualService): void {
    this.noteFormat(svc.format);
    const existing = this.serviceByName.get(svc.name);
    if (existing) {
      // A service is registered on its own line.
      if (existing.line >= this.blockStart) {
        this.diag(svc.nameRange, 'warning', 'duplicate-service', t('Virtual service {0} is listed twice.', svc.name));
      }
      // Another listing of the same node: same service, more columns.
      existing.scheduler ??= svc.scheduler;
      existing.persistent ??= svc.persistent;
      if (existing.flags.length === 0) existing.flags = svc.flags;
      existing.stats ??= svc.stats;
      this.pendingRefs.push({ name: svc.name, range: svc.nameRange, role: 'lookup', line: i, required: false });
      this.serviceByLine.set(i, existing);
      this.current = existing;
      this.currentIsMerge = true;
      this.currentServers.clear();
      return;
    }
    this.services.push(svc);
    this.serviceByName.set(svc.name, svc);
    if (svc instanceof ServiceNode) {
      this.symbols.define(new ServiceDefinition(svc));
    } else {
      const def: SymbolDefinition = { kind: 'virtualService', name: svc.name, scope: IPVS_SCOPE, range: svc.nameRange, fullRange: svc.fullRange };
      this.symbols.define(def);
      this.definitionOf.set(svc, def);
    }
    this.serviceByLine.set(i, svc);
    this.current = svc;
    this.currentIsMerge = false;
    this.currentServers.clear();
  }

  private currentIsMerge = false;
  /** IPv4 addresses of the fast path by value: one string per address, mostly (an endpoint backs several services). */
  private addressCache: AddressCache | undefined;
  private get addresses(): AddressCache {
    // Sized by the text: a small dump does not need 64k slots.
    return (this.addressCache ??= new AddressCache(Math.min(1 << 16, Math.max(256, 2 ** Math.ceil(Math.log2(this.lines.length / 64 + 1))))));
  }
  /** Real servers already listed under the current service line (duplicates are reported). */
  private readonly currentServers = new ServerKeys();
  /**
   * The service whose real server lines are being read: its list grows by push, with room to spare, and is
   * copied to its exact size once the next service's lines start (while it is young: copied at the end, the
   * grown lists of a 10,000-Service node would be megabytes of garbage in the old generation, docs/performance.md#memory).
   */
  private growing: VirtualService | undefined;
  /** Whether restore commands added or deleted real servers: then every list is copied at the end. */
  private listsEdited = false;

  /**
   * What restore commands removed: marked, not spliced out of the lists while parsing (each would move all after
   * it), and filtered out at the end.
   */
  private readonly goneServices = new Set<VirtualService>();
  private readonly goneServers = new Set<RealServer>();
  private readonly restoreIndex = new Map<VirtualService, ServerIndex>();
  private readonly listingIndex = new Map<VirtualService, ServerIndex>();

  /** A copy of `list` without the deleted servers. */
  private liveServers(list: RealServer[]): RealServer[] {
    return this.goneServers.size > 0 ? list.filter((r) => !this.goneServers.has(r)) : list.slice();
  }

  /** The first live server of `svc` with this restoreKey. */
  private restoredServer(svc: VirtualService, key: string): RealServer | undefined {
    let index = this.restoreIndex.get(svc);
    if (!index) this.restoreIndex.set(svc, (index = new ServerIndex((r) => restoreKey(r.address, r.port))));
    return index.first(svc.realServers, key, this.goneServers);
  }

  /** The first live server of `svc` with this listingKey. */
  private listedServer(svc: VirtualService, key: string): RealServer | undefined {
    let index = this.listingIndex.get(svc);
    if (!index) this.listingIndex.set(svc, (index = new ServerIndex((r) => listingKey(r.address, r.port ?? r.portName))));
    return index.first(svc.realServers, key, this.goneServers);
  }

  /** Adds a real server line's server to `svc` (the list copied to its size by closeServers). */
  private pushServer(svc: VirtualService, server: RealServer): void {
    if (this.growing !== svc) {
      this.closeServers();
      this.growing = svc;
    }
    svc.realServers.push(server);
  }

  private closeServers(): void {
    const svc = this.growing;
    if (svc && svc.realServers.length > 0) svc.realServers = svc.realServers.slice();
    this.growing = undefined;
  }

  /** `  -> 10.244.1.5:8080  Masq  1  0  0` and the other listings' columns. */
  private realServerLine(i: number, text: string, tokens: IToken[], extent: Range): void {
    const svc = this.current;
    if (!svc) {
      this.diag(extent, 'error', 'real-server-without-service', t('A real server line needs a virtual service line above it.'));
      return;
    }
    const addressToken = tokens[1];
    if (!addressToken) {
      this.diag(extent, 'error', 'missing-address', t('The real server address is missing.'));
      return;
    }
    const ep = this.endpoint(i, addressToken);
    if (ep.hostname && ep.port === undefined && addressToken.image.length === 28) {
      this.diag(ep.range, 'hint', 'maybe-truncated', t('ipvsadm -L cuts real server names at 28 characters; this one may be cut. List with -n for numbers.'));
    } else if (ep.hostname && ep.port === undefined && ep.portName === undefined && !addressToken.image.includes(':')) {
      this.diag(ep.range, 'warning', 'truncated-name', t('ipvsadm -L cuts real server names at 28 characters, so the port is missing here. List with -n for numbers.'));
    }
    const server: RealServer = {
      address: ep.address,
      family: ep.family,
      forward: 'route',
      weight: 1,
      notInDump: [],
      range: extent,
      addressRange: ep.range,
      line: i,
    };
    if (ep.hostname) server.hostname = true;
    if (ep.port !== undefined) server.port = ep.port;
    if (ep.portName !== undefined) server.portName = ep.portName;
    const columns = tokens.slice(2);
    const format = this.realServerFormat(svc, columns);
    this.realServerColumns(i, server, format, columns, extent);
    if (server.family !== svc.family && server.forward !== 'tunnel' && !server.hostname && !svc.hostname && svc.protocol !== 'fwmark') {
      this.diag(
        ep.range,
        'warning',
        'family-mismatch',
        t('An {0} real server behind an {1} virtual service: only tunnelling can do that.', server.family === 'ipv6' ? 'IPv6' : 'IPv4', svc.family === 'ipv6' ? 'IPv6' : 'IPv4'),
      );
    }
    const key = addressToken.image;
    if (this.currentServers.add(key, 0, key.length)) {
      this.diag(ep.range, 'warning', 'duplicate-real-server', t('Real server {0} is listed twice under {1}.', key, svc.name));
    }
    if (this.currentIsMerge) {
      const same = this.listedServer(svc, listingKey(server.address, server.port ?? server.portName));
      if (same) {
        mergeServer(same, server);
        this.realServerByLine.set(i, { service: svc, server: same, range: extent });
        this.extend(svc, i, text);
        return;
      }
    }
    this.pushServer(svc, server);
    this.realServerByLine.set(i, { service: svc, server, range: extent });
    this.extend(svc, i, text);
  }

  /** extend() for the line at [start, end) of the text. */
  private extendAt(svc: VirtualService, i: number, start: number, end: number): void {
    if (svc instanceof ServiceNode) {
      if (i >= svc.fullEndLine()) svc.extendTo(i, trimmedEnd(this.text, start, end) - start);
      return;
    }
    this.extend(svc, i, this.text.slice(start, end));
  }

  private extend(svc: VirtualService, i: number, text: string): void {
    if (svc instanceof ServiceNode) {
      if (i >= svc.fullEndLine()) svc.extendTo(i, trimmedLength(text));
      return;
    }
    if (i >= svc.fullRange.end.line) svc.fullRange = spanRanges(svc.fullRange, lineRange(i, 0, text.trimEnd().length));
  }

  private realServerFormat(svc: VirtualService, columns: IToken[]): IpvsFormat {
    const f = this.format;
    if (f === 'list' && columns.length === 6 && FORWARD_NAMES[columns[0]?.image]) return 'tun-info';
    if (f && f !== 'save' && f !== 'connections') {
      if (f === 'list' && columns.length === 5 && columns.every((c) => parseCount(c.image))) return 'stats';
      return f;
    }
    if (columns[0] && FORWARD_NAMES[columns[0].image]) return columns.length === 6 ? 'tun-info' : 'list';
    if (columns.length === 5) return 'stats';
    return svc.format === 'stats' || svc.format === 'rate' ? svc.format : 'persistent-conn';
  }

  private realServerColumns(i: number, server: RealServer, format: IpvsFormat, columns: IToken[], extent: Range): void {
    const number = (tk: IToken | undefined, what: string): number | undefined => {
      if (!tk) return undefined;
      if (!/^\d+$/.test(tk.image)) {
        this.diag(tokenRange(i, tk), 'error', 'bad-number', t('{0} should be a number ({1}).', tk.image, what));
        return undefined;
      }
      return Number(tk.image);
    };
    const expect = (n: number, message: string): boolean => {
      if (columns.length === n) return true;
      this.diag(extent, 'warning', 'bad-columns', message);
      return columns.length > n;
    };
    switch (format) {
      case 'stats':
      case 'rate': {
        server.notInDump = ['forward', 'weight'];
        const counts = columns.map((c) => parseCount(c.image));
        if (columns.length !== 5 || counts.some((c) => !c)) {
          this.diag(extent, 'warning', 'bad-columns', format === 'stats' ? t('Expected five counters: Conns, InPkts, OutPkts, InBytes, OutBytes.') : t('Expected five rates: CPS, InPPS, OutPPS, InBPS, OutBPS.'));
          return;
        }
        const v = counts.map((c) => c!.value);
        server.stats = {
          kind: format,
          conns: v[0],
          inPackets: v[1],
          outPackets: v[2],
          inBytes: v[3],
          outBytes: v[4],
          approximate: counts.some((c) => c!.approximate),
          range: spanRanges(tokenRange(i, columns[0]), tokenRange(i, columns[4])),
        };
        return;
      }
      case 'thresholds': {
        server.notInDump = ['forward', 'weight'];
        expect(4, t('Expected four columns: Uthreshold, Lthreshold, ActiveConn, InActConn.'));
        server.upperThreshold = number(columns[0], 'Uthreshold');
        server.lowerThreshold = number(columns[1], 'Lthreshold');
        this.connCounts(i, server, columns[2], columns[3], number);
        return;
      }
      case 'persistent-conn': {
        server.notInDump = ['forward'];
        expect(4, t('Expected four columns: Weight, PersistConn, ActiveConn, InActConn.'));
        this.weight(i, server, columns[0]);
        server.persistConn = number(columns[1], 'PersistConn');
        this.connCounts(i, server, columns[2], columns[3], number);
        return;
      }
      default: {
        // list and tun-info: Forward [TunnelInfo] Weight ActiveConn InActConn
        const forwardToken = columns[0];
        if (!forwardToken) {
          this.diag(extent, 'error', 'missing-forward', t('The forwarding method (Masq, Route, Tunnel or Local) is missing.'));
          server.notInDump = ['forward', 'weight'];
          return;
        }
        const fwd = FORWARD_NAMES[forwardToken.image];
        server.forwardRange = tokenRange(i, forwardToken);
        if (fwd) {
          server.forward = fwd.forward;
          if (fwd.local) server.localNode = true;
        } else {
          this.diag(server.forwardRange, 'warning', 'unknown-forward', t('Unknown forwarding method {0}: ipvsadm prints Masq, Route, Tunnel or Local.', forwardToken.image));
        }
        let rest = columns.slice(1);
        if (format === 'tun-info' && rest.length === 4 && server.forward !== 'tunnel') {
          // Non-tunnel servers leave the TunnelInfo column empty.
        } else if (rest.length === 4) {
          const info = rest[0];
          server.tunnel = parseTunnelInfo(info.image);
          rest = rest.slice(1);
        }
        if (rest.length !== 3) {
          this.diag(extent, 'warning', 'bad-columns', t('Expected Forward, Weight, ActiveConn and InActConn.'));
        }
        this.weight(i, server, rest[0]);
        this.connCounts(i, server, rest[1], rest[2], number);
      }
    }
  }

  private connCounts(i: number, server: RealServer, active: IToken | undefined, inact: IToken | undefined, number: (tk: IToken | undefined, what: string) => number | undefined): void {
    const a = number(active, 'ActiveConn');
    const n = number(inact, 'InActConn');
    if (a !== undefined) {
      server.activeConn = a;
      server.activeRange = tokenRange(i, active!);
    }
    if (n !== undefined) {
      server.inactConn = n;
      server.inactRange = tokenRange(i, inact!);
    }
  }

  private weight(i: number, server: RealServer, tk: IToken | undefined): void {
    if (!tk) {
      server.notInDump = [...new Set([...server.notInDump, 'weight' as const])];
      return;
    }
    const r = tokenRange(i, tk);
    server.weightRange = r;
    if (!/^-?\d+$/.test(tk.image) || Number(tk.image) < 0) {
      this.diag(r, 'error', 'bad-weight', t('{0} is not a weight (an integer, 0 or more).', tk.image));
      return;
    }
    const weight = Number(tk.image);
    // ipvsadm takes 0 to 65535 (a larger number would give shares of Infinity / Infinity).
    if (weight > 65535) {
      this.diag(r, 'error', 'bad-weight', t('A weight is at most 65535.'));
      return;
    }
    server.weight = weight;
    if (server.weight === 0) {
      this.diag(r, 'hint', 'weight-zero', t('Weight 0: this real server gets no new connections; existing ones go on. kube-proxy sets it while an endpoint terminates.'));
    }
  }

  /** `TCP 14:59  ESTABLISHED 10.244.1.5:43210 10.96.0.1:443 192.168.0.1:6443 [pe name] [pe data]` */
  private connectionLine(i: number, tokens: IToken[], extent: Range): void {
    const proto = tokens[0].image;
    if (!CONNECTION_PROTOCOLS.has(proto)) {
      this.notIpvsadm(extent);
      return;
    }
    if (this.format !== 'connections') {
      this.format = 'connections';
      this.noteFormat('connections');
    }
    if (tokens.length < 6) {
      this.diag(extent, 'error', 'bad-columns', t('A connection entry has six columns: pro, expire, state, source, virtual and destination.'));
      return;
    }
    const [m, s] = tokens[1].image.split(':').map(Number);
    const connection: IpvsConnection = {
      protocol: proto,
      expires: m * 60 + s,
      state: tokens[2].image,
      source: this.endpoint(i, tokens[3]),
      virtual: this.endpoint(i, tokens[4]),
      destination: this.endpoint(i, tokens[5]),
      range: extent,
      expiresRange: tokenRange(i, tokens[1]),
      stateRange: tokenRange(i, tokens[2]),
      line: i,
    };
    if (tokens.length >= 7) connection.peName = tokens[6].image;
    if (tokens.length >= 8)
      connection.peData = tokens
        .slice(7)
        .map((tk) => tk.image)
        .join(' ');
    if (tokens.length > 8 || (tokens.length > 6 && this.connectionColumns === 6)) {
      this.diag(spanRanges(tokenRange(i, tokens[6]), tokenRange(i, tokens[tokens.length - 1])), 'warning', 'bad-columns', t('Unexpected columns after the destination.'));
    }
    this.connections.push(connection);
    this.connectionByLine.set(i, connection);
    if (proto === 'TCP' || proto === 'UDP' || proto === 'SCTP') {
      this.pendingRefs.push({ name: serviceName(proto, tokens[4].image), range: connection.virtual.range, role: 'lookup', line: i, required: false });
    }
  }

  // ---- ipvsadm -S / -R --------------------------------------------------------------------------------

  private commandLine(i: number, items: CommandItem[], extent: Range): void {
    this.format = 'save';
    this.noteFormat('save');
    this.current = undefined;
    const first = items[0];
    const commandName = first.option.image;
    const kind = COMMANDS[commandName];
    const options: IpvsOption[] = [];
    const command: IpvsCommand = { command: kind ?? 'other', name: commandName, options, range: extent, line: i };
    this.commands.push(command);
    this.commandByLine.set(i, command);
    if (!kind) {
      const r = tokenRange(i, first.option);
      if (NOT_RESTORABLE.has(commandName)) this.diag(r, 'error', 'not-restorable', t('{0} is a command-line command: ipvsadm -R does not accept it.', commandName));
      else if (OPTIONS[commandName]) this.diag(r, 'error', 'no-command', t('The line must start with a command such as -A (add service) or -a (add real server), not {0}.', commandName));
      else this.diag(r, 'error', 'unknown-option', t('Unknown ipvsadm option {0}.', commandName));
      return;
    }
    if (first.args.length > 0 && kind !== 'set') {
      const r = spanRanges(tokenRange(i, first.args[0]), tokenRange(i, first.args[first.args.length - 1]));
      this.diag(r, 'error', 'unexpected-argument', t('Unexpected argument {0}.', JSON.stringify(first.args[0].image)));
    }
    if (kind === 'set') {
      const v = first.args.map((a) => Number(a.image));
      if (v.length === 3 && v.every((x) => Number.isInteger(x) && x >= 0)) this.timeouts = { tcp: v[0], tcpFin: v[1], udp: v[2] };
      else this.diag(extent, 'error', 'bad-timeout', t('--set needs three timeouts in seconds: tcp, tcpfin and udp.'));
    }
    const byName = this.commandOptions(i, kind, commandName, items, options);
    if (kind === 'clear') {
      for (const s of this.services) if (!this.goneServices.has(s)) this.removeService(s);
      this.services.length = 0;
      this.goneServices.clear();
      return;
    }
    if (kind === 'zero' || kind === 'set') return;
    const target = this.commandService(i, commandName, options, byName, extent);
    if (target === undefined) return;
    const { name, specRange } = target;
    command.service = name;
    switch (kind) {
      case 'add-service':
        return this.addService(i, target, byName, extent);
      case 'edit-service':
      case 'delete-service': {
        this.pendingRefs.push({ name, range: specRange, role: 'command', line: i, required: true });
        const svc = this.serviceByName.get(name);
        if (!svc) return;
        if (kind === 'edit-service') this.applyServiceOptions(svc, byName, false);
        else this.removeService(svc);
        return;
      }
      default: {
        this.pendingRefs.push({ name, range: specRange, role: 'rule-owner', line: i, required: true });
        const svc = this.serviceByName.get(name);
        const rOpt = byName.get('-r');
        if (!rOpt || rOpt.values[0] === undefined) {
          this.diag(extent, 'error', 'missing-real-server', t('{0} needs a real server (-r address[:port]).', commandName));
          return;
        }
        if (!svc) return;
        this.serverCommand(i, kind, svc, rOpt, byName, extent);
      }
    }
  }

  /** The options after a command (checked against it), by canonical name; each also goes to `options`. */
  private commandOptions(i: number, kind: NonNullable<(typeof COMMANDS)[string]>, commandName: string, items: CommandItem[], options: IpvsOption[]): Map<string, IpvsOption> {
    const byName = new Map<string, IpvsOption>();
    for (const item of items.slice(1)) {
      const name = item.option.image;
      const spec = OPTIONS[name];
      const nameRange = tokenRange(i, item.option);
      if (!spec) {
        if (COMMANDS[name] || NOT_RESTORABLE.has(name)) this.diag(nameRange, 'error', 'two-commands', t('Only one command per line; {0} is the second.', name));
        else this.diag(nameRange, 'error', 'unknown-option', t('Unknown ipvsadm option {0}.', name));
        continue;
      }
      let args = item.args;
      const max = spec.arity === 'optional' ? (args[0] && /^\d+$/.test(args[0].image) ? 1 : 0) : spec.arity;
      if (args.length < max || (spec.arity !== 'optional' && args.length < spec.arity)) {
        this.diag(nameRange, 'error', 'missing-value', t('{0} needs a value.', name));
      }
      if (args.length > max) {
        const extra = args.slice(max);
        this.diag(spanRanges(tokenRange(i, extra[0]), tokenRange(i, extra[extra.length - 1])), 'error', 'unexpected-argument', t('Unexpected argument {0}.', JSON.stringify(extra[0].image)));
        args = args.slice(0, max);
      }
      const opt: IpvsOption = {
        name: spec.canonical,
        values: args.map((a) => a.image),
        range: args.length > 0 ? spanRanges(nameRange, tokenRange(i, args[args.length - 1])) : nameRange,
        nameRange,
        valueRanges: args.map((a) => tokenRange(i, a)),
      };
      if (!optionAllowed(spec, kind)) {
        this.diag(nameRange, 'error', 'illegal-option', t('ipvsadm rejects {0} with the {1} command.', name, commandName));
      }
      if (byName.has(spec.canonical) && spec.for !== 'service-spec') {
        this.diag(nameRange, 'error', 'duplicate-option', t('{0} is given twice.', name));
      }
      byName.set(spec.canonical, opt);
      options.push(opt);
    }
    return byName;
  }

  /** The virtual service a command names (-t, -u, --sctp-service or -f), or undefined when it names none. */
  private commandService(i: number, commandName: string, options: IpvsOption[], byName: Map<string, IpvsOption>, extent: Range): CommandService | undefined {
    const specs = options.filter((o) => SERVICE_SPEC_PROTOCOL[o.name]);
    if (specs.length === 0) {
      this.diag(extent, 'error', 'missing-service', t('{0} needs a virtual service: -t, -u or --sctp-service with an address, or -f with a firewall mark.', commandName));
      return undefined;
    }
    if (specs.length > 1) this.diag(specs[1].nameRange, 'error', 'two-services', t('Only one virtual service per line.'));
    const spec = specs[0];
    const specValue = spec.values[0];
    const specRange = spec.valueRanges[0];
    if (specValue === undefined || !specRange) return undefined;
    const protocolWord = SERVICE_SPEC_PROTOCOL[spec.name];
    let name: string;
    let family: IpvsFamily = 'ipv4';
    let endpoint: IpvsEndpoint | undefined;
    let hasPort = true;
    let fwmark: number | undefined;
    if (protocolWord === 'FWM') {
      fwmark = Number(specValue);
      if (!/^\d+$/.test(specValue) || fwmark <= 0 || fwmark > 0xffffffff) {
        this.diag(specRange, 'error', 'bad-fwmark', t('{0} is not a firewall mark (an integer greater than zero).', specValue));
      }
      if (byName.has('-6')) family = 'ipv6';
      name = family === 'ipv6' ? `FWM ${specValue} IPv6` : `FWM ${specValue}`;
    } else {
      const result = this.endpointResult(i, { image: specValue, startOffset: specRange.start.character, endOffset: specRange.end.character - 1 } as IToken);
      endpoint = result.endpoint;
      hasPort = result.hasPort;
      family = endpoint.family;
      const shown = hasPort ? specValue : `${specValue}:0`;
      name = serviceName(protocolWord, shown);
    }
    return { name, family, endpoint, hasPort, fwmark, protocolWord, specRange };
  }

  /** `-A`: a new virtual service. */
  private addService(i: number, target: CommandService, byName: Map<string, IpvsOption>, extent: Range): void {
    const { name, family, endpoint, hasPort, fwmark, protocolWord, specRange } = target;
    if (this.serviceByName.has(name)) {
      this.diag(specRange, 'error', 'duplicate-service', t('Virtual service {0} already exists: ipvsadm -R fails here ("Service already exists").', name));
      this.pendingRefs.push({ name, range: specRange, role: 'command', line: i, required: true });
      return;
    }
    const svc = this.newService(i, name, protocolWord === 'FWM' ? 'fwmark' : (protocolWord.toLowerCase() as 'tcp'), family, specRange, extent);
    svc.format = 'save';
    if (endpoint) {
      svc.address = endpoint.address;
      svc.port = hasPort ? endpoint.port : 0;
      if (endpoint.portName !== undefined) svc.portName = endpoint.portName;
      if (endpoint.hostname) svc.hostname = true;
    }
    if (fwmark !== undefined) svc.fwmark = fwmark;
    this.applyServiceOptions(svc, byName, true);
    this.services.push(svc);
    this.serviceByName.set(name, svc);
    const def: SymbolDefinition = { kind: 'virtualService', name, scope: IPVS_SCOPE, range: specRange, fullRange: extent };
    this.symbols.define(def);
    this.definitionOf.set(svc, def);
    this.serviceByLine.set(i, svc);
    return;
  }

  private removeService(svc: VirtualService): void {
    this.goneServices.add(svc);
    this.serviceByName.delete(svc.name);
    svc.realServers = this.liveServers(svc.realServers);
    // Its definition keeps the full range it had when it was made: the service line. A listed service's
    // definition is found among those of its line.
    if (svc instanceof ServiceNode) {
      const def = this.symbols.onLine(svc.line).find((d) => d instanceof ServiceDefinition && d.defines(svc));
      if (def) (def as ServiceDefinition).fullRange = svc.range;
    }
    this.definitionOf.delete(svc);
  }

  private applyServiceOptions(svc: VirtualService, byName: Map<string, IpvsOption>, adding: boolean): void {
    const s = byName.get('-s');
    if (s?.values[0] !== undefined) {
      svc.scheduler = s.values[0];
      svc.schedulerRange = s.valueRanges[0];
      if (!SCHEDULERS.has(svc.scheduler)) {
        this.diag(s.valueRanges[0], 'warning', 'unknown-scheduler', t('Unknown scheduler {0}: the kernel knows rr, wrr, lc, wlc, lblc, lblcr, dh, sh, sed, nq, mh, fo, ovf and twos.', svc.scheduler));
      }
    } else if (adding) {
      svc.scheduler = DEFAULT_SCHEDULER;
    }
    const p = byName.get('-p');
    if (p) {
      const timeout = p.values[0] !== undefined ? Number(p.values[0]) : DEFAULT_PERSISTENT_TIMEOUT;
      svc.persistent = { timeout, range: p.range };
      if (timeout === 0) this.diag(p.range, 'error', 'bad-timeout', t('A persistence timeout must be greater than zero.'));
    }
    const mask = byName.get('-M');
    if (mask?.values[0] !== undefined) {
      if (!svc.persistent) {
        this.diag(mask.nameRange, 'warning', 'without-persistence', t('{0} only applies to persistent services.', '-M'));
      } else {
        svc.persistent.netmask = mask.values[0];
        this.checkNetmask(mask.valueRanges[0], svc, mask.values[0]);
      }
    }
    const pe = byName.get('--pe');
    if (pe?.values[0] !== undefined && svc.persistent) svc.persistent.engine = pe.values[0];
    const b = byName.get('-b');
    if (b?.values[0] !== undefined) {
      svc.flags = svc.flags.filter((f) => f === 'ops');
      svc.flagRanges = [b.valueRanges[0]];
      for (const f of b.values[0].split(',')) {
        if (!SCHED_FLAGS.has(f)) {
          this.diag(b.valueRanges[0], 'error', 'bad-sched-flag', t('Invalid scheduler flag {0}: ipvsadm knows sh-fallback, sh-port, mh-fallback, mh-port and flag-1 to flag-3.', f));
          continue;
        }
        if (!flagFits(f, svc.scheduler)) {
          this.diag(b.valueRanges[0], 'error', 'incompatible-flag', t('Scheduler flag {0} does not go with scheduler {1}: ipvsadm refuses it ("incompatible scheduler flag").', f, svc.scheduler ?? DEFAULT_SCHEDULER));
        }
        svc.flags.push(f);
      }
    }
    const o = byName.get('-o');
    if (o && !svc.flags.includes('ops')) {
      svc.flags.push('ops');
      svc.flagRanges.push(o.nameRange);
    }
    if (svc.protocol !== 'fwmark' && svc.port === 0 && !svc.persistent) {
      this.diag(svc.nameRange, 'error', 'zero-port', t('Port 0 is only allowed for persistent services: ipvsadm says "Zero port specified for non-persistent service".'));
    }
  }

  private serverCommand(i: number, kind: IpvsCommand['command'], svc: VirtualService, rOpt: IpvsOption, byName: Map<string, IpvsOption>, extent: Range): void {
    const rRange = rOpt.valueRanges[0];
    const { endpoint: ep, hasPort } = this.endpointResult(i, { image: rOpt.values[0], startOffset: rRange.start.character, endOffset: rRange.end.character - 1 } as IToken);
    const forwards = (['-g', '-i', '-m'] as const).filter((f) => byName.has(f));
    if (forwards.length > 1) this.diag(byName.get(forwards[1])!.nameRange, 'error', 'two-forwards', t('Only one forwarding method: -g, -i or -m.'));
    const same = this.restoredServer(svc, restoreKey(ep.address, ep.port ?? svc.port));
    this.listsEdited = true;
    if (kind === 'delete-server' || kind === 'edit-server') {
      const existing = same;
      if (!existing) {
        this.diag(rRange, 'error', 'undefined-real-server', t('{0} has no real server {1}: ipvsadm -R fails here ("No such destination").', svc.name, rOpt.values[0]));
        return;
      }
      if (kind === 'delete-server') {
        this.goneServers.add(existing);
        return;
      }
      this.applyServerOptions(i, existing, svc, byName, rRange);
      this.realServerByLine.set(i, { service: svc, server: existing, range: existing.range });
      return;
    }
    const server: RealServer = {
      address: ep.address,
      family: ep.family,
      forward: 'route',
      weight: 1,
      notInDump: [],
      range: extent,
      addressRange: rRange,
      line: i,
    };
    if (ep.hostname) server.hostname = true;
    server.port = hasPort ? ep.port : svc.port;
    if (ep.portName !== undefined) server.portName = ep.portName;
    this.applyServerOptions(i, server, svc, byName, rRange);
    if (same) {
      this.diag(rRange, 'error', 'duplicate-real-server', t('{0} already has real server {1}: ipvsadm -R fails here ("Destination already exists").', svc.name, rOpt.values[0]));
      return;
    }
    if (server.family !== svc.family && server.forward !== 'tunnel' && !server.hostname && svc.protocol !== 'fwmark') {
      this.diag(rRange, 'error', 'family-mismatch', t('Different address families are only allowed for tunnelling servers (-i).'));
    }
    svc.realServers.push(server);
    this.realServerByLine.set(i, { service: svc, server, range: extent });
    this.extend(svc, i, this.lineText);
  }

  private applyServerOptions(i: number, server: RealServer, svc: VirtualService, byName: Map<string, IpvsOption>, rRange: Range): void {
    const fwd = byName.has('-m') ? 'masq' : byName.has('-i') ? 'tunnel' : byName.has('-g') ? 'route' : undefined;
    if (fwd) {
      server.forward = fwd;
      server.forwardRange = byName.get(fwd === 'masq' ? '-m' : fwd === 'tunnel' ? '-i' : '-g')!.nameRange;
    }
    if (server.forward !== 'masq' && svc.protocol !== 'fwmark' && svc.port !== undefined && server.port !== undefined && server.port !== svc.port) {
      this.diag(rRange, 'hint', 'port-ignored', t('With direct routing or tunnelling the real server is reached on the virtual port {0}: ipvsadm ignores port {1}.', svc.port, server.port));
      server.port = svc.port;
    }
    const w = byName.get('-w');
    if (w?.values[0] !== undefined) {
      const token = { image: w.values[0], startOffset: w.valueRanges[0].start.character, endOffset: w.valueRanges[0].end.character - 1 } as IToken;
      this.weight(i, server, token);
    }
    for (const [name, key] of [
      ['-x', 'upperThreshold'],
      ['-y', 'lowerThreshold'],
    ] as const) {
      const o = byName.get(name);
      if (o?.values[0] === undefined) continue;
      if (!/^\d+$/.test(o.values[0])) this.diag(o.valueRanges[0], 'error', 'bad-number', t('{0} needs a number of connections.', name));
      else server[key] = Number(o.values[0]);
    }
    const tunType = byName.get('--tun-type');
    if (tunType?.values[0] !== undefined) {
      const type = tunType.values[0];
      if (!['ipip', 'gue', 'gre'].includes(type)) this.diag(tunType.valueRanges[0], 'error', 'bad-tunnel', t('Unknown tunnel type {0}: ipip, gue or gre.', type));
      if (server.forward !== 'tunnel') this.diag(tunType.nameRange, 'error', 'tunnel-options', t('Tunnel options need the tunnelling method -i.'));
      const port = byName.get('--tun-port')?.values[0];
      const csum = byName.has('--tun-nocsum') ? 'nocsum' : byName.has('--tun-csum') ? 'csum' : byName.has('--tun-remcsum') ? 'remcsum' : undefined;
      server.tunnel = { type, text: [type, port, csum].filter((x) => x !== undefined).join(':') };
      if (port !== undefined) server.tunnel.port = Number(port);
      if (csum) server.tunnel.checksum = csum;
    }
  }

  private resolveReferences(): void {
    for (const ref of this.pendingRefs) {
      this.symbols.reference({ kind: 'virtualService', name: ref.name, scope: IPVS_SCOPE, range: ref.range, role: ref.role });
      if (!ref.required) continue;
      const def = this.symbols.definition('virtualService', IPVS_SCOPE, ref.name);
      if (!def || def.range.start.line > ref.line) {
        this.diag(ref.range, 'error', 'undefined-service', t('No virtual service {0} before this line: ipvsadm -R fails here ("No such service").', ref.name));
      }
    }
  }
}

function optionAllowed(spec: OptionSpec, command: IpvsCommand['command']): boolean {
  switch (spec.for) {
    case 'any':
      return true;
    case 'service-spec':
      return command !== 'set' && command !== 'clear';
    case 'service':
      return command === 'add-service' || command === 'edit-service';
    case 'server':
      return command === 'add-server' || command === 'edit-server';
    case 'server-spec':
      return command === 'add-server' || command === 'edit-server' || command === 'delete-server';
  }
}

function flagFits(flag: string, scheduler: string | undefined): boolean {
  if (flag.startsWith('sh-')) return scheduler === 'sh';
  if (flag.startsWith('mh-')) return scheduler === 'mh';
  return true;
}

/** `ipip`, `gue:6080`, `gue:6080:nocsum` … as the TunnelInfo column shows it. */
function parseTunnelInfo(text: string): RealServer['tunnel'] {
  const [type, ...rest] = text.split(':');
  const info: NonNullable<RealServer['tunnel']> = { type, text };
  for (const part of rest) {
    if (/^\d+$/.test(part)) info.port = Number(part);
    else if (part === 'nocsum' || part === 'csum' || part === 'remcsum') info.checksum = part;
  }
  return info;
}

function mergeServer(into: RealServer, from: RealServer): void {
  if (into.notInDump.includes('forward') && !from.notInDump.includes('forward')) {
    into.forward = from.forward;
    into.forwardRange = from.forwardRange;
    if (from.localNode) into.localNode = true;
  }
  if (into.notInDump.includes('weight') && !from.notInDump.includes('weight')) {
    into.weight = from.weight;
    into.weightRange = from.weightRange;
  }
  into.notInDump = into.notInDump.filter((c) => from.notInDump.includes(c));
  into.activeConn ??= from.activeConn;
  into.inactConn ??= from.inactConn;
  into.persistConn ??= from.persistConn;
  into.upperThreshold ??= from.upperThreshold;
  into.lowerThreshold ??= from.lowerThreshold;
  into.stats ??= from.stats;
  into.tunnel ??= from.tunnel;
}

/** `accelerators: 'off'` reads every line with the reference reader (the accelerators' oracle, for tests). */
export type ParseIpvsadmOptions = ParseOptions;

export function parseIpvsadm(text: string, options: ParseIpvsadmOptions = {}): IpvsDump {
  return guardedParse('ipvsadm', text, (input) => {
    try {
      return new IpvsBuilder(input, acceleratorsOn(options)).build();
    } finally {
      releaseInputs(parserInstance);
    }
  });
}

// ---- the fast path ------------------------------------------------------------------------------------------

/**
 * `text.trimEnd().length` without making the trimmed string (ipvsadm ends its real server lines with spaces):
 * trailing spaces are counted here, any other trailing character that may be whitespace is left to trimEnd.
 */
export function trimmedLength(text: string): number {
  return trimmedEnd(text, 0, text.length);
}

/** Where the line at [start, end) of `text` ends once trimmed (trimmedLength in place). */
export function trimmedEnd(text: string, start: number, end: number): number {
  let k = end;
  while (k > start && text.charCodeAt(k - 1) === 32) k--;
  if (k === start) return start;
  const c = text.charCodeAt(k - 1);
  return c > 32 && c < 127 ? k : start + text.slice(start, end).trimEnd().length;
}

/** Token columns of the line the fast path is reading: [start, end) of token k at 2k, 2k+1. */
const cols = new Int32Array(2 * 16);

/**
 * Splits the line at [start, end) of `text` into words separated by spaces (their columns in `cols`, relative to
 * the line); -1 when it has another character than a space or printable ASCII (tabs, `#`, quotes and the rest are
 * the Chevrotain path's), or more than 16 words.
 */
function scanWords(text: string, start: number, end: number): number {
  let n = 0;
  let inWord = false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === 32) {
      if (inWord) {
        cols[2 * n - 1] = k - start;
        inWord = false;
      }
    } else if (c > 32 && c < 127 && c !== 35 /* # */) {
      if (!inWord) {
        if (n === 16) return -1;
        cols[2 * n] = k - start;
        n++;
        inWord = true;
      }
    } else {
      return -1;
    }
  }
  if (inWord) cols[2 * n - 1] = end - start;
  return n;
}

function isDigits(text: string, start: number, end: number, max: number): boolean {
  if (end <= start || end - start > max) return false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * One string per IPv4 address where it is cheap (an endpoint backs several virtual services): a fixed table of
 * the last address seen per hash slot. A Map of every address would be ~7 MB on a 10,000-Service node, garbage
 * once the parse is done but promoted to the old generation by then (docs/performance.md#memory: peak memory).
 */
export class AddressCache {
  readonly #values: Int32Array;
  readonly #strings: Array<string | undefined>;
  readonly #mask: number;

  /** `slots`: a power of two. */
  constructor(slots: number) {
    this.#values = new Int32Array(slots);
    this.#strings = new Array<string | undefined>(slots).fill(undefined);
    this.#mask = slots - 1;
  }

  /** The text at [start, end), which is the dotted address of `value` (ipv4Value), as the string kept for it. */
  address(value: number, text: string, start: number, end: number): string {
    const slot = (Math.imul(value, 0x9e3779b1) >>> 16) & this.#mask;
    const known = this.#strings[slot];
    if (known !== undefined && this.#values[slot] === value) return known;
    const address = text.slice(start, end);
    this.#strings[slot] = address;
    this.#values[slot] = value;
    return address;
  }
}

/** The family of `10.0.0.1:80` or `[fd00::1]:80` at [start, end) with a valid address and port, the way ipvsadm -Ln prints them; else undefined. */
function endpointFamily(text: string, start: number, end: number): IpvsFamily | undefined {
  let portStart: number;
  let family: IpvsFamily;
  if (text.charCodeAt(start) === 91 /* [ */) {
    const close = text.indexOf(']', start);
    if (close < 0 || close + 1 >= end || text.charCodeAt(close + 1) !== 58) return undefined;
    if (!isIpv6(text.slice(start + 1, close))) return undefined;
    family = 'ipv6';
    portStart = close + 2;
  } else {
    const colon = text.indexOf(':', start);
    if (colon < 0 || colon >= end) return undefined;
    if (Number.isNaN(ipv4Value(text, start, colon))) return undefined;
    family = 'ipv4';
    portStart = colon + 1;
  }
  return isDigits(text, portStart, end, 5) && digitsValue(text, portStart, end) <= 65535 ? family : undefined;
}

/** The address, family and port of an endpoint endpointFamily accepts; undefined for another. */
function fastEndpoint(text: string, start: number, end: number, ipv4: AddressCache): { address: string; family: IpvsFamily; port: number } | undefined {
  const family = endpointFamily(text, start, end);
  if (family === undefined) return undefined;
  let address: string;
  let portStart: number;
  if (family === 'ipv6') {
    const close = text.indexOf(']', start);
    address = text.slice(start + 1, close);
    portStart = close + 2;
  } else {
    const colon = text.indexOf(':', start);
    address = ipv4.address(ipv4Value(text, start, colon), text, start, colon);
    portStart = colon + 1;
  }
  return { address, family, port: digitsValue(text, portStart, end) };
}

/**
 * The endpoint texts of the real servers listed under one service line, to report one listed twice. A dotted
 * `address:port` (nearly all) is kept as its endpointNumber in one open-addressing table reused for every
 * service (a Set of key strings per service made a string and a hash table per line and service, docs/performance.md#memory);
 * another text in a Set of strings.
 */
export class ServerKeys {
  #keys = new Float64Array(64);
  /** The generation (#generation) an entry of #keys belongs to: older entries are empty slots. */
  #stamps = new Int32Array(64);
  #generation = 1;
  #count = 0;
  #strings: Set<string> | undefined;

  /** Forgets every text (a new service line). */
  clear(): void {
    if (this.#count === 0 && this.#strings === undefined) return;
    this.#count = 0;
    this.#strings = undefined;
    if (++this.#generation === 0x7fffffff) {
      this.#stamps.fill(0);
      this.#generation = 1;
    }
  }

  /** Adds the text at [start, end) of `text`; whether it was there already. */
  add(text: string, start: number, end: number): boolean {
    const key = endpointNumber(text, start, end);
    if (Number.isNaN(key)) {
      const s = text.slice(start, end);
      const strings = (this.#strings ??= new Set());
      if (strings.has(s)) return true;
      strings.add(s);
      return false;
    }
    if (2 * (this.#count + 1) > this.#keys.length) this.#grow();
    if (this.#insert(key)) return true;
    this.#count++;
    return false;
  }

  /** Inserts `key`; whether it was there already. */
  #insert(key: number): boolean {
    const keys = this.#keys;
    const stamps = this.#stamps;
    const mask = keys.length - 1;
    const generation = this.#generation;
    // address * 65536 + port < 2^48: mix its two halves.
    const hash = Math.imul((key >>> 0) ^ Math.imul((key / 4294967296) | 0, 0x85ebca6b), 0x9e3779b1);
    for (let slot = hash ^ (hash >>> 15); ; slot++) {
      slot &= mask;
      if (stamps[slot] !== generation) {
        stamps[slot] = generation;
        keys[slot] = key;
        return false;
      }
      if (keys[slot] === key) return true;
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const stamps = this.#stamps;
    const generation = this.#generation;
    this.#keys = new Float64Array(keys.length * 2);
    this.#stamps = new Int32Array(keys.length * 2);
    for (let k = 0; k < keys.length; k++) if (stamps[k] === generation) this.#insert(keys[k]);
  }
}

const FAST_VERSION_RE = /^IP Virtual Server version (\d+\.\d+\.\d+) \(size=(\d+)\)$/;
const FAST_COLUMNS = 'Prot LocalAddress:Port Scheduler Flags';
const FAST_SERVER_COLUMNS_RE = /^ +-> RemoteAddress:Port +Forward +Weight +ActiveConn +InActConn$/;
