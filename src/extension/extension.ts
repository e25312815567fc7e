// Activation: wires the pure core to VS Code. Every provider lives in its own file under providers/. This bundle
// (dist/extension.js) holds the adapters only; the parsers and the rest of the core load on first use (loadCore.ts).
// First import: notes when the bundle's modules start to run (activation time, docs/performance.md#budgets).
import { loadStart } from './loadStart';
import * as vscode from 'vscode';
import { onCoreLoad, setCoreTranslator } from './loadCore';
import { DocumentCache } from './documentCache';
import { Log } from './log';
import { Snapshots } from './snapshots';
import * as commands from './providers/commands';
import * as definition from './providers/definition';
import * as diagnostics from './providers/diagnostics';
import * as clusterCheck from './providers/clusterCheck';
import * as documentSymbols from './providers/documentSymbols';
import * as firstLine from './providers/firstLine';
import * as folding from './providers/folding';
import * as hover from './providers/hover';
import * as languageStatus from './providers/languageStatus';
import * as largeFiles from './providers/largeFiles';
import * as references from './providers/references';
import * as samples from './providers/samples';
import * as capture from './providers/capture';
import * as semanticTokens from './providers/semanticTokens';
import * as walkthrough from './providers/walkthrough';
import * as trace from './trace/commands';
import * as graph from './graph/panel';
import * as graphLens from './graph/codeLens';
import * as explain from './explain/panel';
import * as workspaceSymbols from './providers/workspaceSymbols';
import * as bundles from './providers/bundles';

// This module's body runs after every module it imports: the bundle's top level has been evaluated by now.
const evaluatedMs = performance.now() - loadStart;

export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  // Core messages are English keys with {0} placeholders, exactly what vscode.l10n.t expects.
  setCoreTranslator((message, args) => vscode.l10n.t(message, ...args.map(String)));
  const log = new Log(context);
  // The parsers and the rest of the core (dist/core.js) load when first needed, not here (see loadCore.ts).
  onCoreLoad((ms) => log.info(`analysis code (dist/core.js) loaded in ${ms.toFixed(1)} ms`));
  const cache = new DocumentCache(log, context.extensionUri);
  const snapshots = new Snapshots(cache, log);
  context.subscriptions.push(cache, {
    dispose: () => {
      setCoreTranslator(undefined);
      onCoreLoad(undefined);
    },
  });
  firstLine.register(context, log);
  definition.register(context, cache, snapshots);
  references.register(context, cache, snapshots);
  documentSymbols.register(context, cache);
  folding.register(context, cache);
  hover.register(context, cache, snapshots);
  diagnostics.register(context, cache, snapshots);
  clusterCheck.register(context, snapshots, log);
  languageStatus.register(context, cache);
  largeFiles.register(context, log);
  semanticTokens.register(context, cache);
  commands.register(context, cache, log, snapshots);
  samples.register(context, log);
  walkthrough.register(context, cache, snapshots, log);
  trace.register(context, cache, snapshots, log);
  graph.register(context, cache, snapshots, log);
  graphLens.register(context, cache);
  explain.register(context, snapshots, log);
  capture.register(context, log);
  workspaceSymbols.register(context, cache, snapshots, log);
  bundles.register(context, log);
  // Both parts of activation (docs/performance.md#budgets: ≤ 50 ms): evaluating the bundle's modules (from ./loadStart, the first to run,
  // to the end of this module's top level; reading and compiling the file come before it and are not included, VS
  // Code's Running Extensions view counts them) and activate() itself.
  log.info(`activated in ${(performance.now() - started).toFixed(1)} ms; the bundle's modules were evaluated in ${evaluatedMs.toFixed(1)} ms (display language ${vscode.env.language})`);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
