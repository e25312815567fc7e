// All settings of the extension, typed, in one place.
import * as vscode from 'vscode';

export interface Settings {
  /** Documents larger than this (in characters) are not analysed; the CLI handles them. */
  maxDocumentSize: number;
  /** Hint diagnostics for chains nothing jumps to. */
  reportUnreferencedChains: boolean;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('dataplane');
  return {
    maxDocumentSize: c.get<number>('maxDocumentSize', 100 * 1024 * 1024),
    reportUnreferencedChains: c.get<boolean>('reportUnreferencedChains', true),
  };
}
