// The nftables part of the dataplane model (DESIGN §3). Built by core/parse/nft from `nft list ruleset`
// output, `nft -f` scripts and `nft -j` JSON; read by the trace, the kube catalog and the providers.
//
// The model holds the state the file leaves behind (what the kernel would hold after `nft -f`): deleted
// objects are gone from the lists, flushed rules and elements too. Every declaration and reference stays in
// `symbols`, and every flat command in `commands`, so editor features can still point at them.
import type { Diagnostic } from './diagnostics';
import type { Range } from './range';
import type { Symbols } from './symbols';
import { nameTable } from './name-table';

export type NftFamily = 'ip' | 'ip6' | 'inet' | 'arp' | 'bridge' | 'netdev';
export const NFT_FAMILIES: readonly NftFamily[] = ['ip', 'ip6', 'inet', 'arp', 'bridge', 'netdev'];

export function isNftFamily(word: string): word is NftFamily {
  return (NFT_FAMILIES as readonly string[]).includes(word);
}

// ---------------------------------------------------------------------------------------------------------
// Expressions

interface ExpressionBase {
  /** The expression as written (text form) or as nft would print it (JSON form). */
  text: string;
  range: Range;
}

/** A protocol header field: `ip daddr`, `tcp dport`, `th dport`, `ether type`, `hbh nexthdr`, raw `@th,16,16`. */
export interface NftPayloadExpression extends ExpressionBase {
  kind: 'payload';
  protocol: string;
  field: string;
}

/** `meta l4proto`, `meta mark`, and the unqualified forms (`mark`, `iifname`, …) under the same key. */
export interface NftMetaExpression extends ExpressionBase {
  kind: 'meta';
  key: string;
}

/** `ct state`, `ct mark`, `ct original ip saddr`, `ct reply proto-dst`. */
export interface NftCtExpression extends ExpressionBase {
  kind: 'ct';
  key: string;
  direction?: 'original' | 'reply';
  family?: 'ip' | 'ip6';
}

/** `fib daddr type`, `fib saddr . iif oif`. */
export interface NftFibExpression extends ExpressionBase {
  kind: 'fib';
  flags: string[];
  result: string;
}

/** `numgen random mod 2 [offset N]`: kube-proxy's endpoint selection (DESIGN §5, 1/N each). */
export interface NftNumgenExpression extends ExpressionBase {
  kind: 'numgen';
  mode: 'random' | 'inc';
  mod: number;
  offset?: number;
}

/** `jhash ip saddr . tcp dport mod 2 seed 0x1 offset 10`, `symhash mod 2`. */
export interface NftHashExpression extends ExpressionBase {
  kind: 'hash';
  function: 'jhash' | 'symhash';
  expr?: NftExpression;
  mod: number;
  seed?: number;
  offset?: number;
}

/** `a . b . c` */
export interface NftConcatExpression extends ExpressionBase {
  kind: 'concat';
  parts: NftExpression[];
}

export type NftBinaryOperator = '&' | '|' | '^' | '<<' | '>>';

/** `meta mark & 0x4000`, `meta mark | 0x4000` (`and`/`or`/`xor`/`lshift`/`rshift` normalised to symbols). */
export interface NftBinaryExpression extends ExpressionBase {
  kind: 'binop';
  op: NftBinaryOperator;
  left: NftExpression;
  right: NftExpression;
}

/** A constant: address, number, symbol (`tcp`, `established`, `local`) or string contents. */
export interface NftValueExpression extends ExpressionBase {
  kind: 'value';
  value: string;
  /** Written as a quoted string. */
  quoted?: boolean;
}

/** `10.0.0.0/8` */
export interface NftPrefixExpression extends ExpressionBase {
  kind: 'prefix';
  address: string;
  length: number;
}

/** `1024-65535`, `10.0.0.1-10.0.0.9` */
export interface NftRangeExpression extends ExpressionBase {
  kind: 'range';
  from: string;
  to: string;
}

/** A comma list of flags: `established,related` (`ct state established,related`). */
export interface NftListExpression extends ExpressionBase {
  kind: 'list';
  values: string[];
}

/** An anonymous set or map literal: `{ 22, 80 }`, `{ 0 : goto a, 1 : goto b }`. */
export interface NftSetExpression extends ExpressionBase {
  kind: 'set';
  elements: NftElement[];
}

