// Language features for ipvsadm output and restore input, as pure functions over the analysed document.
import { CappedDiagnostics } from '../model/diagnostics';
import {
  CONNECTION_COUNT_SCHEDULERS,
  DESTINATION_SCHEDULERS,
  realServerLabel,
  SOURCE_HASH_SCHEDULERS,
  weightShares,
  type IpvsCommand,
  type IpvsConnection,
  type IpvsDump,
  type RealServer,
  type VirtualService,
} from '../model/ipvs';
import { containsPosition, type Position, type Range } from '../model/range';
import type { SymbolDefinition } from '../model/symbols';
import { parseIpvsadm } from '../parse/ipvs/parser';
import { explainColumns, explainConnectionState, explainForward, explainIpvsHeader, explainPersistence, explainSchedFlag, explainScheduler, explainWeight, schedulerPredictability, schedulerTitle } from '../explain/ipvs';
import { t } from '../l10n';
import { probableNodePorts } from '../kube/ipvs-catalog';
import { formatShare } from '../kube/service';
import { bold, code, join, md, mdT, text, type Md } from '../explain/markdown';
import type { IpvsadmAnalysis } from '../analysis';
export type { IpvsadmAnalysis } from '../analysis';
import { cappedItems, type FoldingRange, type Hover, type LanguageFeatures, type OutlineItem, type StatusSummary } from './types';

export function analyzeIpvsadm(text: string): IpvsadmAnalysis {
  const dump = parseIpvsadm(text);
  const found = new CappedDiagnostics(dump.diagnostics);
  for (const svc of dump.services) {
    // A listing (not a connection table or a lone -a line) that shows a virtual service without servers.
    if (svc.realServers.length === 0 && svc.format !== 'connections') {
      if (found.full) {
        found.unreported++;
        continue;
      }
      found.push({
        range: svc.nameRange,
        severity: 'warning',
        code: 'no-real-servers',
        message: t('{0} has no real servers: IPVS answers new connections with ICMP port unreachable (a Service without ready endpoints).', svc.name),
      });
    }
  }
  return { dialect: 'ipvsadm', dump, diagnostics: found.close() };
}

/** The defining line of the virtual service under the cursor (service line, `-A` line, `-a` line, connection entry). */
export function definitionAt(a: IpvsadmAnalysis, position: Position): SymbolDefinition | undefined {
  const def = a.dump.symbols.resolve(position);
  return def && def.kind === 'virtualService' ? def : undefined;
}

export function referencesAt(a: IpvsadmAnalysis, position: Position, includeDeclaration: boolean): Range[] {
  const hit = a.dump.symbols.at(position);
  if (!hit) return [];
  const { kind, scope, name } = hit.type === 'definition' ? hit.definition : hit.reference;
  if (kind !== 'virtualService') return [];
  const out: Range[] = [];
  const def = a.dump.symbols.definition(kind, scope, name);
  if (includeDeclaration && def) out.push(def.range);
  for (const ref of a.dump.symbols.referencesTo(kind, scope, name)) out.push(ref.range);
  return out;
}

function forwardLabel(r: RealServer): string {
  if (r.notInDump.includes('forward')) return '';
  if (r.localNode) return 'Local';
  return { masq: 'Masq', route: 'Route', tunnel: 'Tunnel' }[r.forward];
}

function serverDetail(r: RealServer, share: number | undefined): string {
  const parts: string[] = [];
  const fwd = forwardLabel(r);
  if (fwd) parts.push(fwd);
  if (!r.notInDump.includes('weight')) parts.push(t('weight {0}', r.weight));
  if (share !== undefined) parts.push(formatShare(share));
  if (r.activeConn !== undefined) parts.push(t('{0} active', r.activeConn));
  if (r.inactConn !== undefined) parts.push(t('{0} inactive', r.inactConn));
  return parts.join(' · ');
}

