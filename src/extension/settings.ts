// All settings of the extension, typed, in one place. maxDocumentSize and workerThreshold bound the work done
// on the extension host: package.json lists them in untrustedWorkspaces.restrictedConfigurations, so in
// Restricted Mode VS Code hands out only the user's (or the default) value, never a repository's.
import * as vscode from 'vscode';
import { parseUserAddress } from '../core/model/address';

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
  /** This node's addresses (dataplane.nodeIPs), the ones that are addresses; at most MAX_NODE_IPS. */
  nodeIPs: string[];
}

const MAX_NODE_IPS = 256;

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('dataplane');
  return {
    maxDocumentSize: count(c.get('maxDocumentSize'), 100 * 1024 * 1024),
    reportUnreferencedChains: c.get<boolean>('reportUnreferencedChains', true) !== false,
    workerThreshold: count(c.get('workerThreshold'), 64 * 1024),
    reanalyzeDelay: Math.min(count(c.get('reanalyzeDelay'), 300), 10_000),
    graphCodeLens: c.get<boolean>('graph.codeLens', true) !== false,
    nodeIPs: addresses(c.get('nodeIPs')),
  };
}

/** A setting that should be a count: a finite number ≥ 0 (settings.json is not checked against the schema). */
function count(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function addresses(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((ip): ip is string => typeof ip === 'string' && ip.length <= 64 && parseUserAddress(ip) !== undefined).slice(0, MAX_NODE_IPS);
}
