// Explanation texts (Markdown) for hovers on iptables dumps, written with ./markdown: comments and names in a
// dump are untrusted input.
import { findMatchOption, findTargetOption, type Option, type Rule, type Save, type Table } from '../model/iptables';
import { formatShare, servicePortNameString } from '../kube/service';
import type { IptablesAnalysis } from '../analysis';
import { t } from '../l10n';
import type { KubeProxyMode } from '../detect';
import { BASIC_OPTIONS, lookupMatchOption, lookupTargetOption, lowerFirst, MATCH_EXTENSIONS, TARGET_EXTENSIONS, type OptionSpec } from '../parse/iptables/extensions';
import { nameTable } from '../model/name-table';
import { bold, code, join, md, mdT, text, type Md } from './markdown';
import { isKubeProxyAffinity } from '../kube/chains';

/**
 * The summary of a match/target extension or an option in the display language. The extension tables hold English
 * summaries, which are the l10n keys (scripts/l10n-export.mjs collects them); an alias reads "Same as <canonical>: …".
 */
export function summaryText(spec: Pick<OptionSpec, 'summary' | 'canonicalSummary'> & { name: string }): Md {
  // The summaries are the code's own tables, so they are Markdown like any other message.
  if (spec.canonicalSummary !== undefined) return mdT('Same as {0}: {1}', text(spec.name), md`${lowerFirst(t(spec.canonicalSummary)) as Md}`);
  return mdT(spec.summary);
}

export function explainKubeProxyMode(mode: KubeProxyMode, evidence: string): Md {
  switch (mode) {
    case 'iptables':
      return mdT('kube-proxy runs in **iptables** mode here: per-Service chains such as {0} prove it.', code(evidence));
    case 'ipvs':
      return mdT("kube-proxy runs in **IPVS** mode here: Services are matched through kube-proxy's ipsets ({0}); the load balancing itself is in IPVS (ipvsadm -Ln), not in these rules.", code(evidence));
    case 'nftables-or-none':
      return mdT(
        "kube-proxy writes no iptables rules here, only kubelet's ({0}): it runs in **nftables** mode (see nft list ruleset, table kube-proxy) or not at all (another Service proxy such as Cilium).",
        code(evidence),
      );
    case 'none':
      return mdT('No Kubernetes chains: this dump is not from a kube-proxy node, or kube-proxy is not running.');
  }
}

export function explainHeader(save: Save, kind: 'generated' | 'warning', tables: Table[], mode?: { mode: KubeProxyMode; evidence: string }): Md {
  if (kind === 'warning') {
    return join([
      bold(mdT('Legacy tables present')),
      md``,
      mdT(
        'This dump was written by the nf_tables backend, but the kernel also holds rules in the old x_tables (legacy) backend. Both sets of rules see every packet. Run iptables-legacy-save too, or the picture is incomplete.',
      ),
    ]);
  }
  const lines = [bold(save.producer === undefined ? mdT('iptables-save') : text(save.producer)), md``];
  if (save.backend === 'nf_tables') {
    lines.push(mdT("Written by the **nf_tables** backend of iptables (iptables-nft): these rules live in the kernel's nf_tables, translated from iptables syntax. `nft list ruleset` shows the same rules in nft syntax."));
  } else if (save.backend === 'legacy') {
    lines.push(mdT('Written by the **legacy** backend of iptables (x_tables, iptables-legacy).'));
  } else {
    lines.push(mdT('The header does not say which iptables backend wrote this dump.'));
  }
  lines.push(
    md``,
    mdT(
      'This says which iptables backend the node uses, not which kube-proxy mode: an iptables-nft header does **not** mean kube-proxy runs in nftables mode. kube-proxy in iptables mode writes KUBE-SVC/KUBE-SEP chains like these through either backend; in nftables mode it writes no iptables rules at all but a `table ip kube-proxy` that only `nft list ruleset` shows.',
    ),
  );
  lines.push(md``, mdT('{0} family, {1} tables in this save.', save.family === 'ipv6' ? md`IPv6` : md`IPv4`, tables.length));
  if (mode) lines.push(md``, explainKubeProxyMode(mode.mode, mode.evidence));
  return join(lines);
}

export function explainTable(name: string): Md {
  const known: Record<string, Md> = nameTable({
    filter: mdT('The **filter** table decides whether packets pass: chains INPUT (to this host), FORWARD (through it) and OUTPUT (from it).'),
    nat: mdT(
      "The **nat** table rewrites addresses on the first packet of each connection; conntrack applies the same rewrite to the rest. Service load balancing happens here in kube-proxy's iptables mode (DNAT in PREROUTING/OUTPUT, masquerade in POSTROUTING).",
    ),
    mangle: mdT('The **mangle** table alters packets and marks (TOS, TTL, marks) before routing decisions.'),
    raw: mdT('The **raw** table runs before connection tracking, e.g. to exempt packets from it (NOTRACK / CT).'),
    security: mdT('The **security** table sets SELinux security marks after filtering.'),
  });
  return known[name] ?? mdT('Table **{0}**.', text(name));
}

