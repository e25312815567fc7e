// The Service graph webview (browser bundle). Everything from the extension arrives as a checked message and is
// rendered with textContent / setAttribute on elements we create: no HTML string is ever parsed.
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { GraphNode, ServiceGraph, ServiceSummary } from '../src/core/graph/model';
import { parseToWebview, type FromWebview, type GraphPanelState, type GraphStrings } from '../src/core/graph/protocol';
import { clip, edgeLabels, edgePath, NODE_HEIGHT, NODE_WIDTH, type GraphLayout } from '../src/core/graph/svg';
import type { TraceHighlight } from '../src/core/graph/trace';
import { firstView, wholeView } from '../src/core/graph/view';
import { loadElk } from './elkLoader';
import { hasElk, layoutGraphs, useElk, warmUpLayout } from './layout';
import { VirtualList } from './list';
import { renderMarkdown } from './markdown';
import { mark, sendAfterPaint } from './timing';

mark('mainStart');

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  setState(state: GraphPanelState): void;
  getState(): unknown;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const SVG = 'http://www.w3.org/2000/svg';
const ALL = '\u0000all';

let strings: GraphStrings | undefined;
let services: ServiceSummary[] = [];
let haystacks: string[] = [];
let files: string[] = [];
let selected: string[] = [];
let graphs: ServiceGraph[] = [];
let highlight: TraceHighlight | null = null;
let layout: GraphLayout | undefined;
let filter = '';
let namespace = ALL;
let onlyNoEndpoints = false;
const initial = (() => {
  try {
    return JSON.parse(document.body.dataset.state ?? '{}') as { document?: string; selected?: string[] };
  } catch {
    return {};
  }
})();
const documentUri = typeof initial.document === 'string' ? initial.document : '';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function custom(tag: string, attrs: Record<string, string> = {}, text?: string): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function format(template: string, ...args: (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (whole, i: string) => (args[Number(i)] === undefined ? whole : String(args[Number(i)])));
}

function post(message: FromWebview): void {
  vscode.postMessage(message);
}

function saveState(): void {
  vscode.setState({ document: documentUri, selected });
}

// ---------------------------------------------------------------- shell
const app = document.getElementById('app')!;
const side = el('aside', { class: 'side' });
const filterInput = custom('vscode-textfield', { id: 'filter', type: 'search', class: 'filter' }) as HTMLElement & { value: string; placeholder: string; label: string };
const namespaceSelect = custom('vscode-single-select', { id: 'namespace', class: 'namespace' }) as HTMLElement & { value: string };
const noEndpointsBox = custom('vscode-checkbox', { id: 'no-endpoints' }) as HTMLElement & { checked: boolean; label: string };
const countLine = el('div', { class: 'count', 'aria-live': 'polite' });
const countBadge = custom('vscode-badge', { variant: 'counter', class: 'count-badge' });
const countText = el('span');
countLine.append(countBadge, countText);
side.append(filterInput, namespaceSelect, noEndpointsBox, countLine);

const rowParts = new WeakMap<HTMLElement, { title: HTMLElement; meta: HTMLElement; badge: HTMLElement }>();
const list = new VirtualList<ServiceSummary>({
  container: side,
  label: '',
  key: (s) => s.key,
  isSelected: (s) => selected.includes(s.key),
  onChoose: (s, exclusive) => toggle(s.key, exclusive),
  render(row, s) {
    // Rows are reused while scrolling: their parts are created once and only their text changes.
    let parts = rowParts.get(row);
    if (!parts) {
      // A plain span styled like vscode-badge: rows re-render many times a second while scrolling.
      parts = { title: el('span', { class: 'title' }), meta: el('span', { class: 'meta' }), badge: el('span', { class: 'badge' }) };
      rowParts.set(row, parts);
      row.replaceChildren(parts.title, parts.meta, parts.badge);
    }
    const manyFiles = files.length > 1;
    parts.title.textContent = clip(s.title, 200);
    parts.meta.textContent = clip([...s.frontends, manyFiles ? (files[s.fileIndex] ?? '') : ''].filter(Boolean).join(' · '), 300);
    const count = s.noEndpoints ? (strings?.noEndpoints ?? '') : `${s.endpointCount} ${strings?.endpoints ?? ''}`;
    // The cluster state's mark comes first, in words; its reason is in the row's tooltip.
    parts.badge.textContent = s.mark ? `${s.mark.label} · ${count}` : count;
    parts.badge.classList.toggle('warn', s.noEndpoints || s.mark !== undefined);
    row.title = clip([s.title, ...(s.mark ? [`${s.mark.label}: ${s.mark.reason}`] : []), ...s.frontends, ...s.objects.slice(0, 8)].join('\n'), 2_000);
    row.classList.toggle('no-endpoints', s.noEndpoints);
  },
});

