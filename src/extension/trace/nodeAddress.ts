// This node's address for a trace: asked in the editor's words (never a CLI flag), and offered to be kept in
// the setting dataplane.nodeIPs so the next trace need not ask.
import * as vscode from 'vscode';
import { readSettings } from '../settings';
import { addressInputProblem } from './addressInput';

/** This node's address: [] to let the dumps say (unless `value`: then one is needed), undefined when cancelled. */
export async function askNodeAddress(title: string, value?: string): Promise<string[] | undefined> {
  const typed = await vscode.window.showInputBox({
    title,
    prompt: value === undefined ? vscode.l10n.t("This node's address, the source of its connections (leave empty to take it from the dumps)") : vscode.l10n.t("This node's address, where its NodePorts listen"),
    value,
    validateInput: (v) => (v.trim() === '' && value === undefined ? undefined : addressInputProblem(v.trim())),
  });
  return typed === undefined ? undefined : typed.trim() === '' ? [] : [typed.trim()];
}

/** After the user typed an address the setting does not hold: a notification that keeps it (not awaited). */
export function offerToSave(addresses: string[]): void {
  const configured = readSettings().nodeIPs;
  if (addresses.length === 0 || addresses.every((a) => configured.includes(a))) return;
  const save = vscode.l10n.t('Save for this Workspace');
  void vscode.window.showInformationMessage(vscode.l10n.t("Keep {0} as this node's address (setting dataplane.nodeIPs) so traces need not ask?", addresses.join(', ')), save).then(async (answer) => {
    if (answer !== save) return;
    const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration('dataplane').update('nodeIPs', [...new Set([...addresses, ...configured])], target);
  });
}

/**
 * The editor's words for what would make a trace surer (the core gives it as `advice`): a notification whose
 * button asks for this node's address; resolves to the address typed, or undefined.
 */
export async function adviseNodeAddress(advice: readonly string[] | undefined): Promise<string[] | undefined> {
  if (!advice?.includes('node-address')) return undefined;
  const set = vscode.l10n.t('Set Node Address…');
  const answer = await vscode.window.showInformationMessage(vscode.l10n.t("This node's address was guessed for this trace: set this node's address for a surer answer."), set);
  if (answer !== set) return undefined;
  const asked = await askNodeAddress(vscode.l10n.t("This node's address"));
  return asked?.length ? asked : undefined;
}
