// Core ranges are already 0-based like VS Code's; this only builds the vscode objects.
import * as vscode from 'vscode';
import type { Diagnostic, Severity } from '../core/model/diagnostics';
import type { Range } from '../core/model/range';

export function toRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

export function toPosition(p: vscode.Position): { line: number; character: number } {
  return { line: p.line, character: p.character };
}

const SEVERITY: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

export function toDiagnostic(d: Diagnostic): vscode.Diagnostic {
  const out = new vscode.Diagnostic(toRange(d.range), d.message, SEVERITY[d.severity]);
  out.code = d.code;
  out.source = 'dataplane';
  if (d.unnecessary) out.tags = [vscode.DiagnosticTag.Unnecessary];
  return out;
}

/** Markdown built by core/explain/markdown, which escapes dump text; only the code's own commands run, never HTML. */
export function toMarkdown(markdown: string, commands?: string[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString(markdown);
  md.isTrusted = commands && commands.length ? { enabledCommands: commands } : false;
  md.supportHtml = false;
  return md;
}