const right = el('section', { class: 'right' });
const toolbar = el('div', { class: 'toolbar', role: 'toolbar' });
const button = (id: string) => custom('vscode-button', { id, secondary: '' }) as HTMLElement & { disabled: boolean };
const copyButton = button('copy-mermaid');
const saveButton = button('save-svg');
const zoomOutButton = button('zoom-out');
const zoomInButton = button('zoom-in');
const fitButton = button('fit');
const traceButton = button('trace-from-here');
const clearTraceButton = button('clear-trace');
const traceLabel = el('span', { class: 'trace-label', 'aria-live': 'polite' });
toolbar.append(copyButton, saveButton, zoomOutButton, zoomInButton, fitButton, traceButton, clearTraceButton, traceLabel);
const canvas = el('div', { class: 'canvas', tabindex: '-1' });
const hoverBox = el('div', { class: 'hover', role: 'tooltip', id: 'node-hover', hidden: '' });
const status = el('div', { class: 'status' });
right.append(toolbar, canvas, status);
app.append(side, right);
document.body.append(hoverBox);

// ---------------------------------------------------------------- list
function haystack(s: ServiceSummary): string {
  return [s.title, s.namespace, s.name, s.portName, s.protocol, ...s.frontends, ...s.objects, files[s.fileIndex] ?? ''].join('\n').toLowerCase();
}

function shownServices(): ServiceSummary[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const out: ServiceSummary[] = [];
  services.forEach((s, i) => {
    if (namespace !== ALL && s.namespace !== namespace) return;
    if (onlyNoEndpoints && !s.noEndpoints) return;
    const hay = haystacks[i];
    if (words.every((w) => hay.includes(w))) out.push(s);
  });
  return out;
}

function renderList(): void {
  if (!strings) return;
  const shown = shownServices();
  countBadge.textContent = String(shown.length);
  countText.textContent = format(strings.count, shown.length, services.length);
  list.setItems(shown);
}

function renderNamespaces(): void {
  if (!strings) return;
  const names = [...new Set(services.map((s) => s.namespace))].sort();
  const options = [custom('vscode-option', { value: ALL }, strings.allNamespaces), ...names.map((n) => custom('vscode-option', { value: n }, n || '—'))];
  namespaceSelect.replaceChildren(...options);
  if (namespace !== ALL && !names.includes(namespace)) namespace = ALL;
  namespaceSelect.value = namespace;
}

function toggle(key: string, exclusive: boolean): void {
  if (exclusive) selected = [key];
  else selected = selected.includes(key) ? selected.filter((k) => k !== key) : [...selected, key];
  saveState();
  list.refresh();
  post({ type: 'select', keys: selected });
}

let filterFrame = 0;
filterInput.addEventListener('input', () => {
  filter = filterInput.value ?? '';
  cancelAnimationFrame(filterFrame);
  filterFrame = requestAnimationFrame(renderList);
});
filterInput.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowDown') {
    e.preventDefault();
    list.element.focus();
    list.element.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home' }));
  }
});
namespaceSelect.addEventListener('change', () => {
  namespace = namespaceSelect.value || ALL;
  renderList();
});
noEndpointsBox.addEventListener('change', () => {
  onlyNoEndpoints = noEndpointsBox.checked;
  renderList();
});
copyButton.addEventListener('click', () => post({ type: 'copyMermaid', keys: selected }));
saveButton.addEventListener('click', () => {
  if (layout) post({ type: 'saveSvg', layout });
});

// ---------------------------------------------------------------- zoom and pan
let scale = 1;
let tx = 0;
let ty = 0;
/** Whether the user has zoomed or panned this graph: until then the first view follows the panel's size. */
let moved = false;
let viewport: SVGGElement | undefined;
let root: SVGSVGElement | undefined;

function applyTransform(): void {
  viewport?.setAttribute('transform', `translate(${tx},${ty}) scale(${scale})`);
  document.body.dataset.zoom = scale.toFixed(3);
  scheduleVisible();
}

