// Shell prompt lines pasted with a dump (`root@node1:~# nft -j list ruleset`, `$ sudo ipvsadm -Ln`): not part of
// what the tool printed. Shared by the readers that skip them.
import { LineSpans } from './lines';

/** A user@host or [user@host dir]# prompt, or `$ `, followed by a command. */
const USER_PROMPT_RE = /^\s*(?:\[[^\]]*\]\s?[#$]|[\w.-]+@[\w.-]+(?::[^\s#$]*)?\s?[#$%>])\s*(.*)$/;
const PLAIN_PROMPT_RE = /^\s*[$%>❯]\s+(.*)$/;
/** `# ipvsadm -Ln` is a root prompt, `# any other text` a comment. */
const ROOT_PROMPT_RE = /^\s*#\s*((?:sudo\s+)?(?:ipvsadm|ipset|iptables|ip6tables|iptables-save|ip|nft|kubectl|cat|watch|ssh|docker|crictl)\b.*)$/;

/** The command of a shell prompt line ('' for a bare prompt), or undefined when the line is no prompt. */
export function promptCommand(line: string): string | undefined {
  const m = USER_PROMPT_RE.exec(line) ?? PLAIN_PROMPT_RE.exec(line) ?? ROOT_PROMPT_RE.exec(line);
  return m ? (m[1] ?? '') : undefined;
}

/** A line of a text: its offsets, without the line break. */
export interface LineSpan {
  start: number;
  end: number;
}

/** How many lines at either end of a text are looked at for prompts (detection reads as many). */
const MAX_PROMPT_LINES = 50;

/**
 * Where the tool's own output starts in a pasted terminal session: the first line that is neither blank nor a
 * prompt; `prompts` are the prompt lines before it. Offsets are those of `text`, so positions computed from them need
 * no shift. `from` skips a byte order mark.
 */
export function promptsBefore(text: string, from = 0): { start: number; prompts: LineSpan[] } {
  const prompts: LineSpan[] = [];
  const lines = new LineSpans(text);
  while (lines.next()) {
    if (lines.end <= from) continue; // the byte order mark's line is looked at from `from`
    const start = Math.max(lines.start, from);
    const line = text.slice(start, lines.end);
    if (line.trim() === '') continue;
    if (lines.count > MAX_PROMPT_LINES || promptCommand(line) === undefined) return { start, prompts };
    prompts.push({ start, end: lines.end });
  }
  return { start: text.length, prompts };
}

/** Where the tool's own output ends (not before `floor`): before the blank and prompt lines that close the text. */
export function promptsAfter(text: string, floor: number): { end: number; prompts: LineSpan[] } {
  const prompts: LineSpan[] = [];
  let end = text.length;
  for (let k = 0; k < MAX_PROMPT_LINES && end > floor; k++) {
    const start = lineStartBefore(text, end, floor);
    const line = text.slice(start, end);
    if (line.trim() !== '') {
      if (promptCommand(line) === undefined) break;
      prompts.unshift({ start, end });
    }
    end = start === floor ? floor : previousLineEnd(text, start);
  }
  return { end, prompts };
}

/** The start of the line that ends at `end`, not before `floor`. */
function lineStartBefore(text: string, end: number, floor: number): number {
  let k = end;
  while (k > floor && text[k - 1] !== '\n' && text[k - 1] !== '\r') k--;
  return k;
}

/** The end (before its line break) of the line before the one starting at `lineStart`. */
function previousLineEnd(text: string, lineStart: number): number {
  if (text[lineStart - 1] === '\n' && text[lineStart - 2] === '\r') return lineStart - 2;
  return lineStart - 1;
}
