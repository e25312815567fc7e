// The dump a command works on when it is run from a button (the walkthrough, a webview): the active text editor's
// document, else the dump in a visible editor. A walkthrough or webview in front leaves no active text editor, and the
// walkthrough opens its samples beside itself (command:toSide:), only while it is wider than 700 px.
import * as vscode from 'vscode';

const DUMP_LANGUAGES = new Set(['iptables', 'nftables', 'ipvsadm', 'ipset']);

export function activeDumpDocument(): vscode.TextDocument | undefined {
  const active = vscode.window.activeTextEditor?.document;
  if (active) return active;
  return vscode.window.visibleTextEditors.map((e) => e.document).find((d) => DUMP_LANGUAGES.has(d.languageId));
}