/** `@name`: a named set or map (which one is resolved against the table). */
export interface NftSetRefExpression extends ExpressionBase {
  kind: 'setRef';
  name: string;
  /** The name without the `@`. */
  nameRange: Range;
}

/** `key map { … }` / `key map @name`: a lookup whose result is data (NAT targets, `meta mark set … map`). */
export interface NftMapExpression extends ExpressionBase {
  kind: 'map';
  key: NftExpression;
  map: NftSetExpression | NftSetRefExpression;
}

/** `$NAME`, with the value of its `define` when the file has one. */
export interface NftVariableExpression extends ExpressionBase {
  kind: 'variable';
  name: string;
  resolved?: NftExpression;
}

/** A verdict used as data (map values, JSON). */
export interface NftVerdictExpression extends ExpressionBase {
  kind: 'verdict';
  verdict: NftVerdictValue;
}

/** Anything else (`tcp option maxseg size`, `rt mtu`, `socket transparent`, …), kept as written. */
export interface NftRawExpression extends ExpressionBase {
  kind: 'raw';
}

export type NftExpression =
  | NftPayloadExpression
  | NftMetaExpression
  | NftCtExpression
  | NftFibExpression
  | NftNumgenExpression
  | NftHashExpression
  | NftConcatExpression
  | NftBinaryExpression
  | NftValueExpression
  | NftPrefixExpression
  | NftRangeExpression
  | NftListExpression
  | NftSetExpression
  | NftSetRefExpression
  | NftMapExpression
  | NftVariableExpression
  | NftVerdictExpression
  | NftRawExpression;

// ---------------------------------------------------------------------------------------------------------
// Statements

interface StatementBase {
  /** The statement as written (text form) or as nft would print it (JSON form). */
  text: string;
  range: Range;
}

export type NftRelationalOperator = '==' | '!=' | '<' | '>' | '<=' | '>=' | 'in';

/**
 * `left op right`. An implicit operator is `==`, or `in` when the right side is a set, a set reference, a
 * flag list, or a flag of a bitmask key (`ct state new`), as `nft -j` prints it. `negated` is true exactly
 * when the match succeeds on inequality or non-membership: `!=` against a value, or `!=` against a set
 * (then `op` is `in`).
 */
export interface NftMatchStatement extends StatementBase {
  kind: 'match';
  left: NftExpression;
  op: NftRelationalOperator;
  right: NftExpression;
  negated: boolean;
  /** No operator was written. */
  implicit: boolean;
}

export type NftVerdictKind = 'accept' | 'drop' | 'continue' | 'return' | 'jump' | 'goto' | 'queue';

export interface NftVerdictValue {
  kind: NftVerdictKind;
  /** For jump and goto. */
  chain?: string;
  chainRange?: Range;
}

export interface NftVerdictStatement extends StatementBase {
  kind: 'verdict';
  verdict: Exclude<NftVerdictKind, 'queue'>;
  chain?: string;
  chainRange?: Range;
}

/** `key vmap { … }` / `key vmap @name`. */
export interface NftVmapStatement extends StatementBase {
  kind: 'vmap';
  key: NftExpression;
  map: NftSetExpression | NftSetRefExpression;
}

export type NftNatType = 'dnat' | 'snat' | 'masquerade' | 'redirect';

export interface NftNatStatement extends StatementBase {
  kind: 'nat';
  type: NftNatType;
  /** `dnat ip to …` / `dnat ip6 to …` (needed in inet tables). */
  family?: 'ip' | 'ip6';
  /** The whole target as written after `to` (address, `addr:port`, `:port`, a map lookup). */
  to?: NftExpression;
  /** The address part of the target, or the map lookup that yields it. */
  addr?: NftExpression;
  /** The port part (`:80`, `:1024-2048`). */
  port?: NftExpression;
  /** `random`, `fully-random`, `persistent`, `netmap`. */
  flags: string[];
  /** `dnat ip addr . port to …` → ['addr', 'port']; `snat ip prefix to …` → ['prefix']; `interval`. */
  typeFlags?: string[];
}

/** `meta mark set …` / `mark set …` / `ct mark set …`. */
export interface NftMarkStatement extends StatementBase {
  kind: 'mark';
  target: 'meta mark' | 'ct mark';
  value: NftExpression;
}

