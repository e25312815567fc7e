// The one way hover and explanation Markdown is written. Dump text is untrusted (dumps come from strangers'
// bug reports), so the only ways to put it in are `text` (every ASCII punctuation character escaped: no link,
// image, autolink, HTML or emphasis can start) and `code` (a code span its content cannot close). Everything
// else is code-supplied: template literals, translated messages whose arguments are themselves Md, and links
// to commands the code names, recorded so that the editor enables exactly those.
import { t } from '../l10n';
import type { Range } from '../model/range';

/** Markdown that is safe to render: built only by the functions of this module. */
export type Md = string & { readonly __markdown: unique symbol };

/** The Service port a hover describes. */
export interface HoverService {
  namespace: string;
  name: string;
  portName: string;
  protocol: string;
  family: 'ipv4' | 'ipv6';
}

/** The commands a hover may link to. */
export type HoverCommand = 'dataplane.tracePacket' | 'dataplane.showGraph';

const lit = (s: string) => s as Md;

/**
 * Dump text as literal Markdown text, on one line. Escaped: every character that can open a link, image, HTML,
 * emphasis or table cell, what would start an autolink (`://`, `www.`, `@`) and a block marker at the start.
 * Other punctuation stays as it is, so addresses and names read (and search) as in the dump.
 */
export function text(s: string): Md {
  const escaped = oneLine(s)
    .replace(/[\\`*_[\]<>!&|~@]|:(?=\/\/)|(?<=www)\./gi, (c) => `\\${c}`)
    .replace(/^(\d*)([#+\-]|(?<=\d)[.)])(?=\s|$)/, (_, digits: string, mark: string) => `${digits}\\${mark}`);
  return lit(escaped);
}

/**
 * Dump text as a code span. Backslash escapes do not work inside code spans, so the text is kept as it is and the
 * fence is one backtick longer than the longest backtick run in it; a space pads a leading or trailing backtick.
 */
export function code(s: string): Md {
  const clean = oneLine(s);
  if (clean === '') return lit('');
  const runs = clean.match(/`+/g) ?? [];
  const fence = '`'.repeat(1 + runs.reduce((n, r) => Math.max(n, r.length), 0));
  const pad = /^[` ]|[` ]$/.test(clean) && clean.trim() !== '' ? ' ' : '';
  return lit(`${fence}${pad}${clean}${pad}${fence}`);
}

/** Bold of Markdown already built. */
export function bold(m: Md): Md {
  return m === '' ? m : lit(`**${m}**`);
}

/** A template literal whose constant parts are the code's Markdown and whose values must be Md or numbers. */
export function md(strings: TemplateStringsArray, ...values: (Md | number)[]): Md {
  let out = strings[0];
  values.forEach((v, k) => (out += String(v) + strings[k + 1]));
  return lit(out);
}

/**
 * A translated message (trusted Markdown, like the English key) with Md or number arguments. An argument that the
 * message (or its translation) places inside a code span loses its backslash escapes there, since a code span shows
 * them literally (`0\.5`); one that would then hold a backtick keeps them, so it cannot close the span.
 */
export function mdT(message: string, ...args: (Md | number)[]): Md {
  const template = t(message, ...args.map((_, k) => `\u0000${k}\u0000`));
  const spans = template.includes('`') ? codeSpans(template) : [];
  const filled = template.replace(/\u0000(\d+)\u0000/g, (_, k: string, at: number) => {
    const value = String(args[Number(k)]);
    if (!spans.some(([from, to]) => at > from && at < to)) return value;
    const literal = value.replace(/\\([!-/:-@[-`{-~])/g, '$1');
    return literal.includes('`') ? value : literal;
  });
  return lit(filled);
}

/** The [start, end) offsets of the code spans of one line of Markdown: a backtick run closed by one as long. */
export function codeSpans(s: string): [number, number][] {
  const spans: [number, number][] = [];
  const runs = [...s.matchAll(/(?<!\\)`+/g)];
  for (let k = 0; k < runs.length; k++) {
    const close = runs.findIndex((r, j) => j > k && r[0].length === runs[k][0].length);
    if (close < 0) continue;
    spans.push([runs[k].index!, runs[close].index! + runs[close][0].length]);
    k = close;
  }
  return spans;
}

export function join(parts: readonly Md[], separator: '\n' | '\n\n' | ' · ' | ', ' | ' ' = '\n'): Md {
  return lit(parts.join(separator));
}

/** Lines of Markdown that may carry command links: the commands are those its links were made for. */
export class MarkdownBuilder {
  readonly lines: Md[] = [];
  private readonly used = new Set<HoverCommand>();
  /** The Service port described (the first), so the editor can add its API side from the cluster state. */
  service?: HoverService;

  push(...lines: Md[]): this {
    for (const l of lines) this.lines.push(l);
    return this;
  }

  /** A link that runs `command` with `args` (JSON, URI-encoded; Markdown link delimiters encoded too). */
  commandLink(label: Md, command: HoverCommand, args: unknown[], title: string): Md {
    this.used.add(command);
    const arg = encodeURIComponent(JSON.stringify(args)).replace(/[()'!*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    return lit(`[${label}](command:${command}?${arg} "${title.replace(/["\\]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ')}")`);
  }

  get commands(): HoverCommand[] {
    return [...this.used];
  }

  markdown(): Md {
    return join(this.lines);
  }
}

/** A hover of what `out` holds over `range`, with its commands and Service when it has them. */
export function hoverOf(out: MarkdownBuilder, range: Range): { markdown: Md; range: Range; commands?: HoverCommand[]; service?: HoverService } {
  return { markdown: out.markdown(), range, ...(out.commands.length > 0 ? { commands: out.commands } : {}), ...(out.service ? { service: out.service } : {}) };
}

function oneLine(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, ' ');
}
