import * as vscode from 'vscode';
import { detectDialect } from '../../core/detect';
import { IPTABLES_LANGUAGE, type DocumentCache } from '../documentCache';
import { isDumpLanguage } from '../dumpLanguages';
import { core } from '../loadCore';
import type { Log } from '../log';
import { toRange } from '../convert';
import type { Snapshots } from '../snapshots';
import { PICK_ROWS, showFilteredPick } from '../filteredPick';

/** Commands of the "Dataplane Explorer" category. */
export function register(context: vscode.ExtensionContext, cache: DocumentCache, log: Log, snapshots: Snapshots): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('dataplane.showLog', () => log.channel.show()),

    vscode.commands.registerCommand('dataplane.openAsDump', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Open a dump file first.'));
        return;
      }
      const dialect = detectDialect(editor.document.getText(), editor.document.fileName);
      if (dialect === 'iptables' || dialect === undefined) {
        if (dialect === undefined) {
          const choice = await vscode.window.showWarningMessage(vscode.l10n.t('This does not look like an iptables-save dump. Open it as one anyway?'), vscode.l10n.t('Open as iptables'));
          if (!choice) return;
        }
        await vscode.languages.setTextDocumentLanguage(editor.document, IPTABLES_LANGUAGE);
        log.info(`${editor.document.uri.fsPath}: opened as iptables`);
        return;
      }
      const language = core().languageOfDialect(dialect);
      if (language && isDumpLanguage(language)) {
        await vscode.languages.setTextDocumentLanguage(editor.document, language);
        log.info(`${editor.document.uri.fsPath}: opened as ${language}`);
        return;
      }
      void vscode.window.showInformationMessage(vscode.l10n.t('This looks like a {0} dump, which this version cannot read yet.', dialect));
    }),

    vscode.commands.registerCommand('dataplane.listServices', async () => {
      const editor = vscode.window.activeTextEditor;
      // The snapshot's Services, as the graph shows them: an ipvsadm dump's need the ipset and iptables beside it.
      // Rows are made and filtered where the analysis lives: a large dump's 10,000 Services are megabytes of text.
      const document = editor?.document;
      const answer = document && (await cache.get(document)) ? await snapshots.query(document, 'serviceRows', '', PICK_ROWS) : undefined;
      if (!editor || !document || !answer) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Open a dump (iptables, nftables, ipvsadm or ipset) to list its Services.'));
        return;
      }
      if (answer.value.total === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('No kube-proxy Services in this dump or the dumps beside it (no KUBE-SERVICES rules, kube-proxy nft table or IPVS virtual services).'));
        return;
      }
      const picked = await showFilteredPick(
        {
          title: vscode.l10n.t('Services in {0}', vscode.workspace.asRelativePath(document.uri)),
          placeholder: vscode.l10n.t('Filter by namespace, name, address or port'),
          rows: async (value) => (await snapshots.query(document, 'serviceRows', value, PICK_ROWS))?.value,
        },
        answer.value,
      );
      if (!picked?.range) return;
      const range = toRange(picked.range);
      const uri = answer.uris[picked.fileIndex ?? 0] ?? document.uri;
      const target = uri.toString() === document.uri.toString() ? editor : await vscode.window.showTextDocument(uri, { preview: true });
      target.selection = new vscode.Selection(range.start, range.end);
      target.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }),
  );
}
