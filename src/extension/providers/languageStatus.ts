import * as vscode from 'vscode';
import { statusSummary } from '../../core/language/iptables';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';

/** The {} item next to the language mode: dialect, backend and counts of the active dump. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  const item = vscode.languages.createLanguageStatusItem('dataplane.status', DUMP_SELECTOR);
  item.name = vscode.l10n.t('Dataplane Explorer');
  item.command = { command: 'dataplane.listServices', title: vscode.l10n.t('List Services') };
  const refresh = () => {
    const document = vscode.window.activeTextEditor?.document;
    if (!document) return;
    const analysis = cache.get(document);
    if (!analysis) {
      item.text = vscode.l10n.t('iptables: too large to analyse');
      item.detail = vscode.l10n.t('Use the dataplane command line');
      item.severity = vscode.LanguageStatusSeverity.Warning;
      return;
    }
    const s = statusSummary(analysis);
    const backend = s.backend === 'nf_tables' ? 'iptables-nft' : s.backend === 'legacy' ? 'iptables-legacy' : vscode.l10n.t('backend unknown');
    item.text = vscode.l10n.t('iptables · {0} · {1} services', backend, s.services);
    item.detail = vscode.l10n.t('{0} tables, {1} chains, {2} rules, {3} errors, {4} warnings', s.tables, s.chains, s.rules, s.errors, s.warnings);
    item.severity = s.errors > 0 ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
  };
  context.subscriptions.push(
    item,
    vscode.window.onDidChangeActiveTextEditor(refresh),
    cache.onDidAnalyze((document) => {
      if (document === vscode.window.activeTextEditor?.document) refresh();
    }),
  );
  refresh();
}
