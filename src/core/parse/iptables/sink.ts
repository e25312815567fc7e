// The one place that makes the iptables model: tables, chains, rules, chain commands, headers, symbols and
// references, and the capped diagnostics. The reference reader (reference.ts) and the accelerators
// (accelerators/) read the text and call it; neither creates a model object itself.
import type { Severity } from '../../model/diagnostics';
import { DiagnosticsCollector, type LineSink } from '../pipeline';
import { PlaceholderTally } from '../placeholders';
import { isBuiltinChain, type Chain, type ChainCommand, type HeaderLine, type IptablesBackend, type IptablesRuleset, type Rule, type RuleOperation, type Save, type Table } from '../../model/iptables';
import { lineRange, spanRanges, type Range } from '../../model/range';
import { Symbols } from '../../model/symbols';
import { t } from '../../l10n';
import { detached } from '../detach';
import type { LineStarts } from '../lines';
import { LineMap } from '../../model/line-map';
import { grown } from '../../model/compact/typed-arrays';
import { chainDefinition } from '../../model/compact/declarations';
import { ReferenceColumns } from '../../model/compact/references';
import { RuleFactRows } from '../../model/compact/rule-facts';
import { hasRuleFacts, RuleFactScanner, type FoundFacts } from './rule-facts';
import { ChainNode, RuleNode, RuleOwnerReference, withTransientRuleDetails, type RuleDetails, type RuleReader } from './nodes';

/** Roles of pending chain references; DEFINED marks a reference to a chain already declared when it was read. */
export const OWNER = 0;
export const JUMP = 1;
export const GOTO = 2;
export const DEFINED = 4;

/** See shortText. */
const SHORT_TEXTS = 4096;
/** How many chains after the last one nextDeclaredChain compares (chains without rules are skipped). */
const NEXT_CHAINS = 3;
/** How far moveChainCursor looks for the chain found. */
const CURSOR_SEARCH = 64;

/** What the line breaks of a text mean to iptables-restore, which reads lines with fgets (ending at \n only). */
export interface LineEndings {
  finalBreak: boolean;
  /** Whether any line starts a table (`*…`): without one, `-A` lines are an `iptables -S` paste. */
  tableLines: boolean;
  /** The first line it fails on because of a carriage return: our line number, CRLF or lone CR, the table named. */
  firstFailure?: { line: number; crlf: boolean; table?: string };
}

/** Reads a rule's line again into its details (the reference reader). */
export interface DetailsReader {
  details(rule: RuleNode): RuleDetails;
}

export class IptablesSink implements RuleReader, LineSink {
  // Hints alone left out come from a real dump (a truncated one leaves thousands of chains unused): no doubt then.
  private readonly diagnostics = new DiagnosticsCollector({
    problems: (n) => t('{0} more problems were not reported; is this really an iptables-save dump?', n),
    hints: (n) => t('{0} more hints were not reported.', n),
  });
  /** LineSink: the line being read (set before the accelerators are tried). */
  line = 0;
  readonly symbols: Symbols;
  readonly tables: Table[] = [];
  readonly tableById = new Map<string, Table>();
  readonly saves: Save[] = [];
  readonly headers: HeaderLine[] = [];
  readonly ruleByLine = new LineMap<Rule>();
  table: Table | undefined;
  save: Save;
  private saveHasTables = false;
  // Chain references read before every chain is known, checked at the end (resolveReferences). In columns: a
  // large dump has 300,000 of them, and as objects they would all live until then.
  private readonly pendingTable: Table[] = [];
  private readonly pendingName: string[] = [];
  private readonly pendingRule: RuleNode[] = [];
  /** The columns of the name's token on the rule's line. */
  private pendingStart = new Int32Array(1024);
  private pendingEnd = new Int32Array(1024);
  private pendingRole = new Uint8Array(1024);
  /** Jumps and gotos as symbol references: columns, not an object each (300,000 in a large dump). */
  private readonly referenceColumns = new ReferenceColumns();
  private pendingCount = 0;
  /** Whether any save in the file came from iptables-save (a header) rather than hand-written restore input. */
  sawSaveHeader = false;
  /** One copy of each module and target name. */
  private readonly names = new Map<string, string>();
  /** The rule whose details are being read again (no diagnostics, symbols or new rules then). */
  reading: RuleNode | undefined;
  /** The chain of the last rule read. */
  lastChain: Chain | undefined;
  /** Where in its table's chains kubeRule last found the chain of a run of rules (see nextDeclaredChain). */
  private chainCursor = -1;
  private cursorTable: Table | undefined;
  /** The chain the last rule kubeRule read jumps to (kube-proxy's rules jump to KUBE-MARK-MASQ one after the other). */
  lastJump: Chain | undefined;
  /** An `iptables -S` / `-L` paste was reported: its other lines are not reported one by one. */
  pasted = false;

