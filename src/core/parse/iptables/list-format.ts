// `iptables -L [-t TABLE] [-n] [-v] [-x] [--line-numbers]` output (and ip6tables'), read into the same model as
// iptables-save through the same sink: `Chain X (policy P …)` / `Chain X (N references)` headers declare the
// chains, the column header line says which columns the rows have (iptables' print_header), and each row
// (print_firewall) becomes the rule iptables-save would print: its columns the basic parameters, its match and
// target summaries read back by list-summary.ts. Rules keep their row as their line and read it again for their
// details, like the rules of a save. What the listing cannot say (interfaces without -v, summaries not known
// here, rounded counters, names instead of numbers) is noted on the model and said once in a diagnostic.
import type { Chain, Counters, ListingLoss, Table } from '../../model/iptables';
import { lineRange, type Range } from '../../model/range';
import { t } from '../../l10n';
import { readLines } from '../pipeline';
import { promptCommand } from '../prompt';
import { NEGATED_BEFORE, MatchNode, OptionNode, TargetNode, type RuleDetails, type RuleNode } from './nodes';
import { LIST_CHAIN_HEADER, pastedCommand } from './paste-format';
import { newRun, noteChain, openRunTable, type PastedRun } from './spec-format';
import type { DetailsReader, IptablesSink } from './sink';
import { targetKindOf, TARGET_EXTENSION_NAMES, VERDICTS } from './vocabulary';
import { readMatches, readTarget, wordsOf, Words, type ListMatch, type ListOption, type Span } from './list-summary';

/** Which columns the rows under a column header line have. */
interface Layout {
  num: boolean;
  counters: boolean;
  opt: boolean;
  via: boolean;
}

