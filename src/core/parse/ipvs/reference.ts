// The ipvsadm reference reader: what a line of `ipvsadm -L[n]` output (plain, --stats, --rate, --thresholds,
// --persistent-conn, --tun-info), of an `ipvsadm -L[n]c` connection table or of `ipvsadm -S[n]` / `ipvsadm -R`
// input means, read the plain way. Start here to learn the dialect.
//
// 1. Tokens (lexer.ts): a line is cut into words, endpoints, `->`, options and comments.
// 2. Grammar (grammar.ts, a Chevrotain CstParser): a line is a version or column title, a service line (`TCP
//    10.96.0.10:53 rr`), a firewall mark service, a real server (`-> 10.244.1.5:8080 Masq 1 0 0`), a connection
//    entry, a timeout line or a restore command (`-A -t 10.96.0.10:53 -s rr`).
// 3. Visitor (lineOf in grammar.ts): the concrete syntax tree → a typed LineCst (kind, tokens, command items).
// 4. The sink (sink.ts) makes the model of it: what each column says, what a command does to the services.
//
// Listings pasted one after another, and prompts pasted with them, are told apart by the sink (blocks).
// The accelerators (accelerators/*.ts) read the plain listing's lines faster and must make the same model: the
// harness test (test/unit/parse-accelerators.test.ts) parses every input both ways.
import type { IpvsFormat } from '../../model/ipvs';
import { lineRange, type Range } from '../../model/range';
import { LINE_LIMITS, lineProblem } from '../pipeline';
import { promptCommand } from '../prompt';
import { IpvsLineParser, lineOf, type LineCst } from './grammar';
import { lineLexer } from './lexer';
import type { IpvsSink } from './sink';
import { DAEMON_RE } from './vocabulary';

// Built on first parse, not at load: the grammar self-analysis costs milliseconds the extension's activation
// does not have (docs/performance.md#accelerators). One instance, reused with a new input per line (Chevrotain's
// performance guide).
let parserInstance: IpvsLineParser | undefined;
const lineParser = (): IpvsLineParser => (parserInstance ??= new IpvsLineParser());

/** The Chevrotain parser, to release its last input after a parse (see releaseInputs). */
export const referenceParser = (): IpvsLineParser | undefined => parserInstance;

function lineExtent(i: number, text: string): Range {
  const start = text.length - text.trimStart().length;
  return lineRange(i, start, Math.max(start, text.trimEnd().length));
}

/** Reads line `i` (its text) into the sink. */
export function readLine(sink: IpvsSink, i: number, text: string): void {
  if (text.trim() === '') return;
  const problem = lineProblem(i, text, LINE_LIMITS.ipvsadm);
  if (problem !== undefined) {
    sink.diag(problem.range, problem.severity, problem.code, problem.message);
    return;
  }
  const extent = lineExtent(i, text);
  const command = promptCommand(text);
  if (command !== undefined) {
    sink.prompt(text, extent, ipvsadmCommand(command));
    return;
  }
  if (/^\s*#/.test(text)) {
    sink.comment(text, extent);
    return;
  }
  if (DAEMON_RE.test(text.trim())) {
    sink.daemon(text.trim(), extent);
    return;
  }
  // 1. Tokens.
  const lexed = lineLexer.tokenize(text);
  if (lexed.errors.length > 0 || lexed.tokens.length === 0) {
    sink.notIpvsadm(extent);
    return;
  }
  // 2. Grammar, then 3. the visitor.
  const parser = lineParser();
  parser.input = lexed.tokens;
  const cst = parser.line();
  const parsed = parser.errors.length === 0 ? lineOf(cst) : undefined;
  if (!parsed) {
    sink.notIpvsadm(extent);
    return;
  }
  // 4. The sink.
  dispatch(sink, i, text, parsed, extent);
  sink.lineRead(parsed.kind);
}

/** What a pasted `[sudo] ipvsadm …` command prints (undefined for another command). */
function ipvsadmCommand(command: string): { format: IpvsFormat | undefined; persistentConn: boolean } | undefined {
  const words = command.trim().split(/\s+/);
  if (words[0] === 'sudo') words.shift();
  if (words[0] !== 'ipvsadm') return undefined;
  const long = new Set(words.filter((w) => w.startsWith('--')));
  const letters = new Set(words.filter((w) => /^-[A-Za-z]+$/.test(w)).flatMap((w) => [...w.slice(1)]));
  let format: IpvsFormat | undefined;
  if (letters.has('S') || long.has('--save')) format = 'save';
  else if (letters.has('c') || long.has('--connection')) format = 'connections';
  else if (long.has('--stats')) format = 'stats';
  else if (long.has('--rate')) format = 'rate';
  else if (long.has('--thresholds')) format = 'thresholds';
  else if (long.has('--persistent-conn')) format = 'persistent-conn';
  else if (long.has('--tun-info')) format = 'tun-info';
  else if (letters.has('L') || letters.has('l') || long.has('--list')) format = 'list';
  return { format, persistentConn: long.has('--persistent-conn') };
}

function dispatch(sink: IpvsSink, i: number, text: string, line: LineCst, extent: Range): void {
  const tokens = line.tokens;
  switch (line.kind) {
    case 'comment':
      sink.comment(text, extent);
      return;
    case 'version': {
      const size = /^\(size=(\d+)\)$/.exec(tokens[2]?.image ?? '');
      sink.versionTitle(i, tokens[1]?.image, size ? Number(size[1]) : undefined, text.trim(), extent);
      return;
    }
    case 'columns': {
      const words = new Set(tokens.map((tk) => tk.image));
      const format: IpvsFormat = words.has('Conns') ? 'stats' : words.has('CPS') ? 'rate' : words.has('Uthreshold') ? 'thresholds' : words.has('PersistConn') ? 'persistent-conn' : 'list';
      sink.columnTitles(i, format, text.trim(), extent);
      return;
    }
    case 'connectionsHeader':
      sink.connectionsTitle(i, text.trim(), extent);
      return;
    case 'connectionColumns':
      sink.connectionColumnTitles(i, tokens.some((tk) => tk.image === 'pe' || tk.image === 'pe_data') ? 8 : 6, text.trim(), extent);
      return;
    case 'timeout':
      sink.timeoutLine(
        tokens.slice(1).map((tk) => Number(tk.image)),
        text.trim(),
        extent,
      );
      return;
    case 'realServer':
      if (tokens[1]?.image === 'RemoteAddress:Port')
        sink.realServerTitles(
          tokens.some((tk) => tk.image === 'TunnelInfo'),
          text.trim(),
          extent,
        );
      else sink.realServerLine(i, text, tokens, extent);
      return;
    case 'service':
    case 'fwmarkService':
      sink.serviceLine(i, line.kind === 'fwmarkService', tokens, extent);
      return;
    case 'connection':
      sink.connectionLine(i, tokens, extent);
      return;
    case 'command':
      sink.commandLine(i, text, line.items ?? [], extent);
      return;
  }
}