export function outline(a: IpvsadmAnalysis, limit = Number.POSITIVE_INFINITY): OutlineItem[] {
  const services = a.dump.services;
  const items: OutlineItem[] = cappedItems(services.length, limit, (k) => {
    const svc = services[k];
    const shares = weightShares(svc);
    const children: OutlineItem[] = svc.realServers.map((r, k) => ({
      name: realServerLabel(r),
      detail: serverDetail(r, shares?.[k]),
      kind: 'object' as const,
      range: r.range,
      selectionRange: r.addressRange,
      children: [],
    }));
    const facts = [svc.scheduler ?? '', svc.realServers.length === 1 ? t('1 real server') : t('{0} real servers', svc.realServers.length)];
    if (svc.persistent) facts.push(t('persistent {0} s', svc.persistent.timeout));
    return {
      name: svc.name,
      detail: facts.filter((f) => f !== '').join(' · '),
      kind: 'service' as const,
      range: svc.fullRange,
      selectionRange: svc.nameRange,
      children,
    };
  });
  const conns = a.dump.connections;
  if (conns.length > 0) {
    const header = a.dump.headers.find((h) => (h.kind === 'connections' || h.kind === 'connection-columns') && h.range.start.line <= conns[0].line);
    const first = header?.range ?? conns[0].range;
    const last = conns[conns.length - 1].range;
    items.push({
      name: t('IPVS connection entries'),
      detail: conns.length === 1 ? t('1 connection') : t('{0} connections', conns.length),
      kind: 'table',
      range: { start: first.start, end: last.end },
      selectionRange: first,
      children: [],
    });
  }
  return items;
}

/** Each virtual service with its real servers, and the connection table. */
export function foldingRanges(a: IpvsadmAnalysis): FoldingRange[] {
  const out: FoldingRange[] = [];
  for (const svc of a.dump.services) {
    if (svc.fullRange.end.line > svc.fullRange.start.line) out.push({ start: svc.fullRange.start.line, end: svc.fullRange.end.line });
  }
  const conns = a.dump.connections;
  if (conns.length > 0) {
    const header = a.dump.headers.find((h) => h.kind === 'connections' && h.range.start.line <= conns[0].line);
    const start = header ? header.range.start.line : conns[0].line;
    const end = conns[conns.length - 1].line;
    if (end > start) out.push({ start, end });
  }
  return out;
}

/** The hover of a virtual service: scheduler, persistence and each real server with its share. */
/** The NodePort guesses of a dump, made once per dump (see probableNodePorts). */
const nodePortGuesses = new WeakMap<IpvsDump, (vs: VirtualService) => string | undefined>();

function nodePortGuess(dump: IpvsDump, svc: VirtualService): string | undefined {
  let guess = nodePortGuesses.get(dump);
  if (!guess) nodePortGuesses.set(dump, (guess = probableNodePorts(dump.services)));
  return guess(svc);
}