const COLUMN_HEADER = /^\s*(num\s+)?(pkts\s+bytes\s+)?target\s+prot\s+(opt\s+)?(in\s+out\s+)?source\s+destination\s*$/;
const PROTOCOLS: Record<string, string> = { '1': 'icmp', '6': 'tcp', '17': 'udp', '58': 'ipv6-icmp', '132': 'sctp', '136': 'udplite', '50': 'esp', '51': 'ah', '47': 'gre', icmpv6: 'ipv6-icmp' };
const PROTOCOL_WORD = /^!?(all|tcp|udp|udplite|icmp|icmpv6|ipv6-icmp|esp|ah|sctp|mh|gre|\d+)$/;
const PARAM_ORDER = ['-s', '-d', '-i', '-o', '-p', '-f'];
const COUNT = /^(\d+)([KMGT]?)$/;
const SCALE: Record<string, number> = { '': 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** A rule row read: its counters, target, parameters, matches and target options, in columns of its line. */
interface Row {
  counters?: { packets: number; bytes: number; span: Span };
  target?: { name: string; span: Span };
  goto: boolean;
  params: ListOption[];
  matches: ListMatch[];
  targetOptions: ListOption[];
  /** What the reader did not understand: the columns of the unread summary. */
  unread?: Span;
  losses: ListingLoss[];
}

function count(word: string | undefined, losses: ListingLoss[]): number | undefined {
  const m = word === undefined ? null : COUNT.exec(word);
  if (!m) return undefined;
  if (m[2]) losses.push('counters');
  return Number(m[1]) * SCALE[m[2]];
}

/** A `-s`/`-d` column: absent when any address, else the value as iptables-save prints it (with its prefix). */
function addressParam(name: string, word: string, s: Span, losses: ListingLoss[]): ListOption | undefined {
  const negated = word.startsWith('!');
  const value = negated ? word.slice(1) : word;
  if (value === '0.0.0.0/0' || value === '::/0' || value === 'anywhere') return undefined;
  const v: Span = [s[0] + (negated ? 1 : 0), s[1]];
  let saved = value;
  if (!value.includes('/')) {
    if (/^[\d.]+$/.test(value)) saved = `${value}/32`;
    else if (value.includes(':')) saved = `${value}/128`;
    else losses.push('names');
  }
  return { name, negated, values: [saved], label: s, spans: [v], bang: negated ? [s[0], s[0] + 1] : undefined };
}

/** `-i`/`-o` columns: `*` (`any` without -n) is any. */
function interfaceParam(name: string, word: string, s: Span): ListOption | undefined {
  if (word === '*' || word === 'any') return undefined;
  const negated = word.startsWith('!');
  return { name, negated, values: [negated ? word.slice(1) : word], label: s, spans: [[s[0] + (negated ? 1 : 0), s[1]]], bang: negated ? [s[0], s[0] + 1] : undefined };
}

/** Reads a rule row; a string is the problem when its columns are not those of the layout. */
function readRow(text: string, layout: Layout): Row | string {
  const words = wordsOf(text, 0);
  const w = new Words(text, words);
  const row: Row = { goto: false, params: [], matches: [], targetOptions: [], losses: [] };
  if (layout.num && !/^\d+$/.test(w.word() ?? '')) return t('a rule number');
  if (layout.num) w.k++;
  if (layout.counters) {
    const packets = count(w.word(), row.losses);
    const bytes = count(w.word(1), row.losses);
    if (packets === undefined || bytes === undefined) return t('packet and byte counters');
    row.counters = { packets, bytes, span: [w.span()[0], w.span(1)[1]] };
    w.k += 2;
  }
  // An empty target column (a rule without -j): the protocol comes first, then no second protocol.
  if (!(PROTOCOL_WORD.test(w.word() ?? '') && !PROTOCOL_WORD.test(w.word(1) ?? ''))) {
    if (w.done) return t('a target');
    row.target = { name: w.word()!, span: w.span() };
    w.k++;
  }
  const prot = w.word();
  if (prot === undefined || !PROTOCOL_WORD.test(prot)) return t('a protocol');
  protocolParam(row, prot, w.span());
  w.k++;
  if (layout.opt && /^[-!][-f]$/.test(w.word() ?? '')) {
    if (w.word()!.endsWith('f')) row.params.push({ name: '-f', negated: w.word()!.startsWith('!'), values: [], label: w.span(), spans: [] });
    w.k++;
  }
  if (layout.via) {
    if (w.word(1) === undefined) return t('the in and out interfaces');
    for (const name of ['-i', '-o']) {
      const p = interfaceParam(name, w.word()!, w.span());
      if (p) row.params.push(p);
      w.k++;
    }
  } else row.losses.push('interfaces');
  if (w.word(1) === undefined) return t('the source and destination');
  for (const name of ['-s', '-d']) {
    const p = addressParam(name, w.word()!, w.span(), row.losses);
    if (p) row.params.push(p);
    w.k++;
  }
  // iptables-save's order of the parameters.
  row.params.sort((a, b) => PARAM_ORDER.indexOf(a.name) - PARAM_ORDER.indexOf(b.name));
  readSummaries(w, row);
  return row;
}

function protocolParam(row: Row, word: string, s: Span): void {
  const negated = word.startsWith('!');
  const name = negated ? word.slice(1) : word;
  if (name === 'all' || name === '0') return;
  row.params.push({ name: '-p', negated, values: [PROTOCOLS[name] ?? name], label: s, spans: [[s[0] + (negated ? 1 : 0), s[1]]], bang: negated ? [s[0], s[0] + 1] : undefined });
}

/** The summaries after the destination: `[goto]`, the matches, the target's. */
function readSummaries(w: Words, row: Row): void {
  if (w.word() === '[goto]') {
    row.goto = true;
    w.k++;
  }
  row.matches = readMatches(w);
  if (row.target) row.targetOptions = readTarget(w, row.target.name);
  // Matches printed after an unknown one are not found again: the rest of the line is unread.
  if (!w.done) {
    row.unread = [w.span()[0], w.spans[w.spans.length - 1][1]];
    row.losses.push('summaries');
  }
}

/** Token numbers of a row's parts: where the rule's options and matches find their ranges. */
class Tokens {
  readonly offsets: number[] = [0, 0];

  add(s: Span): number {
    this.offsets.push(s[0], s[1]);
    return this.offsets.length / 2 - 1;
  }

  /** The option's tokens: `!`, its label, its values; its label token. */
  option(o: ListOption): number {
    if (o.negated) this.add(o.bang ?? o.label);
    const token = this.add(o.label);
    for (const s of o.spans) this.add(s);
    return token;
  }
}

/** The row's parts with their token numbers, and the nodes when `rule` is given (the details). */
function assemble(row: Row, rule: RuleNode | undefined): { offsets: number[]; details?: RuleDetails } {
  const tokens = new Tokens();
  const node = (o: ListOption): OptionNode | undefined => {
    const token = tokens.option(o);
    const last = tokens.offsets.length / 2 - 1;
    return rule && new OptionNode(o.name, o.negated, o.values, rule, token, last, o.negated ? NEGATED_BEFORE : 0);
  };
  const params = row.params.map(node);
  const matches = row.matches.map((m) => {
    const first = tokens.add(m.label);
    const options = m.options.map(node);
    const match = rule && new MatchNode(m.module, rule, first, tokens.offsets.length / 2 - 1, first, false);
    if (match) match.options = options as OptionNode[];
    return match;
  });
  if (row.unread) {
    const first = tokens.add(row.unread);
    const value = tokens.add(row.unread);
    const match = rule && new MatchNode('unread', rule, first, value, first, false);
    if (match) match.options = [new OptionNode('--summary', false, [rule!.raw.slice(row.unread[0], row.unread[1])], rule!, first, value, 0)];
    matches.push(match);
  }
  let target: TargetNode | undefined;
  if (row.target) {
    const nameToken = tokens.add(row.target.span);
    const options = row.targetOptions.map(node);
    if (rule) {
      const isChain = !isExtensionTarget(row.target.name);
      target = new TargetNode(targetKindOf(row.target.name, isChain, row.goto), row.target.name, rule, nameToken, nameToken, tokens.offsets.length / 2 - 1);
      target.options = options as OptionNode[];
    }
  }
  if (!rule) return { offsets: tokens.offsets };
  const counters: Counters | undefined = row.counters && { packets: row.counters.packets, bytes: row.counters.bytes, range: lineRange(rule.line, row.counters.span[0], row.counters.span[1]) };
  return { offsets: tokens.offsets, details: { params: params as OptionNode[], matches: matches as MatchNode[], target, counters } };
}

function isExtensionTarget(name: string): boolean {
  return TARGET_EXTENSION_NAMES.has(name) || VERDICTS.has(name) || name === 'RETURN';
}

/** The runs of an `iptables -L` paste: a prompt line, or a built-in chain after user chains or again, starts the next. */
function listRuns(sink: IptablesSink): PastedRun[] {
  const runs: PastedRun[] = [];
  let run: PastedRun | undefined;
  let userChains = false;
  let targetAt = -1;
  for (let i = 0; i < sink.lines.count; i++) {
    const text = sink.lines.line(i) ?? '';
    const command = pastedCommand(text);
    const header = command ? null : LIST_CHAIN_HEADER.exec(text);
    const builtin = header?.[2] !== undefined;
    if (command || (header && (run === undefined || (builtin && (userChains || run.builtins.has(header[1])))))) {
      runs.push((run = newRun(i, command)));
      userChains = false;
    }
    if (header && run) {
      noteChain(run, header[1]);
      userChains ||= !builtin;
      continue;
    }
    const columns = COLUMN_HEADER.exec(text);
    if (columns) targetAt = (columns[1] ? 1 : 0) + (columns[2] ? 2 : 0);
    else if (run && targetAt >= 0 && /^\s*\S/.test(text)) {
      const target = text.trim().split(/\s+/)[targetAt];
      if (target && !PROTOCOL_WORD.test(target)) run.targets.add(target);
    }
  }
  return runs;
}

export class ListReader implements DetailsReader {
  /** The layouts of the column header lines, by line. */
  private readonly layouts: { line: number; layout: Layout }[] = [];
  private layout: Layout | undefined;
  private chain: Chain | undefined;
  readonly losses = new Set<ListingLoss>();

  constructor(private readonly sink: IptablesSink) {
    sink.reader = this;
  }

  /** Reads `text` (the document the sink's lines cut) on the shared line loop: a listing has no accelerators. */
  read(text: string): void {
    const sink = this.sink;
    const runs = new Map(listRuns(sink).map((r) => [r.start, r]));
    const reference = (i: number, start: number, end: number) => {
      const run = runs.get(i);
      if (run !== undefined) {
        openRunTable(sink, run, 'L');
        this.chain = undefined;
      }
      this.line(i, text.slice(start, end));
    };
    readLines(text, { sink, accelerators: [], reference });
    if (sink.table) sink.closeTable(sink.lines.count - 1);
    this.reportLosses();
  }

  private line(i: number, text: string): void {
    if (text.trim() === '') return;
    const range = lineRange(i, 0, text.trimEnd().length);
    if (text.startsWith('#') || promptCommand(text) !== undefined) {
      this.sink.header('comment', text, range);
      return;
    }
    const header = LIST_CHAIN_HEADER.exec(text);
    if (header) return this.chainHeader(i, text, header);
    const columns = COLUMN_HEADER.exec(text);
    if (columns) {
      this.layout = { num: !!columns[1], counters: !!columns[2], opt: !!columns[3], via: !!columns[4] };
      this.layouts.push({ line: i, layout: this.layout });
      return;
    }
    const table = this.sink.table;
    if (!table || !this.chain || !this.layout) {
      this.sink.diag(range, 'error', 'not-list', t('This line is not `iptables -L` output: neither a chain header, a column header nor a rule row under them.'));
      return;
    }
    const row = readRow(text, this.layout);
    if (typeof row === 'string') {
      this.sink.diag(range, 'error', 'list-row', t('Not a rule row of `iptables -L` output: {0} is missing or not where the column header puts it.', row));
      return;
    }
    this.rowRule(i, table, row);
  }

  private chainHeader(i: number, text: string, header: RegExpExecArray): void {
    const table = this.sink.table!;
    const name = header[1];
    const nameRange = lineRange(i, 6, 6 + name.length);
    const chain = this.sink.declareChain(table, name, lineRange(i, 0, text.trimEnd().length), nameRange);
    this.chain = chain;
    if (header[2] === undefined) return;
    chain.policy = header[2];
    const packets = count(header[3], []);
    const bytes = count(header[4], []);
    if (header[3]?.match(/[KMGT]$/) || header[4]?.match(/[KMGT]$/)) this.losses.add('counters');
    if (packets !== undefined && bytes !== undefined) {
      const from = text.indexOf(header[3]!, 6 + name.length);
      chain.counters = { packets, bytes, range: lineRange(i, from, text.lastIndexOf('bytes') + 5) };
    }
  }

  private rowRule(i: number, table: Table, row: Row): void {
    const sink = this.sink;
    const chain = this.chain!;
    for (const loss of row.losses) this.losses.add(loss);
    if (row.unread) {
      sink.diag(
        lineRange(i, row.unread[0], row.unread[1]),
        'warning',
        'list-unread',
        t('This summary of `iptables -L` is not read: what the trace and the Service catalog conclude about this rule does not take it into account.'),
      );
    }
    const { offsets } = assemble(row, undefined);
    const rule = sink.newRule(table, chain, 'append', undefined, i, 0, offsets, undefined, 0, 0);
    if (row.target) {
      const name = sink.intern(row.target.name);
      const isExtension = isExtensionTarget(name);
      sink.ruleTarget(table, rule, name, table.chainByName.get(name), isExtension, row.goto, row.target.span[0], row.target.span[1]);
    }
    const d = row.params.find((p) => p.name === '-d');
    if (d && !d.negated) rule.plainDestination = d.values[0];
    sink.rule(table, chain, rule, i, rule.raw);
  }

  /** DetailsReader: the row read again, into objects. */
  details(rule: RuleNode): RuleDetails {
    let layout = this.layouts[0]?.layout;
    for (const l of this.layouts) if (l.line < rule.line) layout = l.layout;
    const row = layout ? readRow(rule.raw, layout) : undefined;
    const details = row === undefined || typeof row === 'string' ? undefined : assemble(row, rule).details;
    return details ?? { params: [], matches: [], target: undefined, counters: undefined };
  }

  /** What the listing could not say, once for the document. */
  private reportLosses(): void {
    const top: Range = lineRange(0, 0, 0);
    if (this.losses.has('interfaces')) {
      this.sink.diag(
        top,
        'warning',
        'list-no-interfaces',
        t(
          '`iptables -L` without -v does not print the in and out interfaces: rules are read as matching any interface, so trace paths and Services may appear that an interface match would exclude. List with -v for them.',
        ),
      );
    }
    if (this.losses.has('counters')) this.sink.diag(top, 'information', 'list-rounded-counters', t('Counters printed with K, M or G are rounded; list with -x for exact ones.'));
    if (this.losses.has('names')) this.sink.diag(top, 'warning', 'list-names', t('Addresses or ports are printed as names: list with -n for the numbers the trace and catalog need.'));
  }
}
