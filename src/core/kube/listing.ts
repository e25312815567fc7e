// What conclusions drawn from a ruleset read from an `iptables -L` listing rest on: said in the trace's warnings and
// beside the Service catalog, since the listing leaves out what iptables-save would show (parse/iptables/list-format.ts).
import type { IptablesRuleset } from '../model/iptables';
import { t } from '../l10n';

/** The caveats of a ruleset read from `iptables -L` (none for iptables-save and `iptables -S` text). */
export function listingCaveats(ruleset: IptablesRuleset): string[] {
  const losses = ruleset.listing?.losses ?? [];
  const out: string[] = [];
  if (losses.includes('interfaces')) {
    out.push(t("Read from `iptables -L` without -v: the rules' in and out interfaces are unknown and taken as any, so paths and Services an interface match would exclude may appear."));
  }
  if (losses.includes('summaries')) {
    out.push(t('Read from `iptables -L`: some match or target summaries were not understood (warnings in the file); what is concluded about those rules leaves them out.'));
  }
  if (losses.includes('names')) {
    out.push(t('Read from `iptables -L` without -n: names stand where addresses or ports were, and rules with them may not match as they do in the kernel.'));
  }
  return out;
}