/** A virtual service in words; with its `dump`, whether it is probably a NodePort (a guess, and said to be one). */
export function serviceHover(svc: VirtualService, dump?: IpvsDump): Md {
  const lines: Md[] = [md`${bold(text(svc.name))} — ${mdT('IPVS virtual service')}`, md``];
  const guess = dump ? nodePortGuess(dump, svc) : undefined;
  if (guess) lines.push(mdT("Kind: {0}. IPVS keeps no Service kinds; kube-proxy's ipsets (saved with {1}) tell for sure.", text(guess), code('ipset save')), md``);
  const facts: Md[] = [];
  if (svc.scheduler) facts.push(md`${schedulerTitle(svc.scheduler)} (${code(svc.scheduler)})`);
  if (svc.persistent) facts.push(mdT('persistent {0} s', svc.persistent.timeout));
  if (svc.flags.length > 0) facts.push(join(svc.flags.map(code), ', '));
  facts.push(svc.realServers.length === 1 ? mdT('1 real server') : mdT('{0} real servers', svc.realServers.length));
  lines.push(join(facts, ' · '));
  if (svc.protocol === 'fwmark') {
    lines.push(md``, mdT('A firewall-mark service: it takes every packet that iptables marked with {0}, whatever its address and port.', svc.fwmark ?? text('?')));
  }
  // The answer (real servers and their shares) first; what the scheduler does in general comes last.
  const scheduler = svc.scheduler ? [md``, explainScheduler(svc.scheduler)] : [];
  if (svc.realServers.length === 0) {
    lines.push(
      md``,
      mdT('No real servers: IPVS cannot schedule new connections to this service and answers them with ICMP port unreachable. kube-proxy keeps the virtual service of a Service that has no ready endpoints.'),
    );
    return join([...lines, ...scheduler]);
  }
  const shares = weightShares(svc);
  const predict = schedulerPredictability(svc.scheduler);
  lines.push(md``, predict ? md`${mdT('Real servers:')} ${predict}` : mdT('Real servers:'));
  svc.realServers.forEach((r, k) => {
    lines.push(md`- ${code(realServerLabel(r))} — ${text(serverDetail(r, shares?.[k]))}`);
  });
  const sched = svc.scheduler ?? '';
  if (CONNECTION_COUNT_SCHEDULERS.has(sched)) {
    lines.push(md``, mdT('{0} decides by the live connection counts (and weights): the next connection goes to whichever server is least loaded at that moment, so no fixed share can be given.', code(sched)));
  } else if (SOURCE_HASH_SCHEDULERS.has(sched)) {
    lines.push(md``, mdT('{0} decides by a hash of the client address: a given client always reaches the same server; over many clients the spread follows the weights.', code(sched)));
  } else if (DESTINATION_SCHEDULERS.has(sched)) {
    lines.push(md``, mdT('{0} decides by the destination address.', code(sched)));
  }
  if (svc.realServers.some((r) => r.weight === 0 && !r.notInDump.includes('weight'))) {
    lines.push(md``, mdT('Servers with weight 0 take no new connections (kube-proxy: endpoint terminating).'));
  }
  if (svc.persistent) {
    lines.push(md``, mdT('Persistence overrides the scheduler for returning clients: a client that connected in the last {0} s goes back to the same real server.', svc.persistent.timeout));
  }
  return join([...lines, ...scheduler]);
}

function realServerHover(svc: VirtualService, r: RealServer): Md {
  const shares = weightShares(svc);
  const share = shares?.[svc.realServers.indexOf(r)];
  const lines = [md`${bold(text(realServerLabel(r)))} — ${mdT('real server of {0}', text(svc.name))}`, md``];
  lines.push(text(serverDetail(r, share)));
  if (share !== undefined) {
    const how = svc.scheduler === 'rr' ? mdT('{0}: equal turns for every server with weight above 0', code('rr')) : mdT('{0}: its weight divided by the sum of the weights', code(svc.scheduler ?? ''));
    lines.push(
      md``,
      svc.persistent
        ? mdT('Gets **{0}** of new clients ({1}); a client that returns within {2} s comes back to the same server.', text(formatShare(share)), how, svc.persistent.timeout)
        : mdT('Gets **{0}** of new connections ({1}).', text(formatShare(share)), how),
    );
  } else if (svc.scheduler && CONNECTION_COUNT_SCHEDULERS.has(svc.scheduler)) {
    lines.push(md``, mdT('Its share depends on live connection counts ({0}).', code(svc.scheduler)));
  } else if (svc.scheduler && (SOURCE_HASH_SCHEDULERS.has(svc.scheduler) || DESTINATION_SCHEDULERS.has(svc.scheduler))) {
    lines.push(md``, mdT('Which clients reach it depends on a hash of their address ({0}).', code(svc.scheduler)));
  }
  if (r.persistConn !== undefined) lines.push(md``, mdT('{0} clients are pinned to it by persistence templates.', r.persistConn));
  if (r.upperThreshold !== undefined || r.lowerThreshold !== undefined) {
    lines.push(md``, mdT('Connection thresholds: upper {0}, lower {1} (0 = none).', r.upperThreshold ?? 0, r.lowerThreshold ?? 0));
  }
  if (r.stats) lines.push(md``, statsLine(r.stats));
  if (!r.notInDump.includes('forward')) lines.push(md``, explainForward(r.forward, r.localNode));
  if (r.tunnel) lines.push(md``, mdT('Tunnel {0}.', code(r.tunnel.text)));
  return join(lines);
}

