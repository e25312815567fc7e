// The match and target summaries of an `iptables -L` rule row (`/* ns/svc */ tcp dpt:80 to:10.0.0.1:80`), read
// back into the options iptables-save would print for them. Each module's summary is what its `print` function
// writes (iptables' extensions/libxt_*.c and libipt_*.c, `print` as against `save`): the words are known, so
// they are read word by word; a summary not known here is kept as unread text (the rule then says so).

/** Columns [start, end) on the row's line. */
export type Span = [number, number];

export interface ListOption {
  name: string;
  negated: boolean;
  values: string[];
  /** The `!` (when negated), the words naming the option, each value. */
  bang?: Span;
  label: Span;
  spans: Span[];
}

export interface ListMatch {
  module: string;
  label: Span;
  options: ListOption[];
}

/** The words of a line from column `from`: their spans. */
export function wordsOf(text: string, from: number): Span[] {
  const out: Span[] = [];
  const re = /\S+/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** A cursor over the summary's words. */
export class Words {
  k = 0;
  constructor(
    readonly text: string,
    readonly spans: Span[],
  ) {}

  word(n = 0): string | undefined {
    const s = this.spans[this.k + n];
    return s === undefined ? undefined : this.text.slice(s[0], s[1]);
  }

  span(n = 0): Span {
    return this.spans[this.k + n];
  }

  get done(): boolean {
    return this.k >= this.spans.length;
  }
}

const opt = (name: string, label: Span, values: string[], spans: Span[], bang?: Span): ListOption => ({ name, negated: bang !== undefined, values, label, spans, bang });

/** A value word that may start with `!` (`dpt:!80`, `dst-type !LOCAL`): the option with the `!` split off. */
function valueOpt(name: string, label: Span, value: string, span: Span, bang?: Span): ListOption {
  if (value.startsWith('!')) return opt(name, label, [value.slice(1)], [[span[0] + 1, span[1]]], [span[0], span[0] + 1]);
  return opt(name, label, [value], [span], bang);
}

/** `spt:80`, `dpts:1:2`, `flags:…`, `option=N` words of the tcp, udp and sctp summaries. */
function portOption(word: string, s: Span): ListOption | undefined {
  const m = /^(spts?|dpts?|flags|option)([:=])(.*)$/.exec(word);
  if (!m) return undefined;
  const label: Span = [s[0], s[0] + m[1].length];
  const value: Span = [s[0] + m[1].length + 1, s[1]];
  const name = m[1].startsWith('s') ? '--sport' : m[1].startsWith('d') ? '--dport' : m[1] === 'option' ? '--tcp-option' : '--tcp-flags';
  if (name !== '--tcp-flags') return valueOpt(name, label, m[3], value);
  const bang: Span | undefined = m[3].startsWith('!') ? [value[0], value[0] + 1] : undefined;
  const [mask, comp] = m[3].replace(/^!/, '').split('/');
  return opt(name, label, [tcpFlags(mask), tcpFlags(comp ?? '')], [value, value], bang);
}

const TCP_FLAGS: [string, number][] = [
  ['FIN', 1],
  ['SYN', 2],
  ['RST', 4],
  ['PSH', 8],
  ['ACK', 16],
  ['URG', 32],
];

/** `0x17` (numeric listing) as iptables-save's names; names stay. */
function tcpFlags(value: string): string {
  if (!/^0x[0-9a-f]+$/i.test(value)) return value;
  const bits = parseInt(value, 16);
  if (bits === 0) return 'NONE';
  if ((bits & 0x3f) === 0x3f) return 'ALL';
  return TCP_FLAGS.filter(([, b]) => bits & b)
    .map(([n]) => n)
    .join(',');
}

type MatchReader = (w: Words, bang: Span | undefined) => ListMatch | undefined;

/** `/* text *\/`: the comment match (the text may hold spaces). */
const comment: MatchReader = (w) => {
  const label = w.span();
  const rest = w.text.indexOf(' */', label[1]);
  const end = rest < 0 ? w.text.trimEnd().length : rest;
  const value: Span = [Math.min(label[1] + 1, end), end];
  while (!w.done && w.span()[0] < end + 1) w.k++;
  if (rest >= 0) w.k++; // the `*/`
  return { module: 'comment', label, options: [opt('--comment', label, [w.text.slice(value[0], value[1])], [value])] };
};

/** `tcp dpt:80`, `udp spts:1:2`, `sctp dpt:80`. */
const ports: MatchReader = (w) => {
  const module = w.word()!;
  const label = w.span();
  w.k++;
  const options: ListOption[] = [];
  for (let o = w.done ? undefined : portOption(w.word()!, w.span()); o; o = w.done ? undefined : portOption(w.word()!, w.span())) {
    options.push(o);
    w.k++;
  }
  return { module, label, options };
};

/** `multiport dports 80,443` (`sports`, `ports`; `!` before the list). */
const multiport: MatchReader = (w) => {
  const label = w.span();
  const options: ListOption[] = [];
  w.k++;
  while (/^(dports|sports|ports)$/.test(w.word() ?? '')) {
    const name = `--${w.word()}`;
    const l = w.span();
    w.k++;
    const bang = w.word() === '!' ? w.span() : undefined;
    if (bang) w.k++;
    if (w.done) break;
    options.push(valueOpt(name, l, w.word()!, w.span(), bang));
    w.k++;
  }
  return { module: 'multiport', label, options };
};

/** Words naming an option and its values: `mode random`, `seconds: 10800`, `every 2`. */
function pairs(w: Words, table: Record<string, [string, number]>, module: string, label: Span): ListMatch {
  const options: ListOption[] = [];
  while (!w.done) {
    const negated = w.word() === '!' && table[w.word(1) ?? ''] !== undefined;
    const bang = negated ? w.span() : undefined;
    const key = w.word(negated ? 1 : 0)!;
    const entry = table[key];
    if (entry === undefined) break;
    w.k += negated ? 1 : 0;
    const l = w.span();
    const [name, count] = entry;
    if (count === 0) {
      options.push(opt(name, l, [], [], bang));
      w.k++;
      continue;
    }
    if (w.word(1) === undefined) break;
    const value = w.word(1)!;
    if (count === 1 && name.startsWith('--') && value.startsWith('!')) options.push(valueOpt(name, l, value, w.span(1)));
    else options.push(opt(name, l, [value], [w.span(1)], bang));
    w.k += 2;
  }
  return { module, label, options };
}

const STATISTIC: Record<string, [string, number]> = { mode: ['--mode', 1], probability: ['--probability', 1], every: ['--every', 1], packet: ['--packet', 1] };
const RECENT: Record<string, [string, number]> = {
  SET: ['--set', 0],
  CHECK: ['--rcheck', 0],
  UPDATE: ['--update', 0],
  REMOVE: ['--remove', 0],
  'seconds:': ['--seconds', 1],
  reap: ['--reap', 0],
  'hit_count:': ['--hitcount', 1],
  'TTL-Match': ['--rttl', 0],
  'name:': ['--name', 1],
  'mask:': ['--mask', 1],
};
const CONNTRACK: Record<string, [string, number]> = Object.fromEntries(
  ['ctstate', 'ctstatus', 'ctproto', 'ctorigsrc', 'ctorigdst', 'ctreplsrc', 'ctrepldst', 'ctorigsrcport', 'ctorigdstport', 'ctreplsrcport', 'ctrepldstport', 'ctdir', 'ctexpire'].map((k) => [k, [`--${k}`, 1]]),
);
const ADDRTYPE: Record<string, [string, number]> = { 'src-type': ['--src-type', 1], 'dst-type': ['--dst-type', 1], 'limit-in': ['--limit-iface-in', 0], 'limit-out': ['--limit-iface-out', 0] };
const SET_FLAGS: Record<string, [string, number]> = {
  'return-nomatch': ['--return-nomatch', 0],
  'update-counters': ['--update-counters', 0],
  'update-subcounters': ['--update-subcounters', 0],
  'packets-eq': ['--packets-eq', 1],
  'packets-lt': ['--packets-lt', 1],
  'packets-gt': ['--packets-gt', 1],
  'bytes-eq': ['--bytes-eq', 1],
  'bytes-lt': ['--bytes-lt', 1],
  'bytes-gt': ['--bytes-gt', 1],
};
const PHYSDEV: Record<string, [string, number]> = Object.fromEntries(
  [
    ['--physdev-in', 1],
    ['--physdev-out', 1],
    ['--physdev-is-in', 0],
    ['--physdev-is-out', 0],
    ['--physdev-is-bridged', 0],
  ].map(([k, n]) => [k, [k as string, n as number]]),
);

/** A label word (or two: `mark match`), then pairs from `table`. */
function labelled(module: string, words: number, table: Record<string, [string, number]>): MatchReader {
  return (w) => {
    const label: Span = [w.span()[0], w.span(words - 1)[1]];
    w.k += words;
    return pairs(w, table, module, label);
  };
}

/** `recent: CHECK seconds: 10800 reap name: X side: source mask: 255.255.255.255`. */
const recent: MatchReader = (w, bang) => {
  const label = w.span();
  w.k++;
  const m = pairs(w, RECENT, 'recent', label);
  const side = w.word() === 'side:' ? w.word(1) : undefined;
  if (side !== undefined) {
    m.options.push(opt(side === 'dest' ? '--rdest' : '--rsource', w.span(), [], []));
    w.k += 2;
    m.options.push(...pairs(w, RECENT, 'recent', label).options);
  }
  if (bang && m.options[0]) Object.assign(m.options[0], { negated: true, bang });
  // iptables-save's order: the mask before the side.
  const mask = m.options.findIndex((o) => o.name === '--mask');
  const sideAt = m.options.findIndex((o) => o.name === '--rsource' || o.name === '--rdest');
  if (mask > sideAt && sideAt >= 0) m.options.splice(sideAt, 0, ...m.options.splice(mask, 1));
  return m;
};

/** `match-set NAME dst,dst` and its flags (`return-nomatch`, `! update-counters`…). */
const matchSet: MatchReader = (w, bang) => {
  const label = w.span();
  if (w.word(2) === undefined) return undefined;
  const option = opt('--match-set', label, [w.word(1)!, w.word(2)!], [w.span(1), w.span(2)], bang);
  w.k += 3;
  const m = pairs(w, SET_FLAGS, 'set', label);
  m.options.unshift(option);
  return m;
};

/** `mark match [!] 0x4000/0x4000`, `connmark match …`. */
function markMatch(module: string): MatchReader {
  return (w) => {
    const label: Span = [w.span()[0], w.span(1)[1]];
    w.k += 2;
    const bang = w.word() === '!' ? w.span() : undefined;
    if (bang) w.k++;
    if (w.done) return { module, label, options: [] };
    const o = opt('--mark', label, [w.word()!], [w.span()], bang);
    w.k++;
    return { module, label, options: [o] };
  };
}

/** A one-option summary: `state RELATED,ESTABLISHED`, `MAC 00:…`, `length 0:1500`, `PKTTYPE = unicast`. */
function single(module: string, option: string, words: number): MatchReader {
  return (w, bang) => {
    const label: Span = [w.span()[0], w.span(words - 1)[1]];
    w.k += words;
    const b = w.word() === '!' ? w.span() : bang;
    if (w.word() === '!') w.k++;
    if (w.done) return undefined;
    const o = valueOpt(option, label, w.word()!, w.span(), b);
    w.k++;
    return { module, label, options: [o] };
  };
}

/** `limit: avg 3/hour burst 5`. */
const limit: MatchReader = (w) => {
  const label = w.span();
  if (w.word(1) !== 'avg' || w.word(3) !== 'burst' || w.word(4) === undefined) return undefined;
  const options = [opt('--limit', w.span(1), [w.word(2)!], [w.span(2)])];
  // iptables-save leaves the default burst out.
  if (w.word(4) !== '5') options.push(opt('--limit-burst', w.span(3), [w.word(4)!], [w.span(4)]));
  w.k += 5;
  return { module: 'limit', label, options };
};

/** `source IP range A-B`, `destination IP range A-B`. */
const iprange: MatchReader = (w) => {
  const options: ListOption[] = [];
  let label: Span | undefined;
  while ((w.word() === 'source' || w.word() === 'destination') && w.word(1) === 'IP' && w.word(2) === 'range') {
    const l: Span = [w.span()[0], w.span(2)[1]];
    label ??= l;
    const name = w.word() === 'source' ? '--src-range' : '--dst-range';
    w.k += 3;
    const bang = w.word() === '!' ? w.span() : undefined;
    if (bang) w.k++;
    if (w.done) break;
    options.push(opt(name, l, [w.word()!], [w.span()], bang));
    w.k++;
  }
  return label ? { module: 'iprange', label, options } : undefined;
};

/** `icmptype 8`, `icmptype 3 code 4`, `ipv6-icmptype 128` (numeric listings), as `--icmp-type 3/4`. */
function icmp(module: string, option: string): MatchReader {
  return (w, bang) => {
    const label = w.span();
    if (w.word(1) === undefined) return undefined;
    const code = w.word(2) === 'code' && w.word(3) !== undefined;
    const value = code ? `${w.word(1)}/${w.word(3)}` : w.word(1)!;
    const spans: Span[] = [code ? [w.span(1)[0], w.span(3)[1]] : w.span(1)];
    w.k += code ? 4 : 2;
    return { module, label, options: [opt(option, label, [value], spans, bang)] };
  };
}

/** The reader of the summary starting at the cursor's word (after any `!`), or undefined. */
function matchReader(w: Words, at: number): MatchReader | undefined {
  const word = w.word(at);
  const next = w.word(at + 1);
  switch (word) {
    case '/*':
      return comment;
    case 'tcp':
    case 'udp':
    case 'sctp':
    case 'udplite':
      return ports;
    case 'multiport':
      return multiport;
    case 'statistic':
      return labelled('statistic', 1, STATISTIC);
    case 'recent:':
      return recent;
    case 'match-set':
      return matchSet;
    case 'mark':
      return next === 'match' ? markMatch('mark') : undefined;
    case 'connmark':
      return next === 'match' ? markMatch('connmark') : undefined;
    case 'ADDRTYPE':
      return next === 'match' ? labelled('addrtype', 2, ADDRTYPE) : undefined;
    case 'PHYSDEV':
      return next === 'match' ? labelled('physdev', 2, PHYSDEV) : undefined;
    case 'state':
      return single('state', '--state', 1);
    case 'MAC':
      return single('mac', '--mac-source', 1);
    case 'length':
      return single('length', '--length', 1);
    case 'PKTTYPE':
      return next === '=' ? single('pkttype', '--pkt-type', 2) : undefined;
    case 'limit:':
      return limit;
    case 'source':
    case 'destination':
      return iprange;
    case 'icmptype':
      return icmp('icmp', '--icmp-type');
    case 'ipv6-icmptype':
      return icmp('icmp6', '--icmpv6-type');
  }
  return word !== undefined && CONNTRACK[word] !== undefined ? (x) => pairs(x, CONNTRACK, 'conntrack', x.span()) : undefined;
}

/** Reads the matches at the cursor, as many as it knows, in order. */
export function readMatches(w: Words): ListMatch[] {
  const out: ListMatch[] = [];
  while (!w.done) {
    const negated = w.word() === '!';
    const reader = matchReader(w, negated ? 1 : 0);
    if (reader === undefined) break;
    const from = w.k;
    const bang = negated ? w.span() : undefined;
    if (negated) w.k++;
    // `! ctstate X`: the pairs reader reads the `!` itself.
    if (negated && CONNTRACK[w.word() ?? ''] !== undefined) w.k--;
    const m = reader(w, bang);
    if (m === undefined || w.k === from) {
      w.k = from;
      break;
    }
    out.push(m);
  }
  return out;
}

const MARK_OPS = /^(set|or|and|xor|xset)$/;

/** `MARK or 0x4000` as iptables-save's `--set-xmark value/mask` (libxt_MARK's print against its save). */
function xmark(op: string, value: string): string {
  const full = 0xffffffff;
  if (op === 'xset') return value.includes('/') ? value : `${value}/0xffffffff`;
  const v = Number(value) >>> 0;
  const hex = (n: number) => `0x${(n >>> 0).toString(16)}`;
  if (op === 'set') return `${hex(v)}/${hex(full)}`;
  if (op === 'or') return `${hex(v)}/${hex(v)}`;
  if (op === 'and') return `0x0/${hex(~v)}`;
  return `${hex(v)}/0x0`;
}

/** Flags the NAT targets print after their ranges. */
const NAT_FLAGS: Record<string, [string, number]> = { random: ['--random', 0], 'random-fully': ['--random-fully', 0], persistent: ['--persistent', 0] };

/** `to:10.0.0.1:80` words of DNAT (`--to-destination`) and SNAT (`--to-source`), then their flags. */
function natTarget(w: Words, name: string): ListOption[] {
  const out: ListOption[] = [];
  while (w.word()?.startsWith('to:')) {
    const s = w.span();
    out.push(opt(name, [s[0], s[0] + 3], [w.word()!.slice(3)], [[s[0] + 3, s[1]]]));
    w.k++;
  }
  return out.concat(pairs(w, NAT_FLAGS, '', w.span() ?? [0, 0]).options);
}

/** `masq ports: 1024-65535` / `redir ports 8080`, then the flags. */
function portsTarget(w: Words, label: string): ListOption[] {
  const out: ListOption[] = [];
  const portsWord = label === 'masq' ? 'ports:' : 'ports';
  if (w.word() === label && w.word(1) === portsWord && w.word(2) !== undefined) {
    out.push(opt('--to-ports', [w.span()[0], w.span(1)[1]], [w.word(2)!], [w.span(2)]));
    w.k += 3;
  }
  return out.concat(pairs(w, NAT_FLAGS, '', w.span() ?? [0, 0]).options);
}

/** The target's summary at the cursor as iptables-save's options; what it does not know is left unread. */
export function readTarget(w: Words, target: string): ListOption[] {
  const word = w.word();
  switch (target) {
    case 'DNAT':
      return natTarget(w, '--to-destination');
    case 'SNAT':
      return natTarget(w, '--to-source');
    case 'MASQUERADE':
      return portsTarget(w, 'masq');
    case 'REDIRECT':
      return portsTarget(w, 'redir');
    case 'MARK':
    case 'CONNMARK':
      if (word !== target || !MARK_OPS.test(w.word(1) ?? '') || w.word(2) === undefined) return [];
      w.k += 3;
      return [opt('--set-xmark', [w.span(-3)[0], w.span(-2)[1]], [xmark(w.word(-2)!, w.word(-1)!)], [w.span(-1)])];
    case 'REJECT':
      if (word !== 'reject-with' || w.word(1) === undefined) return [];
      w.k += 2;
      return [opt('--reject-with', w.span(-2), [w.word(-1)!], [w.span(-1)])];
    case 'TCPMSS':
      if (word === 'TCPMSS' && w.word(1) === 'clamp' && w.word(3) === 'PMTU') {
        w.k += 4;
        return [opt('--clamp-mss-to-pmtu', [w.span(-4)[0], w.span(-1)[1]], [], [])];
      }
      return [];
    case 'LOG':
      return logTarget(w);
    case 'CT':
      if (word === 'CT' && w.word(1) === 'notrack') {
        w.k += 2;
        return [opt('--notrack', w.span(-1), [], [])];
      }
      return [];
  }
  return [];
}

/** `LOG flags 0 level 6 prefix "text "`: the level and the prefix (the flags are the --log-tcp-… options). */
function logTarget(w: Words): ListOption[] {
  if (w.word() !== 'LOG' || w.word(1) !== 'flags' || w.word(3) !== 'level' || w.word(4) === undefined) return [];
  const out = [opt('--log-level', w.span(3), [w.word(4)!], [w.span(4)])];
  w.k += 5;
  if (w.word() === 'prefix' && w.word(1)?.startsWith('"')) {
    const open = w.span(1)[0];
    const close = w.text.indexOf('"', open + 1);
    if (close > open) {
      out.unshift(opt('--log-prefix', w.span(), [w.text.slice(open + 1, close)], [[open, close + 1]]));
      while (!w.done && w.span()[0] <= close) w.k++;
    }
  }
  return out;
}