  /** Anonymised addresses and MACs: one diagnostic for all of them. */
  private readonly placeholders = new PlaceholderTally();
  /** Short words seen last in each slot (see shortText): per parse, so no document's text outlives it. */
  private readonly shortTexts: (string | undefined)[] = new Array(SHORT_TEXTS).fill(undefined);
  /** What the Service catalog reads of the rules of `KUBE-*` chains (see rule-facts.ts). */
  readonly ruleFacts = new RuleFactRows();
  private factScanner: RuleFactScanner | undefined;
  /** Set by the reader once made: rules read their details again through it. */
  reader: DetailsReader | undefined;

  constructor(
    readonly lines: LineStarts,
    readonly endings: LineEndings,
  ) {
    this.symbols = new Symbols(lines.count);
    this.save = { index: 0, backend: 'unknown', family: 'ipv4' };
    this.saves.push(this.save);
    // Most lines of a dump are rules.
    this.ruleByLine.reserve(lines.count);
  }

  notePlaceholder(range: Range): void {
    if (this.reading === undefined) this.placeholders.note(range);
  }

  diag(range: Range, severity: Severity, code: string, message: string, unnecessary?: boolean): void {
    if (this.reading !== undefined) return; // reported by the first reading
    this.diagnostics.add(range, severity, code, message, unnecessary);
  }

  intern(s: string): string {
    const known = this.names.get(s);
    if (known !== undefined) return known;
    if (this.names.size < 10_000) this.names.set(s, s);
    return s;
  }

  /** The unquoted word of `text` from start to end. */
  plainValue(text: string, start: number, end: number): string {
    // Short slices are copies: keep one of each ("tcp", "random", "80").
    return end - start < 13 ? this.shortText(text, start, end) : text.slice(start, end);
  }

  /**
   * The line's text from start to end, as the string seen last time in the same place of a small table (found by
   * length and three characters, compared without slicing). Most options and short values of a dump repeat
   * ("--comment", "tcp", "statistic"): no copy is made of them, and the lookups that follow find the hash computed.
   */
  shortText(text: string, start: number, end: number): string {
    const length = end - start;
    if (length > 64) return text.slice(start, end); // not kept after the parse: a hostile line's long word
    const slot = (length * 31 + text.charCodeAt(start + 2) * 7 + text.charCodeAt(end - 1) * 131 + text.charCodeAt(start + (length >> 1))) & (SHORT_TEXTS - 1);
    const known = this.shortTexts[slot];
    if (known !== undefined && known.length === length && text.startsWith(known, start)) return known;
    const image = this.intern(text.slice(start, end));
    // The table is kept with the model: it must not keep the document's text alive through a slice of it.
    this.shortTexts[slot] = detached(image);
    return image;
  }