/** Any other `selector set value` (`ip dscp set cs1`, `ct helper set "ftp"`, `meta nftrace set 1`). */
export interface NftMangleStatement extends StatementBase {
  kind: 'mangle';
  key: NftExpression;
  value: NftExpression;
}

export interface NftRejectStatement extends StatementBase {
  kind: 'reject';
  /** The text after `with`: `icmp type port-unreachable`, `tcp reset`, `icmpx admin-prohibited`. */
  with?: string;
  /** `icmp`, `icmpv6`, `icmpx` or `tcp reset`. */
  type?: string;
  /** The ICMP code (`port-unreachable`). */
  code?: string;
}

export interface NftCounterStatement extends StatementBase {
  kind: 'counter';
  packets?: number;
  bytes?: number;
  /** `counter name "x"`: a named counter object. */
  name?: string;
}

export interface NftLogStatement extends StatementBase {
  kind: 'log';
  prefix?: string;
  level?: string;
  group?: number;
  options: Record<string, string>;
}

export interface NftLimitStatement extends StatementBase {
  kind: 'limit';
  /** `10/second`, `2000 kbytes/second`. */
  rate?: string;
  over: boolean;
  burst?: string;
  name?: string;
}

export interface NftQuotaStatement extends StatementBase {
  kind: 'quota';
  /** `25 mbytes` */
  amount?: string;
  over: boolean;
  used?: string;
  name?: string;
}

/** A rule's `comment "…"` (also on NftRule.comment). */
export interface NftCommentStatement extends StatementBase {
  kind: 'comment';
  comment: string;
}

/** `add @set { ip saddr }`, `update @set { ip saddr timeout 10s }`, `delete @set { … }`, `set add ip saddr @s`. */
export interface NftSetUpdateStatement extends StatementBase {
  kind: 'setUpdate';
  op: 'add' | 'update' | 'delete';
  set: string;
  setRange: Range;
  key: NftExpression;
  /** Map updates: `update @m { ip saddr : tcp sport }`. */
  data?: NftExpression;
  timeout?: string;
  /** Statements attached to the element (`limit rate 10/second`, `counter`), as written. */
  statements: string[];
}

/** `xt match nfacct`, `xt target MASQUERADE`: an iptables extension iptables-nft could not translate. */
export interface NftXtStatement extends StatementBase {
  kind: 'xt';
  type: 'match' | 'target' | 'watcher';
  name: string;
}

/** Anything not typed above, kept verbatim. */
export interface NftRawStatement extends StatementBase {
  kind: 'raw';
}

export type NftStatement =
  | NftMatchStatement
  | NftVerdictStatement
  | NftVmapStatement
  | NftNatStatement
  | NftMarkStatement
  | NftMangleStatement
  | NftRejectStatement
  | NftCounterStatement
  | NftLogStatement
  | NftLimitStatement
  | NftQuotaStatement
  | NftCommentStatement
  | NftSetUpdateStatement
  | NftXtStatement
  | NftRawStatement;

// ---------------------------------------------------------------------------------------------------------
// Objects

export interface NftElement {
  /** One string per concatenated component; prefixes (`10.0.0.0/8`) and intervals (`1-9`) as one part each. */
  key: string[];
  /** Map data: a verdict for verdict maps, otherwise the value (components joined by ` . `). */
  value?: string | NftVerdictValue;
  timeout?: string;
  expires?: string;
  comment?: string;
  /** `counter packets N bytes M` and other per-element statements, as written. */
  statements?: string[];
  range: Range;
  keyRange: Range;
  valueRange?: Range;
}

interface NamedSetBase {
  name: string;
  tableId: string;
  /** One entry per concatenated component: type names (`ipv4_addr`) or, with `typeof`, expressions. */
  keyType: string[];
  /** Declared with `typeof` rather than `type`. */
  keyTypeof: boolean;
  flags: string[];
  timeout?: string;
  gcInterval?: string;
  size?: number;
  policy?: string;
  autoMerge?: boolean;
  comment?: string;
  handle?: number;
  /** Other declaration lines (`counter`, stateful statements), as written. */
  extra: string[];
  elements: NftElement[];
  /** The declaration line (`set x {` or the `add set` command). */
  range: Range;
  nameRange: Range;
  /** The whole declaration block. */
  fullRange: Range;
}

