// Where a node snapshot is built and asked. No `vscode` import: the rule is tested on its own.

/** A file beside the document, as the routing sees it: open and analysed somewhere, or only on disk. */
export type SiblingPlace = { analysis: { where: 'extension-host' | 'worker' } } | { size: number };

/**
 * True when the snapshot goes to the analysis worker: the document or an open sibling lives there, or a file
 * beside it is only on disk. Such a file is read by its content (a `readme.txt` can be a dump) and nobody chose
 * to open it: whatever its size, its analysis must not hold up the extension host.
 */
export function snapshotInWorker(own: { where: 'extension-host' | 'worker' }, siblings: readonly SiblingPlace[]): boolean {
  return own.where === 'worker' || siblings.some((s) => !('analysis' in s) || s.analysis.where === 'worker');
}
