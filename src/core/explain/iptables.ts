// Explanation texts (Markdown) for hovers on iptables dumps. Everything taken from the dump is escaped:
// comments and names in a dump are untrusted input.
import { findMatchOption, findTargetOption, type Option, type Rule, type Save, type Table } from '../model/iptables';
import { formatShare, servicePortNameString } from '../kube/catalog';
import type { IptablesAnalysis } from '../language/iptables';
import { t } from '../l10n';
import type { KubeProxyMode } from '../detect';
import { BASIC_OPTIONS, lookupMatchOption, lookupTargetOption, lowerFirst, MATCH_EXTENSIONS, TARGET_EXTENSIONS, type OptionSpec } from '../parse/iptables/extensions';
import { nameTable } from '../model/name-table';

/** Escapes Markdown (and HTML) metacharacters in text that came from the dump. */
export function mdEscape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, (c) => `\\${c}`);
}

/**
 * The summary of a match/target extension or an option in the display language. The extension tables hold English
 * summaries, which are the l10n keys (scripts/l10n-export.mjs collects them); an alias reads "Same as <canonical>: …".
 */
export function summaryText(spec: Pick<OptionSpec, 'summary' | 'canonicalSummary'> & { name: string }): string {
  if (spec.canonicalSummary !== undefined) return t('Same as {0}: {1}', spec.name, lowerFirst(t(spec.canonicalSummary)));
  return t(spec.summary);
}

