import * as vscode from 'vscode';
import { DUMP_SELECTOR, type DocumentCache } from '../documentCache';

/** The {} item next to the language mode: dialect, backend and counts of the active dump. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache): void {
  const item = vscode.languages.createLanguageStatusItem('dataplane.status', DUMP_SELECTOR);
  item.name = vscode.l10n.t('Dataplane Explorer');
  item.command = { command: 'dataplane.listServices', title: vscode.l10n.t('List Services') };
  const refresh = () => {
    const document = vscode.window.activeTextEditor?.document;
    if (!document) return;
    const entry = cache.get(document);
    if (!entry) {
      item.text = vscode.l10n.t('{0}: too large to analyse', document.languageId);
      item.detail = vscode.l10n.t('Use the dataplane command line');
      item.severity = vscode.LanguageStatusSeverity.Warning;
      return;
    }
    const s = entry.features.statusSummary(entry.analysis);
    const backend = s.backend === 'nf_tables' ? 'iptables-nft' : s.backend === 'legacy' ? 'iptables-legacy' : s.backend === 'unknown' ? vscode.l10n.t('backend unknown') : s.backend;
    const mode = s.kubeProxyMode === 'nftables-or-none' ? vscode.l10n.t('kube-proxy: nftables mode or none') : s.kubeProxyMode === 'none' ? vscode.l10n.t('no kube-proxy rules') : s.kubeProxyMode ? vscode.l10n.t('kube-proxy: {0} mode', s.kubeProxyMode) : '';
    item.text = vscode.l10n.t('{0} · {1} · {2} services', s.dialect, backend, s.services);
    if (mode) item.text += ` · ${mode}`;
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
