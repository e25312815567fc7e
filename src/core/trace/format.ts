// A trace as text, Markdown and JSON: the CLI prints these and the Trace view copies them, so both say the same.
import { formatShare } from '../kube/service';
import { code, join, md, text, type Md } from '../explain/markdown';
import { hostPort } from './engine';
import { shownOutcomes, traceToJson, type OutcomeEndpoint, type PathStep, type TraceResult } from './index';

const baseName = (name: string) => name.replace(/^.*[\\/]/, '');
const ENTRY = { pod: 'from a pod on this node', node: 'from this node', external: 'from outside the cluster' } as const;

/** `tcp 10.0.0.1 → 10.96.0.10:53 (from a pod on this node)`, the packet in one line. */
export function packetLine(result: TraceResult): string {
  const p = result.packet;
  return `${p.protocol} ${p.src} → ${hostPort(p.dst, p.dport)} (${ENTRY[p.entry]})`;
}

/** One step of a path: where it is, what it did, then the rule as the dump has it. */
export function stepText(step: PathStep, names: string[]): string {
  return `${baseName(names[step.fileIndex] ?? '')}:${step.line + 1}  ${step.table}/${step.chain}  ${step.note}\n${step.text}`;
}

/** `Service ns/name:port · EndpointSlice x · Pod ns/name`: the outcome's endpoint as the cluster state names it. */
export function endpointLine(e: OutcomeEndpoint): string {
  return [`Service ${e.service}`, e.endpointSlice ? `EndpointSlice ${e.endpointSlice}` : '', e.pod ?? ''].filter(Boolean).join(' · ');
}

/**
 * The text of `dataplane trace` (without --json); `service` names the Service the destination is a frontend of, `hints`
 * are lines said after the warnings.
 */
export function traceToText(result: TraceResult, names: string[], service = result.service, hints: string[] = []): string[] {
  const lines = [service ? `${packetLine(result)} · Service ${service}` : packetLine(result)];
  if (result.source && result.source.origin !== 'stand-in') lines.push(`  ${result.source.text}`);
  for (const w of result.warnings) lines.push(`  warning: ${w}`);
  for (const h of hints) lines.push(`  ${h}`);
  if (result.outcomes.length === 0) lines.push('  no outcome');
  const { shown, more } = shownOutcomes(result);
  if (shown.some((o) => o.conditions.length > 0)) lines.push('  outcomes under different assumptions are alternatives: each share is of new connections under its own assumptions');
  for (const o of shown) {
    const what = o.verdict === 'dnat' ? `DNAT → ${o.destination}` : o.verdict.toUpperCase();
    lines.push('', `${formatShare(o.probability).padStart(6)}  ${what}${o.masquerade ? '  (masqueraded)' : ''}`);
    for (const a of o.assumptions) lines.push(`        ${a}`);
    if (o.endpoint) lines.push(`        endpoint: ${endpointLine(o.endpoint)}`);
    if (o.endpoint?.note) lines.push(`        API: ${o.endpoint.note}`);
    for (const s of o.path) lines.push(`        ${baseName(names[s.fileIndex] ?? '')}:${s.line + 1}  ${s.table}/${s.chain}  ${s.note}`);
    for (const n of o.notes) lines.push(`        note: ${n}`);
  }
  if (more > 0) lines.push('', `… ${more} more outcome${more === 1 ? '' : 's'} not shown`);
  return lines;
}

/** The JSON of `dataplane trace --json`, as it prints it. */
export const traceToJsonText = (result: TraceResult, names: string[]): string => JSON.stringify(traceToJson(result, names), null, 2);

/** The trace as Markdown for an issue or a chat: dump text escaped (text) or in code spans (code). */
export function traceToMarkdown(result: TraceResult, names: string[], service = result.service): Md {
  const head: Md[] = [md`**${text(packetLine(result))}**`];
  if (service) head.push(md`Service ${code(service)}`);
  if (result.source && result.source.origin !== 'stand-in') head.push(text(result.source.text));
  for (const w of result.warnings) head.push(md`⚠ ${text(w)}`);
  if (result.outcomes.length === 0) head.push(text('no outcome'));
  const { shown, more } = shownOutcomes(result);
  const blocks = shown.map((o) => {
    const what = o.verdict === 'dnat' ? md`DNAT → ${code(o.destination ?? '')}` : text(o.verdict.toUpperCase());
    const lines: Md[] = [md`### ${text(formatShare(o.probability))} ${what}${o.masquerade ? text(' (masqueraded)') : text('')}`, text('')];
    for (const a of o.assumptions) lines.push(md`- ${text(`if: ${a}`)}`);
    if (o.endpoint) lines.push(md`- ${text('endpoint: ')}${code(endpointLine(o.endpoint))}`);
    if (o.endpoint?.note) lines.push(md`- ⚠ ${text(`API: ${o.endpoint.note}`)}`);
    o.path.forEach((s, k) => lines.push(md`${k + 1}. ${code(`${baseName(names[s.fileIndex] ?? '')}:${s.line + 1}`)} ${code(`${s.table}/${s.chain}`)} ${text(s.note)}\n   ${code(s.text)}`));
    for (const n of o.notes) lines.push(md`- ${text(`note: ${n}`)}`);
    return join(lines);
  });
  if (more > 0) blocks.push(text(`… ${more} more outcome${more === 1 ? '' : 's'} not shown`));
  return join([join(head, '\n\n'), ...blocks], '\n\n');
}