function zoomBy(factor: number, cx = canvas.clientWidth / 2, cy = canvas.clientHeight / 2): void {
  moved = true;
  const next = Math.min(4, Math.max(0.05, scale * factor));
  tx = cx - ((cx - tx) * next) / scale;
  ty = cy - ((cy - ty) * next) / scale;
  scale = next;
  applyTransform();
}

function panelSize(): { width: number; height: number } {
  return { width: canvas.clientWidth || 800, height: canvas.clientHeight || 600 };
}

/** F / Fit: the whole graph. */
function fit(): void {
  if (!layout) return;
  moved = true;
  ({ scale, tx, ty } = wholeView(layout, panelSize()));
  applyTransform();
}

/** The first view of a graph: fitted, but readable (see firstView). */
function initialView(): void {
  if (!layout) return;
  moved = false;
  const anchor = orderedNodes.find((n) => n.kind === 'frontend') ?? orderedNodes[0];
  const p = anchor ? placed.get(anchor.id) : undefined;
  ({ scale, tx, ty } = firstView(layout, panelSize(), p ? p.y + NODE_HEIGHT / 2 : undefined));
  applyTransform();
}

// The panel settles its size after the first drawing (and the user may resize it): refit until the user moves.
new ResizeObserver(() => {
  if (layout && !moved) initialView();
}).observe(canvas);

function resetZoom(): void {
  moved = true;
  scale = 1;
  tx = 0;
  ty = 0;
  applyTransform();
}

/** Pans so the node is inside the visible area. */
function ensureVisible(x: number, y: number): void {
  const w = canvas.clientWidth;
  const h = canvas.clientHeight;
  const left = x * scale + tx;
  const top = y * scale + ty;
  const before = `${tx},${ty}`;
  if (left < 0) tx -= left - 8;
  else if (left + NODE_WIDTH * scale > w) tx -= left + NODE_WIDTH * scale - w + 8;
  if (top < 0) ty -= top - 8;
  else if (top + NODE_HEIGHT * scale > h) ty -= top + NODE_HEIGHT * scale - h + 8;
  if (`${tx},${ty}` !== before) moved = true;
  applyTransform();
}

canvas.addEventListener(
  'wheel',
  (e) => {
    e.preventDefault();
    const box = canvas.getBoundingClientRect();
    // Ctrl/Cmd + wheel (and a trackpad pinch) zooms around the pointer; the wheel alone pans (Shift: sideways).
    if (e.ctrlKey || e.metaKey) zoomBy(Math.exp(-e.deltaY * 0.002), e.clientX - box.left, e.clientY - box.top);
    else {
      moved = true;
      tx -= e.shiftKey ? e.deltaY : e.deltaX;
      ty -= e.shiftKey ? 0 : e.deltaY;
      applyTransform();
    }
  },
  { passive: false },
);
let drag: { x: number; y: number; tx: number; ty: number; moved: boolean } | undefined;
canvas.addEventListener('pointerdown', (e) => {
  if (e.button !== 0) return;
  drag = { x: e.clientX, y: e.clientY, tx, ty, moved: false };
});
window.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x;
  const dy = e.clientY - drag.y;
  if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
  drag.moved = true;
  moved = true;
  canvas.classList.add('panning');
  tx = drag.tx + dx;
  ty = drag.ty + dy;
  applyTransform();
});
window.addEventListener('pointerup', () => {
  canvas.classList.remove('panning');
  // A drag is not a click on the node it started on.
  if (drag?.moved) setTimeout(() => (drag = undefined), 0);
  else drag = undefined;
});
canvas.addEventListener('keydown', (e) => {
  if (e.key === '+' || e.key === '=') zoomBy(1.25);
  else if (e.key === '-' || e.key === '_') zoomBy(0.8);
  else if (e.key === '0') resetZoom();
  else if (e.key === 'f' || e.key === 'F') fit();
  else if ((e.key === 'Home' || e.key === 'End') && layout) {
    moved = true;
    ty = e.key === 'Home' ? 0 : Math.min(0, canvas.clientHeight - layout.height * scale);
    applyTransform();
  } else return;
  e.preventDefault();
});
zoomInButton.addEventListener('click', () => zoomBy(1.25));
zoomOutButton.addEventListener('click', () => zoomBy(0.8));
fitButton.addEventListener('click', fit);

// ---------------------------------------------------------------- hover
const hoverCache = new Map<string, string>();
let hoverFor: string | undefined;
let hoverTimer = 0;

