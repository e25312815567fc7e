// Navigation across the files of a node snapshot (IPVS mode): an iptables `--match-set NAME` goes to the
// ipset; an ipset member `10.96.0.10,udp:53` goes to its IPVS virtual service; a virtual service's
// references are the ipset members naming it and the iptables rules matching those sets.
import { CappedDiagnostics, type Diagnostic } from './model/diagnostics';
import type { IpsetAnalysis } from './language/ipset';
import { t } from './l10n';
import type { IptablesAnalysis } from './language/iptables';
import type { IpvsadmAnalysis } from './language/ipvsadm';
import type { IpSet, IpsetMember } from './model/ipset';
import type { VirtualService } from './model/ipvs';
import { containsPosition, type Position, type Range } from './model/range';
import type { NodeSnapshot } from './snapshot';
import { iptablesBackendWriters } from './kube/backends';
import { mixedBackendsMessage } from './explain/backends';
import type { IptablesRuleset } from './model/iptables';
import { canonicalAddress as canonical } from './model/address';

export interface SnapshotLocation {
  fileIndex: number;
  range: Range;
}

const vsKey = (protocol: string, address: string | undefined, port: number | undefined) => `${protocol.toLowerCase()}|${canonical(address)}|${port ?? ''}`;

function memberKey(m: IpsetMember): string | undefined {
  if (m.address === undefined || m.port === undefined) return undefined;
  return vsKey(m.protocol ?? 'tcp', m.address, m.port);
}

type Target = { type: 'ipset'; name: string } | { type: 'vs'; key: string } | undefined;

/** What the cursor names in its own file, in snapshot terms. */
function targetAt(snapshot: NodeSnapshot, fileIndex: number, position: Position): Target {
  const file = snapshot.files[fileIndex];
  if (!file) return undefined;
  if (file.languageId === 'iptables') {
    const rule = (file.analysis as IptablesAnalysis).ruleset.ruleByLine.get(position.line);
    for (const m of rule?.matches ?? []) {
      if (m.module !== 'set') continue;
      for (const o of m.options) {
        if (o.name === '--match-set' && o.valueRanges[0] && containsPosition(o.valueRanges[0], position)) return { type: 'ipset', name: o.values[0] };
      }
    }
    return undefined;
  }
  if (file.languageId === 'ipset') {
    const dump = (file.analysis as IpsetAnalysis).dump;
    const entry = dump.memberByLine.get(position.line);
    if (entry && containsPosition(entry.member.textRange, position)) {
      const key = memberKey(entry.member);
      if (key) return { type: 'vs', key };
    }
    const hit = dump.symbols.at(position);
    if (hit) {
      const sym = hit.type === 'definition' ? hit.definition : hit.reference;
      if (sym.kind === 'ipset') return { type: 'ipset', name: sym.name };
    }
    return undefined;
  }
  if (file.languageId === 'ipvsadm') {
    const dump = (file.analysis as IpvsadmAnalysis).dump;
    const hit = dump.symbols.at(position);
    if (!hit) return undefined;
    const sym = hit.type === 'definition' ? hit.definition : hit.reference;
    const vs = dump.services.find((s) => s.name === sym.name);
    if (vs && vs.protocol !== 'fwmark') return { type: 'vs', key: vsKey(vs.protocol, vs.address, vs.port) };
  }
  return undefined;
}

function eachSet(snapshot: NodeSnapshot, fn: (set: IpSet, fileIndex: number) => void): void {
  snapshot.files.forEach((f, fileIndex) => {
    if (f.languageId === 'ipset') for (const s of (f.analysis as IpsetAnalysis).dump.sets) fn(s, fileIndex);
  });
}

function eachVirtualService(snapshot: NodeSnapshot, fn: (vs: VirtualService, fileIndex: number) => void): void {
  snapshot.files.forEach((f, fileIndex) => {
    if (f.languageId === 'ipvsadm') for (const s of (f.analysis as IpvsadmAnalysis).dump.services) fn(s, fileIndex);
  });
}

