// Dump text for the editor's plain-text surfaces that still read some syntax: QuickPick rows, language status
// items and tree items render `$(icon)`, notifications turn `[text](link)` into links that run. A zero-width space
// after `$` and `]` keeps such text literal (it stays readable and searchable); line breaks become spaces.
const NEEDS_CARE = /\$\(|\]\(|[\r\n\u2028\u2029]/;

export function plainLabel(s: string): string {
  // Most names have none of it: one scan instead of three replacements (a 10,000-Service dump has 130,000 names).
  if (!NEEDS_CARE.test(s)) return s;
  return s
    .replace(/\$\(/g, '$\u200b(')
    .replace(/\]\(/g, ']\u200b(')
    .replace(/[\r\n\u2028\u2029]+/g, ' ');
}