export function code(text: string): string {
  // Inline code cannot contain a backtick run longer than its fence; dump text may contain any.
  const clean = text.replace(/`/g, "'").replace(/[\r\n]/g, ' ');
  return `\`${clean}\``;
}

export function explainKubeProxyMode(mode: KubeProxyMode, evidence: string): string {
  switch (mode) {
    case 'iptables':
      return t('kube-proxy runs in **iptables** mode here: per-Service chains such as {0} prove it.', code(evidence));
    case 'ipvs':
      return t('kube-proxy runs in **IPVS** mode here: Services are matched through kube-proxy\'s ipsets ({0}); the load balancing itself is in IPVS (ipvsadm -Ln), not in these rules.', code(evidence));
    case 'nftables-or-none':
      return t('kube-proxy writes no iptables rules here, only kubelet\'s ({0}): it runs in **nftables** mode (see nft list ruleset, table kube-proxy) or not at all (another Service proxy such as Cilium).', code(evidence));
    case 'none':
      return t('No Kubernetes chains: this dump is not from a kube-proxy node, or kube-proxy is not running.');
  }
}

export function explainHeader(save: Save, kind: 'generated' | 'warning', tables: Table[], mode?: { mode: KubeProxyMode; evidence: string }): string {
  if (kind === 'warning') {
    return [
      `**${t('Legacy tables present')}**`,
      '',
      t('This dump was written by the nf_tables backend, but the kernel also holds rules in the old x_tables (legacy) backend. Both sets of rules see every packet. Run iptables-legacy-save too, or the picture is incomplete.'),
    ].join('\n');
  }
  const lines = [`**${mdEscape(save.producer ?? t('iptables-save'))}**`, ''];
  if (save.backend === 'nf_tables') {
    lines.push(t('Written by the **nf_tables** backend of iptables (iptables-nft): these rules live in the kernel\'s nf_tables, translated from iptables syntax. `nft list ruleset` shows the same rules in nft syntax.'));
  } else if (save.backend === 'legacy') {
    lines.push(t('Written by the **legacy** backend of iptables (x_tables, iptables-legacy).'));
  } else {
    lines.push(t('The header does not say which iptables backend wrote this dump.'));
  }
  lines.push(
    '',
    t('This says which iptables backend the node uses, not which kube-proxy mode: an iptables-nft header does **not** mean kube-proxy runs in nftables mode. kube-proxy in iptables mode writes KUBE-SVC/KUBE-SEP chains like these through either backend; in nftables mode it writes no iptables rules at all but a `table ip kube-proxy` that only `nft list ruleset` shows.'),
  );
  lines.push('', t('{0} family, {1} tables in this save.', save.family === 'ipv6' ? 'IPv6' : 'IPv4', tables.length));
  if (mode) lines.push('', explainKubeProxyMode(mode.mode, mode.evidence));
  return lines.join('\n');
}

export function explainTable(name: string): string {
  const text: Record<string, string> = nameTable({
    filter: t('The **filter** table decides whether packets pass: chains INPUT (to this host), FORWARD (through it) and OUTPUT (from it).'),
    nat: t('The **nat** table rewrites addresses on the first packet of each connection; conntrack applies the same rewrite to the rest. Service load balancing happens here in kube-proxy\'s iptables mode (DNAT in PREROUTING/OUTPUT, masquerade in POSTROUTING).'),
    mangle: t('The **mangle** table alters packets and marks (TOS, TTL, marks) before routing decisions.'),
    raw: t('The **raw** table runs before connection tracking, e.g. to exempt packets from it (NOTRACK / CT).'),
    security: t('The **security** table sets SELinux security marks after filtering.'),
  });
  return text[name] ?? t('Table **{0}**.', mdEscape(name));
}

export function explainBuiltinChain(table: string, chain: string): string {
  const hooks: Record<string, string> = nameTable({
    PREROUTING: t('Runs for every packet arriving on an interface, before the routing decision.'),
    INPUT: t('Runs for packets addressed to this host, after routing.'),
    FORWARD: t('Runs for packets routed through this host (for example to pods on it).'),
    OUTPUT: t('Runs for packets sent by processes on this host.'),
    POSTROUTING: t('Runs for every packet leaving an interface, after routing.'),
  });
  return `${hooks[chain] ?? ''} ${t('The policy applies when no rule decides.')}`.trim() + (table === 'nat' ? ' ' + t('In the nat table only the first packet of a connection passes here.') : '');
}

export function explainProbability(a: IptablesAnalysis, rule: Rule, option: Option): string {
  const p = Number(option.values[0]);
  const lines = [`**${t('Random selection')}** — \`--probability ${mdEscape(option.values[0] ?? '')}\``, ''];
  lines.push(t('This rule matches {0} of the packets that reach it; the others go on to the next rule. kube-proxy writes 1/n, 1/(n−1), …, 1/2 on the rules for n endpoints and no condition on the last one, because each rule only sees what the rules before it left: in the end every endpoint gets 1/n of new connections.', Number.isFinite(p) ? formatShare(p) : '?'));
  const sep = rule.target?.name ?? '';
  const entry = a.endpointByChain.get(rule.tableId, sep);
  if (entry) {
    const e = entry.endpoint;
    lines.push('', t('Real share of endpoint `{0}` ({1}): **{2}** of new connections.', `${e.address}:${e.port}`, mdEscape(servicePortNameString(entry.service)), formatShare(e.probability)));
  }
  return lines.join('\n');
}

export function explainRecent(a: IptablesAnalysis, rule: Rule, option: Option | undefined): string {
  const name = findMatchOption(rule, 'recent', '--name')?.values[0] ?? 'DEFAULT';
  const seconds = findMatchOption(rule, 'recent', '--seconds')?.values[0];
  const isSet = rule.matches.some((m) => m.module === 'recent' && m.options.some((o) => o.name === '--set'));
  const lines = [`**${t('Session affinity (ClientIP)')}** — ${t('recent list {0}', code(name))}`, ''];
  if (isSet) {
    lines.push(t('Records the client\'s source address in the list, so that its later connections within the affinity timeout are sent straight back to this same endpoint by the --rcheck rule in the Service chain.'));
  } else {
    lines.push(t('A client whose address is in the list (seen within the last {0} seconds) skips the random choice and goes back to the endpoint it used before. A new client falls through to the random rules below.', seconds ?? '?'));
  }
  lines.push('', t('Caveat: the kernel\'s xt_recent module keeps at most 100 addresses per list by default (module parameter ip_list_tot); on a busy Service older clients are forgotten and lose their affinity silently.'));
  const entry = a.endpointByChain.get(rule.tableId, name);
  if (entry) lines.push('', t('This list belongs to endpoint `{0}`.', `${entry.endpoint.address}:${entry.endpoint.port}`));
  void option;
  return lines.join('\n');
}

export function explainDnat(a: IptablesAnalysis, rule: Rule): string {
  const to = findTargetOption(rule, '--to-destination')?.values[0] ?? '';
  const lines = [`**DNAT** → ${code(to)}`, ''];
  lines.push(t('Rewrites the destination of the connection\'s first packet to {0}; conntrack applies the same rewrite to every later packet and reverses it on replies, so the client keeps talking to the Service address.', code(to)));
  const entry = a.endpointByChain.get(rule.tableId, rule.chain);
  if (entry) {
    lines.push('', t('Endpoint of **{0}**, chosen for {1} of new connections.', mdEscape(servicePortNameString(entry.service) + '/' + entry.service.protocol), formatShare(entry.endpoint.probability)));
  }
  return lines.join('\n');
}

export function explainMasquerade(): string {
  return [
    '**MASQUERADE**',
    '',
    t('Source NAT to the address of the interface the packet leaves through. kube-proxy masquerades only packets that KUBE-MARK-MASQ marked with 0x4000: traffic from outside the cluster CIDR, hairpin traffic, and external traffic under externalTrafficPolicy: Cluster. Replies then come back through this node, which reverses both NATs.'),
  ].join('\n');
}

export function explainMark(option: Option): string {
  return [
    `**${t('Masquerade mark')}** ${code(`${option.name} ${option.values.join(' ')}`)}`,
    '',
    t('Bit 0x4000 of the packet mark is kube-proxy\'s "masquerade me" flag: KUBE-MARK-MASQ sets it (--or-mark 0x4000, shown by iptables-save as --set-xmark 0x4000/0x4000), KUBE-POSTROUTING masquerades packets that carry it and clears it (--xor-mark), and KUBE-FORWARD accepts them. The bit is configurable (--iptables-masquerade-bit, default 14).'),
  ].join('\n');
}

export function explainTarget(name: string, option: Option | undefined, table: string): string {
  const spec = TARGET_EXTENSIONS[name];
  const verdicts: Record<string, string> = nameTable({
    ACCEPT: t('Stops processing in this table and lets the packet continue (to the next table or hook).'),
    DROP: t('Discards the packet silently: the client sees a timeout.'),
    RETURN: t('Leaves this chain and continues after the rule that jumped here (for a built-in chain, its policy applies).'),
    REJECT: t('Discards the packet and answers with an error (ICMP port unreachable by default): the client fails fast.'),
  });
  const lines = [`**${mdEscape(name)}**`, '', verdicts[name] ?? (spec ? summaryText(spec) : t('A target extension.'))];
  if (option) {
    const o = lookupTargetOption(name, option.name);
    if (o) lines.push('', `${code(option.name)} — ${summaryText(o)}`);
  }
  if (name === 'DROP' && table === 'nat') lines.push('', t('Modern iptables refuses DROP in the nat table.'));
  return lines.join('\n');
}

export function explainOption(module: string, option: Option | undefined, where: 'match' | 'param'): string {
  if (where === 'param' && option) {
    const spec = BASIC_OPTIONS[option.name];
    const negation = option.negated ? ' ' + t('(negated: the rule matches when this does **not** hold)') : '';
    return `${code(`${option.negated ? '! ' : ''}${option.name} ${option.values.join(' ')}`.trim())} — ${spec ? summaryText(spec) : ''}${negation}`;
  }
  const ext = MATCH_EXTENSIONS[module];
  if (!option) {
    return ext ? `**-m ${mdEscape(module)}** — ${summaryText(ext)}` : t('**-m {0}**: a match module this version does not know; kept as written.', mdEscape(module));
  }
  const spec = lookupMatchOption(module, option.name);
  const negation = option.negated ? ' ' + t('(negated: the rule matches when this does **not** hold)') : '';
  const head = code(`${option.negated ? '! ' : ''}${option.name} ${option.values.join(' ')}`.trim());
  return `${head} — ${spec ? summaryText(spec) : t('an option of -m {0}', mdEscape(module))}${negation}`;
}
