import type * as vscode from 'vscode';

/**
 * Runs `update` for a document `delay` ms after its last `schedule` (typing, file events); `dispose` cancels the
 * pending ones.
 */
export function perDocumentDebounce(delay: number, update: (document: vscode.TextDocument) => unknown): { schedule: (document: vscode.TextDocument) => void; dispose: () => void } {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return {
    schedule: (document) => {
      const key = document.uri.toString();
      clearTimeout(timers.get(key));
      timers.set(
        key,
        setTimeout(() => {
          timers.delete(key);
          void update(document);
        }, delay),
      );
    },
    dispose: () => timers.forEach((timer) => clearTimeout(timer)),
  };
}