export interface NftSet extends NamedSetBase {
  kind: 'set';
}

export interface NftMap extends NamedSetBase {
  kind: 'map';
  /** `: verdict`, `: ipv4_addr . inet_service`, `: interval ipv4_addr` → ['ipv4_addr'] with dataInterval. */
  dataType: string[];
  dataTypeof: boolean;
  dataInterval?: boolean;
}

export type NamedSet = NftSet;
export type NamedMap = NftMap;
export type Element = NftElement;

export function isVerdictMap(map: NftMap): boolean {
  return map.dataType.length === 1 && map.dataType[0] === 'verdict';
}

export interface NftChainPriority {
  /** The number the kernel uses; undefined when a name is unknown for the family or hook. */
  value?: number;
  /** As written: `dstnat - 10`, `-110`, `filter`. */
  text: string;
  range: Range;
}

export interface NftChain {
  name: string;
  tableId: string;
  /** Base chains: `filter`, `nat`, `route`. */
  type?: string;
  hook?: string;
  device?: string;
  devices?: string[];
  priority?: NftChainPriority;
  policy?: string;
  comment?: string;
  flags: string[];
  handle?: number;
  rules: NftRule[];
  /** The declaration line (`chain x {`, or the first `add chain` / rule that created it). */
  range: Range;
  nameRange: Range;
  /** The whole block (or the declaring command). */
  fullRange: Range;
  /** Declared by a `chain` block or `add chain` (not only implied by a rule). */
  declared: boolean;
}

export function isBaseChain(chain: NftChain): boolean {
  return chain.hook !== undefined;
}

/**
 * The text parser's rules, chains, symbol definitions and references may be class instances that make `range`,
 * `raw` and `statements` when read (core/parse/nft/nodes.ts, docs/performance.md#memory): the values are the same on every read, the
 * objects are not, so compare ranges and statements by value and do not keep state on them.
 */
export interface NftRule {
  tableId: string;
  chain: string;
  /** 1-based position in the chain as the file leaves it. */
  index: number;
  statements: NftStatement[];
  /** The rule as written (statements through the comment, without an `add rule ip t c` prefix). */
  raw: string;
  range: Range;
  handle?: number;
  comment?: string;
}

export interface NftFlowtable {
  name: string;
  tableId: string;
  hook?: string;
  priority?: NftChainPriority;
  devices: string[];
  flags: string[];
  handle?: number;
  range: Range;
  nameRange: Range;
  fullRange: Range;
}

export type NftObjectKind = 'counter' | 'quota' | 'limit' | 'ct helper' | 'ct timeout' | 'ct expectation' | 'secmark' | 'synproxy';

export interface NftProperty {
  /** First word of the line (`protocol`, `policy`, `packets`, …), or '' for a bare value (`25 mbytes`). */
  name: string;
  /** The rest, as written. */
  value: string;
  text: string;
  range: Range;
}

/** Stateful objects: `counter c { … }`, `quota q { 25 mbytes }`, `ct helper h { type "ftp" protocol tcp }`. */
export interface NftObject {
  kind: NftObjectKind;
  name: string;
  tableId: string;
  comment?: string;
  properties: NftProperty[];
  handle?: number;
  range: Range;
  nameRange: Range;
  fullRange: Range;
}

export interface NftTable {
  /** `${family} ${name}`: also the scope of its chains, sets and maps in Symbols. */
  id: string;
  family: NftFamily;
  name: string;
  comment?: string;
  flags: string[];
  handle?: number;
  /** `# Warning: table ip nat is managed by iptables-nft, do not touch!` precedes it. */
  managedBy?: 'iptables-nft';
  chains: NftChain[];
  sets: NftSet[];
  maps: NftMap[];
  flowtables: NftFlowtable[];
  objects: NftObject[];
  chainByName: Map<string, NftChain>;
  setByName: Map<string, NftSet>;
  mapByName: Map<string, NftMap>;
  /** The `table … {` block through its `}` (or the declaring command). */
  range: Range;
  nameRange: Range;
  /** Declared by a table block or `add table` (not only named by other commands). */
  declared: boolean;
}

export interface NftDefine {
  name: string;
  /** The value as written. */
  value: string;
  expression?: NftExpression;
  range: Range;
  nameRange: Range;
}

export interface NftInclude {
  path: string;
  range: Range;
}