  /** After the last line: closes what is open, resolves the chain references, returns the model. */
  finish(): IptablesRuleset {
    const lines = this.lines;
    const count = lines.count;
    if (this.table) {
      const lastLine = count - 1;
      this.diag(this.table.headerRange, 'error', 'missing-commit', t('Table {0} is not closed by COMMIT: iptables-restore would reject the file.', this.table.name));
      this.table.range = spanRanges(this.table.headerRange, lineRange(lastLine, 0, lines.line(lastLine)?.length ?? 0));
      this.table = undefined;
    }
    for (const table of this.tables) for (const chain of table.chains) this.endChain(chain);
    this.resolveReferences();
    // The `-A CHAIN` of every rule as a reference: found by position (hover, F12, colours), never by name, and
    // made when asked rather than kept (one object per rule). Only model objects are captured, not the builder.
    const rulesByLine = this.ruleByLine;
    const tables = this.tables;
    this.symbols.derive({
      at: (line) => {
        const rule = rulesByLine.get(line);
        return rule === undefined ? undefined : new RuleOwnerReference(rule as RuleNode);
      },
      *all() {
        for (const tb of tables) for (const rule of tb.rules) yield new RuleOwnerReference(rule as RuleNode);
      },
    });
    this.pendingTable.length = 0;
    this.pendingName.length = 0;
    this.pendingRule.length = 0;
    this.pendingStart = new Int32Array(0);
    this.pendingEnd = new Int32Array(0);
    this.pendingRole = new Uint8Array(0);
    this.pendingCount = 0;
    withTransientRuleDetails(() => this.inferFamilies());
    this.ruleFacts.trim();
    this.factScanner = undefined;
    const placeholders = this.placeholders.diagnostic();
    if (placeholders) this.diagnostics.items.push(placeholders);
    const diagnostics = this.diagnostics.close();
    const first = this.saves.find((s) => s.producer) ?? this.saves[0];
    return {
      dialect: 'iptables',
      producer: first.producer,
      backend: first.backend,
      family: first.family,
      saves: this.saves.filter((s, i) => i === 0 || this.tables.some((tb) => tb.saveIndex === s.index) || s.headerRange),
      tables: this.tables,
      tableById: this.tableById,
      headers: this.headers,
      diagnostics,
      symbols: this.symbols,
      ruleByLine: this.ruleByLine,
      lineCount: lines.count,
    };
  }

  /** `*name`: a new table, in a new save when this one has a table of that name. */
  openTable(name: string, nameRange: Range, headerRange: Range, range: Range): Table {
    if (this.tables.some((tb) => tb.saveIndex === this.save.index && tb.name === name)) {
      // Concatenated saves without headers: a repeated table name starts the next one.
      this.startSave();
    }
    const id = `${this.save.index}/${name}`;
    const table: Table = {
      id,
      name,
      family: this.save.family,
      saveIndex: this.save.index,
      headerRange,
      range,
      chains: [],
      chainByName: new Map(),
      rules: [],
      commands: [],
    };
    this.saveHasTables = true;
    this.tables.push(table);
    this.tableById.set(id, table);
    this.table = table;
    this.symbols.define({ kind: 'table', name, scope: String(this.save.index), range: nameRange, fullRange: table.range });
    return table;
  }

  /** COMMIT on line i closes the open table. */
  commitTable(i: number, range: Range): void {
    const table = this.table!;
    table.commitRange = range;
    this.closeTable(i);
    const def = this.symbols.definitions.findLast((d) => d.kind === 'table' && d.name === table.name && d.scope === String(table.saveIndex));
    if (def) def.fullRange = table.range;
  }

  /** A `# Generated by TOOL vVERSION (BACKEND)` header: the save it opens (a new one after another tool's tables). */
  saveHeader(tool: string, version: string | undefined, backend: IptablesBackend, text: string, range: Range): void {
    // iptables-save writes a header before every table; only another tool (e.g. ip6tables-save after
    // iptables-save) starts the next concatenated save here. A repeated table name does so in openTable.
    if (this.saveHasTables && this.save.tool !== tool) this.startSave();
    this.save.tool = tool;
    this.save.version = version;
    this.save.producer = version ? `${tool} v${version}` : tool;
    this.save.backend = backend;
    this.save.family = tool.startsWith('ip6') ? 'ipv6' : 'ipv4';
    this.save.headerRange = range;
    this.sawSaveHeader = true;
    this.header('generated', text, range);
  }

  header(kind: HeaderLine['kind'], text: string, range: Range): void {
    this.headers.push({ kind, text, range, saveIndex: this.save.index });
  }

  command(table: Table, command: ChainCommand): void {
    table.commands.push(command);
  }

  /**
   * The chain a rule line names from start to end of `text` (unquoted; the line starts at `lineStart`), made if new:
   * the last rule's chain or one of the next declared ones found without slicing, else looked up by name.
   */
  ruleChain(table: Table, i: number, text: string, start: number, end: number, lineStart = 0): Chain {
    const last = this.lastChain;
    const sameChain = last !== undefined && last.tableId === table.id && end - start === last.name.length && text.startsWith(last.name, start);
    let chain: Chain | undefined = sameChain ? last : this.nextDeclaredChain(table, text, start, end);
    if (chain === undefined) {
      const chainName = this.plainValue(text, start, end);
      chain = table.chainByName.get(chainName) ?? this.addChain(table, chainName, lineRange(i, start - lineStart, end - lineStart));
      this.moveChainCursor(table, chain);
    }
    this.lastChain = chain;
    return chain;
  }