export function explainBuiltinChain(table: string, chain: string): Md {
  const hooks: Record<string, Md> = nameTable({
    PREROUTING: mdT('Runs for every packet arriving on an interface, before the routing decision.'),
    INPUT: mdT('Runs for packets addressed to this host, after routing.'),
    FORWARD: mdT('Runs for packets routed through this host (for example to pods on it).'),
    OUTPUT: mdT('Runs for packets sent by processes on this host.'),
    POSTROUTING: mdT('Runs for every packet leaving an interface, after routing.'),
  });
  const parts = [hooks[chain], mdT('The policy applies when no rule decides.'), table === 'nat' ? mdT('In the nat table only the first packet of a connection passes here.') : undefined];
  return join(
    parts.filter((x): x is Md => x !== undefined && x !== ''),
    ' ',
  );
}

export function explainProbability(a: IptablesAnalysis, rule: Rule, option: Option): Md {
  const p = Number(option.values[0]);
  const lines = [md`${bold(mdT('Random selection'))} — ${code(`--probability ${option.values[0] ?? ''}`)}`, md``];
  // The answer (whose endpoint, its real share) before the lesson on how the 1/n chain of rules works.
  const entry = a.endpointByChain.get(rule.tableId, rule.target?.name ?? '');
  if (entry) {
    const e = entry.endpoint;
    lines.push(mdT('Real share of endpoint {0} ({1}): **{2}** of new connections.', code(`${e.address}:${e.port}`), text(servicePortNameString(entry.service)), text(formatShare(e.probability))), md``);
  }
  lines.push(
    mdT(
      'This rule matches {0} of the packets that reach it; the others go on to the next rule. kube-proxy writes 1/n, 1/(n−1), …, 1/2 on the rules for n endpoints and no condition on the last one, because each rule only sees what the rules before it left: in the end every endpoint gets 1/n of new connections.',
      text(Number.isFinite(p) ? formatShare(p) : '?'),
    ),
  );
  return join(lines);
}

export function explainRecent(a: IptablesAnalysis, rule: Rule, option: Option | undefined): Md {
  const name = findMatchOption(rule, 'recent', '--name')?.values[0] ?? 'DEFAULT';
  const seconds = findMatchOption(rule, 'recent', '--seconds')?.values[0];
  const command = ['--set', '--rcheck', '--update', '--remove'].find((c) => findMatchOption(rule, 'recent', c));
  const caveat = mdT(
    "Caveat: the kernel's xt_recent module keeps at most 100 addresses per list by default (module parameter ip_list_tot); on a busy Service older clients are forgotten and lose their affinity silently.",
  );
  void option;
  if (!isKubeProxyAffinity(name, rule.chain, command, Boolean(findMatchOption(rule, 'recent', '--reap')))) return explainRecentList(rule, name, command);
  const lines = [md`${bold(mdT('Session affinity (ClientIP)'))} — ${mdT('recent list {0}', code(name))}`, md``];
  if (command === '--set') {
    lines.push(mdT("Records the client's source address in the list, so that its later connections within the affinity timeout are sent straight back to this same endpoint by the --rcheck rule in the Service chain."));
  } else {
    lines.push(
      mdT(
        'A client whose address is in the list (seen within the last {0} seconds) skips the random choice and goes back to the endpoint it used before. A new client falls through to the random rules below.',
        text(seconds ?? '?'),
      ),
    );
  }
  lines.push(md``, caveat);
  const entry = a.endpointByChain.get(rule.tableId, name);
  if (entry) lines.push(md``, mdT('This list belongs to endpoint {0}.', code(`${entry.endpoint.address}:${entry.endpoint.port}`)));
  return join(lines);
}

