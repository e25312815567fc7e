// The clock of the panel's first drawing: performance.now() marks (ms since the page's timeOrigin), sent once to the
// extension after the first graph was painted, which logs them beside its own (panel created, model asked).
import type { FromWebview } from '../src/core/graph/protocol';

const marks: Record<string, number> = {};
let sent = false;

/** Notes the first time `name` happened. */
export function mark(name: string, at = performance.now()): void {
  if (!(name in marks) && !sent) marks[name] = Math.round(at * 10) / 10;
}

/** What the page's own loading took: the bundle's download and the start of its evaluation (the build's banner). */
function pageMarks(): void {
  const bundle = performance.getEntriesByType('resource').find((e) => /\/webview\.js(\?|$)/.test(e.name)) as PerformanceResourceTiming | undefined;
  if (bundle) {
    mark('bundleRequested', bundle.startTime);
    mark('bundleFetched', bundle.responseEnd);
  }
  const start = performance.getEntriesByName('bundleStart')[0];
  if (start) mark('bundleStart', start.startTime);
}

/** After the next paint: records `painted`, then sends every mark once. */
export function sendAfterPaint(post: (m: FromWebview) => void): void {
  if (sent) return;
  requestAnimationFrame(() =>
    setTimeout(() => {
      if (sent) return;
      mark('painted');
      pageMarks();
      sent = true;
      document.body.dataset.marks = JSON.stringify(marks);
      post({ type: 'timing', timeOrigin: performance.timeOrigin, marks });
    }, 0),
  );
}