  /** A rule on line i of `chain`, its chain named from column start to end (not yet in its chain: see rule). */
  newRule(
    table: Table,
    chain: Chain,
    operation: RuleOperation,
    position: number | undefined,
    i: number,
    chainToken: number,
    offsets: number[] | undefined,
    noted: number | undefined,
    start: number,
    end: number,
  ): RuleNode {
    const rule = new RuleNode(chain as ChainNode, operation, position, i, chainToken, offsets, noted);
    // Reported in resolveReferences if the chain never gets declared.
    if (!chain.declared && !chain.builtin) this.pend(table, chain.name, rule, start, end, OWNER);
    return rule;
  }

  /** The rule's `-j`/`-g` target `name` (columns start to end): `known` is the chain of that name if there is one yet. */
  ruleTarget(table: Table, rule: RuleNode, name: string, known: Chain | undefined, isExtension: boolean, goto: boolean, start: number, end: number): void {
    if (!isExtension) {
      // A chain declared (or built in) now stays so: resolveReferences need not look it up again.
      const defined = known !== undefined && (known.declared || known.builtin);
      this.pend(table, name, rule, start, end, (goto ? GOTO : JUMP) | (defined ? DEFINED : 0), known);
    }
    if (known !== undefined && !isExtension) rule.targetsChain(known as ChainNode);
    else rule.targetName = name;
  }

  /** Adds the rule read for the first time on line i (`text`) at the end of its chain, with the facts the catalog reads. */
  rule(table: Table, chain: Chain, rule: RuleNode, i: number, text: string): void {
    this.addRule(table, chain, rule, i);
    if (hasRuleFacts(chain.name)) (this.factScanner ??= new RuleFactScanner()).fill(this.ruleFacts, i, text);
  }

  /** rule() for a reader that found the rule's facts itself (`found`, read when the chain has facts). */
  ruleWithFacts(table: Table, chain: Chain, rule: RuleNode, i: number, found: FoundFacts): void {
    this.addRule(table, chain, rule, i);
    if (hasRuleFacts(chain.name)) found.addTo(this.ruleFacts, i);
  }

  private addRule(table: Table, chain: Chain, rule: RuleNode, i: number): void {
    table.rules.push(rule);
    (chain as ChainNode).addRule(rule);
    this.ruleByLine.set(i, rule);
  }

  /** RuleReader: the text of a line. */
  lineText(line: number): string {
    return this.lines.line(line) ?? '';
  }

  /** RuleReader: the rule's line read again, into objects this time. */
  details(rule: RuleNode): RuleDetails {
    return this.reader!.details(rule);
  }

  /**
   * iptables-save prints the rules chain by chain, in the order it declares the chains: the chain of a new run of
   * rules is mostly one of the next declared ones, found without a lookup in a map of 100,000 names (docs/performance.md#memory).
   * The chain named from start to end of the text if it is one of them (as chainByName has it), else undefined.
   */
  nextDeclaredChain(table: Table, text: string, start: number, end: number): Chain | undefined {
    const chains = table.chains;
    const from = this.cursorTable === table ? this.chainCursor + 1 : 0;
    const to = Math.min(chains.length, from + NEXT_CHAINS);
    for (let k = from; k < to; k++) {
      const name = chains[k].name;
      if (name.length === end - start && text.startsWith(name, start)) {
        this.cursorTable = table;
        this.chainCursor = k;
        return chains[k];
      }
    }
    return undefined;
  }

  /** After a lookup: the cursor of nextDeclaredChain follows the chain found if it comes soon after the cursor. */
  moveChainCursor(table: Table, chain: Chain): void {
    const chains = table.chains;
    const from = this.cursorTable === table ? this.chainCursor + 1 : 0;
    const to = Math.min(chains.length, from + CURSOR_SEARCH);
    for (let k = from; k < to; k++) {
      if (chains[k] === chain) {
        this.cursorTable = table;
        this.chainCursor = k;
        return;
      }
    }
  }

