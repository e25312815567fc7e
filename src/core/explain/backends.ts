// The words for a node whose iptables rules are split over both backends: who wrote to which, and why that
// makes rules look ignored. Shared by the snapshot diagnostic and Explain This Node.
import type { BackendWriters } from '../kube/backends';
import { t } from '../l10n';

function backendName(b: BackendWriters['backend']): string {
  return b === 'nf_tables' ? t('iptables-nft (nf_tables)') : t('iptables-legacy (x_tables)');
}

const MAX_CHAINS = 4;

/** "kube-proxy wrote to iptables-nft (nf_tables); Docker wrote to iptables-legacy (x_tables)". */
export function backendWritersText(list: readonly BackendWriters[]): string {
  return list
    .map((w) => {
      if (w.writers.length > 0) return t('{0} wrote to {1}', w.writers.join(', '), backendName(w.backend));
      const chains = w.otherChains.slice(0, MAX_CHAINS).join(', ') + (w.otherChains.length > MAX_CHAINS ? ', …' : '');
      return chains ? t('chains of no known component ({0}) are in {1}', chains, backendName(w.backend)) : t('rules in built-in chains only are in {0}', backendName(w.backend));
    })
    .join('; ');
}

/** Why rules split over both backends seem ignored. */
export function mixedBackendsWhy(): string {
  return t(
    "The kernel runs the rules of both backends at every hook, but each iptables binary lists and edits only its own: `iptables -L` or `iptables-save` of one shows half the rules, and a rule added through one does not change what the other decides (an ACCEPT in one does not stop a DROP or an earlier DNAT in the other). Make every component use one backend; kube-proxy's image picks the backend that holds more rules.",
  );
}

/** The diagnostic's message. */
export function mixedBackendsMessage(list: readonly BackendWriters[]): string {
  return t('Both iptables backends hold rules on this node: {0}. {1}', backendWritersText(list), mixedBackendsWhy());
}