function showHover(nodeId: string): void {
  const index = itemOfNode.get(nodeId);
  const g = index === undefined ? undefined : (shown.get(`i${index}`) as SVGGElement | undefined);
  const markdown = hoverCache.get(nodeId);
  if (!g || markdown === undefined || hoverFor !== nodeId) return;
  hoverBox.replaceChildren(renderMarkdown(markdown));
  hoverBox.hidden = false;
  const box = g.getBoundingClientRect();
  const width = Math.min(420, window.innerWidth - 16);
  hoverBox.style.maxWidth = `${width}px`;
  const left = Math.min(Math.max(8, box.left), window.innerWidth - width - 8);
  const below = box.bottom + 6;
  hoverBox.style.left = `${left}px`;
  hoverBox.style.top = `${below}px`;
  const h = hoverBox.getBoundingClientRect().height;
  if (below + h > window.innerHeight && box.top - h - 6 > 0) hoverBox.style.top = `${box.top - h - 6}px`;
  g.setAttribute('aria-describedby', 'node-hover');
}

function requestHover(nodeId: string): void {
  hoverFor = nodeId;
  clearTimeout(hoverTimer);
  hoverTimer = window.setTimeout(() => {
    if (hoverCache.has(nodeId)) showHover(nodeId);
    else post({ type: 'hover', nodeId });
  }, 300);
}

function hideHover(): void {
  clearTimeout(hoverTimer);
  hoverFor = undefined;
  hoverBox.hidden = true;
}

// ---------------------------------------------------------------- graph
const nodeIndex = new Map<string, number>();
let nodesById = new Map<string, GraphNode>();
let placed = new Map<string, { x: number; y: number }>();
let successors = new Map<string, string[]>();
let predecessors = new Map<string, string[]>();
let current: string | undefined;
let renderSeq = 0;

function setCurrent(id: string | undefined): void {
  current = id;
  traceButton.disabled = !(id && nodesById.get(id)?.kind === 'frontend' && nodesById.get(id)?.target);
}

function nodeElement(n: GraphNode, index: number, x: number, y: number): SVGGElement {
  const g = svg('g', { class: `node ${n.kind}${n.source ? ' linked' : ''}${n.mark ? ` mark-${n.mark.kind}` : ''}`, transform: `translate(${x},${y})`, tabindex: -1, role: 'button' });
  g.dataset.index = String(index);
  g.setAttribute('aria-label', clip([n.detail, n.label, ...n.badges, n.mark?.reason].filter(Boolean).join(', '), 500));
  if (n.mark) g.append(svg('title', {}, clip(`${n.mark.label}: ${n.mark.reason}`, 2_000)));
  g.append(svg('rect', { width: NODE_WIDTH, height: NODE_HEIGHT, rx: n.kind === 'frontend' || n.kind === 'pod' ? 14 : 3 }));
  g.append(svg('text', { x: 8, y: 17, class: 'label' }, clip(n.label, 30)));
  g.append(svg('text', { x: 8, y: 32, class: 'detail' }, clip(n.detail, 34)));
  if (n.badges.length > 0) g.append(svg('text', { x: 8, y: 46, class: 'badges' }, clip(n.badges.join(' · '), 36)));
  if (n.kind === 'frontend' && n.target) {
    const action = svg('g', { class: 'trace-action', transform: `translate(${NODE_WIDTH - 24},4)` });
    action.append(svg('title', {}, strings?.traceFromHere ?? ''));
    action.append(svg('rect', { width: 20, height: 20, rx: 3 }));
    action.append(svg('path', { d: 'M 7 5 L 15 10 L 7 15 z' }));
    g.append(action);
  }
  return g;
}

function nodeOf(target: EventTarget | null): GraphNode | undefined {
  const g = (target as Element | null)?.closest?.('g.node') as SVGGElement | null;
  const index = g ? Number(g.dataset.index) : -1;
  return index >= 0 ? orderedNodes[index] : undefined;
}

let orderedNodes: GraphNode[] = [];

function focusNode(id: string): void {
  const g = nodeG(id);
  if (!g) return;
  for (const x of shown.values()) if (x.getAttribute('tabindex') === '0') x.setAttribute('tabindex', '-1');
  g.setAttribute('tabindex', '0');
  const p = placed.get(id);
  if (p) ensureVisible(p.x, p.y);
  g.focus({ preventScroll: true });
  setCurrent(id);
}

function traceFrom(id: string | undefined): void {
  const n = id ? nodesById.get(id) : undefined;
  if (n?.kind === 'frontend' && n.target) post({ type: 'trace', nodeId: n.id });
}

