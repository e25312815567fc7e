import * as vscode from 'vscode';
import { detectDialect, SNIFF_BYTES, SNIFF_LINES } from '../../core/detect';
import { isDumpLanguage } from '../dumpLanguages';
import type { Log } from '../log';

/** The document's first lines, as much as detection reads (a 50 MB one-line JSON is not copied whole). */
function head(document: vscode.TextDocument): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; i < document.lineCount && lines.length < SNIFF_LINES * 4 && size < SNIFF_BYTES; i++) {
    const text = document.lineAt(i).text.slice(0, SNIFF_BYTES - size);
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join('\n');
}

/**
 * VS Code never consults `firstLine` when a file extension already matched (node1.txt is plain text by
 * extension), and its rule sees only the first line: plain-text documents whose first meaningful lines are a dump
 * (after a blank line, `# Completed on`, a shell prompt…) are switched to the dump language.
 */
export function register(context: vscode.ExtensionContext, log: Log): void {
  const adopt = async (document: vscode.TextDocument) => {
    if (document.languageId !== 'plaintext' || document.lineCount === 0) return;
    const dialect = detectDialect(head(document));
    const language = dialect === 'nftables-json' ? 'nftables' : dialect;
    if (!language || !isDumpLanguage(language)) return;
    await vscode.languages.setTextDocumentLanguage(document, language);
    log.info(`${document.uri.fsPath}: its first lines are a ${dialect} dump; opened as ${language}`);
  };
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument((d) => void adopt(d)));
  vscode.workspace.textDocuments.forEach((d) => void adopt(d));
}
