// What an input box says about an address the user typed; the trace and the graph ask for the node's address.
import * as vscode from 'vscode';
import { hasLeadingZeroPart, parseUserAddress } from '../../core/model/address';
import { core } from '../loadCore';

const LEADING_ZERO = () => vscode.l10n.t('Write the IPv4 parts without leading zeros (some tools read 010 as octal 8)');

/** undefined when `value` is an address; else why not (validateInput's contract). */
export function addressInputProblem(value: string): string | undefined {
  if (parseUserAddress(value)) return undefined;
  return hasLeadingZeroPart(value) ? LEADING_ZERO() : vscode.l10n.t('Not an IP address');
}

/** The same for a destination ADDRESS:PORT[/tcp|udp|sctp]. */
export function destinationInputProblem(value: string): string | undefined {
  if (core().parseDestination(value)) return undefined;
  return core().destinationHasLeadingZero(value) ? LEADING_ZERO() : vscode.l10n.t('Expected ADDRESS:PORT[/tcp|udp|sctp], e.g. 10.96.0.10:53/udp');
}