canvas.addEventListener('click', (e) => {
  if (drag?.moved) return;
  const n = nodeOf(e.target);
  if (!n) return;
  focusNode(n.id);
  if ((e.target as Element).closest('.trace-action')) traceFrom(n.id);
  else if (n.source) post({ type: 'reveal', nodeId: n.id });
});
canvas.addEventListener('pointerover', (e) => {
  const n = nodeOf(e.target);
  if (n && n.id !== hoverFor) requestHover(n.id);
});
canvas.addEventListener('pointerout', (e) => {
  const to = nodeOf(e.relatedTarget);
  if (!to && !(e.relatedTarget as Element | null)?.closest?.('.hover')) hideHover();
});
hoverBox.addEventListener('pointerleave', hideHover);
canvas.addEventListener('focusin', (e) => {
  const n = nodeOf(e.target);
  if (n) {
    setCurrent(n.id);
    requestHover(n.id);
  }
});
canvas.addEventListener('focusout', () => hideHover());
canvas.addEventListener('keydown', (e) => {
  const n = nodeOf(e.target);
  if (!n) {
    if ((e.key.startsWith('Arrow') || e.key === 'Tab') && orderedNodes.length > 0 && document.activeElement === canvas && e.key !== 'Tab') {
      e.preventDefault();
      focusNode(orderedNodes[0].id);
    }
    return;
  }
  const column = () => orderedNodes.filter((m) => placed.get(m.id)?.x === placed.get(n.id)?.x).sort((a, b) => placed.get(a.id)!.y - placed.get(b.id)!.y);
  const pick = (ids: string[] | undefined) => {
    if (!ids?.length) return undefined;
    const lit = new Set(highlight?.nodes.map((x) => x.id) ?? []);
    return ids.find((i) => lit.has(i)) ?? ids[0];
  };
  let next: string | undefined;
  switch (e.key) {
    case 'ArrowRight':
      next = pick(successors.get(n.id));
      break;
    case 'ArrowLeft':
      next = pick(predecessors.get(n.id));
      break;
    case 'ArrowDown':
    case 'ArrowUp': {
      const c = column();
      const i = c.findIndex((m) => m.id === n.id);
      next = c[i + (e.key === 'ArrowDown' ? 1 : -1)]?.id;
      break;
    }
    case 'Enter':
    case ' ':
      if (n.source) post({ type: 'reveal', nodeId: n.id });
      e.preventDefault();
      return;
    case 't':
    case 'T':
      traceFrom(n.id);
      e.preventDefault();
      return;
    case 'Escape':
      hideHover();
      return;
    default:
      return;
  }
  e.preventDefault();
  if (next) focusNode(next);
});
traceButton.addEventListener('click', () => traceFrom(current));
clearTraceButton.addEventListener('click', () => post({ type: 'clearTrace' }));

/** Whether a node or edge is on the traced path: classes and the node's share. */
function decorateNode(g: SVGGElement, n: GraphNode): void {
  const h = litNodes.get(n.id);
  g.classList.toggle('on', !!h);
  g.querySelector('text.node-share')?.remove();
  if (h) g.append(svg('text', { x: NODE_WIDTH - 8, y: NODE_HEIGHT - 6, class: 'node-share', 'text-anchor': 'end' }, h.label.slice(h.label.lastIndexOf(' ') + 1)));
}

function decorateEdge(g: SVGGElement): void {
  g.classList.toggle('on', litEdges.has(`${g.dataset.from}\u0000${g.dataset.to}`));
}

/** A share label shows the traced share of its edge while a trace is shown, else the model's. */
function decorateLabel(text: SVGTextElement): void {
  const e = litEdges.get(`${text.dataset.from}\u0000${text.dataset.to}`);
  text.classList.toggle('on', !!e);
  text.textContent = e ? e.label : (text.dataset.model ?? '');
}

function decorate(item: Item, element: SVGElement): void {
  if (item.kind === 'node') decorateNode(element as SVGGElement, item.node!);
  else if (item.kind === 'edge') decorateEdge(element as SVGGElement);
  else if (item.kind === 'label') decorateLabel(element as SVGTextElement);
}

let litNodes = new Map<string, TraceHighlight['nodes'][number]>();
let litEdges = new Map<string, TraceHighlight['edges'][number]>();

