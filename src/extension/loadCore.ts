// Loads dist/core.js (see core.ts) the first time an adapter needs the pure core, with a synchronous require:
// activation only registers providers and commands (docs/performance.md#budgets: activation ≤ 50 ms), and the first dump analysed
// on the extension host or the first command that reads a dump pays for loading the parsers, once.
import { setTranslator, type Translator } from '../core/l10n';
import type * as Core from './core';

export type CoreModule = typeof Core;

let loaded: CoreModule | undefined;
let translator: Translator | undefined;
let onLoad: ((ms: number) => void) | undefined;

/** The pure core (parsers, catalogs, tracer, explanations, graph), loaded on the first call. */
export function core(): CoreModule {
  if (loaded) return loaded;
  const started = performance.now();
  // Kept as a require of the sibling file by scripts/build.mjs (not bundled into dist/extension.js).
  const module = require('./core.js') as CoreModule;
  // dist/core.js holds its own copy of core/l10n: its messages (hovers, diagnostics) use the same translator.
  module.setTranslator(translator);
  loaded = module;
  onLoad?.(performance.now() - started);
  return module;
}

/** Whether dist/core.js has been loaded (for the log and tests). */
export function coreLoaded(): boolean {
  return loaded !== undefined;
}

/**
 * Installs the translator of core messages in this bundle's copy of core/l10n and in dist/core.js's (now or when
 * it loads); undefined restores the default.
 */
export function setCoreTranslator(next: Translator | undefined): void {
  translator = next;
  setTranslator(next);
  loaded?.setTranslator(next);
}

/** Called once with the time loading dist/core.js took. */
export function onCoreLoad(listener: ((ms: number) => void) | undefined): void {
  onLoad = listener;
}