function statsLine(s: NonNullable<RealServer['stats']>): Md {
  const line =
    s.kind === 'stats'
      ? mdT('{0} connections, {1} packets in, {2} packets out, {3} bytes in, {4} bytes out since creation.', s.conns, s.inPackets, s.outPackets, s.inBytes, s.outBytes)
      : mdT('{0} connections/s, {1} packets/s in, {2} packets/s out, {3} bytes/s in, {4} bytes/s out.', s.conns, s.inPackets, s.outPackets, s.inBytes, s.outBytes);
  return s.approximate ? md`${line} ${mdT('(shortened by ipvsadm; --exact prints exact numbers)')}` : line;
}

export function hoverAt(a: IpvsadmAnalysis, position: Position): Hover | undefined {
  const at = (r: Range | undefined) => r !== undefined && containsPosition(r, position);
  const dump = a.dump;
  const header = dump.headers.find((h) => h.range.start.line === position.line);
  if (header && header.kind !== 'comment' && header.kind !== 'prompt' && header.kind !== 'daemon') {
    return { markdown: explainIpvsHeader(header.kind, header.format, dump.tableSize), range: header.range };
  }
  const rs = dump.realServerByLine.get(position.line);
  if (rs) {
    const { service, server } = rs;
    const command = dump.commandByLine.get(position.line);
    if (command) return commandHover(a, command, position) ?? { markdown: realServerHover(service, server), range: rs.range };
    if (server.line === position.line) {
      if (at(server.forwardRange)) return { markdown: explainForward(server.forward, server.localNode), range: server.forwardRange! };
      if (at(server.weightRange)) return { markdown: weightHover(service, server), range: server.weightRange! };
      for (const r of [server.activeRange, server.inactRange]) {
        if (at(r)) return { markdown: explainColumns('list'), range: r! };
      }
      return { markdown: realServerHover(service, server), range: server.addressRange };
    }
    return { markdown: realServerHover(service, server), range: rs.range };
  }
  const svc = dump.serviceByLine.get(position.line);
  const command = dump.commandByLine.get(position.line);
  if (command) {
    const h = commandHover(a, command, position);
    if (h) return h;
    return svc ? { markdown: serviceHover(svc, dump), range: svc.nameRange } : undefined;
  }
  if (svc && svc.line === position.line) {
    if (at(svc.schedulerRange)) return { markdown: schedulerHover(svc), range: svc.schedulerRange! };
    if (svc.persistent && at(svc.persistent.range)) return { markdown: explainPersistence(svc.persistent, svc.family), range: svc.persistent.range };
    const flag = svc.flagRanges.findIndex((r) => at(r));
    if (flag >= 0) return { markdown: join(svc.flags.map(explainSchedFlag), '\n\n'), range: svc.flagRanges[flag] };
    if (svc.stats && at(svc.stats.range)) return { markdown: md`${explainColumns(svc.stats.kind)}\n\n${statsLine(svc.stats)}`, range: svc.stats.range };
    return { markdown: serviceHover(svc, dump), range: svc.nameRange };
  }
  if (svc) {
    return { markdown: serviceHover(svc, dump), range: svc.nameRange };
  }
  const conn = dump.connectionByLine.get(position.line);
  if (conn) return connectionHover(a, conn, position);
  return undefined;
}

function schedulerHover(svc: VirtualService): Md {
  const sched = svc.scheduler ?? '';
  const lines = [md`${bold(schedulerTitle(sched))} — ${code(sched)}`, md``, explainScheduler(sched)];
  const shares = weightShares(svc);
  if (shares && svc.realServers.length > 0) {
    lines.push(md``, mdT('For {0}:', text(svc.name)));
    svc.realServers.forEach((r, k) => lines.push(md`- ${code(realServerLabel(r))} — ${text(formatShare(shares[k]))}`));
  } else if (CONNECTION_COUNT_SCHEDULERS.has(sched) && svc.realServers.length > 0) {
    lines.push(md``, mdT('Connection counts in this dump:'));
    for (const r of svc.realServers) {
      lines.push(md`- ${code(realServerLabel(r))} — ${text(serverDetail(r, undefined))}`);
    }
  }
  return join(lines);
}

function weightHover(svc: VirtualService, r: RealServer): Md {
  const lines = [explainWeight(r.weight)];
  const shares = weightShares(svc);
  const share = shares?.[svc.realServers.indexOf(r)];
  if (share !== undefined) lines.push(md``, mdT('With {0} this server gets **{1}** of new connections.', code(svc.scheduler ?? ''), text(formatShare(share))));
  return join(lines);
}

