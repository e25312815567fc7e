// Values derived from a list of analyses (the files of a node snapshot), kept while its first analysis lives: the
// analysis worker builds a new snapshot object per request, but its analyses stay the same until an edit.

export type PerAnalyses<T> = WeakMap<object, { analyses: readonly object[]; value: T }[]>;

/** The entry of `cache` for exactly these analyses (by identity, in order), if any. */
export function cachedFor<T>(cache: PerAnalyses<T>, analyses: readonly object[]): { value: T } | undefined {
  if (analyses.length === 0) return undefined;
  return cache.get(analyses[0])?.find((e) => e.analyses.length === analyses.length && e.analyses.every((a, i) => a === analyses[i]));
}

/** `compute()`, once per list of analyses; at most `keep` lists per first analysis (the latest ones). */
export function perAnalyses<T>(cache: PerAnalyses<T>, analyses: readonly object[], compute: () => T, keep = 8): T {
  const hit = cachedFor(cache, analyses);
  if (hit) return hit.value;
  const value = compute();
  if (analyses.length === 0) return value;
  let entries = cache.get(analyses[0]);
  if (!entries) cache.set(analyses[0], (entries = []));
  entries.push({ analyses: [...analyses], value });
  if (entries.length > keep) entries.shift();
  return value;
}
