// All settings of the extension, typed, in one place.
import * as vscode from 'vscode';

export interface Settings {
  /** Documents larger than this (in characters) are not analysed; the CLI handles them. */
  maxDocumentSize: number;
  /** Hint diagnostics for chains nothing jumps to. */
  reportUnreferencedChains: boolean;
  /** Open documents larger than this (in characters) are analysed in the worker thread (files beside them always are). */
  workerThreshold: number;
  /** After an edit of a document analysed in the worker, wait this long (ms) for more typing before re-parsing. */
  reanalyzeDelay: number;
  /** "Show in Graph" CodeLenses on Service chains and elements. */
  graphCodeLens: boolean;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('dataplane');
  return {
    maxDocumentSize: c.get<number>('maxDocumentSize', 100 * 1024 * 1024),
    reportUnreferencedChains: c.get<boolean>('reportUnreferencedChains', true),
    workerThreshold: c.get<number>('workerThreshold', 64 * 1024),
    reanalyzeDelay: c.get<number>('reanalyzeDelay', 300),
    graphCodeLens: c.get<boolean>('graph.codeLens', true),
  };
}