function connectionHover(a: IpvsadmAnalysis, c: IpvsConnection, position: Position): Hover {
  const at = (r: Range) => containsPosition(r, position);
  if (at(c.stateRange)) return { markdown: explainConnectionState(c.state), range: c.stateRange };
  if (at(c.expiresRange)) {
    return { markdown: mdT('Expires in {0} s (minutes:seconds). Each packet of the connection resets it to the timeout of its state.', c.expires), range: c.expiresRange };
  }
  if (at(c.virtual.range)) {
    const svc = a.dump.services.find((s) => s.name === `${c.protocol} ${c.virtual.text}`);
    if (svc) return { markdown: serviceHover(svc), range: c.virtual.range };
  }
  const lines = [
    md`${bold(mdT('IPVS connection'))} — ${code(c.protocol)}`,
    md``,
    mdT('Client {0} → virtual service {1} → real server {2}.', code(c.source.text), code(c.virtual.text), code(c.destination.text)),
    md``,
    explainConnectionState(c.state),
  ];
  if (c.source.port === 0 && c.state === 'NONE') lines.push(md``, mdT('Source port 0 marks a persistence template: it pins this client to the real server.'));
  return { markdown: join(lines), range: c.range };
}

function commandHover(a: IpvsadmAnalysis, command: IpvsCommand, position: Position): Hover | undefined {
  const at = (r: Range) => containsPosition(r, position);
  const svc = command.service ? a.dump.services.find((s) => s.name === command.service) : undefined;
  for (const o of command.options) {
    if (!at(o.range)) continue;
    switch (o.name) {
      case '-s':
        return { markdown: svc ? schedulerHover(svc) : explainScheduler(o.values[0] ?? ''), range: o.range };
      case '-p':
        return { markdown: svc?.persistent ? explainPersistence(svc.persistent, svc.family) : mdT('Persistence: connections from one client go to the same real server.'), range: o.range };
      case '-M':
        return { markdown: svc?.persistent ? explainPersistence(svc.persistent, svc.family) : mdT('The persistence netmask.'), range: o.range };
      case '-b':
        return { markdown: join((o.values[0] ?? '').split(',').map(explainSchedFlag), '\n\n'), range: o.range };
      case '-o':
        return { markdown: explainSchedFlag('ops'), range: o.range };
      case '-m':
        return { markdown: explainForward('masq'), range: o.range };
      case '-g':
        return { markdown: explainForward('route'), range: o.range };
      case '-i':
        return { markdown: explainForward('tunnel'), range: o.range };
      case '-w': {
        const entry = a.dump.realServerByLine.get(command.line);
        return { markdown: entry ? weightHover(entry.service, entry.server) : explainWeight(Number(o.values[0])), range: o.range };
      }
      case '-r': {
        const entry = a.dump.realServerByLine.get(command.line);
        if (entry) return { markdown: realServerHover(entry.service, entry.server), range: o.range };
        return undefined;
      }
      case '-t':
      case '-u':
      case '--sctp-service':
      case '-f':
        if (svc) return { markdown: serviceHover(svc), range: o.valueRanges[0] ?? o.range };
        return undefined;
    }
  }
  if (svc && command.command === 'add-service') return { markdown: serviceHover(svc), range: command.range };
  return undefined;
}

export function statusSummary(a: IpvsadmAnalysis): StatusSummary {
  const dump = a.dump;
  return {
    dialect: 'ipvsadm',
    producer: dump.producer,
    backend: 'ipvs',
    family: dump.family,
    tables: 0,
    chains: dump.services.length,
    rules: dump.services.reduce((n, s) => n + s.realServers.length, 0),
    services: 0,
    errors: a.diagnostics.filter((d) => d.severity === 'error').length,
    warnings: a.diagnostics.filter((d) => d.severity === 'warning').length,
  };
}

export const ipvsadmFeatures: LanguageFeatures<IpvsadmAnalysis> = {
  languageId: 'ipvsadm',
  analyze: analyzeIpvsadm,
  definitionAt,
  referencesAt,
  outline,
  foldingRanges,
  hoverAt,
  statusSummary,
  services: () => [],
};
