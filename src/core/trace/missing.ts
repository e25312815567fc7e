// What a dump does not hold on the packet's way (a table, a built-in chain, a base chain on a hook): said in the
// trace's warnings, since an empty path reads as "nothing here" while the dump may only have left it out.
import { t } from '../l10n';

/** Tables whose absence changes the answer of a Service trace: the Service NAT and the filter rules. */
const WATCHED_TABLES = new Set(['nat', 'filter']);

/** The hooks and tables the packet passed where the dump had nothing, gathered during one trace. */
export class MissingOnPath {
  private readonly tables = new Set<string>();
  private readonly chains: [string, string][] = [];
  private readonly hooks: string[] = [];

  /** iptables: the packet reached `hook` of table `name`, which the dump lacks (table) or lacks the chain of. */
  iptables(name: string, hook: string, haveTable: boolean): void {
    if (!haveTable) {
      if (WATCHED_TABLES.has(name)) this.tables.add(name);
    } else if (!(name === 'nat' && hook === 'INPUT') && !this.chains.some(([tb, h]) => tb === name && h === hook)) {
      // Kernels before 2.6.36 had no nat INPUT: its absence is no sign of a partial dump.
      this.chains.push([name, hook]);
    }
  }

  private readonly natHooks: string[] = [];

  /** nft: the packet reached `hook`, where the ruleset's base chains are of these types (none: no base chain). */
  nft(hook: string, types: readonly (string | undefined)[]): void {
    if (types.length === 0) {
      if (!this.hooks.includes(hook)) this.hooks.push(hook);
    } else if ((hook === 'prerouting' || hook === 'output') && !types.includes('nat') && !this.natHooks.includes(hook)) this.natHooks.push(hook);
  }

  warnings(family: string): string[] {
    const out = [...this.tables].map((name) =>
      t(
        'The dump has no {0} table (iptables-save prints every table the kernel has): the packet passes it unchanged. That is what the kernel does if the dump is complete; if the table was left out of the dump, its rules were not traced.',
        name,
      ),
    );
    for (const [name, hook] of this.chains) {
      out.push(
        t(
          "Table {0} of the dump has no built-in chain {1}, which iptables-save always prints: this is not a whole iptables-save dump (cut short, edited, or an iptables-restore input such as kube-proxy's). The trace passes {1} as an empty chain with policy ACCEPT.",
          name,
          hook,
        ),
      );
    }
    if (this.hooks.length > 0) {
      out.push(
        t(
          'The ruleset has no base chain on hooks the packet takes ({0}, {1}): there it is neither filtered nor NATed. That is what the kernel does if the dump is complete; chains left out of the dump were not traced.',
          this.hooks.join(', '),
          family,
        ),
      );
    }
    for (const hook of this.natHooks) {
      out.push(t('No chain of type nat is on the {0} hook: nothing in this ruleset rewrites the destination there (no Service DNAT). If Service rules were expected, the dump lacks them.', hook));
    }
    return out;
  }
}