function applyHighlight(): void {
  if (!strings) return;
  litNodes = new Map(highlight?.nodes.map((n) => [n.id, n]) ?? []);
  litEdges = new Map(highlight?.edges.map((e) => [`${e.from}\u0000${e.to}`, e]) ?? []);
  root?.classList.toggle('tracing', !!highlight);
  for (const [key, element] of created) {
    const item = items[Number(key.slice(1))];
    if (item) decorate(item, element);
  }
  traceLabel.textContent = highlight ? format(strings.traced, highlight.title) : '';
  clearTraceButton.hidden = !highlight;
}

// The SVG holds only what is in (or near) the visible area: a Service with thousands of endpoints costs the DOM
// of the few dozen nodes on screen. Elements are created on first sight and kept for reuse.
interface Item {
  kind: 'node' | 'edge' | 'label' | 'title';
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  node?: GraphNode;
  create(): SVGElement;
}
let items: Item[] = [];
const created = new Map<string, SVGElement>();
const shown = new Map<string, SVGElement>();
let layers: { titles: SVGGElement; edges: SVGGElement; labels: SVGGElement; nodes: SVGGElement } | undefined;
let visibleFrame = 0;

function scheduleVisible(): void {
  if (visibleFrame) return;
  visibleFrame = requestAnimationFrame(() => {
    visibleFrame = 0;
    updateVisible();
  });
}

function updateVisible(): void {
  if (!layers) return;
  const w = canvas.clientWidth || 800;
  const h = canvas.clientHeight || 600;
  const margin = 150 / scale;
  const vx0 = -tx / scale - margin;
  const vy0 = -ty / scale - margin;
  const vx1 = (w - tx) / scale + margin;
  const vy1 = (h - ty) / scale + margin;
  const want = new Set<string>();
  items.forEach((it, i) => {
    if (it.x1 < vx0 || it.x0 > vx1 || it.y1 < vy0 || it.y0 > vy1) return;
    const key = `i${i}`;
    want.add(key);
    if (shown.has(key)) return;
    let element = created.get(key);
    if (!element) {
      element = it.create();
      created.set(key, element);
      decorate(it, element);
    }
    layers![`${it.kind}s`].append(element);
    shown.set(key, element);
  });
  for (const [key, element] of shown) {
    if (want.has(key) || element.contains(document.activeElement)) continue;
    element.remove();
    shown.delete(key);
  }
  document.body.dataset.shownNodes = String([...shown.keys()].filter((k) => items[Number(k.slice(1))]?.kind === 'node').length);
}

/** The element of a node, created (and shown) if need be. */
function nodeG(id: string): SVGGElement | undefined {
  const index = itemOfNode.get(id);
  if (index === undefined) return undefined;
  if (!shown.has(`i${index}`)) {
    const p = placed.get(id);
    if (p) ensureVisible(p.x, p.y);
    updateVisible();
  }
  return shown.get(`i${index}`) as SVGGElement | undefined;
}
const itemOfNode = new Map<string, number>();

async function renderGraph(): Promise<void> {
  if (!strings) return;
  const seq = ++renderSeq;
  hideHover();
  if (graphs.length === 0) {
    showNoGraph(strings);
    return;
  }
  const t0 = performance.now();
  mark('layoutStart', t0);
  const laid = await layoutGraphs(graphs);
  if (seq !== renderSeq) return;
  const t1 = performance.now();
  mark('layoutEnd', t1);
  layout = { width: laid.width, height: laid.height, nodes: laid.nodes, edges: laid.edges, titles: laid.titles };
  const edgeModel = indexGraphs(laid);
  buildItems(laid, edgeModel);
  mountGraph(strings);
  const tBuilt = performance.now();
  status.textContent = `${format(strings.layoutTime, laid.nodes.length, Math.round(tBuilt - t0))} · ${strings.keys}`;
  document.body.dataset.layoutMs = (t1 - t0).toFixed(1);
  document.body.dataset.buildMs = (tBuilt - t1).toFixed(1);
  document.body.dataset.renderMs = (tBuilt - t0).toFixed(1);
  document.body.dataset.rendered = String(seq);
  document.body.dataset.engine = laid.engine;
  mark('mounted', tBuilt);
  sendAfterPaint(post);
  if (laid.engine === 'layered' && !hasElk()) void startElk().then(() => redrawWithElk(seq));
}

/** Reads ELK after the first drawing (or a while after the page started, with nothing to draw yet). */
function startElk(): Promise<void> {
  return new Promise((resolve) =>
    requestAnimationFrame(() =>
      setTimeout(
        () =>
          void loadElk().then((Elk) => {
            if (Elk) useElk(Elk);
            document.body.dataset.elk = Elk ? 'loaded' : 'missing';
            mark('elkLoaded');
            resolve();
          }),
        0,
      ),
    ),
  );
}

