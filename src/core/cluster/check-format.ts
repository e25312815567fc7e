// The cluster check's result for the command line: the JSON of `dataplane check --json` and the text report,
// grouped by Service, worst first (the findings come sorted so).
import { formatHostPort } from '../model/address';
import { humanPosition } from '../model/range';
import { servicePortText } from './check';
import type { CheckResult, Finding, NodeIdentity } from './types';

export function checkToJson(result: CheckResult): unknown {
  return {
    node: nodeJson(result.node),
    mode: result.mode,
    findings: result.findings.map(findingJson),
    summary: result.summary,
  };
}

function nodeJson(node: NodeIdentity): { name: string | null; inferredFrom?: string } {
  return { name: node.name ?? null, ...(node.inferredFrom ? { inferredFrom: node.inferredFrom } : {}) };
}

function findingJson(f: Finding): unknown {
  return {
    code: f.code,
    severity: f.severity,
    service: f.service,
    ...(f.endpoint !== undefined ? { endpoint: f.endpoint } : {}),
    ...(f.frontend !== undefined ? { frontend: f.frontend } : {}),
    ...(f.expected !== undefined ? { expected: f.expected } : {}),
    ...(f.actual !== undefined ? { actual: f.actual } : {}),
    reason: f.reason,
    message: f.message,
    evidence: f.evidence.map((e) => ({ file: e.file, line: humanPosition(e.range.start).line })),
  };
}

/** One line saying which node the dump is taken to be, and how that is known. */
export function nodeLine(node: NodeIdentity): string {
  if (node.name && !node.inferredFrom) return `node: ${node.name} (given)`;
  if (node.name) return `node: ${node.name} (inferred from ${node.inferredFrom}: ${node.evidence ?? ''})`;
  const candidates = node.candidates?.length ? `; it could be ${node.candidates.slice(0, 8).join(', ')}${node.candidates.length > 8 ? ', …' : ''}` : '';
  return `node: not identified${candidates}: give --node NAME (Local traffic policies and topology are judged without a node)`;
}

const evidenceText = (f: Finding) => f.evidence.map((e) => `${e.file}:${humanPosition(e.range.start).line}`).join(', ');

/** The report: the node and mode, then each Service's findings under its name, then the counts. */
export function checkToText(result: CheckResult): string[] {
  const lines = [nodeLine(result.node), `kube-proxy mode: ${result.mode}`, ''];
  let group: string | undefined;
  for (const f of result.findings) {
    const name = f.service.namespace ? `${f.service.namespace}/${f.service.name}` : f.service.name || 'kube-proxy';
    if (name !== group) {
      if (group !== undefined) lines.push('');
      lines.push(name);
      group = name;
    }
    const port = f.service.protocol ? `${servicePortText(f.service)} ${f.service.protocol}` : servicePortText(f.service) || 'mode';
    const what = f.endpoint ?? (f.frontend ? `${f.frontend.kind} ${formatHostPort(f.frontend.address, f.frontend.port)}` : '');
    lines.push(`  ${f.severity.padEnd(7)} ${f.code}  ${port}${what ? `  ${what}` : ''}`);
    lines.push(`          ${f.message}`);
    lines.push(`          why: ${f.reason}`);
    if (f.expected !== undefined || f.actual !== undefined) lines.push(`          expected: ${f.expected ?? '—'}; rules: ${f.actual ?? '—'}`);
    if (f.evidence.length) lines.push(`          at ${evidenceText(f)}`);
  }
  if (result.findings.length) lines.push('');
  const s = result.summary;
  lines.push(`${s.servicePorts} service ports expected, ${s.programmed} programmed; ${s.findings.error} errors, ${s.findings.warning} warnings, ${s.findings.info} info`);
  return lines;
}