/** A recent list that is not kube-proxy's affinity (a rate limit, a port knock): what the match does, literally. */
function explainRecentList(rule: Rule, name: string, command: string | undefined): Md {
  const value = (o: string) => findMatchOption(rule, 'recent', o)?.values[0];
  const side = findMatchOption(rule, 'recent', '--rdest') ? t('destination') : t('source');
  const count = value('--hitcount') ?? '1';
  const within = value('--seconds');
  const check = within
    ? mdT("Matches when the list holds the packet's {0} address at least {1} times in the last {2} seconds.", text(side), text(count), text(within))
    : mdT("Matches when the list holds the packet's {0} address at least {1} times.", text(side), text(count));
  const body: Record<string, Md> = {
    '--set': mdT("Records the packet's {0} address in the list with the current time, and matches.", text(side)),
    '--rcheck': check,
    '--update': join([check, mdT('When it matches, the address is recorded again with the current time.')], ' '),
    '--remove': mdT("Matches when the packet's {0} address is in the list, and removes it from the list.", text(side)),
  };
  return join([
    md`${bold(mdT('Recently seen addresses'))} — ${mdT('recent list {0}', code(name))}`,
    md``,
    body[command ?? ''] ?? mdT('A recent match needs one of --set, --rcheck, --update or --remove.'),
    md``,
    mdT(
      'The list lives in the kernel (/proc/net/xt_recent/{0}), not in this dump: whether an address is in it depends on earlier packets. The kernel keeps at most 100 addresses per list and 20 time stamps per address by default (module parameters ip_list_tot, ip_pkt_list_tot).',
      text(name),
    ),
  ]);
}

export function explainDnat(a: IptablesAnalysis, rule: Rule): Md {
  const to = findTargetOption(rule, '--to-destination')?.values[0] ?? '';
  const lines = [md`**DNAT** → ${code(to)}`, md``];
  const entry = a.endpointByChain.get(rule.tableId, rule.chain);
  if (entry) {
    lines.push(mdT('Endpoint of **{0}**, chosen for {1} of new connections.', text(servicePortNameString(entry.service) + '/' + entry.service.protocol), text(formatShare(entry.endpoint.probability))), md``);
  }
  lines.push(
    mdT(
      "Rewrites the destination of the connection's first packet to {0}; conntrack applies the same rewrite to every later packet and reverses it on replies, so the client keeps talking to the Service address.",
      code(to),
    ),
  );
  return join(lines);
}

export function explainMasquerade(): Md {
  return join([
    md`**MASQUERADE**`,
    md``,
    mdT(
      'Source NAT to the address of the interface the packet leaves through. kube-proxy masquerades only packets that KUBE-MARK-MASQ marked with 0x4000: traffic from outside the cluster CIDR, hairpin traffic, and external traffic under externalTrafficPolicy: Cluster. Replies then come back through this node, which reverses both NATs.',
    ),
  ]);
}

export function explainMark(option: Option): Md {
  return join([
    md`${bold(mdT('Masquerade mark'))} ${code(`${option.name} ${option.values.join(' ')}`)}`,
    md``,
    mdT(
      'Bit 0x4000 of the packet mark is kube-proxy\'s "masquerade me" flag: KUBE-MARK-MASQ sets it (--or-mark 0x4000, shown by iptables-save as --set-xmark 0x4000/0x4000), KUBE-POSTROUTING masquerades packets that carry it and clears it (--xor-mark), and KUBE-FORWARD accepts them. The bit is configurable (--iptables-masquerade-bit, default 14).',
    ),
  ]);
}

export function explainTarget(name: string, option: Option | undefined, table: string): Md {
  const spec = TARGET_EXTENSIONS[name];
  const verdicts: Record<string, Md> = nameTable({
    ACCEPT: mdT('Stops processing in this table and lets the packet continue (to the next table or hook).'),
    DROP: mdT('Discards the packet silently: the client sees a timeout.'),
    RETURN: mdT('Leaves this chain and continues after the rule that jumped here (for a built-in chain, its policy applies).'),
    REJECT: mdT('Discards the packet and answers with an error (ICMP port unreachable by default): the client fails fast.'),
  });
  const lines = [bold(text(name)), md``, verdicts[name] ?? (spec ? summaryText(spec) : mdT('A target extension.'))];
  if (option) {
    const o = lookupTargetOption(name, option.name);
    if (o) lines.push(md``, md`${code(option.name)} — ${summaryText(o)}`);
  }
  if (name === 'DROP' && table === 'nat') lines.push(md``, mdT('Modern iptables refuses DROP in the nat table.'));
  return join(lines);
}

export function explainOption(module: string, option: Option | undefined, where: 'match' | 'param'): Md {
  const negation = option?.negated ? md` ${mdT('(negated: the rule matches when this does **not** hold)')}` : md``;
  const head = option ? code(`${option.negated ? '! ' : ''}${option.name} ${option.values.join(' ')}`.trim()) : md``;
  if (where === 'param' && option) {
    const spec = BASIC_OPTIONS[option.name];
    return md`${head} — ${spec ? summaryText(spec) : md``}${negation}`;
  }
  const ext = MATCH_EXTENSIONS[module];
  if (!option) {
    return ext ? md`**-m ${text(module)}** — ${summaryText(ext)}` : mdT('**-m {0}**: a match module this version does not know; kept as written.', text(module));
  }
  const spec = lookupMatchOption(module, option.name);
  return md`${head} — ${spec ? summaryText(spec) : mdT('an option of -m {0}', text(module))}${negation}`;
}
