import * as vscode from 'vscode';
import { statusText } from '../../core/language/status';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';
import { readSettings } from '../settings';
import { plainLabel } from '../../core/explain/label';

/** Sizes as people read them: 49.2 MB. */
export function formatSize(characters: number): string {
  if (characters >= 1024 * 1024) return `${(characters / (1024 * 1024)).toFixed(1)} MB`;
  if (characters >= 1024) return `${Math.round(characters / 1024)} KB`;
  return `${characters} B`;
}

/** The command line route for a file the editor does not analyse. */
export function cliRoute(path: string): string {
  const quoted = /^[\w./@:+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
  return `dataplane services ${quoted}`;
}

/** What the user reads when a dump is above dataplane.maxDocumentSize (status item detail and Problems). */
export function tooLargeMessage(document: vscode.TextDocument, size: number): string {
  return vscode.l10n.t(
    'This dump ({0}) is larger than dataplane.maxDocumentSize ({1}) and was not analysed. Raise the setting, or use the command line: {2} (also dataplane parse and dataplane trace).',
    formatSize(size),
    formatSize(readSettings().maxDocumentSize),
    cliRoute(document.uri.fsPath),
  );
}

/**
 * The {} item next to the language mode: dialect, backend and counts of the active dump; a spinner while a
 * large dump is parsed in the background; what to do when it is too large or the analysis failed.
 */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  const item = vscode.languages.createLanguageStatusItem('dataplane.status', DUMP_SELECTOR);
  item.name = vscode.l10n.t('Dataplane Explorer');
  const listServices = { command: 'dataplane.listServices', title: vscode.l10n.t('List Services') };
  let ticker: ReturnType<typeof setInterval> | undefined;
  const refresh = () => {
    const document = vscode.window.activeTextEditor?.document;
    if (!document) return;
    const state = cache.state(document);
    clearInterval(ticker);
    ticker = undefined;
    item.busy = false;
    item.command = listServices;
    switch (state.kind) {
      case 'none':
        return;
      case 'too-large':
        item.text = vscode.l10n.t('{0}: too large to analyse', document.languageId);
        item.detail = tooLargeMessage(document, state.size);
        item.severity = vscode.LanguageStatusSeverity.Warning;
        item.command = { command: 'workbench.action.openSettings', title: vscode.l10n.t('Open Settings'), arguments: ['dataplane.maxDocumentSize'] };
        return;
      case 'parsing': {
        const show = () => {
          const seconds = Math.floor((Date.now() - state.since) / 1000);
          const size = formatSize(state.size);
          // The worker's word on how far it has read, once it said; then the catalog (no share of its own).
          if (state.share !== undefined && state.share >= 1) item.text = vscode.l10n.t('Finding the Services in {0}… {1} s', size, seconds);
          else if (state.share !== undefined) item.text = vscode.l10n.t('Parsing {0}… {1}%', size, Math.floor(state.share * 100));
          else item.text = seconds > 0 ? vscode.l10n.t('Parsing {0}… {1} s', size, seconds) : vscode.l10n.t('Parsing {0}…', size);
        };
        show();
        item.busy = true;
        item.detail = vscode.l10n.t('Large dumps are parsed in the background; hovers, F12 and the outline answer when it is done.');
        item.severity = vscode.LanguageStatusSeverity.Information;
        item.command = undefined;
        ticker = setInterval(show, 1000);
        return;
      }
      case 'failed':
        item.text = vscode.l10n.t('{0}: analysis failed', document.languageId);
        item.detail = plainLabel(state.message);
        item.severity = vscode.LanguageStatusSeverity.Error;
        item.command = { command: 'dataplane.showLog', title: vscode.l10n.t('Show Log') };
        return;
      case 'done': {
        const s = state.analysis.summary;
        const words = statusText(s);
        item.text = words.text;
        item.detail = words.detail;
        if (state.analysis.where === 'worker') item.detail += ` · ${vscode.l10n.t('parsed in the background in {0} s', (state.analysis.ms / 1000).toFixed(1))}`;
        item.severity = s.errors > 0 ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
        return;
      }
    }
  };
  const refreshActive = (document: vscode.TextDocument) => {
    if (document === vscode.window.activeTextEditor?.document) refresh();
  };
  context.subscriptions.push(
    item,
    { dispose: () => clearInterval(ticker) },
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      // Asking starts the analysis of a document that has none yet; the state events refresh the item.
      if (editor) void cache.get(editor.document);
      refresh();
    }),
    cache.onDidChangeState(refreshActive),
  );
  // The active dump is analysed just after activation, not during it (docs/performance.md#budgets; see diagnostics.ts).
  const initial = setTimeout(() => {
    const active = vscode.window.activeTextEditor?.document;
    if (active) void cache.get(active);
  }, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(initial) });
  refresh();
}