/**
 * The drawing `seq` again with ELK, unless another one came meanwhile or the user already zoomed, panned or
 * focused a node of it (the nodes would move under the pointer).
 */
function redrawWithElk(seq: number): void {
  if (seq !== renderSeq || !hasElk() || moved || canvas.contains(document.activeElement) || hoverFor !== undefined) return;
  void renderGraph();
}

type Laid = Awaited<ReturnType<typeof layoutGraphs>>;
type EdgeModel = Map<string, { label?: string; dashed?: boolean }>;

/** No Service selected: an empty canvas that says so. */
function showNoGraph(words: GraphStrings): void {
  layout = undefined;
  root = undefined;
  layers = undefined;
  items = [];
  created.clear();
  shown.clear();
  canvas.replaceChildren(el('p', { class: 'empty' }, words.noSelection));
  saveButton.disabled = true;
  status.textContent = words.keys;
  void startElk();
}

/** The graphs' nodes by id and order, their placement, and the edges both ways; returns each edge's model. */
function indexGraphs(laid: Laid): EdgeModel {
  orderedNodes = graphs.flatMap((g) => g.nodes);
  nodesById = new Map(orderedNodes.map((n) => [n.id, n]));
  nodeIndex.clear();
  orderedNodes.forEach((n, i) => nodeIndex.set(n.id, i));
  placed = new Map(laid.nodes.map((p) => [p.id, p]));
  successors = new Map();
  predecessors = new Map();
  const edgeModel: EdgeModel = new Map();
  for (const g of graphs)
    for (const e of g.edges) {
      let out = successors.get(e.from);
      if (!out) successors.set(e.from, (out = []));
      out.push(e.to);
      let into = predecessors.get(e.to);
      if (!into) predecessors.set(e.to, (into = []));
      into.push(e.from);
      edgeModel.set(`${e.from}\u0000${e.to}`, e);
    }
  return edgeModel;
}

/** The items the canvas draws when they come into view: titles, edges, share labels and nodes. */
function buildItems(laid: Laid, edgeModel: EdgeModel): void {
  items = [];
  itemOfNode.clear();
  created.clear();
  shown.clear();
  const titleOf = new Map(graphs.map((g) => [g.key, g.title]));
  for (const title of laid.titles) {
    items.push({
      kind: 'title',
      x0: title.x,
      y0: title.y - 14,
      x1: title.x + 800,
      y1: title.y + 4,
      create: () => svg('text', { x: title.x, y: title.y, class: 'service-title' }, clip(titleOf.get(title.key) ?? '', 120)),
    });
  }
  for (const e of laid.edges) {
    const xs = e.points.map((p) => p[0]);
    const ys = e.points.map((p) => p[1]);
    items.push({
      kind: 'edge',
      x0: Math.min(...xs),
      y0: Math.min(...ys),
      x1: Math.max(...xs),
      y1: Math.max(...ys),
      create: () => {
        const group = svg('g', { class: 'edge-group' });
        group.dataset.from = e.from;
        group.dataset.to = e.to;
        const dashed = edgeModel.get(`${e.from}\u0000${e.to}`)?.dashed === true;
        group.append(svg('path', { d: edgePath(e.points), class: dashed ? 'edge dashed' : 'edge', 'marker-end': 'url(#arrow)' }));
        return group;
      },
    });
  }
  // Labels over every edge and node, each at its own spot (no two overlap, see core/graph/labels.ts).
  for (const l of edgeLabels(laid, (from, to) => edgeModel.get(`${from}\u0000${to}`)?.label)) {
    items.push({
      kind: 'label',
      x0: l.x - l.width / 2,
      y0: l.y - l.height / 2,
      x1: l.x + l.width / 2,
      y1: l.y + l.height / 2,
      create: () => {
        const text = svg('text', { x: l.x, y: l.y, class: 'share' }, l.text);
        text.dataset.from = l.from;
        text.dataset.to = l.to;
        text.dataset.model = l.text;
        return text;
      },
    });
  }
  for (const p of laid.nodes) {
    const n = nodesById.get(p.id);
    if (!n) continue;
    itemOfNode.set(n.id, items.length);
    const index = nodeIndex.get(n.id)!;
    items.push({ kind: 'node', node: n, x0: p.x, y0: p.y, x1: p.x + NODE_WIDTH, y1: p.y + NODE_HEIGHT, create: () => nodeElement(n, index, p.x, p.y) });
  }
}

