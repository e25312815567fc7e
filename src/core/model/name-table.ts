// Tables looked up by words read from a dump. A plain object literal answers `constructor`, `toString` or
// `__proto__` with its prototype's members: a table named `constructor` once crashed the iptables parser, and nft
// JSON, ipvsadm and hovers took such words for known ones. These tables have no prototype.

/** The entries as a table without a prototype: a word that is not one of its keys finds nothing. */
export function nameTable<T>(entries: Record<string, T>): Record<string, T> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/** An empty table without a prototype, to fill (frozen by nobody: the caller's to fill and keep). */
export function emptyNameTable<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