export type NftCommandVerb = 'add' | 'create' | 'insert' | 'replace' | 'delete' | 'destroy' | 'flush' | 'list' | 'reset' | 'rename' | 'other';

/** A flat command (`add rule ip t c …`, `flush ruleset`, `delete chain ip t c`); table blocks are not commands. */
export interface NftCommand {
  verb: NftCommandVerb;
  /** `table`, `chain`, `rule`, `set`, `map`, `element`, `ruleset`, `flowtable`, `counter`, … */
  object: string;
  family?: NftFamily;
  table?: string;
  name?: string;
  text: string;
  range: Range;
}

export interface NftCommentLine {
  text: string;
  range: Range;
  kind: 'warning' | 'shebang' | 'comment';
}

export interface NftRuleset {
  dialect: 'nftables';
  /** `nft v1.0.6` (from `nft -j` metainfo), `iptables-nft` (from its warning lines), or undefined. */
  producer?: string;
  /** Which parser built it. */
  format: 'text' | 'json';
  tables: NftTable[];
  tableById: Map<string, NftTable>;
  diagnostics: Diagnostic[];
  symbols: Symbols;
  lineCount: number;
  defines: NftDefine[];
  includes: NftInclude[];
  commands: NftCommand[];
  comments: NftCommentLine[];
  /** Rule by the 0-based line it starts on. */
  ruleByLine: Map<number, NftRule>;
}

// ---------------------------------------------------------------------------------------------------------
// Chain priorities

/** Standard priority names for ip, ip6 and inet (arp and netdev know only `filter`). */
export const STANDARD_PRIORITIES: Record<string, number> = nameTable({ raw: -300, mangle: -150, dstnat: -100, filter: 0, security: 50, srcnat: 100 });
/** The bridge family's own values. */
export const BRIDGE_PRIORITIES: Record<string, number> = nameTable({ dstnat: -300, filter: -200, out: 100, srcnat: 300 });

/**
 * The number behind a standard priority name for a family and hook, following nft's std_prio_lookup
 * (with the 1.0.9 relaxation that allows dstnat on output and srcnat on input); undefined when invalid.
 */
export function standardPriority(name: string, family: NftFamily, hook: string | undefined): number | undefined {
  if (family === 'bridge') {
    const value = BRIDGE_PRIORITIES[name];
    if (value === undefined) return undefined;
    if (name === 'filter') return value;
    if (hook === undefined) return value;
    if (name === 'dstnat') return hook === 'prerouting' ? value : undefined;
    if (name === 'out') return hook === 'output' ? value : undefined;
    return hook === 'postrouting' ? value : undefined;
  }
  const value = STANDARD_PRIORITIES[name];
  if (value === undefined) return undefined;
  if (name === 'filter') return family === 'arp' || family === 'netdev' || family === 'ip' || family === 'ip6' || family === 'inet' ? value : undefined;
  if (family !== 'ip' && family !== 'ip6' && family !== 'inet') return undefined;
  if (hook === undefined) return value;
  if (name === 'dstnat') return hook === 'prerouting' || hook === 'output' ? value : undefined;
  if (name === 'srcnat') return hook === 'postrouting' || hook === 'input' ? value : undefined;
  return value;
}

// ---------------------------------------------------------------------------------------------------------
// Helpers for readers of the model

/** Every statement of every rule of a chain, in order. */
export function* chainStatements(chain: NftChain): Generator<{ rule: NftRule; statement: NftStatement }> {
  for (const rule of chain.rules) for (const statement of rule.statements) yield { rule, statement };
}

/** The named set or map `@name` refers to in a table. */
export function lookupSetOrMap(table: NftTable, name: string): NftSet | NftMap | undefined {
  return table.mapByName.get(name) ?? table.setByName.get(name);
}

/** Chain names a verdict expression, map element or statement can continue in. */
export function verdictTargets(statement: NftStatement): NftVerdictValue[] {
  if (statement.kind === 'verdict') return statement.chain ? [{ kind: statement.verdict, chain: statement.chain, chainRange: statement.chainRange }] : [{ kind: statement.verdict }];
  if (statement.kind === 'vmap' && statement.map.kind === 'set') {
    return statement.map.elements.flatMap((e) => (e.value && typeof e.value !== 'string' ? [e.value] : []));
  }
  return [];
}
