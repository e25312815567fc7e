// Parses each document once per version and shares the result with every provider.
import * as vscode from 'vscode';
import { analyzeIptables, type IptablesAnalysis } from '../core/language/iptables';
import type { Log } from './log';
import { readSettings } from './settings';

export const IPTABLES_LANGUAGE = 'iptables';
export const DUMP_SELECTOR: vscode.DocumentSelector = [{ language: IPTABLES_LANGUAGE }];

interface Entry {
  version: number;
  analysis: IptablesAnalysis | undefined;
}

export class DocumentCache implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly changed = new vscode.EventEmitter<vscode.TextDocument>();
  /** Fires after a document was (re)analysed. */
  readonly onDidAnalyze = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly log: Log) {
    this.disposables.push(vscode.workspace.onDidCloseTextDocument((d) => this.entries.delete(d.uri.toString())));
  }

  /** The analysis of an iptables document, or undefined for other languages and oversized documents. */
  get(document: vscode.TextDocument): IptablesAnalysis | undefined {
    if (document.languageId !== IPTABLES_LANGUAGE) return undefined;
    const key = document.uri.toString();
    const cached = this.entries.get(key);
    if (cached && cached.version === document.version) return cached.analysis;
    const text = document.getText();
    let analysis: IptablesAnalysis | undefined;
    if (text.length > readSettings().maxDocumentSize) {
      this.log.warn(`${document.uri.fsPath}: ${text.length} characters is above dataplane.maxDocumentSize; not analysed`);
    } else {
      const started = Date.now();
      analysis = analyzeIptables(text);
      this.log.info(`${document.uri.fsPath} v${document.version}: ${analysis.ruleset.lineCount} lines, ${analysis.ruleset.tables.length} tables, ${analysis.catalog.services.length} services, ${analysis.diagnostics.length} diagnostics in ${Date.now() - started} ms`);
    }
    this.entries.set(key, { version: document.version, analysis });
    this.changed.fire(document);
    return analysis;
  }

  isTooLarge(document: vscode.TextDocument): boolean {
    return document.getText().length > readSettings().maxDocumentSize;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.entries.clear();
  }
}