/** Definitions in other files of the snapshot for what the cursor names. */
export function snapshotDefinitions(snapshot: NodeSnapshot, fileIndex: number, position: Position): SnapshotLocation[] {
  const target = targetAt(snapshot, fileIndex, position);
  const out: SnapshotLocation[] = [];
  if (target?.type === 'ipset') {
    snapshot.files.forEach((f, i) => {
      if (i === fileIndex || f.languageId !== 'ipset') return;
      const def = (f.analysis as IpsetAnalysis).dump.symbols.definition('ipset', 'ipset', target.name);
      if (def) out.push({ fileIndex: i, range: def.range });
    });
  } else if (target?.type === 'vs' && snapshot.files[fileIndex]?.languageId !== 'ipvsadm') {
    eachVirtualService(snapshot, (vs, i) => {
      if (vs.protocol !== 'fwmark' && vsKey(vs.protocol, vs.address, vs.port) === target.key) out.push({ fileIndex: i, range: vs.nameRange });
    });
  }
  return out;
}

/** References in other files of the snapshot: ipset members and iptables rules for a virtual service or a set. */
export function snapshotReferences(snapshot: NodeSnapshot, fileIndex: number, position: Position): SnapshotLocation[] {
  const target = targetAt(snapshot, fileIndex, position);
  if (!target) return [];
  const out: SnapshotLocation[] = [];
  const setNames = new Set<string>();
  if (target.type === 'ipset') setNames.add(target.name);
  if (target.type === 'vs') {
    eachSet(snapshot, (set, i) => {
      for (const m of set.members) {
        if (memberKey(m) !== target.key) continue;
        setNames.add(set.name);
        if (i !== fileIndex) out.push({ fileIndex: i, range: m.textRange });
      }
    });
  }
  snapshot.files.forEach((f, i) => {
    if (f.languageId !== 'iptables' || i === fileIndex) return;
    for (const table of (f.analysis as IptablesAnalysis).ruleset.tables) {
      for (const rule of table.rules) {
        for (const m of rule.matches) {
          const o = m.module === 'set' ? m.options.find((x) => x.name === '--match-set') : undefined;
          if (o && setNames.has(o.values[0]) && o.valueRanges[0]) out.push({ fileIndex: i, range: o.valueRanges[0] });
        }
      }
    }
  });
  return out;
}

/** Problems only the whole snapshot shows: an iptables rule matching an ipset that the snapshot's ipset dump lacks. */
export function snapshotDiagnostics(snapshot: NodeSnapshot, fileIndex: number): Diagnostic[] {
  const file = snapshot.files[fileIndex];
  if (!file || file.languageId !== 'iptables') return [];
  return [...mixedBackends(snapshot, fileIndex), ...unknownIpsets(snapshot, fileIndex)];
}

/** The iptables dumps of a snapshot with their file index. */
export function iptablesDumps(snapshot: NodeSnapshot): { fileIndex: number; ruleset: IptablesRuleset }[] {
  return snapshot.files.flatMap((f, fileIndex) => (f.languageId === 'iptables' ? [{ fileIndex, ruleset: (f.analysis as IptablesAnalysis).ruleset }] : []));
}

/** Both backends hold rules (in this file or beside it): a warning on this file's `# Generated by` lines. */
function mixedBackends(snapshot: NodeSnapshot, fileIndex: number): Diagnostic[] {
  const list = iptablesBackendWriters(iptablesDumps(snapshot));
  if (list.length < 2) return [];
  const message = mixedBackendsMessage(list);
  return list.flatMap((w) => w.headers.filter((h) => h.fileIndex === fileIndex).map((h): Diagnostic => ({ range: h.range, severity: 'warning', code: 'mixed-iptables-backends', message })));
}

function unknownIpsets(snapshot: NodeSnapshot, fileIndex: number): Diagnostic[] {
  const file = snapshot.files[fileIndex];
  const ipsetFiles = snapshot.files.filter((f) => f.languageId === 'ipset');
  if (ipsetFiles.length === 0) return [];
  const known = new Set<string>();
  for (const f of ipsetFiles) for (const s of (f.analysis as IpsetAnalysis).dump.sets) known.add(s.name);
  const out = new CappedDiagnostics();
  for (const table of (file.analysis as IptablesAnalysis).ruleset.tables) {
    for (const rule of table.rules) {
      for (const m of rule.matches) {
        const o = m.module === 'set' ? m.options.find((x) => x.name === '--match-set') : undefined;
        if (!o || !o.values[0] || known.has(o.values[0]) || !o.valueRanges[0]) continue;
        out.push({
          range: o.valueRanges[0],
          severity: 'warning',
          code: 'unknown-ipset',
          message: t('The ipset dump of this node has no set {0}: iptables-restore would fail ("Set {0} doesn\'t exist").', o.values[0]),
        });
      }
    }
  }
  return out.close();
}
