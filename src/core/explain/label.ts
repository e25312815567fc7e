// Dump text for the editor's plain-text surfaces that still read some syntax: QuickPick rows, language status
// items and tree items render `$(icon)`, notifications turn `[text](link)` into links that run. A zero-width space
// after `$` and `]` keeps such text literal (it stays readable and searchable); line breaks become spaces.
export function plainLabel(s: string): string {
  return s.replace(/\$\(/g, '$\u200b(').replace(/\]\(/g, ']\u200b(').replace(/[\r\n\u2028\u2029]+/g, ' ');
}
