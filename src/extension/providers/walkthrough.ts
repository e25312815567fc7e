// The buttons of the walkthrough steps that happen in the editor: "Follow a Service with F12" puts the cursor on the
// KUBE-SVC-… target of a Service's ClusterIP rule in the iptables-mode (nf_tables) sample, ready for F12; "Read a
// hover" shows the hover of that KUBE-SVC chain on one of its --probability rules. The place comes from analysing the
// sample (core/walkthrough.ts), not from line numbers. Like "Open Sample Dumps", they open the sample's copy in the
// editor group beside the walkthrough.
import * as vscode from 'vscode';
import type { IptablesAnalysis } from '../../core/language/iptables';
import type { Range } from '../../core/model/range';
import type { ServiceToFollow } from '../../core/walkthrough';
import { toRange } from '../convert';
import type { DocumentCache } from '../documentCache';
import { core } from '../loadCore';
import type { Log } from '../log';
import type { Snapshots } from '../snapshots';
import { sampleCopies, showSample } from './samples';

const SAMPLE = 'iptables-nft';

export function register(context: vscode.ExtensionContext, cache: DocumentCache, snapshots: Snapshots, log: Log): void {
  /** Opens the sample with the cursor at the start of `where(service)`, the name selected, in the middle of the editor. */
  const openAt = async (where: (s: ServiceToFollow) => Range): Promise<{ editor: vscode.TextEditor; service: ServiceToFollow } | undefined> => {
    const [copy] = await sampleCopies(context.extensionUri, SAMPLE);
    const document = await vscode.workspace.openTextDocument(copy);
    // The analysis the editor features use (the sample is small: it is analysed on this thread).
    const analysis = (await cache.get(document))?.local?.analysis as IptablesAnalysis | undefined;
    const service = analysis && core().serviceToFollow(analysis);
    if (!service) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No Service in {0} picks among several endpoints.', vscode.workspace.asRelativePath(copy)));
      return undefined;
    }
    const range = toRange(where(service));
    // Anchor at the end, cursor at the start: the chain name is highlighted and F12 / the hover read the name.
    const selection = new vscode.Selection(range.end, range.start);
    const editor = await showSample(document.uri);
    // (showTextDocument's `selection` option takes a range and puts the cursor at its end.)
    editor.selection = selection;
    editor.revealRange(range, vscode.TextEditorRevealType.InCenter);
    return { editor, service };
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('dataplane.walkthrough.followService', async () => {
      const opened = await openAt((s) => s.jumpTarget);
      if (opened) log.info(`walkthrough: cursor on ${opened.service.chain} (${opened.service.service}) in KUBE-SERVICES, line ${opened.service.jumpTarget.start.line + 1}`);
    }),
    vscode.commands.registerCommand('dataplane.walkthrough.showHover', async () => {
      const opened = await openAt((s) => s.probabilityRuleChain);
      if (!opened) return;
      await vscode.commands.executeCommand('editor.action.showHover');
      log.info(`walkthrough: hover of ${opened.service.chain} (${opened.service.service}), line ${opened.service.probabilityRuleChain.start.line + 1}`);
    }),
    vscode.commands.registerCommand('dataplane.walkthrough.showDrift', () => showDrift(context, snapshots, log)),
  );
}

/**
 * "See a drift": opens the sample beside its cluster-state.yaml with the cursor on the rule the cluster check calls
 * stale (the first stale-endpoint finding there), and the Problems view, where the findings are.
 */
async function showDrift(context: vscode.ExtensionContext, snapshots: Snapshots, log: Log): Promise<void> {
  const [copy] = await sampleCopies(context.extensionUri, SAMPLE);
  const document = await vscode.workspace.openTextDocument(copy);
  const editor = await showSample(document.uri);
  const answer = await snapshots.query(document, 'clusterDiagnostics');
  const own = answer?.value.find((f) => f.file === document.uri.fsPath);
  const stale = own?.diagnostics.find((d) => d.code === 'stale-endpoint') ?? own?.diagnostics[0];
  if (stale) {
    const range = toRange(stale.range);
    editor.selection = new vscode.Selection(range.start, range.start);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenter);
  }
  await vscode.commands.executeCommand('workbench.actions.view.problems');
  log.info(`walkthrough: drift ${stale ? `${stale.code} at line ${stale.range.start.line + 1}` : 'not found'} in ${SAMPLE}`);
}
