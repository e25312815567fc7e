// Parses each document once per version and shares the result with every provider.
import * as vscode from 'vscode';
import { featuresFor, LANGUAGES, type AnyFeatures } from '../core/language';
import type { DumpAnalysis } from '../core/language/types';
import type { Log } from './log';
import { readSettings } from './settings';

export const IPTABLES_LANGUAGE = 'iptables';
export const DUMP_SELECTOR: vscode.DocumentSelector = LANGUAGES.map((l) => ({ language: l.languageId }));

export interface Analyzed {
  features: AnyFeatures;
  analysis: DumpAnalysis;
}

interface Entry {
  version: number;
  analyzed: Analyzed | undefined;
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

  /** The analysis of a dump document, or undefined for other languages and oversized documents. */
  get(document: vscode.TextDocument): Analyzed | undefined {
    const features = featuresFor(document.languageId);
    if (!features) return undefined;
    const key = document.uri.toString();
    const cached = this.entries.get(key);
    if (cached && cached.version === document.version && cached.analyzed?.features === features) return cached.analyzed;
    const text = document.getText();
    let analyzed: Analyzed | undefined;
    if (text.length > readSettings().maxDocumentSize) {
      this.log.warn(`${document.uri.fsPath}: ${text.length} characters is above dataplane.maxDocumentSize; not analysed`);
    } else {
      const started = Date.now();
      analyzed = { features, analysis: features.analyze(text) };
      const s = features.statusSummary(analyzed.analysis);
      this.log.info(`${document.uri.fsPath} v${document.version} (${features.languageId}): ${s.tables} tables, ${s.chains} chains, ${s.rules} rules, ${s.services} services, ${analyzed.analysis.diagnostics.length} diagnostics in ${Date.now() - started} ms`);
    }
    this.entries.set(key, { version: document.version, analyzed });
    this.changed.fire(document);
    return analyzed;
  }

  isTooLarge(document: vscode.TextDocument): boolean {
    return document.getText().length > readSettings().maxDocumentSize;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.entries.clear();
  }
}
