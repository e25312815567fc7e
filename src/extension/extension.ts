// Activation: wires the pure core to VS Code. Every provider lives in its own file under providers/.
import * as vscode from 'vscode';
import { setTranslator } from '../core/l10n';
import { DocumentCache } from './documentCache';
import { Log } from './log';
import { Snapshots } from './snapshots';
import * as commands from './providers/commands';
import * as definition from './providers/definition';
import * as diagnostics from './providers/diagnostics';
import * as documentSymbols from './providers/documentSymbols';
import * as firstLine from './providers/firstLine';
import * as folding from './providers/folding';
import * as hover from './providers/hover';
import * as languageStatus from './providers/languageStatus';
import * as references from './providers/references';
import * as samples from './providers/samples';
import * as semanticTokens from './providers/semanticTokens';
import * as trace from './trace/commands';
import * as graph from './graph/panel';

export function activate(context: vscode.ExtensionContext): void {
  const started = Date.now();
  // Core messages are English keys with {0} placeholders, exactly what vscode.l10n.t expects.
  setTranslator((message, args) => vscode.l10n.t(message, ...args.map(String)));
  const log = new Log(context);
  const cache = new DocumentCache(log);
  const snapshots = new Snapshots(cache, log);
  context.subscriptions.push(cache, { dispose: () => setTranslator(undefined) });
  firstLine.register(context, log);
  definition.register(context, cache, snapshots);
  references.register(context, cache, snapshots);
  documentSymbols.register(context, cache);
  folding.register(context, cache);
  hover.register(context, cache);
  diagnostics.register(context, cache, snapshots);
  languageStatus.register(context, cache);
  semanticTokens.register(context, cache);
  commands.register(context, cache, log);
  samples.register(context, log);
  trace.register(context, cache, snapshots, log);
  graph.register(context, snapshots, log);
  log.info(`activated in ${Date.now() - started} ms (display language ${vscode.env.language})`);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
