// Imported first by extension.ts, so in the bundle this runs before every other module's top level: activate()
// logs the time since then (docs/performance.md#budgets: activation ≤ 50 ms). Reading and compiling the bundle come before it.
export const loadStart = performance.now();
