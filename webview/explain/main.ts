// The "Explain This Node" webview (browser bundle). Everything from the extension arrives as a checked message
// and is rendered with textContent on elements we create: no HTML string is ever parsed. Evidence links send
// only the evidence id back; the extension looks the lines up.
import { codeSpans, parseToWebview, type ExplainPanelState, type ExplainStrings, type ExplainView, type FromWebview, type ViewItem } from '../../src/core/explain/node-protocol';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  setState(state: ExplainPanelState): void;
  getState(): unknown;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const initial = (() => {
  try {
    return JSON.parse(document.body.dataset.state ?? '{}') as { document?: unknown };
  } catch {
    return {};
  }
})();
if (typeof initial.document === 'string') vscode.setState({ document: initial.document });

const app = document.getElementById('app')!;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function format(template: string, ...args: (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (whole, i: string) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : whole));
}

/** Prose with `code` spans, each span a text node or a <code> element. */
function prose(parent: HTMLElement, text: string): void {
  for (const part of codeSpans(text)) parent.append(part.code ? el('code', {}, part.text) : document.createTextNode(part.text));
}

function item(strings: ExplainStrings, it: ViewItem): HTMLElement {
  const li = el('li', { class: `item ${it.kind}` });
  const label = it.kind === 'pro' ? strings.pro : it.kind === 'con' ? strings.con : it.kind === 'warning' ? strings.warning : '';
  if (label) li.append(el('span', { class: 'kind' }, label), document.createTextNode(' '));
  const p = el('span', { class: 'text' });
  prose(p, it.text);
  li.append(p);
  if (it.evidence.length > 0) {
    const list = el('ul', { class: 'evidence' });
    for (const ev of it.evidence) {
      const a = el('a', { href: '#', class: 'evidence-link', 'data-evidence': String(ev.id), title: format(strings.reveal, ev.file, ev.line) });
      a.append(el('span', { class: 'location' }, `${ev.file}:${ev.line}`), el('code', { class: 'quote' }, ev.quote));
      a.addEventListener('click', (event) => {
        event.preventDefault();
        vscode.postMessage({ type: 'reveal', evidence: ev.id });
      });
      const entry = el('li');
      entry.append(a);
      list.append(entry);
    }
    li.append(list);
  }
  return li;
}

function render(title: string, strings: ExplainStrings, view: ExplainView): void {
  app.replaceChildren();
  document.title = title;
  document.body.dataset.mode = view.mode;
  const header = el('header');
  const h1 = el('h1', { id: 'headline' });
  prose(h1, view.headline);
  const refresh = el('button', { id: 'refresh', type: 'button' }, strings.refresh);
  refresh.addEventListener('click', () => {
    app.setAttribute('aria-busy', 'true');
    vscode.postMessage({ type: 'refresh' });
  });
  header.append(h1, refresh);
  const files = el('p', { class: 'files' }, `${strings.files} ${view.files.join(', ')}`);
  app.append(header, files);
  for (const s of view.sections) {
    const section = el('section', { 'data-section': s.id });
    section.append(el('h2', {}, s.title));
    if (s.items.length > 0) {
      const ul = el('ul', { class: 'items' });
      for (const it of s.items) ul.append(item(strings, it));
      section.append(ul);
    }
    if (s.facts.length > 0) {
      const table = el('table', { class: 'facts' });
      for (const f of s.facts) {
        const tr = el('tr');
        tr.append(el('th', { scope: 'row' }, f.label), el('td', {}, f.value));
        table.append(tr);
      }
      section.append(table);
    }
    app.append(section);
  }
  app.removeAttribute('aria-busy');
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = parseToWebview(event.data);
  if (!message) return;
  if (message.type === 'explain') render(message.title, message.strings, message.view);
  else {
    app.replaceChildren(el('p', { class: 'error', role: 'alert' }, message.message));
    app.removeAttribute('aria-busy');
  }
});

vscode.postMessage({ type: 'ready' });
