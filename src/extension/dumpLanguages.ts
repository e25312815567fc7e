// What activation needs to know about the dump languages without loading their parsers (docs/performance.md#budgets: activation
// ≤ 50 ms). The registry itself (core/language) lives in dist/features.js, loaded on first use (see features.ts);
// a unit test checks that these lists match it. No `vscode` import: the analysis worker bundles this too.

/** Every dump language, in the registry's order. */
export const DUMP_LANGUAGE_IDS: readonly string[] = ['iptables', 'nftables', 'ipvsadm', 'ipset'];

/** The dump languages whose features give semantic symbols (semantic tokens are registered for these). */
export const SEMANTIC_LANGUAGE_IDS: readonly string[] = ['iptables', 'nftables'];

const DUMP = new Set(DUMP_LANGUAGE_IDS);

/** Whether the language is a dump language (what `featuresFor(languageId) !== undefined` says, without loading it). */
export function isDumpLanguage(languageId: string): boolean {
  return DUMP.has(languageId);
}

/** Semantic token legend (types and modifiers) shared by the provider and the encoder (analysis/queries.ts). */
export const SEMANTIC_TOKEN_TYPES = ['function', 'variable', 'namespace', 'class', 'enumMember'];
export const SEMANTIC_TOKEN_MODIFIERS = ['declaration', 'defaultLibrary'];