  /**
   * A chain's full range ends at its last rule, unless that rule came before the chain's (last) declaration: found
   * once all lines are read rather than noted for each run of rules (no map of 100,000 chains, docs/performance.md#memory).
   */
  private endChain(chain: Chain): void {
    const rules = chain.rules;
    if (rules.length === 0) return;
    const last = rules[rules.length - 1] as RuleNode;
    // A declaration restarts the chain's range; rules are on lines of their own, after the ones read before.
    const declaration = chain.declared ? chain.range : undefined;
    if (declaration !== undefined && last.line < declaration.start.line) return;
    const fullRange = last.range;
    const range = declaration ?? chain.range;
    chain.fullRange = spanRanges(range.start.line <= fullRange.start.line ? range : fullRange, fullRange);
    // Exact size: an array grown by push keeps room for about 16 entries, and most chains hold one to three.
    if (rules.length < 16) chain.rules = rules.slice();
  }

  /**
   * `iptables -S` (`-P INPUT ACCEPT`, `-N X`, `-A …` without *table and COMMIT) or `iptables -L` output: one
   * diagnostic naming the format, not one per line (list formats are not read yet).
   */
  listPaste(range: Range, format: 'S' | 'L'): void {
    if (this.pasted) return;
    this.pasted = true;
    if (format === 'S') {
      this.diag(
        range,
        'error',
        'list-format',
        t(
          'This looks like `iptables -S` output, not `iptables-save`: without *table and COMMIT lines iptables-restore cannot read it, and neither can this extension yet. Save the rules with iptables-save (or put *filter, or the table listed with -t, before them and COMMIT after them).',
        ),
      );
    } else {
      this.diag(
        range,
        'error',
        'list-format',
        t('This looks like `iptables -L` output, not `iptables-save`: a listing for reading, which iptables-restore cannot load and this extension does not read yet. Save the rules with iptables-save instead.'),
      );
    }
  }

  private startSave(): void {
    this.save = { index: this.saves.length, backend: 'unknown', family: 'ipv4' };
    this.saves.push(this.save);
    this.saveHasTables = false;
  }

  closeTable(lastLine: number): void {
    const table = this.table!;
    table.range = spanRanges(table.headerRange, lineRange(lastLine, 0, this.lines.line(lastLine)?.length ?? 0));
    this.table = undefined;
  }

  requireTable(range: Range): Table | undefined {
    if (!this.table && !(this.pasted && this.tables.length === 0)) {
      this.diag(range, 'error', 'outside-table', t('This line is outside a table: a *filter, *nat, *mangle, *raw or *security line must come first.'));
    }
    return this.table;
  }

  ensureChain(table: Table, name: string, range: Range): Chain {
    return table.chainByName.get(name) ?? this.addChain(table, name, range);
  }

  /** A new chain (none of that name in the table yet). */
  addChain(table: Table, name: string, range: Range): Chain {
    const chain = new ChainNode(name, table.id, isBuiltinChain(table.name, name), range, this);
    table.chainByName.set(name, chain);
    table.chains.push(chain);
    return chain;
  }

  declareChain(table: Table, name: string, lineRangeOfDecl: Range, nameRange: Range): Chain {
    const existing = table.chainByName.get(name);
    if (existing?.declared && !existing.deletedAt) {
      this.diag(nameRange, 'warning', 'duplicate-chain', t('Chain {0} is declared twice in table {1}.', name, table.name));
      return existing;
    }
    // One lookup per declaration: a large dump declares 100,000 chains.
    const chain = existing ?? this.addChain(table, name, nameRange);
    chain.declared = true;
    chain.range = lineRangeOfDecl;
    chain.nameRange = nameRange;
    chain.fullRange = lineRangeOfDecl;
    chain.deletedAt = undefined;
    const definition = chainDefinition(name, table.id, nameRange, lineRangeOfDecl, chain.builtin);
    // Chains stay in their table's map once made and table ids are not reused: a new chain's name has no definition.
    if (existing === undefined) this.symbols.defineNew(definition, nameRange.start.line);
    else this.symbols.define(definition, nameRange.start.line);
    return chain;
  }

