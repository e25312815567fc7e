// The zoom and offsets of the graph's first view in a panel of a given size. Pure arithmetic, shared by the
// webview and its tests.

/** Below this zoom the node text (12px) is no longer readable: the first view never goes below it. */
export const MIN_READABLE_ZOOM = 0.6;

export interface View {
  scale: number;
  tx: number;
  ty: number;
}

interface Size {
  width: number;
  height: number;
}

/** Scale and offsets that show the whole graph, centred, never enlarged (the Fit button; may be unreadable). */
export function wholeView(graph: Size, panel: Size): View {
  const s = Math.max(0.05, Math.min(1, panel.width / graph.width, panel.height / graph.height));
  return { scale: s, tx: Math.max(0, (panel.width - graph.width * s) / 2), ty: Math.max(0, (panel.height - graph.height * s) / 2) };
}

/**
 * The first view: the whole graph fitted to the panel, at MIN_READABLE_ZOOM at least. A graph too big for that
 * starts at its left edge (the frontends) and, when taller than the panel, centred on `anchorY` (the middle of the
 * first frontend: the start of a fan-out of many endpoints); the user scrolls or drags to the rest.
 */
export function firstView(graph: Size, panel: Size, anchorY?: number): View {
  const whole = wholeView(graph, panel);
  const scale = Math.max(MIN_READABLE_ZOOM, whole.scale);
  const tx = graph.width * scale <= panel.width ? (panel.width - graph.width * scale) / 2 : 0;
  if (graph.height * scale <= panel.height) return { scale, tx, ty: (panel.height - graph.height * scale) / 2 };
  const ty = anchorY === undefined ? 0 : Math.max(panel.height - graph.height * scale, Math.min(0, panel.height / 2 - anchorY * scale));
  return { scale, tx, ty };
}
