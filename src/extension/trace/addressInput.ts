// What an input box says about an address the user typed; the trace and the graph ask for the node's address.
import * as vscode from 'vscode';
import { hasLeadingZeroPart, parseUserAddress } from '../../core/trace/addr';

/** undefined when `value` is an address; else why not (validateInput's contract). */
export function addressInputProblem(value: string): string | undefined {
  if (parseUserAddress(value)) return undefined;
  if (hasLeadingZeroPart(value)) return vscode.l10n.t('Write the IPv4 parts without leading zeros (some tools read 010 as octal 8)');
  return vscode.l10n.t('Not an IP address');
}