  /** `start`, `end`: the columns of the name on the rule's line; `chain`: the chain a jump or goto names, when it exists already. */
  pend(table: Table, name: string, rule: RuleNode, start: number, end: number, role: number, chain?: Chain): void {
    // The chains jumps and gotos name are marked (here those that exist when read, in resolveReferences the others):
    // what the unreferenced-chain hints ask of 100,000 chains, without a lookup of each name among the references.
    if (chain !== undefined) (chain as ChainNode).markJumpedTo();
    const k = this.pendingCount++;
    if (k === this.pendingStart.length) {
      this.pendingStart = grown(this.pendingStart, k * 2);
      this.pendingEnd = grown(this.pendingEnd, k * 2);
      this.pendingRole = grown(this.pendingRole, k * 2);
    }
    this.pendingTable.push(table);
    this.pendingName.push(name);
    this.pendingRule.push(rule);
    this.pendingStart[k] = start;
    this.pendingEnd[k] = end;
    this.pendingRole[k] = role;
  }

  private resolveReferences(): void {
    const strict = this.sawSaveHeader;
    const reported = new Set<string>();
    for (let k = 0; k < this.pendingCount; k++) {
      const table = this.pendingTable[k];
      const name = this.pendingName[k];
      const rule = this.pendingRule[k];
      const role = this.pendingRole[k] & 3;
      let defined = (this.pendingRole[k] & DEFINED) !== 0;
      if (!defined) {
        const chain = table.chainByName.get(name);
        defined = chain !== undefined && (chain.declared || chain.builtin);
        if (chain !== undefined && role !== OWNER) (chain as ChainNode).markJumpedTo();
      }
      const range = lineRange(rule.line, this.pendingStart[k], this.pendingEnd[k]);
      if (role !== OWNER) this.symbols.indexColumn(this.referenceColumns, this.referenceColumns.push('chain', name, table.id, role === GOTO ? 'goto' : 'jump', range));
      if (defined) continue;
      const key = `${table.id}\u0000${name}\u0000${rule.line}`;
      if (reported.has(key)) continue;
      reported.add(key);
      const owner = role === OWNER;
      const message = owner
        ? strict
          ? t('Chain {0} is not declared in table {1}: iptables-restore would refuse this rule.', name, table.name)
          : t('Chain {0} is not declared in table {1}: iptables-restore accepts this only with --noflush when the chain already exists.', name, table.name)
        : strict
          ? t('No chain or target {0} in table {1}: iptables-restore would refuse the file.', name, table.name)
          : t('No chain or target {0} in table {1}: iptables-restore accepts this only with --noflush when the chain already exists.', name, table.name);
      this.diag(range, strict ? 'error' : 'warning', owner ? 'undeclared-chain' : 'undefined-chain', message);
    }
    for (const table of this.tables) {
      for (const chain of table.chains) {
        if (chain.builtin || !chain.declared || chain.deletedAt) continue;
        if ((chain as ChainNode).isJumpedTo() || isEntryChain(chain.name)) continue;
        this.diag(chain.nameRange, 'hint', 'unreferenced-chain', t('Nothing jumps to chain {0}: possibly stale.', chain.name), true);
      }
    }
  }

  private inferFamilies(): void {
    for (const save of this.saves) {
      if (save.tool) continue;
      const tables = this.tables.filter((tb) => tb.saveIndex === save.index);
      const v6 = tables.some((tb) =>
        tb.rules.some((r) => r.params.some((p) => (p.name === '-s' || p.name === '-d') && p.values[0]?.includes(':')) || r.matches.some((m) => m.module === 'icmp6' || m.module === 'ipv6header')),
      );
      save.family = v6 ? 'ipv6' : 'ipv4';
    }
    for (const table of this.tables) table.family = this.saves[table.saveIndex]?.family ?? table.family;
  }
}

/**
 * kube-proxy's (and Docker's) top-level chains are entered from built-in chains that restore input omits; canary
 * chains (kube-proxy's, kubelet's, Weave Net's WEAVE-CANARY) are empty on purpose and never jumped to: an agent
 * watches for them to vanish to learn that the tables were flushed.
 */
function isEntryChain(name: string): boolean {
  return (
    /^KUBE-(SERVICES|POSTROUTING|FORWARD|FIREWALL|EXTERNAL-SERVICES|PROXY-FIREWALL|NODEPORTS|IPTABLES-HINT|MARK-MASQ|MARK-DROP|NODE-PORT|LOAD-BALANCER|LOOP-BACK|SOURCE-RANGES-FIREWALL|IPVS-FILTER|IPVS-OUT-FILTER)$/.test(
      name,
    ) ||
    /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*-CANARY$/.test(name) ||
    /^(DOCKER|DOCKER-USER|DOCKER-ISOLATION-STAGE-\d)$/.test(name)
  );
}
