// The Service graph webview (browser bundle). Everything from the extension arrives as a checked message and is
// rendered with textContent / setAttribute on elements we create: no HTML string is ever parsed.
import type { GraphNode, ServiceGraph, ServiceSummary } from '../src/core/graph/model';
import { parseToWebview, type FromWebview, type GraphPanelState, type GraphStrings } from '../src/core/graph/protocol';
import { layoutGraphs, NODE_HEIGHT, NODE_WIDTH } from './layout';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  setState(state: GraphPanelState): void;
  getState(): unknown;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const SVG = 'http://www.w3.org/2000/svg';
const MAX_ROWS = 500;

let strings: GraphStrings | undefined;
let services: ServiceSummary[] = [];
let files: string[] = [];
let selected: string[] = [];
let graphs: ServiceGraph[] = [];
let filter = '';
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

// ---- layout shell ----
const app = document.getElementById('app')!;
const side = el('aside', { class: 'side' });
const toolbar = el('div', { class: 'toolbar' });
const filterInput = el('input', { type: 'search', id: 'filter', class: 'filter' });
const filterLabel = el('label', { for: 'filter', class: 'visually-hidden' });
const count = el('div', { class: 'count', 'aria-live': 'polite' });
const list = el('ul', { class: 'services', role: 'listbox', 'aria-multiselectable': 'true', tabindex: '0' });
const copyButton = el('button', { type: 'button', class: 'button', id: 'copy-mermaid' });
const main = el('main', { class: 'canvas' });
side.append(filterLabel, filterInput, count, list);
toolbar.append(copyButton);
const right = el('section', { class: 'right' });
right.append(toolbar, main);
app.append(side, right);

function matches(s: ServiceSummary, needle: string): boolean {
  if (!needle) return true;
  const hay = [s.title, s.namespace, s.name, s.portName, ...s.frontends, ...s.objects, files[s.fileIndex] ?? ''].join('\n').toLowerCase();
  return needle
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

function toggle(key: string, exclusive: boolean): void {
  if (exclusive) selected = [key];
  else selected = selected.includes(key) ? selected.filter((k) => k !== key) : [...selected, key];
  saveState();
  renderList();
  post({ type: 'select', keys: selected });
}

function renderList(): void {
  if (!strings) return;
  const shown = services.filter((s) => matches(s, filter));
  count.textContent = format(strings.count, shown.length, services.length);
  const manyFiles = new Set(services.map((x) => x.fileIndex)).size > 1;
  const rows = shown.slice(0, MAX_ROWS).map((s) => {
    const isSelected = selected.includes(s.key);
    const li = el('li', { role: 'option', class: 'service', 'aria-selected': String(isSelected), tabindex: '-1' });
    li.dataset.key = s.key;
    li.append(el('span', { class: 'title' }, s.title));
    li.append(el('span', { class: 'meta' }, s.frontends.join(' · ')));
    // Several dumps in the snapshot: say which one the Service was read from.
    if (manyFiles && files[s.fileIndex]) li.append(el('span', { class: 'meta file' }, files[s.fileIndex]));
    const badge = s.noEndpoints ? el('span', { class: 'badge warn' }, strings!.noEndpoints) : el('span', { class: 'badge' }, `${s.endpointCount} ${strings!.endpoints}`);
    li.append(badge);
    return li;
  });
  list.replaceChildren(...rows);
}

list.addEventListener('click', (event) => {
  const li = (event.target as Element).closest('li.service') as HTMLLIElement | null;
  if (li?.dataset.key) toggle(li.dataset.key, !(event.ctrlKey || event.metaKey || event.shiftKey));
});
list.addEventListener('keydown', (event) => {
  const items = [...list.querySelectorAll<HTMLLIElement>('li.service')];
  const current = items.indexOf(document.activeElement as HTMLLIElement);
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    event.preventDefault();
    const next = items[Math.min(items.length - 1, Math.max(0, current + (event.key === 'ArrowDown' ? 1 : -1)))];
    next?.focus();
  } else if ((event.key === 'Enter' || event.key === ' ') && current >= 0) {
    event.preventDefault();
    toggle(items[current].dataset.key!, event.key === 'Enter');
  }
});
filterInput.addEventListener('input', () => {
  filter = filterInput.value;
  renderList();
});
copyButton.addEventListener('click', () => post({ type: 'copyMermaid', keys: selected }));

// ---- graph ----
function nodeElement(n: GraphNode, x: number, y: number): SVGGElement {
  const g = svg('g', { class: `node ${n.kind}${n.source ? ' linked' : ''}`, transform: `translate(${x},${y})`, tabindex: n.source ? 0 : -1, role: n.source ? 'button' : 'img' });
  g.dataset.id = n.id;
  g.setAttribute('aria-label', [n.detail, n.label, ...n.badges].filter(Boolean).join(', '));
  g.append(svg('title', {}, [n.label, n.detail, ...n.badges].filter(Boolean).join('\n')));
  g.append(svg('rect', { width: NODE_WIDTH, height: NODE_HEIGHT, rx: n.kind === 'frontend' || n.kind === 'pod' ? 14 : 3 }));
  g.append(svg('text', { x: 8, y: 17, class: 'label' }, clip(n.label, 30)));
  g.append(svg('text', { x: 8, y: 32, class: 'detail' }, clip(n.detail, 34)));
  if (n.badges.length > 0) g.append(svg('text', { x: 8, y: 46, class: 'badges' }, clip(n.badges.join(' · '), 36)));
  if (n.source) {
    const reveal = () => post({ type: 'reveal', nodeId: n.id });
    g.addEventListener('click', reveal);
    g.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        reveal();
      }
    });
  }
  return g;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function renderGraph(): void {
  if (!strings) return;
  if (graphs.length === 0) {
    main.replaceChildren(el('p', { class: 'empty' }, strings.noSelection));
    return;
  }
  const layout = layoutGraphs(graphs);
  const root = svg('svg', { class: 'graph', width: layout.width, height: layout.height, viewBox: `0 0 ${layout.width} ${layout.height}`, role: 'group' });
  root.setAttribute('aria-label', strings.graphLabel);
  const defs = svg('defs');
  const marker = svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrowhead' }));
  defs.append(marker);
  root.append(defs);
  for (const title of layout.titles) root.append(svg('text', { x: title.x, y: title.y, class: 'service-title' }, title.text));
  const edges = svg('g', { class: 'edges' });
  for (const e of layout.edges) {
    const path = svg('path', { d: e.path, class: 'edge', 'marker-end': 'url(#arrow)' });
    edges.append(path);
    if (e.label) edges.append(svg('text', { x: e.labelX, y: e.labelY, class: 'share' }, e.label));
  }
  root.append(edges);
  for (const p of layout.nodes) root.append(nodeElement(p.node, p.x, p.y));
  main.replaceChildren(root);
}

// ---- messages ----
window.addEventListener('message', (event: MessageEvent) => {
  const message = parseToWebview(event.data);
  if (!message) return;
  if (message.type === 'init') {
    strings = message.strings;
    services = message.services;
    files = message.files;
    selected = message.selected;
    filterLabel.textContent = strings.filterLabel;
    filterInput.placeholder = strings.filterPlaceholder;
    list.setAttribute('aria-label', strings.servicesLabel);
    copyButton.textContent = strings.copyMermaid;
    saveState();
    renderList();
    renderGraph();
  } else if (message.type === 'graph') {
    graphs = message.graphs;
    selected = graphs.map((g) => g.key);
    saveState();
    renderList();
    renderGraph();
  }
});

post({ type: 'ready' });