/** The SVG with its layers, the first view and the highlight; the first frontend in view takes the tab stop. */
function mountGraph(words: GraphStrings): void {
  const svgRoot = svg('svg', { class: 'graph', role: 'group', width: '100%', height: '100%' });
  svgRoot.setAttribute('aria-label', words.graphLabel);
  const defs = svg('defs');
  const marker = svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrowhead' }));
  defs.append(marker);
  svgRoot.append(defs);
  const vp = svg('g', { class: 'viewport' });
  layers = { titles: svg('g', { class: 'titles' }), edges: svg('g', { class: 'edges' }), labels: svg('g', { class: 'labels' }), nodes: svg('g', { class: 'nodes' }) };
  vp.append(layers.titles, layers.edges, layers.nodes, layers.labels);
  svgRoot.append(vp);
  canvas.replaceChildren(svgRoot);
  root = svgRoot;
  viewport = vp;
  litNodes = new Map(highlight?.nodes.map((n) => [n.id, n]) ?? []);
  litEdges = new Map(highlight?.edges.map((e) => [`${e.from}\u0000${e.to}`, e]) ?? []);
  initialView();
  updateVisible();
  applyHighlight();
  // The first frontend in view is the graph's tab stop; arrows move from there.
  const first = [...shown.values()].find((x) => x.classList.contains('frontend')) ?? [...shown.values()].find((x) => x.classList.contains('node'));
  first?.setAttribute('tabindex', '0');
  saveButton.disabled = false;
  setCurrent(undefined);
}

// ---------------------------------------------------------------- messages
window.addEventListener('message', (event: MessageEvent) => {
  const message = parseToWebview(event.data);
  if (!message) return;
  switch (message.type) {
    case 'init': {
      mark('init');
      // The same graphs with the same words (a longer list after the first drawing) need no new drawing.
      const redraw = graphs.map((g) => g.key).join('\n') !== message.selected.join('\n') || JSON.stringify(strings) !== JSON.stringify(message.strings) || files.join('\n') !== message.files.join('\n');
      strings = message.strings;
      services = message.services;
      files = message.files;
      haystacks = services.map(haystack);
      selected = message.selected;
      filterInput.placeholder = strings.filterPlaceholder;
      filterInput.setAttribute('label', strings.filterLabel);
      filterInput.setAttribute('aria-label', strings.filterLabel);
      namespaceSelect.setAttribute('aria-label', strings.namespaceLabel);
      noEndpointsBox.setAttribute('label', strings.onlyNoEndpoints);
      list.setLabel(strings.servicesLabel);
      copyButton.textContent = strings.copyMermaid;
      saveButton.textContent = strings.saveSvg;
      zoomInButton.textContent = '+';
      zoomInButton.title = strings.zoomIn;
      zoomInButton.setAttribute('aria-label', strings.zoomIn);
      zoomOutButton.textContent = '−';
      zoomOutButton.title = strings.zoomOut;
      zoomOutButton.setAttribute('aria-label', strings.zoomOut);
      fitButton.textContent = strings.fit;
      traceButton.textContent = strings.traceFromHere;
      clearTraceButton.textContent = strings.clearTrace;
      canvas.setAttribute('aria-label', strings.graphLabel);
      hoverCache.clear();
      saveState();
      renderNamespaces();
      renderList();
      list.invalidate();
      if (selected[0]) list.reveal(selected[0]);
      if (redraw) void renderGraph();
      return;
    }
    case 'graph':
      mark('graph');
      graphs = message.graphs;
      selected = graphs.map((g) => g.key);
      hoverCache.clear();
      saveState();
      list.refresh();
      void renderGraph();
      return;
    case 'hover':
      hoverCache.set(message.nodeId, message.markdown);
      showHover(message.nodeId);
      return;
    case 'highlight':
      highlight = message.highlight;
      applyHighlight();
      if (highlight?.nodes[0] && nodeIndex.has(highlight.nodes[0].id)) nodeG(highlight.nodes[0].id);
      return;
  }
});

setCurrent(undefined);
clearTraceButton.hidden = true;
post({ type: 'ready' });
mark('ready');
// With nothing drawn a while after the start, ELK is read anyway (and warmed up: its first layout is slow).
setTimeout(() => void startElk().then(() => warmUpLayout()), 3_000);
